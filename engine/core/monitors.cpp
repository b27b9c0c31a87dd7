// Monitors: a forward map (target → observers) and its reverse (observer → targets) under one lock,
// so that an exiting actor both notifies its observers and drops its own watches in one step.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/monitors.hpp>
#include <actorscope/supervision_event.hpp>

#include <algorithm>

namespace actorscope::detail {

bool Monitors::add(CellCore& observer, CellCore& target) {
  used_.set();
  {
    std::lock_guard lk(m_);
    if (observer.status() >= ActorStatus::stopping) return false;
    // The target publishes "stopped" before its cell_exited takes this lock: seeing anything less
    // here means cell_exited will find this registration.
    if (target.status() != ActorStatus::stopped) {
      std::vector<Ref<CellCore>>& obs = observers_[&target];
      if (std::any_of(obs.begin(), obs.end(), [&](const Ref<CellCore>& o) { return o.get() == &observer; }))
        return false;
      obs.emplace_back(&observer);
      watching_[&observer].push_back(&target);
      return true;
    }
  }
  // Already gone (or going): its exit is, or is about to be, published on its completion.
  target.completion().on_done([obs = Ref<CellCore>(&observer), t = Ref<CellCore>(&target)] {
    obs->push_supervision(ActorDown{ActorCell(t), t->result().value()});
  });
  return true;
}

bool Monitors::remove(CellCore& observer, CellCore& target) {
  Ref<CellCore> released;
  std::lock_guard lk(m_);
  auto o = observers_.find(&target);
  if (o == observers_.end()) return false;
  auto& obs = o->second;
  auto it = std::find_if(obs.begin(), obs.end(), [&](const Ref<CellCore>& r) { return r.get() == &observer; });
  if (it == obs.end()) return false;
  released = std::move(*it);
  obs.erase(it);
  if (obs.empty()) observers_.erase(o);
  if (auto w = watching_.find(&observer); w != watching_.end()) {
    std::erase(w->second, &target);
    if (w->second.empty()) watching_.erase(w);
  }
  return true;
}

std::vector<ActorCell> Monitors::observers_of(const CellCore& target) const {
  std::vector<ActorCell> out;
  std::lock_guard lk(m_);
  if (auto o = observers_.find(&target); o != observers_.end())
    for (const auto& c : o->second) out.emplace_back(c);
  return out;
}

void Monitors::cell_exited(CellCore& cell, const ActorExit& exit) noexcept {
  if (!used_.is_set()) return;  // this System never used monitors: no lock on the exit path
  std::vector<Ref<CellCore>> observers;
  std::vector<Ref<CellCore>> released;
  {
    std::lock_guard lk(m_);
    if (auto o = observers_.find(&cell); o != observers_.end()) {
      observers = std::move(o->second);
      observers_.erase(o);
      for (const auto& obs : observers) {
        if (auto w = watching_.find(obs.get()); w != watching_.end()) {
          std::erase(w->second, &cell);
          if (w->second.empty()) watching_.erase(w);
        }
      }
    }
    // What it watched itself: it can hear nothing any more.
    if (auto w = watching_.find(&cell); w != watching_.end()) {
      for (const CellCore* target : w->second) {
        auto o = observers_.find(target);
        if (o == observers_.end()) continue;
        auto& obs = o->second;
        auto it = std::find_if(obs.begin(), obs.end(), [&](const Ref<CellCore>& r) { return r.get() == &cell; });
        if (it != obs.end()) {
          released.push_back(std::move(*it));
          obs.erase(it);
        }
        if (obs.empty()) observers_.erase(o);
      }
      watching_.erase(w);
    }
  }
  if (observers.empty()) return;
  const ActorCell me{Ref<CellCore>(&cell)};
  for (const auto& obs : observers) obs->push_supervision(ActorDown{me, exit});
}

}  // namespace actorscope::detail
