// BenchmarksView: runs the benchmark suite (engine/benchmarks) from the app and charts it. The
// controls pick the runtimes, threads, a filter and quick mode; the table shows the runtimes side
// by side; one chart shows the second runtime against the first for every benchmark of the run,
// with the spread of the samples and which benchmarks ran on a busy machine, the other the
// selected benchmark's history from the benchmark-history file. The view does not run anything
// itself: it asks for a run (runRequested) and is told what happens, and how busy the machine was.
#pragma once

#include <actorscope/benchmarks/history_store.hpp>
#include <actorscope/benchmarks/runner.hpp>

#include <QWidget>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace actorscope::views {

class BenchmarkResultsModel;
class RatioChart;

/// How busy the machine was during a run, as the app measured it (from the kernel's counters).
struct RunLoad {
  unsigned cores = 0;
  /// Cores that other programs kept busy on average over the run; negative when unknown.
  double othersCores = -1;
  /// The one-minute load average before and after the run; negative when unknown.
  double loadBefore = -1;
  double loadAfter = -1;
  /// The observatory's live session ran alongside (in this process: not among "other programs").
  bool sessionRunning = false;
  /// Per case, (benchmark, runtime): the cores other programs kept busy while it ran.
  std::map<std::pair<std::string, std::string>, double> othersCoresByCase;
  /// From this many cores used by others on average, a figure is marked as taken on a busy machine.
  static constexpr double kBusyCores = 0.25;
};

class BenchmarksView : public QWidget {
  Q_OBJECT
 public:
  /// Where the history chart gets a benchmark's stored results (oldest first).
  using HistorySource = std::function<std::vector<bench::HistoryPoint>(const std::string& benchmark)>;

  explicit BenchmarksView(QWidget* parent = nullptr);

  /// The options the controls describe now.
  bench::RunOptions options() const;
  void setOptions(const bench::RunOptions& options);
  void setHistorySource(HistorySource source);
  /// Reads the selected benchmark's history again (after a run was stored).
  void refreshHistory();

  /// A run started or ended: the button turns into Cancel and back, the controls lock.
  void setRunning(bool running);
  void showProgress(const bench::Progress& progress);
  /// Shows a finished (or cancelled) run in the table and the ratio chart.
  void showReport(const bench::RunReport& report);
  /// Says what went wrong (a bad filter, a runtime this build lacks); the last results stay.
  void showError(const QString& message);
  /// A line under the controls: where the run was stored, and when.
  void showNote(const QString& message);
  /// How busy the machine was during the run just shown: said under the controls, and marked on
  /// the bars of the benchmarks that ran while others kept it busy.
  void showLoad(const RunLoad& load);

  BenchmarkResultsModel* model() const noexcept { return model_; }
  QTableView* table() const noexcept { return table_; }
  RatioChart* ratioChart() const noexcept { return ratioChart_; }
  QChart* historyChart() const noexcept { return historyChart_; }
  bool running() const noexcept { return running_; }
  /// The line under the controls: the last run's summary, or what went wrong.
  QString statusText() const;

 signals:
  void runRequested(const actorscope::bench::RunOptions& options);
  void cancelRequested();

 private:
  void rebuildRatioChart();
  void rebuildHistoryChart(const QString& benchmark);

  BenchmarkResultsModel* model_;
  QCheckBox* asio_;
  QCheckBox* qt_;
  QSpinBox* threads_;
  QLineEdit* filter_;
  QCheckBox* quick_;
  QPushButton* run_;
  QProgressBar* progress_;
  QLabel* status_;
  QTableView* table_;
  RatioChart* ratioChart_;
  RunLoad load_;
  QChart* historyChart_;
  QChartView* historyView_;
  HistorySource history_;
  bool running_ = false;
};

}  // namespace actorscope::views
