// Compare mode's window (compare_window.hpp).
#include "gui/compare_window.hpp"

#include "actors/actors_view.hpp"
#include "common/format.hpp"
#include "common/roles.hpp"
#include "compare/diff_table_model.hpp"
#include "compare/overlay_chart.hpp"
#include "timeline/timeline_widget.hpp"
#include "warnings/warning_rules.hpp"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace actorscope::gui {

namespace {

QString sideLetter(int side) {
  return side == 0 ? QStringLiteral("A") : QStringLiteral("B");
}

QString detailText(const SessionInfo& info) {
  switch (info.detail) {
    case Detail::lifecycle:
      return QStringLiteral("detail lifecycle (no message events)");
    case Detail::sampled:
      return QStringLiteral("detail sampled (1 message in %1 timed)").arg(info.sample_every);
    case Detail::full:
      return QStringLiteral("detail full (every message timed)");
  }
  return {};
}

Duration statsInterval(const SessionInfo& info) {
  return info.stats_interval > Duration::zero() ? info.stats_interval
                                                : Duration(std::chrono::milliseconds(100));
}

}  // namespace

CompareWindow::CompareWindow(const CompareSource& a, const CompareSource& b, QWidget* parent)
    : QMainWindow(parent) {
  setObjectName(QStringLiteral("compare-window"));
  setAttribute(Qt::WA_DeleteOnClose, false);  // the opener owns it (tests, screenshots, the main window)
  openSide(0, a);
  openSide(1, b);

  match_ = match_actors(sides_[0].diff.actors, sides_[1].diff.actors);
  diff_ = diff_sides(sides_[0].diff, sides_[1].diff);
  // Two sessions whose wall-clock spans overlap ran at the same time, on the same machine if they
  // were made by one comparison: each had less of it than it would have had alone.
  auto endOf = [](const SessionInfo& i) { return i.ended_at.value_or(i.updated_at); };
  concurrent_ =
      sides_[0].info.started_at < endOf(sides_[1].info) && sides_[1].info.started_at < endOf(sides_[0].info);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->setSpacing(4);

  banner_ = new QLabel(central);
  banner_->setObjectName(QStringLiteral("compare-banner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::RichText);
  QString how =
      concurrent_
          ? QStringLiteral(
                "<b>The two sides ran at the same time</b>: they shared this machine's cores, so "
                "each had less of it than it would have had alone.")
          : QStringLiteral("The two sides ran one after the other, so neither took the other's cores.");
  QString matched = QStringLiteral("%1 actors matched by path or name; %2 only in A, %3 only in B.")
                        .arg(diff_.rows.size())
                        .arg(diff_.only_a.size())
                        .arg(diff_.only_b.size());
  if (sides_[0].info.scenario != sides_[1].info.scenario)
    matched += QStringLiteral(
                   " The sessions ran different scenarios (%1 and %2): only the actors whose paths (or "
                   "registered names) match are compared.")
                   .arg(QString::fromStdString(sides_[0].info.scenario).toHtmlEscaped(),
                        QString::fromStdString(sides_[1].info.scenario).toHtmlEscaped());
  banner_->setText(how + QStringLiteral(" ") + matched + QStringLiteral(" Read-only recordings."));
  layout->addWidget(banner_);

  // Both timelines span the longer run, so that one time since start is at one x on both.
  span_ =
      std::max(sides_[0].runEnd - sides_[0].info.start_time, sides_[1].runEnd - sides_[1].info.start_time);
  time_ = computedFor_ = span_;
  auto* headers = new QHBoxLayout;
  for (int side = 0; side < 2; ++side) {
    auto* column = new QVBoxLayout;
    column->setSpacing(2);
    column->addWidget(buildHeader(side));
    column->addWidget(buildTimeline(side));
    headers->addLayout(column, 1);
  }
  layout->addLayout(headers);

  auto* splitter = new QSplitter(Qt::Vertical, central);
  splitter->setObjectName(QStringLiteral("compare-splitter"));
  splitter->setChildrenCollapsible(false);

  // Each side's actors, with the selection mapped across by path.
  auto* actors = new QSplitter(Qt::Horizontal, splitter);
  actorsPanel_ = actors;
  for (int side = 0; side < 2; ++side) {
    Side& s = sides_[static_cast<std::size_t>(side)];
    s.selection = new views::ActorSelection(this);
    s.view = new views::ActorsView(s.selection, nullptr, actors);
    s.view->setObjectName(QStringLiteral("compare-actors-%1").arg(sideLetter(side).toLower()));
    s.view->setState(*s.shown);
    connect(s.selection, &views::ActorSelection::changed, this,
            [this, side](ActorId id) { onSelected(side, id); });
  }
  actors->setChildrenCollapsible(false);

  buildCharts();
  splitter->addWidget(actors);
  splitter->addWidget(chartsPanel_);

  tabs_ = new QTabWidget(splitter);
  tabs_->setObjectName(QStringLiteral("compare-tabs"));
  diffModel_ = new views::DiffTableModel(this);
  diffModel_->setDiff(diff_);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(diffModel_);
  proxy->setSortRole(views::SortRole);
  diffTable_ = new QTableView(tabs_);
  diffTable_->setObjectName(QStringLiteral("compare-diff"));
  diffTable_->setModel(proxy);
  diffTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  diffTable_->setSelectionMode(QAbstractItemView::SingleSelection);
  diffTable_->setAlternatingRowColors(true);
  diffTable_->verticalHeader()->hide();
  diffTable_->setWordWrap(false);
  // The diff's own order (largest difference first) until the user sorts by a column.
  diffTable_->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);
  diffTable_->setSortingEnabled(true);
  diffTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  diffTable_->horizontalHeader()->setSectionResizeMode(views::DiffTableModel::kActorColumn,
                                                       QHeaderView::Interactive);
  diffTable_->setColumnWidth(views::DiffTableModel::kActorColumn,
                             fontMetrics().horizontalAdvance(QLatin1Char('0')) * 28);
  connect(diffTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, proxy](const QModelIndex& current) {
            if (!current.isValid()) return;
            // The model's rows: the matched actors (the diff's order), then A's one-sided, then B's.
            auto row = static_cast<std::size_t>(proxy->mapToSource(current).row());
            int side = 0;
            std::string path;
            if (row < diff_.rows.size()) {
              path = diff_.rows[row].path;
            } else if ((row -= diff_.rows.size()) < diff_.only_a.size()) {
              path = diff_.only_a[row].path;
            } else {
              side = 1;
              path = diff_.only_b[row - diff_.only_a.size()].path;
            }
            const ActorId id = actorAt(side, path);
            if (id.is_valid()) selection(side)->select(id);
          });
  tabs_->addTab(diffTable_, QStringLiteral("Differences (%1 of %2 matched actors differ)")
                                .arg(diff_.differing())
                                .arg(diff_.rows.size()));
  warnings_ = new QTableWidget(tabs_);
  warnings_->setObjectName(QStringLiteral("compare-warnings"));
  tabs_->addTab(warnings_, QString());
  fillWarnings();
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 4);
  layout->addWidget(splitter, 1);
  setCentralWidget(central);

  buildMenus();
  setWindowTitle(QStringLiteral("Compare %1 with %2 — Actorscope").arg(sideTitle(0), sideTitle(1)));
  statusBar()->showMessage(QStringLiteral("Pick an actor on either side: its match is picked on the other."));

  applyTime();  // the cursor's label: at the end of the run

  // Start on the matched actor with the deepest mailbox (the one whose mailbox chart says most),
  // or the one that differs most when no mailbox filled.
  if (!diff_.rows.empty()) {
    const DiffRow* pick = &diff_.rows.front();
    double deepest = 0;
    for (const DiffRow& row : diff_.rows) {
      const DiffCell& peak = row.cell(DiffColumn::peak_mailbox);
      const double d = std::max(peak.a.value_or(0), peak.b.value_or(0));
      if (d > deepest) {
        deepest = d;
        pick = &row;
      }
    }
    const ActorId first = actorAt(0, pick->path);
    if (first.is_valid()) selection(0)->select(first);
  }
}

