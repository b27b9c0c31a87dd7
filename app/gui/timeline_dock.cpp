// The replay's timeline dock.
#include "gui/timeline_dock.hpp"

#include "gui/main_window.hpp"

#include "common/format.hpp"
#include "common/health.hpp"
#include "common/icons.hpp"
#include "flow/message_flow_view.hpp"
#include "timeline/timeline_widget.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QStatusBar>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>

namespace actorscope::gui {

TimelineDock::TimelineDock(MainWindow* window) : window_(window) {
  setObjectName(QStringLiteral("timeline"));
  strip_ = new views::TimelineWidget(this);

  auto* row = new QHBoxLayout;
  row->setContentsMargins(4, 2, 4, 0);
  row->setSpacing(2);
  QToolButton* start =
      button(QStringLiteral("start-of"), QStringLiteral("Start"), QStringLiteral("Jump to the start (Home)"));
  start->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
  connect(start, &QToolButton::clicked, this, &TimelineDock::jumpToStart);
  QToolButton* prevFailure = button(QStringLiteral("prev-failure"), QStringLiteral("◀ Failure"),
                                    QStringLiteral("Step back to the previous failure"));
  connect(prevFailure, &QToolButton::clicked, this, [this] { stepToFailure(false); });
  QToolButton* prevEvent =
      button(QStringLiteral("prev-event"), QStringLiteral("◀ Event"),
             QStringLiteral("Step back to the previous event of the selected actor (of any actor "
                            "when none is selected)"));
  connect(prevEvent, &QToolButton::clicked, this, [this] { stepToEvent(false); });
  play_ = button(QStringLiteral("play"), QStringLiteral("Play"), QStringLiteral("Play or pause (Space)"));
  play_->setIcon(views::icon(QStringLiteral("start")));
  play_->setCheckable(true);
  connect(play_, &QToolButton::toggled, this, &TimelineDock::setPlaying);
  speed_ = new QComboBox(this);
  speed_->setObjectName(QStringLiteral("speed"));
  speed_->setFocusPolicy(Qt::NoFocus);
  for (double s : kSpeeds)
    speed_->addItem(s < 1 ? QStringLiteral("%1×").arg(s, 0, 'f', 1) : QStringLiteral("%1×").arg(s), s);
  speed_->setCurrentIndex(1);
  speed_->setToolTip(QStringLiteral("Play speed: recorded time per second of your time"));
  connect(speed_, &QComboBox::currentIndexChanged, this, [this] {
    if (replay_) playBase_ = replay_->cursor();
    playClock_.restart();
  });
  QToolButton* nextEvent =
      button(QStringLiteral("next-event"), QStringLiteral("Event ▶"),
             QStringLiteral("Step to the next event of the selected actor (of any actor when none "
                            "is selected)"));
  connect(nextEvent, &QToolButton::clicked, this, [this] { stepToEvent(true); });
  QToolButton* nextFailure = button(QStringLiteral("next-failure"), QStringLiteral("Failure ▶"),
                                    QStringLiteral("Step to the next failure"));
  connect(nextFailure, &QToolButton::clicked, this, [this] { stepToFailure(true); });
  QToolButton* end =
      button(QStringLiteral("end-of"), QStringLiteral("End"), QStringLiteral("Jump to the end (End)"));
  end->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
  connect(end, &QToolButton::clicked, this, &TimelineDock::jumpToEnd);
  live_ = button(QStringLiteral("go-live"), QStringLiteral("Go live"),
                 QStringLiteral("Back to the tail of the recording being written, and follow it (End)"));
  live_->setIcon(views::icon(QStringLiteral("c-record")));
  connect(live_, &QToolButton::clicked, this, &TimelineDock::jumpToEnd);
  unzoom_ = button(QStringLiteral("unzoom"), QStringLiteral("Unzoom flow"),
                   QStringLiteral("The message flow shows the seconds before the cursor again"));
  unzoom_->setIcon(views::icon(QStringLiteral("zoom-reset")));
  unzoom_->hide();
  connect(unzoom_, &QToolButton::clicked, this, [this] {
    strip_->clearSelection();
    zoomFlow({}, {});
  });
  time_ = new QLabel(this);
  time_->setObjectName(QStringLiteral("cursor-time"));
  time_->setMinimumWidth(150);
  scanNote_ = new QLabel(this);
  scanNote_->setObjectName(QStringLiteral("warning-scan"));
  scanNote_->setForegroundRole(QPalette::PlaceholderText);
  scanNote_->hide();
  legend_ = new QLabel(this);
  legend_->setTextFormat(Qt::RichText);
  const QPalette& pal = palette();
  legend_->setText(
      QStringLiteral("<span style='color:%1'>■</span> messages &nbsp;<span style='color:%2'>■</span> "
                     "lifecycle &nbsp;<span style='color:%3'>■</span> failures &nbsp; ▼ failure, kill, "
                     "restart &nbsp;▽ warning")
          .arg(views::tint(pal.color(QPalette::Highlight), pal, 0.45).name(),
               views::healthColor(views::Health::running, pal).name(), views::errorColor(pal).name()));
  legend_->setForegroundRole(QPalette::PlaceholderText);
  for (QWidget* w : std::initializer_list<QWidget*>{start, prevFailure, prevEvent, play_, speed_, nextEvent,
                                                    nextFailure, end, live_})
    row->addWidget(w);
  row->addSpacing(8);
  row->addWidget(time_);
  row->addWidget(unzoom_);
  row->addWidget(scanNote_);
  row->addStretch(1);
  row->addWidget(legend_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 2);
  layout->setSpacing(2);
  layout->addLayout(row);
  layout->addWidget(strip_, 1);

  playTimer_.setInterval(33);
  connect(&playTimer_, &QTimer::timeout, this, &TimelineDock::tick);
  dataTimer_.setSingleShot(true);
  connect(&dataTimer_, &QTimer::timeout, this, &TimelineDock::refreshData);
  sinceData_.start();

  connect(strip_, &views::TimelineWidget::cursorDragged, this, [this](TimePoint t) {
    if (playing()) {  // play on from where the user put the cursor
      playBase_ = t;
      playClock_.restart();
    }
    moveTo(t);
  });
  connect(strip_, &views::TimelineWidget::rangeSelected, this, &TimelineDock::zoomFlow);
  connect(strip_, &views::TimelineWidget::markerClicked, this, [this](int i) {
    const auto& m = strip_->markers()[static_cast<std::size_t>(i)];
    if (m.actor.is_valid()) window_->selection().select(m.actor);
    moveTo(m.time);
  });
  connect(strip_, &views::TimelineWidget::widthChanged, this, &TimelineDock::scheduleData);
  connect(window_, &MainWindow::sessionChanged, this, &TimelineDock::attach);
}

QToolButton* TimelineDock::button(const QString& name, const QString& text, const QString& tip) {
  auto* b = new QToolButton(this);
  b->setObjectName(name);
  b->setText(text);
  b->setToolTip(tip);
  b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  b->setAutoRaise(true);
  // Space and the arrows belong to the timeline, not to whichever button was clicked last.
  b->setFocusPolicy(Qt::NoFocus);
  return b;
}

void TimelineDock::attach() {
  setPlaying(false);
  if (replay_) disconnect(replay_, nullptr, this, nullptr);
  replay_ = window_->replay();
  markers_.clear();
  scan_.reset();  // stops the last session's scan
  warnings_.clear();
  scanNote_->hide();
  strip_->clearSelection();
  strip_->setDensity({});
  strip_->setMarkers({});
  zoomFlow({}, {});  // another session: the flow's zoom goes with the last one
  if (!replay_) return;
  const auto range = *replay_->timeRange();
  strip_->setRange(range.start, range.end);
  showCursor(replay_->cursor());
  live_->setVisible(replay_->following());
  connect(replay_, &ReplaySession::cursorChanged, this, &TimelineDock::showCursor);
  connect(replay_, &ReplaySession::rangeChanged, this, [this] {
    const auto r = *replay_->timeRange();
    strip_->setRange(r.start, r.end);
    showCursor(replay_->cursor());
    scheduleData();
  });
  connect(replay_, &ReplaySession::followingChanged, this, [this](bool following) {
    live_->setVisible(following);
    showCursor(replay_->cursor());
    scheduleData();
  });
  // The warning scan: the marks it finds join the strip's as they come.
  scan_ = std::make_unique<WarningScanJob>(replay_->file(), replay_->sessionId(),
                                           WarningScan::stepFor(range.end - range.start));
  connect(scan_.get(), &WarningScanJob::found, this, [this](const std::vector<WarningMark>& marks) {
    warnings_.insert(warnings_.end(), marks.begin(), marks.end());
    showMarkers();
  });
  connect(scan_.get(), &WarningScanJob::progress, this, [this](TimePoint reached) {
    if (!replay_) return;
    const auto r = *replay_->timeRange();
    const double span = static_cast<double>(observe::to_ns(r.end - r.start));
    const double done = span > 0 ? static_cast<double>(observe::to_ns(reached - r.start)) / span : 1.0;
    scanNote_->setText(
        QStringLiteral("Looking for warnings… %1%").arg(std::clamp(qRound(100 * done), 0, 100)));
    scanNote_->setToolTip(
        QStringLiteral("The warning rules are judged over the whole recording, from its start: "
                       "their markers appear as they are found"));
    scanNote_->show();
  });
  connect(scan_.get(), &WarningScanJob::done, this, [this] {
    scanNote_->setVisible(scan_->truncated());
    if (scan_->truncated())
      scanNote_->setText(QStringLiteral("Only the first %1 warnings are marked").arg(WarningScan::kMaxMarks));
  });
  connect(scan_.get(), &WarningScanJob::failed, this, [this](const QString& why) {
    scanNote_->setText(QStringLiteral("Warnings not marked"));
    scanNote_->setToolTip(why);
    scanNote_->show();
    window_->statusBar()->showMessage(QStringLiteral("The warning markers could not be read: %1").arg(why),
                                      8000);
  });
  // The first picture comes first: the density and markers follow on the next turns.
  scheduleData();
  strip_->setFocus(Qt::OtherFocusReason);
}

void TimelineDock::scheduleData() {
  if (!replay_) return;
  // While a recording grows, its density is recomputed at most once a second (the range changes
  // ten times a second); otherwise at once, on the event loop's next turn.
  const int wait = replay_->following() ? std::max<int>(0, 1000 - static_cast<int>(sinceData_.elapsed())) : 0;
  if (!dataTimer_.isActive()) dataTimer_.start(wait);
}

void TimelineDock::refreshData() {
  if (!replay_) return;
  sinceData_.restart();
  const auto r = *replay_->timeRange();
  std::vector<views::TimelineWidget::Bucket> buckets;
  try {
    for (const DensityBucket& b : replay_->density(r.start, r.end, strip_->wantedBuckets()))
      buckets.push_back({b.from, b.to, b.lifecycle, b.messages, b.failures});
    markers_ = replay_->markers(r.start, r.end);
  } catch (const RecordingError& e) {
    // The file changed under us (a lock held too long): keep what is shown and say so.
    window_->statusBar()->showMessage(QString::fromUtf8(e.what()), 8000);
    return;
  }
  strip_->setDensity(std::move(buckets));
  showMarkers();
  scanWarnings();
}

void TimelineDock::showMarkers() {
  using K = views::TimelineWidget::Marker::Kind;
  std::vector<views::TimelineWidget::Marker> marks;
  marks.reserve(markers_.size() + warnings_.size());
  for (const TimelineMarker& m : markers_)
    marks.push_back({m.kind == TimelineMarker::Kind::failure ? K::failure
                     : m.kind == TimelineMarker::Kind::kill  ? K::kill
                                                             : K::restart,
                     m.time, m.actor, QString::fromStdString(m.label)});
  for (const WarningMark& w : warnings_)
    marks.push_back({K::warning, w.time, w.warning.actor, QString::fromStdString(w.label())});
  strip_->setMarkers(std::move(marks));
}

void TimelineDock::scanWarnings() {
  if (!replay_ || !scan_ || scan_->running()) return;
  const auto r = *replay_->timeRange();
  // A followed recording is judged up to a second before its tail: what was sent just before the
  // tail may not all be written yet, and a warning judged early would be marked late. Its scan
  // yields the CPU to the program writing it (a scan folds every event the program records).
  const bool following = replay_->following();
  const TimePoint to = following ? r.end - std::chrono::seconds(1) : r.end;
  if (to > r.start) scan_->scanTo(to, following);
}

void TimelineDock::showCursor(TimePoint t) {
  strip_->setCursor(t);
  if (!replay_) return;
  const auto r = *replay_->timeRange();
  QString text =
      QStringLiteral("%1 / %2").arg(views::formatSince(t, r.start), views::formatSince(r.end, r.start));
  if (replay_->following())
    text += replay_->atTail() ? QStringLiteral("  ● live") : QStringLiteral("  (scrolled back)");
  time_->setText(text);
}

void TimelineDock::moveTo(TimePoint t) {
  if (replay_) replay_->setCursor(t);
}

void TimelineDock::setPlaying(bool on) {
  if (on && !replay_) on = false;
  if (play_->isChecked() != on) {
    const QSignalBlocker block(play_);
    play_->setChecked(on);
  }
  play_->setText(on ? QStringLiteral("Pause") : QStringLiteral("Play"));
  play_->setIcon(views::icon(on ? QStringLiteral("pause") : QStringLiteral("start")));
  if (!on) {
    playTimer_.stop();
    return;
  }
  // Playing from the end starts again from the start (a followed recording plays on at its tail).
  if (replay_->cursor() >= replay_->timeRange()->end && !replay_->following())
    replay_->setCursor(replay_->timeRange()->start);
  playBase_ = replay_->cursor();
  playClock_.start();
  playTimer_.start();
}

double TimelineDock::speed() const {
  return speed_->currentData().toDouble();
}

void TimelineDock::setSpeed(double s) {
  const int i = speed_->findData(s);
  if (i >= 0) speed_->setCurrentIndex(i);
}

void TimelineDock::tick() {
  if (!replay_) return setPlaying(false);
  // From the wall time since play began (or the last scrub, or speed change): no drift, and a slow
  // state computation skips ahead instead of slowing the replay down.
  const auto elapsed = std::chrono::nanoseconds(playClock_.nsecsElapsed());
  const auto advance = std::chrono::duration_cast<Duration>(elapsed * speed());
  const TimePoint end = replay_->timeRange()->end;
  const TimePoint t = playBase_ + advance;
  replay_->setCursor(std::min(t, end));
  if (t >= end && !replay_->following()) setPlaying(false);
}

void TimelineDock::step(bool forward, bool large) {
  if (!replay_) return;
  const auto r = *replay_->timeRange();
  const Duration d = std::max<Duration>((r.end - r.start) / (large ? 10 : 100), Duration(1));
  moveTo(forward ? replay_->cursor() + d : replay_->cursor() - d);
}

void TimelineDock::jumpToStart() {
  if (replay_) moveTo(replay_->timeRange()->start);
}

void TimelineDock::jumpToEnd() {
  if (replay_) replay_->goLive();
}

bool TimelineDock::stepToEvent(bool forward) {
  if (!replay_) return false;
  const ActorId actor = window_->selection().current();
  std::optional<observe::Event> e;
  try {
    e = replay_->adjacentEvent(replay_->cursor(), forward, actor);
  } catch (const RecordingError& error) {
    window_->statusBar()->showMessage(QString::fromUtf8(error.what()), 8000);
    return false;
  }
  if (!e) {
    note_ =
        QStringLiteral("No %1 event%2")
            .arg(forward ? QStringLiteral("later") : QStringLiteral("earlier"),
                 actor.is_valid() ? QStringLiteral(" of %1").arg(views::formatActorId(actor)) : QString());
    window_->statusBar()->showMessage(note_, 4000);
    return false;
  }
  note_.clear();
  moveTo(e->time);
  return true;
}

bool TimelineDock::stepToFailure(bool forward) {
  if (!replay_) return false;
  std::optional<observe::Event> e;
  try {
    e = replay_->adjacentEvent(replay_->cursor(), forward, {}, {observe::EventKind::failed});
  } catch (const RecordingError& error) {
    window_->statusBar()->showMessage(QString::fromUtf8(error.what()), 8000);
    return false;
  }
  if (!e) {
    note_ = forward ? QStringLiteral("No later failure") : QStringLiteral("No earlier failure");
    window_->statusBar()->showMessage(note_, 4000);
    return false;
  }
  note_.clear();
  window_->selection().select(e->actor);  // the inspector shows who failed, and why
  moveTo(e->time);
  return true;
}

void TimelineDock::zoomFlow(TimePoint from, TimePoint to) {
  auto* flow =
      window_->findView(QStringLiteral("message-flow"))
          ? qobject_cast<views::MessageFlowView*>(window_->findView(QStringLiteral("message-flow"))->widget)
          : nullptr;
  if (flow == nullptr) return;
  if (from >= to) {
    flow->setTimeRange(std::nullopt);
    unzoom_->hide();
    return;
  }
  // The state at the range's end holds every message of the range.
  moveTo(to);
  flow->setTimeRange(std::pair(from, to));
  unzoom_->show();
  window_->showView(QStringLiteral("message-flow"));
}

void TimelineDock::keyPressEvent(QKeyEvent* event) {
  const bool shift = event->modifiers() & Qt::ShiftModifier;
  switch (event->key()) {
    case Qt::Key_Space:
      setPlaying(!playing());
      break;
    case Qt::Key_Left:
      step(false, shift);
      break;
    case Qt::Key_Right:
      step(true, shift);
      break;
    case Qt::Key_Home:
      jumpToStart();
      break;
    case Qt::Key_End:
      jumpToEnd();
      break;
    default:
      QWidget::keyPressEvent(event);
      return;
  }
  event->accept();
}

}  // namespace actorscope::gui
