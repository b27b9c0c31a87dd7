// timers: intervals and delayed sends, with jitter to see. Three metronomes tick every 20, 33 and
// 50 ms; now and then a tick's handler runs long (up to 15 ms), so later ticks come late, and
// each metronome catches up by another policy (burst, delay, skip). A juggler throws balls to
// itself with send_after and a random 1-40 ms delay, and now and then drops one (cancels it). Every
// 100 ms a short-lived actor appears with an exit_after or kill_after timer; some leave earlier on
// their own, which ends their timer unfired.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <atomic>
#include <deque>
#include <stdexcept>
#include <string>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

struct Tick {};

struct Metronome {
  using Message = Tick;
  struct Setup {
    Duration period{};
    MissedTick policy = MissedTick::burst;
    std::uint64_t seed = 0;
  };
  using Arguments = Setup;
  struct State {
    Setup setup;
    Random rng{0};
  };
  State pre_start(Context<Metronome>&, Setup s) { return State{s, Random(s.seed)}; }
  void post_start(Context<Metronome>& ctx, State& s) {
    ctx.send_interval(
        s.setup.period, [] { return Tick{}; }, s.setup.policy);
  }
  Task<> handle(Context<Metronome>&, Tick, State& s) {
    if (s.rng.percent(15)) co_await sleep(std::chrono::milliseconds(s.rng.between(1, 15)));  // a long tick
  }
};

struct Ball {
  std::uint64_t number;
};

struct Juggler {
  using Message = Ball;
  using Arguments = std::uint64_t;
  struct State {
    Random rng{0};
    std::uint64_t thrown = 0;
    std::deque<TimerHandle> in_air;
  };
  State pre_start(Context<Juggler>&, std::uint64_t seed) { return State{Random(seed), 0, {}}; }
  void post_start(Context<Juggler>& ctx, State& s) {
    for (int i = 0; i < 4; ++i) throw_ball(ctx, s);
  }
  // Four balls in the air: each one caught is thrown again; one catch in five, a ball still in the
  // air is dropped (its send cancelled) and a new one thrown instead.
  void handle(Context<Juggler>& ctx, Ball, State& s) {
    std::erase_if(s.in_air, [](const TimerHandle& h) { return !h.is_active(); });
    if (s.rng.percent(20) && !s.in_air.empty()) {
      s.in_air.front().cancel();
      s.in_air.pop_front();
      throw_ball(ctx, s);
    }
    throw_ball(ctx, s);
  }

 private:
  static void throw_ball(Context<Juggler>& ctx, State& s) {
    s.in_air.push_back(ctx.send_after(std::chrono::milliseconds(s.rng.between(1, 40)), Ball{++s.thrown}));
  }
};

// Short-lived: it is stopped or killed by its timer, unless it leaves first on its own.
struct Mayfly {
  using Message = Tick;
  struct Setup {
    bool kill = false;
    Duration lifetime{};
    Duration leaves_after{};  ///< zero: it waits for its timer
  };
  using Arguments = Setup;
  using State = Setup;
  Setup pre_start(Context<Mayfly>&, Setup s) { return s; }
  void post_start(Context<Mayfly>& ctx, Setup& s) {
    if (s.kill) {
      ctx.kill_after(s.lifetime);
    } else {
      ctx.exit_after(s.lifetime);
    }
    if (s.leaves_after > Duration::zero()) ctx.send_after(s.leaves_after, Tick{});
  }
  void handle(Context<Mayfly>& ctx, Tick, Setup&) { ctx.stop("left before its timer"); }
};

struct Hatchery {
  using Message = Tick;
  using Arguments = std::uint64_t;
  struct State {
    Random rng{0};
    std::uint64_t hatched = 0;
  };
  State pre_start(Context<Hatchery>&, std::uint64_t seed) { return State{Random(seed), 0}; }
  void post_start(Context<Hatchery>& ctx, State&) {
    ctx.send_interval(100ms, [] { return Tick{}; });
  }
  void handle(Context<Hatchery>& ctx, Tick, State& s) {
    Mayfly::Setup m;
    m.kill = s.rng.percent(30);
    m.lifetime = std::chrono::milliseconds(s.rng.between(50, 300));
    if (s.rng.percent(25)) m.leaves_after = std::chrono::milliseconds(s.rng.between(10, 40));
    std::string name = "mayfly-";
    name += std::to_string(++s.hatched);
    (void)ctx.template spawn_linked<Mayfly>({.name = std::move(name)}, m);
  }
  void handle_supervisor_event(Context<Hatchery>&, const SupervisionEvent&, State&) {}
};

struct Clockwork {
  using Message = Tick;
  using Arguments = std::uint64_t;
  using State = std::uint64_t;
  std::uint64_t pre_start(Context<Clockwork>&, std::uint64_t seed) { return seed; }
  void post_start(Context<Clockwork>& ctx, std::uint64_t& seed) {
    struct Spec {
      const char* name;
      Duration period;
      MissedTick policy;
    };
    const Spec specs[] = {{"metronome-20ms-burst", 20ms, MissedTick::burst},
                          {"metronome-33ms-delay", 33ms, MissedTick::delay},
                          {"metronome-50ms-skip", 50ms, MissedTick::skip}};
    std::uint64_t k = 0;
    for (const Spec& spec : specs)
      (void)ctx
          .template spawn_linked<Metronome>(
              {.name = spec.name},
              Metronome::Setup{spec.period, spec.policy, Random::derived(seed, ++k).next()})
          .value();
    (void)ctx.template spawn_linked<Juggler>({.name = "juggler"}, Random::derived(seed, 10).next()).value();
    (void)ctx.template spawn_linked<Hatchery>({.name = "hatchery"}, Random::derived(seed, 11).next()).value();
  }
  void handle(Context<Clockwork>&, Tick, std::uint64_t&) {}
  void handle_supervisor_event(Context<Clockwork>&, const SupervisionEvent&, std::uint64_t&) {}
};

class TimersScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "timers"; }
  std::string_view summary() const noexcept override {
    return "intervals that fall behind and catch up, delayed sends with jitter, exit/kill timers";
  }
  void start(System& system, std::uint64_t seed) const override {
    auto root = system.spawn<Clockwork>({.name = "clockwork"}, seed);
    if (!root)
      throw std::runtime_error(std::string("the timers scenario could not start: ") + root.error().what());
  }
  // What its timer would have sent: a tick, or a ball for the juggler.
  std::string demo_message(const ActorCell& actor) const override {
    return actor.as<Ball>() ? "Ball" : actor.as<Tick>() ? "Tick" : "";
  }
  bool send_demo_message(const ActorCell& actor) const override {
    static std::atomic<std::uint64_t> number{1'000'000};
    if (auto ball = actor.as<Ball>()) return ball->cast(Ball{++number}).has_value();
    if (auto tick = actor.as<Tick>()) return tick->cast(Tick{}).has_value();
    return false;
  }
};

}  // namespace

const Scenario& timers() {
  static const TimersScenario s;
  return s;
}

}  // namespace actorscope::scenarios
