// The factories table.
#include "factories/factories_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

namespace actorscope::views {

QString routingText(const std::string& routing) {
  QString r = QString::fromStdString(routing);
  r.replace(QLatin1Char('_'), QLatin1Char(' '));
  return r.isEmpty() ? QStringLiteral("?") : r;
}

QString discardReasonText(DiscardReason reason) {
  switch (reason) {
    case DiscardReason::ttl_expired: return QStringLiteral("TTL expired");
    case DiscardReason::load_shed: return QStringLiteral("Load shed");
    case DiscardReason::shutdown: return QStringLiteral("Shutdown");
    case DiscardReason::rate_limited: return QStringLiteral("Rate limited");
  }
  return QStringLiteral("?");
}

FactoryRow factoryRow(const observe::SystemState& state, ActorId id, const observe::FactoryRecord& f) {
  FactoryRow r;
  r.id = id;
  const observe::ActorRecord* a = state.actor(id);
  r.name = a != nullptr ? displayName(*a) : "factory " + id.to_string();
  r.alive = a == nullptr || a->alive();
  r.routing = f.routing;
  r.draining = f.settings.draining;
  r.workers = f.workers != 0 ? f.workers : f.pool_size;
  r.busy = f.busy_workers;
  r.queue = f.queue_depth;
  r.queueLimit = f.queue_limit;
  r.dispatched = f.dispatched;
  r.completed = f.completed;
  r.discarded = f.discarded_total();
  const observe::LogHistogram latency = f.latency();
  r.latencyP50 = latency.percentile(50);
  r.latencyP99 = latency.percentile(99);
  r.stuck = std::max(f.stuck, f.stuck_reports);
  r.retried = f.retried;
  return r;
}

FactoriesModel::FactoriesModel(QObject* parent) : KeyedTableModel<FactoryRow>(parent) {}

void FactoriesModel::update(const observe::SystemState& state) {
  std::vector<FactoryRow> fresh;
  fresh.reserve(state.factories().size());
  for (const auto& [id, f] : state.factories()) fresh.push_back(factoryRow(state, id, f));
  setRows(std::move(fresh));
}

int FactoriesModel::rowOf(ActorId id) const {
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].id == id) return static_cast<int>(i);
  return -1;
}

int FactoriesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FactoriesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const FactoryRow& r = rows_[static_cast<std::size_t>(index.row())];
  const auto count = [](std::uint64_t n) { return QString::number(n); };
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case NameColumn:
          return QString::fromStdString(r.name) + (r.alive ? (r.draining ? QStringLiteral(" (draining)") : QString())
                                                           : QStringLiteral(" (stopped)"));
        case RoutingColumn: return routingText(r.routing);
        case WorkersColumn: return count(r.workers);
        case BusyColumn: return count(r.busy);
        case QueueColumn:
          return r.queueLimit != 0 ? QStringLiteral("%1 / %2").arg(r.queue).arg(r.queueLimit) : count(r.queue);
        case DispatchedColumn: return count(r.dispatched);
        case CompletedColumn: return count(r.completed);
        case DiscardedColumn: return count(r.discarded);
        case LatencyP50Column: return r.completed != 0 ? formatNanos(r.latencyP50) : QString();
        case LatencyP99Column: return r.completed != 0 ? formatNanos(r.latencyP99) : QString();
        case StuckColumn: return count(r.stuck);
        case RetriedColumn: return count(r.retried);
      }
      break;
    case SortRole:
      switch (index.column()) {
        case NameColumn: return QString::fromStdString(r.name);
        case RoutingColumn: return QString::fromStdString(r.routing);
        case WorkersColumn: return QVariant::fromValue<qulonglong>(r.workers);
        case BusyColumn: return QVariant::fromValue<qulonglong>(r.busy);
        case QueueColumn: return QVariant::fromValue<qulonglong>(r.queue);
        case DispatchedColumn: return QVariant::fromValue<qulonglong>(r.dispatched);
        case CompletedColumn: return QVariant::fromValue<qulonglong>(r.completed);
        case DiscardedColumn: return QVariant::fromValue<qulonglong>(r.discarded);
        case LatencyP50Column: return QVariant::fromValue<qulonglong>(r.latencyP50);
        case LatencyP99Column: return QVariant::fromValue<qulonglong>(r.latencyP99);
        case StuckColumn: return QVariant::fromValue<qulonglong>(r.stuck);
        case RetriedColumn: return QVariant::fromValue<qulonglong>(r.retried);
      }
      break;
    case Qt::TextAlignmentRole:
      if (index.column() >= WorkersColumn) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::ForegroundRole: {
      const QPalette pal = QGuiApplication::palette();
      if (!r.alive) return pal.color(QPalette::PlaceholderText);
      if (index.column() == DiscardedColumn && r.discarded != 0) return warningColor(pal);
      if (index.column() == StuckColumn && r.stuck != 0) return warningColor(pal);
      if (index.column() == QueueColumn && r.queueLimit != 0 && r.queue >= r.queueLimit) return warningColor(pal);
      break;
    }
    case Qt::ToolTipRole:
      if (index.column() == NameColumn) return QStringLiteral("%1 %2").arg(QString::fromStdString(r.name), formatActorId(r.id));
      break;
    case ActorIdRole: return QVariant::fromValue(r.id);
    case SearchRole:
      return QStringLiteral("%1 %2 %3").arg(QString::fromStdString(r.name), QString::fromStdString(r.routing),
                                            formatActorId(r.id));
  }
  return {};
}

QVariant FactoriesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  // Short titles, so that more columns fit beside the inspector; the tooltips say them in full.
  static const char* const names[ColumnCount] = {"Factory", "Routing", "Workers", "Busy", "Queue",      "Done",
                                                 "Discarded", "Stuck", "p50",     "p99",  "Dispatched", "Retried"};
  static const char* const tips[ColumnCount] = {
      "The factory actor (its workers are its children)",
      "How it hands jobs to workers: queuer (any free worker), key persistent (a key always to one worker), "
      "round robin, sticky queuer, custom",
      "Workers in its pool",
      "Workers running a job now",
      "Jobs waiting for a worker now (and the queue's discard limit, when it has one)",
      "Jobs a worker finished",
      "Jobs dropped instead of run: TTL expired, load shed, shutdown, rate limited",
      "Jobs its dead-man's switch found stuck (running longer than its detection timeout)",
      "Median job latency: from dispatch to the factory hearing the worker finished",
      "99th percentile job latency",
      "Jobs it took in since the observation began (discarded ones included)",
      "Jobs run again because their worker failed or was killed while running them (JobOptions::retry)",
  };
  if (role == Qt::DisplayRole) return QString::fromUtf8(names[section]);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(tips[section]);
  return {};
}

}  // namespace actorscope::views
