// ReplaySession: a recorded session read back for the views. It owns a read-only SessionReader, the
// session's id and a cursor on the runtime's clock; the state it shows is SessionReader::state_at
// the cursor. Moving the cursor is coalesced: setCursor() only remembers the time and schedules one
// computation (a 0 ms single-shot timer), so that a drag of a hundred mouse moves computes the
// state for the latest position only, never for every one in between.
//
// A session that is still being written (no end time, written to lately) is followed: a timer
// re-reads its end every 100 ms, the range grows, and while the cursor is at the tail ("live") it
// moves with it. The user can scrub back meanwhile; goLive() returns to the tail. When the writer
// ends the session, endedChanged() says so and the following stops.
#pragma once

#include "gui/session.hpp"

#include <actorscope/storage/session_reader.hpp>

#include <QElapsedTimer>
#include <QString>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

namespace actorscope::gui {

// The timeline's data comes from SessionReader (storage/session_reader_timeline.cpp).
using actorscope::DensityBucket;
using actorscope::TimelineMarker;

class ReplaySession : public Session {
  Q_OBJECT
 public:
  /// Opens `file` read-only and session `session` in it, with the cursor at the session's start
  /// (or, for a session still being written, at its tail). Throws RecordingError.
  ReplaySession(const QString& file, std::int64_t session, QObject* parent = nullptr);
  ~ReplaySession() override;

  // Session
  /// The state at the cursor: a new object at each cursor move (see computeState). A cursor moved
  /// forward a little folds what came in between onto the state it had (SessionReader::advance)
  /// and moves it to the new object; any other move makes it from a keyframe. Views that cache what
  /// they found in the last state (record pointers) key that cache on the state's address.
  const observe::SystemState& state() const override { return *shown_; }
  bool isLive() const override { return false; }
  QString title() const override;
  QString banner() const override;
  views::ActorControl* control() override { return nullptr; }
  std::optional<TimeRange> timeRange() const override { return TimeRange{info_.start_time, info_.end_time}; }
  TimePoint cursor() const override { return cursor_; }

  const QString& file() const noexcept { return file_; }
  const SessionReader& reader() const noexcept { return *reader_; }
  const SessionInfo& info() const noexcept { return info_; }
  std::int64_t sessionId() const noexcept { return info_.id; }

  /// Moves the cursor (clamped to the range). The state follows on the event loop's next turn,
  /// computed once for the latest cursor however many moves came meanwhile.
  void setCursor(TimePoint t);
  /// Moves the cursor and computes the state now (tests, screenshots, the benchmark).
  void setCursorNow(TimePoint t);
  /// Whether a cursor move waits for its state.
  bool pending() const noexcept { return pending_; }

  /// The session is still being written by another program (or this one): its range grows.
  bool following() const noexcept { return following_; }
  /// The cursor is at the tail of a followed session and moves with it.
  bool atTail() const noexcept { return atTail_; }
  /// Moves the cursor to the end (and, while following, keeps it there).
  void goLive();
  /// Re-reads the session's end (what the follow timer does every 100 ms). Public for tests.
  void poll();

  /// Events per bucket over [from, to], by kind (SessionReader::density).
  std::vector<DensityBucket> density(TimePoint from, TimePoint to, std::size_t buckets) const;
  /// Failures, kills and restarts in [from, to] (SessionReader::markers).
  std::vector<TimelineMarker> markers(TimePoint from, TimePoint to, std::size_t limit = 10000) const;
  /// The nearest event strictly after (forward) or before `t`, of `actor` (invalid: any actor) and
  /// of one of `kinds` (empty: any) (SessionReader::adjacent_event).
  std::optional<observe::Event> adjacentEvent(TimePoint t, bool forward, ActorId actor = {},
                                              std::vector<observe::EventKind> kinds = {}) const;

