// Task<T>: the coroutine type for handlers and helpers. A Task is lazy, owns its frame, and runs
// inside an execution context (an actor or a task cell) that it inherits from whoever awaits it.
// Everything a Task awaits resumes it on that context's thread, so actor state stays single-threaded.
#pragma once

#include <actorscope/wait.hpp>

#include <coroutine>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

namespace actorscope {

template <class T = void>
class Task;

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation{};
  ExecContext* ctx = nullptr;
  std::exception_ptr exception{};

  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> done) noexcept {
      std::coroutine_handle<> next = done.promise().continuation;
      return next ? next : std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };

  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
};

/// The context of the coroutine that is suspending. Our awaitables only work inside a Task that
/// runs on an actor or a task cell.
template <class P>
ExecContext& context_of(std::coroutine_handle<P> h) {
  static_assert(std::is_base_of_v<PromiseBase, P>,
                "actorscope awaitables can only be awaited inside an as::Task<> coroutine");
  ExecContext* ctx = h.promise().ctx;
  if (ctx == nullptr)
    throw std::logic_error(
        "actorscope: an as::Task was resumed outside an actor. Return it from a handler, or start it "
        "with System::spawn_task, instead of resuming it by hand");
  return *ctx;
}

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using handle_type = std::coroutine_handle<promise_type>;

  Task() noexcept = default;
  explicit Task(handle_type h) noexcept : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Task() { reset(); }

  bool valid() const noexcept { return static_cast<bool>(h_); }
  bool done() const noexcept { return h_ && h_.done(); }

  /// Destroys the frame. A suspended frame may be destroyed: every awaitable of the engine
  /// unregisters itself when it is destroyed, so nothing resumes it later.
  void reset() noexcept {
    if (h_) std::exchange(h_, {}).destroy();
  }

  // -- awaiting a Task from another Task: the child inherits the parent's context --
  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    h_.promise().continuation = parent;
    h_.promise().ctx = parent.promise().ctx;
    return h_;
  }
  T await_resume() { return take_result(); }

  // -- for the engine --
  handle_type handle() const noexcept { return h_; }
  handle_type release() noexcept { return std::exchange(h_, {}); }

  /// The result of a finished task; rethrows what the coroutine threw.
  T take_result() {
    promise_type& p = h_.promise();
    if (p.exception) std::rethrow_exception(p.exception);
    if constexpr (!std::is_void_v<T>) return std::move(*p.value);
  }

 private:
  handle_type h_{};
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace actorscope
