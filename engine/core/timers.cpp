// Timers: where a timer starts, fires and ends, and where the race between firing and cancelling
// is decided. The runtime's disarm is only best effort (the wake-up may already be running on
// another thread), so the decision is the timer's own lock: fire() delivers only while holding it
// and seeing the timer not ended; end() marks it ended under the same lock. Whoever takes the lock
// first wins, and a cancel that has returned can no longer be overtaken by a delivery.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/detail/timers.hpp>
#include <actorscope/observe/event.hpp>

#include <chrono>
#include <vector>

#include <algorithm>

namespace actorscope::detail {

TimerCore::TimerCore(Kind kind, Ref<CellCore> target, Duration period, MissedTick policy)
    : sys_(target->system()),
      kind_(kind),
      period_(period),
      policy_(policy),
      target_id_(target->id()),
      target_(std::move(target)) {}

TimerCore::~TimerCore() = default;

void TimerCore::run() noexcept {
  // The runtime runs timers only until the System shuts it down, so sys_ is alive here.
  sys_.timers().fire(*this);
  release();  // the reference the runtime held since arm()
}

bool TimerCore::cancel() noexcept {
  {
    // Every timer has ended by the time its System is destroyed (its target exited), so a handle
    // kept longer than the System never reaches into it.
    std::lock_guard lk(m_);
    if (ended_) return false;
  }
  return sys_.timers().end(*this, Timers::End::cancelled);
}

bool TimerCore::deliver(CellCore& target) noexcept {
  switch (kind_) {
    case Kind::exit:
      target.request_stop(
          "exit after " +
          std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(period_).count()) + " ms");
      return true;
    case Kind::kill:
      target.request_kill();
      return true;
    case Kind::interval:
    case Kind::once:
      break;  // MessageTimer delivers these
  }
  return false;
}

namespace {
std::string_view kind_name(TimerCore::Kind k) noexcept {
  switch (k) {
    case TimerCore::Kind::interval:
      return "interval";
    case TimerCore::Kind::once:
      return "after";
    case TimerCore::Kind::exit:
      return "exit_after";
    case TimerCore::Kind::kill:
      return "kill_after";
  }
  return "timer";
}

std::string_view end_name(Timers::End why) noexcept {
  switch (why) {
    case Timers::End::done:
      return "done";
    case Timers::End::cancelled:
      return "cancelled";
    case Timers::End::target_stopped:
      return "target stopped";
    case Timers::End::failed:
      return "building its message failed";
  }
  return "ended";
}

// The timer's words ("interval", "cancelled", ...), or "" when there is no memory for them: the
// event still counts.
std::string words(std::string_view w) noexcept {
  try {
    return std::string(w);
  } catch (...) {
    return {};
  }
}
}  // namespace

void Timers::observe_started(const TimerCore& t) noexcept {
  const CellCore* owner = CellCore::current();
  system_.emit_event(observe::Event::timer_started(
      t.target_id_, owner != nullptr ? owner->id() : ActorId{}, t.id_, words(kind_name(t.kind_)),
      t.kind_ == TimerCore::Kind::interval ? t.period_ : Duration{}, t.next_));
}

void Timers::observe_fired(const TimerCore& t, TimePoint scheduled) noexcept {
  system_.emit_event(observe::Event::timer_fired(t.target_id_, t.id_, words(kind_name(t.kind_)), scheduled));
}

void Timers::observe_cancelled(const TimerCore& t, End why) noexcept {
  system_.emit_event(
      observe::Event::timer_cancelled(t.target_id_, t.id_, words(kind_name(t.kind_)), words(end_name(why))));
}

std::vector<Timers::Active> Timers::active() const {
  std::vector<Active> out;
  std::vector<Ref<TimerCore>> all;
  {
    std::lock_guard lk(m_);
    for (auto& [target, timers] : by_target_)
      for (TimerCore& t : timers) all.emplace_back(&t);
  }
  for (const auto& t : all) {
    std::lock_guard lk(t->m_);
    if (t->ended_) continue;
    out.push_back({t->id_, std::string(kind_name(t->kind_)), t->target_id_,
                   t->kind_ == TimerCore::Kind::interval ? t->period_ : Duration::zero(), t->next_});
  }
  std::sort(out.begin(), out.end(), [](const Active& a, const Active& b) { return a.id < b.id; });
  return out;
}

Ref<TimerCore> start_timer(Ref<TimerCore> timer) {
  timer->sys_.timers().start(*timer);
  return timer;
}

// ---------------------------------------------------------------------------------------------

void Timers::start(TimerCore& t) {
  used_.set();
  t.id_ = next_id_.fetch_add(1, std::memory_order_relaxed);
  CellCore& target = *t.target_;  // nobody else knows the timer yet
  bool registered = false;
  {
    std::lock_guard lk(m_);
    // The target publishes "stopped" before cell_exited takes m_: anything less means
    // cell_exited will find this timer and end it.
    if (target.status() != ActorStatus::stopped) {
      t.retain();  // the registry's reference
      t.registered_under_ = &target;
      by_target_[&target].push_back(t);
      ++count_;
      registered = true;
    }
  }
  if (!registered) {
    end(t, End::target_stopped);
    return;
  }
  std::lock_guard lk(t.m_);
  if (t.ended_) return;  // its target exited in the meantime
  Runtime& rt = system_.runtime();
  t.start_ = rt.now();
  t.next_ = deadline_after(t.start_, t.period_);
  // The one place a timer starts; under its lock, so that its firings and its end come after.
  if (system_.observing() != 0) [[unlikely]]
    observe_started(t);
  t.retain();  // the runtime's reference, until run() or discard()
  t.token_ = rt.arm(t, t.next_, target.placement());
}

