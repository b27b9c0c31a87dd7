// Bounded mailboxes: what a bound costs when it is never reached (the message loop, bounded and
// unbounded, side by side in one sample), and a pipeline of four stages whose slow end holds the
// producer back (backpressure) instead of letting a backlog grow (unbounded): the rate it reaches,
// and the memory its mailboxes hold at their peak.
#include "workload_support.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <variant>

namespace actorscope::bench::detail {

namespace {

using namespace std::chrono_literals;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

as::SpawnOptions bounded(std::uint32_t capacity, as::Overflow overflow = as::Overflow::reject) {
  as::SpawnOptions o;
  o.mailbox_capacity = capacity;
  o.overflow = overflow;
  return o;
}

// -- a bound that is never reached --------------------------------------------------------------

struct Go {};

// ractor's MessagingActor: counts self-sent messages and stops at num_msgs (at most one waits).
struct SelfLoop {
  using Message = Go;
  using State = std::uint64_t;
  std::uint64_t num_msgs = 0;
  State pre_start(as::Context<SelfLoop>& ctx) {
    (void)ctx.self().cast(Go{});
    return 0;
  }
  void handle(as::Context<SelfLoop>& ctx, Go, State& handled) {
    if (++handled >= num_msgs) {
      ctx.stop();
    } else {
      (void)ctx.self().cast(Go{});
    }
  }
};

// Counts what it is sent from outside and completes `done` at the n-th.
struct Counter {
  using Message = std::uint64_t;
  using State = std::uint64_t;
  Countdown* done = nullptr;
  void handle(as::Context<Counter>&, std::uint64_t, State&) { done->count_down(); }
};

constexpr std::uint64_t kLoopMessages = 100000;
// Far above what ever waits: the loop keeps one message queued, the casts from outside at most all.
constexpr std::uint32_t kNeverReached = 1u << 20;

enum class Loop : std::uint8_t { self, outside };

// One sample: `loops` runs of each side, alternately (so that a change of load touches both
// alike); the value is the ratio of their medians, bounded over unbounded.
class BoundNeverReached final : public Workload {
 public:
  BoundNeverReached(System& sys, Loop loop, unsigned loops) : sys_(sys), loop_(loop), loops_(loops) {}

  Sample sample() override {
    std::vector<double> with_bound, without;
    const bool bound_first = (taken_++ % 2) == 0;
    for (unsigned k = 0; k < loops_; ++k) {
      for (bool bounded_side : {bound_first, !bound_first})
        (bounded_side ? with_bound : without).push_back(run(bounded_side ? kNeverReached : 0));
    }
    const double b = median_of(with_bound), u = median_of(without);
    if (u <= 0) throw WorkloadError("the unbounded loop took no measurable time");
    Sample s;
    s.value = b / u;
    s.phases.emplace_back("bounded, never full", b);
    s.phases.emplace_back("unbounded", u);
    return s;
  }

  std::string note() const override {
    return "each side: the median of " + std::to_string(loops_) + " loops per sample, sides alternating";
  }

 private:
  double run(std::uint32_t capacity) {
    const as::SpawnOptions options = bounded(capacity);
    if (loop_ == Loop::self) {
      auto actor = spawned(sys_.spawn(SelfLoop{.num_msgs = kLoopMessages}, options));
      const TimePoint t0 = Clock::now();
      const ActorRef<Go> one[] = {actor};
      wait_all(std::span<const ActorRef<Go>>(one));
      return ns_between(t0, Clock::now());
    }
    Countdown done(kLoopMessages);
    auto actor = spawned(sys_.spawn(Counter{.done = &done}, options));
    const TimePoint t0 = Clock::now();
    for (std::uint64_t i = 0; i < kLoopMessages; ++i)
      if (!actor.cast(i)) throw WorkloadError("a cast to the counting actor failed");
    done.wait(sys_.runtime(), "the counting actor");
    const double ns = ns_between(t0, Clock::now());
    actor.stop();
    const ActorRef<std::uint64_t> one[] = {actor};
    wait_all(std::span<const ActorRef<std::uint64_t>>(one));
    return ns;
  }

