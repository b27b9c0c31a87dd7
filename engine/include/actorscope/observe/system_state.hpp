// SystemState: the picture of a running (or recorded) actor system, built by folding events in
// order. Live views fold the events an EventCollector drains; replay folds events read back from a
// recording, from the nearest keyframe. Both use the same apply(), so they cannot disagree.
// A pure value: no engine pointers, no threads, copyable, comparable and serializable.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/actor_stats.hpp>
#include <actorscope/actor_status.hpp>
#include <actorscope/factory_stats.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/observe/histogram.hpp>

#include <boost/container/deque.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace actorscope::observe {

/// The short per-record lists (an actor's latest failures and history, a supervisor's restarts, a
/// factory's stuck reports and history): a deque that allocates nothing while it is empty and moves
/// without allocating. std::deque allocates a map and a 512-byte block as soon as it is made, and
/// again when it is moved: 1.1 KB and four allocations for an actor's two empty lists, which at
/// 10,000 actors was half of a replayed state's memory and most of its decoding and freeing time.
template <class T>
using RecordList = boost::container::deque<T>;

/// One bucket of exact per-actor statistics: what changed over (end - length, end], its counters
/// as ActorCounters describes a bucket's. Recordings store these in their actor_stats table;
/// StatsBucketer makes them from ActorStats polls.
struct StatsSample : ActorCounters {
  TimePoint end{};
  ActorId actor{};
  /// How long the hook running at `end` had held the actor's thread, counted from the first poll
  /// that saw it running (it began up to one poll earlier). Zero when no hook was running, or when
  /// it began after the previous poll.
  Duration busy{};

  friend bool operator==(const StatsSample&, const StatsSample&) = default;
};

/// One bucket of a factory's counters (factory.hpp): what changed over the poll that ends at `end`,
/// as FactoryCounters::since() makes it. Recordings store these in their factory_stats table;
/// FactoryBucketer makes them from StatsPoller::poll_factories().
struct FactorySample : FactoryCounters {
  TimePoint end{};
  ActorId factory{};

  friend bool operator==(const FactorySample&, const FactorySample&) = default;
};

struct FailureRecord {
  TimePoint time{};
  ActorId actor{};
  std::string error;
  friend bool operator==(const FailureRecord&, const FailureRecord&) = default;
};

/// An actor as the fold knows it. Its exact counters (the base) are the totals of its StatsSamples.
struct ActorRecord : ActorCounters {
  ActorId id{};
  ActorId parent{};             ///< the current supervisor (0 = a root)
  std::vector<ActorId> children;  ///< in link order; stopped children stay until pruned
  std::string name;
  std::string type_name;
  std::uint32_t thread = 0;  ///< its runtime host; no_thread until it starts, if the runtime chose late
  ActorStatus status = ActorStatus::starting;
  std::optional<ExitKind> exit_kind;
  std::string exit_reason;
  TimePoint spawned{};
  TimePoint stopped{};
  /// A Supervisor's child: the id of its child spec ("" when it is not one, or not known yet), how
  /// many times that child had been restarted when this actor was made (its child_restarted's
  /// attempt; 0 for the first), and the actor it replaced (0 for none).
  std::string child_id;
  std::uint32_t restarts = 0;
  ActorId replaces{};
  /// Its mailbox's capacity (0: unbounded) and what it does when full, from its mailbox_configured
  /// event (an actor without one is unbounded). Its drops and rejections are counters (the base).
  std::uint32_t mailbox_capacity = 0;
  Overflow overflow = Overflow::reject;

  /// How long the hook running now has held the actor's thread (StatsSample::busy); zero when none.
  Duration busy{};
  // From lifecycle events (never sampled).
  std::uint64_t child_failures = 0;
  std::uint64_t supervision_handled = 0;
  // From message events (sampled at the recording's detail level).
  std::uint64_t messages_observed = 0;
  std::uint64_t handler_failures = 0;
  LogHistogram queue_ns;
  LogHistogram handling_ns;
  /// This actor's own failure and its children's, newest last (the latest few, for their texts).
  RecordList<FailureRecord> recent_failures;

