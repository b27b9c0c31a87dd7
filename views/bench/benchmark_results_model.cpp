#include "bench/benchmark_results_model.hpp"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <cmath>

namespace actorscope::views {

QString formatBenchValue(double value, const std::string& unit) {
  if (!std::isfinite(value)) return QStringLiteral("—");
  if (unit != "ns") {
    const int decimals = std::abs(value) >= 100 ? 0 : std::abs(value) >= 10 ? 1 : 2;
    return QString::number(value, 'f', decimals) + QLatin1Char(' ') + QString::fromStdString(unit);
  }
  static constexpr struct {
    double factor;
    const char* name;
  } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
  for (const auto& u : units) {
    if (std::abs(value) >= u.factor || u.factor == 1) {
      const double v = value / u.factor;
      const int decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
      return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(u.name);
    }
  }
  return {};
}

BenchmarkResultsModel::BenchmarkResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

void BenchmarkResultsModel::setReport(const bench::RunReport& report) {
  beginResetModel();
  report_ = report;
  benchmarks_.clear();
  runtimes_ = report.options.runtimes;
  for (const bench::Result& r : report.results) {
    if (std::find(benchmarks_.begin(), benchmarks_.end(), r.benchmark) == benchmarks_.end())
      benchmarks_.push_back(r.benchmark);
  }
  endResetModel();
}

void BenchmarkResultsModel::clear() {
  setReport({});
}

QString BenchmarkResultsModel::benchmarkAt(int row) const {
  if (row < 0 || row >= static_cast<int>(benchmarks_.size())) return {};
  return QString::fromStdString(benchmarks_[static_cast<std::size_t>(row)]);
}

int BenchmarkResultsModel::ratioColumn() const noexcept {
  return runtimes_.size() >= 2 ? Per + 1 + static_cast<int>(runtimes_.size()) : -1;
}

const bench::Result* BenchmarkResultsModel::result(int row, std::size_t runtime) const {
  if (row < 0 || row >= static_cast<int>(benchmarks_.size()) || runtime >= runtimes_.size()) return nullptr;
  const bench::Result* r = report_.find(benchmarks_[static_cast<std::size_t>(row)], runtimes_[runtime]);
  return r != nullptr && r->ok() ? r : nullptr;
}

double BenchmarkResultsModel::ratioAt(int row) const {
  const bench::Result* a = result(row, 0);
  const bench::Result* b = result(row, 1);
  if (a == nullptr || b == nullptr || !a->has_per_element() || a->median_per_element() <= 0) return 0;
  return b->median_per_element() / a->median_per_element();
}

std::pair<double, double> BenchmarkResultsModel::ratioSpreadAt(int row) const {
  if (ratioAt(row) <= 0) return {0, 0};
  const bench::Statistics& a = result(row, 0)->statistics;
  const bench::Statistics& b = result(row, 1)->statistics;
  if (a.q1 <= 0 || a.q3 <= 0) return {0, 0};
  return {b.q1 / a.q3, b.q3 / a.q1};  // elements cancel: both ran the same benchmark
}

int BenchmarkResultsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(benchmarks_.size());
}

int BenchmarkResultsModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return Per + 1 + static_cast<int>(runtimes_.size()) + (runtimes_.size() >= 2 ? 1 : 0) + 1;
}

QVariant BenchmarkResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section == Benchmark) return QStringLiteral("Benchmark");
  if (section == Per) return QStringLiteral("Per");
  const int rt = section - Per - 1;
  if (rt < static_cast<int>(runtimes_.size()))
    return QString::fromStdString(runtimes_[static_cast<std::size_t>(rt)]);
  if (section == ratioColumn())
    return QString::fromStdString(runtimes_[1]) + QLatin1Char('/') + QString::fromStdString(runtimes_[0]);
  return QStringLiteral("ractor / tokio");
}

QVariant BenchmarkResultsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const int row = index.row(), col = index.column();
  const std::string& name = benchmarks_[static_cast<std::size_t>(row)];
  const bench::Result* any = nullptr;
  for (std::size_t i = 0; i < runtimes_.size() && any == nullptr; ++i) any = report_.find(name, runtimes_[i]);
  if (any == nullptr) return {};

  if (col == Benchmark) {
    if (role == Qt::DisplayRole) return QString::fromStdString(name);
    if (role == Qt::ToolTipRole) return QString::fromStdString(any->group);
    return {};
  }
  if (col == Per) {
    if (role != Qt::DisplayRole) return {};
    return any->has_per_element() ? QString::fromStdString(any->element) : QString::fromStdString(any->unit);
  }
  const int rt = col - Per - 1;
  if (rt < static_cast<int>(runtimes_.size())) {
    const bench::Result* r = report_.find(name, runtimes_[static_cast<std::size_t>(rt)]);
    if (r == nullptr) return {};
    if (!r->ok()) {
      if (role == Qt::DisplayRole) return QStringLiteral("error");
      if (role == Qt::ToolTipRole) return QString::fromStdString(r->error);
      if (role == Qt::ForegroundRole) return QBrush(QColor(0xc6, 0x28, 0x28));
      return {};
    }
    const double v = r->has_per_element() ? r->median_per_element() : r->statistics.median;
    if (role == Qt::DisplayRole) return formatBenchValue(v, r->unit);
    if (role == Qt::UserRole) return v;
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
      const bench::Statistics& s = r->statistics;
      const double e = r->has_per_element() ? r->elements : 1;
      return QStringLiteral("%1 samples\nmin %2\nfirst quartile %3\nmedian %4\nthird quartile %5\np95 %6\nmax %7\n"
                            "outliers %8")
          .arg(s.count)
          .arg(formatBenchValue(s.min / e, r->unit), formatBenchValue(s.q1 / e, r->unit),
               formatBenchValue(s.median / e, r->unit), formatBenchValue(s.q3 / e, r->unit),
               formatBenchValue(s.p95 / e, r->unit), formatBenchValue(s.max / e, r->unit))
          .arg(s.outliers_mild + s.outliers_severe);
    }
    return {};
  }
  if (col == ratioColumn()) {
    const double ratio = ratioAt(row);
    if (ratio <= 0) return {};
    if (role == Qt::DisplayRole) return QString::number(ratio, 'f', 2) + QStringLiteral("×");
    if (role == Qt::UserRole) return ratio;
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  // ractor's figure, per element like the others.
  if (!any->reference) return {};
  const double e = any->has_per_element() ? any->elements : 1;
  if (role == Qt::DisplayRole)
    return formatBenchValue(any->reference->low / e, any->unit) + QStringLiteral(" – ") +
           formatBenchValue(any->reference->high / e, any->unit);
  if (role == Qt::ToolTipRole) return QString::fromStdString(any->reference->label);
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

}  // namespace actorscope::views
