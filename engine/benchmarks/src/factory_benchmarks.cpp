// Factories: ractor's factory benchmark (benches/factory.rs). A queuer factory of 100 or 1,000
// workers is started in the untimed setup; the driver thread then dispatches 10,000 jobs as fast as
// it can, and the sample is timed until every job has been handled (each worker counts its jobs
// down; the last one completes the wait). Per job: the dispatch, the factory routing it or queueing
// it, the worker's handling, and its report back to the factory that frees it for the next job.
#include "workload_support.hpp"

#include <cstdint>
#include <string>

namespace actorscope::bench::detail {

namespace {

struct Work {
  Countdown* done = nullptr;
};

struct CountingWorker {
  using Key = std::uint64_t;
  using Message = Work;
  void handle(as::WorkerContext<CountingWorker>&, as::Job<std::uint64_t, Work> job, std::monostate&) {
    job.message.done->count_down();
  }
};

class FactoryDispatch final : public Workload {
 public:
  FactoryDispatch(System& sys, std::size_t workers, std::size_t jobs) : sys_(sys), workers_(workers), jobs_(jobs) {}
  Sample sample() override {
    as::FactorySpec<CountingWorker> spec;
    spec.workers = workers_;
    spec.routing = as::Routing::queuer;
    auto started = as::start_factory<CountingWorker>(sys_, std::move(spec));
    if (!started) throw WorkloadError(std::string("the factory did not start: ") + started.error().what());
    as::FactoryRef<std::uint64_t, Work> pool = std::move(*started);
    Countdown done(jobs_);

    const TimePoint t0 = Clock::now();
    for (std::uint64_t k = 0; k < jobs_; ++k)
      if (!pool.dispatch(k, Work{&done})) throw WorkloadError("the factory refused a job");
    const TimePoint dispatched = Clock::now();
    done.wait(sys_.runtime(), "the factory's jobs");
    const TimePoint t1 = Clock::now();

    if (!pool.stop_and_wait(kQuiescenceDeadline)) throw WorkloadError("the factory did not stop");
    Sample s = measured(ns_between(t0, t1));
    s.phases = {{"dispatch", ns_between(t0, dispatched)}, {"drain", ns_between(dispatched, t1)}};
    return s;
  }

 private:
  System& sys_;
  std::size_t workers_;
  std::size_t jobs_;
};

Benchmark factory_dispatch(std::size_t workers, std::size_t jobs) {
  BenchmarkInfo i;
  i.name = "Factory of " + std::to_string(workers) + " workers, " + std::to_string(jobs) + " jobs (queuer)";
  i.group = "factory";
  i.description = "ractor's factory benchmark: a queuer factory of " + std::to_string(workers) +
                  " workers is started in the untimed setup; the driver thread dispatches " + std::to_string(jobs) +
                  " jobs, timed until every job has been handled (each worker counts its jobs down). Phases: the "
                  "dispatch loop, and the rest of the work after it.";
  i.elements = static_cast<double>(jobs);
  i.element = "job";
  i.throughput = true;
  i.samples = 10;
  i.quick_samples = 3;
  i.warm_up = std::chrono::milliseconds(200);
  i.quick_warm_up = std::chrono::milliseconds(50);
  return {i, [workers, jobs](System& s) { return std::make_unique<FactoryDispatch>(s, workers, jobs); }};
}

}  // namespace

void add_factory_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(factory_dispatch(100, 10000));
  out.push_back(factory_dispatch(1000, 10000));
}

}  // namespace actorscope::bench::detail
