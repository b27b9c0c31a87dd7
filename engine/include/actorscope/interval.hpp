// Interval: ticks at absolute deadlines start + k·period, so time spent handling a tick never
// shifts the next one (no drift). When ticks are missed, the policy says how to catch up.
#pragma once

#include <actorscope/runtime.hpp>
#include <actorscope/task.hpp>
#include <actorscope/wait.hpp>

#include <cstdint>
#include <optional>

namespace actorscope {

/// What happens when a tick is taken so late that the next deadline has already passed.
enum class MissedTick : std::uint8_t {
  burst,  ///< fire every missed tick at once, one after another, then carry on on schedule
  delay,  ///< the next tick comes one period after the late one; the schedule shifts
  skip,   ///< drop the missed ticks; the next tick is the next deadline still in the future
};

class Interval {
 public:
  struct Tick {
    TimePoint scheduled;  ///< the deadline this tick was due at
    TimePoint actual;     ///< when it was taken
    std::uint64_t missed; ///< deadlines that had passed since, by the time it was taken
  };

  /// Starts at the first tick() call; the first tick comes one period later.
  explicit Interval(Duration period, MissedTick policy = MissedTick::burst) : period_(period), policy_(policy) {}
  /// Starts at `start`; ticks at start + period, start + 2·period, ...
  Interval(TimePoint start, Duration period, MissedTick policy = MissedTick::burst)
      : period_(period), policy_(policy), start_(start), next_(start + period) {}

  Duration period() const noexcept { return period_; }
  MissedTick policy() const noexcept { return policy_; }
  /// The next deadline, once started.
  std::optional<TimePoint> next_deadline() const noexcept {
    return start_ ? std::optional<TimePoint>(next_) : std::nullopt;
  }
  /// Restarts the schedule from `start`.
  void reset(TimePoint start) noexcept {
    start_ = start;
    next_ = start + period_;
  }

  /// The deadline after a tick due at `scheduled` was taken at `actual` (pure; used by timers too).
  static TimePoint next_after(TimePoint scheduled, TimePoint actual, TimePoint start, Duration period,
                              MissedTick policy, std::uint64_t* missed = nullptr) noexcept {
    const std::uint64_t late = actual > scheduled ? static_cast<std::uint64_t>((actual - scheduled) / period) : 0;
    if (missed != nullptr) *missed = late;
    if (late == 0) return scheduled + period;
    switch (policy) {
      case MissedTick::burst: return scheduled + period;
      case MissedTick::delay: return actual + period;
      case MissedTick::skip: {
        const auto k = static_cast<std::uint64_t>((actual - start) / period) + 1;
        return start + period * static_cast<std::int64_t>(k);
      }
    }
    return scheduled + period;
  }

  class TickAwaiter {
   public:
    explicit TickAwaiter(Interval& iv) noexcept : iv_(iv) {}
    TickAwaiter(TickAwaiter&& o) noexcept
        : iv_(o.iv_), wait_(std::exchange(o.wait_, nullptr)), runtime_(o.runtime_), scheduled_(o.scheduled_) {}
    TickAwaiter& operator=(TickAwaiter&&) = delete;
    ~TickAwaiter() { detail::finish_wait(wait_); }

    bool await_ready() const noexcept { return false; }
    template <class P>
    bool await_suspend(std::coroutine_handle<P> h) {
      ExecContext& ctx = detail::context_of(h);
      runtime_ = &ctx.runtime();
      const TimePoint now = runtime_->now();
      if (!iv_.start_) iv_.reset(now);
      scheduled_ = iv_.next_;
      if (scheduled_ <= now) return false;
      wait_ = new Wait(ctx, h);
      wait_->arm_timer(scheduled_);
      return true;
    }
    Tick await_resume() noexcept {
      detail::finish_wait(wait_);
      Tick t{scheduled_, runtime_->now(), 0};
      iv_.next_ = next_after(t.scheduled, t.actual, *iv_.start_, iv_.period_, iv_.policy_, &t.missed);
      return t;
    }

   private:
    Interval& iv_;
    Wait* wait_ = nullptr;
    Runtime* runtime_ = nullptr;
    TimePoint scheduled_{};
  };

  /// co_await interval.tick(): suspends until the next deadline (not at all if it has passed).
  TickAwaiter tick() noexcept { return TickAwaiter(*this); }

 private:
  Duration period_;
  MissedTick policy_;
  std::optional<TimePoint> start_;
  TimePoint next_{};
};

}  // namespace actorscope
