// The actors table: incremental rows, model-side sort and filter.
#include "actors/actors_table_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

namespace actorscope::views {

ActorsTableModel::ActorsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

const ActorsTableModel::Identity& ActorsTableModel::identityOf(const observe::ActorRecord& a) {
  Identity& id = identities_[a.id];
  if (id.type.empty() || id.nameLength != a.name.size()) {
    id.name = a.name;
    id.type = a.type_name;
    id.shortType = shortTypeName(a.type_name);
    id.shown = a.name.empty() ? id.shortType : a.name;
    id.nameLength = a.name.size();
  }
  return id;
}

ActorsTableModel::Row ActorsTableModel::rowFor(const observe::SystemState& state, const observe::ActorRecord& a,
                                               const Row* previous) {
  Row r;
  r.id = a.id;
  r.identity = previous != nullptr && previous->identity != nullptr && previous->identity->nameLength == a.name.size()
                   ? previous->identity
                   : &identityOf(a);
  r.health = healthOf(a);
  r.thread = a.thread;
  r.mailbox = a.alive() ? a.mailbox_depth : 0;
  r.mailboxMax = a.mailbox_max;
  r.capacity = a.mailbox_capacity;
  r.overflow = a.overflow;
  r.dropped = a.dropped;
  r.rejected = a.rejected;
  r.rate = a.alive() ? messagesPerSecond(state, a) : 0.0;
  r.handled = a.handled;
  r.sent = a.sent;
  r.timedCount = a.handling_ns.count();
  if (previous != nullptr && previous->timedCount == r.timedCount) {
    // No new samples: the percentiles cannot have moved.
    r.queueP99 = previous->queueP99;
    r.handlingP99 = previous->handlingP99;
  } else {
    r.queueP99 = a.queue_ns.percentile(99);
    r.handlingP99 = a.handling_ns.percentile(99);
  }
  r.failures = failureCount(a);
  r.children = a.children.size();
  return r;
}

bool ActorsTableModel::accepts(const Row& r) const {
  const bool alive = r.health != Health::stopped && r.health != Health::failed && r.health != Health::killed;
  if (!showStopped_ && !alive) return false;
  if (filter_.isEmpty()) return true;
  return QString::fromStdString(r.identity->name).contains(filter_, Qt::CaseInsensitive) ||
         QString::fromStdString(r.identity->type).contains(filter_, Qt::CaseInsensitive) ||
         formatActorId(r.id).startsWith(filter_);
}

void ActorsTableModel::clear() {
  beginResetModel();
  rows_.clear();
  all_.clear();
  identities_.clear();
  endResetModel();
}

void ActorsTableModel::reindex() {
  for (auto& [id, e] : all_) e.index = -1;
  for (std::size_t i = 0; i < rows_.size(); ++i) rows_[i]->index = static_cast<int>(i);
}

void ActorsTableModel::update(const observe::SystemState& state) {
  // Every actor's row, updated in place; what changed is marked.
  ++generation_;
  std::vector<Entry*> added;
  for (const auto& [id, a] : state.actors()) {
    auto [it, inserted] = all_.try_emplace(id);
    Entry& e = it->second;
    Row fresh = rowFor(state, a, inserted ? nullptr : &e.row);
    if (inserted || !(fresh == e.row)) {
      e.row = std::move(fresh);
      e.changed = true;
    }
    e.generation = generation_;
    if (inserted) added.push_back(&e);
  }

  // 1. Remove rows that are gone or filtered out, in runs, from the bottom up.
  bool moved = false;
  int end = static_cast<int>(rows_.size()) - 1;
  auto gone = [&](int i) {
    const Entry* e = rows_[static_cast<std::size_t>(i)];
    return e->generation != generation_ || !accepts(e->row);
  };
  while (end >= 0) {
    if (!gone(end)) {
      --end;
      continue;
    }
    int start = end;
    while (start > 0 && gone(start - 1)) --start;
    beginRemoveRows({}, start, end);
    rows_.erase(rows_.begin() + start, rows_.begin() + end + 1);
    endRemoveRows();
    moved = true;
    end = start - 1;
  }
  if (all_.size() != state.actors().size())
    std::erase_if(all_, [this](const auto& kv) { return kv.second.generation != generation_; });
  if (moved) reindex();

  // 2. One dataChanged over the span of changed rows.
  int firstChanged = -1;
  int lastChanged = -1;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (!rows_[i]->changed) continue;
    rows_[i]->changed = false;
    if (firstChanged < 0) firstChanged = static_cast<int>(i);
    lastChanged = static_cast<int>(i);
  }
  if (firstChanged >= 0) emit dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));

  // 3. Append the new actors that pass the filter, plus known ones the filter lets in again (in
  //    id order), then sort everything into place.
  std::vector<Entry*> in;
  for (Entry* e : added)
    if (accepts(e->row)) in.push_back(e);
  if (!in.empty()) {
    std::sort(in.begin(), in.end(), [](const Entry* a, const Entry* b) { return a->row.id < b->row.id; });
    const int first = static_cast<int>(rows_.size());
    beginInsertRows({}, first, first + static_cast<int>(in.size()) - 1);
    for (Entry* e : in) {
      e->changed = false;
      e->index = static_cast<int>(rows_.size());
      rows_.push_back(e);
    }
    endInsertRows();
  }
  for (auto& [id, e] : all_) e.changed = false;
  applySort();
  // Forget the identities of actors the state forgot (no row points at them any more).
  if (identities_.size() > all_.size() + 1024)
    std::erase_if(identities_, [this](const auto& kv) { return all_.count(kv.first) == 0; });
}

