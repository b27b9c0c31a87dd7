// WarningScan: where a recording's warnings begin, for the timeline's warning markers. The warning
// rules (views::lint) judge one state; a replay shows them for the state at the cursor only. To mark
// them on the timeline, the scan folds the session forward from its start (SessionReader::prefix_at,
// then advance: one pass over the recording, never a keyframe per step), judges the state every
// `step` of recorded time, at the end, and at the failures in between (the first few a step: a
// restart storm begins at a failure and can be over before the next step), and notes each warning at the
// first step where it holds (a warning that ends and comes back is noted again). It reads only what the fold
// reads, so a scan of a long recording costs about one fold of it; WarningScanJob runs it on a thread of its
// own, with its own read-only connection, and hands the marks to the GUI thread as they are found.
#pragma once

#include "warnings/warning_rules.hpp"

#include <actorscope/storage/session_reader.hpp>

#include <QObject>
#include <QString>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

namespace actorscope::gui {

/// A warning where it began: the first judged time at which it held.
struct WarningMark {
  TimePoint time{};
  views::Warning warning;
  /// The actor's name at that time ("" for a system-wide warning or an unnamed actor).
  std::string actorName;
  /// One line for a tooltip: "restart storm: root — 6 child failures and ...".
  std::string label() const;
};

class WarningScan {
 public:
  /// At most this many marks are kept (the earliest); the scan goes on, and `truncated()` says so.
  static constexpr std::size_t kMaxMarks = 2000;
  /// At most this many failures a step are judged at (the earliest).
  static constexpr std::size_t kMaxFailuresPerStep = 16;

  /// The step for a session of `span`: 100 ms (the statistics' own resolution), or coarser so that
  /// a long recording is judged at most about 2,000 times.
  static Duration stepFor(Duration span);

  WarningScan(const SessionReader& reader, std::int64_t session, Duration step,
              views::WarningThresholds thresholds = {});

  /// Judges every step from where the last call stopped (the session's start, the first time) up
  /// to `to`, and `to` itself, appending the warnings that begin. `progress` is called now and then with the
  /// time reached. Returns false when `cancel` was set (what was found so far is kept). Throws
  /// RecordingError.
  bool scanTo(TimePoint to, const std::atomic<bool>& cancel,
              const std::function<void(TimePoint)>& progress = {});

  const std::vector<WarningMark>& marks() const noexcept { return marks_; }
  bool truncated() const noexcept { return truncated_; }
  /// The last time judged (empty before the first call).
  std::optional<TimePoint> reached() const noexcept { return reached_; }

 private:
  void judge(TimePoint t);

  const SessionReader& reader_;
  std::int64_t session_;
  Duration step_;
  views::WarningThresholds thresholds_;
  observe::SystemState state_;
  SessionReader::FoldPoint point_{};
  std::optional<TimePoint> reached_;
  std::set<std::tuple<views::WarningKind, ActorId, std::uint64_t>> holding_;
  std::vector<WarningMark> marks_;
  bool truncated_ = false;
};

/// A WarningScan on a thread of its own. scanTo() starts (or continues, for a recording that grew)
/// the scan to `to`; found() brings each batch of new marks to the owner's thread, progress() how
/// far it got, done() that it reached `to`, failed() why it could not read. Destroying it stops the
/// scan and waits for its thread.
class WarningScanJob : public QObject {
  Q_OBJECT
 public:
  /// Opens its own read-only SessionReader on `file` when it first runs.
  WarningScanJob(QString file, std::int64_t session, Duration step, QObject* parent = nullptr);
  ~WarningScanJob() override;

  /// Scans on to `to`; ignored while a scan runs (call again when done() came), and after a
  /// failure (the file could not be read: failed() said why). `yielding`: the scan's thread runs at
  /// the lowest CPU priority (nice 19 on Linux), taking only what other programs leave: for a
  /// recording still being written, whose writer, the user's program, must not be slowed by it.
  void scanTo(TimePoint to, bool yielding = false);
  bool running() const noexcept { return running_; }
  /// The time reached by the last finished scan (empty before one finished).
  std::optional<TimePoint> reached() const noexcept { return reached_; }
  bool truncated() const noexcept { return truncated_; }
  /// The file could not be read (failed() said why): the job does nothing more.
  bool hasFailed() const noexcept { return failed_; }

 signals:
  void found(const std::vector<actorscope::gui::WarningMark>& marks);
  void progress(actorscope::TimePoint reached);
  void done();
  void failed(const QString& message);

 private:
  void run(TimePoint to, bool yielding);

  QString file_;
  std::int64_t session_;
  Duration step_;
  // Touched by the worker thread only (created there on first use).
  std::unique_ptr<SessionReader> reader_;
  std::unique_ptr<WarningScan> scan_;
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  bool failed_ = false;
  std::optional<TimePoint> reached_;
  bool truncated_ = false;
};

}  // namespace actorscope::gui