CompareWindow::~CompareWindow() = default;

void CompareWindow::openSide(int side, const CompareSource& source) {
  Side& s = sides_[static_cast<std::size_t>(side)];
  s.file = source.file;
  const std::filesystem::path path(source.file.toStdString());
  s.reader = std::make_unique<SessionReader>(path);  // RecordingError: it names the file
  std::int64_t id = 0;
  if (source.session) {
    id = s.reader->session(*source.session).id;
  } else {
    const auto all = s.reader->sessions();
    if (all.empty())
      throw RecordingError(RecordingError::Kind::no_such_session, path,
                           "\"" + path.string() +
                               "\" is a recording with no session in it: there is nothing to compare. Record "
                               "into it again, or choose another file.");
    id = all.back().id;
  }
  s.info = s.reader->session(id);
  s.diff = read_diff_side(*s.reader, id);
  s.diff.label = QFileInfo(source.file).fileName().toStdString() + ", session " + std::to_string(id);
  for (std::size_t i = 0; i < s.diff.actors.size(); ++i)
    for (ActorId inc : s.diff.actors[i].incarnations) s.slotOf[inc] = i;

  // The end of the run, before the shutdown stopped everything (see the header comment).
  // System::shutdown stops the roots with the reason "system shutdown" (and their subtrees die
  // with them): the first such stop is when the shutdown began.
  s.final = std::make_unique<observe::SystemState>(s.reader->state_at(id, TimePoint::max()));
  // A root kills its children as it exits, before its own stop is recorded: the kills just
  // before that stop (within one statistics interval) are the shutdown's too.
  const std::vector<ActorInfo> actors = s.reader->actors(id);
  TimePoint end = s.info.end_time;
  for (const ActorInfo& a : actors)
    if (a.stopped && a.exit_reason == "system shutdown") end = std::min(end, *a.stopped);
  const TimePoint firstShutdown = end;
  for (const ActorInfo& a : actors)
    if (a.stopped && a.exit_kind == ExitKind::killed && *a.stopped <= firstShutdown &&
        *a.stopped >= firstShutdown - statsInterval(s.info))
      end = std::min(end, *a.stopped);
  end = std::max(end - Duration(1), s.info.start_time);
  s.runEnd = end;
  s.shown = std::make_unique<observe::SystemState>(s.reader->state_at(id, end));
  // The charts over time end where the run did: the polls of the shutdown (the last of which
  // counts whatever was handled while the actors stopped) would end every line in a spike.
  s.samples = s.reader->stats(id, s.info.start_time, s.runEnd + Duration(1));
}

