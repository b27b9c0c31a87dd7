// Bounded mailboxes on every runtime: each overflow policy at the boundary, backpressured senders
// let in in the order they began to wait, a blocking send that times out, try_cast, a kill that
// reaches a full mailbox, and four concurrent senders whose every message is accounted for.
#include "engine_test.hpp"

#include <string>
#include <thread>

using namespace engine_test;

namespace {

/// Holds the actor in its handler (a suspended coroutine) until the test opens the gate, so that
/// what is sent meanwhile waits in the mailbox.
struct Hold {
  Gate* gate;
};
using SinkMsg = std::variant<Hold, int>;

/// Records "got N" for each number, in the order it handles them.
struct Sink {
  using Message = SinkMsg;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Sink>&, SinkMsg m, std::monostate&) {
    if (auto* hold = std::get_if<Hold>(&m)) {
      probe->record("holding");
      co_await hold->gate->opened();
      probe->record("released");
      co_return;
    }
    probe->record("got " + std::to_string(std::get<int>(m)));
  }
};

as::SpawnOptions bounded(std::uint32_t capacity, as::Overflow overflow) {
  as::SpawnOptions o;
  o.mailbox_capacity = capacity;
  o.overflow = overflow;
  return o;
}

/// The numbers the sink handled, in order.
std::vector<int> handled(const Probe& probe) {
  std::vector<int> out;
  for (const std::string& e : probe.events())
    if (e.rfind("got ", 0) == 0) out.push_back(std::stoi(e.substr(4)));
  return out;
}

/// Sends its number to the sink with a backpressured send, saying when it has begun to wait and
/// how the send ended.
struct Sender {
  using Message = int;
  Probe* probe = nullptr;
  as::ActorRef<SinkMsg> sink;
  as::Task<> handle(as::Context<Sender>&, int value, std::monostate&) {
    as::PendingSend<SinkMsg> pending = sink.send(SinkMsg(value), 20s);
    const std::string n = std::to_string(value);
    probe->record((pending.is_ready() ? "ready " : "waiting ") + n);
    auto sent = co_await std::move(pending);
    probe->record(sent ? "sent " + n : "failed " + n + ": " + std::string(as::to_string(sent.error().kind())));
  }
};

/// Tries a plain (blocking) send from a plain handler, which must be refused.
struct PlainSender {
  using Message = int;
  Probe* probe = nullptr;
  as::ActorRef<SinkMsg> sink;
  void handle(as::Context<PlainSender>&, int value, std::monostate&) {
    auto sent = sink.cast(value);
    probe->record(sent ? "cast ok" : "cast " + std::string(as::to_string(sent.error().kind())));
    try {
      (void)sink.send(SinkMsg(value)).get();
      probe->record("get returned");
    } catch (const as::BlockingWaitError&) {
      probe->record("get refused");
    }
  }
};

/// On 0, sends itself 1 to 5 from its handler, saying which got in; records the others it handles.
struct SelfFiller {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<SelfFiller>& ctx, int m, std::monostate&) {
    if (m != 0) {
      probe->record("got " + std::to_string(m));
      return;
    }
    for (int i = 1; i <= 5; ++i) {
      auto sent = ctx.self().cast(i);
      probe->record((sent ? "queued " : std::string("refused ") + std::string(as::to_string(sent.error().kind())) + " ") +
                    std::to_string(i));
    }
  }
};

}  // namespace

namespace {

/// A sink spawned with the given bound and held in its handler (a suspended coroutine), so that
/// what is sent to it waits; with the probe it reports to and the gate that lets it go. The System
/// is destroyed first (members go in reverse order), while the probe and the gate still exist.
struct HeldSink {
  Probe probe;
  Gate gate;
  std::unique_ptr<as::System> sys = make_system();
  as::ActorRef<SinkMsg> sink;  // empty if it could not be spawned and held

  HeldSink(std::uint32_t capacity, as::Overflow overflow) {
    auto spawned = sys->spawn(Sink{.probe = &probe}, bounded(capacity, overflow)).value();
    if (spawned.cast(Hold{&gate}) && probe.wait_for(*sys, "holding")) sink = spawned;
  }
};

}  // namespace

