// supervision: a tree three levels deep. The supervisor has three teams; each team has four
// workers and hands them jobs; now and then a job fails, the worker with it, and its team
// replaces it in the same slot (one-for-one restart, from handle_supervisor_event). Workers are
// permanent: one that is killed or stopped (from the observatory) is replaced the same way.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <atomic>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

struct Job {
  std::uint64_t number;
};

// Level 3: does one job at a time; a job takes 1-4 ms, and about 1 in 50 fails.
struct Worker {
  using Message = Job;
  using Arguments = std::uint64_t;  // its PRNG seed
  using State = Random;
  Random pre_start(Context<Worker>&, std::uint64_t seed) { return Random(seed); }
  Task<> handle(Context<Worker>&, Job job, Random& rng) {
    co_await sleep(std::chrono::milliseconds(rng.between(1, 4)));
    if (rng.percent(2)) {
      std::string why = "job ";
      why += std::to_string(job.number);
      why += " failed";
      throw std::runtime_error(why);
    }
  }
};

// Level 2: a team hands jobs to its workers round robin, skipping a slot whose worker is gone,
// and replaces a worker that exits, however it exits.
struct Team {
  using Message = Job;
  struct Setup {
    std::uint64_t seed = 0;
    std::string name;
    std::size_t size = 4;
  };
  using Arguments = Setup;
  struct State {
    Setup setup;
    std::vector<ActorRef<Job>> workers;
    std::vector<std::uint64_t> generation;
    std::size_t next = 0;
    std::deque<Job> waiting;  ///< jobs that came while no worker took any; the next worker gets them
  };

  State pre_start(Context<Team>&, Setup setup) {
    State s;
    s.workers.resize(setup.size);
    s.generation.assign(setup.size, 0);
    s.setup = std::move(setup);
    return s;
  }
  void post_start(Context<Team>& ctx, State& s) {
    for (std::size_t i = 0; i < s.workers.size(); ++i) start_worker(ctx, s, i);
  }
  void handle(Context<Team>&, Job job, State& s) {
    // A worker that has exited refuses the job and hands it back: the next slot gets it. (One that
    // is exiting at this moment may still take it, and loses it with its mailbox, as a failing
    // worker loses the jobs queued behind the one that failed.)
    for (std::size_t tries = 0; tries < s.workers.size(); ++tries)
      if (s.workers[s.next++ % s.workers.size()].cast(job)) return;
    s.waiting.push_back(job);
  }
  void handle_supervisor_event(Context<Team>& ctx, const SupervisionEvent& event, State& s) {
    ActorCell gone;
    if (const auto* failed = event.get<ActorFailed>()) {
      gone = failed->actor;
    } else if (const auto* ended = event.get<ActorTerminated>()) {
      gone = ended->actor;
    } else {
      return;
    }
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
      if (s.workers[i] == gone) {
        ++s.generation[i];
        start_worker(ctx, s, i);
      }
    }
  }

 private:
  static void start_worker(Context<Team>& ctx, State& s, std::size_t slot) {
    std::string name = s.setup.name;
    name += "/worker-";
    name += std::to_string(slot + 1);
    const std::uint64_t seed = Random::derived(s.setup.seed, slot, s.generation[slot]).next();
    // Refused only while the team itself is stopping: then there is nothing left to replace.
    if (auto w = ctx.template spawn_linked<Worker>({.name = std::move(name)}, seed)) {
      s.workers[slot] = *w;
      while (!s.waiting.empty() && w->cast(s.waiting.front())) s.waiting.pop_front();
    }
  }
};

// Hands out jobs: every 10 ms, one to three to each team.
struct Tick {};
struct Dispatcher {
  using Message = Tick;
  struct Setup {
    std::vector<ActorRef<Job>> teams;
    std::uint64_t seed = 0;
  };
  using Arguments = Setup;
  struct State {
    std::vector<ActorRef<Job>> teams;
    Random rng{0};
    std::uint64_t jobs = 0;
  };
  State pre_start(Context<Dispatcher>&, Setup s) { return State{std::move(s.teams), Random(s.seed), 0}; }
  void post_start(Context<Dispatcher>& ctx, State&) { (void)ctx.self().cast(Tick{}); }
  Task<> handle(Context<Dispatcher>& ctx, Tick, State& s) {
    co_await sleep(10ms);
    for (auto& team : s.teams)
      for (std::uint64_t n = s.rng.between(1, 3); n > 0; --n) (void)team.cast(Job{++s.jobs});
    (void)ctx.self().cast(Tick{});
  }
};

// Level 1: the supervisor of the teams and the dispatcher; it outlives their failures.
struct Supervisor {
  using Message = Tick;  // it takes no work of its own
  using Arguments = std::uint64_t;
  using State = std::uint64_t;
  std::uint64_t pre_start(Context<Supervisor>&, std::uint64_t seed) { return seed; }
  void post_start(Context<Supervisor>& ctx, std::uint64_t& seed) {
    std::vector<ActorRef<Job>> teams;
    for (std::uint64_t t = 0; t < 3; ++t) {
      std::string name = "team-";
      name += static_cast<char>('a' + t);
      Team::Setup setup{Random::derived(seed, 100 + t).next(), name, 4};
      teams.push_back(ctx.template spawn_linked<Team>({.name = std::move(name)}, std::move(setup)).value());
    }
    (void)ctx
        .template spawn_linked<Dispatcher>(
            {.name = "dispatcher"}, Dispatcher::Setup{std::move(teams), Random::derived(seed, 1).next()})
        .value();
  }
  void handle(Context<Supervisor>&, Tick, std::uint64_t&) {}
  // Outlives whatever happens below it: a recording shows the failures, no need to log them.
  void handle_supervisor_event(Context<Supervisor>&, const SupervisionEvent&, std::uint64_t&) {}
};

class SupervisionScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "supervision"; }
  std::string_view summary() const noexcept override {
    return "a tree three levels deep: teams replace workers that fail (one-for-one restarts)";
  }
  void start(System& system, std::uint64_t seed) const override {
    auto root = system.spawn<Supervisor>({.name = "supervisor"}, seed);
    if (!root)
      throw std::runtime_error(std::string("the supervision scenario could not start: ") +
                               root.error().what());
  }
  // A job, handed to a team (which gives it to a worker) or straight to a worker.
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
