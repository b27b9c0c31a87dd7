// The warnings table.
#include "warnings/warnings_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/icons.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

namespace actorscope::views {

WarningsModel::WarningsModel(QObject* parent) : KeyedTableModel<WarningRow>(parent) {}

void WarningsModel::reset() {
  firstSeen_.clear();
  clear();
  emit countChanged(0);
}

void WarningsModel::update(const observe::SystemState& state) {
  origin_ = state.first_time();
  std::vector<WarningRow> fresh;
  decltype(firstSeen_) seen;
  for (Warning& w : lint(state, thresholds_)) {
    WarningRow r;
    const auto key = w.key();
    auto it = firstSeen_.find(key);
    r.since = it != firstSeen_.end() ? it->second : state.time();
    seen.emplace(key, r.since);
    if (w.actor.is_valid()) {
      const observe::ActorRecord* a = state.actor(w.actor);
      r.actorName = a ? displayName(*a) : "actor " + w.actor.to_string();
    }
    r.warning = std::move(w);
    fresh.push_back(std::move(r));
  }
  firstSeen_ = std::move(seen);
  const int before = rowCount();
  setRows(std::move(fresh));
  if (rowCount() != before) emit countChanged(rowCount());
}

int WarningsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant WarningsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const WarningRow& r = rows_[static_cast<std::size_t>(index.row())];
  const Warning& w = r.warning;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case RuleColumn: return QString::fromUtf8(warningTitle(w.kind).data(), static_cast<int>(warningTitle(w.kind).size()));
        case ActorColumn:
          return w.actor.is_valid() ? QStringLiteral("%1  %2").arg(QString::fromStdString(r.actorName), formatActorId(w.actor))
                                    : QStringLiteral("system");
        case SummaryColumn: return QString::fromStdString(w.summary);
        case SinceColumn: return formatSince(r.since, origin_);
      }
      break;
    case Qt::DecorationRole:
      if (index.column() == RuleColumn)
        return icon(w.severity == Severity::error ? QStringLiteral("c-error") : QStringLiteral("c-warning"));
      break;
    case Qt::ToolTipRole: {
      const auto e = warningExplanation(w.kind);
      return QStringLiteral("<p><b>%1</b></p><p>%2</p>")
          .arg(QString::fromStdString(w.summary).toHtmlEscaped(),
               QString::fromUtf8(e.data(), static_cast<int>(e.size())).toHtmlEscaped());
    }
    case Qt::ForegroundRole:
      if (index.column() == RuleColumn) {
        const QPalette pal = QGuiApplication::palette();
        return w.severity == Severity::error ? errorColor(pal) : warningColor(pal);
      }
      break;
    case ActorIdRole: return QVariant::fromValue(w.actor);
    case KindRole: return static_cast<int>(w.kind);
    case SortRole:
      if (index.column() == SinceColumn) return QVariant::fromValue<qlonglong>(observe::to_ns(r.since));
      return data(index, Qt::DisplayRole);
    case SearchRole:
      return QStringLiteral("%1 %2 %3").arg(data(index.siblingAtColumn(RuleColumn)).toString(),
                                            data(index.siblingAtColumn(ActorColumn)).toString(),
                                            QString::fromStdString(w.summary));
  }
  return {};
}

QVariant WarningsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case RuleColumn: return QStringLiteral("Warning");
      case ActorColumn: return QStringLiteral("Actor");
      case SummaryColumn: return QStringLiteral("Why");
      case SinceColumn: return QStringLiteral("Since");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case RuleColumn: return QStringLiteral("The rule that fired (hover a row for what it means)");
      case ActorColumn: return QStringLiteral("The actor it is about; double-click to inspect it");
      case SummaryColumn: return QStringLiteral("The numbers behind the warning");
      case SinceColumn: return QStringLiteral("Session time when the warning started to hold");
    }
  }
  return {};
}

}  // namespace actorscope::views
