// Derived references on every runtime (ractor's DerivedActorRef): a Sub message sent through one
// arrives as the actor's own message, a failed send (stopped actor, full bounded mailbox) hands the
// Sub message back, a backpressured send waits for room, and a derived reference can call, set
// timers, stop, kill, be monitored and subscribe to an output port.
#include "engine_test.hpp"

#include <optional>
#include <string>
#include <unordered_set>

using namespace engine_test;

namespace {

struct Hold {
  Gate* gate;
};
struct Add {
  int n;
};
struct Get {
  as::Reply<int> reply;
};
struct Note {
  std::string text;
};
using TallyMsg = std::variant<Hold, Add, Get, Note>;

/// Adds, answers its total, records what it handles (and what it hears as a monitor); a Hold keeps
/// it in its handler until the test opens the gate.
struct Tally {
  using Message = TallyMsg;
  using State = int;
  Probe* probe = nullptr;
  std::string me = "tally";
  int pre_start(as::Context<Tally>&) { return 0; }
  as::Task<> handle(as::Context<Tally>&, TallyMsg m, int& total) {
    if (auto* hold = std::get_if<Hold>(&m)) {
      probe->record(me + " holding");
      co_await hold->gate->opened();
      probe->record(me + " released");
      co_return;
    }
    as::match(
        m, [](Hold&) {},
        [&](Add& a) {
          total += a.n;
          probe->record(me + " add " + std::to_string(a.n));
        },
        [&](Get& g) { g.reply.send(total); }, [&](Note& n) { probe->record(me + " note " + n.text); });
  }
  void handle_supervisor_event(as::Context<Tally>&, const as::SupervisionEvent& e, int&) {
    if (auto* d = e.get<as::ActorDown>())
      probe->record(me + " saw " + d->actor.id().to_string() + " " + std::string(as::to_string(d->exit.kind)) + ": " +
                    d->exit.reason);
  }
};

/// Another protocol that also takes Add: a DerivedRef<Add> does not care which.
struct Reset {};
using GaugeMsg = std::variant<Add, Reset>;
struct Gauge {
  using Message = GaugeMsg;
  Probe* probe = nullptr;
  void handle(as::Context<Gauge>&, GaugeMsg m, std::monostate&) {
    if (auto* a = std::get_if<Add>(&m)) probe->record("gauge add " + std::to_string(a->n));
  }
};

/// A Sub that is not a variant alternative: it converts to and from the actor's message explicitly,
/// so a failed send hands it back through its constructor.
struct Line {
  explicit Line(std::string t) : text(std::move(t)) {}
  explicit operator std::string() && { return "line: " + std::move(text); }
  std::string text;
};
struct Printer {
  using Message = std::string;
  Probe* probe = nullptr;
  void handle(as::Context<Printer>&, std::string s, std::monostate&) { probe->record(s); }
};

/// Sends its number through a derived reference with a backpressured send, saying whether it had to
/// wait and how the send ended.
struct Sender {
  using Message = int;
  Probe* probe = nullptr;
  as::DerivedRef<Add> adder;
  as::Task<> handle(as::Context<Sender>&, int value, std::monostate&) {
    as::PendingDerivedSend<Add> pending = adder.send(Add{value}, 20s);
    const std::string n = std::to_string(value);
    probe->record((pending.is_ready() ? "ready " : "waiting ") + n);
    auto sent = co_await std::move(pending);
    probe->record(sent ? "sent " + n
                       : "failed " + std::to_string(sent.error().message().n) + ": " +
                             std::string(as::to_string(sent.error().kind())));
  }
};

/// The Add values a tally handled, in order.
std::vector<int> adds(const Probe& probe, const std::string& me = "tally") {
  std::vector<int> out;
  const std::string prefix = me + " add ";
  for (const std::string& e : probe.events())
    if (e.rfind(prefix, 0) == 0) out.push_back(std::stoi(e.substr(prefix.size())));
  return out;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

class TestDerivedRef : public QObject {
  Q_OBJECT

  /// A tally with a mailbox of one that rejects, held in its handler so the next message fills it.
  static as::ActorRef<TallyMsg> held_bounded_tally(as::System& sys, Probe& probe, Gate& gate) {
    auto tally =
        sys.spawn(Tally{.probe = &probe}, as::SpawnOptions{.mailbox_capacity = 1, .overflow = as::Overflow::reject})
            .value();
    if (!tally.cast(Hold{&gate}) || !probe.wait_for(sys, "tally holding")) return {};
    return tally;
  }

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_sub_message_cast_through_a_derived_ref_arrives_as_that_alternative() {
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    as::DerivedRef<Add> adder = tally.derived<Add>();
    as::DerivedRef<Note> noter = tally.derived<Note>();
    QVERIFY(adder.cast(Add{2}));
    QVERIFY(noter.cast(Note{"hi"}));
    QVERIFY(adder.try_cast(Add{3}));
    QVERIFY(probe.wait_for(*sys, "tally add 3"));
    QCOMPARE(probe.events(), (std::vector<std::string>{"tally add 2", "tally note hi", "tally add 3"}));
    QCOMPARE(tally.call(as::rpc<Get>, kTimeout).get().value(), 5);  // both reached the one state

    // Handles of one actor: equal, same id, one hash, whichever part of the protocol they take.
    QVERIFY(adder == tally);
    QVERIFY(noter == tally);
    QCOMPARE(adder.id(), tally.id());
    std::unordered_set<as::DerivedRef<Add>> set{adder, tally.derived<Add>()};
    QCOMPARE(set.size(), std::size_t{1});
    QCOMPARE(std::hash<as::DerivedRef<Add>>{}(adder), std::hash<as::ActorCell>{}(tally));
    QCOMPARE(adder.type_name(), tally.type_name());
  }

  void derived_refs_to_actors_of_different_message_types_share_one_type() {
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    auto gauge = sys->spawn(Gauge{.probe = &probe}, {}).value();
    // Code that knows only Add holds both, without naming TallyMsg or GaugeMsg.
    std::vector<as::DerivedRef<Add>> adders{tally.derived<Add>(), gauge.derived<Add>()};
    QVERIFY(!(adders[0] == adders[1]));
    for (const auto& a : adders) QVERIFY(a.cast(Add{7}));
    QVERIFY(probe.wait_for(*sys, "tally add 7"));
    QVERIFY(probe.wait_for(*sys, "gauge add 7"));
  }

  void a_sub_that_is_not_an_alternative_is_converted_both_ways() {
    Probe probe;
    auto sys = make_system();
    auto printer = sys->spawn(Printer{.probe = &probe}, {}).value();
    as::DerivedRef<Line> lines = printer.derived<Line>();
    QVERIFY(lines.cast(Line("one")));
    QVERIFY(probe.wait_for(*sys, "line: one"));
    QVERIFY(printer.stop_and_wait(kTimeout));
    auto refused = lines.cast(Line("two"));
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::stopped);
    // Back through Line's constructor from the full message: the text the conversion made.
    QCOMPARE(refused.error().message().text, std::string("line: two"));
  }

  void a_smaller_variant_of_the_actors_alternatives_is_a_part_of_its_protocol() {
    // ractor's usual derived reference: a part of the protocol as a smaller enum.
    using Counting = std::variant<Add, Get>;
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    as::DerivedRef<Counting> counting = tally.derived<Counting>();
    QVERIFY(counting.cast(Add{20}));
    QVERIFY(counting.cast(Counting(Add{22})));
    QCOMPARE(counting.call(as::rpc<Get>, kTimeout).get().value(), 42);
    QVERIFY(probe.wait_for(*sys, "tally add 22"));

    QVERIFY(tally.stop_and_wait(kTimeout));
    auto refused = counting.cast(Add{5});  // handed back as the smaller variant, holding the Add
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::stopped);
    QVERIFY(std::holds_alternative<Add>(refused.error().message()));
    QCOMPARE(std::get<Add>(refused.error().message()).n, 5);
  }

