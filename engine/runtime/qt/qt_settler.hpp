// Settler: where the qt runtime's actors spawned from outside its threads come to live. Private to
// engine/runtime/qt; header-only, because the hosts call it on their hot path.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace actorscope::detail::qt {

// Chooses the homes of the actors spawned from outside the runtime's threads (Placement::deferred).
//
// Round robin at spawn would spread a burst of them over every worker, and a program that spawns
// short-lived actors in a loop would keep waking every worker for one or two drains each: on a
// machine with as many workers as cores, the spawning thread then fights them for a core. So their
// first drains go to one worker, the target. There, just before the first drain runs, choose()
// settles the actor: on this worker if it holds no more of the settled actors still alive than any
// other worker, else on the worker with fewest (which becomes the target). An actor that ends in
// its first drain leaves the count as it was, so a burst of short-lived actors stays on one warm
// worker; long-lived ones spread evenly, as round robin would spread them.
class Settler {
 public:
  explicit Settler(std::uint32_t workers) : workers_(workers), live_(std::make_unique<Count[]>(workers)) {}

  /// The worker that takes the next deferred first drain. @thread any
  std::uint32_t target() const noexcept { return target_.load(std::memory_order_relaxed); }

  /// Settles an actor whose first drain is about to run on worker `here`: returns its home and
  /// counts it there. @thread any (normally `here`'s)
  std::uint32_t choose(std::uint32_t here) noexcept {
    std::uint32_t home = here;
    std::int32_t fewest = live_[here].n.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < workers_; ++i) {
      const std::int32_t n = live_[i].n.load(std::memory_order_relaxed);
      if (n < fewest) {
        fewest = n;
        home = i;
      }
    }
    live_[home].n.fetch_add(1, std::memory_order_relaxed);
    if (home != here) target_.store(home, std::memory_order_relaxed);
    return home;
  }

  /// An actor settled on `home` has exited. @thread its
  void vacate(std::uint32_t home) noexcept {
    if (home < workers_) live_[home].n.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  struct alignas(64) Count {
    std::atomic<std::int32_t> n{0};
  };
  const std::uint32_t workers_;
  std::unique_ptr<Count[]> live_;  // each on its own cache line: written by its worker
  alignas(64) std::atomic<std::uint32_t> target_{0};
};

}  // namespace actorscope::detail::qt
