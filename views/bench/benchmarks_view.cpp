#include "bench/benchmarks_view.hpp"

#include "bench/benchmark_results_model.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
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
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>

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
  filter_->setMinimumWidth(260);
  quick_ = new QCheckBox(QStringLiteral("Quick"), this);
  quick_->setChecked(true);
  quick_->setToolTip(QStringLiteral("Fewer samples and a shorter warm-up: everything in under 2 minutes"));
  run_ = new QPushButton(QStringLiteral("Run"), this);
  run_->setDefault(true);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(QStringLiteral("Runtimes:"), this));
  controls->addWidget(asio_);
  controls->addWidget(qt_);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(QStringLiteral("Threads:"), this));
  controls->addWidget(threads_);
  controls->addSpacing(12);
  controls->addWidget(filter_, 1);
  controls->addWidget(quick_);
  controls->addWidget(run_);

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

  ratioChart_ = new QChart;
  ratioChart_->legend()->hide();
  ratioChart_->setTitle(QStringLiteral("No run yet"));
  ratioView_ = new QChartView(ratioChart_, this);
  ratioView_->setRenderHint(QPainter::Antialiasing);
  historyChart_ = new QChart;
  historyChart_->setTitle(QStringLiteral("History: pick a benchmark in the table"));
  historyView_ = new QChartView(historyChart_, this);
  historyView_->setRenderHint(QPainter::Antialiasing);

  auto* charts = new QSplitter(Qt::Horizontal, this);
  charts->addWidget(ratioView_);
  charts->addWidget(historyView_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(charts);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  ratioView_->setMinimumHeight(220);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
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

void BenchmarksView::rebuildRatioChart() {
  ratioChart_->removeAllSeries();
  for (QAbstractAxis* a : ratioChart_->axes()) {
    ratioChart_->removeAxis(a);
    delete a;
  }
  const auto& rts = model_->runtimes();
  if (rts.size() < 2) {
    ratioChart_->setTitle(QStringLiteral("Run two runtimes to compare them"));
    return;
  }
  auto* set = new QBarSet(QString::fromStdString(rts[1]) + QLatin1Char('/') + QString::fromStdString(rts[0]));
  QStringList categories;
  double top = 2.5;  // 1x and 2x always on the scale, and room for the labels
  // Bottom to top in a horizontal chart: add in reverse so the first benchmark is at the top.
  for (int row = model_->rowCount() - 1; row >= 0; --row) {
    const double ratio = model_->ratioAt(row);
    if (ratio <= 0) continue;
    categories << shortName(model_->benchmarkAt(row));
    *set << ratio;
    top = std::max(top, ratio * 1.25);
  }
  auto* series = new QHorizontalBarSeries;
  series->append(set);
  series->setLabelsVisible(true);
  series->setLabelsFormat(QStringLiteral("@value×"));
  series->setLabelsPrecision(3);
  ratioChart_->addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(categories);
  auto* x = new QValueAxis;
  x->setRange(0, top);
  x->applyNiceNumbers();
  x->setLabelFormat(QStringLiteral("%.1f"));
  x->setTitleText(QStringLiteral("times as long as on %1").arg(QString::fromStdString(rts[0])));
  ratioChart_->addAxis(y, Qt::AlignLeft);
  ratioChart_->addAxis(x, Qt::AlignBottom);
  series->attachAxis(y);
  series->attachAxis(x);
  ratioChart_->setTitle(QStringLiteral("%1 ÷ %2, median per element (1× is a tie)")
                            .arg(QString::fromStdString(rts[1]), QString::fromStdString(rts[0])));
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
