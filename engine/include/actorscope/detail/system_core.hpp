// SystemCore: the state one System owns and every cell shares: the runtime, the name registry,
// the supervision tree, the list of live cells, and the toolbox (process groups, monitors, timers). No hidden singletons: a fresh System is a
// fresh world, which is what tests rely on.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/monitors.hpp>
#include <actorscope/detail/timers.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/log.hpp>
#include <actorscope/process_groups.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/runtime.hpp>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope {
class System;
}

namespace actorscope::detail {

class CellCore;
enum class CellKind : std::uint8_t;

class SystemCore {
 public:
  SystemCore(std::unique_ptr<Runtime> runtime, System& owner);
  ~SystemCore();
  SystemCore(const SystemCore&) = delete;
  SystemCore& operator=(const SystemCore&) = delete;

  Runtime& runtime() const noexcept { return *runtime_; }
  System& owner() const noexcept { return owner_; }
  ActorId next_id() noexcept { return ActorId{0, next_pid_.fetch_add(1, std::memory_order_relaxed)}; }

  /// Registers the name, runs pre_start on this thread, links to `supervisor`, and schedules the
  /// first drain. On failure the cell is finished here and nothing is scheduled.
  Expected<void, SpawnError> start(CellCore& cell, CellCore* supervisor);

  // -- registry (any thread) --
  Ref<CellCore> lookup(std::string_view name) const;
  std::vector<std::string> names() const;

  // -- supervision tree (any thread) --
  Expected<void, LinkError> link(CellCore& child, CellCore& parent);
  bool unlink(CellCore& child, const CellCore& parent);
  Ref<CellCore> supervisor_of(const CellCore& cell) const;
  std::vector<ActorCell> children_of(const CellCore& cell) const;

  // -- live cells (any thread) --
  std::vector<ActorCell> live(CellKind kind) const;
  std::size_t live_count(CellKind kind) const;

  /// Refuses new spawns, stops the root actors gracefully, kills whatever is left once half the
  /// timeout has passed, waits for every cell to exit, then stops the runtime. True if every
  /// cell exited in time. Idempotent.
  bool shutdown(Duration timeout);

  // -- logging --
  void log(const CellCore* who, std::string_view text);
  void set_log_sink(LogSink sink);

  // -- the toolbox (any thread) --
  ProcessGroups& groups() noexcept { return groups_; }
  Monitors& monitors() noexcept { return monitors_; }
  Timers& timers() noexcept { return timers_; }

  // -- called by cells --
  void on_stopping(CellCore& cell) noexcept;  // first move to stopping: frees the name, leaves groups
  /// The cell's status is stopped and its exit is decided: tells its monitors and ends the timers
  /// aimed at it. Called once per cell, before it leaves the live list.
  void before_exit(CellCore& cell, const ActorExit& exit) noexcept;
  std::vector<Ref<CellCore>> detach_children(CellCore& parent) noexcept;
  Ref<CellCore> take_parent(CellCore& child) noexcept;
  void cell_exited(CellCore& cell) noexcept;

 private:
  bool register_name(CellCore& cell);
  void add_live(CellCore& cell);
  // Tree edits; the caller holds struct_m_. They return references the caller drops after unlocking.
  void attach_locked(CellCore& child, CellCore& parent) noexcept;
  CellCore* detach_locked(CellCore& child) noexcept;
  bool wait_until_no_live(TimePoint deadline);

  std::unique_ptr<Runtime> runtime_;
  System& owner_;
  std::atomic<std::uint64_t> next_pid_{1};
  std::atomic<bool> accepting_{true};
  std::atomic<bool> shut_down_{false};

  mutable std::mutex names_m_;
  std::map<std::string, CellCore*, std::less<>> names_;  // entries are removed before the cell exits

  // One mutex for the tree and the live list: links are rare next to messages, and a single lock
  // cannot be taken in two orders.
  mutable std::mutex struct_m_;
  std::condition_variable no_live_;
  CellCore* live_head_ = nullptr;
  std::size_t live_actors_ = 0;
  std::size_t live_tasks_ = 0;
  std::atomic<std::size_t> live_total_{0};

  std::mutex log_m_;
  LogSink log_sink_;

  // The toolbox. Each has its own lock, taken with no other engine lock held (see ARCHITECTURE.md).
  ProcessGroups groups_{*this};
  Monitors monitors_;
  Timers timers_{*this};
};

}  // namespace actorscope::detail
