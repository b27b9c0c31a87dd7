// The timers table.
#include "timers/timers_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

namespace actorscope::views {

QString timerKindText(const std::string& kind) {
  QString k = QString::fromStdString(kind);
  k.replace(QLatin1Char('_'), QLatin1Char(' '));
  return k;
}

TimersModel::TimersModel(QObject* parent) : KeyedTableModel<TimerRow>(parent) {}

void TimersModel::update(const observe::SystemState& state) {
  std::vector<TimerRow> fresh;
  fresh.reserve(state.timers().size());
  auto nameOf = [&](ActorId id) -> std::string {
    if (!id.is_valid()) return "outside";
    const observe::ActorRecord* a = state.actor(id);
    return a ? displayName(*a) : "actor " + id.to_string();
  };
  for (const auto& [id, t] : state.timers()) {
    TimerRow r;
    r.id = id;
    r.target = t.target;
    r.owner = t.owner;
    r.targetName = nameOf(t.target);
    r.ownerName = nameOf(t.owner);
    r.kind = t.kind;
    r.period = t.period;
    // Rounded to the millisecond: the column ticks visibly without a dataChanged per nanosecond.
    r.nextIn = std::chrono::duration_cast<std::chrono::milliseconds>(t.next_due - state.time());
    r.fired = t.fired;
    r.lateP50 = t.lateness_ns.percentile(50);
    r.lateP99 = t.lateness_ns.percentile(99);
    r.lateMax = t.lateness_ns.max();
    fresh.push_back(std::move(r));
  }
  setRows(std::move(fresh));
}

int TimersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TimersModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const TimerRow& r = rows_[static_cast<std::size_t>(index.row())];
  const bool fired = r.fired > 0;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case IdColumn: return QString::number(r.id);
        case TargetColumn: return QString::fromStdString(r.targetName);
        case OwnerColumn:
          return !r.owner.is_valid() ? QStringLiteral("outside")
                 : r.owner == r.target ? QStringLiteral("itself")
                                       : QString::fromStdString(r.ownerName);
        case KindColumn: return timerKindText(r.kind);
        case PeriodColumn: return r.period > Duration::zero() ? formatDuration(r.period) : QStringLiteral("once");
        case NextColumn: return r.nextIn < Duration::zero() ? QStringLiteral("overdue %1").arg(formatDuration(-r.nextIn))
                                                            : formatDuration(r.nextIn);
        case FiredColumn: return QString::number(r.fired);
        case LateP50Column: return fired ? formatNanos(r.lateP50) : QString();
        case LateP99Column: return fired ? formatNanos(r.lateP99) : QString();
        case LateMaxColumn: return fired ? formatNanos(r.lateMax) : QString();
      }
      break;
    case SortRole:
      switch (index.column()) {
        case IdColumn: return QVariant::fromValue<qulonglong>(r.id);
        case TargetColumn: return QString::fromStdString(r.targetName);
        case OwnerColumn: return QString::fromStdString(r.ownerName);
        case KindColumn: return QString::fromStdString(r.kind);
        case PeriodColumn: return QVariant::fromValue<qlonglong>(observe::to_ns(r.period));
        case NextColumn: return QVariant::fromValue<qlonglong>(observe::to_ns(r.nextIn));
        case FiredColumn: return QVariant::fromValue<qulonglong>(r.fired);
        case LateP50Column: return QVariant::fromValue<qulonglong>(r.lateP50);
        case LateP99Column: return QVariant::fromValue<qulonglong>(r.lateP99);
        case LateMaxColumn: return QVariant::fromValue<qulonglong>(r.lateMax);
      }
      break;
    case Qt::TextAlignmentRole:
      if (index.column() >= PeriodColumn || index.column() == IdColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::ForegroundRole: {
      const QPalette pal = QGuiApplication::palette();
      if (index.column() == NextColumn && r.nextIn < Duration::zero()) return warningColor(pal);
      if (index.column() == IdColumn) return pal.color(QPalette::PlaceholderText);
      break;
    }
    case Qt::ToolTipRole:
      if (index.column() == TargetColumn) return QStringLiteral("%1 %2").arg(QString::fromStdString(r.targetName), formatActorId(r.target));
      if (index.column() == OwnerColumn && r.owner.is_valid())
        return QStringLiteral("%1 %2").arg(QString::fromStdString(r.ownerName), formatActorId(r.owner));
      if (index.column() >= LateP50Column)
        return QStringLiteral("How late the timer fired, after its deadline (p50 %1, p99 %2, max %3)")
            .arg(formatNanos(r.lateP50), formatNanos(r.lateP99), formatNanos(r.lateMax));
      break;
    case ActorIdRole: return QVariant::fromValue(index.column() == OwnerColumn && r.owner.is_valid() ? r.owner : r.target);
    case SearchRole:
      return QStringLiteral("%1 %2 %3 %4 %5")
          .arg(QString::fromStdString(r.targetName), QString::fromStdString(r.ownerName),
               QString::fromStdString(r.kind), formatActorId(r.target), formatActorId(r.owner));
  }
  return {};
}

QVariant TimersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  static const char* const names[ColumnCount] = {"Timer", "Target", "Owner", "Kind", "Period", "Next fire in",
                                                 "Fired", "Late p50", "Late p99", "Late max"};
  static const char* const tips[ColumnCount] = {
      "The timer's id",
      "The actor the timer sends to (or stops, or kills)",
      "The actor that started the timer (\"outside\" when started from outside any actor)",
      "interval: repeats every period; after: one message; exit after: a stop; kill after: a kill",
      "Time between firings (\"once\" for one-shot timers)",
      "Time until the next deadline, on the observed clock",
      "How many times it fired",
      "Median lateness: how long after its deadline it fired (the firing jitter)",
      "99th percentile lateness",
      "Worst lateness seen",
  };
  if (role == Qt::DisplayRole) return QString::fromUtf8(names[section]);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(tips[section]);
  return {};
}

}  // namespace actorscope::views
