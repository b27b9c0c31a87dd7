// spin_until: looks for a condition for a short while before a thread goes to sleep. Waking a
// sleeping thread costs from about a microsecond to tens of microseconds (far more on virtual
// machines, whose idle virtual CPUs halt), much more than the work most waits are for.
#pragma once

#include <actorscope/runtime.hpp>

#include <mutex>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace actorscope::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Polls `ready()` until it holds (true) or `budget` has passed (false), pausing between looks.
/// It never yields: a thread that yields stays runnable, so on a busy machine it loses the
/// processor for a whole time slice, while a thread that sleeps is preferred when it is woken.
template <class Pred>
bool spin_until(Pred&& ready, Duration budget) {
  if (ready()) return true;
  if (budget <= Duration::zero()) return false;
  const TimePoint until = Clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      cpu_relax();
      if (ready()) return true;
    }
    if (Clock::now() >= until) return ready();
  }
}

/// A scoped lock of a std::mutex that, when the mutex is taken, polls it for a short while before
/// it blocks. For the System's short critical sections (linking an actor into the live list and
/// the tree, unlinking it on exit), which the spawning thread and every runtime thread take: a
/// glibc mutex blocks at the first conflict, and the futex sleep, the wake-up system call and the
/// context switch cost microseconds where the holder needed a few hundred nanoseconds.
class BriefLock {
 public:
  explicit BriefLock(std::mutex& m) noexcept : m_(m) {
    for (int i = 0; i < kPolls; ++i) {
      if (m_.try_lock()) return;
      cpu_relax();
    }
    m_.lock();
  }
  ~BriefLock() { m_.unlock(); }
  BriefLock(const BriefLock&) = delete;
  BriefLock& operator=(const BriefLock&) = delete;

 private:
  static constexpr int kPolls = 64;  // about a microsecond of pauses
  std::mutex& m_;
};

}  // namespace actorscope::detail