views::TimelineWidget* CompareWindow::buildTimeline(int side) {
  Side& s = sides_[static_cast<std::size_t>(side)];
  s.timeline = new views::TimelineWidget(this);
  s.timeline->setObjectName(
      QStringLiteral("compare-timeline-%1").arg(side == 0 ? QLatin1Char('a') : QLatin1Char('b')));
  s.timeline->setToolTip(
      QStringLiteral("Side %1's events over time since its start. Drag the cursor: both actors "
                     "tables show their side at that time since start.")
          .arg(side == 0 ? QLatin1Char('A') : QLatin1Char('B')));
  s.timeline->setFixedHeight(s.timeline->minimumSizeHint().height());
  s.timeline->setRange(s.info.start_time, s.info.start_time + span_);
  s.timeline->setCursor(s.info.start_time + time_);
  try {
    std::vector<views::TimelineWidget::Marker> markers;
    for (const TimelineMarker& m :
         s.reader->markers(s.info.id, s.info.start_time, s.info.start_time + span_)) {
      const auto kind = m.kind == TimelineMarker::Kind::failure ? views::TimelineWidget::Marker::Kind::failure
                        : m.kind == TimelineMarker::Kind::kill  ? views::TimelineWidget::Marker::Kind::kill
                                                               : views::TimelineWidget::Marker::Kind::restart;
      markers.push_back({kind, m.time, m.actor, QString::fromStdString(m.label)});
    }
    s.timeline->setMarkers(std::move(markers));
  } catch (const RecordingError& e) {
    statusBar()->showMessage(QString::fromUtf8(e.what()), 10000);
  }
  auto density = [this, side] {
    Side& d = sides_[static_cast<std::size_t>(side)];
    try {
      std::vector<views::TimelineWidget::Bucket> buckets;
      for (const DensityBucket& b : d.reader->density(d.info.id, d.info.start_time, d.info.start_time + span_,
                                                      d.timeline->wantedBuckets()))
        buckets.push_back({b.from, b.to, b.lifecycle, b.messages, b.failures});
      d.timeline->setDensity(std::move(buckets));
    } catch (const std::exception& e) {
      statusBar()->showMessage(QString::fromUtf8(e.what()), 10000);
    }
  };
  density();
  connect(s.timeline, &views::TimelineWidget::widthChanged, this, density);
  connect(s.timeline, &views::TimelineWidget::cursorDragged, this,
          [this, side](TimePoint t) { setTime(t - sides_[static_cast<std::size_t>(side)].info.start_time); });
  return s.timeline;
}

