// Idle actors (issue 26): the shapes of a server that keeps many actors idle and wakes them from
// outside, such as sessions woken by network input. Waking N idle actors with one message each from
// a thread outside the runtime, and creating a batch of idle actors back to back. Every count is
// kept by the actors themselves (an atomic countdown the driver waits on), not by joining exits.
#include "workload_support.hpp"

#include <variant>

namespace actorscope::bench::detail {

namespace {

// Counts itself in once started; then each message it is sent is a countdown to count down.
struct Sleeper {
  using Message = Countdown*;
  Countdown* started = nullptr;
  void post_start(as::Context<Sleeper>&, std::monostate&) { started->count_down(); }
  void handle(as::Context<Sleeper>&, Countdown* woken, std::monostate&) { woken->count_down(); }
};

using SleeperRef = ActorRef<Countdown*>;

/// Stops every actor of `refs` from outside and waits for their exits (untimed teardown).
void stop_all(std::vector<SleeperRef>& refs) {
  for (auto& r : refs) r.stop();
  wait_all(refs);
  refs.clear();
}

// "Waking N idle actors with one message each from outside": N actors are spawned once, when the
// workload is made, and each sample starts when all of them have run post_start and gone idle (the
// previous sample's countdown has reached zero, and each actor's drain ended after its count). The
// driver casts each one message, in spawn order, and the sample ends when the last actor has
// handled its own: the message carries the countdown.
class Waking final : public Workload {
 public:
  Waking(System& sys, std::size_t n) : sys_(sys), n_(n) {
    refs_.reserve(n_);
    Countdown started(n_);
    for (std::size_t i = 0; i < n_; ++i) refs_.push_back(spawned(sys_.spawn(Sleeper{&started}, {})));
    started.wait(sys_.runtime(), "starting the idle actors");
  }
  ~Waking() override {
    try {
      stop_all(refs_);
    } catch (const WorkloadError&) {  // an actor that did not exit in 60 s: nothing more to do here
    }
  }

  Sample sample() override {
    Countdown woken(n_);
    const TimePoint t0 = Clock::now();
    for (auto& r : refs_)
      if (!r.cast(&woken)) throw WorkloadError("an idle actor refused its message");
    woken.wait(sys_.runtime(), "waking the idle actors");
    return measured(ns_between(t0, Clock::now()));
  }

 private:
  System& sys_;
  std::size_t n_;
  std::vector<SleeperRef> refs_;
};

// "Creating N idle actors in a batch": N spawns from outside, back to back, timed until every actor
// has run post_start (pre_start, its init, runs inside the spawn call on the driver); then, untimed,
// a stop for each and the wait for their exits.
class BatchCreation final : public Workload {
 public:
  BatchCreation(System& sys, std::size_t n) : sys_(sys), n_(n) {}
  Sample sample() override {
    std::vector<SleeperRef> refs;
    refs.reserve(n_);
    Countdown started(n_);
    const TimePoint t0 = Clock::now();
    for (std::size_t i = 0; i < n_; ++i) refs.push_back(spawned(sys_.spawn(Sleeper{&started}, {})));
    started.wait(sys_.runtime(), "starting the batch of idle actors");
    const TimePoint t1 = Clock::now();
    stop_all(refs);
    return measured(ns_between(t0, t1));
  }

 private:
  System& sys_;
  std::size_t n_;
};

Benchmark waking(std::size_t n) {
  BenchmarkInfo i;
  i.name = "Waking " + std::to_string(n) + " idle actors with one message each from outside";
  i.group = "idle";
  i.description = std::to_string(n) +
                  " actors, spawned and started once (untimed) and idle, with nothing queued. A thread outside "
                  "the runtime casts each one message; timed until the last has handled its message, counted by "
                  "the actors (an atomic countdown the driver waits on).";
  i.elements = static_cast<double>(n);
  i.element = "actor";
  i.throughput = true;
  i.samples = n >= 1000 ? 30 : 50;
  i.quick_samples = 10;
  return {i, [n](System& s) { return std::make_unique<Waking>(s, n); }};
}

Benchmark batch_creation(std::size_t n) {
  BenchmarkInfo i;
  i.name = "Creating " + std::to_string(n) + " idle actors in a batch";
  i.group = "idle";
  i.description = "A thread outside the runtime spawns " + std::to_string(n) +
                  " actors back to back; timed until every one has run post_start (counted by the actors: an "
                  "atomic countdown the driver waits on). All stay alive and idle until the sample ends; stopping "
                  "them is untimed.";
  i.elements = static_cast<double>(n);
  i.element = "actor";
  i.throughput = true;
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [n](System& s) { return std::make_unique<BatchCreation>(s, n); }};
}

}  // namespace

void add_idle_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(waking(100));
  out.push_back(waking(1000));
  out.push_back(batch_creation(10000));
}

}  // namespace actorscope::bench::detail
