// sleep, sleep_until and timeout for coroutine handlers. They suspend the handler, never the thread:
// other actors keep running, and the actor itself takes no other message until the handler is done.
#pragma once

#include <actorscope/expected.hpp>
#include <actorscope/task.hpp>
#include <actorscope/wait.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace actorscope {

namespace detail {
class SleepAwaiter {
 public:
  explicit SleepAwaiter(TimePoint deadline) noexcept : deadline_(deadline), relative_(false) {}
  explicit SleepAwaiter(Duration d) noexcept : duration_(d), relative_(true) {}
  SleepAwaiter(SleepAwaiter&& o) noexcept
      : deadline_(o.deadline_), duration_(o.duration_), relative_(o.relative_), wait_(std::exchange(o.wait_, nullptr)) {}
  SleepAwaiter& operator=(SleepAwaiter&&) = delete;
  ~SleepAwaiter() { finish_wait(wait_); }

  bool await_ready() const noexcept { return relative_ && duration_ <= Duration::zero(); }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    ExecContext& ctx = context_of(h);
    const TimePoint now = ctx.runtime().now();
    const TimePoint deadline = relative_ ? deadline_after(now, duration_) : deadline_;
    if (deadline <= now) return false;
    wait_ = new Wait(ctx, h);
    wait_->arm_timer(deadline);
    return true;
  }
  void await_resume() noexcept { finish_wait(wait_); }

 private:
  TimePoint deadline_{};
  Duration duration_{};
  bool relative_;
  Wait* wait_ = nullptr;
};
}  // namespace detail

/// Suspends the calling coroutine for `d` of the runtime's clock (virtual time on the manual runtime).
inline detail::SleepAwaiter sleep(Duration d) noexcept { return detail::SleepAwaiter(d); }
template <class Rep, class Period>
  requires(!std::is_same_v<std::chrono::duration<Rep, Period>, Duration>)
detail::SleepAwaiter sleep(std::chrono::duration<Rep, Period> d) noexcept {
  return detail::SleepAwaiter(std::chrono::duration_cast<Duration>(d));
}
/// Suspends the calling coroutine until `t` on the runtime's clock.
inline detail::SleepAwaiter sleep_until(TimePoint t) noexcept { return detail::SleepAwaiter(t); }

/// What `timeout` gives when the time ran out first.
struct TimedOut {
  Duration after{};
  std::string what_text() const {
    return "timed out after " +
           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(after).count()) + " ms";
  }
};

namespace detail {
/// Runs `inner` with a deadline. If the deadline comes first, the inner operation is destroyed
/// (every engine awaitable unregisters itself on destruction) and the result is TimedOut.
template <class T>
class TimeoutAwaiter {
 public:
  TimeoutAwaiter(Duration d, Task<T> inner) noexcept : after_(d), inner_(std::move(inner)) {}
  TimeoutAwaiter(const TimeoutAwaiter&) = delete;
  TimeoutAwaiter& operator=(const TimeoutAwaiter&) = delete;
  ~TimeoutAwaiter() { finish_wait(timer_); }

  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> outer) {
    ExecContext& ctx = context_of(outer);
    outer_ = outer;
    timer_ = new Wait(ctx, &TimeoutAwaiter::on_deadline, this);
    timer_->arm_timer(deadline_after(ctx.runtime().now(), after_));
    auto h = inner_.handle();
    h.promise().continuation = outer;
    h.promise().ctx = &ctx;
    return h;  // start the inner operation now
  }
  Expected<T, TimedOut> await_resume() {
    finish_wait(timer_);
    if (timed_out_) return unexpected(TimedOut{after_});
    if constexpr (std::is_void_v<T>) {
      inner_.take_result();
      return {};
    } else {
      return inner_.take_result();
    }
  }

 private:
  // Delivered on the context thread, while the outer coroutine is still suspended here.
  static void on_deadline(void* self) noexcept {
    auto* me = static_cast<TimeoutAwaiter*>(self);
    me->timed_out_ = true;
    me->inner_.reset();
    me->outer_.resume();  // `me` may be gone after this line
  }

  Duration after_;
  Task<T> inner_;
  std::coroutine_handle<> outer_{};
  Wait* timer_ = nullptr;
  bool timed_out_ = false;
};

/// Wraps an awaitable in a Task. A result given by reference (a join's) is copied into the task.
template <class A>
auto as_task(A awaitable) -> Task<std::decay_t<decltype(std::declval<A&>().await_resume())>> {
  co_return co_await awaitable;
}
}  // namespace detail

/// The task's value, or TimedOut if `d` passes first (the task is then cancelled: its frame is
/// destroyed at its current suspension point).
/// ```cpp context=handler
/// auto slow_sum = [](int a, int b) -> as::Task<int> {
///   co_await as::sleep(1s);
///   co_return a + b;
/// };
/// as::Expected<int, as::TimedOut> sum = co_await as::timeout(100ms, slow_sum(2, 3));
/// ```
template <class T>
detail::TimeoutAwaiter<T> timeout(Duration d, Task<T> inner) noexcept {
  return detail::TimeoutAwaiter<T>(d, std::move(inner));
}
/// The same for any engine awaitable: a sleep, a join, the next result of a JoinSet.
template <class A>
  requires requires(A& a) { a.await_resume(); }
auto timeout(Duration d, A&& awaitable) {
  return timeout(d, detail::as_task(std::forward<A>(awaitable)));
}
/// The same for what is awaited through its operator co_await: a call or a multi_call. The result
/// is the call's own CallResult inside, or TimedOut; when `d` passes first, the call is given up as
/// at its own timeout, so the callee's reply port closes (Reply::is_closed) and a late send() is
/// refused. A call's own timeout (the last argument of call) does the same in one layer, and tells
/// the callee its deadline (Reply::remaining); as::timeout also bounds a call made without one.
///
/// ```cpp context=handler
/// auto r = co_await as::timeout(100ms, counter.call(as::rpc<Get>));  // Expected<CallResult<int>, TimedOut>
/// if (!r) ctx.log("no answer: {}", r.error().what_text());
/// else if (r->is_success()) ctx.log("total = {}", **r);
/// ```
template <class A>
  requires requires(A&& a) { std::forward<A>(a).operator co_await(); }
auto timeout(Duration d, A&& awaitable) {
  return timeout(d, std::forward<A>(awaitable).operator co_await());
}
template <class Rep, class Period, class X>
  requires(!std::is_same_v<std::chrono::duration<Rep, Period>, Duration>)
auto timeout(std::chrono::duration<Rep, Period> d, X&& x) {
  return timeout(std::chrono::duration_cast<Duration>(d), std::forward<X>(x));
}

}  // namespace actorscope
