// SessionReader: the replay side of a recording. It opens a file read-only, lists its sessions,
// gives the SystemState at any time (from the nearest keyframe, then folding what follows), and
// streams events with filters. Every problem with the file is a RecordingError; it never crashes.
#pragma once

#include <actorscope/observe/event.hpp>
#include <actorscope/observe/system_state.hpp>
#include <actorscope/overflow.hpp>
#include <actorscope/storage/recording_error.hpp>
#include <actorscope/storage/recording_format.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace actorscope {

namespace storage {
class Database;
}

/// One row of the sessions table.
struct SessionInfo {
  std::int64_t id = 0;
  /// Wall-clock times. ended_at is empty when the session did not end cleanly: the recording
  /// process died (or is still recording; updated_at says when it last wrote).
  std::chrono::system_clock::time_point started_at{};
  std::optional<std::chrono::system_clock::time_point> ended_at;
  std::chrono::system_clock::time_point updated_at{};
  std::string runtime;
  std::uint32_t threads = 0;
  std::string scenario;  ///< "" when none was given
  std::optional<std::uint64_t> seed;
  Detail detail = Detail::sampled;
  /// Message events kept: one in this many (0 at Detail::lifecycle, which keeps none).
  std::uint32_t sample_every = 0;
  Duration stats_interval{};
  std::uint64_t keyframe_every = 0;
  /// The session's span on the runtime's clock: when recording began, and the last item written.
  TimePoint start_time{};
  TimePoint end_time{};
  std::uint64_t events_recorded = 0;
  std::uint64_t events_dropped = 0;
  /// "actorscope 0.1.0": the program that wrote it.
  std::string recorder;

  bool ended_cleanly() const noexcept { return ended_at.has_value(); }
  Duration duration() const noexcept { return end_time - start_time; }
};

/// One row of the actors table: an actor's identity and how it ended.
struct ActorInfo {
  ActorId id{};
  std::string name;
  std::string type_name;
  ActorId parent{};
  std::uint32_t thread = 0;
  TimePoint spawned{};
  std::optional<TimePoint> stopped;
  std::optional<ExitKind> exit_kind;
  std::string exit_reason;
  /// A Supervisor's child: its child spec id ("" for none), and how many times that child had been
  /// restarted when this actor was made (0 for none). Since format 5 (older files: "" and 0).
  std::string child_id;
  std::uint32_t restarts = 0;
  /// Its mailbox's capacity (0: unbounded) and what it did when full (reject for an unbounded
  /// one, which never is). Since format 6 (older files: unbounded). What it dropped and rejected
  /// is in its statistics (SessionReader::stats, and the fold's ActorRecord).
  std::uint32_t mailbox_capacity = 0;
  Overflow overflow = Overflow::reject;
};

/// Which events to stream. Empty lists mean "all".
struct EventFilter {
  TimePoint from = TimePoint::min();
  TimePoint to = TimePoint::max();
  /// Events whose actor or peer is one of these.
  std::vector<ActorId> actors{};
  std::vector<observe::EventKind> kinds{};
};

/// One step back along the chain of causes: a message, how it was handled, and how it was sent.
struct CauseHop {
  /// Its message_handled event: the handler (actor), the sender (peer, 0 for outside the system),
  /// the type, the trace, and whether the handler threw (failed).
  observe::Event handled;
  /// Its message_sent event, whose `cause` names the message the sender was handling (the next hop);
  /// empty when the send was not recorded.
  std::optional<observe::Event> sent;
};

/// Why an actor ended as it did, followed back through the messages (SessionReader::cause_chain).
struct CauseChain {
  ActorId actor{};
  /// Its failed or killed event; empty when it did neither in the session.
  std::optional<observe::Event> exit;
  /// hops[0] is the message whose handling threw (for a failed actor) or the last one it handled
  /// (for a killed one); hops[i + 1] is the message its sender was handling when it sent hops[i].
  std::vector<CauseHop> hops;
  /// Where the chain stops, and why.
  enum class End : std::uint8_t {
    outside,        ///< the last message was sent from outside the system (or by a timer)
    other_hook,     ///< its sender was not in a message handler (post_start, post_stop, supervision)
    limit,          ///< max_hops reached; it goes on
    not_recorded,   ///< the recording predates causes (format < 4) or keeps no message events
    not_sampled,    ///< a message on the way was not sampled (at `sampled` detail): a gap
    no_message,     ///< the actor did not fail in a message handler, or handled no message
    not_ended,      ///< the actor did not fail and was not killed in this session
  };
  End end = End::not_ended;
  /// One sentence for users: what the chain shows and where (and why) it stops.
  std::string explanation;
};

