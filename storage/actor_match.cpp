// Actor paths and the matching of two sessions' actors (the rule is in actor_match.hpp).
#include <actorscope/storage/actor_match.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace actorscope {

namespace {

constexpr std::size_t kRoot = static_cast<std::size_t>(-1);

class SlotBuilder {
 public:
  explicit SlotBuilder(std::vector<ActorInfo> actors) : actors_(std::move(actors)) {
    // Spawn order; ids break ties (they grow with every spawn of a System).
    std::sort(actors_.begin(), actors_.end(), [](const ActorInfo& x, const ActorInfo& y) {
      return x.spawned != y.spawned ? x.spawned < y.spawned : x.id < y.id;
    });
    for (std::size_t i = 0; i < actors_.size(); ++i) index_.emplace(actors_[i].id, i);
    state_.assign(actors_.size(), Visit::not_yet);
  }

  std::vector<ActorSlot> build() {
    for (std::size_t i = 0; i < actors_.size(); ++i) assign(i);
    std::sort(slots_.begin(), slots_.end(), [](const ActorSlot& x, const ActorSlot& y) { return x.path < y.path; });
    return std::move(slots_);
  }

 private:
  enum class Visit : std::uint8_t { not_yet, in_progress, done };

  /// Gives actor i its slot, after its supervisor's (a supervisor seen later than its child, by
  /// clock skew between threads, is placed first; a cycle of parents is cut at a root).
  std::size_t assign(std::size_t i) {
    if (state_[i] == Visit::done) return slot_of_[i];
    if (state_[i] == Visit::in_progress) return kRoot;
    state_[i] = Visit::in_progress;
    const ActorInfo& x = actors_[i];
    std::size_t parent_slot = kRoot;
    if (x.parent.is_valid() && x.parent != x.id)
      if (auto p = index_.find(x.parent); p != index_.end()) parent_slot = assign(p->second);
    const std::string segment = !x.name.empty() ? x.name : !x.type_name.empty() ? x.type_name : "actor";

    std::vector<std::size_t>& siblings = groups_[{parent_slot, segment}];
    std::size_t slot = kRoot;
    // A slot whose latest incarnation had exited when this one was spawned is taken over.
    for (std::size_t s : siblings) {
      const std::size_t last = last_incarnation_[s];
      const ActorInfo& prev = actors_[last];
      if (prev.stopped && *prev.stopped <= x.spawned) {
        slot = s;
        if (prev.exit_kind == ExitKind::failed) ++slots_[s].restarts;
        break;
      }
    }
    if (slot == kRoot) {
      slot = slots_.size();
      const std::string prefix = parent_slot == kRoot ? std::string() : slots_[parent_slot].path + "/";
      // (Built by appending: GCC 12 warns falsely about "#" + std::to_string(n) at -O3.)
      auto numbered = [&](std::size_t n) {
        std::string p = prefix;
        p += segment;
        if (n > 1) {
          p += '#';
          p += std::to_string(n);
        }
        return p;
      };
      std::size_t n = siblings.size() + 1;
      std::string path = numbered(n);
      while (!paths_.insert(path).second) path = numbered(++n);
      ActorSlot s;
      s.path = std::move(path);
      s.registered_name = x.name;
      s.type_name = x.type_name;
      slots_.push_back(std::move(s));
      last_incarnation_.push_back(i);
      siblings.push_back(slot);
    }
    slots_[slot].incarnations.push_back(x.id);
    last_incarnation_[slot] = i;
    slot_of_[i] = slot;
    state_[i] = Visit::done;
    return slot;
  }

  std::vector<ActorInfo> actors_;
  std::unordered_map<ActorId, std::size_t> index_;
  std::vector<Visit> state_;
  std::unordered_map<std::size_t, std::size_t> slot_of_;  // actor index -> slot
  std::vector<ActorSlot> slots_;
  std::vector<std::size_t> last_incarnation_;  // slot -> actor index
  std::map<std::pair<std::size_t, std::string>, std::vector<std::size_t>> groups_;
  std::unordered_set<std::string> paths_;
};

}  // namespace

std::vector<ActorSlot> actor_slots(std::vector<ActorInfo> actors) {
  return SlotBuilder(std::move(actors)).build();
}

std::vector<ActorInfo> actor_infos(const observe::SystemState& state) {
  std::vector<ActorInfo> out;
  out.reserve(state.actors().size());
  for (const auto& [id, r] : state.actors()) {
    ActorInfo a;
    a.id = id;
    a.name = r.name;
    a.type_name = r.type_name;
    a.parent = r.parent;
    a.thread = r.thread;
    a.spawned = r.spawned;
    if (!r.alive()) a.stopped = r.stopped;
    a.exit_kind = r.exit_kind;
    a.exit_reason = r.exit_reason;
    a.mailbox_capacity = r.mailbox_capacity;
    a.overflow = r.overflow;
    out.push_back(std::move(a));
  }
  return out;
}

ActorMatch match_actors(const std::vector<ActorSlot>& a, const std::vector<ActorSlot>& b) {
  ActorMatch m;
  std::unordered_map<std::string_view, std::size_t> b_by_path;
  for (std::size_t j = 0; j < b.size(); ++j) b_by_path.emplace(b[j].path, j);
  std::vector<bool> a_done(a.size(), false), b_done(b.size(), false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (auto it = b_by_path.find(a[i].path); it != b_by_path.end()) {
      m.matched.push_back({i, it->second, ActorMatch::By::path});
      a_done[i] = b_done[it->second] = true;
    }
  }

  // Registered names among the unmatched: matched only where the name is unambiguous on both sides.
  auto unique_names = [](const std::vector<ActorSlot>& slots, const std::vector<bool>& done) {
    std::unordered_map<std::string_view, std::size_t> first;
    std::unordered_set<std::string_view> repeated;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (done[i] || slots[i].registered_name.empty()) continue;
      if (!first.emplace(slots[i].registered_name, i).second) repeated.insert(slots[i].registered_name);
    }
    for (std::string_view n : repeated) first.erase(n);
    return first;
  };
  const auto a_names = unique_names(a, a_done);
  const auto b_names = unique_names(b, b_done);
  for (const auto& [name, i] : a_names) {
    if (auto it = b_names.find(name); it != b_names.end()) {
      m.matched.push_back({i, it->second, ActorMatch::By::registered_name});
      a_done[i] = b_done[it->second] = true;
    }
  }
  std::sort(m.matched.begin(), m.matched.end(), [](const auto& x, const auto& y) { return x.a < y.a; });
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a_done[i]) m.only_a.push_back(i);
  for (std::size_t j = 0; j < b.size(); ++j)
    if (!b_done[j]) m.only_b.push_back(j);
  return m;
}

}  // namespace actorscope