  /// What happened to its children, per history bucket: how many failed, and how many were spawned
  /// under it while a child failure was still within Limits::child_tally (replacements, whoever
  /// spawned them). Kept for Limits::child_tally, oldest first, one entry per bucket with something
  /// in it: exact counts over any window up to that span, in memory bounded by the span, however
  /// many children fail (the restart-storm warning and the views' "failures in the last 10 s").
  struct ChildTally {
    TimePoint bucket{};  ///< the start of its history bucket
    std::uint64_t failed = 0;
    std::uint64_t replacements = 0;
    friend bool operator==(const ChildTally&, const ChildTally&) = default;
  };
  std::vector<ChildTally> child_tally;  ///< (a vector: most actors have none, and it costs nothing then)

  /// Per-bucket history for sparklines and the warnings: messages handled in the bucket, the
  /// mailbox maximum, and the messages a bounded mailbox dropped and the sends it rejected.
  struct HistoryPoint {
    std::int64_t bucket = 0;  ///< time / history bucket length
    std::uint64_t handled = 0;
    std::uint64_t mailbox_max = 0;
    std::uint64_t dropped = 0;
    std::uint64_t rejected = 0;
    friend bool operator==(const HistoryPoint&, const HistoryPoint&) = default;
  };
  RecordList<HistoryPoint> history;

  bool alive() const noexcept { return status != ActorStatus::stopped; }
  friend bool operator==(const ActorRecord&, const ActorRecord&) = default;
};

/// A Supervisor as its supervisor_configured, child_restarted and supervisor_gave_up events
/// describe it: how it restarts, what its children are, and how close it is to giving up.
struct SupervisorRecord {
  /// One child spec (a `child` line of supervisor_configured).
  struct Child {
    std::string id;
    std::string restart;      ///< "permanent", "transient", "temporary"
    std::string shutdown;     ///< "brutal_kill", "infinity" or a timeout in ms ("5000")
    bool supervisor = false;  ///< a supervisor child (else a worker)
    /// The actor running it now (or last); 0 while not known, and for a simple_one_for_one's
    /// template, which all its children run.
    ActorId actor{};
    friend bool operator==(const Child&, const Child&) = default;
  };
  /// A `backoff` line: restarts wait between `min` and `max`, reset after `reset` of quiet.
  struct Backoff {
    Duration min{};
    Duration max{};
    Duration reset{};
    friend bool operator==(const Backoff&, const Backoff&) = default;
  };

  ActorId id{};
  std::string strategy;  ///< "one_for_one", "one_for_all", "rest_for_one", "simple_one_for_one"
  std::uint32_t max_restarts = 0;
  Duration period{};
  std::optional<Backoff> backoff;
  std::vector<Child> children;  ///< in spec order
  /// The supervisor_configured text as it came (its lines in full, unknown tags included).
  std::string specs;
  /// When its latest restarts happened, oldest first: those within `period` of the newest, and at
  /// most max_restarts + 1 of them (enough to tell the intensity at any time after).
  /// Counted as the Supervisor counts them: one per failure (not the siblings restarted with the
  /// child that failed, nor a restart_child), and one per retry of a child that could not start.
  RecordList<TimePoint> recent_restarts;
  /// Every child_restarted it sent: siblings, retries and restart_child included.
  std::uint64_t total_restarts = 0;
  /// Set when it exceeded its intensity (supervisor_gave_up): when, why, and the restarts counted.
  std::optional<TimePoint> gave_up;
  std::string gave_up_reason;
  std::uint32_t gave_up_restarts = 0;

  /// Restarts within `period` before `now` (at most max_restarts + 1): the "2" of "2 of 3 in 5 s".
  std::uint32_t restarts_within_period(TimePoint now) const noexcept;
  /// The child spec an actor runs, or nullptr.
  const Child* child_of(ActorId actor) const noexcept;
  friend bool operator==(const SupervisorRecord&, const SupervisorRecord&) = default;
};