void CompareWindow::setTime(Duration sinceStart) {
  time_ = std::clamp(sinceStart, Duration::zero(), span_);
  if (timePending_) return;
  // One computation for the latest position however many slider moves came meanwhile.
  timePending_ = true;
  QTimer::singleShot(0, this, [this] {
    timePending_ = false;
    applyTime();
  });
}

void CompareWindow::setTimeNow(Duration sinceStart) {
  time_ = std::clamp(sinceStart, Duration::zero(), span_);
  applyTime();
}

void CompareWindow::applyTime() {
  const double seconds = std::chrono::duration<double>(time_).count();
  if (timeLabel_)
    timeLabel_->setText(time_ >= span_
                            ? QStringLiteral("Tables at the end of the run (%1 s)").arg(seconds, 0, 'f', 2)
                            : QStringLiteral("Tables at %1 s since start").arg(seconds, 0, 'f', 2));
  for (Side& s : sides_)
    if (s.timeline) s.timeline->setCursor(s.info.start_time + time_);
  chart(RateChart)->setCursor(time_ >= span_ ? std::nullopt : std::optional<double>(seconds));
  chart(MailboxChart)->setCursor(time_ >= span_ ? std::nullopt : std::optional<double>(seconds));
  if (time_ == computedFor_) return;
  computedFor_ = time_;
  for (int side = 0; side < 2; ++side) {
    Side& s = sides_[static_cast<std::size_t>(side)];
    const TimePoint at = std::min(s.info.start_time + time_, s.runEnd);
    try {
      auto next = std::make_unique<observe::SystemState>(s.reader->state_at(s.info.id, at));
      s.previous = std::move(s.shown);
      s.shown = std::move(next);
      s.view->setState(*s.shown);
    } catch (const RecordingError& e) {
      // The file went or was damaged meanwhile: what is shown stays, and the status bar says why.
      statusBar()->showMessage(QString::fromUtf8(e.what()), 10000);
    }
  }
}

QString CompareWindow::sideTitle(int side) const {
  const SessionInfo& i = info(side);
  return QStringLiteral("%1×%2").arg(QString::fromStdString(i.runtime)).arg(i.threads);
}