void ActorsTableModel::setFilterText(const QString& text) {
  if (text == filter_) return;
  filter_ = text;
  beginResetModel();
  rows_.clear();
  for (auto& [id, e] : all_)
    if (accepts(e.row)) rows_.push_back(&e);
  std::sort(rows_.begin(), rows_.end(), [](const Entry* a, const Entry* b) { return a->row.id < b->row.id; });
  if (sortColumn_ >= 0)
    std::stable_sort(rows_.begin(), rows_.end(), [this](const Entry* a, const Entry* b) { return lessThan(a->row, b->row); });
  reindex();
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
    case NameColumn: c = cmp(a.identity->shown, b.identity->shown); break;
    case TypeColumn: c = cmp(a.identity->shortType, b.identity->shortType); break;
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
    case DroppedColumn: c = cmp(a.dropped, b.dropped); break;
    case RejectedColumn: c = cmp(a.rejected, b.rejected); break;
    case ChildrenColumn: c = cmp(a.children, b.children); break;
    default: break;
  }
  if (c == 0) return a.id < b.id;  // ties keep a stable, predictable order
  return sortOrder_ == Qt::AscendingOrder ? c < 0 : c > 0;
}

void ActorsTableModel::applySort() {
  if (sortColumn_ < 0 || rows_.size() < 2) return;
  std::vector<Entry*> sorted = rows_;
  std::stable_sort(sorted.begin(), sorted.end(), [this](const Entry* a, const Entry* b) { return lessThan(a->row, b->row); });
  if (sorted == rows_) return;

  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  // Persistent indexes (the selection) follow their actors to their new rows.
  const QModelIndexList from = persistentIndexList();
  std::vector<ActorId> fromIds;
  fromIds.reserve(static_cast<std::size_t>(from.size()));
  for (const QModelIndex& idx : from) fromIds.push_back(actorAt(idx.row()));
  rows_ = std::move(sorted);
  reindex();
  QModelIndexList to;
  to.reserve(from.size());
  for (qsizetype i = 0; i < from.size(); ++i) to.append(index(rowOf(fromIds[static_cast<std::size_t>(i)]), from[i].column()));
  changePersistentIndexList(from, to);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void ActorsTableModel::sort(int column, Qt::SortOrder order) {
  sortColumn_ = column;
  sortOrder_ = order;
  applySort();
}

int ActorsTableModel::rowOf(ActorId id) const {
  auto it = all_.find(id);
  return it == all_.end() ? -1 : it->second.index;
}

ActorId ActorsTableModel::actorAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[static_cast<std::size_t>(row)]->row.id : ActorId{};
}

int ActorsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int ActorsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ActorsTableModel::sortValue(const Row& r, int column) const {
  switch (column) {
    case IdColumn: return QVariant::fromValue<qulonglong>(r.id.pid);
    case NameColumn: return QString::fromStdString(r.identity->shown);
    case TypeColumn: return QString::fromStdString(r.identity->shortType);
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
    case DroppedColumn: return QVariant::fromValue<qulonglong>(r.dropped);
    case RejectedColumn: return QVariant::fromValue<qulonglong>(r.rejected);
    case ChildrenColumn: return QVariant::fromValue<qulonglong>(r.children);
  }
  return {};
}

