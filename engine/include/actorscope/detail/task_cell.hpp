// TaskCell: runs one spawned task (a function or a coroutine) as a lightweight cell, so a task gets
// the same scheduling, wakes, abort (kill) and shutdown handling as an actor.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/join_handle.hpp>

#include <exception>
#include <mutex>
#include <type_traits>
#include <utility>

namespace actorscope::detail {

template <class F>
struct task_result {
  using type = std::invoke_result_t<F&>;
};
template <class F>
  requires requires { typename std::invoke_result_t<F&>::promise_type; }
struct task_result<F> {
  using type = decltype(std::declval<std::invoke_result_t<F&>&>().take_result());
};
template <class F>
using task_result_t = typename task_result<F>::type;

template <class P, bool coroutine>
struct frame_of {
  using type = int;
};
template <class P>
struct frame_of<P, true> {
  using type = typename P::handle_type;
};

template <class T>
class TaskJoinState final : public JoinState<T> {
 public:
  explicit TaskJoinState(Runtime& rt) noexcept : rt_(rt) {}
  void abort() noexcept override {
    std::lock_guard lk(m_);
    if (runner_) runner_->request_kill();
  }
  Runtime& join_runtime() const noexcept override { return rt_; }

  void attach(CellCore& runner) {
    std::lock_guard lk(m_);
    runner_ = Ref<CellCore>(&runner);
  }
  void publish(typename JoinState<T>::result_type r) noexcept {
    {
      std::lock_guard lk(m_);
      runner_.reset();
    }
    this->set_result(std::move(r));
  }

 private:
  Runtime& rt_;
  std::mutex m_;
  Ref<CellCore> runner_;  // cleared when the task exits
};

template <class F>
class TaskCell final : public CellCore {
  using Produced = std::invoke_result_t<F&>;
  static constexpr bool kCoroutine = requires { typename Produced::promise_type; };

 public:
  using T = task_result_t<F>;

  TaskCell(SystemCore& sys, F fn, Ref<TaskJoinState<T>> out, Placement p)
      : CellCore(sys, CellConfig{{}, 64, p, &task_cell_type_v<F>, CellKind::task}),
        fn_(std::move(fn)),
        out_(std::move(out)) {}
  ~TaskCell() override { this->dispose(); }

 private:
  HookResult run_pre_start() noexcept override { return HookResult::ok(); }

  HookResult run_post_start() noexcept override {
    try {
      if constexpr (kCoroutine) {
        Produced task = fn_();
        frame_ = task.handle();
        auto h = task.release();
        return start_task(h, h.promise());  // on_task_finished stops the cell when the body is done
      } else if constexpr (std::is_void_v<T>) {
        fn_();
        value_.emplace();
      } else {
        value_.emplace(fn_());
      }
    } catch (const std::exception& e) {  // its what() directly: describe_current_exception would rethrow it
      return this->fail(e.what());
    } catch (...) {
      return this->fail(describe_current_exception());
    }
    return finished(HookResult::ok());
  }

  // The body is done (or suspended): a finished task stops itself.
  HookResult finished(HookResult r) noexcept {
    if (r.kind == HookResult::Kind::done) request_stop("task finished");
    return r;
  }

  void on_task_finished() noexcept override {
    if constexpr (kCoroutine) {
      auto& p = frame_.promise();
      if (!p.exception) {
        if constexpr (std::is_void_v<T>) {
          value_.emplace();
        } else {
          value_.emplace(std::move(*p.value));
        }
      }
      request_stop("task finished");
    }
  }

  void on_exit(const ActorExit& exit) noexcept override {
    using R = typename JoinState<T>::result_type;
    if (value_) {
      if constexpr (std::is_void_v<T>) {
        out_->publish(R{});
      } else {
        out_->publish(R(std::move(*value_)));
      }
    } else if (exit.kind == ExitKind::failed) {
      out_->publish(unexpected(JoinError{JoinError::Kind::failed, exit.reason}));
    } else {
      out_->publish(unexpected(JoinError{JoinError::Kind::aborted, "the task was aborted before it finished"}));
    }
  }

  HookResult run_message(MailboxNode&) noexcept override { return HookResult::ok(); }
  HookResult run_supervision(SupervisionEvent&) noexcept override { return HookResult::ok(); }
  HookResult run_post_stop() noexcept override { return HookResult::ok(); }
  void destroy_message(MailboxNode&) noexcept override {}
  std::string_view message_type(MailboxNode&) noexcept override { return {}; }
  BoxedState take_state() noexcept override { return {}; }
  void destroy_state() noexcept override {}

  struct Unit {};
  using Stored = std::conditional_t<std::is_void_v<T>, Unit, T>;
  F fn_;
  Ref<TaskJoinState<T>> out_;
  std::optional<Stored> value_;
  typename frame_of<Produced, kCoroutine>::type frame_{};
};

}  // namespace actorscope::detail
