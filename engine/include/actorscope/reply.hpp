// RPC: a call carries a Reply<T> port inside the message; the callee answers through it. The caller
// gets a CallResult that tells Success, Timeout and SenderError apart. The port carries the caller's
// deadline so the callee can budget its work, and a port dropped without an answer fails the call
// at once instead of letting it hang.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/completion.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/task.hpp>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace actorscope {

enum class CallStatus : std::uint8_t {
  success,       ///< the callee replied
  timeout,       ///< no reply before the caller's deadline
  sender_error,  ///< the callee could not or did not reply (not running, dropped the port, failed)
};

/// Thrown by CallResult::value() when the call did not succeed.
class CallError : public std::runtime_error {
 public:
  CallError(CallStatus status, const std::string& text) : std::runtime_error(text), status_(status) {}
  CallStatus status() const noexcept { return status_; }

 private:
  CallStatus status_;
};

template <class T>
class CallResult {
 public:
  static CallResult success(T value) { return CallResult(CallStatus::success, std::move(value), {}); }
  static CallResult timeout(std::string text) { return CallResult(CallStatus::timeout, std::nullopt, std::move(text)); }
  static CallResult sender_error(std::string text) {
    return CallResult(CallStatus::sender_error, std::nullopt, std::move(text));
  }

  CallStatus status() const noexcept { return status_; }
  bool is_success() const noexcept { return status_ == CallStatus::success; }
  bool is_timeout() const noexcept { return status_ == CallStatus::timeout; }
  bool is_sender_error() const noexcept { return status_ == CallStatus::sender_error; }
  explicit operator bool() const noexcept { return is_success(); }

  T& operator*() & noexcept { return *value_; }
  const T& operator*() const& noexcept { return *value_; }
  T* operator->() noexcept { return &*value_; }
  const T* operator->() const noexcept { return &*value_; }
  /// The reply; throws CallError (with the reason) if the call did not succeed.
  T& value() & { return check(), *value_; }
  const T& value() const& { return check(), *value_; }
  T&& value() && { return check(), std::move(*value_); }
  template <class U>
  T value_or(U&& fallback) const& {
    return is_success() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }
  /// Why the call failed ("" on success).
  const std::string& error() const noexcept { return error_; }

 private:
  CallResult(CallStatus s, std::optional<T> v, std::string e) : status_(s), value_(std::move(v)), error_(std::move(e)) {}
  void check() const {
    if (!is_success()) throw CallError(status_, error_);
  }
  CallStatus status_;
  std::optional<T> value_;
  std::string error_;
};

namespace detail {
template <class T>
class ReplyState final : public RefCounted {
 public:
  ReplyState(Runtime& rt, ActorId target, Duration timeout)
      : rt_(rt), target_(target), timeout_(timeout), deadline_(deadline_after(rt.now(), timeout)) {}

  /// The first outcome wins: a reply, an error, or the caller giving up. @thread any
  bool set_value(T&& v) {
    if (!claim()) return false;
    value_.emplace(std::move(v));
    done_.complete();
    return true;
  }
  bool set_error(std::string text) {
    if (!claim()) return false;
    error_ = std::move(text);
    done_.complete();
    return true;
  }
  /// The caller stops waiting. False if an outcome was already claimed (it is then about to be
  /// published, and the caller should take it).
  bool abandon() noexcept {
    std::uint8_t expected = kOpen;
    return state_.compare_exchange_strong(expected, kAbandoned, std::memory_order_acq_rel);
  }
  bool is_open() const noexcept { return state_.load(std::memory_order_acquire) == kOpen; }

  Completion& completion() noexcept { return done_; }
  Runtime& runtime() const noexcept { return rt_; }
  ActorId target() const noexcept { return target_; }
  TimePoint deadline() const noexcept { return deadline_; }
  Duration timeout() const noexcept { return timeout_; }

  /// After completion.
  CallResult<T> take_result() {
    if (value_) return CallResult<T>::success(std::move(*value_));
    return CallResult<T>::sender_error(error_);
  }
  CallResult<T> timeout_result() const {
    return CallResult<T>::timeout(
        "no reply from actor " + target_.to_string() + " within " +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(timeout_).count()) + " ms");
  }

 private:
  bool claim() noexcept {
    std::uint8_t expected = kOpen;
    return state_.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel);
  }
  static constexpr std::uint8_t kOpen = 0, kClaimed = 1, kAbandoned = 2;
  Runtime& rt_;
  ActorId target_;
  Duration timeout_;
  TimePoint deadline_;
  std::atomic<std::uint8_t> state_{kOpen};
  Completion done_;
  std::optional<T> value_;
  std::string error_;
};
}  // namespace detail

/// The reply port of one call. Move-only; answer it once with send().
template <class T>
class Reply {
 public:
  using value_type = T;

  explicit Reply(Ref<detail::ReplyState<T>> state) noexcept : st_(std::move(state)) {}
  Reply(Reply&&) noexcept = default;
  Reply& operator=(Reply&& o) noexcept {
    if (this != &o) {
      drop();
      st_ = std::move(o.st_);
    }
    return *this;
  }
  ~Reply() { drop(); }