// -- The timeline (issue 20): what a replay's timeline strip draws, and stepping between events. --
// SessionReader's members for these are together in one block below; their definitions are in
// storage/session_reader_timeline.cpp.

/// The events recorded in one time bucket, by class (SessionReader::density).
struct DensityBucket {
  /// The bucket is [from, to); the last bucket of a call also holds events at exactly its `to`.
  TimePoint from{}, to{};
  /// Everything that is neither a message nor a failure: spawned, started, stopped, linked,
  /// supervision, groups, names, timers, runtime_info.
  std::uint32_t lifecycle = 0;
  /// message_sent, and message_handled whose handler did not throw.
  std::uint32_t messages = 0;
  /// failed, killed, and message_handled whose handler threw (failed = 1).
  std::uint32_t failures = 0;
  std::uint32_t total() const noexcept { return lifecycle + messages + failures; }
};

/// Something a timeline marks (SessionReader::markers).
struct TimelineMarker {
  enum class Kind : std::uint8_t {
    failure,  ///< a failed event: a hook of the actor threw
    kill,     ///< a killed event
    restart,  ///< a Supervisor's child_restarted, or a spawned event that replaces an earlier child (see
              ///< SessionReader::markers)
  };
  Kind kind = Kind::failure;
  TimePoint time{};
  /// The actor that failed, was killed, or was spawned as the replacement.
  ActorId actor{};
  /// The event's seq (its failed, killed, child_restarted or spawned event).
  std::uint64_t seq = 0;
  /// One short line for a tooltip: "worker-3 failed: division by zero".
  std::string label;
};

class SessionReader {
 public:
  struct Options {
    /// How long to wait for another connection's lock before reporting RecordingError::locked.
    std::chrono::milliseconds busy_timeout{2000};
  };

  /// Opens `file` read-only and checks that it is a recording this build can read. Throws
  /// RecordingError: cannot_open, not_sqlite, not_a_recording, too_new, corrupt or locked.
  explicit SessionReader(std::filesystem::path file) : SessionReader(std::move(file), Options{}) {}
  SessionReader(std::filesystem::path file, Options options);
  ~SessionReader();
  SessionReader(SessionReader&&) noexcept;
  SessionReader& operator=(SessionReader&&) noexcept;

  const std::filesystem::path& file() const noexcept { return file_; }
  int format_version() const noexcept { return format_; }

  /// Runs SQLite's integrity check over the whole file (it reads every page: slower than opening).
  /// Throws RecordingError (corrupt) naming the first problem found.
  void verify() const;

  /// Every session, oldest first.
  std::vector<SessionInfo> sessions() const;
  /// Throws RecordingError (no_such_session) when there is no such session.
  SessionInfo session(std::int64_t id) const;

  /// The actors a session saw, by id.
  std::vector<ActorInfo> actors(std::int64_t session) const;
  /// Events recorded, by kind (indexed by observe::EventKind).
  std::array<std::uint64_t, observe::kEventKindCount> event_counts(std::int64_t session) const;

  struct StateOptions {
    /// Start from the nearest keyframe (fast). Off: fold everything from the session's start,
    /// which gives the same state; tests compare the two.
    bool use_keyframes = true;
  };
  /// The state at time `t` (runtime clock): the fold of every event and statistics poll with a
  /// time at or before t, in recording order, started from the latest keyframe that covers only
  /// such items. state_at(session, TimePoint::max()) is the state at the end.
  observe::SystemState state_at(std::int64_t session, TimePoint t) const {
    return state_at(session, t, StateOptions{});
  }
  observe::SystemState state_at(std::int64_t session, TimePoint t, StateOptions options) const;

