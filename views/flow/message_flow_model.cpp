// Message flow: lane choice and the sliding message window.
#include "flow/message_flow_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace actorscope::views {

MessageFlowModel::MessageFlowModel(QObject* parent) : KeyedTableModel<FlowMessage>(parent) {}

void MessageFlowModel::reset() {
  clear();
  lanes_.clear();
  emit lanesChanged();
}

std::vector<ActorId> MessageFlowModel::chooseLanes(const std::vector<const observe::MessageRecord*>& window) const {
  const std::size_t maxLanes = static_cast<std::size_t>(std::max(2, maxLanes_));
  if (focus_.is_valid()) {
    struct Counts {
      std::size_t in = 0;
      std::size_t out = 0;
    };
    std::map<ActorId, Counts> peers;
    for (const auto* m : window) {
      if (m->to == focus_ && m->from != focus_) ++peers[m->from].in;
      if (m->from == focus_ && m->to != focus_) ++peers[m->to].out;
    }
    std::vector<std::pair<ActorId, Counts>> ranked(peers.begin(), peers.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.second.in + a.second.out > b.second.in + b.second.out;
    });
    if (ranked.size() > maxLanes - 1) ranked.resize(maxLanes - 1);
    // Senders to the left of the focus, receivers to the right: most arrows then point one way.
    std::vector<ActorId> left, right;
    for (const auto& [id, c] : ranked) (c.in >= c.out ? left : right).push_back(id);
    std::vector<ActorId> lanes(left.rbegin(), left.rend());
    lanes.push_back(focus_);
    lanes.insert(lanes.end(), right.begin(), right.end());
    return lanes;
  }
  std::unordered_map<ActorId, std::size_t> talk;
  for (const auto* m : window) {
    ++talk[m->from];
    if (m->to != m->from) ++talk[m->to];
  }
  std::vector<std::pair<ActorId, std::size_t>> ranked(talk.begin(), talk.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  // Hysteresis: a lane stays while its actor is still among the top 1.5x, so lanes do not jump
  // at every update when two actors talk about as much.
  std::vector<ActorId> chosen;
  const std::size_t keepWithin = maxLanes + maxLanes / 2;
  for (std::size_t i = 0; i < ranked.size() && i < keepWithin; ++i)
    for (const Lane& l : lanes_)
      if (l.id == ranked[i].first && chosen.size() < maxLanes) chosen.push_back(l.id);
  for (std::size_t i = 0; i < ranked.size() && chosen.size() < maxLanes; ++i)
    if (std::find(chosen.begin(), chosen.end(), ranked[i].first) == chosen.end()) chosen.push_back(ranked[i].first);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

void MessageFlowModel::update(const observe::SystemState& state) {
  origin_ = state.first_time();
  now_ = state.time();
  const TimePoint since = now_ - window_;
  std::vector<const observe::MessageRecord*> window;
  for (const observe::MessageRecord& m : state.recent_messages())
    if (m.sent >= since) window.push_back(&m);

  const std::vector<ActorId> ids = chooseLanes(window);
  std::vector<Lane> lanes;
  for (ActorId id : ids) {
    Lane l;
    l.id = id;
    if (!id.is_valid()) {
      l.name = "outside";
    } else if (const observe::ActorRecord* a = state.actor(id)) {
      // A child of the focus is named under it ("clerk-7" beside "desk-a"): lanes are narrow.
      l.name = focus_.is_valid() && a->parent == focus_ ? nameUnder(*a, state.actor(focus_)) : displayName(*a);
    } else {
      l.name = "actor " + id.to_string();
    }
    lanes.push_back(std::move(l));
  }
  auto laneOf = [&](ActorId id) -> int {
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] == id) return static_cast<int>(i);
    return -1;
  };

  std::vector<FlowMessage> rows;
  bool usesOthers = false;
  for (const observe::MessageRecord* m : window) {
    int from = laneOf(m->from);
    int to = laneOf(m->to);
    if (focus_.is_valid() ? (m->from != focus_ && m->to != focus_) : (from < 0 && to < 0)) continue;
    const int others = static_cast<int>(ids.size());
    if (from < 0) from = others;
    if (to < 0) to = others;
    usesOthers = usesOthers || from == others || to == others;
    FlowMessage f;
    f.sent = m->sent;
    f.trace = m->trace;
    f.from = m->from;
    f.to = m->to;
    f.type = m->type;
    f.handled = m->handled;
    f.queue = m->queue;
    f.handling = m->handling;
    f.failed = m->failed;
    f.fromLane = from;
    f.toLane = to;
    rows.push_back(f);
  }
  matched_ = rows.size();
  std::sort(rows.begin(), rows.end(), [](const FlowMessage& a, const FlowMessage& b) { return a.key() < b.key(); });
  rows.erase(std::unique(rows.begin(), rows.end(), [](const FlowMessage& a, const FlowMessage& b) { return a.key() == b.key(); }),
             rows.end());
  if (rows.size() > static_cast<std::size_t>(maxMessages_))
    rows.erase(rows.begin(), rows.end() - maxMessages_);
  if (usesOthers) lanes.push_back({kOthers, "others"});

  const bool lanesMoved = lanes != lanes_;
  lanes_ = std::move(lanes);
  setRows(std::move(rows));
  if (lanesMoved) emit lanesChanged();
}

int MessageFlowModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant MessageFlowModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const FlowMessage& m = rows_[static_cast<std::size_t>(index.row())];
  auto laneName = [&](int lane) {
    return lane >= 0 && lane < static_cast<int>(lanes_.size()) ? QString::fromStdString(lanes_[static_cast<std::size_t>(lane)].name)
                                                               : QString();
  };
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case TimeColumn: return formatSince(m.sent, origin_);
        case FromColumn: return m.from.is_valid() ? QStringLiteral("%1  %2").arg(laneName(m.fromLane), formatActorId(m.from))
                                                  : QStringLiteral("outside");
        case ToColumn: return QStringLiteral("%1  %2").arg(laneName(m.toLane), formatActorId(m.to));
        case TypeColumn:
          return m.type.empty() ? QStringLiteral("message")
                                : QString::fromStdString(shortTypeName(m.type));
        case QueueColumn: return m.handled ? formatDuration(m.queue) : QStringLiteral("queued");
        case HandlingColumn: return m.handled ? formatDuration(m.handling) : QString();
      }
      break;
    case Qt::ForegroundRole:
      if (m.failed) return errorColor(QGuiApplication::palette());
      break;
    case Qt::ToolTipRole:
      return QStringLiteral("%1 → %2<br>%3<br>queued %4, handled in %5%6")
          .arg(data(index.siblingAtColumn(FromColumn)).toString().toHtmlEscaped(),
               data(index.siblingAtColumn(ToColumn)).toString().toHtmlEscaped(),
               QString::fromUtf8(m.type.data(), static_cast<int>(m.type.size())).toHtmlEscaped(),
               m.handled ? formatDuration(m.queue) : QStringLiteral("(not yet handled)"),
               m.handled ? formatDuration(m.handling) : QStringLiteral("-"),
               m.failed ? QStringLiteral("<br><b>the handler threw</b>") : QString());
    case ActorIdRole: return QVariant::fromValue(index.column() == FromColumn ? m.from : m.to);
  }
  return {};
}

QVariant MessageFlowModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case TimeColumn: return QStringLiteral("Sent");
    case FromColumn: return QStringLiteral("From");
    case ToColumn: return QStringLiteral("To");
    case TypeColumn: return QStringLiteral("Type");
    case QueueColumn: return QStringLiteral("Queued");
    case HandlingColumn: return QStringLiteral("Handling");
  }
  return {};
}

}  // namespace actorscope::views
