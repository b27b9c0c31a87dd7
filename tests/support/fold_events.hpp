// Synthetic events for tests of the fold (SystemState, StateFeed): actor n is pid {0, n}, times are
// milliseconds after the clock's epoch.
#pragma once

// moc (Qt 6.4) follows includes into the standard library and cannot parse C++20 concepts; it only
// needs to see the test class, so everything here is hidden from it.
#ifndef Q_MOC_RUN

#include <actorscope/observe/event.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace fold_events {

namespace as = actorscope;
namespace obs = actorscope::observe;

inline as::ActorId pid(std::uint64_t n) { return {0, n}; }
inline as::TimePoint at(int ms) { return as::TimePoint{} + std::chrono::milliseconds(ms); }

/// Actor n ("a<n>", of type "T") spawned at `ms` under `parent` (0: a root).
inline obs::Event spawned(std::uint64_t n, int ms, std::uint64_t parent = 0) {
  std::string name = "a";  // (built in steps: GCC 12 misreports -Wrestrict on "a" + s at -O3)
  name += std::to_string(n);
  return {.kind = obs::EventKind::spawned, .time = at(ms), .actor = pid(n), .peer = pid(parent),
          .name = std::move(name), .text = "T"};
}

}  // namespace fold_events

#endif  // Q_MOC_RUN
