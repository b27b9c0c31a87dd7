#include "bench/benchmarks_view.hpp"

#include "bench/benchmark_results_model.hpp"
#include "bench/ratio_chart.hpp"
#include "common/health.hpp"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace actorscope::views {

namespace {

// Shorter category labels for the ratio chart; the table keeps the full names.
QString shortName(const QString& name) {
  QString s = name;
  s.replace(QStringLiteral(" to process first message"), QString());
  s.replace(QStringLiteral(" to be processed"), QString());
  s.replace(QStringLiteral("Casting 100000 messages of "), QStringLiteral("Casts, "));
  s.replace(QStringLiteral("Supervision tree of depth 3 and breadth 10: spawn and cascading shutdown"),
            QStringLiteral("Supervision tree"));
  s.replace(QStringLiteral("Spawn throughput: 1000 actors that stop immediately"),
            QStringLiteral("Spawn throughput"));
  return s;
}

}  // namespace

BenchmarksView::BenchmarksView(QWidget* parent) : QWidget(parent), model_(new BenchmarkResultsModel(this)) {
  asio_ = new QCheckBox(QStringLiteral("asio"), this);
  qt_ = new QCheckBox(QStringLiteral("qt"), this);
  asio_->setChecked(true);
  qt_->setChecked(true);
  threads_ = new QSpinBox(this);
  threads_->setRange(0, 64);
  threads_->setSpecialValueText(QStringLiteral("one per core"));
  threads_->setToolTip(QStringLiteral("Worker threads of each runtime"));
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(QStringLiteral("Filter: a regular expression, e.g. Creation|Casting"));
  filter_->setClearButtonEnabled(true);
  filter_->setMinimumWidth(160);
  quick_ = new QCheckBox(QStringLiteral("Quick"), this);
  quick_->setChecked(true);
  quick_->setToolTip(QStringLiteral("Fewer samples and a shorter warm-up: everything in under 2 minutes"));
  run_ = new QPushButton(QStringLiteral("Run"), this);
  run_->setDefault(true);

  // Two rows, so that the tab never makes the window's centre wider than the docks leave it.
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(QStringLiteral("Runtimes:"), this));
  controls->addWidget(asio_);
  controls->addWidget(qt_);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(QStringLiteral("Threads:"), this));
  controls->addWidget(threads_);
  controls->addSpacing(12);
  controls->addWidget(quick_);
  controls->addStretch(1);
  controls->addWidget(run_);
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(new QLabel(QStringLiteral("Benchmarks:"), this));
  filterRow->addWidget(filter_, 1);

  progress_ = new QProgressBar(this);
  progress_->setTextVisible(true);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(QStringLiteral("idle"));
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setText(
      QStringLiteral("Runs the benchmark suite of `actorscope bench` on the runtimes chosen. "
                     "The live session keeps running meanwhile, so close it for figures to compare."));

  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->setAlternatingRowColors(true);

  ratioChart_ = new RatioChart(this);
  historyChart_ = new QChart;
  historyChart_->setTitle(QStringLiteral("History: pick a benchmark in the table"));
  historyView_ = new QChartView(historyChart_, this);
  historyView_->setRenderHint(QPainter::Antialiasing);

  auto* charts = new QSplitter(Qt::Horizontal, this);
  charts->addWidget(ratioChart_);
  charts->addWidget(historyView_);
  charts->setStretchFactor(0, 3);
  charts->setStretchFactor(1, 2);
  charts->setSizes({600, 400});  // both charts readable from the start (the splitter scales these)
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(charts);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  // Readable, yet small enough that the window still fits a 1366x768 screen when a replay adds its
  // banner and timeline (the splitter gives the charts most of the room at the default size).
  ratioChart_->setMinimumHeight(120);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addLayout(filterRow);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, [this] {
    if (running_) {
      run_->setEnabled(false);  // until the run reports its end
      run_->setText(QStringLiteral("Cancelling…"));
      emit cancelRequested();
      return;
    }
    if (!asio_->isChecked() && !qt_->isChecked()) {
      showError(QStringLiteral("Choose at least one runtime."));
      return;
    }
    emit runRequested(options());
  });
  connect(filter_, &QLineEdit::returnPressed, run_, &QPushButton::click);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { rebuildHistoryChart(model_->benchmarkAt(current.row())); });
}

bench::RunOptions BenchmarksView::options() const {
  bench::RunOptions o;
  o.runtimes.clear();
  if (asio_->isChecked()) o.runtimes.emplace_back("asio");
  if (qt_->isChecked()) o.runtimes.emplace_back("qt");
  o.threads = static_cast<unsigned>(threads_->value());
  o.filter = filter_->text().trimmed().toStdString();
  o.quick = quick_->isChecked();
  return o;
}

void BenchmarksView::setOptions(const bench::RunOptions& o) {
  asio_->setChecked(std::find(o.runtimes.begin(), o.runtimes.end(), "asio") != o.runtimes.end());
  qt_->setChecked(std::find(o.runtimes.begin(), o.runtimes.end(), "qt") != o.runtimes.end());
  threads_->setValue(static_cast<int>(o.threads));
  filter_->setText(QString::fromStdString(o.filter));
  quick_->setChecked(o.quick);
}