QWidget* CompareWindow::buildHeader(int side) {
  Side& s = sides_[static_cast<std::size_t>(side)];
  const SessionInfo& i = s.info;
  s.header = new QLabel(this);
  s.header->setObjectName(QStringLiteral("compare-header-%1").arg(sideLetter(side).toLower()));
  s.header->setTextFormat(Qt::RichText);
  s.header->setWordWrap(true);
  const QColor c = views::compareSideColor(palette(), side);
  const QString ended = i.ended_cleanly()
                            ? QStringLiteral("ended cleanly")
                            : QStringLiteral("<b>did not end cleanly</b> (the recording stopped early)");
  s.header->setText(
      QStringLiteral(
          "<span style=\"color:%1; font-size:large\">■</span> <b>Side %2: %3</b> · %4 · session %5<br>"
          "scenario <b>%6</b> · %7 · %8 recorded · %9")
          .arg(c.name(), sideLetter(side), sideTitle(side).toHtmlEscaped(),
               QFileInfo(s.file).fileName().toHtmlEscaped())
          .arg(i.id)
          .arg(
              QString::fromStdString(i.scenario.empty() ? std::string("(none)") : i.scenario).toHtmlEscaped(),
              detailText(i), views::formatDuration(i.duration()), ended));
  s.header->setToolTip(s.file);
  return s.header;
}

void CompareWindow::buildCharts() {
  chartsPanel_ = new QWidget(this);
  chartsPanel_->setObjectName(QStringLiteral("compare-charts"));
  auto* layout = new QVBoxLayout(chartsPanel_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  legend_ = new views::CompareLegend(chartsPanel_);
  legend_->setObjectName(QStringLiteral("compare-legend"));
  legend_->setNames(QStringLiteral("A: %1 (solid)").arg(sideTitle(0)),
                    QStringLiteral("B: %1 (dashed)").arg(sideTitle(1)));
  timeLabel_ = new QLabel(chartsPanel_);
  timeLabel_->setObjectName(QStringLiteral("compare-time"));
  timeLabel_->setForegroundRole(QPalette::PlaceholderText);
  auto* legendRow = new QHBoxLayout;
  legendRow->addWidget(legend_, 1);
  legendRow->addWidget(timeLabel_);
  layout->addLayout(legendRow);
  auto* row = new QHBoxLayout;
  row->setSpacing(4);
  for (int c = 0; c < ChartCount; ++c) {
    charts_[static_cast<std::size_t>(c)] = new views::OverlayChart(chartsPanel_);
    row->addWidget(charts_[static_cast<std::size_t>(c)], 1);
  }
  layout->addLayout(row, 1);

  auto* rate = chart(RateChart);
  rate->setObjectName(QStringLiteral("compare-rate"));
  rate->setTitle(QStringLiteral("Messages handled per second"));
  rate->setAxisTitles(QStringLiteral("time since start (s)"), QStringLiteral("messages/s"));
  for (int side = 0; side < 2; ++side) {
    const Side& s = sides_[static_cast<std::size_t>(side)];
    // Bins of one statistics interval, or wider for a long session: about 150 points a line.
    const Duration interval = statsInterval(s.info);
    const auto perBin = std::max<std::int64_t>(1, (s.info.duration() / interval + 149) / 150);
    rate->setSeries(side, views::handledRateSeries(s.samples, s.info.start_time, interval * perBin));
  }
  const std::array<std::pair<Chart, views::TimeKind>, 2> latency{
      {{QueueChart, views::TimeKind::queue}, {HandlingChart, views::TimeKind::handling}}};
  for (const auto& [id, kind] : latency) {
    auto* ch = chart(id);
    const bool queue = kind == views::TimeKind::queue;
    ch->setObjectName(queue ? QStringLiteral("compare-queue") : QStringLiteral("compare-handling"));
    ch->setTitle(queue ? QStringLiteral("Queue time, all actors")
                       : QStringLiteral("Handling time, all actors"));
    ch->setAxisTitles(queue ? QStringLiteral("time in the mailbox (log scale)")
                            : QStringLiteral("time in the handler (log scale)"),
                      QStringLiteral("% of timed messages"));
    ch->setLogX(true);
    ch->setEmptyText(QStringLiteral("no timed messages (a recording at lifecycle detail times none)"));
    for (int side = 0; side < 2; ++side) {
      // The final state: every timed message of the session.
      const Side& s = sides_[static_cast<std::size_t>(side)];
      ch->setSeries(side, views::histogramShares(views::totalHistogram(*s.final, kind)));
    }
  }
  auto* mailbox = chart(MailboxChart);
  mailbox->setObjectName(QStringLiteral("compare-mailbox"));
  mailbox->setAxisTitles(QStringLiteral("time since start (s)"),
                         QStringLiteral("messages queued (peak per poll)"));
  showMailbox(std::nullopt, std::nullopt);
}

void CompareWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  for (int side = 0; side < 2; ++side) {
    QAction* save = file->addAction(QStringLiteral("Save side %1 as…").arg(sideLetter(side)), this,
                                    [this, side] { saveSideFromUser(side); });
    save->setObjectName(QStringLiteral("save-side-%1").arg(sideLetter(side).toLower()));
    save->setToolTip(isTemporary(side)
                         ? QStringLiteral("Side %1 is in a temporary file, removed when this window "
                                          "closes: keep a copy")
                               .arg(sideLetter(side))
                         : QStringLiteral("Copy side %1's recording").arg(sideLetter(side)));
  }
  file->addSeparator();
  file->addAction(QStringLiteral("&Close"), QKeySequence::Close, this, &QWidget::close);
  file->setToolTipsVisible(true);
}

