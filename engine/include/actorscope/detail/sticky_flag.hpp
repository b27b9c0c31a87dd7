// StickyFlag: "has this System ever used this feature?", so that an actor's exit can skip a
// feature's lock when it never was. The feature sets the flag before it looks at an actor's status;
// the exiting actor reads it after publishing its own status. With a fence on each side, at least
// one of the two sees the other, so an actor can never be registered behind its exit's back.
#pragma once

#include <atomic>

namespace actorscope::detail {

class StickyFlag {
 public:
  /// @thread any. Call before reading the status of the actor being registered.
  void set() noexcept {
    used_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  /// @thread any. Call after the exiting actor's status update.
  bool is_set() const noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return used_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<bool> used_{false};
};

}  // namespace actorscope::detail