/// A factory (factory.hpp) as its factory_configured and worker_stuck events and its samples
/// (FactorySample) describe it. Its counters (the base) are the totals of its samples (add()): the
/// sums since the observation began, the gauges as the latest sample said. Its name is its actor's
/// (SystemState::actor), and its workers are that actor's children.
struct FactoryRecord : FactoryCounters {
  /// How it is set up: the lines of its factory_configured text, parsed (see Event::factory_configured).
  struct Settings {
    /// `queue`: fifo, or a priority queue of `priority_levels` levels.
    bool priority = false;
    std::uint32_t priority_levels = 0;
    /// `discard`: "none", "static" or "dynamic"; the limit, and which job goes when it is reached.
    std::string discard = "none";
    std::uint64_t discard_limit = 0;
    bool discard_oldest = false;
    /// `dead_man`: its detection timeout (empty: no dead-man's switch), and whether a stuck worker
    /// is killed and replaced (else only reported).
    std::optional<Duration> dead_man;
    bool dead_man_kills = false;
    /// `rate`: at most `rate_jobs` jobs every `rate_per` (rate_jobs 0: not rate limited).
    std::uint64_t rate_jobs = 0;
    Duration rate_per{};
    /// `draining`: it takes no new work, finishes what it has, then stops.
    bool draining = false;
    friend bool operator==(const Settings&, const Settings&) = default;
  };
  /// A job the dead-man's switch found stuck (a worker_stuck event).
  struct Stuck {
    TimePoint time{};
    ActorId worker{};
    std::uint32_t worker_id = 0;
    std::string key;   ///< the job's key as text ("?" when it cannot be printed)
    Duration running{};  ///< how long the job had run
    bool killed = false;
    friend bool operator==(const Stuck&, const Stuck&) = default;
  };
  /// Per history bucket (SystemState::Limits::history_bucket): the queue's depth and the busy
  /// workers at the bucket's last sample, the deepest queue known in it, and what was completed,
  /// dispatched and discarded (by reason, indexed by DiscardReason) in it.
  struct HistoryPoint {
    std::int64_t bucket = 0;  ///< time / history bucket length
    std::uint64_t queue_depth = 0;
    std::uint64_t queue_max = 0;
    std::uint64_t busy_workers = 0;
    std::uint64_t workers = 0;
    std::uint64_t dispatched = 0;
    std::uint64_t completed = 0;
    std::array<std::uint64_t, kDiscardReasonCount> discarded{};
    std::uint64_t discarded_total() const noexcept {
      return discarded[0] + discarded[1] + discarded[2] + discarded[3];
    }
    friend bool operator==(const HistoryPoint&, const HistoryPoint&) = default;
  };

  ActorId id{};
  /// From its latest factory_configured: the routing ("queuer", "key_persistent", ...; "" until
  /// one came), the pool's size, the settings text as it came and parsed, and when it came.
  std::string routing;
  std::uint32_t pool_size = 0;
  std::string settings_text;
  Settings settings;
  TimePoint configured{};
  /// worker_stuck events: how many, and the latest few (Limits::failures_per_actor), newest last.
  std::uint64_t stuck_reports = 0;
  RecordList<Stuck> recent_stuck;
  RecordList<HistoryPoint> history;

  /// Job latency (dispatch to done) over the samples folded: latency_buckets as a LogHistogram (its
  /// min and max are those of the buckets used, its sum latency_sum).
  LogHistogram latency() const;
  /// Parses a factory_configured text (unknown tags and words are ignored).
  static Settings parse_settings(std::string_view text);
  friend bool operator==(const FactoryRecord&, const FactoryRecord&) = default;
};

struct TimerRecord {
  std::uint64_t id = 0;
  ActorId target{};
  ActorId owner{};
  std::string kind;  ///< "interval", "after", "exit_after", "kill_after", ...
  Duration period{};
  TimePoint started{};
  TimePoint next_due{};
  std::uint64_t fired = 0;
  /// How late each firing was (actual - scheduled), in ns.
  LogHistogram lateness_ns;
  friend bool operator==(const TimerRecord&, const TimerRecord&) = default;
};

/// A message seen in the stream (sampled), for the message-flow view.
struct MessageRecord {
  std::uint64_t trace = 0;
  ActorId from{};
  ActorId to{};
  std::string_view type{};
  TimePoint sent{};
  std::optional<TimePoint> handled;
  Duration queue{};
  Duration handling{};
  bool failed = false;
  /// The timer that sent it (its id), for a message from outside any actor that a timer's firing
  /// delivered; 0 for every other message.
  std::uint64_t timer = 0;
  friend bool operator==(const MessageRecord&, const MessageRecord&) = default;
};

