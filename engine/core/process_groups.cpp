// Process groups: one lock over the forward maps (scope → group → members and watchers) and the
// reverse index (actor → its memberships and watches), so that a stopping actor leaves in
// O(its own relations) and no two locks are ever taken in two orders.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/core_access.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/process_groups.hpp>
#include <actorscope/supervision_event.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace actorscope {

using detail::CellCore;

namespace {
using Cells = std::vector<Ref<CellCore>>;

bool contains(const Cells& v, const CellCore* c) {
  return std::any_of(v.begin(), v.end(), [c](const Ref<CellCore>& r) { return r.get() == c; });
}
// Moves the entry for `c` out of `v` into `out` (released by the caller after unlocking).
bool remove_from(Cells& v, const CellCore* c, Cells& out) {
  auto it = std::find_if(v.begin(), v.end(), [c](const Ref<CellCore>& r) { return r.get() == c; });
  if (it == v.end()) return false;
  out.push_back(std::move(*it));
  v.erase(it);
  return true;
}
template <class T>
void erase_value(std::vector<T>& v, const T& value) {
  v.erase(std::remove(v.begin(), v.end(), value), v.end());
}
}  // namespace

struct ProcessGroups::State {
  struct Group {
    Cells members;   // in join order; groups are small next to the cost of a supervision event
    Cells watchers;  // monitors of this group only
  };
  struct Scope {
    std::map<std::string, Group, std::less<>> groups;
    Cells watchers;  // monitors of the whole scope
  };
  // The reverse index: what one actor takes part in.
  struct Relations {
    std::vector<std::pair<std::string, std::string>> member_of;
    std::vector<std::pair<std::string, std::string>> watching;
    std::vector<std::string> watching_scopes;
    bool empty() const { return member_of.empty() && watching.empty() && watching_scopes.empty(); }
  };

  std::map<std::string, Scope, std::less<>> scopes;
  std::unordered_map<const CellCore*, Relations> relations;
  Cells released;  // references dropped under the lock, released after it

  void forget_if_empty(const CellCore* c) {
    auto it = relations.find(c);
    if (it != relations.end() && it->second.empty()) relations.erase(it);
  }
  // A group with neither members nor watchers goes, and so does a scope left with nothing.
  void prune(const std::string& scope, const std::string& group) {
    auto s = scopes.find(scope);
    if (s == scopes.end()) return;
    if (!group.empty()) {
      auto g = s->second.groups.find(group);
      if (g != s->second.groups.end() && g->second.members.empty() && g->second.watchers.empty())
        s->second.groups.erase(g);
    }
    if (s->second.groups.empty() && s->second.watchers.empty()) scopes.erase(s);
  }
};

ProcessGroups::ProcessGroups(detail::SystemCore& system)
    : system_(system), state_(std::make_unique<State>()) {}
ProcessGroups::~ProcessGroups() = default;

CellCore& ProcessGroups::check(const ActorCell& actor, std::string_view what) const {
  if (!actor)
    throw ProcessGroupError("process groups: the " + std::string(what) +
                            " handle is empty; pass a handle returned by spawn (or ctx.cell())");
  CellCore& c = *detail::CoreAccess::cell(actor);
  if (&c.system() != &system_)
    throw ProcessGroupError("process groups: actor " + c.id().to_string() +
                            " belongs to another System; use that System's groups()");
  return c;
}

void ProcessGroups::check_names(std::string_view scope, const std::string_view* group) {
  if (scope.empty())
    throw ProcessGroupError("process groups: the scope name is empty; use a name, or the default scope");
  if (group != nullptr && group->empty())
    throw ProcessGroupError("process groups: the group name is empty; give the group a name");
}

// ---------------------------------------------------------------------------------------------
// Membership

void ProcessGroups::observe(observe::EventKind kind, const std::string& scope, const std::string& group,
                            const std::vector<ActorCell>& actors) noexcept {
  const bool joined = kind == observe::EventKind::group_joined;  // else group_left
  for (const ActorCell& a : actors) {
    std::string g, s;
    try {
      g = group;
      s = scope;
    } catch (...) {  // no memory for the names: the event still counts
    }
    system_.emit_event(joined ? observe::Event::group_joined(a.id(), std::move(g), std::move(s))
                              : observe::Event::group_left(a.id(), std::move(g), std::move(s)));
  }
}

