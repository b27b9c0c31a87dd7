// groups: twelve members join and leave the groups red, green and blue (scope "colors") at
// jittered moments; a broadcaster sends to every member of one group every 50 ms; a watcher
// monitors the whole scope. Now and then a member retires, leaving its groups as it stops, and the
// supervisor brings in a new one.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

constexpr std::string_view kScope = "colors";
constexpr std::array<std::string_view, 3> kGroups = {"red", "green", "blue"};

struct Tick {};
struct Broadcast {
  std::uint64_t number;
  std::string group;
};
using MemberMsg = std::variant<Tick, Broadcast>;

// Every 20-80 ms (its own jitter) a member joins or leaves a group; about one move in 40 it retires.
struct Member {
  using Message = MemberMsg;
  using Arguments = std::uint64_t;  // its PRNG seed
  struct State {
    Random rng{0};
    std::uint64_t heard = 0;
  };
  State pre_start(Context<Member>&, std::uint64_t seed) { return State{Random(seed), 0}; }
  void post_start(Context<Member>& ctx, State& s) {
    ctx.send_after(std::chrono::milliseconds(s.rng.between(5, 40)), Tick{});
  }
  void handle(Context<Member>& ctx, MemberMsg msg, State& s) {
    if (std::holds_alternative<Broadcast>(msg)) {
      ++s.heard;
      return;
    }
    if (s.rng.percent(2)) {
      ctx.stop("retired");  // leaving every group happens as it stops
      return;
    }
    ProcessGroups& groups = ctx.system().groups();
    const std::string_view group = kGroups[s.rng.below(kGroups.size())];
    if (s.rng.percent(60)) {
      groups.join_scoped(kScope, group, ctx.cell());
    } else {
      groups.leave_scoped(kScope, group, ctx.cell());
    }
    ctx.send_after(std::chrono::milliseconds(s.rng.between(20, 80)), Tick{});
  }
};

// Every 50 ms, a message to each member of one group.
struct Broadcaster {
  using Message = Tick;
  using Arguments = std::uint64_t;
  struct State {
    Random rng{0};
    std::uint64_t sent = 0;
  };
  State pre_start(Context<Broadcaster>&, std::uint64_t seed) { return State{Random(seed), 0}; }
  void post_start(Context<Broadcaster>& ctx, State&) {
    ctx.send_interval(50ms, [] { return Tick{}; });
  }
  void handle(Context<Broadcaster>& ctx, Tick, State& s) {
    const std::string group(kGroups[s.rng.below(kGroups.size())]);
    ++s.sent;
    for (const ActorCell& member : ctx.system().groups().members_scoped(kScope, group))
      if (auto ref = member.as<MemberMsg>()) (void)ref->cast(Broadcast{s.sent, group});
  }
};

// Hears every join and leave of the scope (as ProcessGroupChanged supervision events).
struct Watcher {
  using Message = Tick;
  using State = std::uint64_t;
  std::uint64_t pre_start(Context<Watcher>&) { return 0; }
  void post_start(Context<Watcher>& ctx, std::uint64_t&) {
    ctx.system().groups().monitor_scope(kScope, ctx.cell());
  }
  void handle(Context<Watcher>&, Tick, std::uint64_t&) {}
  void handle_supervisor_event(Context<Watcher>&, const SupervisionEvent& e, std::uint64_t& changes) {
    if (e.get<ProcessGroupChanged>() != nullptr) ++changes;
  }
};

// Supervises the members (replacing any that retire or fail), the broadcaster and the watcher.
struct Hub {
  using Message = Tick;
  using Arguments = std::uint64_t;
  struct State {
    std::uint64_t seed = 0;
    std::uint64_t members = 0;
  };
  State pre_start(Context<Hub>&, std::uint64_t seed) { return State{seed, 0}; }
  void post_start(Context<Hub>& ctx, State& s) {
    (void)ctx.template spawn_linked<Watcher>({.name = "watcher"}).value();
    for (int i = 0; i < 12; ++i) add_member(ctx, s);
    (void)ctx.template spawn_linked<Broadcaster>({.name = "broadcaster"}, Random::derived(s.seed, 1).next())
        .value();
  }
  void handle(Context<Hub>&, Tick, State&) {}
  void handle_supervisor_event(Context<Hub>& ctx, const SupervisionEvent& event, State& s) {
    const ActorCell* gone = nullptr;
    if (const auto* t = event.get<ActorTerminated>()) gone = &t->actor;
    if (const auto* f = event.get<ActorFailed>()) gone = &f->actor;
    if (gone != nullptr && gone->as<MemberMsg>()) add_member(ctx, s);
  }

 private:
  static void add_member(Context<Hub>& ctx, State& s) {
    ++s.members;
    std::string name = "member-";
    name += std::to_string(s.members);
    // Refused only while the hub itself is stopping.
    (void)ctx.template spawn_linked<Member>({.name = std::move(name)},
                                            Random::derived(s.seed, 100, s.members).next());
  }
};

class GroupsScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "groups"; }
  std::string_view summary() const noexcept override {
    return "members join and leave process groups with jitter; broadcasts to a group every 50 ms";
  }
  void start(System& system, std::uint64_t seed) const override {
    auto root = system.spawn<Hub>({.name = "hub"}, seed);
    if (!root)
      throw std::runtime_error(std::string("the groups scenario could not start: ") + root.error().what());
  }
  // A broadcast, as if the broadcaster had sent it to the member's group.
  std::string demo_message(const ActorCell& actor) const override { return actor.as<MemberMsg>() ? "Broadcast" : ""; }
  bool send_demo_message(const ActorCell& actor) const override {
    static std::atomic<std::uint64_t> number{1'000'000};
    auto ref = actor.as<MemberMsg>();
    return ref && ref->cast(Broadcast{++number, "demo"}).has_value();
  }
};

}  // namespace

const Scenario& groups() {
  static const GroupsScenario s;
  return s;
}

}  // namespace actorscope::scenarios
