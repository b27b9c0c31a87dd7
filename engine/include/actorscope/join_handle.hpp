// JoinHandle<T>: the handle to work that finishes once (an actor's exit, a spawned task's result).
// It can be polled, aborted without being consumed, waited on from outside the runtime, awaited
// from a coroutine, or told to run a callback or send a message when the work is done.
#pragma once

#include <actorscope/completion.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/task.hpp>
#include <actorscope/wait.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace actorscope {

/// Why joined work has no result.
struct JoinError {
  enum class Kind : std::uint8_t {
    aborted,  ///< abort() was called (or the work was killed) before it finished
    failed,   ///< the work threw; `message` is the exception's text
  };
  Kind kind = Kind::aborted;
  std::string message;
  const char* what() const noexcept { return message.c_str(); }
};

class JoinStateBase : public RefCounted {
 public:
  Completion& completion() noexcept { return done_; }
  bool is_finished() const noexcept { return done_.is_done(); }
  /// Stops the work (kills the actor or task). Finishing is still reported through the handle.
  virtual void abort() noexcept = 0;
  /// The runtime whose threads must not block on this work (and which drives manual waits).
  virtual Runtime& join_runtime() const noexcept = 0;

 protected:
  Completion done_;
};

template <class T>
class JoinState : public JoinStateBase {
 public:
  using result_type = Expected<T, JoinError>;
  JoinState() noexcept {}
  JoinState(const JoinState&) = delete;
  JoinState& operator=(const JoinState&) = delete;
  ~JoinState() {
    if (done_.is_done()) result_.value.~result_type();
  }
  /// Precondition: is_finished().
  const result_type& result() const noexcept { return result_.value; }
  result_type take_result() { return std::move(result_.value); }

 protected:
  /// Publishes the result and wakes every waiter. Call once.
  void set_result(result_type r) noexcept {
    std::construct_at(&result_.value, std::move(r));
    done_.complete();
  }

 private:
  // Made by set_result; the completion says whether it is there, so it needs no flag of its own
  // (an optional's: 8 bytes of every actor, whose cell is a JoinState).
  union Slot {
    Slot() noexcept {}
    ~Slot() {}
    result_type value;
  } result_;
};

namespace detail {
/// Awaits a Completion from a coroutine, optionally with a timeout. Resumes true if it completed.
class CompletionAwaiter {
 public:
  CompletionAwaiter(Completion& c, Duration timeout) noexcept : c_(c), timeout_(timeout) {}
  CompletionAwaiter(CompletionAwaiter&& o) noexcept
      : c_(o.c_), timeout_(o.timeout_), wait_(std::exchange(o.wait_, nullptr)) {}
  CompletionAwaiter& operator=(CompletionAwaiter&&) = delete;
  ~CompletionAwaiter() { finish_wait(wait_, &c_); }

  bool await_ready() const noexcept { return c_.is_done(); }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    ExecContext& ctx = context_of(h);
    wait_ = new Wait(ctx, h);
    wait_->retain();  // the completion's reference, dropped by notify() or remove()
    if (!c_.add(*wait_)) {
      wait_->release();
      finish_wait(wait_);
      return false;
    }
    if (timeout_ != no_timeout) wait_->arm_timer(deadline_after(ctx.runtime().now(), timeout_));
    return true;
  }
  bool await_resume() noexcept {
    finish_wait(wait_, &c_);
    return c_.is_done();
  }

 private:
  Completion& c_;
  Duration timeout_;
  Wait* wait_ = nullptr;
};
}  // namespace detail

template <class T>
class JoinHandle {
 public:
  using result_type = Expected<T, JoinError>;

  JoinHandle() noexcept = default;
  explicit JoinHandle(Ref<JoinState<T>> state) noexcept : s_(std::move(state)) {}

  explicit operator bool() const noexcept { return static_cast<bool>(s_); }

  /// @thread any
  bool is_finished() const noexcept { return s_->is_finished(); }
  /// Stops the work; the handle stays usable and reports the outcome. @thread any
  void abort() const noexcept { s_->abort(); }

  /// Blocks until the work is done or `timeout` passes; true if done. Not on an actor thread.
  bool wait(Duration timeout = no_timeout) const {
    Runtime& rt = s_->join_runtime();
    return s_->completion().wait_until(rt, deadline_after(rt.now(), timeout), "JoinHandle::wait");
  }

  /// The outcome. Throws std::logic_error if the work has not finished.
  const result_type& result() const {
    if (!is_finished())
      throw std::logic_error("JoinHandle::result() was called before the work finished; wait() or co_await join() first");
    return s_->result();
  }

  /// Calls `fn(result)` once the work is done: now if it already is, otherwise on the finishing
  /// thread (keep it short and thread-safe).
  template <class F>
  void on_finished(F&& fn) const {
    JoinState<T>* s = s_.get();  // alive while its completion runs callbacks
    s->completion().on_done([s, f = std::forward<F>(fn)]() mutable { f(s->result()); });
  }

  /// Sends `map(result)` to `target` (anything with cast) once the work is done.
  template <class Target, class F>
  void notify(Target target, F&& map) const {
    on_finished([t = std::move(target), m = std::forward<F>(map)](const result_type& r) mutable {
      (void)t.cast(m(r));
    });
  }

  /// co_await handle.join(): waits without blocking the thread; gives the result.
  auto join() const {
    struct Awaiter : detail::CompletionAwaiter {
      Awaiter(Ref<JoinState<T>> s) : detail::CompletionAwaiter(s->completion(), no_timeout), s(std::move(s)) {}
      const result_type& await_resume() noexcept {
        detail::CompletionAwaiter::await_resume();
        return s->result();
      }
      Ref<JoinState<T>> s;
    };
    return Awaiter(s_);
  }

  /// co_await handle.join_for(d): true if the work finished within `d`.
  auto join_for(Duration timeout) const {
    struct Awaiter : detail::CompletionAwaiter {
      Awaiter(Ref<JoinState<T>> s, Duration d) : detail::CompletionAwaiter(s->completion(), d), s(std::move(s)) {}
      Ref<JoinState<T>> s;
    };
    return Awaiter(s_, timeout);
  }

  JoinState<T>* state() const noexcept { return s_.get(); }

 private:
  Ref<JoinState<T>> s_;
};

}  // namespace actorscope
