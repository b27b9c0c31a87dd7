// FactoriesModel: every factory (factory.hpp) the fold knows: its name, routing, pool, how busy it
// is, how deep its queue is, what it has dispatched, completed and discarded, its job latency, how
// many jobs its dead-man's switch found stuck and how many jobs it ran again after their worker failed. A row is its factory actor's (ActorIdRole).
#pragma once

#include "common/keyed_table_model.hpp"

#include <actorscope/observe/system_state.hpp>

#include <string>

namespace actorscope::views {

struct FactoryRow {
  ActorId id{};
  std::string name;
  std::string routing;
  bool alive = true;
  bool draining = false;
  std::uint64_t workers = 0;
  std::uint64_t busy = 0;
  std::uint64_t queue = 0;
  std::uint64_t queueLimit = 0;
  std::uint64_t dispatched = 0;
  std::uint64_t completed = 0;
  std::uint64_t discarded = 0;
  std::uint64_t latencyP50 = 0;  ///< ns (0 with no job timed)
  std::uint64_t latencyP99 = 0;
  std::uint64_t stuck = 0;
  std::uint64_t retried = 0;
  ActorId key() const noexcept { return id; }
  bool operator==(const FactoryRow&) const = default;
};

class FactoriesModel : public KeyedTableModel<FactoryRow> {
  Q_OBJECT
 public:
  enum Column {
    NameColumn,
    RoutingColumn,
    WorkersColumn,
    BusyColumn,
    QueueColumn,
    DispatchedColumn,
    CompletedColumn,
    DiscardedColumn,
    RetriedColumn,
    StuckColumn,
    LatencyP50Column,
    LatencyP99Column,
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