void BenchmarksView::refreshHistory() {
  rebuildHistoryChart(model_->benchmarkAt(table_->currentIndex().row()));
}

QString BenchmarksView::statusText() const {
  return status_->text();
}

void BenchmarksView::setHistorySource(HistorySource source) {
  history_ = std::move(source);
}

void BenchmarksView::setRunning(bool running) {
  running_ = running;
  for (QWidget* w :
       {static_cast<QWidget*>(asio_), static_cast<QWidget*>(qt_), static_cast<QWidget*>(threads_),
        static_cast<QWidget*>(filter_), static_cast<QWidget*>(quick_)})
    w->setEnabled(!running);
  run_->setEnabled(true);
  run_->setText(running ? QStringLiteral("Cancel") : QStringLiteral("Run"));
  if (running) {
    progress_->setRange(0, 0);  // busy until the first progress report
    progress_->setFormat(QStringLiteral("starting…"));
    status_->setStyleSheet(QString());
    status_->setText(QStringLiteral("Running…"));
  } else {
    progress_->setRange(0, 1);
    progress_->setValue(progress_->maximum());
  }
}

void BenchmarksView::showProgress(const bench::Progress& p) {
  if (p.case_count == 0) return;
  progress_->setRange(0, static_cast<int>(p.case_count));
  progress_->setValue(static_cast<int>(p.case_index > 0 ? p.case_index - 1 : 0));
  QString what;
  switch (p.phase) {
    case bench::Progress::Phase::starting:
      what = QStringLiteral("starting");
      break;
    case bench::Progress::Phase::warming_up:
      what = QStringLiteral("warming up");
      break;
    case bench::Progress::Phase::sampling:
      what = QStringLiteral("sample %1 of %2").arg(p.sample).arg(p.samples);
      break;
    case bench::Progress::Phase::finished:
      what = QStringLiteral("done");
      break;
  }
  progress_->setFormat(
      QStringLiteral("%1 of %2: %3 on %4, %5")
          .arg(p.case_index)
          .arg(p.case_count)
          .arg(QString::fromStdString(p.benchmark), QString::fromStdString(p.runtime), what));
}

void BenchmarksView::showReport(const bench::RunReport& report) {
  model_->setReport(report);
  load_ = {};  // a new run: what the machine did is told with it (showLoad)
  table_->horizontalHeader()->setSectionResizeMode(BenchmarkResultsModel::Benchmark, QHeaderView::Stretch);
  std::size_t failed = 0;
  for (const bench::Result& r : report.results) failed += r.ok() ? 0 : 1;
  status_->setStyleSheet(failed > 0 ? QStringLiteral("color: #c62828;") : QString());
  status_->setText(
      QStringLiteral("%1 benchmarks on %2 in %3 s%4%5")
          .arg(model_->rowCount())
          .arg([this] {
            QStringList names;
            for (const std::string& r : model_->runtimes()) names << QString::fromStdString(r);
            return names.join(QStringLiteral(" and "));
          }())
          .arg(report.seconds, 0, 'f', 1)
          .arg(report.cancelled ? QStringLiteral(", cancelled: the cases that finished") : QString())
          .arg(failed > 0 ? QStringLiteral(", %1 could not run (hover over \"error\")").arg(failed)
                          : QString()));
  progress_->setFormat(report.cancelled ? QStringLiteral("cancelled") : QStringLiteral("done"));
  rebuildRatioChart();
  if (model_->rowCount() > 0) table_->selectRow(0);
  refreshHistory();
}

void BenchmarksView::showError(const QString& message) {
  status_->setStyleSheet(QStringLiteral("color: #c62828;"));
  status_->setText(message);
  progress_->setFormat(QStringLiteral("not run"));
}

void BenchmarksView::showNote(const QString& message) {
  if (status_->text().isEmpty()) {
    status_->setText(message);
  } else {
    status_->setText(status_->text() + QStringLiteral(". ") + message);
  }
}

void BenchmarksView::showLoad(const RunLoad& load) {
  load_ = load;
  rebuildRatioChart();
  if (load.othersCores < 0 && !load.sessionRunning) return;
  QString note;
  if (load.othersCores >= 0) {
    const bool busy = load.othersCores >= RunLoad::kBusyCores;
    note = QStringLiteral("The machine was %1: other programs kept %2 of its %3 cores busy on average")
               .arg(busy ? QStringLiteral("busy") : QStringLiteral("quiet"))
               .arg(load.othersCores, 0, 'f', 2)
               .arg(load.cores);
    if (load.loadBefore >= 0 && load.loadAfter >= 0)
      note += QStringLiteral(" (load average %1 before, %2 after)").arg(load.loadBefore, 0, 'f', 2).arg(load.loadAfter, 0, 'f', 2);
    std::size_t busyCases = 0;
    for (const auto& [c, cores] : load.othersCoresByCase) busyCases += cores >= RunLoad::kBusyCores ? 1 : 0;
    if (busyCases > 0) note += QStringLiteral("; %1 of the cases ran on a busy machine (marked busy)").arg(busyCases);
  }
  if (load.sessionRunning)
    note += (note.isEmpty() ? QString() : QStringLiteral(". ")) +
            QStringLiteral("The live session ran alongside: stop it for figures worth comparing");
  showNote(note);
  if (load.othersCores >= RunLoad::kBusyCores || load.sessionRunning)
    status_->setStyleSheet(QStringLiteral("color: %1;").arg(warningColor(palette()).name()));
}

