// Factories on every runtime (ractor's factory, first part): each routing mode puts each key on the
// worker its rule names (workers are held busy by gates, so every placement is exact), the
// factory's queue is FIFO, a failed worker is rebuilt with its id and its queue, a call is answered
// through a worker, the gauges count at known moments, and a user's mistakes are typed errors.
#include "factory_test.hpp"

#include <array>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

using namespace engine_test;
using namespace factory_test;

namespace {

/// A child that stops as soon as it has started.
struct Brief {
  using Message = int;
  void post_start(as::Context<Brief>& ctx, std::monostate&) { ctx.stop("brief"); }
  void handle(as::Context<Brief>&, int, std::monostate&) {}
};

/// A worker with a child of its own, to show that its handle_supervisor_event is the worker's.
struct Parent {
  using Key = int;
  using Message = int;
  Probe* probe = nullptr;
  void post_start(as::WorkerContext<Parent>& ctx, std::monostate&) {
    if (!ctx.actor().spawn_linked<Brief>()) probe->record("no child");
  }
  void handle(as::WorkerContext<Parent>&, as::Job<int, int>, std::monostate&) {}
  void handle_supervisor_event(as::WorkerContext<Parent>& ctx, const as::SupervisionEvent& e,
                               std::monostate&) {
    if (const auto* t = e.get<as::ActorTerminated>())
      probe->record("w" + std::to_string(ctx.worker_id()) + " heard its child stop: " + t->reason);
  }
};

/// A worker whose handler is a plain function: it adds each job's number to its state and
/// answers the running total when asked.
struct Summer {
  struct Message {
    int n = 0;
    std::optional<as::Reply<int>> total{};
  };
  using Key = std::string;
  using State = int;
  Probe* probe = nullptr;
  void handle(as::WorkerContext<Summer>&, as::Job<std::string, Message> job, int& sum) {
    sum += job.message.n;
    probe->record(job.key);
    if (job.message.total) job.message.total->send(sum);
  }
};

}  // namespace

