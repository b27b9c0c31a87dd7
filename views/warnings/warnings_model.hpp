// WarningsModel: the warnings that hold now (warning_rules.hpp), one row each, with the actor
// they are about and since when they have held. Rows are keyed by (rule, actor, timer), so a
// warning that keeps holding keeps its row (and its selection).
#pragma once

#include "common/keyed_table_model.hpp"
#include "warnings/warning_rules.hpp"

#include <map>
#include <string>

namespace actorscope::views {

struct WarningRow {
  Warning warning;
  std::string actorName;
  TimePoint since{};
  auto key() const noexcept { return warning.key(); }
  bool operator==(const WarningRow&) const = default;
};

class WarningsModel : public KeyedTableModel<WarningRow> {
  Q_OBJECT
 public:
  enum Column { RuleColumn, ActorColumn, SummaryColumn, SinceColumn, ColumnCount };

  explicit WarningsModel(QObject* parent = nullptr);
  void update(const observe::SystemState& state);
  void setThresholds(const WarningThresholds& thresholds) { thresholds_ = thresholds; }
  const WarningThresholds& thresholds() const noexcept { return thresholds_; }
  /// Forgets the rows and when each warning first held (a new session).
  void reset();

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 signals:
  /// The number of warnings changed (for a badge on the dock's title).
  void countChanged(int count);

 private:
  WarningThresholds thresholds_;
  std::map<decltype(Warning{}.key()), TimePoint> firstSeen_;
  TimePoint origin_{};
};

}  // namespace actorscope::views