void BenchmarksView::rebuildRatioChart() {
  const auto& rts = model_->runtimes();
  if (rts.size() < 2) {
    ratioChart_->clear(model_->rowCount() == 0 ? QStringLiteral("No run yet")
                                               : QStringLiteral("Run two runtimes to compare them"));
    return;
  }
  std::vector<RatioChart::Bar> bars;
  for (int row = 0; row < model_->rowCount(); ++row) {
    const double ratio = model_->ratioAt(row);
    if (ratio <= 0) continue;
    RatioChart::Bar b;
    b.name = model_->benchmarkAt(row);
    b.label = shortName(b.name);
    b.ratio = ratio;
    std::tie(b.low, b.high) = model_->ratioSpreadAt(row);
    QStringList notes;
    for (const std::string& rt : {rts[0], rts[1]}) {
      auto it = load_.othersCoresByCase.find({b.name.toStdString(), rt});
      if (it == load_.othersCoresByCase.end()) continue;
      if (it->second >= RunLoad::kBusyCores) b.busy = true;
      notes << QStringLiteral("other programs kept %1 cores busy while %2 ran it")
                   .arg(it->second, 0, 'f', 2)
                   .arg(QString::fromStdString(rt));
    }
    b.busyNote = notes.join(QStringLiteral("; "));
    bars.push_back(std::move(b));
  }
  if (bars.empty()) {
    ratioChart_->clear(QStringLiteral("No benchmark ran on both runtimes"));
    return;
  }
  ratioChart_->setBars(std::move(bars), QString::fromStdString(rts[1]), QString::fromStdString(rts[0]));
}

void BenchmarksView::rebuildHistoryChart(const QString& benchmark) {
  historyChart_->removeAllSeries();
  for (QAbstractAxis* a : historyChart_->axes()) {
    historyChart_->removeAxis(a);
    delete a;
  }
  if (benchmark.isEmpty() || !history_) {
    historyChart_->setTitle(QStringLiteral("History: pick a benchmark in the table"));
    return;
  }
  std::vector<bench::HistoryPoint> points;
  try {
    points = history_(benchmark.toStdString());
  } catch (const std::exception& e) {
    historyChart_->setTitle(QStringLiteral("History unavailable: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  std::map<std::string, QLineSeries*> byRuntime;
  double lo = 0, hi = 0;
  qint64 first = 0, last = 0;
  for (const bench::HistoryPoint& p : points) {
    const double v = p.statistics.median / (p.elements > 0 ? p.elements : 1);
    const QDateTime at = QDateTime::fromString(QString::fromStdString(p.started_at), Qt::ISODate);
    if (!at.isValid() || !(v > 0) || !std::isfinite(v)) continue;
    QLineSeries*& s = byRuntime[p.runtime];
    if (s == nullptr) {
      s = new QLineSeries;
      s->setName(QString::fromStdString(p.runtime));
      s->setPointsVisible(true);
    }
    const qint64 ms = at.toMSecsSinceEpoch();
    s->append(static_cast<qreal>(ms), v);
    lo = (lo == 0) ? v : std::min(lo, v);
    hi = std::max(hi, v);
    first = first == 0 ? ms : std::min(first, ms);
    last = std::max(last, ms);
  }
  if (byRuntime.empty()) {
    historyChart_->setTitle(QStringLiteral("No stored runs of \"%1\" yet").arg(benchmark));
    return;
  }
  auto* x = new QDateTimeAxis;
  x->setFormat(QStringLiteral("MMM d HH:mm"));
  x->setTickCount(static_cast<int>(std::clamp<std::size_t>(points.size(), 2, 5)));
  if (first == last) {
    first -= 60'000;
    last += 60'000;
  }
  x->setRange(QDateTime::fromMSecsSinceEpoch(first), QDateTime::fromMSecsSinceEpoch(last));
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setRange(lo / 2, hi * 2);
  y->setLabelFormat(QStringLiteral("%g"));
  y->setMinorTickCount(8);
  std::string unit = "ns";
  for (const bench::Result& r : model_->report().results)
    if (r.benchmark == benchmark.toStdString()) unit = r.unit;
  y->setTitleText(QStringLiteral("median per element, %1").arg(QString::fromStdString(unit)));
  historyChart_->addAxis(x, Qt::AlignBottom);
  historyChart_->addAxis(y, Qt::AlignLeft);
  for (auto& [rt, s] : byRuntime) {
    historyChart_->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  }
  historyChart_->setTitle(
      QStringLiteral("History of \"%1\" (%2 stored results)").arg(benchmark).arg(points.size()));
}

}  // namespace actorscope::views
