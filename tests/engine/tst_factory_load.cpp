// Factories under load, on every runtime: the priority queue's order, load shedding (the oldest or
// the newest job, a static or a dynamic limit), TTLs, rate limiting, the acceptance reply, the
// discard handler and its counts by reason, the dead-man's switch, resizing (by request and by a
// capacity controller), the lifecycle hooks and draining, and settings changed at run time.
// Workers are held busy by gates, so every queue's content is exact when a job is dispatched.
#include "factory_test.hpp"

#include <actorscope/manual_runtime.hpp>
#include <actorscope/observe/event_collector.hpp>

#include <array>
#include <chrono>
#include <string>

using namespace engine_test;
using namespace factory_test;
using namespace std::chrono_literals;

namespace {

/// A spec whose discard handler records "discard <key> <reason>".
as::FactorySpec<Recorder> shedding(Probe& probe, as::Routing routing, std::size_t workers) {
  as::FactorySpec<Recorder> s = spec(probe, routing, workers);
  s.discard_handler = [&probe](as::Job<int, Work>&& job, as::DiscardReason reason) {
    probe.record("discard " + std::to_string(job.key) + " " + std::string(as::to_string(reason)));
  };
  return s;
}

/// Lets `d` of the runtime's time pass: the manual runtime's clock is moved on; the others' is
/// waited for (the clock passing is the event the caller needs).
void pass_time(as::System& sys, as::Duration d) {
  if (is_manual(sys)) {
    static_cast<as::ManualRuntime&>(sys.runtime()).advance(d);
    return;
  }
  const as::TimePoint until = sys.runtime().now() + d;
  std::mutex m;
  std::condition_variable cv;
  std::unique_lock lk(m);
  while (sys.runtime().now() < until) cv.wait_for(lk, std::chrono::milliseconds(1));
}

/// Waits for a log line that starts with `start` and holds `part`.
bool logged(Probe& probe, as::System& sys, const std::string& start, const std::string& part) {
  return probe.wait_until(sys, [&](const std::vector<std::string>& ev) {
    for (const std::string& e : ev)
      if (e.rfind("log " + start, 0) == 0 && e.find(part) != std::string::npos) return true;
    return false;
  });
}

/// The acceptance answer as a word: "accepted" or the reason.
std::string acceptance(as::PendingCall<as::JobAcceptance> pending) {
  auto r = std::move(pending).get();
  if (!r.is_success()) return "no answer: " + r.error();
  return r->has_value() ? std::string(as::to_string(**r)) : std::string("accepted");
}

}  // namespace

