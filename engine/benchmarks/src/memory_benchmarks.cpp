// Memory: heap bytes per idle actor, from the growth of glibc's allocated-bytes counters
// (mallinfo2: uordblks + hblkhd, summed over every arena) across spawning 100,000 idle actors.
#include "workload_support.hpp"

#include <malloc.h>

#include <cstdint>
#include <variant>

namespace actorscope::bench::detail {

namespace {

// Bytes handed out by malloc and not yet freed, in every arena, including mmapped blocks.
double heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd);
}

// An actor with no state that, once started, only answers one "are you up?" message.
struct IdleActor {
  using Message = Countdown*;
  void handle(as::Context<IdleActor>&, Countdown* up, std::monostate&) { up->count_down(); }
};

class IdleActors final : public Workload {
 public:
  IdleActors(System& sys, std::size_t n) : sys_(sys), n_(n) {}
  Sample sample() override {
    std::vector<ActorRef<Countdown*>> refs;
    refs.reserve(n_);  // before the baseline: the handles are the benchmark's, not the actors'
    Countdown up(n_);
    const double before = heap_in_use();
    for (std::size_t i = 0; i < n_; ++i) refs.push_back(spawned(sys_.spawn<IdleActor>()));
    // Each actor handles one message, so every one has run post_start and gone idle; the envelopes
    // are freed by then.
    for (auto& r : refs) (void)r.cast(&up);
    up.wait(sys_.runtime(), "starting the idle actors");
    const double after = heap_in_use();
    for (auto& r : refs) r.stop();
    wait_all(refs);
    return measured((after - before) / static_cast<double>(n_));
  }

 private:
  System& sys_;
  std::size_t n_;
};

Benchmark idle_actor_memory() {
  using namespace std::chrono_literals;
  constexpr std::size_t n = 100000;
  BenchmarkInfo i;
  i.name = "Memory per idle actor (100000 actors)";
  i.group = "memory";
  i.description = "Spawns 100,000 actors with no state, lets each handle one message so that all have started "
                  "and gone idle, and divides the growth of the heap's allocated bytes (glibc mallinfo2: "
                  "uordblks + hblkhd, all arenas) by 100,000. The handles the benchmark keeps are excluded.";
  i.measure = Measure::memory;
  i.unit = std::string("B");  // not = "B": GCC 12 at -O3 warns falsely (-Wrestrict, its bug 105329)
  i.element = "actor";
  i.reference = ReferenceRange{"ractor (about 9 KB)", 9000, 9000};
  i.samples = 3;
  i.quick_samples = 2;
  i.warm_up = 0ms;
  i.quick_warm_up = 0ms;
  return {i, [n](System& s) { return std::make_unique<IdleActors>(s, n); }};
}

}  // namespace

void add_memory_benchmarks(std::vector<Benchmark>& out) { out.push_back(idle_actor_memory()); }

}  // namespace actorscope::bench::detail