  /// A place in a session's recording order (events by seq, each poll right after the event of its
  /// after_seq): a state "at" it holds exactly the items up to it, every event to `seq` and every
  /// poll to `poll`, and nothing after. Keyframes are such places; so is what prefix_at and
  /// advance leave. What state_at(t) holds is not always one: a poll of a time at or before t can
  /// follow an event after t in that order (it was folded two drains after it was taken), and an
  /// event before t can follow a poll after t. state_at(t) is the longest place whose items are
  /// all at or before t, plus the rest of those items (fold_rest).
  struct FoldPoint {
    std::uint64_t seq = 0;               ///< every event up to this seq, none after it
    std::uint64_t poll = 0;              ///< every poll up to this number, none after it
    TimePoint reach = TimePoint::min();  ///< the latest time of the items up to here
    friend bool operator==(const FoldPoint&, const FoldPoint&) = default;
  };
  /// The state at the longest place of the recording order whose items are all at or before `t`,
  /// from the nearest keyframe; `point` says where that is. fold_rest then makes it state_at(t);
  /// advance moves it to a later time without a keyframe. Returns whether it is state_at(t)
  /// already: nothing is left for fold_rest, or only polls without samples or drops no later
  /// than the state's clock, which would change nothing.
  bool prefix_at(std::int64_t session, TimePoint t, observe::SystemState& state, FoldPoint& point) const;
  /// Folds onto `state`, which is the state at `point`, what follows `point` in recording order
  /// while its items are at or before `t`, and moves `point` there: the state is then what
  /// prefix_at(t) gives, and the return value is prefix_at's. Needs t >= point.reach (throws
  /// std::invalid_argument otherwise: the state holds items after t). If it throws RecordingError,
  /// `state` is part of the way and `point` is unchanged: make the state again with prefix_at.
  bool advance(std::int64_t session, observe::SystemState& state, FoldPoint& point, TimePoint t) const;
  /// Folds onto `state`, which is the state at `point` (t >= point.reach), the rest of what
  /// state_at(t) holds: the state is then state_at(t), and no longer at any place (do not advance
  /// it). Fold onto a copy of the state at `point` to keep that one going.
  void fold_rest(std::int64_t session, observe::SystemState& state, const FoldPoint& point, TimePoint t) const;
  /// fold_rest without a copy, when the rest is polls only (a poll at or before t folded after an
  /// event after t): applies them onto `state` itself, the state at `point`, noting in `undo` what
  /// they changed, so that state.undo(undo) brings it back to `point` (before advance goes on).
  /// Returns false and changes nothing when the rest holds events, or factory samples (format 7:
  /// StatsUndo does not note them), and then fold_rest onto a copy.
  /// If it throws (RecordingError), what it applied is in `undo`.
  bool fold_rest_in_place(std::int64_t session, observe::SystemState& state, const FoldPoint& point, TimePoint t,
                          observe::SystemState::StatsUndo& undo) const;
  /// The seq of the keyframe state_at(t) starts from (0: the session's first, the empty state).
  std::uint64_t keyframe_seq_at(std::int64_t session, TimePoint t) const;
  /// Whether to advance `state` (the state at `point`) to `t` rather than make it again with
  /// prefix_at(t): while the keyframe prefix_at would start from is no more than a keyframe's
  /// decoding past `point`, kKeyframeCostEvents events plus kKeyframeCostPerActor per actor of the
  /// state (decoding an image and freeing the state it replaces, in events folded: measured with
  /// observatory_scrubbench, see docs/PERFORMANCE.md). Needs t >= point.reach, as advance does.
  bool advance_is_cheaper(std::int64_t session, const observe::SystemState& state, const FoldPoint& point,
                          TimePoint t) const;
  static constexpr std::uint64_t kKeyframeCostEvents = 1000;
  static constexpr double kKeyframeCostPerActor = 1.5;

  /// Streams a session's events in order (seq) through `visit` until it returns false.
  void for_each_event(std::int64_t session, const EventFilter& filter,
                      const std::function<bool(const observe::Event&)>& visit) const;
  /// The same, collected; at most `limit` events.
  std::vector<observe::Event> events(std::int64_t session, const EventFilter& filter = {},
                                     std::size_t limit = static_cast<std::size_t>(-1)) const;

  /// Why `actor` failed (or was killed): the message it was handling, who sent it and what that
  /// sender was handling, and so on back, up to `max_hops` messages or a message from outside.
  /// Needs the message events of `full` detail for a whole chain; at `sampled` it has gaps where a
  /// message was not sampled, and a recording older than format 4 has no causes at all (the chain
  /// then says so, with the first hop only). Throws RecordingError (no_such_session).
  CauseChain cause_chain(std::int64_t session, ActorId actor, std::size_t max_hops = 16) const;

  /// The exact statistics buckets of a session with bucket end in [from, to], in recording order.
  std::vector<observe::StatsSample> stats(std::int64_t session, TimePoint from = TimePoint::min(),
                                          TimePoint to = TimePoint::max()) const;
  /// The factories' statistics buckets (FactorySample) with bucket end in [from, to], in recording
  /// order. Empty for a recording older than format 7 (which had no factories).
  std::vector<observe::FactorySample> factory_stats(std::int64_t session, TimePoint from = TimePoint::min(),
                                                    TimePoint to = TimePoint::max()) const;

