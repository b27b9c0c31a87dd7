// factory: a job queue under bursts. "jobs" is a factory of four workers (queuer routing, a
// three-level priority queue) that clients feed with about 150 jobs a second, and with a burst of
// 150 more every two seconds. Four workers handle about 300 a second, so each burst piles up:
// past 40 waiting jobs the factory sheds the oldest of the least urgent, and a job that has waited
// more than two seconds expires. Worker 3 is the slow one: every so often a job hangs it, and the
// dead-man's switch (1.5 s) kills it; the factory rebuilds it with its id and goes on. An
// interactive job lost that way runs again (one retry); the others are lost.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <stdexcept>
#include <string>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

/// A job: its kind decides its priority (0 interactive, 1 batch, 2 best effort) and its cost.
struct Request {
  std::uint32_t kind = 0;
  std::uint32_t cost_ms = 0;
};

struct JobWorker {
  using Key = std::uint64_t;  // the request's id
  using Message = Request;
  struct State {
    Random rng{0};
    std::uint64_t handled = 0;
  };
  std::uint64_t seed = 0;

  State pre_start(WorkerContext<JobWorker>& ctx) { return State{Random::derived(seed, ctx.worker_id()), 0}; }
  Task<> handle(WorkerContext<JobWorker>& ctx, Job<std::uint64_t, Request> job, State& s) {
    ++s.handled;
    // Worker 3 hangs on about one job in two hundred (every few seconds): the dead-man's switch
    // finds it 1.5 s later.
    if (ctx.worker_id() == 3 && s.rng.below(200) == 0) co_await sleep(10s);
    co_await sleep(std::chrono::milliseconds(job.message.cost_ms));
  }
};

struct Tick {};

/// The clients: every 20 ms a handful of jobs, and every two seconds a burst.
struct Clients {
  using Message = Tick;
  struct Setup {
    FactoryRef<std::uint64_t, Request> jobs;
    std::uint64_t seed = 0;
  };
  using Arguments = Setup;
  struct State {
    Setup setup;
    Random rng{0};
    std::uint64_t next_id = 0;
    std::uint64_t ticks = 0;
  };
  State pre_start(Context<Clients>&, Setup s) {
    const std::uint64_t seed = s.seed;
    return State{std::move(s), Random(seed), 0, 0};
  }
  void post_start(Context<Clients>& ctx, State&) { (void)ctx.send_interval(20ms, [] { return Tick{}; }); }
  void handle(Context<Clients>&, Tick, State& s) {
    const bool burst = ++s.ticks % 100 == 0;
    for (std::uint64_t n = burst ? 150 : s.rng.between(1, 5); n > 0; --n) {
      const auto kind = static_cast<std::uint32_t>(s.rng.below(10) < 2 ? 0 : s.rng.below(10) < 6 ? 1 : 2);
      const auto cost = static_cast<std::uint32_t>(s.rng.between(6, 20));
      const RetryStrategy retry = kind == 0 ? RetryStrategy::count(1) : RetryStrategy::none();
      (void)s.setup.jobs.dispatch(++s.next_id, Request{kind, cost}, JobOptions{.submitted = {}, .ttl = 2s, .retry = retry});
    }
  }
};

/// Starts the factory and its clients under one root, so the tree shows them together.
struct Service {
  using Message = Tick;
  using Arguments = std::uint64_t;
  using State = std::uint64_t;
  std::uint64_t pre_start(Context<Service>&, std::uint64_t seed) { return seed; }
  void post_start(Context<Service>& ctx, std::uint64_t& seed) {
    FactorySpec<JobWorker> spec;
    spec.workers = 4;
    spec.routing = Routing::queuer;
    spec.builder = [seed](WorkerId) { return JobWorker{seed}; };
    spec.priority = [](const Job<std::uint64_t, Request>& job) { return static_cast<std::size_t>(job.message.kind); };
    spec.priority_levels = 3;
    spec.discard = DiscardSettings::fixed(40, DiscardMode::oldest);
    spec.dead_man = DeadManSwitch{1500ms, true};
    auto jobs = start_factory<JobWorker>(ctx, std::move(spec), {.name = "jobs"});
    if (!jobs) throw std::runtime_error(std::string("the jobs factory could not start: ") + jobs.error().what());
    (void)ctx
        .template spawn_linked<Clients>({.name = "clients"},
                                        Clients::Setup{std::move(*jobs), Random::derived(seed, 1).next()})
        .value();
  }
  void handle(Context<Service>&, Tick, std::uint64_t&) {}
};

class FactoryScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "factory"; }
  std::string_view summary() const noexcept override {
    return "a job queue under bursts: a factory of four workers sheds the oldest jobs at peaks and expires "
           "stale ones, and the dead-man's switch replaces its slow worker when a job hangs it (an interactive "
           "job runs again)";
  }
  void start(System& system, std::uint64_t seed) const override {
    auto root = system.spawn<Service>({.name = "service"}, seed);
    if (!root)
      throw std::runtime_error(std::string("the factory scenario could not start: ") + root.error().what());
  }
};

}  // namespace

const Scenario& factory() {
  static const FactoryScenario s;
  return s;
}

}  // namespace actorscope::scenarios
