// Output ports (pub/sub) on every runtime: fan-out to every live subscriber, dead ones forgotten,
// filters, unsubscribing, and a bounded subscriber whose drops are counted instead of lost silently.
#include "engine_test.hpp"

#include <optional>

using namespace engine_test;

namespace {

// Records each message; if a gate is given, the first message waits at it (a subscriber that
// cannot keep up).
struct Listener {
  using Message = std::string;
  Probe* probe = nullptr;
  Gate* gate = nullptr;
  bool waited = false;
  as::Task<> handle(as::Context<Listener>&, std::string s, std::monostate&) {
    if (gate != nullptr && !waited) {
      waited = true;
      co_await gate->opened();
    }
    probe->record(s);
  }
};

struct Level {
  int value;
};
struct Gauge {
  using Message = Level;
  Probe* probe = nullptr;
  void handle(as::Context<Gauge>&, Level l, std::monostate&) { probe->record("level " + std::to_string(l.value)); }
};

auto tagged(std::string tag) {
  return [tag = std::move(tag)](int v) { return tag + " " + std::to_string(v); };
}

// Keeps its port in its State and publishes from its handler.
struct Subscribe {
  as::ActorRef<std::string> who;
};
struct Publish {
  std::string text;
};
using PublisherMsg = std::variant<Subscribe, Publish>;
struct Publisher {
  using Message = PublisherMsg;
  using State = as::OutputPort<std::string>;
  void handle(as::Context<Publisher>&, PublisherMsg msg, as::OutputPort<std::string>& port) {
    as::match(msg,
              [&](Subscribe& s) { (void)port.subscribe(s.who); },  // the message type is the value type
              [&](Publish& p) { port.send(p.text); });
  }
};

}  // namespace

class TestOutputPort : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void an_output_port_reaches_every_live_subscriber_and_forgets_a_dead_one() {
    Probe probe;
    auto sys = make_system();
    as::OutputPort<int> port;
    auto a = sys->spawn(Listener{.probe = &probe}, {}).value();
    auto b = sys->spawn(Listener{.probe = &probe}, {}).value();
    auto c = sys->spawn(Listener{.probe = &probe}, {}).value();
    as::Subscription sa = port.subscribe(a, tagged("a"));
    as::Subscription sb = port.subscribe(b, tagged("b"));
    as::Subscription sc = port.subscribe(c, tagged("c"));
    QCOMPARE(port.subscriber_count(), std::size_t{3});

    QVERIFY(c.stop_and_wait(kTimeout));
    QCOMPARE(port.send(1), std::size_t{2});
    QCOMPARE(port.send(2), std::size_t{2});
    QVERIFY(probe.wait_until(*sys, [](const auto& ev) { return ev.size() == 4; }));
    QVERIFY(probe.index_of("a 1") < probe.index_of("a 2"));  // one sender: in order
    QVERIFY(probe.index_of("b 1") < probe.index_of("b 2"));
    QCOMPARE(sa.delivered(), std::uint64_t{2});
    QVERIFY(!sc.is_active());
    QCOMPARE(sc.dropped(), std::uint64_t{1});  // the value it could not get is counted, not lost silently
    QCOMPARE(port.dropped(), std::uint64_t{1});
    QCOMPARE(port.subscriber_count(), std::size_t{2});