/// A keyframe that cannot be read back: corrupt, truncated, or from a newer format.
class StateFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SystemState {
 public:
  struct Limits {
    std::size_t stopped_actors = 2000;    ///< stopped actors kept (oldest exits are forgotten)
    std::size_t recent_events = 5000;     ///< lifecycle events kept for the event log
    std::size_t recent_messages = 4000;   ///< sampled messages kept for the flow view
    std::size_t failures_per_actor = 8;   ///< failure texts kept per actor (recent_failures)
    Duration child_tally = std::chrono::seconds(60);  ///< how far back ActorRecord::child_tally reaches
    std::size_t history_points = 120;     ///< per actor
    Duration history_bucket = std::chrono::milliseconds(100);
    friend bool operator==(const Limits&, const Limits&) = default;
  };

  SystemState() = default;
  explicit SystemState(Limits limits) : limits_(limits) {}

  /// How soon after a timer fired a message from outside any actor to its target must be sent to
  /// count as the timer's (MessageRecord::timer): the timer sends it at once, on the same thread.
  static constexpr Duration kTickPairing = std::chrono::milliseconds(1);

  // -- the fold --
  /// Folds one event. Idempotent for repeats: an event that only repeats what the state already
  /// says (an observer attached to a running system hears the present: runtime_info, spawned,
  /// started, name_registered, group_joined, timer_started; or a second exit of a dead actor) changes
  /// nothing at all, not even the counters, and returns false. Returns true when it was folded.
  bool apply(const Event& event);
  /// Whether `event` only repeats what the state already says (apply would ignore it).
  bool repeats(const Event& event) const;
  void apply(const StatsSample& sample);
  /// Folds a factory's bucket: its totals grow by it, its gauges and history follow it. A sample
  /// of a factory not known yet makes its record (its factory_configured may come later). Not
  /// noted by StatsUndo: a replay folds a rest that holds factory samples onto a copy.
  void apply(const FactorySample& sample);
  /// What applying statistics changed, to take it back exactly (a replay shows the polls recorded
  /// past the place it folds from, then goes on from that place: SessionReader::FoldPoint).
  struct StatsUndo {
    TimePoint time{};
    std::uint64_t dropped = 0;
    struct Change {
      ActorId actor{};
      ActorCounters counters{};
      Duration busy{};
      bool pushed = false;  ///< a history point was pushed at the back (else the back one changed)
      ActorRecord::HistoryPoint back{};                    ///< the back point before, when not pushed
      std::vector<ActorRecord::HistoryPoint> popped;       ///< the points the push pushed out, in order
    };
    std::vector<Change> changes;
    bool begun = false;
  };
  /// apply(sample), noting in `undo` what it changed (the first call notes the clock and drops).
  void apply(const StatsSample& sample, StatsUndo& undo);
  /// add_dropped(events), noted in `undo` (with apply's).
  void add_dropped(std::uint64_t events, StatsUndo& undo);
  /// Takes back everything noted in `undo` (which must be the last change made), and clears it.
  void undo(StatsUndo& undo);
  /// Events the engine could not deliver (full buffers). Counted, never silently lost.
  void add_dropped(std::uint64_t events) noexcept { dropped_ += events; }

  // -- the picture --
  const std::map<ActorId, ActorRecord>& actors() const noexcept { return actors_; }
  const ActorRecord* actor(ActorId id) const noexcept;
  /// Actors without a supervisor, in id order.
  std::vector<ActorId> roots() const;
  std::size_t alive_count() const noexcept { return alive_; }
  /// scope → group → members.
  const std::map<std::string, std::map<std::string, std::set<ActorId>>>& groups() const noexcept { return groups_; }
  /// The (scope, group) pairs an actor is in.
  std::vector<std::pair<std::string, std::string>> groups_of(ActorId id) const;
  const std::map<std::string, ActorId>& registry() const noexcept { return registry_; }
  /// Active timers by id.
  const std::map<std::uint64_t, TimerRecord>& timers() const noexcept { return timers_; }
  /// The Supervisors that said how they work (supervisor_configured), by id; stopped ones stay
  /// while their actor record does.
  const std::map<ActorId, SupervisorRecord>& supervisors() const noexcept { return supervisors_; }
  const SupervisorRecord* supervisor(ActorId id) const noexcept;
  /// The factories seen (factory_configured, worker_stuck or samples), by id; stopped ones stay
  /// while their actor record does.
  const std::map<ActorId, FactoryRecord>& factories() const noexcept { return factories_; }
  const FactoryRecord* factory(ActorId id) const noexcept;
  const std::deque<Event>& recent_events() const noexcept { return recent_events_; }
  const std::deque<MessageRecord>& recent_messages() const noexcept { return recent_messages_; }