  System& sys_;
  Loop loop_;
  unsigned loops_;
  std::uint64_t taken_ = 0;
};

Benchmark bound_never_reached(Loop loop) {
  BenchmarkInfo i;
  if (loop == Loop::self) {
    i.name = "Bounded mailbox never full vs unbounded, message loop of 100000 messages";
    i.description =
        "ractor's single-actor loop (an actor casts itself 100,000 messages, one at a time, one worker thread), "
        "spawned with a mailbox capacity it never reaches and without one, alternately; the value is the ratio "
        "of the medians (bounded over unbounded). What the bound's bookkeeping costs a message.";
    i.threads = 1;
  } else {
    i.name = "Bounded mailbox never full vs unbounded, 100000 casts from outside";
    i.description =
        "The driver thread casts 100,000 messages to one actor as fast as it can; timed until the actor has "
        "handled them all. The same with a capacity it never reaches and without one, alternately; the value is "
        "the ratio of the medians (bounded over unbounded). What the bound costs senders on another thread.";
  }
  i.group = "mailbox";
  i.measure = Measure::ratio;
  i.unit = "×";
  i.element = "loop";
  i.samples = 15;
  i.quick_samples = 4;
  return {i, [loop](System& s) { return std::make_unique<BoundNeverReached>(s, loop, 5); }};
}

// -- a backpressured pipeline -----------------------------------------------------------------

struct Item {
  std::uint64_t id = 0;
  std::array<std::uint64_t, 7> payload{};  // 64 bytes in all
};

// Some work per item: `rounds` of a multiply-xor over the payload (not optimised away: the result
// goes into the item).
inline void work(Item& item, unsigned rounds) noexcept {
  std::uint64_t h = item.id;
  for (unsigned r = 0; r < rounds; ++r)
    for (std::uint64_t& w : item.payload) h = (h ^ w) * 0x100000001B3ull, w = h;
}

// The time each stage handled its first and its last item, for its rate.
struct StageClock {
  TimePoint first{};
  TimePoint last{};
};

struct PipeStage {
  using Message = Item;
  as::ActorRef<Item> next;  // empty for the last stage
  unsigned rounds = 0;
  bool await_room = false;  // backpressure: co_await the send instead of casting
  StageClock* clock = nullptr;
  Countdown* done = nullptr;  // the last stage counts the items down
  as::Task<> handle(as::Context<PipeStage>&, Item item, std::monostate&) {
    const TimePoint now = Clock::now();
    if (clock->first == TimePoint{}) clock->first = now;
    clock->last = now;
    work(item, rounds);
    if (!next) {
      done->count_down();
    } else if (await_room) {
      as::PendingSend<Item> pending = next.send(item);
      if (!co_await std::move(pending)) throw std::runtime_error("the next stage stopped");
    } else if (!next.cast(item)) {
      throw std::runtime_error("the next stage stopped");
    }
  }
};

constexpr std::uint64_t kPipelineItems = 100000;
constexpr std::uint32_t kStageCapacity = 64;
constexpr std::size_t kStages = 4;
// The last stage does four times the work of the others: it sets the pace.
constexpr std::array<unsigned, kStages> kRounds = {4, 4, 4, 16};

enum class PipelineMeasure : std::uint8_t { rate, memory };

class Pipeline final : public Workload {
 public:
  Pipeline(System& sys, bool backpressure, PipelineMeasure measure)
      : sys_(sys), backpressure_(backpressure), measure_(measure) {}

