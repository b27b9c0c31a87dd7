// storm: a burst of spawns and failures. Every 40 ms a new "cloud" supervisor appears with 10 to
// 40 short-lived "drop" actors under it, each with a fate drawn from the seed: refuse to start,
// fail in post_start, fail on its first message, stop after it, or linger. Once more than three
// clouds are up, the oldest is stopped, and the drops still lingering in it are killed with it.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <deque>
#include <stdexcept>
#include <string>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

enum class Fate { refuse_to_start, fail_in_post_start, fail_on_message, stop_on_message, linger };

struct Poke {};

struct Drop {
  using Message = Poke;
  using Arguments = Fate;
  using State = Fate;
  Fate pre_start(Context<Drop>&, Fate fate) {
    if (fate == Fate::refuse_to_start) throw std::runtime_error("a drop refused to start");
    return fate;
  }
  void post_start(Context<Drop>&, Fate& fate) {
    if (fate == Fate::fail_in_post_start) throw std::runtime_error("a drop failed while starting");
  }
  void handle(Context<Drop>& ctx, Poke, Fate& fate) {
    if (fate == Fate::fail_on_message) throw std::runtime_error("a drop failed on its message");
    if (fate == Fate::stop_on_message) ctx.stop("evaporated");
  }
};

// A cloud supervises drops and shrugs off their failures.
struct Cloud {
  using Message = Poke;
  void handle(Context<Cloud>&, Poke, std::monostate&) {}
  void handle_supervisor_event(Context<Cloud>&, const SupervisionEvent&, std::monostate&) {}
};

struct Tick {};

struct Squall {
  using Message = Tick;
  struct Setup {
    ActorCell storm;  ///< where the clouds hang: beside this squall, under the storm
    std::uint64_t seed = 0;
  };
  using Arguments = Setup;
  struct State {
    ActorCell storm;
    Random rng{0};
    std::deque<ActorRef<Poke>> clouds;
    std::uint64_t made = 0;
  };
  State pre_start(Context<Squall>&, Setup s) { return State{std::move(s.storm), Random(s.seed), {}, 0}; }
  void post_start(Context<Squall>& ctx, State&) { (void)ctx.self().cast(Tick{}); }
  Task<> handle(Context<Squall>& ctx, Tick, State& s) {
    co_await sleep(40ms);
    std::string name = "cloud-";
    name += std::to_string(++s.made);
    {
      if (auto cloud = ctx.system().template spawn_linked<Cloud>(s.storm, {.name = std::move(name)})) {
        s.clouds.push_back(*cloud);
        for (std::uint64_t n = s.rng.between(10, 40); n > 0; --n) {
          const std::uint64_t roll = s.rng.below(100);
          const Fate fate = roll < 10   ? Fate::refuse_to_start
                            : roll < 20 ? Fate::fail_in_post_start
                            : roll < 45 ? Fate::fail_on_message
                            : roll < 75 ? Fate::stop_on_message
                                        : Fate::linger;
          if (auto drop = ctx.system().template spawn_linked<Drop>(*cloud, {}, fate))
            (void)drop->cast(Poke{});
        }
      }
    }
    if (s.clouds.size() > 3) {
      s.clouds.front().stop("blown away");
      s.clouds.pop_front();
    }
    (void)ctx.self().cast(Tick{});
  }
};

struct Storm {
  using Message = Tick;
  using Arguments = std::uint64_t;
  using State = std::uint64_t;
  std::uint64_t pre_start(Context<Storm>&, std::uint64_t seed) { return seed; }
  void post_start(Context<Storm>& ctx, std::uint64_t& seed) {
    (void)ctx
        .template spawn_linked<Squall>({.name = "squall"},
                                       Squall::Setup{ctx.cell(), Random::derived(seed, 7).next()})
        .value();
  }
  void handle(Context<Storm>&, Tick, std::uint64_t&) {}
  void handle_supervisor_event(Context<Storm>&, const SupervisionEvent&, std::uint64_t&) {}
};

class StormScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "storm"; }
  std::string_view summary() const noexcept override {
    return "bursts of short-lived actors: spawns refused, failures, stops, whole subtrees killed";
  }
  void start(System& system, std::uint64_t seed) const override {
    auto root = system.spawn<Storm>({.name = "storm"}, seed);
    if (!root)
      throw std::runtime_error(std::string("the storm scenario could not start: ") + root.error().what());
  }
  // A poke: a drop then meets its fate (fails, stops or lingers).
  std::string demo_message(const ActorCell& actor) const override { return actor.as<Poke>() ? "Poke" : ""; }
  bool send_demo_message(const ActorCell& actor) const override {
    auto ref = actor.as<Poke>();
    return ref && ref->cast(Poke{}).has_value();
  }
};

}  // namespace

const Scenario& storm() {
  static const StormScenario s;
  return s;
}

}  // namespace actorscope::scenarios