void Timers::fire(TimerCore& t) noexcept {
  TimePoint scheduled;
  {
    std::lock_guard lk(t.m_);
    if (t.ended_) return;  // cancelled while this wake-up was on its way
    t.token_ = 0;          // this deadline is spent
    scheduled = t.next_;
  }
  // The message is built with no lock held: the builder is user code, and may even cancel.
  std::string error;
  if (!t.stage(error)) {
    if (end(t, End::failed))  // ended first: whoever reads the log line finds the timer ended
      system_.log(nullptr, "timer " + std::to_string(t.id_) + " for actor " + t.target_id_.to_string() +
                               " ended: building its message threw: " + error);
    return;
  }
  Ending ending;
  bool rearmed = false;
  {
    std::lock_guard lk(t.m_);
    if (!t.ended_) {
      Runtime& rt = system_.runtime();
      // Counted, and a one-shot timer ended, before the push: once the target has the message,
      // fired(), is_active() and the registry already say so.
      t.fired_.fetch_add(1, std::memory_order_acq_rel);
      Ref<CellCore> target = t.target_;
      if (t.kind_ != TimerCore::Kind::interval) ending = end_locked(t);  // why: done, unless refused
      // The one place a timer acts: the event's time is when it did, `scheduled` when it was due.
      if (system_.observing() != 0) [[unlikely]]
        observe_fired(t, scheduled);
      if (!t.deliver(*target)) {
        t.fired_.fetch_sub(1, std::memory_order_acq_rel);  // the target had stopped taking messages
        if (!t.ended_) ending = end_locked(t);
        ending.why = End::target_stopped;
      } else if (t.kind_ == TimerCore::Kind::interval) {
        // Absolute deadlines start + k·period, as Interval: handling time never shifts the next one.
        t.next_ = Interval::next_after(scheduled, rt.now(), t.start_, t.period_, t.policy_);
        t.retain();
        t.token_ = rt.arm(t, t.next_, target->placement());
        rearmed = true;  // from here the next firing may run on another thread, staging anew
      }
      ending.target_alive = std::move(target);
    }
  }
  // A message that was not delivered (ended meanwhile, or refused) is destroyed outside the lock.
  // A re-armed interval delivered, so nothing is staged, and the next firing owns staged_ now.
  if (!rearmed) t.drop_staged();
  finish(t, std::move(ending));
}

Timers::Ending Timers::end_locked(TimerCore& t) noexcept {
  t.ended_ = true;
  t.active_.store(false, std::memory_order_release);
  Ending ending;
  ending.ended = true;
  ending.token = std::exchange(t.token_, 0);
  ending.target = std::move(t.target_);
  if (unregister(t))
    ending.registration = Ref<TimerCore>::adopt(&t);  // lock order: the timer's, then the registry's
  return ending;
}

void Timers::finish(TimerCore& t, Ending ending) noexcept {
  if (!ending.ended) return;
  // The one place a timer's end is reported. A one-shot timer that fired is simply done: its
  // timer_fired already said so.
  if (ending.why != End::done && system_.observing() != 0) [[unlikely]]
    observe_cancelled(t, ending.why);
  // Best effort: a wake-up already running finds the timer ended. The references in `ending` go
  // after every lock: dropping the last one of a cell or of the timer runs a destructor.
  if (ending.token != 0) system_.runtime().disarm(ending.token);
}

bool Timers::end(TimerCore& t, End why) noexcept {
  Ending ending;
  {
    std::lock_guard lk(t.m_);
    if (t.ended_) return false;
    ending = end_locked(t);
    ending.why = why;
  }
  finish(t, std::move(ending));
  return true;
}

bool Timers::unregister(TimerCore& t) noexcept {
  std::lock_guard lk(m_);
  if (t.registered_under_ == nullptr) return false;
  auto it = by_target_.find(t.registered_under_);
  it->second.erase(it->second.iterator_to(t));
  if (it->second.empty()) by_target_.erase(it);
  t.registered_under_ = nullptr;
  --count_;
  return true;  // the caller now owns the registry's reference
}

void Timers::cell_exited(CellCore& target) noexcept {
  if (!used_.is_set()) return;  // this System never used timers: no lock on the exit path
  std::vector<Ref<TimerCore>> aimed;
  {
    std::lock_guard lk(m_);
    auto it = by_target_.find(&target);
    if (it == by_target_.end()) return;
    // Newest first.
    for (auto t = it->second.rbegin(); t != it->second.rend(); ++t) aimed.emplace_back(&*t);
  }
  for (auto& t : aimed) end(*t, End::target_stopped);
}

std::size_t Timers::active_count() const {
  std::lock_guard lk(m_);
  return count_;
}

}  // namespace actorscope::detail