  /// Answers the call. True if the caller will see this value; false if it already gave up
  /// (timed out) or the port was already used.
  bool send(T value) {
    if (!st_) return false;
    const bool delivered = st_->set_value(std::move(value));
    st_.reset();
    return delivered;
  }
  /// The caller has stopped waiting; any work for it is wasted.
  bool is_closed() const noexcept { return !st_ || !st_->is_open(); }
  /// When the caller gives up (TimePoint::max() if it waits no_timeout), on the runtime's clock.
  TimePoint deadline() const noexcept { return st_ ? st_->deadline() : TimePoint::max(); }
  /// Time left before the caller gives up.
  Duration remaining() const noexcept {
    if (!st_ || st_->deadline() == TimePoint::max()) return no_timeout;
    const TimePoint now = st_->runtime().now();
    return st_->deadline() > now ? st_->deadline() - now : Duration::zero();
  }

 private:
  void drop() noexcept {
    if (st_)
      st_->set_error("actor " + st_->target().to_string() +
                     " dropped the reply port without replying (it stopped, failed, or discarded the request)");
    st_.reset();
  }
  Ref<detail::ReplyState<T>> st_;
};

/// An outstanding call. get() blocks (only outside actors); co_await waits without blocking.
template <class T>
class [[nodiscard]] PendingCall {
 public:
  explicit PendingCall(Ref<detail::ReplyState<T>> state) noexcept : st_(std::move(state)) {}

  /// Blocks until the reply, the timeout or a sender error. Throws BlockingWaitError on an actor
  /// thread: co_await the call there instead.
  CallResult<T> get() {
    if (st_->completion().wait_until(st_->runtime(), st_->deadline(), "call(...).get()")) return st_->take_result();
    if (st_->abandon()) return st_->timeout_result();
    // The reply was claimed just as we timed out; it is being published now.
    st_->completion().wait_until(st_->runtime(), TimePoint::max(), "call(...).get()");
    return st_->take_result();
  }

  Task<CallResult<T>> operator co_await() && { return await_reply(std::move(st_)); }

 private:
  static Task<CallResult<T>> await_reply(Ref<detail::ReplyState<T>> st) {
    // A frame destroyed before the outcome (as::timeout ran out around the call) gives the call up:
    // the callee's port closes. After an outcome, abandon() finds it claimed and changes nothing.
    struct GiveUpIfGone {
      detail::ReplyState<T>& st;
      ~GiveUpIfGone() { st.abandon(); }
    } give_up{*st};
    Duration left = no_timeout;
    if (st->deadline() != TimePoint::max()) {
      const TimePoint now = st->runtime().now();
      left = st->deadline() > now ? st->deadline() - now : Duration::zero();
    }
    if (co_await detail::CompletionAwaiter(st->completion(), left)) co_return st->take_result();
    if (st->abandon()) co_return st->timeout_result();
    co_await detail::CompletionAwaiter(st->completion(), no_timeout);
    co_return st->take_result();
  }

  Ref<detail::ReplyState<T>> st_;
};

/// `as::rpc<Get>` builds `Get{reply}` for a message whose reply port is its member `reply`.
template <class M>
struct RpcBuilder {};
template <class M>
inline constexpr RpcBuilder<M> rpc{};

namespace detail {
template <class F>
struct callable_reply;
template <class C, class R, class T>
struct callable_reply<R (C::*)(Reply<T>) const> {
  using type = T;
};
template <class C, class R, class T>
struct callable_reply<R (C::*)(Reply<T>)> {
  using type = T;
};

template <class B>
struct reply_type_of {
  using type = typename callable_reply<decltype(&std::remove_cvref_t<B>::operator())>::type;
};
template <class M>
struct reply_type_of<RpcBuilder<M>> {
  using type = typename std::remove_cvref_t<decltype(std::declval<M&>().reply)>::value_type;
};
template <class B>
using reply_type_t = typename reply_type_of<std::remove_cvref_t<B>>::type;

template <class M, class T>
M build_request(const RpcBuilder<M>&, Reply<T> reply) {
  return M{std::move(reply)};
}
template <class B, class T>
auto build_request(B& builder, Reply<T> reply) {
  return builder(std::move(reply));
}

/// A call of any typed handle, written once: builds the request (of type Msg) around a fresh reply
/// port, hands it to `send` (which returns the send's Expected), and returns the pending call. A
/// send that fails fails the call at once, with the send's reason.
template <class Msg, class B, class Send>
PendingCall<reply_type_t<B>> start_call(Runtime& rt, ActorId target, B& builder, Duration timeout, Send&& send) {
  using T = reply_type_t<B>;
  auto state = make_ref<ReplyState<T>>(rt, target, timeout);
  Msg request = build_request(builder, Reply<T>(state));
  if (auto sent = send(std::move(request)); !sent) {
    // Say why before the returned message (and the reply port inside it) is destroyed.
    state->set_error(std::string("call failed: ") + sent.error().what());
  }
  return PendingCall<T>(std::move(state));
}
}  // namespace detail

}  // namespace actorscope
