// Message flow: lane choice and the sliding message window.
#include "flow/message_flow_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"
#include "timers/timers_model.hpp"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace actorscope::views {

MessageFlowModel::MessageFlowModel(QObject* parent) : KeyedTableModel<FlowMessage>(parent) {}

void MessageFlowModel::reset() {
  clear();
  lanes_.clear();
  units_.clear();
  laneOfActor_.clear();
  highlighted_.clear();
  emit lanesChanged();
  emit highlightChanged();
}

void MessageFlowModel::setHighlightedTraces(std::vector<std::uint64_t> traces) {
  // Trace 0 is "not sampled": it names no message.
  std::erase(traces, std::uint64_t{0});
  std::sort(traces.begin(), traces.end());
  traces.erase(std::unique(traces.begin(), traces.end()), traces.end());
  if (traces == highlighted_) return;
  highlighted_ = std::move(traces);
  if (!rows().empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  emit highlightChanged();
}

bool MessageFlowModel::isHighlighted(const FlowMessage& m) const noexcept {
  return m.trace != 0 && std::binary_search(highlighted_.begin(), highlighted_.end(), m.trace);
}

namespace {

/// A type whose nameless actors number at least this many in the window can share a crowd lane.
constexpr std::size_t kCrowdMin = 3;

}  // namespace

int MessageFlowModel::laneOf(ActorId id) const {
  auto it = laneOfActor_.find(id);
  return it == laneOfActor_.end() ? -1 : it->second;
}

std::vector<MessageFlowModel::Unit> MessageFlowModel::chooseLanes(const observe::SystemState& state,
                                                                 const std::vector<const observe::MessageRecord*>& window,
                                                                 std::map<ActorId, Unit>& crowdOf) const {
  using K = Lane::Kind;
  const std::size_t maxLanes = static_cast<std::size_t>(std::max(2, maxLanes_));
  auto senderOf = [](const observe::MessageRecord& m) {
    if (m.timer != 0) return Unit{K::timers, {}, {}};
    if (!m.from.is_valid()) return Unit{K::outside, {}, {}};
    return Unit{K::actor, m.from, {}};
  };

  // Nameless actors of one type (a storm's drops, a pool's workers), and the ones the state has
  // forgotten, may share one lane when there are more actors than lanes: a lane each would show a
  // handful of them and send every other arrow to "others".
  std::map<std::string, std::set<ActorId>> byType;
  std::set<Unit> distinct;
  auto note = [&](ActorId id) {
    distinct.insert(Unit{K::actor, id, {}});
    if (id == focus_) return;
    const observe::ActorRecord* a = state.actor(id);
    if (a == nullptr) {
      byType[std::string()].insert(id);
    } else if (a->name.empty() && !a->type_name.empty()) {
      byType[shortTypeName(a->type_name)].insert(id);
    }
  };
  for (const auto* m : window) {
    const Unit from = senderOf(*m);
    if (from.kind == K::actor) {
      note(m->from);
    } else {
      distinct.insert(from);
    }
    note(m->to);
  }
  if (distinct.size() > maxLanes)
    for (const auto& [type, ids] : byType)
      if (ids.size() >= kCrowdMin)
        for (ActorId id : ids) crowdOf[id] = Unit{K::crowd, {}, type};
  auto unitOf = [&](Unit u) {
    if (u.kind == K::actor)
      if (auto it = crowdOf.find(u.id); it != crowdOf.end()) return it->second;
    return u;
  };

  if (focus_.is_valid()) {
    const Unit self{K::actor, focus_, {}};
    struct Counts {
      std::size_t in = 0;
      std::size_t out = 0;
    };
    std::map<Unit, Counts> peers;
    for (const auto* m : window) {
      const Unit from = unitOf(senderOf(*m));
      const Unit to = unitOf(Unit{K::actor, m->to, {}});
      if (to == self && from != self) ++peers[from].in;
      if (from == self && to != self) ++peers[to].out;
    }
    std::vector<std::pair<Unit, Counts>> ranked(peers.begin(), peers.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.second.in + a.second.out > b.second.in + b.second.out;
    });
    if (ranked.size() > maxLanes - 1) ranked.resize(maxLanes - 1);
    // Senders to the left of the focus, receivers to the right: most arrows then point one way.
    std::vector<Unit> left, right;
    for (const auto& [u, c] : ranked) (c.in >= c.out ? left : right).push_back(u);
    std::vector<Unit> lanes(left.rbegin(), left.rend());
    lanes.push_back(self);
    lanes.insert(lanes.end(), right.begin(), right.end());
    return lanes;
  }

  std::map<Unit, std::size_t> talk;
  for (const auto* m : window) {
    const Unit from = unitOf(senderOf(*m));
    const Unit to = unitOf(Unit{K::actor, m->to, {}});
    ++talk[from];
    if (to != from) ++talk[to];
  }
  std::vector<std::pair<Unit, std::size_t>> ranked(talk.begin(), talk.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  // Hysteresis: a lane stays while its actor is still among the top 1.5x, so lanes do not jump
  // at every update when two actors talk about as much.
  std::vector<Unit> chosen;
  const std::size_t keepWithin = maxLanes + maxLanes / 2;
  for (std::size_t i = 0; i < ranked.size() && i < keepWithin && chosen.size() < maxLanes; ++i)
    if (std::find(units_.begin(), units_.end(), ranked[i].first) != units_.end()) chosen.push_back(ranked[i].first);
  for (std::size_t i = 0; i < ranked.size() && chosen.size() < maxLanes; ++i)
    if (std::find(chosen.begin(), chosen.end(), ranked[i].first) == chosen.end()) chosen.push_back(ranked[i].first);
  // A steady order: timers and outside first (they only send), then actors by id, then crowds by
  // type, the forgotten last.
  std::sort(chosen.begin(), chosen.end(), [](const Unit& a, const Unit& b) {
    auto rank = [](const Unit& u) {
      return u.kind == K::timers ? 0 : u.kind == K::outside ? 1 : u.kind == K::actor ? 2 : u.crowd.empty() ? 4 : 3;
    };
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return chosen;
}

void MessageFlowModel::update(const observe::SystemState& state) {
  using K = Lane::Kind;
  origin_ = state.first_time();
  now_ = state.time();
  const TimePoint since = range_ ? range_->first : now_ - window_;
  const TimePoint until = range_ ? range_->second : TimePoint::max();
  std::vector<const observe::MessageRecord*> window;
  for (const observe::MessageRecord& m : state.recent_messages())
    if (m.sent >= since && m.sent <= until) window.push_back(&m);

  std::map<ActorId, Unit> crowdOf;
  std::vector<Unit> units = chooseLanes(state, window, crowdOf);
  std::map<Unit, int> laneIndex;
  for (std::size_t i = 0; i < units.size(); ++i) laneIndex[units[i]] = static_cast<int>(i);
  // A crowd's lane holds the members without a lane of their own.
  std::map<Unit, std::set<ActorId>> crowdMembers;
  for (const auto& [id, crowd] : crowdOf)
    if (laneIndex.count(Unit{K::actor, id, {}}) == 0) crowdMembers[crowd].insert(id);
  auto laneFor = [&](Unit u) -> int {
    if (u.kind == K::actor) {
      if (auto own = laneIndex.find(u); own != laneIndex.end()) return own->second;
      if (auto c = crowdOf.find(u.id); c != crowdOf.end()) u = c->second;
    }
    auto it = laneIndex.find(u);
    return it == laneIndex.end() ? -1 : it->second;
  };

  std::vector<Lane> lanes;
  for (const Unit& u : units) {
    Lane l;
    l.kind = u.kind;
    l.id = u.id;
    switch (u.kind) {
      case K::actor:
        if (const observe::ActorRecord* a = state.actor(u.id)) {
          // A child of the focus is named under it ("clerk-7" beside "desk-a"): lanes are narrow.
          l.name = focus_.is_valid() && a->parent == focus_ ? nameUnder(*a, state.actor(focus_)) : displayName(*a);
        } else {
          l.name = "actor " + u.id.to_string();
        }
        break;
      case K::crowd:
        l.members = crowdMembers[u].size();
        l.name = (u.crowd.empty() ? std::string("stopped") : u.crowd) + " ×" + std::to_string(l.members);
        break;
      case K::timers: l.name = "timers"; break;
      case K::outside: l.name = "outside"; break;
      case K::others: l.name = "others"; break;
    }
    lanes.push_back(std::move(l));
  }
  // Two actors with one name (a worker and its replacement, both alive for a moment) must not look
  // like one: the second by id is "worker-3 (2)", the third "worker-3 (3)".
  {
    std::map<std::string, std::vector<std::size_t>> byName;
    for (std::size_t i = 0; i < lanes.size(); ++i)
      if (lanes[i].kind == K::actor) byName[lanes[i].name].push_back(i);
    for (auto& [name, at] : byName) {
      if (at.size() < 2) continue;
      std::sort(at.begin(), at.end(), [&](std::size_t a, std::size_t b) { return lanes[a].id < lanes[b].id; });
      for (std::size_t k = 1; k < at.size(); ++k) lanes[at[k]].name = name + " (" + std::to_string(k + 1) + ")";
    }
  }

  std::vector<FlowMessage> rows;
  bool usesOthers = false;
  const int others = static_cast<int>(units.size());
  auto senderUnit = [](const observe::MessageRecord& m) {
    if (m.timer != 0) return Unit{K::timers, {}, {}};
    if (!m.from.is_valid()) return Unit{K::outside, {}, {}};
    return Unit{K::actor, m.from, {}};
  };
  for (const observe::MessageRecord* m : window) {
    int from = laneFor(senderUnit(*m));
    int to = laneFor(Unit{K::actor, m->to, {}});
    if (focus_.is_valid() ? (m->from != focus_ && m->to != focus_) : (from < 0 && to < 0)) continue;
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
    f.timer = m->timer;
    if (m->timer != 0) {
      f.timerText = "timer " + std::to_string(m->timer);
      if (auto t = state.timers().find(m->timer); t != state.timers().end()) {
        f.timerText += " (" + timerKindText(t->second.kind).toStdString();
        if (t->second.period > Duration::zero()) f.timerText += ", every " + formatDuration(t->second.period).toStdString();
        f.timerText += ")";
      }
    }
    f.fromLane = from;
    f.toLane = to;
    rows.push_back(std::move(f));
  }
  matched_ = rows.size();
  std::sort(rows.begin(), rows.end(), [](const FlowMessage& a, const FlowMessage& b) { return a.key() < b.key(); });
  rows.erase(std::unique(rows.begin(), rows.end(), [](const FlowMessage& a, const FlowMessage& b) { return a.key() == b.key(); }),
             rows.end());
  if (rows.size() > static_cast<std::size_t>(maxMessages_))
    rows.erase(rows.begin(), rows.end() - maxMessages_);
  if (usesOthers) lanes.push_back({K::others, {}, "others", 0});

  laneOfActor_.clear();
  for (const observe::MessageRecord* m : window)
    for (ActorId id : {m->from, m->to}) {
      if (!id.is_valid() || laneOfActor_.count(id) != 0) continue;
      const int lane = laneFor(Unit{K::actor, id, {}});
      if (lane >= 0 || usesOthers) laneOfActor_[id] = lane >= 0 ? lane : others;
    }
  units_ = std::move(units);
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
        case FromColumn:
          if (m.timer != 0) return QString::fromStdString(m.timerText);
          return m.from.is_valid() ? QStringLiteral("%1  %2").arg(laneName(m.fromLane), formatActorId(m.from))
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
    case Qt::FontRole:
      if (isHighlighted(m)) {
        QFont bold = QGuiApplication::font();
        bold.setBold(true);
        return bold;
      }
      break;
    case Qt::ToolTipRole:
      return QStringLiteral("%1 → %2<br>%3<br>queued %4, handled in %5%6%7")
          .arg(data(index.siblingAtColumn(FromColumn)).toString().toHtmlEscaped(),
               data(index.siblingAtColumn(ToColumn)).toString().toHtmlEscaped(),
               QString::fromUtf8(m.type.data(), static_cast<int>(m.type.size())).toHtmlEscaped(),
               m.handled ? formatDuration(m.queue) : QStringLiteral("(not yet handled)"),
               m.handled ? formatDuration(m.handling) : QStringLiteral("-"),
               m.failed ? QStringLiteral("<br><b>the handler threw</b>") : QString(),
               m.timer != 0 ? QStringLiteral("<br>delivered by %1 as it fired").arg(QString::fromStdString(m.timerText))
                            : QString());
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
