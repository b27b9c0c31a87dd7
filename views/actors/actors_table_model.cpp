// The actors table: incremental rows, model-side sort and filter.
#include "actors/actors_table_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <numeric>

namespace actorscope::views {

ActorsTableModel::ActorsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

ActorsTableModel::Row ActorsTableModel::rowFor(const observe::SystemState& state, const observe::ActorRecord& a) {
  Row r;
  r.id = a.id;
  r.name = a.name;
  r.type = a.type_name;
  r.shortType = shortTypeName(a.type_name);
  r.health = healthOf(a);
  r.thread = a.thread;
  r.mailbox = a.alive() ? a.mailbox_depth : 0;
  r.mailboxMax = a.mailbox_max;
  r.rate = messagesPerSecond(state, a);
  r.handled = a.handled;
  r.sent = a.sent;
  r.timed = !a.handling_ns.empty();
  r.queueP99 = a.queue_ns.percentile(99);
  r.handlingP99 = a.handling_ns.percentile(99);
  r.failures = failureCount(a);
  r.children = a.children.size();
  return r;
}

bool ActorsTableModel::accepts(const Row& r) const {
  const bool alive = r.health != Health::stopped && r.health != Health::failed && r.health != Health::killed;
  if (!showStopped_ && !alive) return false;
  if (filter_.isEmpty()) return true;
  return QString::fromStdString(r.name).contains(filter_, Qt::CaseInsensitive) ||
         QString::fromStdString(r.type).contains(filter_, Qt::CaseInsensitive) ||
         formatActorId(r.id).startsWith(filter_);
}

void ActorsTableModel::clear() {
  beginResetModel();
  rows_.clear();
  all_.clear();
  rowIndex_.clear();
  endResetModel();
}

void ActorsTableModel::update(const observe::SystemState& state) {
  all_.clear();
  all_.reserve(state.actors().size());
  for (const auto& [id, a] : state.actors()) all_.emplace(id, rowFor(state, a));

  // 1. Remove rows that are gone or filtered out, in runs, from the bottom up.
  int end = static_cast<int>(rows_.size()) - 1;
  while (end >= 0) {
    auto gone = [&](int i) {
      auto it = all_.find(rows_[static_cast<std::size_t>(i)].id);
      return it == all_.end() || !accepts(it->second);
    };
    if (!gone(end)) {
      --end;
      continue;
    }
    int start = end;
    while (start > 0 && gone(start - 1)) --start;
    beginRemoveRows({}, start, end);
    rows_.erase(rows_.begin() + start, rows_.begin() + end + 1);
    endRemoveRows();
    end = start - 1;
  }

  // 2. Refresh the rows that stay; one dataChanged over the changed span.
  int firstChanged = -1;
  int lastChanged = -1;
  rowIndex_.clear();
  rowIndex_.reserve(rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Row& fresh = all_.at(rows_[i].id);
    if (!(fresh == rows_[i])) {
      rows_[i] = fresh;
      if (firstChanged < 0) firstChanged = static_cast<int>(i);
      lastChanged = static_cast<int>(i);
    }
    rowIndex_[rows_[i].id] = static_cast<int>(i);
  }
  if (firstChanged >= 0) emit dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));

  // 3. Append the new actors (in id order), then sort them into place.
  std::vector<const Row*> added;
  for (const auto& [id, a] : state.actors()) {
    if (rowIndex_.count(id) != 0) continue;
    const Row& r = all_.at(id);
    if (accepts(r)) added.push_back(&r);
  }
  if (!added.empty()) {
    const int first = static_cast<int>(rows_.size());
    beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
    for (const Row* r : added) {
      rowIndex_[r->id] = static_cast<int>(rows_.size());
      rows_.push_back(*r);
    }
    endInsertRows();
  }
  applySort();
}

void ActorsTableModel::setFilterText(const QString& text) {
  if (text == filter_) return;
  filter_ = text;
  beginResetModel();
  rows_.clear();
  std::vector<const Row*> keep;
  for (const auto& [id, r] : all_)
    if (accepts(r)) keep.push_back(&r);
  std::sort(keep.begin(), keep.end(), [](const Row* a, const Row* b) { return a->id < b->id; });
  for (const Row* r : keep) rows_.push_back(*r);
  if (sortColumn_ >= 0)
    std::stable_sort(rows_.begin(), rows_.end(), [this](const Row& a, const Row& b) { return lessThan(a, b); });
  rowIndex_.clear();
  for (std::size_t i = 0; i < rows_.size(); ++i) rowIndex_[rows_[i].id] = static_cast<int>(i);
  endResetModel();
}