  void a_failed_send_to_a_stopped_actor_hands_the_sub_message_back() {
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    as::DerivedRef<Add> adder = tally.derived<Add>();
    QVERIFY(tally.stop_and_wait(kTimeout));

    auto refused = adder.cast(Add{7});
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::stopped);
    QCOMPARE(refused.error().message().n, 7);
    QCOMPARE(refused.error().target(), tally.id());
    QCOMPARE(refused.error().status(), as::ActorStatus::stopped);
    auto direct = tally.cast(Add{7});  // the same failure through the full reference says the same
    QVERIFY(!direct);
    QCOMPARE(std::string(refused.error().what()), std::string(direct.error().what()));

    auto tried = adder.try_cast(Add{8});
    QVERIFY(!tried);
    QCOMPARE(tried.error().kind(), as::SendFailure::stopped);
    QCOMPARE(std::move(tried).error().message().n, 8);
  }

  void a_failed_send_to_a_full_bounded_mailbox_hands_the_sub_message_back() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto tally = held_bounded_tally(*sys, probe, gate);
    QVERIFY(tally);
    as::DerivedRef<Add> adder = tally.derived<Add>();
    QVERIFY(adder.cast(Add{1}));  // fills the one place

    auto refused = adder.cast(Add{2});
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::full);
    QCOMPARE(refused.error().message().n, 2);
    QVERIFY2(contains(refused.error().what(), "mailbox is full (capacity 1)"), refused.error().what());
    auto tried = adder.try_cast(Add{3});
    QVERIFY(!tried);
    QCOMPARE(tried.error().kind(), as::SendFailure::full);
    QCOMPARE(tried.error().message().n, 3);
    QCOMPARE(adder.stats().rejected, std::uint64_t{2});

    gate.open();
    QVERIFY(probe.wait_for(*sys, "tally add 1"));
    QVERIFY(tally.cast(Note{"end"}));
    QVERIFY(probe.wait_for(*sys, "tally note end"));
    QCOMPARE(adds(probe), std::vector<int>{1});  // the refused ones were not queued after all
  }

  void a_backpressured_send_through_a_derived_ref_waits_for_room_or_hands_the_sub_back() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    const as::SpawnOptions bounded{.mailbox_capacity = 1, .overflow = as::Overflow::backpressure};
    auto tally = sys->spawn(Tally{.probe = &probe}, bounded).value();
    QVERIFY(tally.cast(Hold{&gate}));
    QVERIFY(probe.wait_for(*sys, "tally holding"));
    as::DerivedRef<Add> adder = tally.derived<Add>();
    QVERIFY(adder.send(Add{1}).get());  // room: settled at once
    auto tried = adder.try_cast(Add{9});  // never waits, whatever the policy
    QVERIFY(!tried);
    QCOMPARE(tried.error().kind(), as::SendFailure::full);
    QCOMPARE(tried.error().message().n, 9);

    auto timed = adder.send(Add{2}, 50ms).get();
    QVERIFY(!timed);
    QCOMPARE(timed.error().kind(), as::SendFailure::timed_out);
    QCOMPARE(timed.error().message().n, 2);

    auto sender = sys->spawn(Sender{.probe = &probe, .adder = adder}, {}).value();
    QVERIFY(sender.cast(3));
    QVERIFY(probe.wait_for(*sys, "waiting 3"));  // co_awaits without holding its thread
    gate.open();
    QVERIFY(probe.wait_for(*sys, "sent 3"));
    QVERIFY(probe.wait_for(*sys, "tally add 3"));
    QCOMPARE(adds(probe), (std::vector<int>{1, 3}));

    QVERIFY(tally.stop_and_wait(kTimeout));
    QVERIFY(sender.cast(4));
    QVERIFY(probe.wait_for(*sys, "failed 4: stopped"));
  }

  void a_call_through_a_derived_ref_gets_its_reply() {
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    QVERIFY(tally.derived<Add>().cast(Add{40}));
    as::DerivedRef<Get> reader = tally.derived<Get>();
    QCOMPARE(reader.call(as::rpc<Get>, kTimeout).get().value(), 40);
    QVERIFY(tally.cast(Add{2}));
    as::CallResult<int> built = reader.call([](as::Reply<int> r) { return Get{std::move(r)}; }, 20s).get();
    QVERIFY2(built.is_success(), built.error().c_str());
    QCOMPARE(*built, 42);

    QVERIFY(tally.stop_and_wait(kTimeout));
    as::CallResult<int> late = reader.call(as::rpc<Get>, kTimeout).get();
    QVERIFY(late.is_sender_error());
    QVERIFY2(contains(late.error(), "call failed") && contains(late.error(), "accepts no new messages"),
             late.error().c_str());
  }

  void a_timer_through_a_derived_ref_sends_the_converted_message() {
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    as::DerivedRef<Add> adder = tally.derived<Add>();
    as::TimerHandle once = adder.send_after(5ms, Add{100});
    QVERIFY(probe.wait_for(*sys, "tally add 100"));
    QCOMPARE(once.fired(), std::uint64_t{1});
    QVERIFY(!once.is_active());

    as::TimerHandle made = adder.send_after(5ms, [] { return Add{200}; });
    QVERIFY(probe.wait_for(*sys, "tally add 200"));
    QCOMPARE(made.fired(), std::uint64_t{1});

    int next = 0;  // the make function runs on one runtime thread at a time
    as::TimerHandle ticks = adder.send_interval(5ms, [next]() mutable { return Add{++next}; });
    QVERIFY(probe.wait_for(*sys, "tally add 3"));
    QVERIFY(ticks.cancel());
    QVERIFY(tally.cast(Note{"after"}));  // behind every tick already queued
    QVERIFY(probe.wait_for(*sys, "tally note after"));
    const std::vector<int> got = adds(probe);
    QVERIFY(got.size() >= 5);
    QCOMPARE(std::vector<int>(got.begin(), got.begin() + 5), (std::vector<int>{100, 200, 1, 2, 3}));
    QCOMPARE(got.size() - 2, static_cast<std::size_t>(ticks.fired()));  // every tick arrived, converted

    QVERIFY_THROWS_EXCEPTION(as::TimerError, (void)adder.send_interval(0ms, [] { return Add{1}; }));
    QVERIFY_THROWS_EXCEPTION(as::TimerError, (void)as::DerivedRef<Add>().send_after(1ms, Add{1}));
  }

  void a_derived_ref_stops_and_is_monitored() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Tally{.probe = &probe, .me = "watcher"}, {}).value();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    as::DerivedRef<Add> adder = tally.derived<Add>();
    QVERIFY(watcher.monitor(adder));  // a derived reference is a monitor target
    QVERIFY(adder.monitors() == std::vector<as::ActorCell>{watcher});
    QVERIFY(adder.is_alive());
    adder.stop("done adding");
    QVERIFY(adder.wait(kTimeout));
    QCOMPARE(adder.status(), as::ActorStatus::stopped);
    QCOMPARE(adder.exit()->kind, as::ExitKind::stopped);
    QCOMPARE(adder.exit()->reason, std::string("done adding"));
    QVERIFY(probe.wait_for(*sys, "watcher saw " + tally.id().to_string() + " stopped: done adding"));
  }

  void a_derived_ref_kills_and_monitors() {
    Probe probe;
    Gate gate;  // never opened: only a kill ends the held handler
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    auto target = sys->spawn(Tally{.probe = &probe, .me = "target"}, {}).value();
    as::DerivedRef<Add> adder = tally.derived<Add>();
    QVERIFY(adder.monitor(target));  // a derived reference's actor monitors another
    QVERIFY(target.stop_and_wait(kTimeout, "bye"));
    QVERIFY(probe.wait_for(*sys, "tally saw " + target.id().to_string() + " stopped: bye"));

    QVERIFY(tally.cast(Hold{&gate}));
    QVERIFY(probe.wait_for(*sys, "tally holding"));
    as::JoinHandle<as::ActorExit> joined = adder.join_handle();
    QVERIFY(adder.kill_and_wait(kTimeout));
    QCOMPARE(adder.exit()->kind, as::ExitKind::killed);
    QVERIFY(joined.wait(kTimeout));
    QVERIFY(joined.result().has_value());
    QCOMPARE(joined.result().value().kind, as::ExitKind::killed);
    QVERIFY(!probe.contains("tally released"));
  }

  void an_output_port_delivers_through_a_derived_ref_and_forgets_it_when_it_stops() {
    Probe probe;
    auto sys = make_system();
    auto tally = sys->spawn(Tally{.probe = &probe}, {}).value();
    as::OutputPort<int> port;
    // A backlog of one: each message must tell the subscription when it has been handled.
    as::Subscription sub = port.subscribe(tally.derived<Add>(), [](int v) { return Add{v}; }, {.capacity = 1});
    as::Subscription notes =
        port.subscribe(tally.derived<Note>(), [](int v) -> std::optional<Note> {
          if (v % 2 != 0) return std::nullopt;  // a filter, not a drop
          return Note{std::to_string(v)};
        });
    QCOMPARE(port.subscriber_count(), std::size_t{2});
    QCOMPARE(port.send(1), std::size_t{1});
    QVERIFY(probe.wait_for(*sys, "tally add 1"));
    QVERIFY(tally.cast(Note{"marker"}));  // handled after Add 1 is done with and its place freed
    QVERIFY(probe.wait_for(*sys, "tally note marker"));
    QCOMPARE(sub.pending(), std::size_t{0});
    QCOMPARE(port.send(2), std::size_t{2});
    QVERIFY(probe.wait_for(*sys, "tally note 2"));
    QCOMPARE(adds(probe), (std::vector<int>{1, 2}));
    QCOMPARE(sub.delivered(), std::uint64_t{2});
    QCOMPARE(notes.delivered(), std::uint64_t{1});
    QVERIFY(sub.subscriber() == tally);

    QVERIFY(tally.stop_and_wait(kTimeout));
    QCOMPARE(port.send(3), std::size_t{0});
    QCOMPARE(sub.dropped(), std::uint64_t{1});
    QVERIFY(!sub.is_active());
    QCOMPARE(port.subscriber_count(), std::size_t{0});
    QCOMPARE(port.dropped(), std::uint64_t{1});  // the values notes filtered out are not drops
  }

  void an_output_port_counts_a_derived_subscribers_drops_at_a_full_mailbox() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto tally = held_bounded_tally(*sys, probe, gate);
    QVERIFY(tally);
    as::OutputPort<int> port;
    as::Subscription sub = port.subscribe(tally.derived<Add>(), [](int v) { return Add{v}; });
    QCOMPARE(port.send(1), std::size_t{1});  // fills the one place
    QCOMPARE(port.send(2), std::size_t{0});  // refused: counted, and the subscriber is kept
    QCOMPARE(sub.dropped(), std::uint64_t{1});
    QCOMPARE(port.dropped(), std::uint64_t{1});
    QVERIFY(sub.is_active());
    QCOMPARE(tally.stats().rejected, std::uint64_t{1});

    gate.open();
    QVERIFY(probe.wait_for(*sys, "tally add 1"));
    QCOMPARE(port.send(3), std::size_t{1});
    QVERIFY(probe.wait_for(*sys, "tally add 3"));
    QCOMPARE(adds(probe), (std::vector<int>{1, 3}));
    QCOMPARE(sub.delivered(), std::uint64_t{2});
  }
};

QTEST_GUILESS_MAIN(TestDerivedRef)
#include "tst_derived_ref.moc"
