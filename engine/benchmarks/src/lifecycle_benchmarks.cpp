// Lifecycle: spawn throughput (actors that stop at once), a supervision tree of depth 3 and
// breadth 10 spawned linked and shut down in a cascade from its root, and a Supervisor restarting
// a failing child 10,000 times.
#include "workload_support.hpp"

#include <actorscope/supervisor.hpp>

#include <cstdint>
#include <deque>
#include <variant>

namespace actorscope::bench::detail {

namespace {

// ractor's spawn_throughput MinimalActor: pre_start asks to stop, so the actor exits right after
// starting.
struct MinimalActor {
  using Message = std::monostate;
  std::monostate pre_start(as::Context<MinimalActor>& ctx) {
    ctx.stop();
    return {};
  }
  void handle(as::Context<MinimalActor>&, std::monostate, std::monostate&) {}
};

class SpawnThroughput final : public Workload {
 public:
  SpawnThroughput(System& sys, std::size_t n) : sys_(sys), n_(n) {}
  Sample sample() override {
    std::vector<ActorRef<std::monostate>> refs;
    refs.reserve(n_);
    const TimePoint t0 = Clock::now();
    for (std::size_t i = 0; i < n_; ++i) refs.push_back(spawned(sys_.spawn<MinimalActor>()));
    wait_all(refs);
    return measured(ns_between(t0, Clock::now()));
  }

 private:
  System& sys_;
  std::size_t n_;
};

Benchmark spawn_throughput() {
  constexpr std::size_t n = 1000;
  BenchmarkInfo i;
  i.name = "Spawn throughput: 1000 actors that stop immediately";
  i.group = "lifecycle";
  i.description =
      "Spawns 1,000 actors one after another, each asking to stop in pre_start, and waits for all "
      "of them to exit (ractor's spawn_throughput/1000).";
  i.elements = n;
  i.element = "actor";
  i.throughput = true;
  return {i, [n](System& s) { return std::make_unique<SpawnThroughput>(s, n); }};
}

// A supervision tree: each node spawns `breadth` linked children in post_start until the depth is
// reached. Nodes count themselves started; the last one completes `built`.
struct TreeShared {
  std::uint32_t breadth = 0;
  std::optional<Countdown> built;
};

struct TreeNode {
  using Message = std::monostate;
  struct Arguments {
    std::uint32_t depth_left = 0;
    TreeShared* shared = nullptr;
  };
  using State = Arguments;
  State pre_start(as::Context<TreeNode>&, Arguments a) { return a; }
  void post_start(as::Context<TreeNode>& ctx, State& s) {
    if (s.depth_left > 0) {
      for (std::uint32_t i = 0; i < s.shared->breadth; ++i)
        (void)ctx.spawn_linked<TreeNode>({}, Arguments{s.depth_left - 1, s.shared});
    }
    s.shared->built->count_down();
  }
  void handle(as::Context<TreeNode>&, std::monostate, State&) {}
};

class SupervisionTree final : public Workload {
 public:
  SupervisionTree(System& sys, std::uint32_t depth, std::uint32_t breadth)
      : sys_(sys), depth_(depth), breadth_(breadth) {
    std::size_t level = 1;
    for (std::uint32_t d = 0; d < depth; ++d) {
      level *= breadth;
      below_root_ += level;
    }
  }
  Sample sample() override {
    TreeShared shared;
    shared.breadth = breadth_;
    shared.built.emplace(below_root_ + 1);
    const TimePoint t0 = Clock::now();
    ActorRef<std::monostate> root = spawned(sys_.spawn<TreeNode>({}, TreeNode::Arguments{depth_, &shared}));
    shared.built->wait(sys_.runtime(), "building the supervision tree");
    const TimePoint t1 = Clock::now();

    // Untimed: collect every node, so that the shutdown can be awaited exit by exit.
    std::vector<ActorCell> all;
    all.reserve(below_root_ + 1);
    all.push_back(root);
    for (std::size_t i = 0; i < all.size(); ++i)
      for (ActorCell& c : all[i].children()) all.push_back(std::move(c));
    if (all.size() != below_root_ + 1)
      throw WorkloadError("the tree has " + std::to_string(all.size()) + " actors, not " +
                          std::to_string(below_root_ + 1));

    const TimePoint t2 = Clock::now();
    root.stop();  // the root's exit kills its children, whose exits kill theirs, ...
    wait_all(all);
    const TimePoint t3 = Clock::now();
    const double build = ns_between(t0, t1), shutdown = ns_between(t2, t3);
    Sample s = measured(build + shutdown);
    s.phases = {{"spawn", build}, {"shutdown", shutdown}};
    return s;
  }

