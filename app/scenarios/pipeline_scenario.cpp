// pipeline: a chain of five stages under a steady load. A source sends bursts of items every
// 10 ms (about 1,000 a second); "enrich" takes 2-3 ms an item (at most 500 a second), so its
// mailbox grows for as long as the scenario runs, while the stages before it keep up and the
// ones after it idle.
//
// Beside it, the same load and the same slow stage with a bounded mailbox: "feeder" sends the same
// bursts into "throttle" (32 messages, Overflow::backpressure), co_awaiting room for each item. The
// throttle's mailbox stays at 32 and the feeder slows down to its pace, where enrich's backlog
// grows without end.
#include "scenarios/random.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/actorscope.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace actorscope::scenarios {

namespace {

using namespace std::chrono_literals;

struct Item {
  std::uint64_t id;
  std::uint32_t size;
};

// One stage: works on an item, then passes it on. A quick stage computes a checksum over the
// item (microseconds); the slow one also waits 2-3 ms per item (a sleep: its thread stays free,
// and millisecond waits are precise on both runtimes).
struct Stage {
  using Message = Item;
  struct Setup {
    ActorRef<Item> next;  ///< empty for the last stage
    std::uint32_t min_ms = 0;
    std::uint32_t max_ms = 0;
    std::uint64_t seed = 0;
  };
  using Arguments = Setup;
  struct State {
    Setup setup;
    Random rng{0};
    std::uint64_t checksum = 0;
  };
  State pre_start(Context<Stage>&, Setup s) { return State{s, Random(s.seed), 0}; }
  Task<> handle(Context<Stage>&, Item item, State& s) {
    for (std::uint32_t i = 0; i < item.size; ++i)
      s.checksum = (s.checksum ^ (item.id + i)) * 0x100000001B3ull;
    if (s.setup.max_ms > 0)
      co_await sleep(std::chrono::milliseconds(s.rng.between(s.setup.min_ms, s.setup.max_ms)));
    if (s.setup.next) (void)s.setup.next.cast(item);
  }
};

struct Tick {};

// The load: every 10 ms a burst of 6 to 14 items into the first stage. With `await_room`, each item
// waits for room in that stage's bounded mailbox, so the source goes no faster than the stage.
struct Source {
  using Message = Tick;
  struct Setup {
    ActorRef<Item> first;
    std::uint64_t seed = 0;
    bool await_room = false;
  };
  using Arguments = Setup;
  struct State {
    Setup setup;
    Random rng{0};
    std::uint64_t next_id = 0;
  };
  State pre_start(Context<Source>&, Setup s) {
    const std::uint64_t seed = s.seed;
    return State{std::move(s), Random(seed), 0};
  }
  void post_start(Context<Source>& ctx, State&) { (void)ctx.self().cast(Tick{}); }
  Task<> handle(Context<Source>& ctx, Tick, State& s) {
    co_await sleep(10ms);
    for (std::uint64_t n = s.rng.between(6, 14); n > 0; --n) {
      Item item{++s.next_id, static_cast<std::uint32_t>(s.rng.between(64, 4096))};
      if (!s.setup.await_room) {
        (void)s.setup.first.cast(item);
        continue;
      }
      PendingSend<Item> room = s.setup.first.send(item);
      if (!co_await std::move(room)) co_return;  // the stage stopped: so does the feed
    }
    (void)ctx.self().cast(Tick{});
  }
};

// Supervises the chain; it is built from the end, so each stage knows the next.
struct Pipeline {
  using Message = Tick;
  using Arguments = std::uint64_t;
  using State = std::uint64_t;
  std::uint64_t pre_start(Context<Pipeline>&, std::uint64_t seed) { return seed; }
  void post_start(Context<Pipeline>& ctx, std::uint64_t& seed) {
    struct Spec {
      const char* name;
      std::uint32_t min_ms, max_ms;
    };
    const Spec specs[] = {
        {"sink", 0, 0}, {"aggregate", 0, 0}, {"enrich", 2, 3}, {"parse", 0, 0}, {"ingest", 0, 0}};
    ActorRef<Item> next;
    std::uint64_t k = 0;
    for (const Spec& spec : specs) {
      next = ctx.template spawn_linked<Stage>(
                    {.name = spec.name},
                    Stage::Setup{next, spec.min_ms, spec.max_ms, Random::derived(seed, ++k).next()})
                 .value();
    }
    (void)ctx
        .template spawn_linked<Source>({.name = "source"},
                                       Source::Setup{next, Random::derived(seed, 0).next()})
        .value();

    // The bounded twin: as slow as enrich, but its mailbox holds 32 and the feeder waits for room.
    ActorRef<Item> store =
        ctx.template spawn_linked<Stage>({.name = "store"}, Stage::Setup{{}, 0, 0, Random::derived(seed, 7).next()})
            .value();
    ActorRef<Item> throttle =
        ctx.template spawn_linked<Stage>(
               {.name = "throttle", .mailbox_capacity = 32, .overflow = Overflow::backpressure},
               Stage::Setup{store, 2, 3, Random::derived(seed, 8).next()})
            .value();
    (void)ctx
        .template spawn_linked<Source>({.name = "feeder"}, Source::Setup{throttle, Random::derived(seed, 9).next(), true})
        .value();
  }
  void handle(Context<Pipeline>&, Tick, std::uint64_t&) {}
};

class PipelineScenario final : public Scenario {
 public:
  std::string_view name() const noexcept override { return "pipeline"; }
  std::string_view summary() const noexcept override {
    return "five stages under load; the slow one (enrich) falls behind and its mailbox grows, while its bounded "
           "twin (throttle, 32 messages, backpressure) holds its feeder back";
  }
  void start(System& system, std::uint64_t seed) const override {
    auto root = system.spawn<Pipeline>({.name = "pipeline"}, seed);
    if (!root)
      throw std::runtime_error(std::string("the pipeline scenario could not start: ") + root.error().what());
  }
  // One more item into a stage (the slow one's mailbox shows it).
  std::string demo_message(const ActorCell& actor) const override { return actor.as<Item>() ? "Item" : ""; }
  bool send_demo_message(const ActorCell& actor) const override {
    static std::atomic<std::uint64_t> id{1'000'000};
    auto ref = actor.as<Item>();
    // try_cast: the observatory's thread never waits for room in the bounded stage.
    return ref && ref->try_cast(Item{++id, 64}).has_value();
  }
};

}  // namespace

const Scenario& pipeline() {
  static const PipelineScenario s;
  return s;
}

}  // namespace actorscope::scenarios