  // -- The timeline (issue 20); defined in session_reader_timeline.cpp. ------------------------
  // Each call is one read transaction of its own: nothing stays open between calls, so a reader
  // of a file that is still being recorded sees every commit made before the call, never holds
  // the writer back, and never stops it from checkpointing its write-ahead log.

  /// Events of `session` with a time in [from, to], counted in `buckets` equal time buckets by
  /// class. Bucket i is [from + i·(to − from)/buckets, from + (i+1)·(to − from)/buckets) (rounded
  /// down to the nanosecond); the last one also holds `to`. So the buckets cover [from, to]
  /// exactly, and an event is in one bucket. Counted by SQLite, never by reading events: the
  /// total of a bucket comes from the primary key (seq runs 1, 2, 3, ... and times never decrease
  /// with it), the lifecycle and failure events from the `events_notable` index; in a file made
  /// before that index, they are a scan of the range (correct, slower: docs/RECORDING-FORMAT.md).
  /// The reader remembers the rows its searches for bucket edges read (at most 100,000 a
  /// session; committed rows never change), so a follower asking again with a later `to` reads
  /// only a few new ones. Empty for buckets == 0 or from > to. Throws std::invalid_argument for
  /// a range longer than 2^63 ns, RecordingError (no_such_session; corrupt).
  std::vector<DensityBucket> density(std::int64_t session, TimePoint from, TimePoint to,
                                     std::size_t buckets) const;

  /// The failures (failed events), kills (killed events) and restarts of `session` with a time
  /// in [from, to], in recording order (by seq), at most `limit`: the earliest ones, when there
  /// are more (ask for a narrower range then). A restart is a spawned event of an actor with a
  /// name, whose supervisor (the event's peer) spawned an earlier actor of the same name that had
  /// already exited (stopped, failed or killed) by then: the new actor replaces it, as a
  /// supervisor's one-for-one or all-for-one restart does. Unnamed actors are never restarts that
  /// way: there is nothing to tell which one a new child replaces. A Supervisor's restart
  /// (child_restarted, format 5) is a restart marker of its own, named or not, at that event, and
  /// its spawn is then not marked again. Throws RecordingError.
  std::vector<TimelineMarker> markers(std::int64_t session, TimePoint from, TimePoint to,
                                      std::size_t limit = 10000) const;

  /// The nearest event strictly after (forward) or before t, of `actor` (ActorId{}: any actor)
  /// and of one of `kinds` (empty: any).
  /// An event is `actor`'s when actor_id is that actor (it is the one that was spawned, handled
  /// the message, sent it, failed, ...). nullopt when there is none. "Strictly": an event at
  /// exactly t is neither after nor before it, so stepping from an event's time moves on.
  /// Throws RecordingError (no_such_session; corrupt).
  std::optional<observe::Event> adjacent_event(std::int64_t session, TimePoint t, bool forward,
                                               ActorId actor = {},
                                               std::vector<observe::EventKind> kinds = {}) const;

  /// Following a file that is still being written needs no call: every query sees what the
  /// writer has committed until then. One case needs this: a file in WAL mode without its log
  /// beside it (a recording whose last reader closed before its writer could switch it back) is
  /// opened as an immutable snapshot, so that opening changes nothing; if a recorder has since
  /// started writing to it (its log exists now), refresh() reopens it so that its commits are
  /// seen. Returns whether it reopened. Cheap (one look at the file system): a follower may call it
  /// before each poll. Throws RecordingError as the constructor does.
  bool refresh();

  /// Rows of events (their time and seq) that the timeline's searches have read, kept across calls.
  struct TimelineCache;

 private:
  std::set<std::pair<std::int64_t, std::uint64_t>>& known_points(std::int64_t session) const;
  mutable std::shared_ptr<TimelineCache> timeline_cache_;  // made on first use; shared_ptr: incomplete here

 public:
  // -- end of the timeline ---------------------------------------------------------------------

 private:
  template <class F>
  auto guarded(F&& f) const -> decltype(f());
  std::uint64_t last_seq_at(std::int64_t session, TimePoint t, std::uint64_t after) const;
  /// The event of `kind` with `trace`, looked for around `near` (expanding windows of seq, so that
  /// the usual case, a send shortly before its handling, reads a few pages).
  std::optional<observe::Event> find_traced(std::int64_t session, observe::EventKind kind, std::uint64_t trace,
                                            std::uint64_t near, bool forward) const;

  std::filesystem::path file_;
  Options options_;
  std::unique_ptr<storage::Database> db_;
  int format_ = 0;
};

}  // namespace actorscope