void CompareWindow::fillWarnings() {
  auto pathFn = [this](int side) { return [this, side](ActorId id) { return pathOf(side, id); }; };
  oneSided_ = views::oneSidedWarnings(views::lint(*sides_[0].shown), pathFn(0), views::lint(*sides_[1].shown),
                                      pathFn(1));
  warnings_->setColumnCount(4);
  warnings_->setHorizontalHeaderLabels({QStringLiteral("Only on"), QStringLiteral("Warning"),
                                        QStringLiteral("Actor"), QStringLiteral("What it says")});
  warnings_->setRowCount(static_cast<int>(oneSided_.size()));
  warnings_->verticalHeader()->hide();
  warnings_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  warnings_->setSelectionBehavior(QAbstractItemView::SelectRows);
  warnings_->horizontalHeader()->setStretchLastSection(true);
  for (std::size_t r = 0; r < oneSided_.size(); ++r) {
    const auto& w = oneSided_[r];
    const int row = static_cast<int>(r);
    auto* side = new QTableWidgetItem(QStringLiteral("%1 (%2)").arg(sideLetter(w.side), sideTitle(w.side)));
    side->setForeground(views::compareSideColor(palette(), w.side));
    warnings_->setItem(row, 0, side);
    warnings_->setItem(row, 1, new QTableWidgetItem(QString::fromUtf8(views::warningTitle(w.warning.kind))));
    warnings_->setItem(
        row, 2,
        new QTableWidgetItem(w.path.empty() ? QStringLiteral("(system)") : QString::fromStdString(w.path)));
    warnings_->setItem(row, 3, new QTableWidgetItem(QString::fromStdString(w.warning.summary)));
  }
  warnings_->resizeColumnsToContents();
  tabs_->setTabText(tabs_->indexOf(warnings_),
                    QStringLiteral("Warnings on one side only (%1)").arg(oneSided_.size()));
  if (oneSided_.empty()) {
    warnings_->setRowCount(1);
    auto* none = new QTableWidgetItem(
        QStringLiteral("none: every warning at the end of a run was raised on both sides"));
    warnings_->setItem(0, 1, none);
    warnings_->setSpan(0, 1, 1, 3);
  }
}

std::string CompareWindow::pathOf(int side, ActorId id) const {
  const Side& s = sides_.at(static_cast<std::size_t>(side));
  const auto it = s.slotOf.find(id);
  return it == s.slotOf.end() ? std::string() : s.diff.actors[it->second].path;
}

ActorId CompareWindow::actorAt(int side, const std::string& path) const {
  const Side& s = sides_.at(static_cast<std::size_t>(side));
  for (const ActorSlot& slot : s.diff.actors) {
    if (slot.path != path) continue;
    // The latest incarnation the table can show; else the latest there was.
    for (auto it = slot.incarnations.rbegin(); it != slot.incarnations.rend(); ++it)
      if (s.shown->actor(*it) != nullptr) return *it;
    return slot.incarnations.empty() ? ActorId{} : slot.incarnations.back();
  }
  return {};
}

