// What a runtime guarantees when an actor's plain handler blocks its thread (a long computation, a
// blocking library call). asio: no other actor waits behind it while a pool thread is free, whether
// its work comes from outside the pool (a cast, a call, a kill from main) or from inside (even from
// the blocking handler itself, before it blocks). qt: actors
// pinned to other hosts go on; the blocked host's own actors wait (RUNTIMES.md says so). The
// manual runtime runs everything on the thread that drives it, so it has no row here.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

/// Released by the test; a handler blocked on it holds its thread for as long as the test likes.
class Latch {
 public:
  void open() {
    std::lock_guard lk(m_);
    open_ = true;
    cv_.notify_all();
  }
  /// Blocks (outside the engine's waits: this is what a blocking library call looks like).
  void block() {
    std::unique_lock lk(m_);
    cv_.wait_for(lk, std::chrono::minutes(2), [&] { return open_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

struct Block {};
struct Ping {
  as::Reply<int> reply;
};

// Its handler blocks its thread until the latch opens.
struct Blocker {
  using Message = Block;
  Latch* latch = nullptr;
  Probe* probe = nullptr;
  void handle(as::Context<Blocker>&, Block, std::monostate&) {
    probe->record("blocking");
    latch->block();
    probe->record("unblocked");
  }
};

// Answers at once.
struct Answerer {
  using Message = Ping;
  Probe* probe = nullptr;
  void handle(as::Context<Answerer>&, Ping p, std::monostate&) {
    probe->record("answered");
    p.reply.send(42);
  }
};

// Records each message it handles.
struct Recorder {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Recorder>&, int n, std::monostate&) { probe->record("got " + std::to_string(n)); }
};

// Casts to each of its targets from its handler, then blocks its thread until the latch opens.
struct WakeThenBlock {
  using Message = Block;
  std::vector<as::ActorRef<int>> targets;
  Latch* latch = nullptr;
  Probe* probe = nullptr;
  void handle(as::Context<WakeThenBlock>&, Block, std::monostate&) {
    for (std::size_t i = 0; i < targets.size(); ++i) (void)targets[i].cast(static_cast<int>(i));
    probe->record("blocking");
    latch->block();
    probe->record("unblocked");
  }
};

/// asio: anywhere. qt: the blocked actor on worker 0 and the others on worker 1, since qt pins
/// actors to hosts by design and only promises that other hosts go on.
as::SpawnOptions blocked_host() {
  if (current_runtime() == "qt") return {.placement = as::PlacementRequest::on_host(0)};
  return {};
}
as::SpawnOptions other_host() {
  if (current_runtime() == "qt") return {.placement = as::PlacementRequest::on_host(1)};
  return {};
}

/// Opens the latch when the test ends, whatever happened, so that no pool thread stays blocked
/// into the System's destructor.
struct OpenOnExit {
  Latch& latch;
  ~OpenOnExit() { latch.open(); }
};

}  // namespace

class TestBlockedThreads : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() {
    QTest::addColumn<QString>("runtime");
    QTest::newRow("asio") << QStringLiteral("asio");
    QTest::newRow("qt") << QStringLiteral("qt");
  }

  void an_idle_actor_called_from_outside_answers_while_another_handler_blocks_its_thread() {
    Latch latch;
    Probe probe;
    auto sys = make_system(2);
    OpenOnExit guard{latch};  // before the System goes, whatever the test did
    auto blocker = sys->spawn(Blocker{&latch, &probe}, blocked_host()).value();
    auto answerer = sys->spawn(Answerer{&probe}, other_host()).value();
    blocker.cast(Block{});  // from outside the runtime, as in the issue
    QVERIFY(probe.wait_for(*sys, "blocking"));

    // The blocker still holds its thread: the answer must come from the other one.
    as::CallResult<int> r = answerer.call(as::rpc<Ping>, kTimeout).get();
    QVERIFY2(r.is_success(), "the call waited behind the blocked handler");
    QCOMPARE(*r, 42);
    QVERIFY(!probe.contains("unblocked"));
  }

  void a_kill_reaches_an_idle_actor_while_another_handler_blocks_its_thread() {
    Latch latch;
    Probe probe;
    auto sys = make_system(2);
    OpenOnExit guard{latch};  // before the System goes, whatever the test did
    auto blocker = sys->spawn(Blocker{&latch, &probe}, blocked_host()).value();
    auto victim = sys->spawn(Recorder{&probe}, other_host()).value();
    victim.cast(1);
    QVERIFY(probe.wait_for(*sys, "got 1"));  // started and idle
    blocker.cast(Block{});
    QVERIFY(probe.wait_for(*sys, "blocking"));

    QVERIFY2(victim.kill_and_wait(kTimeout), "the kill waited behind the blocked handler");
    QCOMPARE(victim.exit()->kind, as::ExitKind::killed);
    QVERIFY(!probe.contains("unblocked"));
  }

  void many_actors_woken_from_outside_are_all_served_while_one_handler_blocks() {
    Latch latch;
    Probe probe;
    auto sys = make_system(2);
    OpenOnExit guard{latch};  // before the System goes, whatever the test did
    auto blocker = sys->spawn(Blocker{&latch, &probe}, blocked_host()).value();
    std::vector<as::ActorRef<int>> others;
    for (int i = 0; i < 50; ++i) others.push_back(sys->spawn(Recorder{&probe}, other_host()).value());
    blocker.cast(Block{});
    QVERIFY(probe.wait_for(*sys, "blocking"));
    // Every one of these drains is scheduled from outside while the blocker holds its thread.
    for (int i = 0; i < 50; ++i) others[static_cast<std::size_t>(i)].cast(i);
    QVERIFY(probe.wait_until(*sys, [](const std::vector<std::string>& ev) {
      return std::count_if(ev.begin(), ev.end(), [](const std::string& e) { return e.rfind("got ", 0) == 0; }) == 50;
    }));
    QVERIFY(!probe.contains("unblocked"));
  }

  void actors_woken_by_a_handler_that_then_blocks_are_served_by_the_other_thread() {
    // asio: their drains are queued by a pool thread (its ready queue), which then blocks; the
    // other thread, asleep until then, must be woken for them.
    Latch latch;
    Probe probe;
    auto sys = make_system(2);
    OpenOnExit guard{latch};  // before the System goes, whatever the test did
    std::vector<as::ActorRef<int>> targets;
    for (int i = 0; i < 20; ++i) targets.push_back(sys->spawn(Recorder{&probe}, other_host()).value());
    for (auto& t : targets) (void)t.cast(100);
    QVERIFY(probe.wait_count(*sys, "got 100", targets.size()));  // all started, and idle again
    // From a timer, so that the waker's drain, too, is scheduled by a pool thread (the one that ran
    // the timer), and the other thread may well be asleep.
    auto waker = sys->spawn(WakeThenBlock{targets, &latch, &probe}, blocked_host()).value();
    (void)waker.send_after(std::chrono::milliseconds(5), Block{});
    QVERIFY(probe.wait_for(*sys, "blocking"));
    QVERIFY(probe.wait_until(*sys, [](const std::vector<std::string>& ev) {
      return std::count_if(ev.begin(), ev.end(), [](const std::string& e) {
               return e.rfind("got ", 0) == 0 && e != "got 100";
             }) == 20;
    }));
    QVERIFY(!probe.contains("unblocked"));
  }

  void actors_spawned_from_outside_start_while_a_handler_blocks_a_thread() {
    Latch latch;
    Probe probe;
    auto sys = make_system(2);
    OpenOnExit guard{latch};  // before the System goes, whatever the test did
    auto blocker = sys->spawn(Blocker{&latch, &probe}, blocked_host()).value();
    blocker.cast(Block{});
    QVERIFY(probe.wait_for(*sys, "blocking"));
    // post_start of each runs in its first drain, scheduled from outside.
    std::vector<as::ActorRef<int>> fresh;
    for (int i = 0; i < 20; ++i) fresh.push_back(sys->spawn(Recorder{&probe}, other_host()).value());
    for (auto& f : fresh) f.cast(7);
    QVERIFY(probe.wait_count(*sys, "got 7", fresh.size()));
    QVERIFY(!probe.contains("unblocked"));
  }

  void the_blocked_actor_itself_goes_on_once_its_handler_returns() {
    Latch latch;
    Probe probe;
    auto sys = make_system(2);
    auto blocker = sys->spawn(Blocker{&latch, &probe}, blocked_host()).value();
    blocker.cast(Block{});
    blocker.cast(Block{});
    QVERIFY(probe.wait_for(*sys, "blocking"));
    latch.open();
    QVERIFY(probe.wait_count(*sys, "unblocked", 2));
    QCOMPARE(probe.count("blocking"), std::size_t{2});
    // One handler at a time, in order, even though another thread took over meanwhile.
    QCOMPARE(probe.events(), (std::vector<std::string>{"blocking", "unblocked", "blocking", "unblocked"}));
  }
};

QTEST_GUILESS_MAIN(TestBlockedThreads)
#include "tst_blocked_threads.moc"
