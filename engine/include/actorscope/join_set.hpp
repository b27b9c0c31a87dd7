// JoinSet<T>: a set of spawned tasks (or other join handles) that yields their results in the order
// they finish. Aborting the set, or destroying it, aborts everything still running.
#pragma once

#include <actorscope/completion.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/system.hpp>

#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace actorscope {

template <class T>
class JoinSet {
 public:
  using result_type = Expected<T, JoinError>;

  explicit JoinSet(System& system) : system_(system), shared_(make_ref<Shared>()) {}
  JoinSet(const JoinSet&) = delete;
  JoinSet& operator=(const JoinSet&) = delete;
  ~JoinSet() { abort_all(); }

  /// Spawns `fn` as a task (see System::spawn_task) and adds it.
  template <class F>
  void spawn(F&& fn) {
    add(system_.spawn_task(std::forward<F>(fn)));
  }

  /// Adds a handle; its result will come out of join_next.
  void add(JoinHandle<T> handle) {
    const std::size_t slot = handles_.size();
    handles_.push_back(handle);
    ++pending_;
    handle.on_finished([shared = shared_, slot](const result_type&) { shared->finished(slot); });
  }

  /// Results not yet taken by join_next.
  std::size_t size() const noexcept { return pending_; }
  bool empty() const noexcept { return pending_ == 0; }

  /// Blocks until the next member finishes and returns its result; nullopt if the set is empty or
  /// `timeout` passed first. Only outside actors; a coroutine uses `co_await set.next()`.
  std::optional<result_type> join_next(Duration timeout = no_timeout) {
    Runtime& rt = system_.runtime();
    const TimePoint deadline = deadline_after(rt.now(), timeout);
    for (;;) {
      if (pending_ == 0) return std::nullopt;
      Ref<Signal> signal;
      if (auto slot = shared_->pop_or_arm(signal)) return take(*slot);
      if (!signal->done.wait_until(rt, deadline, "JoinSet::join_next")) {
        shared_->disarm();
        if (auto slot = shared_->pop()) return take(*slot);
        return std::nullopt;
      }
    }
  }

  /// co_await set.next(timeout): the next result, without blocking the thread.
  Task<std::optional<result_type>> next(Duration timeout = no_timeout) {
    Runtime& rt = system_.runtime();
    const TimePoint deadline = deadline_after(rt.now(), timeout);
    for (;;) {
      if (pending_ == 0) co_return std::nullopt;
      Ref<Signal> signal;
      if (auto slot = shared_->pop_or_arm(signal)) co_return take(*slot);
      Duration left = no_timeout;
      if (deadline != TimePoint::max()) {
        const TimePoint now = rt.now();
        left = deadline > now ? deadline - now : Duration::zero();
      }
      if (!co_await detail::CompletionAwaiter(signal->done, left)) {
        shared_->disarm();
        if (auto slot = shared_->pop()) co_return take(*slot);
        co_return std::nullopt;
      }
    }
  }

  /// Aborts every member that has not finished. Their results (aborted) still come out of join_next.
  void abort_all() noexcept {
    for (auto& h : handles_)
      if (h && !h.is_finished()) h.abort();
  }

 private:
  struct Signal : RefCounted {
    Completion done;
  };
  // Shared with the members' completion callbacks, which run on other threads.
  struct Shared : RefCounted {
    void finished(std::size_t slot) {
      Ref<Signal> signal;
      {
        std::lock_guard lk(m);
        ready.push_back(slot);
        signal = std::move(waiting);
      }
      if (signal) signal->done.complete();
    }
    std::optional<std::size_t> pop_or_arm(Ref<Signal>& signal) {
      std::lock_guard lk(m);
      if (!ready.empty()) return pop_locked();
      waiting = make_ref<Signal>();
      signal = waiting;
      return std::nullopt;
    }
    std::optional<std::size_t> pop() {
      std::lock_guard lk(m);
      return ready.empty() ? std::nullopt : pop_locked();
    }
    void disarm() {
      std::lock_guard lk(m);
      waiting.reset();
    }
    std::optional<std::size_t> pop_locked() {
      std::size_t s = ready.front();
      ready.pop_front();
      return s;
    }
    std::mutex m;
    std::deque<std::size_t> ready;
    Ref<Signal> waiting;
  };

  result_type take(std::size_t slot) {
    JoinHandle<T> h = std::move(handles_[slot]);
    handles_[slot] = JoinHandle<T>();
    --pending_;
    return h.state()->take_result();
  }

  System& system_;
  Ref<Shared> shared_;
  std::vector<JoinHandle<T>> handles_;
  std::size_t pending_ = 0;
};

}  // namespace actorscope
