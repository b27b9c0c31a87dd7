// SystemCore: the state one System owns and every cell shares: the runtime, the name registry,
// the supervision tree, the list of live cells, and the toolbox (process groups, monitors, timers). No hidden
// singletons: a fresh System is a fresh world, which is what tests rely on.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/actor_stats.hpp>
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/factory_probe.hpp>
#include <actorscope/detail/monitors.hpp>
#include <actorscope/detail/sticky_flag.hpp>
#include <actorscope/detail/timers.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/log.hpp>
#include <actorscope/observe/observer.hpp>
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
namespace observe {
class StatsPoller;
}
}  // namespace actorscope

namespace actorscope::detail {

#ifndef ACTORSCOPE_OBSERVE
#define ACTORSCOPE_OBSERVE 1
#endif
/// False when the build compiled observation out (CMake option ACTORSCOPE_WITH_OBSERVE=OFF): every
/// hook site is then discarded at compile time.
inline constexpr bool kObserve = ACTORSCOPE_OBSERVE != 0;

/// What the attached observers want, as bits a hook site tests with one relaxed load.
enum ObserveFlags : std::uint8_t {
  kObserved = 1,        ///< some observer is attached: lifecycle events flow
  kMessages = 2,        ///< message events
  kTiming = 4,          ///< read the clock around every message
  kTypeNames = 8,       ///< name message types
  kSampledTiming = 16,  ///< read the clock around the sampled messages only (never with kTiming)
};

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

  // -- observation (see observe/observer.hpp) --
  /// Hook sites test this first: zero when nothing is attached. @thread any
  std::uint8_t observing() const noexcept {
    if constexpr (!kObserve) return 0;
    return obs_flags_.load(std::memory_order_relaxed);
  }
  /// With kMessages or kSampledTiming: one message in this many per receiver is sampled.
  std::uint32_t sample_every() const noexcept { return obs_sample_.load(std::memory_order_relaxed); }
  /// A fresh id pairing a sampled message's send with its handling. @thread any
  std::uint64_t next_trace() noexcept { return next_trace_.fetch_add(1, std::memory_order_relaxed); }
  /// Stamps the sequence number (and the time, if unset) and hands the event to every observer.
  /// @thread any
  void emit_event(observe::Event& event) noexcept;
  void emit_event(observe::Event&& event) noexcept { emit_event(event); }
  /// Attaches an observer: it first receives the present (runtime_info, a spawned and started for
  /// every live actor, its names, group memberships and running timers), then everything as it
  /// happens.
  void attach(observe::Observer& observer);
  /// After it returns, the observer is never called again. False if it was not attached.
  bool detach(observe::Observer& observer) noexcept;

  // -- supervisors (any thread) --
  /// What an observer attaching later must hear of a live Supervisor: its supervisor_configured,
  /// each child line ending with the pid of the actor that runs that spec now.
  struct SupervisorPresent {
    observe::Event config;              ///< its text: the option lines ("backoff ..."), if any
    std::vector<std::string> children;  ///< "child\t<id>\t<restart>\t<shutdown>\t<kind>", one per spec
    std::vector<ActorId> actors;        ///< the actor running each spec now (0: none)
    /// The event: the child lines (with their pids), then the option lines.
    observe::Event event() const;
  };
  /// Keeps a live supervisor's configuration for later observers, and emits it if anyone observes.
  void supervisor_configured(SupervisorPresent present) noexcept;
  /// Spec `index` of `supervisor` now runs `actor` (0: none): kept for later observers only (live
  /// ones hear child_restarted and the exits).
  void supervisor_child_actor(ActorId supervisor, std::size_t index, ActorId actor) noexcept;
  /// The supervisor has exited: its configuration is no longer part of the present.
  void supervisor_gone(ActorId supervisor) noexcept;