 private:
  System& sys_;
  std::uint32_t depth_, breadth_;
  std::size_t below_root_ = 0;
};

Benchmark supervision_tree() {
  BenchmarkInfo i;
  i.name = "Supervision tree of depth 3 and breadth 10: spawn and cascading shutdown";
  i.group = "lifecycle";
  i.description =
      "A root actor spawns 10 linked children in post_start, each of them 10 more, down to depth 3: "
      "1,110 supervised actors plus the root. Timed: from the root's spawn until every node has "
      "started, plus from stopping the root until every node has exited (each exit kills the "
      "children). Collecting the nodes' handles in between is untimed.";
  i.elements = 1111;
  i.element = "actor";
  i.throughput = true;
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [](System& s) { return std::make_unique<SupervisionTree>(s, 3, 10); }};
}

// A child that fails in post_start (a throw, as a real failure is) until it has been started
// `starts` times; the last start completes `calm`.
struct CrashShared {
  std::atomic<std::int64_t> left{0};
  std::optional<Countdown> calm;
};

struct Crasher {
  using Message = std::monostate;
  CrashShared* shared = nullptr;
  void post_start(as::Context<Crasher>&, std::monostate&) {
    if (shared->left.fetch_sub(1, std::memory_order_relaxed) > 1) throw std::runtime_error("crash");
    shared->calm->count_down();
  }
  void handle(as::Context<Crasher>&, std::monostate, std::monostate&) {}
};

class RestartStorm final : public Workload {
 public:
  RestartStorm(System& sys, std::size_t restarts) : sys_(sys), restarts_(restarts) {}
  Sample sample() override {
    CrashShared shared;
    shared.left = static_cast<std::int64_t>(restarts_ + 1);
    shared.calm.emplace(1);
    SupervisorSpec spec{.max_restarts = static_cast<std::uint32_t>(restarts_ * 2),
                        .period = std::chrono::hours(1),
                        .children = {child("crasher", Crasher{&shared}, {})}};
    const TimePoint t0 = Clock::now();
    auto sup = start_supervisor(sys_, std::move(spec));
    if (!sup) throw WorkloadError(std::string("the supervisor did not start: ") + sup.error().what());
    shared.calm->wait(sys_.runtime(), "the restart storm");
    const TimePoint t1 = Clock::now();
    if (!sup->stop_and_wait(std::chrono::seconds(30))) throw WorkloadError("the supervisor did not stop");
    return measured(ns_between(t0, t1));
  }

 private:
  System& sys_;
  std::size_t restarts_;
};

Benchmark restart_storm() {
  constexpr std::size_t n = 10'000;
  BenchmarkInfo i;
  i.name = "Restart a failing child 10,000 times";
  i.group = "lifecycle";
  i.description =
      "A one_for_one Supervisor (no backoff, an intensity that never runs out) with one child that "
      "throws in post_start until it has been restarted 10,000 times. Timed: from spawning the "
      "supervisor until the last start. Per element: the cost of one restart, from the child's "
      "failure through the supervisor's decision to the new child running its post_start.";
  i.elements = n;
  i.element = "restart";
  i.throughput = true;
  i.samples = 10;
  i.quick_samples = 3;
  return {i, [n](System& s) { return std::make_unique<RestartStorm>(s, n); }};
}

}  // namespace

void add_lifecycle_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(spawn_throughput());
  out.push_back(supervision_tree());
  out.push_back(restart_storm());
}

}  // namespace actorscope::bench::detail
