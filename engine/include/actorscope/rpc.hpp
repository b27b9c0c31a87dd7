// RPC beyond one call: multi_call asks several actors at once and keeps their answers in input
// order, each with its own outcome; call_and_forward sends a call and forwards the mapped reply to
// another actor. (A single call is ActorRef::call, in reply.hpp and actor_ref.hpp.)
#pragma once

#include <actorscope/actor_ref.hpp>
#include <actorscope/detail/core_access.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/system.hpp>
#include <actorscope/task.hpp>

#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace actorscope {

/// Calls in flight to several actors. get() blocks (only outside actors); co_await waits without
/// blocking. Every call has the same timeout, counted from when it was sent.
template <class T>
class [[nodiscard]] PendingMultiCall {
 public:
  explicit PendingMultiCall(std::vector<PendingCall<T>> calls) noexcept : calls_(std::move(calls)) {}

  std::size_t size() const noexcept { return calls_.size(); }

  /// One result per target, in the order of the targets. Throws BlockingWaitError on an actor
  /// thread: co_await the multi_call there instead.
  std::vector<CallResult<T>> get() {
    if (detail::this_thread_runs_actors()) throw BlockingWaitError("multi_call(...).get()");
    std::vector<CallResult<T>> out;
    out.reserve(calls_.size());
    // The deadlines are absolute, so waiting in turn never waits longer than the timeout.
    for (PendingCall<T>& call : calls_) out.push_back(call.get());
    calls_.clear();
    return out;
  }

  Task<std::vector<CallResult<T>>> operator co_await() && { return await_all(std::move(calls_)); }

 private:
  static Task<std::vector<CallResult<T>>> await_all(std::vector<PendingCall<T>> calls) {
    std::vector<CallResult<T>> out;
    out.reserve(calls.size());
    for (PendingCall<T>& call : calls) out.push_back(co_await std::move(call));
    co_return out;
  }

  std::vector<PendingCall<T>> calls_;
};

/// Sends the request built by `builder` to every target first, then lets the caller wait for all
/// the replies. A target that is not running gives its own sender error; the others are unaffected.
/// ```cpp context=outside
/// std::vector<as::CallResult<std::string>> statuses = as::multi_call(workers, as::rpc<Status>, 1s).get();
/// ```
/// ```cpp context=handler
/// std::vector<as::CallResult<int>> totals = co_await as::multi_call(counters, as::rpc<Get>, 1s);
/// ```
template <class M, class B>
PendingMultiCall<detail::reply_type_t<B>> multi_call(const std::vector<ActorRef<M>>& targets, B&& builder,
                                                     Duration timeout = no_timeout) {
  using T = detail::reply_type_t<B>;
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (!targets[i])
      throw CallError(CallStatus::sender_error, "multi_call: target #" + std::to_string(i) +
                                                    " is an empty handle; pass handles returned by spawn");
  std::vector<PendingCall<T>> calls;
  calls.reserve(targets.size());
  for (const ActorRef<M>& target : targets) calls.push_back(target.call(builder, timeout));
  return PendingMultiCall<T>(std::move(calls));
}

/// What became of a call_and_forward.
enum class ForwardStatus : std::uint8_t {
  forwarded,     ///< the callee replied and the mapped reply was queued at the forward target
  refused,       ///< the callee replied, but the forward target no longer takes messages
  timeout,       ///< no reply within the timeout: nothing was forwarded
  sender_error,  ///< the callee could not or did not reply: nothing was forwarded
};

struct ForwardResult {
  ForwardStatus status = ForwardStatus::sender_error;
  std::string error;  ///< why it was not forwarded ("" when it was)
  explicit operator bool() const noexcept { return status == ForwardStatus::forwarded; }
};

/// Calls `callee` and, if it replies in time, casts `map(reply)` to `forward_to`. The request is
/// sent now; the wait happens in a task of the callee's System, whose handle tells the outcome
/// (abort() gives up on the reply). Nothing is forwarded unless the call succeeds.
template <class M, class B, class N, class F>
  requires std::constructible_from<N, std::invoke_result_t<F&, detail::reply_type_t<B>&&>>
JoinHandle<ForwardResult> call_and_forward(const ActorRef<M>& callee, B&& builder, const ActorRef<N>& forward_to,
                                           F map, Duration timeout = no_timeout) {
  using T = detail::reply_type_t<B>;
  if (!callee || !forward_to)
    throw CallError(CallStatus::sender_error,
                    "call_and_forward: an actor handle is empty; pass handles returned by spawn");
  PendingCall<T> pending = callee.call(std::forward<B>(builder), timeout);
  System& system = detail::CoreAccess::cell(callee)->system().owner();
  return system.spawn_task(
      [pending = std::move(pending), to = forward_to, map = std::move(map)]() mutable -> Task<ForwardResult> {
        CallResult<T> reply = co_await std::move(pending);
        if (reply.is_timeout()) co_return ForwardResult{ForwardStatus::timeout, reply.error()};
        if (!reply) co_return ForwardResult{ForwardStatus::sender_error, reply.error()};
        auto sent = to.cast(map(std::move(*reply)));
        if (!sent) co_return ForwardResult{ForwardStatus::refused, sent.error().what()};
        co_return ForwardResult{ForwardStatus::forwarded, {}};
      });
}

}  // namespace actorscope
