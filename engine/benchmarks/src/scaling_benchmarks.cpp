// Scaling: what spawning an idle actor costs as the number of live actors grows to a million, the
// heap each one takes, and stopping them all from outside, the way a System's destructor does.
// The same workload at 10,000, 100,000 and 1,000,000 actors, so that the three can be compared.
#include "workload_support.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <variant>

namespace actorscope::bench::detail {

namespace {

// Bytes handed out by malloc and not yet freed, in every arena, including mmapped blocks.
double heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd);
}

// Idle once started: post_start counts it in, and no message ever comes.
struct Sleeper {
  using Message = std::monostate;
  Countdown* started = nullptr;
  void post_start(as::Context<Sleeper>&, std::monostate&) { started->count_down(); }
  void handle(as::Context<Sleeper>&, std::monostate, std::monostate&) {}
};

class IdleCrowd final : public Workload {
 public:
  IdleCrowd(System& sys, std::size_t n) : sys_(sys), n_(n) {}

  Sample sample() override {
    std::vector<ActorRef<std::monostate>> refs;
    refs.reserve(n_);  // before the baseline: the handles are the benchmark's, not the actors'
    Countdown started(n_);
    const double heap_before = heap_in_use();
    const TimePoint t0 = Clock::now();
    for (std::size_t i = 0; i < n_; ++i) refs.push_back(spawned(sys_.spawn(Sleeper{&started}, {})));
    started.wait(sys_.runtime(), "starting the idle actors");
    const TimePoint t1 = Clock::now();
    bytes_.push_back((heap_in_use() - heap_before) / static_cast<double>(n_));

    // What ~System does with its root actors: a graceful stop for each, from outside, then the wait.
    const TimePoint t2 = Clock::now();
    for (auto& r : refs) r.stop();
    wait_all(refs);
    const TimePoint t3 = Clock::now();

    Sample s = measured(ns_between(t0, t1));
    s.phases.emplace_back("stopping all from outside", ns_between(t2, t3));
    return s;
  }

  // The heap growth says what an actor costs only when its memory is new: below ~100,000 actors
  // the blocks earlier samples (and benchmarks) freed into MessagePool's caches cover much of it,
  // and "Memory per idle actor" is the figure to read. Those runs have no warm-up either.
  std::string note() const override {
    if (bytes_.empty() || n_ < 100'000) return {};
    std::vector<double> b = bytes_;
    std::sort(b.begin(), b.end());
    char buf[96];
    std::snprintf(buf, sizeof buf, "heap per idle actor %.0f B (median of %zu samples)", b[b.size() / 2], b.size());
    return buf;
  }

 private:
  System& sys_;
  std::size_t n_;
  std::vector<double> bytes_;
};

Benchmark idle_crowd(std::size_t n, const char* count) {
  using namespace std::chrono_literals;
  BenchmarkInfo i;
  i.name = std::string("Spawning ") + count + " idle actors";
  i.group = "scaling";
  i.description = std::string("Spawns ") + count +
                  " actors from outside the runtime, one after another, and times until every one has run "
                  "post_start and gone idle (all stay alive, so the live set grows to the full count). Then it "
                  "stops them all from outside and waits for their exits, as destroying a System does (the "
                  "phase \"stopping all from outside\"). From 100,000 actors on, the note gives the heap "
                  "growth per actor (glibc mallinfo2).";
  i.elements = static_cast<double>(n);
  i.element = "actor";
  i.throughput = true;
  i.samples = n >= 1'000'000 ? 3 : n >= 100'000 ? 5 : 10;
  i.quick_samples = n >= 100'000 ? 1 : 3;
  i.warm_up = n >= 100'000 ? 0ms : 200ms;
  i.quick_warm_up = 0ms;
  return {i, [n](System& s) { return std::make_unique<IdleCrowd>(s, n); }};
}

}  // namespace

void add_scaling_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(idle_crowd(10'000, "10,000"));
  out.push_back(idle_crowd(100'000, "100,000"));
  out.push_back(idle_crowd(1'000'000, "1,000,000"));
}

}  // namespace actorscope::bench::detail
