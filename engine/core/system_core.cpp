// The shared state of one System: spawning, the name registry, the supervision tree, the live list
// and an orderly shutdown.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/spin_wait.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/stats_poller.hpp>

#include <algorithm>
#include <iostream>

namespace actorscope::detail {

SystemCore::SystemCore(std::unique_ptr<Runtime> runtime, System& owner)
    : runtime_(std::move(runtime)), owner_(owner) {
  if (!runtime_)
    throw std::invalid_argument("actorscope: a System needs a runtime; make one with make_runtime(\"asio\")");
}

SystemCore::~SystemCore() {
  shutdown(std::chrono::seconds(10));
  // Observers may outlive the System: they must forget it.
  std::lock_guard lk(observers_m_);
  std::vector<observe::Observer*> let_go;
  if (ObserverSet* cur = observer_set_.load(std::memory_order_acquire)) {
    let_go = cur->observers;
    for (observe::Observer* o : let_go) {
      std::lock_guard olk(o->systems_m_);
      std::erase(o->systems_, this);
    }
  }
  publish_observers({});
  for (observe::Observer* o : let_go) o->on_detach(owner_);
}

// ---------------------------------------------------------------------------------------------
// Spawning

Expected<void, SpawnError> SystemCore::start(CellCore& cell, CellCore* supervisor) {
  // The type's name is copied only for an error: most are longer than a short string holds.
  auto type = [&cell] { return std::string(cell.type_name()); };
  add_live(cell);
  if (!accepting_.load(std::memory_order_acquire)) {
    cell.abandon_start(ExitKind::killed, "the system is shutting down");
    return unexpected(SpawnError(SpawnError::Kind::system_stopping, type(), "the system is shutting down"));
  }
  if (!cell.name().empty() && !register_name(cell)) {
    std::string detail = "the name \"" + cell.name() + "\" is already registered";
    if (Ref<CellCore> holder = lookup(cell.name())) detail += " by actor " + holder->id().to_string();
    cell.abandon_start(ExitKind::failed, detail);
    return unexpected(SpawnError(SpawnError::Kind::name_taken, type(), std::move(detail)));
  }
  if constexpr (kObserve) {
    if (observing() != 0) [[unlikely]]
      observe_spawned(cell, supervisor);
  }
  HookResult started = cell.start_on_caller();
  if (started.kind == HookResult::Kind::failed) {
    std::string why = cell.take_exit_text();
    cell.abandon_start(ExitKind::failed, why);
    return unexpected(SpawnError(SpawnError::Kind::startup_failed, type(), std::move(why)));
  }
  if (supervisor != nullptr) {
    auto linked = link(cell, *supervisor);
    if (!linked) {
      std::string detail = linked.error().what();
      cell.abandon_start(ExitKind::killed, detail);
      return unexpected(SpawnError(SpawnError::Kind::supervisor_stopping, type(), std::move(detail)));
    }
  }
  cell.launch();
  return {};
}

// ---------------------------------------------------------------------------------------------
// Registry

bool SystemCore::register_name(CellCore& cell) {
  std::lock_guard lk(names_m_);
  return names_.emplace(cell.name(), &cell).second;
}

void SystemCore::on_stopping(CellCore& cell) noexcept {
  groups_.actor_stopping(cell);  // as ractor: an actor leaves its groups when it starts stopping
  if (cell.name().empty()) return;
  {
    std::lock_guard lk(names_m_);
    auto it = names_.find(cell.name());
    if (it == names_.end() || it->second != &cell) return;
    names_.erase(it);
  }
  if constexpr (kObserve) {
    if (observing() != 0) [[unlikely]]
      observe_name_released(cell);
  }
}

Ref<CellCore> SystemCore::lookup(std::string_view name) const {
  std::lock_guard lk(names_m_);
  auto it = names_.find(name);
  return it == names_.end() ? Ref<CellCore>() : Ref<CellCore>(it->second);
}

std::vector<std::string> SystemCore::names() const {
  std::lock_guard lk(names_m_);
  std::vector<std::string> out;
  out.reserve(names_.size());
  for (const auto& [name, cell] : names_) out.push_back(name);
  return out;
}

void SystemCore::before_exit(CellCore& cell, const ActorExit& exit) noexcept {
  monitors_.cell_exited(cell, exit);
  timers_.cell_exited(cell);
}

// ---------------------------------------------------------------------------------------------
// Supervision tree

void SystemCore::attach_locked(CellCore& child, CellCore& parent) noexcept {
  parent.retain();  // held by the child
  child.retain();   // held by the parent
  child.parent_ = &parent;
  parent.children_.push_back(child);
}

CellCore* SystemCore::detach_locked(CellCore& child) noexcept {
  CellCore* parent = child.parent_;
  if (parent == nullptr) return nullptr;
  parent->children_.erase(parent->children_.iterator_to(child));
  child.parent_ = nullptr;
  return parent;  // the caller now owns the child's reference to the parent, and the parent's to the child
}

Expected<void, LinkError> SystemCore::link(CellCore& child, CellCore& parent) {
  using K = LinkError::Kind;
  // Words for the errors only: a link that succeeds formats nothing.
  auto who = [&child] { return "actor " + child.id().to_string(); };
  if (&child.system() != this || &parent.system() != this)
    return unexpected(LinkError(K::different_system, "cannot link actors that belong to different Systems"));
  if (&child == &parent) return unexpected(LinkError(K::self_link, who() + " cannot supervise itself"));
  CellCore* old_parent = nullptr;
  tree_used_.set();  // before the statuses are read: an exit that skips the tree cannot race this link
  {
    BriefLock lk(struct_m_);
    if (child.status() >= ActorStatus::draining)
      return unexpected(LinkError(K::child_stopping, who() + " is " + std::string(to_string(child.status())) +
                                                         " and cannot be linked"));
    if (parent.children_closed_ || parent.status() >= ActorStatus::draining)
      return unexpected(LinkError(
          K::supervisor_stopping,
          "supervisor " + parent.id().to_string() + " is shutting down and accepts no new children"));
    for (const CellCore* a = &parent; a != nullptr; a = a->parent_)
      if (a == &child)
        return unexpected(LinkError(K::would_cycle, "actor " + parent.id().to_string() +
                                                        " is a descendant of " + who() +
                                                        "; linking would make a cycle"));
    if (child.parent_ == &parent) return {};
    old_parent = detach_locked(child);
    attach_locked(child, parent);
  }
  if (old_parent != nullptr) {
    old_parent->release();
    child.release();
  }
  if constexpr (kObserve) {
    if (observing() != 0) [[unlikely]]
      observe_link(child, parent, true);
  }
  return {};
}

bool SystemCore::unlink(CellCore& child, const CellCore& parent) {
  CellCore* old = nullptr;
  {
    BriefLock lk(struct_m_);
    if (child.parent_ != &parent) return false;
    old = detach_locked(child);
  }
  old->release();
  child.release();
  if constexpr (kObserve) {
    if (observing() != 0) [[unlikely]]
      observe_link(child, parent, false);
  }
  return true;
}

SystemCore::Family SystemCore::leave_tree(CellCore& cell) noexcept {
  // The caller has published stopping: a link that comes after this check sees it and refuses.
  if (!tree_used_.is_set()) return {};
  Family out;
  CellCore* parent = nullptr;
  {
    BriefLock lk(struct_m_);
    cell.children_closed_ = true;
    // Newest first, as they are killed. Each child's reference from us moves into `out`.
    while (!cell.children_.empty()) {
      CellCore& c = cell.children_.back();
      cell.children_.pop_back();
      c.parent_ = nullptr;
      out.children.push_back(Ref<CellCore>::adopt(&c));
    }
    parent = detach_locked(cell);
  }
  for (std::size_t i = 0; i < out.children.size(); ++i) cell.release();  // each child's reference to us
  if (parent != nullptr) {
    cell.release();  // the parent's reference to us
    out.parent = Ref<CellCore>::adopt(parent);
  }
  return out;
}

Ref<CellCore> SystemCore::supervisor_of(const CellCore& cell) const {
  BriefLock lk(struct_m_);
  return Ref<CellCore>(cell.parent_);
}

std::vector<ActorCell> SystemCore::children_of(const CellCore& cell) const {
  std::vector<ActorCell> out;
  BriefLock lk(struct_m_);
  for (CellCore& c : cell.children_) out.emplace_back(Ref<CellCore>(&c));  // in link order
  return out;
}

// ---------------------------------------------------------------------------------------------
// Live cells and shutdown

void SystemCore::add_live(CellCore& cell) {
  cell.retain();  // the live list keeps an idle actor alive: actors live until they exit
  BriefLock lk(struct_m_);
  live_.push_back(cell);
  (cell.kind() == CellKind::task ? live_tasks_ : live_actors_)++;
  live_total_.fetch_add(1, std::memory_order_relaxed);
}

void SystemCore::cell_exited(CellCore& cell) noexcept {
  {
    BriefLock lk(struct_m_);
    live_.erase(live_.iterator_to(cell));
    (cell.kind() == CellKind::task ? live_tasks_ : live_actors_)--;
    if (live_total_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      no_live_.notify_all();
      runtime_->wake_driver();  // under the lock: a driving waiter cannot see zero and tear down first
    }
  }
  // Nothing of the System is touched after the lock: it may be destroyed from here on.
  cell.release();
}

std::vector<ActorCell> SystemCore::live(CellKind kind) const {
  std::vector<ActorCell> out;
  BriefLock lk(struct_m_);
  for (CellCore& c : live_)  // in spawn order
    if (c.kind() == kind) out.emplace_back(Ref<CellCore>(&c));
  return out;
}

std::size_t SystemCore::live_count(CellKind kind) const {
  BriefLock lk(struct_m_);
  return kind == CellKind::task ? live_tasks_ : live_actors_;
}

bool SystemCore::wait_until_no_live(TimePoint deadline) {
  if (runtime_->drives_waits()) {
    return runtime_->drive_until(
        [this] {
          BriefLock lk(struct_m_);  // pairs with cell_exited's wake, which it must not outlive
          return live_total_.load(std::memory_order_acquire) == 0;
        },
        deadline);
  }
  std::unique_lock lk(struct_m_);
  auto none = [this] { return live_total_.load(std::memory_order_acquire) == 0; };
  if (deadline == TimePoint::max()) {
    no_live_.wait(lk, none);
    return true;
  }
  return no_live_.wait_until(lk, deadline, none);
}

bool SystemCore::shutdown(Duration timeout) {
  if (shut_down_.exchange(true)) return live_total_.load() == 0;
  if (detail::this_thread_runs_actors()) {
    // Waiting here would deadlock this thread's actors. Refuse loudly rather than hang.
    std::cerr << "actorscope: System shut down from a thread that runs actors; destroy it from outside the "
                 "runtime instead. Actors were killed without waiting.\n";
  }
  accepting_.store(false, std::memory_order_release);
  const TimePoint start = runtime_->now();
  const TimePoint graceful_until = deadline_after(start, timeout / 2);
  const TimePoint deadline = deadline_after(start, timeout);

  std::vector<Ref<CellCore>> cells;
  {
    BriefLock lk(struct_m_);
    for (auto c = live_.rbegin(); c != live_.rend(); ++c) cells.emplace_back(&*c);  // newest first
  }
  // Roots stop gracefully (their post_stop runs, their subtrees are killed as they exit); tasks abort.
  for (auto& c : cells) {
    if (c->kind() == CellKind::task) {
      c->request_kill();
    } else if (!supervisor_of(*c)) {
      c->request_stop("system shutdown");
    }
  }
  bool clean = true;
  if (!detail::this_thread_runs_actors()) {
    if (!wait_until_no_live(graceful_until)) {
      for (auto& c : cells) c->request_kill();
      std::vector<Ref<CellCore>> late;
      {
        BriefLock lk(struct_m_);
        for (auto c = live_.rbegin(); c != live_.rend(); ++c) late.emplace_back(&*c);
      }
      for (auto& c : late) c->request_kill();
      clean = wait_until_no_live(deadline);
    }
    if (!clean) {
      std::cerr << "actorscope: " << live_total_.load()
                << " actor(s) did not exit within the shutdown timeout; a handler may be blocking its "
                   "thread. Stopping the runtime anyway:";
      BriefLock lk(struct_m_);
      for (auto c = live_.rbegin(); c != live_.rend(); ++c)
        std::cerr << ' ' << c->id().to_string() << " (" << c->type_name() << ")";
      std::cerr << '\n';
    }
  } else {
    for (auto& c : cells) c->request_kill();
    clean = false;
  }
  cells.clear();
  runtime_->shutdown();
  return clean;
}

// ---------------------------------------------------------------------------------------------
// Logging

void SystemCore::set_log_sink(LogSink sink) {
  std::lock_guard lk(log_m_);
  log_sink_ = std::move(sink);
}

void SystemCore::log(const CellCore* who, std::string_view text) {
  LogRecord rec;
  rec.text = text;
  if (who != nullptr) {
    rec.actor = who->id();
    rec.name = who->name();
    rec.type_name = who->type_name();
  }
  std::lock_guard lk(log_m_);
  if (log_sink_) {
    log_sink_(rec);
    return;
  }
  std::clog << '[' << rec.actor.to_string();
  if (!rec.name.empty()) std::clog << ' ' << rec.name;
  std::clog << "] " << rec.text << '\n';
}

// ---------------------------------------------------------------------------------------------
// Statistics

std::vector<ActorStats> SystemCore::stats() const {
  std::vector<ActorStats> out;
  {
    BriefLock lk(struct_m_);
    out.reserve(live_actors_);
    for (const CellCore& c : live_)  // in spawn order
      if (c.kind() == CellKind::actor) out.push_back(c.stats());
  }
  return out;
}

void SystemCore::add_poller(observe::StatsPoller& poller) {
  std::lock_guard lk(pollers_m_);
  pollers_.push_back(&poller);
  has_pollers_.store(true, std::memory_order_seq_cst);
}

void SystemCore::remove_poller(observe::StatsPoller& poller) noexcept {
  std::lock_guard lk(pollers_m_);
  pollers_.erase(std::remove(pollers_.begin(), pollers_.end(), &poller), pollers_.end());
  has_pollers_.store(!pollers_.empty(), std::memory_order_seq_cst);
}

void SystemCore::on_final_stats(const CellCore& cell) noexcept {
  if (cell.kind() != CellKind::actor || !has_pollers_.load(std::memory_order_seq_cst)) return;
  const ActorStats final_stats = cell.stats();
  std::lock_guard lk(pollers_m_);
  for (observe::StatsPoller* p : pollers_) {
    try {
      p->keep_final(final_stats);
    } catch (...) {  // no memory: this actor's last counts are lost to that poller
    }
  }
}

}  // namespace actorscope::detail
