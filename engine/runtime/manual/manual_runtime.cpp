// The manual runtime: a ready queue, a timer map and a virtual clock, moved only by its caller.
#include <actorscope/manual_runtime.hpp>

namespace actorscope {

namespace {
// The virtual clock starts an hour after the epoch, so that "a while ago" is still a valid time.
constexpr TimePoint kStart{std::chrono::hours(1)};
thread_local const ManualRuntime* running_here = nullptr;
}  // namespace

ManualRuntime::ManualRuntime(const RuntimeOptions&) : now_(kStart) {}

ManualRuntime::~ManualRuntime() { shutdown(); }

Placement ManualRuntime::place(const PlacementRequest&) { return {}; }

void ManualRuntime::schedule(Runnable& work, Placement, Urgency urgency) noexcept {
  {
    std::lock_guard lk(m_);
    if (!stopped_) {
      (urgency == Urgency::high ? urgent_ : ready_).push_back(&work);
      return;
    }
  }
  work.discard();
}

TimePoint ManualRuntime::now() const noexcept {
  std::lock_guard lk(m_);
  return now_;
}

TimerToken ManualRuntime::arm(Runnable& work, TimePoint deadline, Placement) noexcept {
  {
    std::lock_guard lk(m_);
    if (!stopped_) {
      const TimerToken token = next_token_++;
      timers_.emplace(std::make_pair(deadline, token), &work);
      deadlines_.emplace(token, deadline);
      return token;
    }
  }
  work.discard();
  return 0;
}

void ManualRuntime::disarm(TimerToken token) noexcept {
  Runnable* work = nullptr;
  {
    std::lock_guard lk(m_);
    auto d = deadlines_.find(token);
    if (d == deadlines_.end()) return;
    auto t = timers_.find({d->second, token});
    work = t->second;
    timers_.erase(t);
    deadlines_.erase(d);
  }
  work->discard();
}

void ManualRuntime::run_blocking(Runnable& work) noexcept { schedule(work, {}, Urgency::normal); }

bool ManualRuntime::on_runtime_thread() const noexcept { return running_here == this; }

Runnable* ManualRuntime::pop_ready() {
  std::lock_guard lk(m_);
  std::deque<Runnable*>& q = urgent_.empty() ? ready_ : urgent_;
  if (q.empty()) return nullptr;
  Runnable* r = q.front();
  q.pop_front();
  return r;
}

Runnable* ManualRuntime::pop_due(TimePoint t) {
  std::lock_guard lk(m_);
  if (timers_.empty() || timers_.begin()->first.first > t) return nullptr;
  auto it = timers_.begin();
  Runnable* r = it->second;
  if (now_ < it->first.first) now_ = it->first.first;
  deadlines_.erase(it->first.second);
  timers_.erase(it);
  return r;
}

void ManualRuntime::run_here(Runnable& r) {
  const ManualRuntime* outer = std::exchange(running_here, this);
  {
    detail::RuntimeThreadScope scope;  // blocking waits from inside the work are refused
    r.run();
  }
  running_here = outer;
}

bool ManualRuntime::run_one() {
  Runnable* r = pop_ready();
  if (r == nullptr) return false;
  run_here(*r);
  return true;
}

std::size_t ManualRuntime::run_until_idle() {
  std::size_t n = 0;
  while (run_one()) ++n;
  return n;
}

void ManualRuntime::advance_to(TimePoint t) {
  run_until_idle();
  while (Runnable* r = pop_due(t)) {
    run_here(*r);
    run_until_idle();
  }
  {
    std::lock_guard lk(m_);
    if (now_ < t) now_ = t;
  }
  run_until_idle();
}

void ManualRuntime::advance(Duration d) { advance_to(deadline_after(now(), d)); }

bool ManualRuntime::advance_to_next_timer() {
  auto next = next_deadline();
  if (!next) return false;
  advance_to(*next);
  return true;
}

std::size_t ManualRuntime::ready_count() const {
  std::lock_guard lk(m_);
  return ready_.size() + urgent_.size();
}

std::size_t ManualRuntime::timer_count() const {
  std::lock_guard lk(m_);
  return timers_.size();
}

std::optional<TimePoint> ManualRuntime::next_deadline() const {
  std::lock_guard lk(m_);
  if (timers_.empty()) return std::nullopt;
  return timers_.begin()->first.first;
}

bool ManualRuntime::drive_until(const std::function<bool()>& done, TimePoint deadline) {
  for (;;) {
    if (done()) return true;
    if (run_one()) continue;
    auto next = next_deadline();
    if (next && *next <= deadline) {
      // Fire just the earliest timer, then look again: `done` may hold before later ones are due.
      if (Runnable* r = pop_due(*next)) run_here(*r);
      continue;
    }
    // Nothing can happen before the deadline: the wait times out, and virtual time passes.
    if (deadline != TimePoint::max()) {
      std::lock_guard lk(m_);
      if (now_ < deadline) now_ = deadline;
    }
    return done();
  }
}

void ManualRuntime::shutdown() noexcept {
  std::deque<Runnable*> ready, urgent;
  std::map<std::pair<TimePoint, TimerToken>, Runnable*> timers;
  {
    std::lock_guard lk(m_);
    stopped_ = true;
    ready.swap(ready_);
    urgent.swap(urgent_);
    timers.swap(timers_);
    deadlines_.clear();
  }
  for (Runnable* r : urgent) r->discard();
  for (Runnable* r : ready) r->discard();
  for (auto& [key, r] : timers) r->discard();
}

}  // namespace actorscope