class TestFactoryLoad : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void the_priority_queue_runs_the_most_urgent_level_first_and_each_level_in_order() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 1);
    s.priority = [](const as::Job<int, Work>& job) { return static_cast<std::size_t>(job.key / 10); };
    s.priority_levels = 3;
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(0, held(first)));
    QVERIFY(probe.wait_for(*sys, "w0 start 0"));
    for (int k : {21, 11, 1, 22, 2, 12, 35}) QVERIFY(pool.dispatch(k, Work{}));  // 35: past the last level
    QCOMPARE(gauges(pool).depth, std::size_t{7});
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 35"));
    QCOMPARE(keys_of(probe, 0), (Keys{0, 1, 2, 11, 12, 21, 22, 35}));
  }

  void a_full_priority_queue_sheds_from_its_least_urgent_level() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::queuer, 1);
    s.priority = [](const as::Job<int, Work>& job) { return static_cast<std::size_t>(job.key / 10); };
    s.priority_levels = 3;
    s.discard = as::DiscardSettings::fixed(2, as::DiscardMode::newest);
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(0, held(first)));
    QVERIFY(probe.wait_for(*sys, "w0 start 0"));
    QVERIFY(pool.dispatch(21, Work{}));
    QVERIFY(pool.dispatch(22, Work{}));
    QVERIFY(pool.dispatch(1, Work{}));   // more urgent: the newest of the least urgent level goes
    QVERIFY(pool.dispatch(23, Work{}));  // as little urgent as the rest, and the newest: it goes itself
    QVERIFY(probe.wait_for(*sys, "discard 23 load_shed"));
    QVERIFY(probe.index_of("discard 22 load_shed") < probe.index_of("discard 23 load_shed"));
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 21"));
    QCOMPARE(keys_of(probe, 0), (Keys{0, 1, 21}));
  }

  void a_full_queue_sheds_its_oldest_job_and_the_handler_hears_each_one() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::queuer, 1);
    s.discard = as::DiscardSettings::fixed(2, as::DiscardMode::oldest);
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    for (int k = 2; k <= 5; ++k) QVERIFY(pool.dispatch(k, Work{}));
    QVERIFY(probe.wait_for(*sys, "discard 3 load_shed"));
    QCOMPARE(probe.index_of("discard 2 load_shed") < probe.index_of("discard 3 load_shed"), true);
    QCOMPARE(gauges(pool).depth, std::size_t{2});
    const as::FactoryStats during = counters_of(poller, pool);
    QCOMPARE(during.discarded_load_shed, std::uint64_t{2});
    QCOMPARE(during.discarded_total(), std::uint64_t{2});
    QCOMPARE(during.dispatched, std::uint64_t{5});
    QCOMPARE(during.queue_depth, std::uint64_t{2});
    QCOMPARE(during.queue_limit, std::uint64_t{2});
    QCOMPARE(during.busy_workers, std::uint64_t{1});
    QCOMPARE(during.workers, std::uint64_t{1});

    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 5"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 4, 5}));
    // (A stop overtakes the worker's report that job 5 is done, so wait for the report first.)
    QCOMPARE(gauges_become(*sys, pool, {0, 1, 0}), (Gauges{0, 1, 0}));
    QVERIFY(pool.stop_and_wait(kTimeout));
    const as::FactoryStats after = counters_of(poller, pool);  // (its final counters: it has ended)
    QCOMPARE(after.completed, std::uint64_t{3});
    std::uint64_t timed = 0;
    for (std::uint64_t n : after.latency_buckets) timed += n;
    QCOMPARE(timed, std::uint64_t{3});  // one latency per completed job
  }

  void a_full_queue_with_drop_newest_refuses_the_new_job_and_says_so_in_the_acceptance() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::queuer, 1);
    s.discard = as::DiscardSettings::fixed(2, as::DiscardMode::newest);
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QCOMPARE(acceptance(pool.submit(1, held(first), {}, kTimeout)), std::string("accepted"));
    QCOMPARE(acceptance(pool.submit(2, Work{}, {}, kTimeout)), std::string("accepted"));
    QCOMPARE(acceptance(pool.submit(3, Work{}, {}, kTimeout)), std::string("accepted"));
    QCOMPARE(acceptance(pool.submit(4, Work{}, {}, kTimeout)), std::string("load_shed"));
    QVERIFY(probe.contains("discard 4 load_shed"));
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 3"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 2, 3}));
  }

  void each_workers_own_queue_has_the_limit_too() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::round_robin, 1);
    s.discard = as::DiscardSettings::fixed(1, as::DiscardMode::oldest);
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    QVERIFY(pool.dispatch(2, Work{}));
    QVERIFY(pool.dispatch(3, Work{}));
    QVERIFY(probe.wait_for(*sys, "discard 2 load_shed"));
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 3"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 3}));
  }

  void a_dynamic_limit_is_asked_every_poll_and_sheds_what_is_over_it() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    std::atomic<std::size_t> limit{10};
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::queuer, 1);
    s.discard = as::DiscardSettings::dynamic(10, as::DiscardMode::oldest, [&](std::size_t) { return limit.load(); });
    s.poll_interval = 10ms;
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    for (int k = 2; k <= 5; ++k) QVERIFY(pool.dispatch(k, Work{}));
    QCOMPARE(gauges(pool).depth, std::size_t{4});
    limit = 1;  // the next poll sheds 2, 3 and 4
    QVERIFY(probe.wait_for(*sys, "discard 4 load_shed"));
    QCOMPARE(gauges(pool).depth, std::size_t{1});
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 5"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 5}));
    QCOMPARE(counters_of(poller, pool).discarded_load_shed, std::uint64_t{3});
  }

  void a_job_past_its_ttl_is_discarded_before_it_runs() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    Pool pool = as::start_factory<Recorder>(*sys, shedding(probe, as::Routing::queuer, 1)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    // Expired on arrival: it was dispatched (by its own account) a minute ago, for 1 s.
    const as::TimePoint now = sys->runtime().now();
    QCOMPARE(acceptance(pool.submit(2, Work{}, {.submitted = now - 60s, .ttl = 1s}, kTimeout)),
             std::string("ttl_expired"));
    // Expires while it waits behind job 1; job 4 has no TTL and job 5 a long one.
    QVERIFY(pool.dispatch(3, Work{}, {.submitted = {}, .ttl = 50ms}));
    QVERIFY(pool.dispatch(4, Work{}));
    QVERIFY(pool.dispatch(5, Work{}, {.submitted = {}, .ttl = 1h}));
    QCOMPARE(gauges(pool).depth, std::size_t{3});
    pass_time(*sys, 100ms);
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 5"));
    QVERIFY(probe.contains("discard 2 ttl_expired"));
    QVERIFY(probe.contains("discard 3 ttl_expired"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 4, 5}));
    QCOMPARE(counters_of(poller, pool).discarded_ttl, std::uint64_t{2});
  }

  void a_rate_limit_discards_the_jobs_over_the_rate() {
    Probe probe;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::queuer, 2);
    s.rate_limit = as::RateLimit{2, 1h};  // two now, the next one in half an hour
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QCOMPARE(acceptance(pool.submit(1, Work{}, {}, kTimeout)), std::string("accepted"));
    QCOMPARE(acceptance(pool.submit(2, Work{}, {}, kTimeout)), std::string("accepted"));
    QCOMPARE(acceptance(pool.submit(3, Work{}, {}, kTimeout)), std::string("rate_limited"));
    QVERIFY(probe.contains("discard 3 rate_limited"));
    QCOMPARE(counters_of(poller, pool).discarded_rate_limited, std::uint64_t{1});
    // Lifting the limit at run time lets jobs through again.
    as::FactorySettings lift;
    lift.rate_limit = as::RateLimit{};
    QVERIFY(pool.update_settings(std::move(lift)));
    QCOMPARE(acceptance(pool.submit(4, Work{}, {}, kTimeout)), std::string("accepted"));
  }

  void stopping_discards_the_queued_jobs_as_shutdown() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    Pool pool = as::start_factory<Recorder>(*sys, shedding(probe, as::Routing::queuer, 1)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    // Submitted, not dispatched: the acceptance proves the factory has queued the job. A stop
    // overtakes the messages still in the factory's mailbox, and jobs only dispatched might still
    // be there.
    QCOMPARE(acceptance(pool.submit(2, Work{}, {}, kTimeout)), std::string("accepted"));
    QCOMPARE(acceptance(pool.submit(3, Work{}, {}, kTimeout)), std::string("accepted"));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    pool.stop();
    QVERIFY(probe.wait_for(*sys, "discard 3 shutdown"));
    QVERIFY(probe.contains("discard 2 shutdown"));
    first.open();  // the worker is being stopped: its job ends, then its post_stop runs
    QVERIFY(pool.wait(kTimeout));
    QVERIFY(!probe.contains("w0 start 2"));
    QCOMPARE(counters_of(poller, pool).discarded_shutdown, std::uint64_t{2});
  }

  void draining_runs_what_is_queued_refuses_new_work_then_stops() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = shedding(probe, as::Routing::queuer, 1);
    s.on_started = [&probe](const Pool&) { probe.record("hook started"); };
    s.on_draining = [&probe](const Pool&) { probe.record("hook draining"); };
    s.on_stopped = [&probe] { probe.record("hook stopped"); };
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    QVERIFY(pool.dispatch(2, Work{}));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    QVERIFY(pool.drain());
    QCOMPARE(acceptance(pool.submit(3, Work{}, {}, kTimeout)), std::string("shutdown"));
    QVERIFY(probe.contains("hook draining"));
    QVERIFY(!pool.exit());  // still running its jobs
    first.open();
    QVERIFY(pool.wait(kTimeout));
    QCOMPARE(pool.exit()->reason, std::string("drained"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 2}));
    QVERIFY(probe.contains("discard 3 shutdown"));
    QVERIFY(probe.index_of("hook started") < probe.index_of("w0 start 1"));
    QVERIFY(probe.index_of("stop w0") < probe.index_of("hook stopped"));
  }

  void the_dead_mans_switch_kills_a_stuck_worker_which_is_rebuilt_with_its_queue() {
    Probe probe;
    Gate never;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    log_into(probe, *sys);
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::key_persistent, 1);
    s.dead_man = as::DeadManSwitch{200ms, true};
    s.poll_interval = 20ms;
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(7, held(never)));
    QVERIFY(pool.dispatch(8, Work{}));  // waits on worker 0's own queue
    QVERIFY(probe.wait_for(*sys, "w0 done 8"));
    QCOMPARE(probe.count("build w0"), std::size_t{2});
    QVERIFY(!probe.contains("w0 done 7"));
    QVERIFY(logged(probe, *sys, "factory worker 0 has run the job with key '7' for ",
                   "; it is killed and rebuilt with its queue (the job is lost)"));
    const as::FactoryStats c = counters_of(poller, pool);
    QCOMPARE(c.stuck, std::uint64_t{1});
    QCOMPARE(c.worker_restarts, std::uint64_t{1});
    QCOMPARE(c.retried, std::uint64_t{0});  // it had no RetryStrategy
  }

  void a_stuck_job_with_a_retry_runs_again_on_the_worker_the_dead_mans_switch_rebuilt() {
    Probe probe;
    Gate never;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    as::FactorySpec<Flaky> s = flaky_spec(probe, *sys);
    s.dead_man = as::DeadManSwitch{200ms, true};
    s.poll_interval = 20ms;
    as::FactoryRef<int, Attempts> pool = as::start_factory<Flaky>(*sys, std::move(s)).value();
    // The first run hangs on a gate that never opens; the second does not wait.
    QVERIFY(pool.dispatch(7, Attempts{0, &never}, as::JobOptions{.retry = as::RetryStrategy::count(1)}));
    QVERIFY(probe.wait_for(*sys, "done 7"));
    QCOMPARE(runs(probe), (std::vector<std::string>{"try 7", "try 7", "done 7"}));
    QVERIFY(logged(probe, *sys, "factory worker 0 has run the job with key '7' for ",
                   "; it is killed and rebuilt with its queue (the job runs again: its RetryStrategy allows it)"));
    QVERIFY(logged(probe, *sys, "factory worker 0 killed", "; its job 7 runs again first (its last retry)"));
    const as::FactoryStats c = counters_of(poller, pool);
    QCOMPARE(c.stuck, std::uint64_t{1});
    QCOMPARE(c.worker_restarts, std::uint64_t{1});
    QCOMPARE(c.retried, std::uint64_t{1});
  }

  void a_retried_job_of_a_worker_let_go_by_a_shrink_is_routed_over_the_pool_that_remains() {
    Probe probe;
    std::array<Gate, 3> g;
    auto sys = make_system();
    as::FactorySpec<Flaky> s = flaky_spec(probe, *sys);
    s.workers = 2;
    as::FactoryRef<int, Attempts> pool = as::start_factory<Flaky>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(1, Attempts{0, &g[1]}));  // worker 0, held
    QVERIFY(pool.dispatch(2, Attempts{1, &g[2]}, as::JobOptions{.retry = as::RetryStrategy::count(1)}));
    QVERIFY(probe.wait_for(*sys, "try 1"));
    QVERIFY(probe.wait_for(*sys, "try 2"));
    QVERIFY(pool.resize(1));  // worker 1 is busy: let go when its job ends
    QCOMPARE(gauges(pool), (Gauges{0, 0, 2}));
    g[2].open();  // job 2 fails on worker 1, which is not rebuilt: the retry waits for worker 0
    QVERIFY(logged(probe, *sys, "factory worker 1 failed: job 2 failed on run 1; it is not rebuilt (the pool shrank); ",
                   "its job 2 is routed again (its last retry)"));
    QCOMPARE(gauges_become(*sys, pool, {1, 0, 1}), (Gauges{1, 0, 1}));
    g[1].open();
    QVERIFY(probe.wait_for(*sys, "done 2"));
    const std::vector<std::string> r = runs(probe);
    QCOMPARE(std::vector<std::string>(r.end() - 3, r.end()), (std::vector<std::string>{"done 1", "try 2", "done 2"}));
    QCOMPARE(probe.count("try 2"), std::size_t{2});
  }

  void the_dead_mans_switch_can_only_report() {
    Probe probe;
    Gate slow;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    log_into(probe, *sys);
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 1);
    s.dead_man = as::DeadManSwitch{100ms, false};
    s.poll_interval = 20ms;
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(3, held(slow)));
    QVERIFY(logged(probe, *sys, "factory worker 0 has run the job with key '3' for ",
                   "; it is left to run (DeadManSwitch::kill_worker is off)"));
    slow.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 3"));
    QCOMPARE(probe.count("build w0"), std::size_t{1});
    QCOMPARE(counters_of(poller, pool).stuck, std::uint64_t{1});
  }

  void resizing_adds_workers_that_take_queued_jobs_and_shrinking_lets_busy_ones_finish() {
    Probe probe;
    std::array<Gate, 5> g;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 1)).value();
    for (int k = 1; k <= 4; ++k) QVERIFY(pool.dispatch(k, held(g[k])));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    QVERIFY(pool.resize(3));
    QVERIFY(probe.wait_for(*sys, "w1 start 2"));
    QVERIFY(probe.wait_for(*sys, "w2 start 3"));
    QCOMPARE(gauges(pool), (Gauges{1, 0, 3}));

    // Down to one: workers 1 and 2 are busy, so they finish their jobs first and then stop; job 4
    // waits for worker 0.
    QVERIFY(pool.resize(1));
    QCOMPARE(gauges(pool), (Gauges{1, 0, 3}));
    g[2].open();
    QVERIFY(probe.wait_for(*sys, "stop w1"));
    QVERIFY(probe.contains("w1 done 2"));
    QVERIFY(!probe.contains("w1 start 4"));
    g[3].open();
    QVERIFY(probe.wait_for(*sys, "stop w2"));
    g[1].open();
    QVERIFY(probe.wait_for(*sys, "w0 start 4"));
    g[4].open();
    QVERIFY(probe.wait_for(*sys, "w0 done 4"));
    QCOMPARE(gauges_become(*sys, pool, {0, 1, 0}), (Gauges{0, 1, 0}));
    QCOMPARE(counters_of(poller, pool).workers, std::uint64_t{1});

    // Idle workers let go stop at once; growing again builds them anew.
    QVERIFY(pool.resize(2));
    QVERIFY(probe.wait_count(*sys, "started w1", 2));
    QCOMPARE(probe.count("build w1"), std::size_t{2});
    QVERIFY(pool.resize(1));
    QVERIFY(probe.wait_count(*sys, "stop w1", 2));
  }

  void a_capacity_controller_sizes_the_pool() {
    Probe probe;
    auto sys = make_system();
    std::atomic<std::size_t> want{3};
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 1);
    s.capacity = [&](std::size_t) { return want.load(); };
    s.poll_interval = 10ms;
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(probe.wait_for(*sys, "started w2"));
    want = 2;
    QVERIFY(probe.wait_for(*sys, "stop w2"));
    QCOMPARE(gauges_become(*sys, pool, {0, 2, 0}), (Gauges{0, 2, 0}));
  }

  void observers_hear_each_factorys_configuration_also_when_they_attach_later() {
    using as::observe::EventKind;
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 2);
    s.discard = as::DiscardSettings::fixed(5, as::DiscardMode::newest);
    s.dead_man = as::DeadManSwitch{1s, false};
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();

    as::observe::EventCollector collector;
    sys->attach(collector);  // the present is told at once, the factory's configuration with it
    std::vector<as::observe::Event> events;
    collector.drain(events, true);
    const auto configured = [&](std::uint32_t workers) {
      return std::count_if(events.begin(), events.end(), [&](const as::observe::Event& e) {
        return e.kind == EventKind::factory_configured && e.actor == pool.id() && e.thread == workers;
      });
    };
    QCOMPARE(configured(2), 1);
    const auto it = std::find_if(events.begin(), events.end(),
                                 [](const as::observe::Event& e) { return e.kind == EventKind::factory_configured; });
    QCOMPARE(it->name, std::string("queuer"));
    QCOMPARE(it->text, std::string("queue\tfifo\ndiscard\tstatic\t5\tnewest\ndead_man\t1000\treport"));

    // A resize is told as it happens (the gauges' round trip comes after it).
    QVERIFY(pool.resize(3));
    QCOMPARE(gauges(pool).capacity, std::size_t{3});
    events.clear();
    collector.drain(events);
    collector.drain(events);
    QCOMPARE(configured(3), 1);
    QVERIFY(sys->detach(collector));
  }

  void settings_that_cannot_work_are_refused_with_a_sentence() {
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 1);
    s.discard = as::DiscardSettings{as::DiscardSettings::Kind::dynamic, 5, as::DiscardMode::oldest, {}};
    auto no_update = as::start_factory<Recorder>(*sys, std::move(s));
    QVERIFY(!no_update);
    QCOMPARE(no_update.error().kind(), as::FactoryError::Kind::invalid_settings);
    QCOMPARE(std::string(no_update.error().what()),
             std::string("DiscardSettings::dynamic needs its update function, which gives the limit anew every poll"));

    as::FactorySpec<Recorder> r = spec(probe, as::Routing::queuer, 1);
    r.rate_limit = as::RateLimit{5, as::Duration::zero()};
    auto no_period = as::start_factory<Recorder>(*sys, std::move(r));
    QVERIFY(!no_period);
    QCOMPARE(no_period.error().kind(), as::FactoryError::Kind::invalid_settings);

    auto too_many = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, as::kMaxFactoryWorkers + 1));
    QVERIFY(!too_many);
    QCOMPARE(too_many.error().kind(), as::FactoryError::Kind::too_many_workers);

    // At run time, the factory keeps its settings and says why in the log.
    log_into(probe, *sys);
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 1)).value();
    QVERIFY(pool.resize(0));
    QVERIFY(probe.wait_for(*sys,
                           "log factory: the new settings were refused: a factory needs at least one worker: "
                           "resize it to 1 or more (to stop it, drain or stop it)"));
    QCOMPARE(gauges(pool), (Gauges{0, 1, 0}));
  }
};

QTEST_GUILESS_MAIN(TestFactoryLoad)
#include "tst_factory_load.moc"
