// SmallMutex: a mutex of four bytes for the short critical sections of the engine's own objects
// (a Completion's waiter list), where std::mutex's 40 bytes sit in every actor.
#pragma once

#include <actorscope/detail/spin_wait.hpp>

#include <atomic>
#include <cstdint>

namespace actorscope::detail {

/// A non-recursive lock in one 32-bit word, usable with std::lock_guard. Uncontended, lock() is one
/// compare-and-swap and unlock() one exchange; a contended lock() sleeps on the word (a futex on
/// Linux, through std::atomic::wait) and unlock() wakes one sleeper only when someone sleeps
/// (Drepper, "Futexes Are Tricky", mutex 2). For sections that never block: a holder that sleeps
/// makes every other locker sleep too.
class SmallMutex {
 public:
  SmallMutex() = default;
  SmallMutex(const SmallMutex&) = delete;
  SmallMutex& operator=(const SmallMutex&) = delete;

  void lock() noexcept {
    std::uint32_t seen = kFree;
    if (!state_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire, std::memory_order_relaxed))
      lock_contended(seen);
  }

  bool try_lock() noexcept {
    std::uint32_t seen = kFree;
    return state_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire, std::memory_order_relaxed);
  }

  void unlock() noexcept {
    if (state_.exchange(kFree, std::memory_order_release) == kSleepers) state_.notify_one();
  }

 private:
  static constexpr std::uint32_t kFree = 0;
  static constexpr std::uint32_t kLocked = 1;    // held, nobody sleeps on it
  static constexpr std::uint32_t kSleepers = 2;  // held, and someone may sleep on it
  static constexpr int kPolls = 64;               // about a microsecond of pauses

  void lock_contended(std::uint32_t seen) noexcept {
    // Sections are a few stores long: look for a while (reading, not writing, the word) first.
    for (int poll = 0; poll < kPolls && seen == kLocked; ++poll) {
      cpu_relax();
      seen = state_.load(std::memory_order_relaxed);
      if (seen == kFree &&
          state_.compare_exchange_strong(seen, kLocked, std::memory_order_acquire, std::memory_order_relaxed))
        return;
    }
    // From here the lock is taken as "held with sleepers", so that our unlock() wakes whoever
    // slept meanwhile (it may wake nobody: a spare wake-up, never a lost one).
    if (seen != kSleepers) seen = state_.exchange(kSleepers, std::memory_order_acquire);
    while (seen != kFree) {
      state_.wait(kSleepers, std::memory_order_relaxed);
      seen = state_.exchange(kSleepers, std::memory_order_acquire);
    }
  }

  std::atomic<std::uint32_t> state_{kFree};
};

}  // namespace actorscope::detail