ActorCell ActorsTableModel::cellOf(int column) {
  switch (column) {
    case NameColumn: return ActorCell::name;
    case IdColumn: return ActorCell::id;
    case TypeColumn: return ActorCell::type;
    case StatusColumn: return ActorCell::status;
    case MailboxColumn: return ActorCell::mailbox;
    case FailuresColumn: return ActorCell::failures;
    default: return ActorCell::other;
  }
}

QVariant ActorsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())]->row;
  const bool dead = hasExited(r.health);
  // A bounded mailbox that is full drops or refuses what comes next: red, whatever its depth.
  if (role == Qt::ForegroundRole && index.column() == MailboxColumn && !dead && r.capacity != 0 &&
      r.mailbox >= r.capacity)
    return errorColor(QGuiApplication::palette());
  const QVariant shared = actorCellData(cellOf(index.column()), role,
                                        {.id = r.id,
                                         .health = r.health,
                                         .mailbox = r.mailbox,
                                         .failing = r.failures > 0,
                                         .name = r.identity->name,
                                         .type = r.identity->type});
  if (shared.isValid()) return shared;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case IdColumn: return formatActorId(r.id);
        case NameColumn: return QString::fromStdString(r.identity->shown);
        case TypeColumn: return QString::fromStdString(r.identity->shortType);
        case StatusColumn: return healthText(r.health);
        case ThreadColumn: return formatHost(r.thread);
        case MailboxColumn:
          if (dead) return QString();
          // A bounded mailbox shows its fill against its capacity: "8 / 8".
          return r.capacity == 0 ? QString::number(r.mailbox)
                                 : QStringLiteral("%1 / %2").arg(r.mailbox).arg(r.capacity);
        case MailboxMaxColumn: return QString::number(r.mailboxMax);
        case RateColumn: return formatRate(r.rate);
        case HandledColumn: return formatCount(static_cast<double>(r.handled));
        case SentColumn: return formatCount(static_cast<double>(r.sent));
        case QueueP99Column: return r.timedCount > 0 ? formatNanos(r.queueP99) : QString();
        case HandlingP99Column: return r.timedCount > 0 ? formatNanos(r.handlingP99) : QString();
        case FailuresColumn: return r.failures == 0 ? QString() : QString::number(r.failures);
        case DroppedColumn: return r.dropped == 0 ? QString() : formatCount(static_cast<double>(r.dropped));
        case RejectedColumn: return r.rejected == 0 ? QString() : formatCount(static_cast<double>(r.rejected));
        case ChildrenColumn: return r.children == 0 ? QString() : QString::number(r.children);
      }
      break;
    case SortRole: return sortValue(r, index.column());
    case Qt::TextAlignmentRole:
      if (isNumeric(index.column())) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::ToolTipRole:
      if (index.column() == TypeColumn || index.column() == NameColumn) return QString::fromStdString(r.identity->type);
      if (index.column() == MailboxColumn && r.capacity != 0)
        return QStringLiteral("%1 of %2 messages waiting; a bounded mailbox (%3 when full)")
            .arg(r.mailbox)
            .arg(r.capacity)
            .arg(QString::fromLatin1(to_string(r.overflow)));
      if ((index.column() == QueueP99Column || index.column() == HandlingP99Column) && r.timedCount == 0)
        return QStringLiteral("No timed messages observed for this actor yet");
      break;
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
      {"Mailbox", "Messages waiting in the mailbox now; for a bounded mailbox, against its capacity (8 / 8: full)"},
      {"Msgs/s", "Messages handled per second over the last second"},
      {"Handle p99", "99th percentile of the time the handler took (sampled messages)"},
      {"Queue p99", "99th percentile of the time a message waited in the mailbox (sampled messages)"},
      {"Failures", "Failures of this actor's children plus its own handler failures"},
      {"Dropped", "Messages its bounded mailbox dropped because it was full (drop_newest, drop_oldest; exact)"},
      {"Rejected", "Sends its bounded mailbox refused because it was full (reject, try_cast, a backpressured send "
                   "that could not wait or timed out; exact)"},
      {"Handled", "Messages handled in total (exact)"},
      {"Sent", "Messages sent in total by this actor's hooks (exact)"},
      {"Max", "The most messages ever waiting at once (mailbox high-water mark)"},
      {"Children", "Direct children (supervised actors)"},
      {"Thread", "The runtime host the actor lives on (Qt: its event-loop thread, — until it first runs; Asio: any pool "
                 "thread)"},
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