  Sample sample() override {
    Countdown done(kPipelineItems);
    std::array<StageClock, kStages> clocks{};
    std::vector<as::ActorRef<Item>> stages(kStages);
    const as::SpawnOptions options =
        backpressure_ ? bounded(kStageCapacity, as::Overflow::backpressure) : as::SpawnOptions{};
    for (std::size_t k = kStages; k-- > 0;) {
      PipeStage stage{.next = k + 1 < kStages ? stages[k + 1] : as::ActorRef<Item>{},
                      .rounds = kRounds[k],
                      .await_room = backpressure_,
                      .clock = &clocks[k],
                      .done = &done};
      stages[k] = spawned(sys_.spawn(std::move(stage), options));
    }
    const TimePoint t0 = Clock::now();
    for (std::uint64_t i = 0; i < kPipelineItems; ++i) {
      Item item;
      item.id = i;
      // Outside actors a cast to a full backpressured mailbox waits for room.
      if (!stages[0].cast(item)) throw WorkloadError("the first stage refused an item");
    }
    done.wait(sys_.runtime(), "the pipeline");
    const double ns = ns_between(t0, Clock::now());
    // The memory the mailboxes held at their fullest: each stage's high-water mark (exact, from its
    // statistics) in envelopes of one item. (The heap's own counters cannot tell: the send arenas
    // keep their blocks for reuse, so a backlog shows no growth after the first sample.)
    double queued_bytes = 0;
    for (std::size_t k = 0; k < kStages; ++k) {
      const std::uint64_t peak = stages[k].stats().mailbox_max;
      peak_depth_[k] = std::max(peak_depth_[k], peak);
      queued_bytes += static_cast<double>(peak) * static_cast<double>(sizeof(as::detail::Envelope<Item>));
      const double busy = ns_between(clocks[k].first, clocks[k].last);
      if (busy > 0) stage_rates_[k].push_back(static_cast<double>(kPipelineItems - 1) * 1e9 / busy);
    }
    peak_bytes_.push_back(queued_bytes);
    for (auto& s : stages) s.stop();
    wait_all(stages);

    Sample s;
    s.value = measure_ == PipelineMeasure::rate ? static_cast<double>(kPipelineItems) * 1e9 / ns : queued_bytes;
    for (std::size_t k = 0; k < kStages; ++k)
      s.phases.emplace_back("stage " + std::to_string(k + 1) + " first to last item",
                            ns_between(clocks[k].first, clocks[k].last));
    return s;
  }

  std::string note() const override {
    std::string n = "median rate per stage (items/s):";
    for (std::size_t k = 0; k < kStages; ++k) n += " " + std::to_string(static_cast<long long>(median_of(stage_rates_[k])));
    n += "; peak mailbox per stage:";
    for (std::size_t k = 0; k < kStages; ++k) n += " " + std::to_string(peak_depth_[k]);
    n += "; peak memory in the mailboxes (median): " +
         std::to_string(static_cast<long long>(median_of(peak_bytes_) / 1024)) + " KiB";
    return n;
  }

 private:
  System& sys_;
  bool backpressure_;
  PipelineMeasure measure_;
  std::array<std::vector<double>, kStages> stage_rates_{};
  std::array<std::uint64_t, kStages> peak_depth_{};
  std::vector<double> peak_bytes_;
};

Benchmark pipeline(bool backpressure, PipelineMeasure measure) {
  BenchmarkInfo i;
  const std::string shape = backpressure ? "backpressured, capacity 64" : "unbounded";
  const bool rate = measure == PipelineMeasure::rate;
  i.name = std::string(rate ? "Pipeline of 4 stages" : "Peak mailbox memory of a pipeline of 4 stages") + " (" +
           shape + "), 100000 items";
  i.group = "mailbox";
  i.description =
      std::string("The driver thread casts 100,000 64-byte items into the first of four stages; each stage works "
                  "on an item and passes it on, the last one with four times the work of the others. ") +
      (backpressure ? "Every stage has a mailbox of 64 with Overflow::backpressure: a stage co_awaits room in "
                      "the next, and the driver's cast waits for room in the first. "
                    : "The mailboxes are unbounded: a stage casts to the next without ever waiting. ") +
      (rate ? "The value is items per second, from the first cast to the last item handled; the phases are "
              "each stage's time from its first item to its last."
            : "The value is the memory the four mailboxes held at their fullest: each stage's high-water mark "
              "(exact, from its statistics) times the size of one item's envelope, summed.");
  if (rate) {
    i.measure = Measure::rate;
    i.unit = "events/s";
    i.element = "item";
  } else {
    i.measure = Measure::memory;
    i.unit = std::string("B");  // not = "B": GCC 12 at -O3 warns falsely (-Wrestrict, its bug 105329)
    i.element = "pipeline";
  }
  i.samples = 10;
  i.quick_samples = 3;
  i.warm_up = std::chrono::milliseconds(200);
  i.quick_warm_up = std::chrono::milliseconds(50);
  return {i, [backpressure, measure](System& s) { return std::make_unique<Pipeline>(s, backpressure, measure); }};
}

}  // namespace

void add_mailbox_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(bound_never_reached(Loop::self));
  out.push_back(bound_never_reached(Loop::outside));
  for (PipelineMeasure m : {PipelineMeasure::rate, PipelineMeasure::memory})
    for (bool backpressure : {true, false}) out.push_back(pipeline(backpressure, m));
}

}  // namespace actorscope::bench::detail
