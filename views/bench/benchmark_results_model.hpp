// BenchmarkResultsModel: one row per benchmark of a bench::RunReport, with the runtimes side by
// side (median per element), the second runtime against the first, and ractor's figure.
#pragma once

#include <actorscope/benchmarks/runner.hpp>

#include <QAbstractTableModel>
#include <QString>

#include <string>
#include <utility>
#include <vector>

namespace actorscope::views {

/// "9.86 ns", "12.3 µs", "837 B": a per-element figure in its unit, three significant digits.
QString formatBenchValue(double value, const std::string& unit);

class BenchmarkResultsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Benchmark = 0, Per = 1 };  // then one column per runtime, the ratio, ractor's figure

  explicit BenchmarkResultsModel(QObject* parent = nullptr);

  /// Shows `report` (replacing what was shown). Its runtimes become the columns, in its order.
  void setReport(const bench::RunReport& report);
  void clear();
  const bench::RunReport& report() const noexcept { return report_; }

  /// The benchmark shown in `row`.
  QString benchmarkAt(int row) const;
  /// The runtimes shown, in column order.
  const std::vector<std::string>& runtimes() const noexcept { return runtimes_; }
  /// Column of the second runtime against the first; -1 with fewer than two runtimes.
  int ratioColumn() const noexcept;
  /// Second runtime's median per element over the first's, for `row`; 0 when either is missing.
  double ratioAt(int row) const;
  /// How far the ratio moves within the middle half of each runtime's samples: from the second's
  /// first quartile over the first's third, to the second's third quartile over the first's first.
  /// {0, 0} when ratioAt(row) is 0.
  std::pair<double, double> ratioSpreadAt(int row) const;


  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  const bench::Result* result(int row, std::size_t runtime) const;

  bench::RunReport report_;
  std::vector<std::string> benchmarks_;  // row order: first appearance in the report
  std::vector<std::string> runtimes_;
};

}  // namespace actorscope::views
