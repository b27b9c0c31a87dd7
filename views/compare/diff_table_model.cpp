// DiffTableModel: RecordingDiff as a table (see the header).
#include "compare/diff_table_model.hpp"

#include "common/format.hpp"
#include "common/roles.hpp"

#include <cmath>
#include <limits>

namespace actorscope::views {

namespace {

constexpr int kColumns = 1 + static_cast<int>(kDiffColumnCount) * 3;

QString columnTitle(DiffColumn c) {
  switch (c) {
    case DiffColumn::handled: return QStringLiteral("Handled");
    case DiffColumn::rate: return QStringLiteral("Messages/s");
    case DiffColumn::queue_p50: return QStringLiteral("Queue p50");
    case DiffColumn::queue_p99: return QStringLiteral("Queue p99");
    case DiffColumn::handling_p50: return QStringLiteral("Handling p50");
    case DiffColumn::handling_p99: return QStringLiteral("Handling p99");
    case DiffColumn::peak_mailbox: return QStringLiteral("Peak mailbox");
    case DiffColumn::failures: return QStringLiteral("Failures");
    case DiffColumn::restarts: return QStringLiteral("Restarts");
    case DiffColumn::dropped: return QStringLiteral("Dropped");
    case DiffColumn::rejected: return QStringLiteral("Rejected");
  }
  return {};
}

bool isTime(DiffColumn c) {
  return c == DiffColumn::queue_p50 || c == DiffColumn::queue_p99 || c == DiffColumn::handling_p50 ||
         c == DiffColumn::handling_p99;
}

QString valueText(DiffColumn c, const std::optional<double>& v) {
  if (!v) return QStringLiteral("—");
  if (isTime(c)) return formatNanos(static_cast<std::uint64_t>(*v));
  if (c == DiffColumn::rate) return formatRate(*v);
  return QString::number(static_cast<qulonglong>(*v));
}

QString ratioText(const DiffCell& cell) {
  switch (cell.kind) {
    case DiffCell::Ratio::none: return QStringLiteral("—");
    case DiffCell::Ratio::fresh: return QStringLiteral("new");
    case DiffCell::Ratio::gone: return QStringLiteral("gone");
    case DiffCell::Ratio::value: break;
  }
  return QStringLiteral("%1×").arg(cell.ratio, 0, 'f', cell.ratio < 9.995 ? 2 : 0);
}

}  // namespace

DiffTableModel::DiffTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffTableModel::setDiff(RecordingDiff diff) {
  beginResetModel();
  diff_ = std::move(diff);
  endResetModel();
}

void DiffTableModel::clear() { setDiff({}); }

QString DiffTableModel::onlyIn(int row) const {
  if (row < matchedRows()) return {};
  return row - matchedRows() < static_cast<int>(diff_.only_a.size()) ? QStringLiteral("A") : QStringLiteral("B");
}

int DiffTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return static_cast<int>(diff_.rows.size() + diff_.only_a.size() + diff_.only_b.size());
}

int DiffTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant DiffTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const int row = index.row();
  const int col = index.column();
  const bool matched = row < matchedRows();
  const OneSidedActor* one = nullptr;
  if (!matched) {
    const auto i = static_cast<std::size_t>(row - matchedRows());
    one = i < diff_.only_a.size() ? &diff_.only_a[i] : &diff_.only_b[i - diff_.only_a.size()];
  }
  const bool inA = one != nullptr && onlyIn(row) == QLatin1String("A");
  const QString path = QString::fromStdString(matched ? diff_.rows[static_cast<std::size_t>(row)].path : one->path);

  if (col == kActorColumn) {
    switch (role) {
      case Qt::DisplayRole:
      case SortRole:
        return path;
      case Qt::ToolTipRole: {
        if (!matched) return path + QStringLiteral("\nonly in %1").arg(inA ? "A" : "B");
        const DiffRow& r = diff_.rows[static_cast<std::size_t>(row)];
        if (r.by == ActorMatch::By::path) return path + QStringLiteral("\nmatched by its path");
        return path + QStringLiteral("\nmatched by its registered name with B's ") + QString::fromStdString(r.path_b);
      }
      default:
        return {};
    }
  }

  const auto c = static_cast<DiffColumn>((col - 1) / 3);
  const auto part = static_cast<Part>((col - 1) % 3);
  DiffCell cell;
  if (matched) {
    cell = diff_.rows[static_cast<std::size_t>(row)].cell(c);
  } else {
    // One side only: that side's figure, nothing on the other, no ratio.
    (inA ? cell.a : cell.b) = one->figures.value(c);
  }
  if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::DisplayRole) {
    if (part == Part::ratio) return ratioText(cell);
    return valueText(c, part == Part::a ? cell.a : cell.b);
  }
  if (role == SortRole) {
    if (part == Part::ratio) return cell.difference();
    const auto& v = part == Part::a ? cell.a : cell.b;
    return v ? *v : -1.0;  // not measured sorts below 0
  }
  return {};
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= kColumns) return {};
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  if (section == kActorColumn) {
    if (role == Qt::ToolTipRole)
      return QStringLiteral("The actor's path in the supervision tree; siblings of one name are numbered in "
                            "spawn order (worker#2)");
    return QStringLiteral("Actor");
  }
  const auto c = static_cast<DiffColumn>((section - 1) / 3);
  const auto part = static_cast<Part>((section - 1) % 3);
  const QString title = columnTitle(c);
  if (role == Qt::ToolTipRole)
    return part == Part::ratio ? title + QStringLiteral(": B over A (new: 0 in A; gone: 0 in B; —: nothing to compare)")
                               : title + (part == Part::a ? QStringLiteral(" in A") : QStringLiteral(" in B"));
  return title + (part == Part::a ? QStringLiteral(" A") : part == Part::b ? QStringLiteral(" B") : QStringLiteral(" B/A"));
}

}  // namespace actorscope::views
