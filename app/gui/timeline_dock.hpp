// TimelineDock: the replay's timeline and its controls. It shows the strip (views::TimelineWidget)
// for the replayed session's whole range, fed with ReplaySession::density and markers, and drives
// the session's cursor: dragging, Play/Pause at 0.1×, 1×, 10× or 100×, jumps to the start and the
// end ("Go live" while a recording is followed), steps to the previous or next event of the
// selected actor and to the previous or next failure. With the strip focused: Space plays or
// pauses, ←/→ step (Shift: ten times further), Home/End jump. A range selected on the strip zooms
// the message flow to it. Warning markers come from a WarningScan of the whole session on a thread
// of its own: they appear while it runs (the dock says how far it got), and a followed recording's
// are scanned on as it grows. Every cursor move goes through ReplaySession::setCursor, which computes
// the state once for the latest move: a fast drag never queues a state per mouse move.
#pragma once

#include "gui/replay_session.hpp"
#include "gui/warning_scan.hpp"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;

namespace actorscope::views {
class TimelineWidget;
}

namespace actorscope::gui {

class MainWindow;

class TimelineDock : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineDock(MainWindow* window);

  views::TimelineWidget* strip() const noexcept { return strip_; }

  /// The play speeds offered, in the speed box's order.
  static constexpr double kSpeeds[] = {0.1, 1.0, 10.0, 100.0};
  bool playing() const noexcept { return playTimer_.isActive(); }
  void setPlaying(bool on);
  double speed() const;
  void setSpeed(double speed);

  /// One step back or forward: a hundredth of the range (`large`: a tenth).
  void step(bool forward, bool large);
  void jumpToStart();
  /// The end; while the recording is followed, the tail (the cursor then moves with it).
  void jumpToEnd();
  /// The previous or next event of the selected actor (of any actor with none selected). Returns
  /// false, and says so in the status bar, when there is none.
  bool stepToEvent(bool forward);
  /// The previous or next failure (an actor that failed). False when there is none.
  bool stepToFailure(bool forward);
  /// What the last step said when it found nothing ("No later failure").
  const QString& note() const noexcept { return note_; }
  /// Where the session's warnings began, as far as the scan has got (in time order).
  const std::vector<WarningMark>& warnings() const noexcept { return warnings_; }
  /// Whether the warning scan is over: it reached the end of the range (for a followed recording:
  /// the tail as it was when the scan last finished), or the file could not be read.
  bool warningsScanned() const noexcept {
    return scan_ && !scan_->running() && (scan_->reached().has_value() || scan_->hasFailed());
  }

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void attach();
  /// Recomputes the density and the markers for the range and the strip's width (coalesced).
  void scheduleData();
  void refreshData();
  /// The strip's markers: the recording's failures, kills and restarts, and the warnings found.
  void showMarkers();
  /// Starts the warning scan, or continues it to the grown end of a followed recording.
  void scanWarnings();
  void showCursor(TimePoint t);
  void tick();
  void moveTo(TimePoint t);
  void zoomFlow(TimePoint from, TimePoint to);
  QToolButton* button(const QString& icon, const QString& text, const QString& tip);

  MainWindow* window_;
  QPointer<ReplaySession> replay_;
  views::TimelineWidget* strip_;
  QToolButton* play_;
  QToolButton* live_;
  QToolButton* unzoom_;
  QComboBox* speed_;
  QLabel* time_;
  QLabel* legend_;
  QTimer playTimer_;
  QElapsedTimer playClock_;
  TimePoint playBase_{};
  QTimer dataTimer_;
  QElapsedTimer sinceData_;
  std::vector<TimelineMarker> markers_;
  std::unique_ptr<WarningScanJob> scan_;
  std::vector<WarningMark> warnings_;
  QLabel* scanNote_;
  QString note_;
};

}  // namespace actorscope::gui