void ActorsTableModel::setShowStopped(bool show) {
  if (show == showStopped_) return;
  showStopped_ = show;
  const QString f = filter_;
  filter_ = QStringLiteral("\x01");  // force the refilter below
  setFilterText(f);
}

bool ActorsTableModel::lessThan(const Row& a, const Row& b) const {
  auto cmp = [&](auto x, auto y) -> int { return x < y ? -1 : (y < x ? 1 : 0); };
  int c = 0;
  switch (sortColumn_) {
    case IdColumn: c = cmp(a.id, b.id); break;
    case NameColumn: c = cmp(a.name.empty() ? a.shortType : a.name, b.name.empty() ? b.shortType : b.name); break;
    case TypeColumn: c = cmp(a.shortType, b.shortType); break;
    case StatusColumn: c = cmp(static_cast<int>(a.health), static_cast<int>(b.health)); break;
    case ThreadColumn: c = cmp(a.thread, b.thread); break;
    case MailboxColumn: c = cmp(a.mailbox, b.mailbox); break;
    case MailboxMaxColumn: c = cmp(a.mailboxMax, b.mailboxMax); break;
    case RateColumn: c = cmp(a.rate, b.rate); break;
    case HandledColumn: c = cmp(a.handled, b.handled); break;
    case SentColumn: c = cmp(a.sent, b.sent); break;
    case QueueP99Column: c = cmp(a.queueP99, b.queueP99); break;
    case HandlingP99Column: c = cmp(a.handlingP99, b.handlingP99); break;
    case FailuresColumn: c = cmp(a.failures, b.failures); break;
    case ChildrenColumn: c = cmp(a.children, b.children); break;
    default: break;
  }
  if (c == 0) return a.id < b.id;  // ties keep a stable, predictable order
  return sortOrder_ == Qt::AscendingOrder ? c < 0 : c > 0;
}

void ActorsTableModel::applySort() {
  if (sortColumn_ < 0 || rows_.size() < 2) return;
  std::vector<std::size_t> order(rows_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [this](std::size_t x, std::size_t y) { return lessThan(rows_[x], rows_[y]); });
  bool moved = false;
  for (std::size_t i = 0; i < order.size() && !moved; ++i) moved = order[i] != i;
  if (!moved) return;

  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  std::vector<Row> sorted;
  sorted.reserve(rows_.size());
  for (std::size_t i : order) sorted.push_back(std::move(rows_[i]));
  rows_ = std::move(sorted);
  rowIndex_.clear();
  for (std::size_t i = 0; i < rows_.size(); ++i) rowIndex_[rows_[i].id] = static_cast<int>(i);
  std::vector<int> newRowOfOld(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) newRowOfOld[order[i]] = static_cast<int>(i);
  const QModelIndexList from = persistentIndexList();
  QModelIndexList to;
  to.reserve(from.size());
  for (const QModelIndex& idx : from)
    to.append(index(newRowOfOld[static_cast<std::size_t>(idx.row())], idx.column()));
  changePersistentIndexList(from, to);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void ActorsTableModel::sort(int column, Qt::SortOrder order) {
  sortColumn_ = column;
  sortOrder_ = order;
  applySort();
}

int ActorsTableModel::rowOf(ActorId id) const {
  auto it = rowIndex_.find(id);
  return it == rowIndex_.end() ? -1 : it->second;
}

ActorId ActorsTableModel::actorAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[static_cast<std::size_t>(row)].id : ActorId{};
}

int ActorsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int ActorsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ActorsTableModel::sortValue(const Row& r, int column) const {
  switch (column) {
    case IdColumn: return QVariant::fromValue<qulonglong>(r.id.pid);
    case NameColumn: return QString::fromStdString(r.name.empty() ? r.shortType : r.name);
    case TypeColumn: return QString::fromStdString(r.shortType);
    case StatusColumn: return static_cast<int>(r.health);
    case ThreadColumn: return r.thread;
    case MailboxColumn: return QVariant::fromValue<qulonglong>(r.mailbox);
    case MailboxMaxColumn: return QVariant::fromValue<qulonglong>(r.mailboxMax);
    case RateColumn: return r.rate;
    case HandledColumn: return QVariant::fromValue<qulonglong>(r.handled);
    case SentColumn: return QVariant::fromValue<qulonglong>(r.sent);
    case QueueP99Column: return QVariant::fromValue<qulonglong>(r.queueP99);
    case HandlingP99Column: return QVariant::fromValue<qulonglong>(r.handlingP99);
    case FailuresColumn: return QVariant::fromValue<qulonglong>(r.failures);
    case ChildrenColumn: return QVariant::fromValue<qulonglong>(r.children);
  }
  return {};
}

