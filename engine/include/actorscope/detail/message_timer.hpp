// MessageTimer: the timer behind send_interval and send_after. It builds each message with the
// user's function on a runtime thread, then queues it under the timer's lock.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/timer.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace actorscope::detail {

/// A function that builds a message of type M.
template <class F, class M>
concept message_builder = std::invocable<F&> && std::constructible_from<M, std::invoke_result_t<F&>>;

template <class M, class F>
class MessageTimer final : public TimerCore {
 public:
  MessageTimer(Kind kind, Ref<CellCore> target, Duration period, MissedTick policy, F make)
      : TimerCore(kind, std::move(target), period, policy), make_(std::move(make)) {}

 private:
  // staged_ has one user at a time: a firing stages, delivers (emptying it) and only then arms
  // the next deadline; drop_staged runs only for a firing that armed none.
  bool stage(std::string& error) noexcept override {
    try {
      staged_.emplace(make_());
      return true;
    } catch (...) {
      error = describe_current_exception();
      return false;
    }
  }
  bool deliver(CellCore& target) noexcept override {
    // A timer never waits: a full bounded mailbox applies its drop or reject policy (a backpressured
    // one refuses), and the refused tick is counted in the target's statistics, not retried.
    auto sent = static_cast<TypedCell<M>&>(target).send(std::move(*staged_), nullptr, SendMode::no_wait);
    if (sent || sent.error().kind() != SendFailure::stopped) {
      staged_.reset();
      return true;
    }
    *staged_ = std::move(sent.error().message());  // destroyed by drop_staged, outside the lock
    return false;
  }
  void drop_staged() noexcept override { staged_.reset(); }

  F make_;
  std::optional<M> staged_;
};

}  // namespace actorscope::detail