  /// The state at the cursor, then the events after it, up to kAheadSpan or kAheadEvents of them:
  /// for the views centred on the cursor (the message flow, the event log), which show what came
  /// after it too. Computed on first use after each cursor move (only visible such views ask),
  /// at a new address each time, as state() is.
  const observe::SystemState& aheadState() const;
  static constexpr auto kAheadSpan = std::chrono::seconds(15);  ///< half the flow's widest window
  static constexpr std::size_t kAheadEvents = 2000;             ///< more than the log and flow show

  /// How long warmUp() took (ns; 0 until it has run).
  std::uint64_t warmUpNs() const noexcept { return warmUpNs_; }
  /// How long the last state computation took (ns).
  std::uint64_t lastStateNs() const noexcept { return lastStateNs_; }
  /// Whether the last state computation folded forward from the state shown (not from a keyframe).
  bool lastStateFolded() const noexcept { return lastFolded_; }
  /// Whether the last state computation copied the state at the place before the cursor to add
  /// the rest (see base_).
  bool lastStateCopied() const noexcept { return lastCopied_; }
  /// Whether the last state computation had a rest past the place (copied or applied in place).
  bool lastStateHadRest() const noexcept { return lastRest_; }

  /// "still being written" when a session without an end time was written to within this long.
  static constexpr auto kFollowRecency = std::chrono::seconds(10);

 signals:
  /// The cursor moved (before its state is computed).
  void cursorChanged(actorscope::TimePoint t);
  /// The range grew (a followed session).
  void rangeChanged();
  /// The writer ended the session (or stopped writing): following() changed.
  void followingChanged(bool following);
  /// The state at the cursor could not be read (the file was damaged, removed or locked meanwhile):
  /// what is shown stays; `message` says what is wrong, for the status bar.
  void readFailed(const QString& message);

 private:
  void computeState();
  /// Run once, on the event loop's turn after the first picture: builds the state at the session's
  /// end and copies of it, as many as a step holds at once, then frees them, so that the first
  /// scrub steps find that memory in the heap instead of faulting every page of their new states
  /// in (see heap_reserve.hpp).
  void warmUp();
  /// Keeps `states` (replaced by this step) until the next step begins (computeState frees them
  /// first, so that its new state is made in their memory).
  void retire(std::vector<std::unique_ptr<observe::SystemState>> states);
  void refreshInfo();

  QString file_;
  std::unique_ptr<SessionReader> reader_;
  SessionInfo info_;
  /// The state at point_, the longest place of the recording order at or before the cursor
  /// (SessionReader::FoldPoint): what a move forward folds onto. Often it is the state at the
  /// cursor itself (shown_ is base_); when the cursor's state has items past that place (a poll
  /// recorded two drains after it was taken), shown_ is tailed_, a copy of base_ with the rest.
  std::unique_ptr<observe::SystemState> base_, tailed_;
  const observe::SystemState* shown_ = nullptr;
  SessionReader::FoldPoint point_;
  bool pointValid_ = false;  ///< base_ is exactly the state at point_ (a failed read may break it)
  /// The rest of the cursor's state applied onto base_ in place (polls only), to take back before
  /// base_ moves on (SessionReader::fold_rest_in_place).
  observe::SystemState::StatsUndo undo_;
  bool undoPending_ = false;
  /// The states replaced by the last step: kept until the next step begins (see retire()).
  std::vector<std::unique_ptr<observe::SystemState>> retired_;
  mutable std::unique_ptr<observe::SystemState> ahead_, previousAhead_;
  mutable bool aheadCurrent_ = false;
  TimePoint cursor_{};
  TimePoint computedFor_ = TimePoint::min();
  bool lastFolded_ = false;
  bool lastCopied_ = false;
  bool lastRest_ = false;
  bool pending_ = false;
  bool following_ = false;
  bool atTail_ = false;
  QTimer followTimer_;
  std::uint64_t lastStateNs_ = 0;
  std::uint64_t warmUpNs_ = 0;
};

}  // namespace actorscope::gui