  // -- statistics --
  /// Exact counters of every live actor, in spawn order.
  std::vector<ActorStats> stats() const;
  void add_poller(observe::StatsPoller& poller);
  void remove_poller(observe::StatsPoller& poller) noexcept;
  /// The live factories' counters and configurations (factory.hpp).
  FactoryProbes& factories() noexcept { return factories_; }

  // -- the toolbox (any thread) --
  ProcessGroups& groups() noexcept { return groups_; }
  Monitors& monitors() noexcept { return monitors_; }
  Timers& timers() noexcept { return timers_; }

  // -- called by cells --
  void on_stopping(CellCore& cell) noexcept;  // first move to stopping: frees the name, leaves groups
  void on_final_stats(const CellCore& cell) noexcept;  // an actor's counters are final: pollers keep them
  /// The cell's status is stopped and its exit is decided: tells its monitors and ends the timers
  /// aimed at it. Called once per cell, before it leaves the live list.
  void before_exit(CellCore& cell, const ActorExit& exit) noexcept;
  /// What an exiting cell leaves behind in the tree: its children (to kill) and its supervisor.
  struct Family {
    std::vector<Ref<CellCore>> children;
    Ref<CellCore> parent;
  };
  /// Takes an exiting cell out of the tree (its status is already stopping or beyond) and closes it
  /// to new children, in one critical section; no lock at all in a System that never linked.
  Family leave_tree(CellCore& cell) noexcept;
  /// Whether this System may have linked actors (a hint: a link may be racing).
  bool maybe_linked() const noexcept { return tree_used_.maybe_set(); }
  void cell_exited(CellCore& cell) noexcept;

 private:
  bool register_name(CellCore& cell);
  // Observation hooks (core/observation.cpp); the callers test observing() first.
  void observe_spawned(const CellCore& cell, const CellCore* supervisor) noexcept;  // and its name
  void observe_name_released(const CellCore& cell) noexcept;
  void observe_link(const CellCore& child, const CellCore& parent, bool linked) noexcept;
  /// Tells a newly attached observer what is already there (see attach). Holds observers_m_.
  void replay_present(observe::Observer& observer);
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
  // Set by the first link: until then no cell has a parent or children, and an exit skips the tree.
  StickyFlag tree_used_;
  std::condition_variable no_live_;
  // In spawn order; holds a reference to each cell until it exits. Mutable as struct_m_ is.
  mutable CellCore::LiveList live_;
  std::size_t live_actors_ = 0;
  std::size_t live_tasks_ = 0;
  std::atomic<std::size_t> live_total_{0};

  std::mutex log_m_;
  LogSink log_sink_;

  // Observers: an immutable set is published by pointer; emitters pin it with a count. A replaced
  // set is kept (not freed) until the System dies, so a late emitter never touches freed memory.
  struct ObserverSet {
    std::vector<observe::Observer*> observers;
    std::atomic<std::uint32_t> emitting{0};
  };
  void publish_observers(std::vector<observe::Observer*> list);
  std::mutex observers_m_;  // serialises attach and detach; never held while emitting
  std::atomic<ObserverSet*> observer_set_{nullptr};
  std::vector<std::unique_ptr<ObserverSet>>
      observer_sets_;  // every set ever published (guarded by observers_m_)
  std::atomic<std::uint8_t> obs_flags_{0};
  std::atomic<std::uint32_t> obs_sample_{1};
  std::atomic<std::uint64_t> event_seq_{0};
  std::atomic<std::uint64_t> next_trace_{1};

  std::mutex supervisors_m_;
  std::vector<SupervisorPresent> supervisors_;  // one per live Supervisor (few)

  FactoryProbes factories_;
  mutable std::mutex pollers_m_;
  std::vector<observe::StatsPoller*> pollers_;
  std::atomic<bool> has_pollers_{false};
  // The toolbox. Each has its own lock, taken with no other engine lock held (see ARCHITECTURE.md).
  ProcessGroups groups_{*this};
  Monitors monitors_;
  Timers timers_{*this};
};

}  // namespace actorscope::detail