    // A subscriber that stopped is also forgotten when the port is only asked how many it has.
    QVERIFY(b.stop_and_wait(kTimeout));
    QCOMPARE(port.subscriber_count(), std::size_t{1});
    QVERIFY(!sb.is_active());
    QCOMPARE(port.send(3), std::size_t{1});
  }

  void a_bounded_subscriber_that_cannot_keep_up_has_its_drops_counted() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    as::OutputPort<int> port;
    auto slow = sys->spawn(Listener{.probe = &probe, .gate = &gate}, {}).value();
    auto fast = sys->spawn(Listener{.probe = &probe}, {}).value();
    as::Subscription bounded = port.subscribe(slow, tagged("slow"), {.capacity = 2});
    as::Subscription unbounded = port.subscribe(fast, tagged("fast"));

    // The slow one holds its first message at the gate: its backlog is full after two.
    for (int v = 1; v <= 5; ++v) port.send(v);
    QCOMPARE(bounded.delivered(), std::uint64_t{2});
    QCOMPARE(bounded.dropped(), std::uint64_t{3});
    QCOMPARE(bounded.pending(), std::size_t{2});
    QCOMPARE(port.dropped(), std::uint64_t{3});
    QCOMPARE(unbounded.dropped(), std::uint64_t{0});
    QVERIFY(probe.wait_for(*sys, "fast 5"));

    gate.open();
    QVERIFY(probe.wait_for(*sys, "slow 2"));
    QCOMPARE(port.send(6), std::size_t{2});  // it has caught up: room again
    QVERIFY(probe.wait_for(*sys, "slow 6"));
    QVERIFY(probe.wait_for(*sys, "fast 6"));
    for (int v = 3; v <= 5; ++v) QVERIFY(!probe.contains("slow " + std::to_string(v)));
    QCOMPARE(bounded.dropped(), std::uint64_t{3});
    QCOMPARE(bounded.delivered(), std::uint64_t{3});
  }

  void a_map_returning_nullopt_filters_values_without_counting_drops() {
    Probe probe;
    auto sys = make_system();
    as::OutputPort<int> port;
    auto a = sys->spawn(Listener{.probe = &probe}, {}).value();
    as::Subscription s = port.subscribe(a, [](int v) -> std::optional<std::string> {
      if (v % 2 != 0) return std::nullopt;
      return "even " + std::to_string(v);
    });
    std::size_t reached = 0;
    for (int v = 1; v <= 4; ++v) reached += port.send(v);
    QCOMPARE(reached, std::size_t{2});
    QVERIFY(probe.wait_for(*sys, "even 4"));
    QCOMPARE(probe.events(), (std::vector<std::string>{"even 2", "even 4"}));
    QCOMPARE(s.dropped(), std::uint64_t{0});
    QCOMPARE(s.delivered(), std::uint64_t{2});
  }

  void a_subscriber_of_any_message_type_gets_the_mapped_value() {
    Probe probe;
    auto sys = make_system();
    as::OutputPort<int> port;
    auto gauge = sys->spawn(Gauge{.probe = &probe}, {}).value();
    (void)port.subscribe(gauge, [](int v) { return Level{v * 10}; });
    QCOMPARE(port.send(3), std::size_t{1});
    QVERIFY(probe.wait_for(*sys, "level 30"));
  }

  void unsubscribing_stops_delivery() {
    Probe probe;
    auto sys = make_system();
    as::OutputPort<int> port;
    auto a = sys->spawn(Listener{.probe = &probe}, {}).value();
    auto b = sys->spawn(Listener{.probe = &probe}, {}).value();
    as::Subscription sa = port.subscribe(a, tagged("a"));
    (void)port.subscribe(b, tagged("b1"));
    (void)port.subscribe(b, tagged("b2"));
    sa.unsubscribe();
    QVERIFY(!sa.is_active());
    QCOMPARE(port.send(1), std::size_t{2});
    QCOMPARE(port.unsubscribe(b), std::size_t{2});
    QCOMPARE(port.send(2), std::size_t{0});
    QCOMPARE(port.subscriber_count(), std::size_t{0});
    QVERIFY(probe.wait_for(*sys, "b2 1"));
    QVERIFY(probe.wait_for(*sys, "b1 1"));
    QCOMPARE(probe.events().size(), std::size_t{2});
    QCOMPARE(port.dropped(), std::uint64_t{0});  // ending a subscription is not a drop
  }

  void destroying_the_port_ends_its_subscriptions_but_delivers_what_was_sent() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Listener{.probe = &probe}, {}).value();
    as::Subscription s;
    {
      as::OutputPort<int> port;
      s = port.subscribe(a, tagged("a"));
      port.send(1);
      as::OutputPort<int> moved = std::move(port);  // a port can live in an actor's State
      QCOMPARE(port.send(2), std::size_t{0});      // the moved-from port has no subscribers
      moved.send(3);
    }
    QVERIFY(!s.is_active());
    QVERIFY(probe.wait_for(*sys, "a 3"));
    QCOMPARE(probe.events(), (std::vector<std::string>{"a 1", "a 3"}));
  }

  void a_port_kept_in_an_actors_state_publishes_from_its_handler() {
    Probe probe;
    auto sys = make_system();
    auto publisher = sys->spawn<Publisher>({}).value();
    auto a = sys->spawn(Listener{.probe = &probe}, {}).value();
    auto b = sys->spawn(Listener{.probe = &probe}, {}).value();
    QVERIFY(publisher.cast(Subscribe{a}));
    QVERIFY(publisher.cast(Subscribe{b}));
    QVERIFY(publisher.cast(Publish{"news"}));
    QVERIFY(probe.wait_count(*sys, "news", 2));
  }

  void subscribing_an_empty_handle_throws_output_port_error() {
    as::OutputPort<int> port;
    QVERIFY_THROWS_EXCEPTION(as::OutputPortError, (void)port.subscribe(as::ActorRef<std::string>(), tagged("x")));
    QCOMPARE(port.subscriber_count(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestOutputPort)
#include "tst_output_port.moc"