  const std::string& runtime() const noexcept { return runtime_; }
  std::uint32_t threads() const noexcept { return threads_; }
  /// The time of the first and of the latest event applied.
  TimePoint first_time() const noexcept { return first_time_; }
  TimePoint time() const noexcept { return time_; }
  std::uint64_t events_applied() const noexcept { return applied_; }
  std::uint64_t events_of(EventKind kind) const noexcept { return by_kind_[static_cast<std::size_t>(kind)]; }
  std::uint64_t dropped() const noexcept { return dropped_; }
  const Limits& limits() const noexcept { return limits_; }

  // -- keyframes --
  /// A compact binary image of the whole state.
  std::string serialize() const;
  /// Throws StateFormatError if `bytes` is not a whole image of a format this build reads.
  static SystemState deserialize(std::string_view bytes);

  friend bool operator==(const SystemState&, const SystemState&) = default;

 private:
  ActorRecord& touch(ActorId id);
  void detach_from_parent(ActorRecord& a);
  /// Makes `parent` the supervisor of `a` (it leaves its former one's children).
  void reparent(ActorRecord& a, ActorId parent);
  void add_failure(ActorRecord& a, const FailureRecord& f);
  /// Counts a child of `a` failing (or being spawned, when `failed` is false) at `t` in its tally.
  void tally_child(ActorRecord& a, TimePoint t, bool failed);
  /// Whether a child of `a` failed within Limits::child_tally before `t`.
  bool child_failed_before(const ActorRecord& a, TimePoint t) const;
  void push_recent(const Event& e);
  void prune_stopped();
  void configure_supervisor(const Event& e);
  void restart_child(const Event& e);
  /// A restart of `sup_id`'s whose start failed (child_restarted with no actor): takes the actor
  /// that attempt spawned out of the supervisor's children.
  void forget_failed_start(ActorId sup_id, const Event& e);
  /// Binds the specs of `sup` that have no actor yet to its live children that run no spec, in order.
  void bind_children(SupervisorRecord& sup);
  FactoryRecord& touch_factory(ActorId id);

  /// The keyframe image's fields, in their order, for both directions (state_image.cpp).
  template <class Io, class Self>
  static void image_fields(Io& io, Self& st);

  Limits limits_{};
  std::map<ActorId, ActorRecord> actors_;
  std::deque<ActorId> stopped_order_;
  std::size_t alive_ = 0;
  std::map<std::string, std::map<std::string, std::set<ActorId>>> groups_;
  std::map<std::string, ActorId> registry_;
  std::map<std::uint64_t, TimerRecord> timers_;
  std::map<ActorId, SupervisorRecord> supervisors_;
  std::map<ActorId, FactoryRecord> factories_;
  std::deque<Event> recent_events_;
  std::deque<MessageRecord> recent_messages_;
  /// Per target, the latest timer firing whose message has not been seen yet: a timer queues its
  /// message on the thread that fired it, right after timer_fired, so the next message from outside
  /// any actor to that target, sent within kTickPairing of the firing, is the timer's (when the
  /// sampling took it; otherwise the next firing replaces the entry).
  struct PendingTick {
    std::uint64_t timer = 0;
    TimePoint fired{};
    friend bool operator==(const PendingTick&, const PendingTick&) = default;
  };
  std::map<ActorId, PendingTick> pending_ticks_;
  std::string runtime_;
  std::uint32_t threads_ = 0;
  TimePoint first_time_{};
  TimePoint time_{};
  std::uint64_t applied_ = 0;
  std::array<std::uint64_t, kEventKindCount> by_kind_{};
  std::uint64_t dropped_ = 0;
};

}  // namespace actorscope::observe