bool CompareWindow::isTemporary(int side) const {
  return temporary_ && QFileInfo(sides_.at(static_cast<std::size_t>(side)).file).absolutePath() ==
                           QFileInfo(temporary_->path()).absoluteFilePath();
}

void CompareWindow::onSelected(int side, ActorId id) {
  if (syncing_) return;
  const int other = 1 - side;
  const Side& s = sides_[static_cast<std::size_t>(side)];
  std::optional<std::size_t> slot, otherSlot;
  if (auto it = s.slotOf.find(id); it != s.slotOf.end()) slot = it->second;
  if (slot) {
    for (const ActorMatch::Pair& p : match_.matched)
      if ((side == 0 ? p.a : p.b) == *slot) otherSlot = side == 0 ? p.b : p.a;
  }
  ActorId otherId{};
  if (otherSlot) {
    const ActorSlot& os = sides_[static_cast<std::size_t>(other)].diff.actors[*otherSlot];
    otherId = actorAt(other, os.path);
  }
  syncing_ = true;
  selection(other)->select(otherId);  // none: the actor exists on this side only
  syncing_ = false;
  if (slot && !otherSlot)
    statusBar()->showMessage(QStringLiteral("%1 exists on side %2 only")
                                 .arg(QString::fromStdString(s.diff.actors[*slot].path), sideLetter(side)));
  else
    statusBar()->clearMessage();
  showMailbox(side == 0 ? slot : otherSlot, side == 0 ? otherSlot : slot);
}

void CompareWindow::showMailbox(std::optional<std::size_t> slotA, std::optional<std::size_t> slotB) {
  auto* mailbox = chart(MailboxChart);
  const std::array<std::optional<std::size_t>, 2> chosen{slotA, slotB};
  QString path;
  for (int side = 0; side < 2; ++side) {
    const Side& s = sides_[static_cast<std::size_t>(side)];
    const auto& slot = chosen[static_cast<std::size_t>(side)];
    if (!slot) {
      mailbox->setSeries(side, {});
      continue;
    }
    const ActorSlot& picked = s.diff.actors[*slot];
    if (path.isEmpty()) path = QString::fromStdString(picked.path);
    const std::set<ActorId> incarnations(picked.incarnations.begin(), picked.incarnations.end());
    mailbox->setSeries(side, views::mailboxSeries(s.samples, incarnations, s.info.start_time));
  }
  mailbox->setTitle(path.isEmpty()
                        ? QStringLiteral("Mailbox depth of the selected actor")
                        : QStringLiteral("Mailbox depth: %1").arg(path.section(QLatin1Char('/'), -2)));
  mailbox->setToolTip(path);
  mailbox->setEmptyText(path.isEmpty() ? QStringLiteral("pick an actor in either table")
                                       : QStringLiteral("no statistics polled for it"));
}

QString CompareWindow::saveSide(int side, const QString& to) {
  const QString from = sides_.at(static_cast<std::size_t>(side)).file;
  if (QFileInfo::exists(to))
    return QStringLiteral("\"%1\" already exists: choose another name (a recording is never overwritten).")
        .arg(to);
  QFile source(from);
  if (!source.copy(to))
    return QStringLiteral("Could not copy side %1's recording to \"%2\": %3")
        .arg(sideLetter(side), to, source.errorString());
  return {};
}

void CompareWindow::saveSideFromUser(int side) {
  const QString to = QFileDialog::getSaveFileName(
      this, QStringLiteral("Save side %1 as").arg(sideLetter(side)),
      QStringLiteral("side-%1.db").arg(sideLetter(side).toLower()), QStringLiteral("Recordings (*.db)"),
      nullptr, QFileDialog::DontConfirmOverwrite);
  if (to.isEmpty()) return;
  const QString error = saveSide(side, to);
  if (!error.isEmpty())
    QMessageBox::warning(this, QStringLiteral("Could not save"), error);
  else
    statusBar()->showMessage(QStringLiteral("Side %1 saved as %2").arg(sideLetter(side), to), 6000);
}

}  // namespace actorscope::gui
