// supervision: Erlang-style supervisors (as::Supervisor), one team per strategy. The root
// supervisor has four teams of four workers and a dispatcher; the dispatcher hands jobs to the
// workers by their registered names, and now and then a job fails, the worker with it, and its team
// restarts it under the same name:
//   team-a  one_for_one   only the worker that failed
//   team-b  one_for_all   all four, the others shut down first
//   team-c  rest_for_one  the worker and the ones started after it, after a backoff
//   team-d  one_for_one   fragile: its workers fail more often than its intensity allows, so now
//                         and then it gives up, and the root restarts the whole team
// Workers are permanent: one that is killed or stopped (from the observatory) is restarted the same way.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

struct Job {
  std::uint64_t number;
};

// Does one job at a time; a job takes 1-4 ms, and `failures_per_mille` of them fail. A restarted
// worker starts again from its seed, so one seed replays the same decisions.
struct Worker {
  using Message = Job;
  struct Setup {
    std::uint64_t seed = 0;
    std::uint64_t failures_per_mille = 5;
  };
  using Arguments = Setup;
  struct State {
    Random rng;
    std::uint64_t failures_per_mille;
  };
  State pre_start(Context<Worker>&, Setup s) { return State{Random(s.seed), s.failures_per_mille}; }
  Task<> handle(Context<Worker>&, Job job, State& s) {
    co_await sleep(std::chrono::milliseconds(s.rng.between(1, 4)));
    if (s.rng.below(1000) < s.failures_per_mille) {
      std::string why = "job ";
      why += std::to_string(job.number);
      why += " failed";
      throw std::runtime_error(why);
    }
  }
};

constexpr std::size_t kWorkers = 4;

struct TeamPlan {
  const char* name;
  Strategy strategy;
  std::uint64_t failures_per_mille;
  std::uint32_t max_restarts;
  Duration period;
  bool backoff;
};

constexpr std::array<TeamPlan, 4> kTeams{{
    {"team-a", Strategy::one_for_one, 5, 20, 5s, false},
    {"team-b", Strategy::one_for_all, 3, 20, 5s, false},
    {"team-c", Strategy::rest_for_one, 5, 20, 5s, true},
    {"team-d", Strategy::one_for_one, 3, 3, 2s, false},
}};

std::string worker_name(const TeamPlan& team, std::size_t slot) {
  std::string name = team.name;
  name += "/worker-";
  name += std::to_string(slot + 1);
  return name;
}

SupervisorSpec team_spec(const TeamPlan& team, std::uint64_t seed, std::uint64_t index) {
  SupervisorSpec spec{.strategy = team.strategy, .max_restarts = team.max_restarts, .period = team.period};
  if (team.backoff) spec.backoff = Backoff{.min = 20ms, .max = 500ms, .reset_after = 2s, .seed = seed};
  for (std::size_t slot = 0; slot < kWorkers; ++slot) {
    const Worker::Setup setup{Random::derived(seed, 100 + index, slot).next(), team.failures_per_mille};
    std::string name = worker_name(team, slot);
    spec.children.push_back(
        child<Worker>("worker-" + std::to_string(slot + 1), setup, {.name = std::move(name)}));
  }
  return spec;
}

// Hands out jobs every 10 ms: one to three to each team, each to a worker found by name. A worker
// being restarted has no live actor under its name for a moment; its job goes to the next one.
struct Tick {};
struct Dispatcher {
  using Message = Tick;
  using Arguments = std::uint64_t;
  struct State {
    Random rng{0};
    std::uint64_t jobs = 0;
  };
  State pre_start(Context<Dispatcher>&, std::uint64_t seed) { return State{Random(seed), 0}; }
  void post_start(Context<Dispatcher>& ctx, State&) { (void)ctx.self().cast(Tick{}); }
  Task<> handle(Context<Dispatcher>& ctx, Tick, State& s) {
    co_await sleep(10ms);
    for (const TeamPlan& team : kTeams) {
      for (std::uint64_t n = s.rng.between(1, 3); n > 0; --n) {
        const Job job{++s.jobs};
        const std::size_t first = s.rng.below(kWorkers);
        for (std::size_t tries = 0; tries < kWorkers; ++tries) {
          auto worker = ctx.system().where_is<Job>(worker_name(team, (first + tries) % kWorkers));
          if (worker && worker->cast(job)) break;
        }
      }
    }
    (void)ctx.self().cast(Tick{});
  }
};

class SupervisionScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "supervision"; }
  std::string_view summary() const noexcept override {
    return "supervisors restart failing workers: one team per strategy (one_for_one, one_for_all, "
           "rest_for_one "
           "with backoff), and a fragile team that gives up now and then";
  }
  void start(System& system, std::uint64_t seed) const override {
    SupervisorSpec root{.strategy = Strategy::one_for_one, .max_restarts = 20, .period = 10s};
    for (std::size_t t = 0; t < kTeams.size(); ++t)
      root.children.push_back(
          supervisor_child(kTeams[t].name, team_spec(kTeams[t], seed, t), {.name = kTeams[t].name}));
    root.children.push_back(
        child<Dispatcher>("dispatcher", Random::derived(seed, 1).next(), {.name = "dispatcher"}));
    auto started = start_supervisor(system, std::move(root), {.name = "supervisor"});
    if (!started)
      throw std::runtime_error(std::string("the supervision scenario could not start: ") +
                               started.error().what());
  }
  // A job, handed straight to a worker.
  std::string demo_message(const ActorCell& actor) const override { return actor.as<Job>() ? "Job" : ""; }
  bool send_demo_message(const ActorCell& actor) const override {
    static std::atomic<std::uint64_t> number{1'000'000};
    auto ref = actor.as<Job>();
    return ref && ref->cast(Job{++number}).has_value();
  }
};

}  // namespace

const Scenario& supervision() {
  static const SupervisionScenario s;
  return s;
}

}  // namespace actorscope::scenarios
