// The event log.
#include "events/event_log_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>

namespace actorscope::views {

EventCategory categoryOf(observe::EventKind kind) {
  using K = observe::EventKind;
  switch (kind) {
    case K::spawned:
    case K::started:
    case K::stopped:
    case K::killed:
    case K::mailbox_configured:
    case K::factory_configured: return EventCategory::lifecycle;
    case K::worker_stuck: return EventCategory::failure;
    case K::failed: return EventCategory::failure;
    case K::linked:
    case K::unlinked:
    case K::supervision_delivered:
    case K::supervisor_configured:
    case K::child_restarted: return EventCategory::supervision;
    case K::supervisor_gave_up: return EventCategory::failure;
    case K::group_joined:
    case K::group_left: return EventCategory::groups;
    case K::name_registered:
    case K::name_unregistered: return EventCategory::names;
    case K::timer_started:
    case K::timer_fired:
    case K::timer_cancelled: return EventCategory::timers;
    case K::message_sent:
    case K::message_handled:
    case K::runtime_info: return EventCategory::runtime;
  }
  return EventCategory::runtime;
}

EventLogModel::EventLogModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventLogModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

EventLogModel::Row EventLogModel::rowFor(const observe::SystemState& state, const observe::Event& e) const {
  using K = observe::EventKind;
  Row r;
  r.seq = e.seq;
  r.time = e.time;
  r.kind = e.kind;
  r.actor = e.actor;
  r.peer = e.peer;
  auto nameOf = [&](ActorId id) -> std::string {
    if (!id.is_valid()) return {};
    const observe::ActorRecord* a = state.actor(id);
    return a ? displayName(*a) : std::string();
  };
  r.actorName = e.kind == K::spawned && !e.name.empty() ? e.name
                : e.kind == K::spawned                  ? shortTypeName(e.text)
                                                        : nameOf(e.actor);
  r.peerName = nameOf(e.peer);
  switch (e.kind) {
    case K::spawned:
      r.detail = "type " + shortTypeName(e.text) + (e.peer.is_valid() ? ", supervised" : ", a root") +
                 (e.thread == observe::no_thread ? std::string(", host chosen when it starts")
                                                 : ", host " + std::to_string(e.thread));
      break;
    case K::stopped: r.detail = e.text.empty() ? "stopped" : "reason: " + e.text; break;
    case K::failed: r.detail = e.text; break;
    case K::killed: r.detail = e.text.empty() ? "killed" : e.text; break;
    case K::linked: r.detail = "now supervised by the peer"; break;
    case K::unlinked: r.detail = "no longer supervised by the peer"; break;
    case K::supervision_delivered: r.detail = e.text; break;
    case K::group_joined: r.detail = "joined " + e.text + " / " + e.name; break;
    case K::group_left: r.detail = "left " + e.text + " / " + e.name; break;
    case K::name_registered: r.detail = "registered as \"" + e.name + "\""; break;
    case K::name_unregistered: r.detail = "name \"" + e.name + "\" freed"; break;
    case K::timer_started:
      r.detail = e.name + " timer " + std::to_string(e.trace) +
                 (e.period > Duration::zero() ? ", every " + formatDuration(e.period).toStdString() : std::string());
      break;
    case K::timer_fired: r.detail = e.name + " timer " + std::to_string(e.trace) + " fired"; break;
    case K::timer_cancelled: r.detail = e.name + " timer " + std::to_string(e.trace) + " cancelled"; break;
    case K::runtime_info: r.detail = "runtime " + e.name + ", " + std::to_string(e.thread) + " threads"; break;
    case K::supervisor_configured:
      r.detail = e.name + ", at most " + std::to_string(e.thread) + " restarts in " +
                 formatDuration(e.period).toStdString();
      break;
    case K::child_restarted:
      r.detail =
          "child \"" + e.name + "\" restarted (#" + std::to_string(e.thread) + ")" +
          (e.period > Duration::zero() ? " after " + formatDuration(e.period).toStdString() : std::string()) +
          ": " + e.text;  // (a start that failed says so at the end of its text)
      break;
    case K::supervisor_gave_up: r.detail = e.text; break;
    case K::mailbox_configured:
      r.detail = "bounded mailbox: " + std::to_string(e.thread) + " messages, " + e.name + " when full";
      break;
    case K::factory_configured:
      r.detail = "factory: " + std::to_string(e.thread) + " workers, " + e.name + " routing";
      break;
    case K::worker_stuck:
      r.detail = "worker " + std::to_string(e.thread) + " stuck on job " + e.name + " for " +
                 formatDuration(e.period).toStdString() + (e.failed ? "; killed and replaced" : "");
      break;
    case K::started:
    case K::message_sent:
    case K::message_handled: break;
  }
  return r;
}

void EventLogModel::update(const observe::SystemState& state) {
  const auto& events = state.recent_events();
  origin_ = state.first_time();
  if (events.empty()) {
    if (!rows_.empty()) clear();
    return;
  }
  // A stream that went backwards is a new session.
  if (!rows_.empty() && events.back().seq < rows_.back().seq) clear();

  // Drop from the top what the state no longer keeps.
  const std::uint64_t oldest = events.front().seq;
  std::size_t drop = 0;
  while (drop < rows_.size() && rows_[drop].seq < oldest) ++drop;
  if (drop > 0) {
    beginRemoveRows({}, 0, static_cast<int>(drop) - 1);
    rows_.erase(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(drop));
    endRemoveRows();
  }
  // Append what is new.
  const std::uint64_t newest = rows_.empty() ? 0 : rows_.back().seq;
  auto first = std::upper_bound(events.begin(), events.end(), newest,
                                [](std::uint64_t s, const observe::Event& e) { return s < e.seq; });
  if (first == events.end()) return;
  const int at = static_cast<int>(rows_.size());
  beginInsertRows({}, at, at + static_cast<int>(events.end() - first) - 1);
  for (auto it = first; it != events.end(); ++it) rows_.push_back(rowFor(state, *it));
  endInsertRows();
}

int EventLogModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int EventLogModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventLogModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())];
  auto who = [](const std::string& name, ActorId id) {
    if (!id.is_valid()) return QString();
    return name.empty() ? formatActorId(id) : QStringLiteral("%1  %2").arg(QString::fromStdString(name), formatActorId(id));
  };
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case TimeColumn: return formatSince(r.time, origin_);
        case KindColumn: {
          QString k = QString::fromUtf8(observe::to_string(r.kind).data(), static_cast<int>(observe::to_string(r.kind).size()));
          return k.replace(QLatin1Char('_'), QLatin1Char(' '));
        }
        case ActorColumn: return who(r.actorName, r.actor);
        case PeerColumn: return who(r.peerName, r.peer);
        case DetailColumn: return QString::fromStdString(r.detail);
      }
      break;
    case Qt::ForegroundRole: {
      const QPalette pal = QGuiApplication::palette();
      if (index.column() == KindColumn || (index.column() == DetailColumn && r.kind == observe::EventKind::failed)) {
        switch (r.kind) {
          case observe::EventKind::failed: return errorColor(pal);
          case observe::EventKind::killed: return healthColor(Health::killed, pal);
          case observe::EventKind::spawned:
          case observe::EventKind::started: return healthColor(Health::running, pal);
          case observe::EventKind::stopped: return healthColor(Health::stopped, pal);
          default: break;
        }
      }
      if (index.column() == TimeColumn) return pal.color(QPalette::PlaceholderText);
      break;
    }
    case Qt::ToolTipRole:
      if (index.column() == DetailColumn) return QString::fromStdString(r.detail);
      break;
    case Qt::TextAlignmentRole:
      if (index.column() == TimeColumn) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case ActorIdRole: return QVariant::fromValue(index.column() == PeerColumn && r.peer.is_valid() ? r.peer : r.actor);
    case KindRole: return static_cast<int>(categoryOf(r.kind));
    case SortRole:
      if (index.column() == TimeColumn) return QVariant::fromValue<qulonglong>(r.seq);
      return data(index, Qt::DisplayRole);
    case SearchRole:
      return QStringLiteral("%1 %2 %3 %4")
          .arg(data(index.siblingAtColumn(KindColumn)).toString(), who(r.actorName, r.actor), who(r.peerName, r.peer),
               QString::fromStdString(r.detail));
  }
  return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case TimeColumn: return QStringLiteral("Time");
      case KindColumn: return QStringLiteral("Event");
      case ActorColumn: return QStringLiteral("Actor");
      case PeerColumn: return QStringLiteral("Peer");
      case DetailColumn: return QStringLiteral("Detail");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case TimeColumn: return QStringLiteral("Seconds since the session's first event");
      case KindColumn: return QStringLiteral("What happened");
      case ActorColumn: return QStringLiteral("The actor it happened to");
      case PeerColumn: return QStringLiteral("The other actor involved: the supervisor of a spawn or link, the "
                                             "actor a supervision event is about");
      case DetailColumn: return QStringLiteral("Reason, error text, group, name or timer");
    }
  }
  if (role == Qt::TextAlignmentRole && section == TimeColumn) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

}  // namespace actorscope::views
