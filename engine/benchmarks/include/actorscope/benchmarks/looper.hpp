// Looper: ractor's single-actor message loop, the workload that the observation probe and the
// recording benchmarks both time (so that their figures stay comparable, it is one definition).
// Header-only, because the probe is also built against the engine compiled without observation
// and links nothing of the benchmark library.
#pragma once

#include <actorscope/actorscope.hpp>

#include <cstdint>

namespace actorscope::bench {

/// A message to itself in pre_start, the next one from each handler, and a stop once it has seen
/// `limit` (its argument) messages. Spawn it and wait for its exit: that is the whole loop.
struct Looper {
  using Message = std::uint64_t;
  using Arguments = std::uint64_t;
  struct State {
    std::uint64_t limit = 0;
    std::uint64_t seen = 0;
  };
  State pre_start(Context<Looper>& ctx, std::uint64_t limit) {
    (void)ctx.self().cast(std::uint64_t{0});
    return State{limit, 0};
  }
  void handle(Context<Looper>& ctx, std::uint64_t, State& s) {
    if (++s.seen >= s.limit) {
      ctx.stop();
      return;
    }
    (void)ctx.self().cast(s.seen);
  }
};

}  // namespace actorscope::bench