std::size_t ProcessGroups::join_locked(const std::string& scope, const std::string& group,
                                       const std::vector<CellCore*>& cells) {
  State::Scope& sc = state_->scopes[scope];
  State::Group& g = sc.groups[group];
  std::vector<ActorCell> joined;
  for (CellCore* c : cells) {
    // Read under m_, after the sticky flag: a stopping actor has either left already or is refused.
    if (c->status() >= ActorStatus::stopping || contains(g.members, c)) continue;
    g.members.emplace_back(c);
    state_->relations[c].member_of.emplace_back(scope, group);
    joined.emplace_back(Ref<CellCore>(c));
  }
  const std::size_t n = joined.size();
  if (n == 0) {
    state_->prune(scope, group);
    return 0;
  }
  // The one place an actor joins a group (under the lock, so observers see changes in order).
  if (system_.observing() != 0) [[unlikely]]
    observe(observe::EventKind::group_joined, scope, group, joined);
  Cells observers = g.watchers;
  for (const auto& w : sc.watchers)
    if (!contains(observers, w.get())) observers.push_back(w);
  for (const auto& o : observers)
    o->push_supervision(ProcessGroupChanged{ProcessGroupChanged::Change::joined, scope, group, joined});
  return n;
}

std::size_t ProcessGroups::leave_locked(const std::string& scope, const std::string& group,
                                        const std::vector<CellCore*>& cells) {
  auto s = state_->scopes.find(scope);
  if (s == state_->scopes.end()) return 0;
  auto gi = s->second.groups.find(group);
  if (gi == s->second.groups.end()) return 0;
  State::Group& g = gi->second;
  std::vector<ActorCell> left;
  for (CellCore* c : cells) {
    if (!remove_from(g.members, c, state_->released)) continue;
    if (auto r = state_->relations.find(c); r != state_->relations.end()) {
      erase_value(r->second.member_of, std::make_pair(scope, group));
      state_->forget_if_empty(c);
    }
    left.emplace_back(Ref<CellCore>(c));
  }
  const std::size_t n = left.size();
  if (n > 0) {
    // The one place an actor leaves a group.
    if (system_.observing() != 0) [[unlikely]]
      observe(observe::EventKind::group_left, scope, group, left);
    Cells observers = g.watchers;
    for (const auto& w : s->second.watchers)
      if (!contains(observers, w.get())) observers.push_back(w);
    for (const auto& o : observers)
      o->push_supervision(ProcessGroupChanged{ProcessGroupChanged::Change::left, scope, group, left});
  }
  state_->prune(scope, group);
  return n;
}

std::size_t ProcessGroups::change(std::string_view scope, std::string_view group,
                                  const std::vector<ActorCell>& actors, bool join) {
  check_names(scope, &group);
  std::vector<CellCore*> cells;
  cells.reserve(actors.size());
  for (const ActorCell& a : actors) cells.push_back(&check(a, "actor"));
  if (cells.empty()) return 0;
  if (join) used_.set();
  Cells released;
  std::size_t n = 0;
  {
    std::lock_guard lk(m_);
    n = join ? join_locked(std::string(scope), std::string(group), cells)
             : leave_locked(std::string(scope), std::string(group), cells);
    released.swap(state_->released);
  }
  return n;
}

std::size_t ProcessGroups::join(std::string_view group, const ActorCell& actor) {
  return change(default_scope, group, {actor}, true);
}
std::size_t ProcessGroups::join(std::string_view group, const std::vector<ActorCell>& actors) {
  return change(default_scope, group, actors, true);
}
std::size_t ProcessGroups::join_scoped(std::string_view scope, std::string_view group,
                                       const ActorCell& actor) {
  return change(scope, group, {actor}, true);
}
std::size_t ProcessGroups::join_scoped(std::string_view scope, std::string_view group,
                                       const std::vector<ActorCell>& actors) {
  return change(scope, group, actors, true);
}
std::size_t ProcessGroups::leave(std::string_view group, const ActorCell& actor) {
  return change(default_scope, group, {actor}, false);
}
std::size_t ProcessGroups::leave(std::string_view group, const std::vector<ActorCell>& actors) {
  return change(default_scope, group, actors, false);
}
std::size_t ProcessGroups::leave_scoped(std::string_view scope, std::string_view group,
                                        const ActorCell& actor) {
  return change(scope, group, {actor}, false);
}
std::size_t ProcessGroups::leave_scoped(std::string_view scope, std::string_view group,
                                        const std::vector<ActorCell>& actors) {
  return change(scope, group, actors, false);
}

void ProcessGroups::actor_stopping(CellCore& cell) noexcept {
  if (!used_.is_set()) return;  // this System never used groups: no lock on the exit path
  Cells released;
  {
    std::lock_guard lk(m_);
    auto it = state_->relations.find(&cell);
    if (it == state_->relations.end()) return;
    State::Relations rel = std::move(it->second);
    state_->relations.erase(it);
    // It stops watching first, so it is not told about its own leaves.
    for (const auto& [scope, group] : rel.watching) {
      if (auto s = state_->scopes.find(scope); s != state_->scopes.end())
        if (auto g = s->second.groups.find(group); g != s->second.groups.end())
          remove_from(g->second.watchers, &cell, state_->released);
      state_->prune(scope, group);
    }
    for (const auto& scope : rel.watching_scopes) {
      if (auto s = state_->scopes.find(scope); s != state_->scopes.end())
        remove_from(s->second.watchers, &cell, state_->released);
      state_->prune(scope, {});
    }
    const std::vector<CellCore*> me{&cell};
    for (const auto& [scope, group] : rel.member_of) leave_locked(scope, group, me);
    released.swap(state_->released);
  }
}

