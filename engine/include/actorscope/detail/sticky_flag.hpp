// StickyFlag: "has this System ever used this feature?", so that an actor's exit can skip a
// feature's lock when it never was. The feature sets the flag before it looks at an actor's status;
// the exiting actor reads it after publishing its own status. Both are read-modify-writes of the
// one flag, so they are ordered: if the exit comes second it sees the flag, and if it comes first
// the feature acquires from it and sees the new status. An actor can never be registered behind its
// exit's back. (Fences would make the read a plain load, but ThreadSanitizer cannot check them.)
#pragma once

#include <atomic>
#include <cstdint>

namespace actorscope::detail {

class StickyFlag {
 public:
  /// @thread any. Call before reading the status of the actor being registered.
  void set() noexcept { used_.exchange(1, std::memory_order_acq_rel); }
  /// @thread any. Call after the exiting actor's status update.
  bool is_set() noexcept { return used_.fetch_add(0, std::memory_order_acq_rel) != 0; }
  /// @thread any. A hint without ordering, where a stale answer is as good as a racing set().
  bool maybe_set() const noexcept { return used_.load(std::memory_order_relaxed) != 0; }

 private:
  std::atomic<std::uint8_t> used_{0};
};

}  // namespace actorscope::detail
