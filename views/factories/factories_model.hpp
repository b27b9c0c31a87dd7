// FactoriesModel: every factory (factory.hpp) the fold knows, one FactoryRow each: its name,
// routing, pool, how busy it is, how deep its queue is, what it has dispatched, completed and
// discarded, its job latency, how many jobs its dead-man's switch found stuck and how many it ran
// again after their worker failed. A row is its factory actor's (ActorIdRole).
#pragma once

#include "common/keyed_table_model.hpp"
#include "factories/factory_row.hpp"

#include <actorscope/observe/system_state.hpp>

#include <string>

namespace actorscope::views {

class FactoriesModel : public KeyedTableModel<FactoryRow> {
  Q_OBJECT
 public:
  enum Column {
    NameColumn,
    RoutingColumn,
    WorkersColumn,
    BusyColumn,
    QueueColumn,
    CompletedColumn,
    DiscardedColumn,
    StuckColumn,
    LatencyP50Column,
    LatencyP99Column,
    // Last: what the others and the inspector already tell (dispatched = done + discarded + busy +
    // waiting), or is zero for most factories.
    DispatchedColumn,
    RetriedColumn,
    ColumnCount
  };

  explicit FactoriesModel(QObject* parent = nullptr);
  void update(const observe::SystemState& state);
  /// The row of factory `id`, or -1.
  int rowOf(ActorId id) const;

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

/// "key persistent" for "key_persistent": a routing as people say it.
QString routingText(const std::string& routing);
/// "Load shed" for DiscardReason::load_shed (as a table cell says it).
QString discardReasonText(DiscardReason reason);

}  // namespace actorscope::views