class TestFactory : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void key_persistent_routing_hashes_each_key_onto_its_own_workers_queue() {
    Probe probe;
    std::array<Gate, 6> g;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::key_persistent, 3)).value();
    // Keys 0..5 onto 3 workers: the worker is std::hash(key) % 3, which for int keys is key % 3.
    for (int k = 0; k < 6; ++k) QCOMPARE(std::hash<int>{}(k) % 3, static_cast<std::size_t>(k % 3));
    for (int k = 0; k < 6; ++k) QVERIFY(pool.dispatch(k, held(g[k])));
    QVERIFY(probe.wait_for(*sys, "w0 start 0"));
    QVERIFY(probe.wait_for(*sys, "w1 start 1"));
    QVERIFY(probe.wait_for(*sys, "w2 start 2"));
    QCOMPARE(gauges(pool), (Gauges{3, 0, 3}));

    // Worker 1 finishes both its keys and is then free, yet key 3 waits for worker 0: the queues
    // are the workers' own.
    g[1].open();
    QVERIFY(probe.wait_for(*sys, "w1 start 4"));
    g[4].open();
    QVERIFY(probe.wait_for(*sys, "w1 done 4"));
    QCOMPARE(gauges_become(*sys, pool, {2, 1, 2}), (Gauges{2, 1, 2}));

    g[0].open();
    QVERIFY(probe.wait_for(*sys, "w0 start 3"));
    for (Gate& gate : g) gate.open();
    QVERIFY(probe.wait_for(*sys, "w2 done 5"));
    QVERIFY(probe.wait_for(*sys, "w0 done 3"));
    QCOMPARE(keys_of(probe, 0), (Keys{0, 3}));
    QCOMPARE(keys_of(probe, 1), (Keys{1, 4}));
    QCOMPARE(keys_of(probe, 2), (Keys{2, 5}));
    QVERIFY(pool.stop_and_wait(kTimeout));
  }

  void queuer_routing_takes_the_worker_free_longest_and_queues_the_rest() {
    Probe probe;
    std::array<Gate, 5> g;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 2)).value();
    QCOMPARE(gauges(pool), (Gauges{0, 2, 0}));
    for (int k = 1; k <= 4; ++k) QVERIFY(pool.dispatch(k, held(g[k])));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    QVERIFY(probe.wait_for(*sys, "w1 start 2"));
    QCOMPARE(gauges(pool), (Gauges{2, 0, 2}));

    // Whichever worker is free takes the head of the factory's queue.
    g[2].open();
    QVERIFY(probe.wait_for(*sys, "w1 start 3"));
    g[1].open();
    QVERIFY(probe.wait_for(*sys, "w0 start 4"));
    QCOMPARE(gauges(pool).depth, std::size_t{0});

    // Worker 1 becomes free first, so it is the one free longest when job 5 comes.
    g[3].open();
    QCOMPARE(gauges_become(*sys, pool, {0, 1, 1}), (Gauges{0, 1, 1}));
    g[4].open();
    QCOMPARE(gauges_become(*sys, pool, {0, 2, 0}), (Gauges{0, 2, 0}));
    QVERIFY(pool.dispatch(5, Work{}));
    QVERIFY(probe.wait_for(*sys, "w1 done 5"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 4}));
    QCOMPARE(keys_of(probe, 1), (Keys{2, 3, 5}));
  }

  void the_factorys_queue_is_first_in_first_out() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 1)).value();
    QVERIFY(pool.dispatch(1, held(first)));
    for (int k = 2; k <= 6; ++k) QVERIFY(pool.dispatch(k, Work{}));
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    QCOMPARE(gauges(pool), (Gauges{5, 0, 1}));
    first.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 6"));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 2, 3, 4, 5, 6}));
  }

  void sticky_queuer_routing_keeps_a_key_in_progress_on_its_worker() {
    Probe probe;
    std::array<Gate, 3> g;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::sticky_queuer, 2)).value();
    QVERIFY(pool.dispatch(1, held(g[1])));
    QVERIFY(pool.dispatch(2, held(g[2])));
    QVERIFY(pool.dispatch(1, Work{}));  // key 1 is running on worker 0: it waits there
    QVERIFY(pool.dispatch(3, Work{}));  // no worker is free and key 3 is nowhere: the factory's queue
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    QVERIFY(probe.wait_for(*sys, "w1 start 2"));
    QCOMPARE(gauges(pool), (Gauges{2, 0, 2}));

    // Worker 1 frees up and takes key 3 from the factory's queue, not the second key 1 (a plain
    // queuer would have queued that one at the factory, ahead of key 3, and given it to worker 1).
    g[2].open();
    QVERIFY(probe.wait_for(*sys, "w1 done 3"));
    g[1].open();
    QVERIFY(probe.wait_for(*sys, "w0 done 1"));
    QVERIFY(probe.wait_count(*sys, "w0 done 1", 2));
    QCOMPARE(keys_of(probe, 0), (Keys{1, 1}));
    QCOMPARE(keys_of(probe, 1), (Keys{2, 3}));
  }

  void round_robin_routing_deals_jobs_in_turn_busy_or_not() {
    Probe probe;
    std::array<Gate, 15> g;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::round_robin, 3)).value();
    for (int k = 10; k <= 13; ++k) QVERIFY(pool.dispatch(k, held(g[k])));
    QVERIFY(probe.wait_for(*sys, "w0 start 10"));
    QVERIFY(probe.wait_for(*sys, "w1 start 11"));
    QVERIFY(probe.wait_for(*sys, "w2 start 12"));
    QCOMPARE(gauges(pool), (Gauges{1, 0, 3}));  // 13 was dealt to worker 0, behind 10

    // Worker 2 is free, but the turn is worker 1's: 14 waits behind 11.
    g[12].open();
    QCOMPARE(gauges_become(*sys, pool, {1, 1, 2}), (Gauges{1, 1, 2}));
    QVERIFY(pool.dispatch(14, held(g[14])));
    QCOMPARE(gauges(pool), (Gauges{2, 1, 2}));
    g[11].open();
    QVERIFY(probe.wait_for(*sys, "w1 start 14"));
    g[10].open();
    QVERIFY(probe.wait_for(*sys, "w0 start 13"));
    for (Gate& gate : g) gate.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 13"));
    QVERIFY(probe.wait_for(*sys, "w1 done 14"));
    // The turn goes on from where it was: 15 to worker 2.
    QVERIFY(pool.dispatch(15, Work{}));
    QVERIFY(probe.wait_for(*sys, "w2 done 15"));
    QCOMPARE(keys_of(probe, 0), (Keys{10, 13}));
    QCOMPARE(keys_of(probe, 1), (Keys{11, 14}));
    QCOMPARE(keys_of(probe, 2), (Keys{12, 15}));
  }

  void custom_hash_routing_uses_the_users_function_and_reports_an_index_out_of_range() {
    Probe probe;
    std::array<Gate, 1> g;
    auto sys = make_system();
    log_into(probe, *sys);
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::custom_hash, 3);
    s.custom_hash = [](const int& key, std::size_t) { return static_cast<std::size_t>(key / 10); };
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch(5, held(g[0])));
    QVERIFY(pool.dispatch(15, Work{}));
    QVERIFY(pool.dispatch(25, Work{}));
    QVERIFY(pool.dispatch(7, Work{}));  // worker 0 is busy with 5: 7 waits for it
    QVERIFY(probe.wait_for(*sys, "w1 done 15"));
    QVERIFY(probe.wait_for(*sys, "w2 done 25"));
    QCOMPARE(gauges(pool).depth, std::size_t{1});
    g[0].open();
    QVERIFY(probe.wait_for(*sys, "w0 done 7"));

    // 99 / 10 = 9, outside a pool of 3: the job is dropped, said in the log, and a caller waiting
    // on it hears at once instead of hanging.
    auto lost = pool.call(
                        99,
                        [](as::Reply<int> r) {
                          return Work{nullptr, false, 0, std::move(r)};
                        },
                        kTimeout)
                    .get();
    QVERIFY(lost.is_sender_error());
    QVERIFY(probe.wait_for(
        *sys,
        "log factory: the custom hash chose worker 9 in a pool of 3, so the job is dropped; make "
        "FactorySpec::custom_hash return an index in 0..2"));
    QVERIFY(pool.dispatch(8, Work{}));  // and the factory goes on
    QVERIFY(probe.wait_for(*sys, "w0 done 8"));
    QCOMPARE(keys_of(probe, 0), (Keys{5, 7, 8}));
    QCOMPARE(keys_of(probe, 1), (Keys{15}));
    QCOMPARE(keys_of(probe, 2), (Keys{25}));
  }

  void a_failed_worker_is_rebuilt_with_its_id_and_keeps_its_queued_jobs() {
    Probe probe;
    std::array<Gate, 2> g;
    auto sys = make_system();
    log_into(probe, *sys);
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::round_robin, 2)).value();
    QCOMPARE(probe.count("build w0"), std::size_t{1});
    Work doomed = held(g[0]);
    doomed.fail = true;
    QVERIFY(pool.dispatch(0, std::move(doomed)));
    QVERIFY(pool.dispatch(1, held(g[1])));
    QVERIFY(pool.dispatch(2, Work{}));  // dealt to worker 0, behind the job that will fail
    QVERIFY(probe.wait_for(*sys, "w0 start 0"));
    QCOMPARE(gauges(pool), (Gauges{1, 0, 2}));
    const std::vector<as::ActorCell> before = pool.children();
    QCOMPARE(before.size(), std::size_t{2});

    g[0].open();
    QVERIFY(probe.wait_for(*sys, "w0 done 2"));
    QCOMPARE(probe.count("build w0"), std::size_t{2});  // the builder made it again, for id 0
    QCOMPARE(probe.count("up w0"), std::size_t{2});
    QCOMPARE(probe.count("started w0"), std::size_t{2});
    const std::vector<as::ActorCell> after = pool.children();
    QCOMPARE(after.size(), std::size_t{2});
    QVERIFY(std::find(after.begin(), after.end(), before[0]) == after.end());  // a new actor for id 0
    QVERIFY(std::find(after.begin(), after.end(), before[1]) != after.end());  // worker 1 untouched
    QCOMPARE(probe.count("build w1"), std::size_t{1});                         // and nothing else
    QVERIFY(
        probe.contains("log factory worker 0 failed: job 0 failed on purpose; it is rebuilt with the same id "
                       "and keeps its 1 queued job; its job 0 is lost"));
    QVERIFY(!probe.contains("w0 done 0"));
    QCOMPARE(probe.index_of("w0 start 2") > probe.index_of("up w0"), true);
    // The rebuilt worker takes new work too: the turn comes round to worker 0 again.
    g[1].open();
    QVERIFY(pool.dispatch(3, Work{}));  // worker 1
    QVERIFY(pool.dispatch(4, Work{}));  // worker 0
    QVERIFY(probe.wait_for(*sys, "w0 done 4"));
    QVERIFY(probe.wait_for(*sys, "w1 done 3"));
    QCOMPARE(gauges_become(*sys, pool, {0, 2, 0}), (Gauges{0, 2, 0}));
    QVERIFY(!probe.contains("a job without its dispatch time"));
  }

  void a_job_with_retries_runs_again_first_on_the_rebuilt_worker_until_it_succeeds() {
    Probe probe;
    Gate first;
    auto sys = make_system();
    as::FactoryRef<int, Attempts> pool = as::start_factory<Flaky>(*sys, flaky_spec(probe, *sys)).value();
    QVERIFY(pool.dispatch(7, Attempts{2, &first}, as::JobOptions{.retry = as::RetryStrategy::count(2)}));
    QVERIFY(probe.wait_for(*sys, "try 7"));
    // Job 8 waits in the factory's queue while job 7's first run is held; the retries go first.
    QVERIFY(pool.submit(8, Attempts{}, {}, kTimeout).get().is_success());
    first.open();
    QVERIFY(probe.wait_for(*sys, "done 8"));
    QCOMPARE(runs(probe), (std::vector<std::string>{"try 7", "try 7", "try 7", "done 7", "try 8", "done 8"}));
    QVERIFY(probe.contains(
        "log factory worker 0 failed: job 7 failed on run 1; it is rebuilt with the same id and keeps its 0 "
        "queued jobs; its job 7 runs again first (1 more retry after this one)"));
    QVERIFY(probe.contains(
        "log factory worker 0 failed: job 7 failed on run 2; it is rebuilt with the same id and keeps its 0 "
        "queued jobs; its job 7 runs again first (its last retry)"));
    QCOMPARE(gauges_become(*sys, pool, {0, 1, 0}), (Gauges{0, 1, 0}));
  }

  void a_job_out_of_retries_is_lost_and_the_log_says_so() {
    Probe probe;
    auto sys = make_system();
    as::observe::StatsPoller poller(*sys);
    as::FactoryRef<int, Attempts> pool = as::start_factory<Flaky>(*sys, flaky_spec(probe, *sys)).value();
    QVERIFY(pool.dispatch(7, Attempts{5}, as::JobOptions{.retry = as::RetryStrategy::count(1)}));
    QVERIFY(pool.dispatch(8, Attempts{}));
    QVERIFY(probe.wait_for(*sys, "done 8"));
    QCOMPARE(runs(probe), (std::vector<std::string>{"try 7", "try 7", "try 8", "done 8"}));
    QVERIFY(probe.contains(
        "log factory worker 0 failed: job 7 failed on run 2; it is rebuilt with the same id and keeps its 0 "
        "queued jobs; its job 7 is lost"));
    // Without a strategy a job runs once (the default).
    QVERIFY(pool.dispatch(9, Attempts{1}));
    QVERIFY(probe.wait_for(*sys, "log factory worker 0 failed: job 9 failed on run 1; it is rebuilt with the same id "
                                 "and keeps its 0 queued jobs; its job 9 is lost"));
    QVERIFY(pool.dispatch(10, Attempts{}));
    QVERIFY(probe.wait_for(*sys, "done 10"));
    QCOMPARE(probe.count("try 9"), std::size_t{1});
    // One retry (job 7's second run) among three failed runs; the observatory counts it.
    const as::FactoryStats c = counters_of(poller, pool);
    QCOMPARE(c.retried, std::uint64_t{1});
    QCOMPARE(c.worker_restarts, std::uint64_t{3});
  }

  void a_job_with_unlimited_retries_runs_until_it_succeeds() {
    Probe probe;
    auto sys = make_system();
    as::FactoryRef<int, Attempts> pool = as::start_factory<Flaky>(*sys, flaky_spec(probe, *sys)).value();
    as::observe::StatsPoller poller(*sys);
    QVERIFY(pool.dispatch(7, Attempts{6}, as::JobOptions{.retry = as::RetryStrategy::unlimited()}));
    QVERIFY(probe.wait_for(*sys, "done 7"));
    QCOMPARE(probe.count("try 7"), std::size_t{7});
    QCOMPARE(counters_of(poller, pool).retried, std::uint64_t{6});
    QVERIFY(probe.contains(
        "log factory worker 0 failed: job 7 failed on run 6; it is rebuilt with the same id and keeps its 0 "
        "queued jobs; its job 7 runs again first (retried until it succeeds)"));
  }

  void a_job_whose_message_cannot_be_copied_is_not_retried_and_the_log_says_why() {
    Probe probe;
    auto sys = make_system();
    log_into(probe, *sys);
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 1)).value();
    Work doomed;  // holds an optional reply port: not copyable
    doomed.fail = true;
    QVERIFY(pool.dispatch(3, std::move(doomed), as::JobOptions{.retry = as::RetryStrategy::count(3)}));
    QVERIFY(probe.wait_for(*sys, "log factory worker 0 failed: job 3 failed on purpose; it is rebuilt with the "
                                 "same id and keeps its 0 queued jobs; its job 3 is lost"));
    QVERIFY(probe.contains(
        "log factory: job 3 asks for retries, but its key or message cannot be copied, and the factory needs a "
        "copy to run it again: it runs once (make both copyable, or leave JobOptions::retry empty)"));
    QCOMPARE(probe.count("w0 start 3"), std::size_t{1});
  }

  void a_worker_goes_by_its_worker_types_name() {
    Probe probe;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 2)).value();
    const std::vector<as::ActorCell> workers = pool.children();
    QCOMPARE(workers.size(), std::size_t{2});
    for (const as::ActorCell& w : workers)
      QCOMPARE(std::string(w.type_name()), std::string(as::detail::type_name<Recorder>()));
    QVERIFY(std::string(as::detail::type_name<Recorder>()).find("Recorder") != std::string::npos);
  }

  void a_worker_that_stops_itself_is_rebuilt_too() {
    Probe probe;
    auto sys = make_system();
    log_into(probe, *sys);
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 1)).value();
    Work last;
    last.stop_self = true;
    QVERIFY(pool.dispatch(1, std::move(last)));
    QVERIFY(
        probe.wait_for(*sys,
                       "log factory worker 0 stopped (done for); it is rebuilt with the same id and keeps "
                       "its 0 queued jobs"));
    QVERIFY(probe.wait_for(*sys, "stop w0"));
    QVERIFY(pool.dispatch(2, Work{}));
    QVERIFY(probe.wait_for(*sys, "w0 done 2"));
    QCOMPARE(probe.count("up w0"), std::size_t{2});
    QCOMPARE(gauges_become(*sys, pool, {0, 1, 0}), (Gauges{0, 1, 0}));  // its report of 2 may still be on its way
  }

  void a_worker_that_cannot_be_rebuilt_fails_the_factory() {
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 1);
    int built = 0;  // the builder runs on the factory's thread, one call at a time
    s.builder = [&probe, &built](as::WorkerId) {
      if (++built > 1) throw std::runtime_error("the builder has nothing left");
      return Recorder{&probe};
    };
    Pool pool = as::start_factory<Recorder>(*sys, std::move(s)).value();
    Work doomed;
    doomed.fail = true;
    QVERIFY(pool.dispatch(1, std::move(doomed)));
    QVERIFY(pool.wait(kTimeout));
    QCOMPARE(pool.exit()->kind, as::ExitKind::failed);
    QVERIFY2(pool.exit()->reason.find(
                 "factory worker 0 failed to start: its builder threw: the builder has nothing left") !=
                 std::string::npos,
             pool.exit()->reason.c_str());
  }

  void a_worker_with_a_plain_handler_is_told_each_job_and_frees_up_after_it() {
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Summer> s;
    s.workers = 1;
    s.builder = [&probe](as::WorkerId) { return Summer{&probe}; };
    as::FactoryRef<std::string, Summer::Message> pool = as::start_factory<Summer>(*sys, std::move(s)).value();
    QVERIFY(pool.dispatch("a", Summer::Message{2, std::nullopt}));
    QVERIFY(pool.dispatch("b", Summer::Message{3, std::nullopt}));
    auto total = pool.call(
                         "c",
                         [](as::Reply<int> r) {
                           return Summer::Message{4, std::move(r)};
                         },
                         kTimeout)
                     .get();
    QVERIFY(total.is_success());
    QCOMPARE(*total, 9);  // one worker, in order: 2 + 3 + 4
    QCOMPARE(probe.events(), (std::vector<std::string>{"a", "b", "c"}));
    QCOMPARE(gauges_become(*sys, pool, {0, 1, 0}), (Gauges{0, 1, 0}));
  }

  void a_derived_reference_hands_jobs_to_a_factory_and_an_output_port_feeds_it() {
    // A factory takes derived references as any actor does: a handle that can only dispatch, given
    // to code that should see no more of the factory, and a subscription of an output port.
    using Dispatch = as::factory_request::Dispatch<std::string, Summer::Message>;
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Summer> s;
    s.workers = 1;
    s.builder = [&probe](as::WorkerId) { return Summer{&probe}; };
    as::FactoryRef<std::string, Summer::Message> pool = as::start_factory<Summer>(*sys, std::move(s)).value();
    as::DerivedRef<Dispatch> jobs = pool.derived<Dispatch>();
    QVERIFY(jobs.cast(Dispatch{{"direct", Summer::Message{1, std::nullopt}, {}}}));
    as::OutputPort<int> readings;
    as::Subscription sub = readings.subscribe(jobs, [](int v) {
      return Dispatch{{"reading " + std::to_string(v), Summer::Message{v, std::nullopt}, {}}};
    });
    QCOMPARE(readings.send(2), std::size_t{1});
    QCOMPARE(readings.send(3), std::size_t{1});
    auto total = pool.call("total", [](as::Reply<int> r) { return Summer::Message{0, std::move(r)}; }, kTimeout).get();
    QVERIFY(total.is_success());
    QCOMPARE(*total, 6);  // one worker, in order: 1 + 2 + 3
    QCOMPARE(probe.events(), (std::vector<std::string>{"direct", "reading 2", "reading 3", "total"}));
    QCOMPARE(sub.delivered(), std::uint64_t{2});

    QVERIFY(pool.stop_and_wait(kTimeout));
    auto refused = jobs.cast(Dispatch{{"late", Summer::Message{9, std::nullopt}, {}}});
    QVERIFY(!refused);
    QCOMPARE(refused.error().message().job.key, std::string("late"));  // handed back as the Dispatch
  }

  void a_workers_supervision_events_go_to_its_own_hook() {
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Parent> s;
    s.workers = 2;
    s.builder = [&probe](as::WorkerId) { return Parent{&probe}; };
    auto pool = as::start_factory<Parent>(*sys, std::move(s)).value();
    QVERIFY(probe.wait_for(*sys, "w0 heard its child stop: brief"));
    QVERIFY(probe.wait_for(*sys, "w1 heard its child stop: brief"));
    QVERIFY(!probe.contains("no child"));
    // Without the worker's hook, the engine's default would have stopped each worker when its
    // child stopped, and the factory would have rebuilt it (its child stopping again, and again).
    QCOMPARE(gauges(pool), (Gauges{0, 2, 0}));
  }

  void a_call_is_answered_by_the_worker_that_runs_the_job() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 2)).value();
    QVERIFY(pool.dispatch(1, held(gate)));  // worker 0 is busy, so the call goes to worker 1
    QVERIFY(probe.wait_for(*sys, "w0 start 1"));
    auto answer = pool.call(
                          7,
                          [](as::Reply<int> r) {
                            return Work{nullptr, false, 0, std::move(r)};
                          },
                          kTimeout)
                      .get();
    QVERIFY(answer.is_success());
    QCOMPARE(*answer, 71);  // key 7 times 10, plus worker 1
    gate.open();
    QVERIFY(probe.wait_for(*sys, "w0 done 1"));
  }

  void stopping_the_factory_stops_its_workers_and_hands_later_jobs_back() {
    Probe probe;
    auto sys = make_system();
    Pool pool = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 2)).value();
    QVERIFY(pool.stop_and_wait(kTimeout));
    QVERIFY(probe.contains("stop w0"));
    QVERIFY(probe.contains("stop w1"));

    auto refused = pool.dispatch(5, Work{nullptr, false, 42});
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::SendFailure::stopped);
    QCOMPARE(refused.error().job().key, 5);
    QCOMPARE(refused.error().job().message.payload, 42);
    QVERIFY(std::string(refused.error().what()).find("the factory did not take the job") == 0);

    auto call = pool.call(
                        6,
                        [](as::Reply<int> r) {
                          return Work{nullptr, false, 0, std::move(r)};
                        },
                        kTimeout)
                    .get();
    QVERIFY(call.is_sender_error());
    QVERIFY(call.error().find("call failed: the factory did not take the job") == 0);

    const Pool empty;
    auto nowhere = empty.dispatch(7, Work{nullptr, false, 43});
    QVERIFY(!nowhere);
    QCOMPARE(nowhere.error().job().message.payload, 43);
    QVERIFY(std::string(nowhere.error().what()).find("the factory handle is empty") == 0);
  }

  void a_spec_that_cannot_work_is_refused_with_a_sentence() {
    Probe probe;
    auto sys = make_system();
    auto none = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::queuer, 0));
    QVERIFY(!none);
    QCOMPARE(none.error().kind(), as::FactoryError::Kind::no_workers);
    QCOMPARE(std::string(none.error().what()),
             std::string("a factory needs at least one worker: set FactorySpec::workers to 1 or more"));

    auto no_hash = as::start_factory<Recorder>(*sys, spec(probe, as::Routing::custom_hash, 2));
    QVERIFY(!no_hash);
    QCOMPARE(no_hash.error().kind(), as::FactoryError::Kind::missing_custom_hash);

    as::FactorySpec<Recorder> named = spec(probe, as::Routing::queuer, 2);
    named.worker_options.name = "worker";
    auto refused = as::start_factory<Recorder>(*sys, std::move(named));
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind(), as::FactoryError::Kind::worker_named);
    QCOMPARE(probe.count("build w0"), std::size_t{0});  // nothing was started
    QCOMPARE(as::to_string(as::Routing::sticky_queuer), std::string_view("sticky_queuer"));
  }

  void a_worker_that_fails_to_start_fails_the_factory_and_the_workers_it_started_are_killed() {
    Probe probe;
    auto sys = make_system();
    as::FactorySpec<Recorder> s = spec(probe, as::Routing::queuer, 3);
    s.builder = [&probe](as::WorkerId id) {
      if (id == 2) throw std::runtime_error("no room for worker 2");
      probe.record("build w" + std::to_string(id));
      return Recorder{&probe};
    };
    auto failed = as::start_factory<Recorder>(*sys, std::move(s));
    QVERIFY(!failed);
    QCOMPARE(failed.error().kind(), as::FactoryError::Kind::spawn_failed);
    QVERIFY2(std::string(failed.error().what())
                     .find("factory worker 2 failed to start: its builder threw: no room for worker 2") !=
                 std::string::npos,
             failed.error().what());
    // Workers 0 and 1 had started; the engine kills what a failed pre_start spawned, so nothing
    // is left running and the System shuts down at once.
    QVERIFY(probe.contains("up w0"));
    QVERIFY(probe.contains("up w1"));
    QVERIFY(!probe.contains("build w2"));
    QVERIFY(sys->shutdown(kTimeout));
    QCOMPARE(sys->actors().size(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestFactory)
#include "tst_factory.moc"