QVariant ActorsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())];
  const bool dead = r.health == Health::stopped || r.health == Health::failed || r.health == Health::killed;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case IdColumn: return formatActorId(r.id);
        case NameColumn: return QString::fromStdString(r.name.empty() ? r.shortType : r.name);
        case TypeColumn: return QString::fromStdString(r.shortType);
        case StatusColumn: return healthText(r.health);
        case ThreadColumn: return r.thread;
        case MailboxColumn: return dead ? QString() : QString::number(r.mailbox);
        case MailboxMaxColumn: return QString::number(r.mailboxMax);
        case RateColumn: return formatRate(r.rate);
        case HandledColumn: return formatCount(static_cast<double>(r.handled));
        case SentColumn: return formatCount(static_cast<double>(r.sent));
        case QueueP99Column: return r.timed ? formatNanos(r.queueP99) : QString();
        case HandlingP99Column: return r.timed ? formatNanos(r.handlingP99) : QString();
        case FailuresColumn: return r.failures == 0 ? QString() : QString::number(r.failures);
        case ChildrenColumn: return r.children == 0 ? QString() : QString::number(r.children);
      }
      break;
    case SortRole: return sortValue(r, index.column());
    case Qt::DecorationRole:
      if (index.column() == NameColumn) return healthIcon(r.health, QGuiApplication::palette());
      break;
    case Qt::ForegroundRole: {
      const QPalette pal = QGuiApplication::palette();
      if (index.column() == StatusColumn) return healthColor(r.health, pal);
      if (dead) return pal.color(QPalette::PlaceholderText);
      if (index.column() == MailboxColumn) return mailboxColor(r.mailbox, pal);
      if (index.column() == FailuresColumn && r.failures > 0) return errorColor(pal);
      if (index.column() == IdColumn || index.column() == TypeColumn) return pal.color(QPalette::PlaceholderText);
      break;
    }
    case Qt::TextAlignmentRole:
      if (isNumeric(index.column())) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::ToolTipRole:
      if (index.column() == TypeColumn || index.column() == NameColumn) return QString::fromStdString(r.type);
      if ((index.column() == QueueP99Column || index.column() == HandlingP99Column) && !r.timed)
        return QStringLiteral("No timed messages observed for this actor yet");
      break;
    case ActorIdRole: return QVariant::fromValue(r.id);
    case HealthRole: return static_cast<int>(r.health);
    case SearchRole:
      return QStringLiteral("%1 %2 %3").arg(QString::fromStdString(r.name), QString::fromStdString(r.type),
                                            formatActorId(r.id));
  }
  return {};
}

QVariant ActorsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  struct Header {
    const char* name;
    const char* tip;
  };
  static const Header headers[ColumnCount] = {
      {"Actor", "The registered name, or the actor's type when it has none"},
      {"Id", "node.pid: unique within the System"},
      {"Status", "Where the actor is in its life, or how it ended"},
      {"Mailbox", "Messages waiting in the mailbox now"},
      {"Msgs/s", "Messages handled per second over the last second"},
      {"Handle p99", "99th percentile of the time the handler took (sampled messages)"},
      {"Queue p99", "99th percentile of the time a message waited in the mailbox (sampled messages)"},
      {"Failures", "Failures of this actor's children plus its own handler failures"},
      {"Handled", "Messages handled in total (exact)"},
      {"Sent", "Messages sent in total by this actor's hooks (exact)"},
      {"Max", "The most messages ever waiting at once (mailbox high-water mark)"},
      {"Children", "Direct children (supervised actors)"},
      {"Thread", "The runtime host the actor lives on (Qt: its event-loop thread; Asio: any pool thread)"},
      {"Type", "The actor's C++ type (without namespaces)"},
  };
  if (section < 0 || section >= ColumnCount) return {};
  if (role == Qt::DisplayRole) return QString::fromUtf8(headers[section].name);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(headers[section].tip);
  if (role == Qt::TextAlignmentRole && isNumeric(section))
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

}  // namespace actorscope::views
