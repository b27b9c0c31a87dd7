// Cell<A>: an actor of type A. It holds the actor object, its arguments until pre_start and its
// state after, and turns each lifecycle step into a call of A's hook (plain or coroutine).
#pragma once

#include <actorscope/actor.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/expected.hpp>

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace actorscope::detail {

template <class T>
struct is_expected : std::false_type {};
template <class T, class E>
struct is_expected<Expected<T, E>> : std::true_type {};

template <class A>
class Cell final : public TypedCell<message_t<A>> {
  using M = message_t<A>;
  using S = state_t<A>;
  using Args = arguments_t<A>;

  static_assert(requires { typename A::Message; }, "an actor type must name its message type: using Message = ...;");
  static_assert(requires(A& a, Context<A>& c, M& m, S& s) { a.handle(c, std::move(m), s); } ||
                    requires(A& a, Context<A>& c, M& m, S& s) { a.handle(c, m, s); },
                "an actor must define handle(Context<Self>&, Message, State&), returning void or as::Task<>");

 public:
  Cell(SystemCore& sys, A actor, Args args, CellConfig config)
      : TypedCell<M>(sys, std::move(config)), actor_(std::move(actor)), args_(std::move(args)), ctx_(*this) {}
  ~Cell() override { this->dispose(); }

 private:
  template <class F>
  HookResult invoke(F&& hook) noexcept {
    try {
      using R = decltype(hook());
      if constexpr (std::is_void_v<R>) {
        hook();
        return HookResult::ok();
      } else {
        static_assert(std::is_same_v<R, Task<>>, "a hook returns void or as::Task<>");
        auto frame = hook().release();
        return this->start_task(frame, frame.promise());
      }
    } catch (const std::exception& e) {  // its what() directly: describe_current_exception would rethrow it
      return this->fail(e.what());
    } catch (...) {
      return this->fail(describe_current_exception());
    }
  }

  template <class R>
  HookResult adopt_state(R&& r) {
    using V = std::remove_cvref_t<R>;
    if constexpr (is_expected<V>::value) {
      if (!r) return this->fail(describe_error(r.error()));
      state_.emplace(std::move(*r));
    } else {
      static_assert(std::is_constructible_v<S, R&&>, "pre_start must return the actor's State (or an Expected of it)");
      state_.emplace(std::forward<R>(r));
    }
    return HookResult::ok();
  }

  HookResult run_pre_start() noexcept override {
    try {
      HookResult r;
      if constexpr (requires(A& a, Context<A>& c, Args&& x) { a.pre_start(c, std::move(x)); }) {
        r = adopt_state(actor_.pre_start(ctx_, std::move(*args_)));
      } else if constexpr (requires(A& a, Context<A>& c) { a.pre_start(c); }) {
        r = adopt_state(actor_.pre_start(ctx_));
      } else {
        static_assert(std::is_default_constructible_v<S>,
                      "an actor whose State is not default-constructible must define "
                      "pre_start(Context<Self>&, Arguments) returning its State");
        state_.emplace();
      }
      args_.reset();
      return r;
    } catch (const std::exception& e) {  // its what() directly: describe_current_exception would rethrow it
      return this->fail(e.what());
    } catch (...) {
      return this->fail(describe_current_exception());
    }
  }

  // A hook that exists by name but cannot be called as documented is a compile error, not a
  // silent fallback to the default.
  static constexpr bool kHasPostStart = requires(A& a, Context<A>& c, S& s) { a.post_start(c, s); };
  static constexpr bool kHasPostStop = requires(A& a, Context<A>& c, S& s) { a.post_stop(c, s); };
  static constexpr bool kHasSupervisorHandler = requires(A& a, Context<A>& c, SupervisionEvent& e, S& s) {
    a.handle_supervisor_event(c, e, s);
  };
  static_assert(kHasPostStart || !requires { &A::post_start; },
                "post_start must be callable as post_start(Context<Self>&, State&)");
  static_assert(kHasPostStop || !requires { &A::post_stop; },
                "post_stop must be callable as post_stop(Context<Self>&, State&)");
  static_assert(kHasSupervisorHandler || !requires { &A::handle_supervisor_event; },
                "handle_supervisor_event must be callable as handle_supervisor_event(Context<Self>&, "
                "const SupervisionEvent&, State&)");
  static_assert(!requires { &A::pre_start; } ||
                    requires(A& a, Context<A>& c, Args&& x) { a.pre_start(c, std::move(x)); } ||
                    requires(A& a, Context<A>& c) { a.pre_start(c); },
                "pre_start must be callable as pre_start(Context<Self>&, Arguments) or pre_start(Context<Self>&)");

  HookResult run_post_start() noexcept override {
    if constexpr (kHasPostStart) {
      return invoke([this]() -> decltype(auto) { return actor_.post_start(ctx_, *state_); });
    } else {
      return HookResult::ok();
    }
  }

  HookResult run_message(MailboxNode& n) noexcept override {
    M& m = static_cast<Envelope<M>&>(n).message;
    return invoke([this, &m]() -> decltype(auto) {
      if constexpr (requires { actor_.handle(ctx_, std::move(m), *state_); }) {
        return actor_.handle(ctx_, std::move(m), *state_);
      } else {
        return actor_.handle(ctx_, m, *state_);
      }
    });
  }

  HookResult run_supervision(SupervisionEvent& e) noexcept override {
    if constexpr (kHasSupervisorHandler) {
      return invoke([this, &e]() -> decltype(auto) {
        if constexpr (requires { actor_.handle_supervisor_event(ctx_, std::move(e), *state_); }) {
          return actor_.handle_supervisor_event(ctx_, std::move(e), *state_);
        } else {
          return actor_.handle_supervisor_event(ctx_, e, *state_);
        }
      });
    } else {
      return invoke([this, &e] { default_supervision(*this, e); });
    }
  }

  HookResult run_post_stop() noexcept override {
    if constexpr (kHasPostStop) {
      return invoke([this]() -> decltype(auto) { return actor_.post_stop(ctx_, *state_); });
    } else {
      return HookResult::ok();
    }
  }

  BoxedState take_state() noexcept override {
    if constexpr (std::is_move_constructible_v<S>) {
      if (!state_) return {};
      try {
        BoxedState b = BoxedState::make(std::move(*state_));
        state_.reset();
        return b;
      } catch (...) {
        return {};
      }
    } else {
      return {};
    }
  }
  void destroy_state() noexcept override { state_.reset(); }

  A actor_;
  std::optional<Args> args_;
  std::optional<S> state_;
  Context<A> ctx_;
};

}  // namespace actorscope::detail