Q_DECLARE_METATYPE(as::Overflow)
Q_DECLARE_METATYPE(std::vector<int>)

class TestMailboxLimits : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void reject_queues_exactly_capacity_then_hands_the_next_message_back() {
    HeldSink held(3, as::Overflow::reject);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    for (int i = 1; i <= 3; ++i) QVERIFY(sink.cast(i));
    auto refused = sink.cast(4);
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::full);
    QCOMPARE(std::get<int>(refused.error().message()), 4);
    QVERIFY(std::string(refused.error().what()).find("mailbox is full (capacity 3)") != std::string::npos);
    const as::ActorStats full = sink.stats();
    QCOMPARE(full.mailbox_capacity, 3u);
    QCOMPARE(full.overflow, as::Overflow::reject);
    QCOMPARE(full.mailbox_depth, std::uint64_t{3});
    QCOMPARE(full.rejected, std::uint64_t{1});
    QCOMPARE(full.dropped, std::uint64_t{0});

    gate.open();
    QVERIFY(probe.wait_for(*sys, "got 3"));
    QVERIFY(sink.cast(5));  // room again
    QVERIFY(probe.wait_for(*sys, "got 5"));
    QCOMPARE(handled(probe), (std::vector<int>{1, 2, 3, 5}));
    QCOMPARE(sink.stats().rejected, std::uint64_t{1});
  }

  void a_dropping_mailbox_keeps_capacity_messages_and_counts_the_rest_data() {
    QTest::addColumn<as::Overflow>("policy");
    QTest::addColumn<std::vector<int>>("kept");
    QTest::newRow("drop_newest keeps the first three") << as::Overflow::drop_newest << std::vector<int>{1, 2, 3};
    QTest::newRow("drop_oldest keeps the last three") << as::Overflow::drop_oldest << std::vector<int>{3, 4, 5};
  }
  void a_dropping_mailbox_keeps_capacity_messages_and_counts_the_rest() {
    QFETCH(as::Overflow, policy);
    QFETCH(std::vector<int>, kept);
    HeldSink held(3, policy);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    for (int i = 1; i <= 5; ++i) QVERIFY(sink.cast(i));  // a drop is not the sender's failure
    QCOMPARE(sink.stats().mailbox_depth, std::uint64_t{3});
    QCOMPARE(sink.stats().dropped, std::uint64_t{2});
    gate.open();
    QVERIFY(probe.wait_for(*sys, "got " + std::to_string(kept.back())));
    QVERIFY(sink.cast(99));  // behind anything still queued: a dropped message would come first
    QVERIFY(probe.wait_for(*sys, "got 99"));
    kept.push_back(99);
    QCOMPARE(handled(probe), kept);
    QVERIFY(sink.drain_and_wait(kTimeout));  // the counters are final once it has stopped
    const as::ActorStats s = sink.stats();
    QCOMPARE(s.dropped, std::uint64_t{2});
    QCOMPARE(s.rejected, std::uint64_t{0});
    QCOMPARE(s.handled, std::uint64_t{5});  // Hold, the three kept, 99
  }

  void an_actors_messages_to_itself_count_against_its_capacity() {
    Probe probe;
    auto sys = make_system();
    auto filler = sys->spawn(SelfFiller{.probe = &probe}, bounded(3, as::Overflow::reject)).value();
    QVERIFY(filler.cast(0));
    QVERIFY(probe.wait_for(*sys, "got 3"));
    const std::vector<std::string> expected = {"queued 1", "queued 2",  "queued 3",
                                               "refused full 4", "refused full 5"};
    const std::vector<std::string> events = probe.events();
    QVERIFY(events.size() >= expected.size());
    QCOMPARE(std::vector<std::string>(events.begin(), events.begin() + 5), expected);
    QVERIFY(filler.drain_and_wait(kTimeout));
    QCOMPARE(handled(probe), (std::vector<int>{1, 2, 3}));
    QCOMPARE(filler.stats().rejected, std::uint64_t{2});
    QCOMPARE(filler.stats().received, std::uint64_t{4});  // 0 and its three
  }

  void try_cast_refuses_a_full_mailbox_whatever_its_policy() {
    for (as::Overflow policy : {as::Overflow::reject, as::Overflow::drop_newest, as::Overflow::drop_oldest,
                                as::Overflow::backpressure}) {
      HeldSink held(1, policy);
      QVERIFY(held.sink);
      auto& [probe, gate, sys, sink] = held;
      QVERIFY(sink.try_cast(1));
      auto refused = sink.try_cast(2);
      QVERIFY2(!refused, as::to_string(policy).data());
      QCOMPARE(refused.error().kind(), as::SendFailure::full);
      QCOMPARE(std::get<int>(refused.error().message()), 2);
      QCOMPARE(sink.stats().rejected, std::uint64_t{1});
      QCOMPARE(sink.stats().dropped, std::uint64_t{0});
      gate.open();
      QVERIFY(probe.wait_for(*sys, "got 1"));
      QVERIFY(sink.stop_and_wait(kTimeout));
      auto dead = sink.try_cast(3);
      QVERIFY(!dead);
      QCOMPARE(dead.error().kind(), as::SendFailure::stopped);
    }
  }

  void backpressure_lets_waiting_senders_in_first_come_first_served() {
    HeldSink held(2, as::Overflow::backpressure);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    QVERIFY(sink.cast(1));  // room: a plain cast goes straight in
    QVERIFY(sink.cast(2));
    std::vector<as::ActorRef<int>> senders;
    for (int i = 0; i < 3; ++i) senders.push_back(sys->spawn(Sender{.probe = &probe, .sink = sink}, {}).value());
    // One at a time, so that the order in which they begin to wait is known.
    for (int i = 0; i < 3; ++i) {
      QVERIFY(senders[static_cast<std::size_t>(i)].cast(10 + i));
      QVERIFY(probe.wait_for(*sys, "waiting " + std::to_string(10 + i)));
    }
    // Nobody overtakes the queue, not even with room to spare in a moment.
    auto refused = sink.try_cast(13);
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::full);
    QCOMPARE(sink.stats().mailbox_depth, std::uint64_t{2});

    gate.open();
    for (int i = 0; i < 3; ++i) QVERIFY(probe.wait_for(*sys, "sent " + std::to_string(10 + i)));
    QVERIFY(probe.wait_for(*sys, "got 12"));
    QCOMPARE(handled(probe), (std::vector<int>{1, 2, 10, 11, 12}));
    const as::ActorStats s = sink.stats();
    QCOMPARE(s.rejected, std::uint64_t{1});
    QCOMPARE(s.dropped, std::uint64_t{0});
    for (auto& sender : senders) QCOMPARE(sender.stats().sent, std::uint64_t{1});
  }

  void a_blocking_send_gives_its_message_back_when_it_times_out() {
    HeldSink held(1, as::Overflow::backpressure);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    QVERIFY(sink.send(1).get());  // room: settled at once
    as::PendingSend<SinkMsg> pending = sink.send(2, 50ms);
    QVERIFY(!pending.is_ready());
    auto timed_out = pending.get();
    QVERIFY(!timed_out);
    QCOMPARE(timed_out.error().kind(), as::SendFailure::timed_out);
    QCOMPARE(std::get<int>(timed_out.error().message()), 2);
    QCOMPARE(sink.stats().rejected, std::uint64_t{1});
    QCOMPARE(sink.stats().mailbox_depth, std::uint64_t{1});

    gate.open();
    QVERIFY(probe.wait_for(*sys, "got 1"));
    QVERIFY(sink.send(3, 5s).get());
    QVERIFY(probe.wait_for(*sys, "got 3"));
    QCOMPARE(handled(probe), (std::vector<int>{1, 3}));  // 2 never went in
  }

  void a_plain_handler_is_told_to_co_await_rather_than_block() {
    HeldSink held(1, as::Overflow::backpressure);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    QVERIFY(sink.cast(1));
    auto plain = sys->spawn(PlainSender{.probe = &probe, .sink = sink}, {}).value();
    QVERIFY(plain.cast(2));
    QVERIFY(probe.wait_for(*sys, "get refused"));
    QVERIFY(probe.contains("cast would_block"));
    QCOMPARE(sink.stats().rejected, std::uint64_t{2});  // the cast, and the send get() took back
    gate.open();
    QVERIFY(probe.wait_for(*sys, "got 1"));
    QVERIFY(sink.cast(3));
    QVERIFY(probe.wait_for(*sys, "got 3"));
    QCOMPARE(handled(probe), (std::vector<int>{1, 3}));
  }

  void waiting_senders_get_their_messages_back_when_the_actor_stops() {
    HeldSink held(1, as::Overflow::backpressure);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    QVERIFY(sink.cast(1));
    auto sender = sys->spawn(Sender{.probe = &probe, .sink = sink}, {}).value();
    QVERIFY(sender.cast(7));
    QVERIFY(probe.wait_for(*sys, "waiting 7"));
    sink.kill();
    QVERIFY(probe.wait_for(*sys, "failed 7: stopped"));
  }

  void a_kill_reaches_an_actor_whose_mailbox_is_full() {
    for (as::Overflow policy : {as::Overflow::reject, as::Overflow::backpressure}) {
      HeldSink held(2, policy);
      QVERIFY(held.sink);
      auto& [probe, gate, sys, sink] = held;
      QVERIFY(sink.cast(1));
      QVERIFY(sink.cast(2));
      QVERIFY(!sink.try_cast(3));
      QVERIFY(sink.kill_and_wait(kTimeout));
      QCOMPARE(sink.status(), as::ActorStatus::stopped);
      QVERIFY(!probe.contains("got 1"));  // the kill did not wait for the queue
    }
  }

  void a_stop_reaches_an_actor_whose_mailbox_is_full() {
    HeldSink held(1, as::Overflow::reject);
    QVERIFY(held.sink);
    auto& [probe, gate, sys, sink] = held;
    QVERIFY(sink.cast(1));
    QVERIFY(!sink.cast(2));
    sink.stop("enough");
    gate.open();
    QVERIFY(sink.join_handle().wait(kTimeout));
    QVERIFY(!probe.contains("got 1"));  // the stop outranks what is queued
  }

  void four_concurrent_senders_lose_nothing() {
    // Every message is handled, dropped or rejected: never lost, never twice.
    for (as::Overflow policy : {as::Overflow::reject, as::Overflow::drop_newest, as::Overflow::drop_oldest,
                                as::Overflow::backpressure}) {
      Probe probe;
      auto sys = make_system();
      if (is_manual(*sys)) QSKIP("the manual runtime runs one thread; the other policies' tests cover it");
      auto sink = sys->spawn(Sink{.probe = &probe}, bounded(8, policy)).value();
      constexpr int kSenders = 4;
      constexpr int kEach = 2000;
      std::vector<std::thread> senders;
      std::atomic<std::uint64_t> refused{0};
      for (int s = 0; s < kSenders; ++s) {
        senders.emplace_back([&, s] {
          for (int i = 0; i < kEach; ++i) {
            auto sent = sink.cast(s * kEach + i);
            if (!sent) refused.fetch_add(1);
          }
        });
      }
      for (auto& t : senders) t.join();
      const std::uint64_t total = kSenders * kEach;
      // Everything queued is handled (or discarded, for drop_oldest), then the actor stops.
      QVERIFY(sink.drain_and_wait(kTimeout));
      const as::ActorStats s = sink.stats();
      QCOMPARE(s.handled + s.dropped + s.rejected, total);
      QCOMPARE(s.rejected, refused.load());
      if (policy == as::Overflow::backpressure) QCOMPARE(s.rejected, std::uint64_t{0});
      if (policy == as::Overflow::reject || policy == as::Overflow::backpressure) QCOMPARE(s.dropped, std::uint64_t{0});
      // Each number at most once, and each sender's in the order it sent them.
      const std::vector<int> got = handled(probe);
      QCOMPARE(got.size(), static_cast<std::size_t>(s.handled));
      std::vector<int> last(kSenders, -1);
      for (int v : got) {
        const int who = v / kEach;
        QVERIFY2(v > last[static_cast<std::size_t>(who)], "a sender's messages came out of order or twice");
        last[static_cast<std::size_t>(who)] = v;
      }
      QVERIFY(s.mailbox_max <= 8);
    }
  }
};

QTEST_GUILESS_MAIN(TestMailboxLimits)
#include "tst_mailbox_limits.moc"