// ---------------------------------------------------------------------------------------------
// Snapshots

std::vector<ActorCell> ProcessGroups::members(std::string_view group) const {
  return members_scoped(default_scope, group);
}

std::vector<ActorCell> ProcessGroups::members_scoped(std::string_view scope, std::string_view group) const {
  std::vector<ActorCell> out;
  std::lock_guard lk(m_);
  auto s = state_->scopes.find(scope);
  if (s == state_->scopes.end()) return out;
  auto g = s->second.groups.find(group);
  if (g == s->second.groups.end()) return out;
  out.reserve(g->second.members.size());
  for (const auto& c : g->second.members) out.emplace_back(c);
  return out;
}

std::vector<std::string> ProcessGroups::groups(std::string_view scope) const {
  std::vector<std::string> out;
  std::lock_guard lk(m_);
  auto s = state_->scopes.find(scope);
  if (s == state_->scopes.end()) return out;
  for (const auto& [name, g] : s->second.groups)
    if (!g.members.empty()) out.push_back(name);
  return out;
}

std::vector<std::string> ProcessGroups::scopes() const {
  std::vector<std::string> out;
  std::lock_guard lk(m_);
  for (const auto& [name, s] : state_->scopes)
    if (std::any_of(s.groups.begin(), s.groups.end(),
                    [](const auto& g) { return !g.second.members.empty(); }))
      out.push_back(name);
  return out;
}

std::vector<std::pair<std::string, std::string>> ProcessGroups::groups_of(const ActorCell& actor) const {
  const CellCore& c = check(actor, "actor");
  std::vector<std::pair<std::string, std::string>> out;
  {
    std::lock_guard lk(m_);
    auto r = state_->relations.find(&c);
    if (r != state_->relations.end()) out = r->second.member_of;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Monitoring

bool ProcessGroups::watch(std::string_view scope, std::string_view group, const ActorCell& observer,
                          bool on) {
  CellCore& c = check(observer, "observer");
  if (on) used_.set();
  Cells released;
  bool changed = false;
  {
    std::lock_guard lk(m_);
    const std::string s(scope), g(group);
    if (on) {
      if (c.status() >= ActorStatus::stopping) return false;  // it could never hear anything
      State::Scope& sc = state_->scopes[s];
      Cells& watchers = g.empty() ? sc.watchers : sc.groups[g].watchers;
      if (!contains(watchers, &c)) {
        watchers.emplace_back(&c);
        State::Relations& rel = state_->relations[&c];
        if (g.empty()) {
          rel.watching_scopes.push_back(s);
        } else {
          rel.watching.emplace_back(s, g);
        }
        changed = true;
      }
    } else if (auto si = state_->scopes.find(s); si != state_->scopes.end()) {
      if (g.empty()) {
        changed = remove_from(si->second.watchers, &c, state_->released);
      } else if (auto gi = si->second.groups.find(g); gi != si->second.groups.end()) {
        changed = remove_from(gi->second.watchers, &c, state_->released);
      }
      if (changed) {
        State::Relations& rel = state_->relations[&c];
        if (g.empty()) {
          erase_value(rel.watching_scopes, s);
        } else {
          erase_value(rel.watching, std::make_pair(s, g));
        }
        state_->forget_if_empty(&c);
      }
    }
    state_->prune(s, g);
    released.swap(state_->released);
  }
  return changed;
}

bool ProcessGroups::monitor(std::string_view group, const ActorCell& observer) {
  return monitor_scoped(default_scope, group, observer);
}
bool ProcessGroups::monitor_scoped(std::string_view scope, std::string_view group,
                                   const ActorCell& observer) {
  check_names(scope, &group);
  return watch(scope, group, observer, true);
}
bool ProcessGroups::monitor_scope(std::string_view scope, const ActorCell& observer) {
  check_names(scope, nullptr);
  return watch(scope, {}, observer, true);
}
bool ProcessGroups::demonitor(std::string_view group, const ActorCell& observer) {
  return demonitor_scoped(default_scope, group, observer);
}
bool ProcessGroups::demonitor_scoped(std::string_view scope, std::string_view group,
                                     const ActorCell& observer) {
  check_names(scope, &group);
  return watch(scope, group, observer, false);
}
bool ProcessGroups::demonitor_scope(std::string_view scope, const ActorCell& observer) {
  check_names(scope, nullptr);
  return watch(scope, {}, observer, false);
}

}  // namespace actorscope
