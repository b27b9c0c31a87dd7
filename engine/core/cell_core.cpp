// The mailbox drain and the lifecycle of every actor: lanes in strict priority, one drain in flight,
// hooks that may suspend, and an exit that frees the name, kills the subtree and tells the supervisor.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/event.hpp>

#include "parked_queue.hpp"

#include <exception>

namespace actorscope::detail {

struct StopRequest {
  std::string reason;
};

namespace {
// Marks a stop request as taken by the drain, so that later stops are ignored. (At namespace
// scope: a function-local static would cost a guard check on every look at the stop lane.)
StopRequest g_stop_taken;
StopRequest* stop_taken() noexcept {
  return &g_stop_taken;
}
// A stop without a reason, shared by every actor so that a plain ctx.stop() allocates nothing.
// Never written: the drain reads its (empty) reason without moving from it.
StopRequest g_plain_stop;
// The name of every unnamed actor.
const std::string g_unnamed;

void drop_stop(StopRequest* s) noexcept {
  if (s != nullptr && s != &g_stop_taken && s != &g_plain_stop) delete s;
}
}  // namespace

CellCore::CellCore(SystemCore& sys, CellConfig config)
    : sys_(sys),
      runtime_(sys.runtime()),
      id_(sys.next_id()),
      type_(config.type),
      bounded_(config.mailbox_capacity != 0 ? std::make_unique<Bounded>() : nullptr),
      home_(config.placement.host),
      budget_(config.budget == 0 ? 1 : config.budget),
      capacity_(config.mailbox_capacity),
      kind_(config.kind),
      overflow_(config.overflow),
      bounded_slow_path_(config.overflow == Overflow::drop_oldest || config.overflow == Overflow::backpressure),
      text_(config.name.empty() ? nullptr : new CellText{std::move(config.name), {}}) {}

CellCore::~CellCore() {
  delete timing_.load(std::memory_order_relaxed);
  delete text_.load(std::memory_order_relaxed);
}

const std::string& CellCore::name() const noexcept {
  const CellText* t = text_.load(std::memory_order_acquire);
  return t != nullptr ? t->name : g_unnamed;
}

void CellCore::set_exit_text(std::string text) noexcept {
  CellText* t = text_.load(std::memory_order_relaxed);
  if (t == nullptr) {
    if (text.empty()) return;  // nothing kept, nothing to replace
    try {
      t = new CellText;
    } catch (...) {
      return;  // out of memory: the exit goes on without its text
    }
    text_.store(t, std::memory_order_release);  // name() may read it from any thread
  }
  t->exit = std::move(text);
}

std::string CellCore::take_exit_text() noexcept {
  CellText* t = text_.load(std::memory_order_relaxed);
  return t != nullptr ? std::move(t->exit) : std::string();
}

CellCore::Timing* CellCore::timing() noexcept {
  Timing* t = timing_.load(std::memory_order_relaxed);
  if (t == nullptr) [[unlikely]] {
    t = new (std::nothrow) Timing;
    timing_.store(t, std::memory_order_release);  // stats() reads its counters from other threads
  }
  return t;
}

// Makes a cell the current actor of this thread for a scope. Scopes nest: a Qt handler may run a
// nested event loop that drains another actor.
class CellCore::CurrentCell {
 public:
  explicit CurrentCell(CellCore* cell) noexcept : outer_(std::exchange(current_, cell)) {}
  ~CurrentCell() { current_ = outer_; }
  CurrentCell(const CurrentCell&) = delete;
  CurrentCell& operator=(const CurrentCell&) = delete;

 private:
  CellCore* outer_;
};

// ---------------------------------------------------------------------------------------------
// Statistics (the observation hooks are in observation.cpp)

ActorStats CellCore::stats() const noexcept {
  ActorStats s;
  s.id = id_;
  s.status = status();
  s.handled = handled_.load(std::memory_order_relaxed);
  s.received = std::max(received(), s.handled);
  s.sent = sent_.load(std::memory_order_relaxed);
  s.supervision_handled = supervision_handled_.load(std::memory_order_relaxed);
  s.child_failures = child_failures_.load(std::memory_order_relaxed);
  s.mailbox_capacity = capacity_;
  s.overflow = overflow_;
  if (bounded_) {
    s.dropped = bounded_->dropped.load(std::memory_order_relaxed);
    s.rejected = bounded_->rejected.load(std::memory_order_relaxed);
  }
  // A bounded mailbox counts what waits (its capacity's measure); an unbounded one also the message
  // being handled.
  const std::uint64_t depth = capacity_ != 0 ? bounded_depth() : s.received - s.handled;
  s.mailbox_depth = s.status == ActorStatus::stopped ? 0 : depth;
  s.mailbox_max = std::max(mailbox_max_.load(std::memory_order_relaxed), s.mailbox_depth);
  if (const Timing* t = timing_.load(std::memory_order_acquire)) {
    s.timed = t->timed.load(std::memory_order_relaxed);
    s.queue_time =
        observe::duration_from_ns(static_cast<std::int64_t>(t->queue_ns.load(std::memory_order_relaxed)));
    s.handling_time =
        observe::duration_from_ns(static_cast<std::int64_t>(t->handling_ns.load(std::memory_order_relaxed)));
  }
  const std::uint64_t hooks = hook_seq_.load(std::memory_order_relaxed);
  s.hook_runs = (hooks + 1) / 2;
  s.in_hook = (hooks & 1) != 0;
  return s;
}

void CellCore::note_mailbox_depth() noexcept {
  const std::uint64_t handled = handled_.load(std::memory_order_relaxed);
  const std::uint64_t received = this->received();
  const std::uint64_t depth = capacity_ != 0        ? bounded_depth()
                              : received > handled ? received - handled
                                                   : 0;
  if (depth > mailbox_max_.load(std::memory_order_relaxed))
    mailbox_max_.store(depth, std::memory_order_relaxed);
}

// Inline (the drain calls it once per message): only the counter, and one look at the System's
// observing bits.
inline void CellCore::count_handled(bool failed) noexcept {
  bump(handled_);
  if constexpr (kObserve) {
    if (sys_.observing() != 0) [[unlikely]]
      observe_handled(failed);
  }
}

void CellCore::dispose() noexcept {
  if (phase_ == Phase::finished) return;
  phase_ = Phase::finished;
  if (task_) {
    task_promise_ = nullptr;
    std::exchange(task_, {}).destroy();
  }
  drop_in_flight();
  close_lanes();
}

// ---------------------------------------------------------------------------------------------
// Producers (any thread)

void CellCore::schedule_drain(Urgency u) noexcept {
  retain();  // held by the scheduled drain until run() or discard()
  runtime_.schedule(*this, placement(), u);
}

void CellCore::wake_if_idle(Urgency u) noexcept {
  std::uint8_t s = sched_.load(std::memory_order_seq_cst);
  if (s == kIdle && sched_.compare_exchange_strong(s, kScheduled, std::memory_order_seq_cst))
    schedule_drain(u);
}

void CellCore::wake_if_idle_or_suspended() noexcept {
  std::uint8_t s = sched_.load(std::memory_order_seq_cst);
  while (s == kIdle || s == kSuspended) {
    if (sched_.compare_exchange_weak(s, kScheduled, std::memory_order_seq_cst)) {
      schedule_drain(Urgency::high);
      return;
    }
  }
}

Pushed CellCore::push_unbounded(MessageNode& n) noexcept {
  // Counted before the push, so that received never trails handled.
  received_.fetch_add(1, std::memory_order_relaxed);
  if (!messages_.push(&n)) {
    received_.fetch_sub(1, std::memory_order_relaxed);
    return Pushed::closed;
  }
  wake_if_idle(Urgency::normal);
  return Pushed::queued;
}

bool CellCore::splice_inbox() noexcept {
  message_queue_.append_lifo(messages_.take());
  // Taking a sealed chain closes the lane: a drain() came first, so refuse like push() would.
  return !messages_.is_closed();
}

bool CellCore::push_supervision(SupervisionEvent event) noexcept {
  auto* node = new SupervisionNode(std::move(event));
  if (!supervision_.push(node)) {
    delete node;
    return false;
  }
  raise_attention();
  // Pushed by an exiting child (or a monitored actor) on its own thread, which is about to finish:
  // the supervisor's reaction continues there instead of waking another thread for it.
  wake_if_idle(Urgency::yielded);
  return true;
}

void CellCore::post_wake(Wait& w) noexcept {
  if (!wakes_.push(&w)) {
    w.release();  // the actor has exited; nobody is left to resume
    return;
  }
  raise_attention();
  wake_if_idle_or_suspended();
}

void CellCore::request_stop(std::string reason) noexcept {
  if (status() >= ActorStatus::stopping) return;
  StopRequest* req = reason.empty() ? &g_plain_stop : new StopRequest{std::move(reason)};
  StopRequest* expected = nullptr;
  if (!stop_.compare_exchange_strong(expected, req, std::memory_order_seq_cst)) {
    drop_stop(req);  // a stop is already pending or taken: the first one wins
    return;
  }
  raise_attention();
  wake_if_idle(Urgency::high);
}

void CellCore::request_kill() noexcept {
  if (kill_.exchange(true, std::memory_order_seq_cst)) return;
  raise_attention();
  wake_if_idle_or_suspended();
}

bool CellCore::request_drain() noexcept {
  if (advance_status(ActorStatus::draining) >= ActorStatus::draining) return false;
  if (!messages_.seal()) return false;
  wake_if_idle(Urgency::normal);
  return true;
}

ActorStatus CellCore::advance_status(ActorStatus to) noexcept {
  const auto target = static_cast<std::uint8_t>(to);
  std::uint8_t cur = status_.load(std::memory_order_acquire);
  while (cur < target && !status_.compare_exchange_weak(cur, target, std::memory_order_acq_rel)) {
  }
  const auto old = static_cast<ActorStatus>(cur);
  // Only the update that crosses into stopping gets here with old < stopping: cleanup runs once.
  if (old < ActorStatus::stopping && to >= ActorStatus::stopping) sys_.on_stopping(*this);
  return old;
}

// ---------------------------------------------------------------------------------------------
// The drain (one at a time, on a runtime thread)

void CellCore::run() noexcept {
  DrainEnd end;
  {
    CurrentCell scope(this);
    end = drain();
  }
  if (end == DrainEnd::yielded) return;  // the re-posted drain carries our reference on
  release();
}

void CellCore::discard() noexcept {
  release();
}

static_assert(Placement::deferred_host == observe::no_thread, "an unsettled home is reported as no thread");

void CellCore::settle(Placement home) noexcept {
  settled_ = true;  // read by finish(), on the thread that runs us from now on
  home_.store(home.host, std::memory_order_release);
}

bool CellCore::has_work() const noexcept {
  if (kill_.load(std::memory_order_seq_cst)) return true;
  StopRequest* s = stop_.load(std::memory_order_seq_cst);
  if (s != nullptr && s != stop_taken()) return true;
  return wakes_.has_items() || supervision_.has_items() || messages_.has_items();
}

bool CellCore::enter_idle() noexcept {
  sched_.store(kIdle, std::memory_order_seq_cst);
  // A producer that pushed before seeing "idle" did not schedule us: look again, and take the
  // drain back if nobody else has.
  if (!has_work()) return false;
  std::uint8_t expected = kIdle;
  return sched_.compare_exchange_strong(expected, kScheduled, std::memory_order_seq_cst);
}

bool CellCore::enter_suspended() noexcept {
  sched_.store(kSuspended, std::memory_order_seq_cst);
  // While a handler is suspended only a kill or a wake may run the actor.
  if (!kill_.load(std::memory_order_seq_cst) && !wakes_.has_items()) return false;
  std::uint8_t expected = kSuspended;
  return sched_.compare_exchange_strong(expected, kScheduled, std::memory_order_seq_cst);
}

inline StopRequest* CellCore::take_stop() noexcept {
  StopRequest* s = stop_.load(std::memory_order_acquire);
  if (s == nullptr || s == stop_taken()) return nullptr;
  stop_.store(stop_taken(), std::memory_order_release);  // producers only CAS from nullptr
  return s;
}

inline MailboxNode* CellCore::next_supervision() noexcept {
  if (supervision_queue_.empty()) {
    if (!supervision_.has_items()) return nullptr;  // the usual case: no CAS, no splice
    supervision_queue_.append_lifo(supervision_.take());
  }
  return supervision_queue_.pop();
}

inline MailboxNode* CellCore::next_message(bool bounded, bool bounded_slow) noexcept {
  if (message_queue_.empty()) {
    message_queue_.append_lifo(messages_.take());
    note_mailbox_depth();
  }
  MailboxNode* n = message_queue_.pop();
  if (bounded && n != nullptr && n != &drain_marker_) [[unlikely]] {
    // A bounded mailbox: the message leaves it now, as its handler is about to begin.
    if (bounded_slow) return begin_bounded_message(n);
    started_.store(started_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  return n;
}

// The in-flight node is a message (not a supervision event) and its hook is done: count it, then
// destroy it. complete_hook(Hook::message, ok) does the same through its general branches.
inline void CellCore::complete_message() noexcept {
  count_handled(false);
  destroy_message(*std::exchange(in_flight_, nullptr));
}

CellCore::DrainEnd CellCore::drain() noexcept {
  std::uint32_t budget = budget_;
  // Fixed at spawn: read once here, so that each message tests a register, not the cell.
  const bool bounded = capacity_ != 0;
  const bool bounded_slow = bounded_slow_path_;
  // Whether the last look at lanes 1-3 found them empty, with no hook suspended and the actor
  // running: then, until a producer raises attention_, the drain goes straight to the messages.
  // Any other turn of the loop (a lane served, a hook suspended, a state change) clears it.
  bool quiet = false;
  for (;;) {
    // Each turn serves one step and says which. Whatever ran a hook or a stop may have finished
    // the actor, which the end of the turn checks, once; a message whose handler completed cannot,
    // and skips the check.
    enum class Served : std::uint8_t { nothing, step, message, message_hook };
    Served served = Served::nothing;
    if (!quiet || attention_.load(std::memory_order_relaxed) != 0) {
      quiet = false;
      // Cleared before the lanes are read: a request queued after this is seen next time round.
      if (attention_.load(std::memory_order_relaxed) != 0) attention_.exchange(0, std::memory_order_acq_rel);
      // Lane 1: signal. A kill ends the actor now, even in the middle of a suspended handler.
      if (kill_.load(std::memory_order_acquire)) {
        on_killed();
        return DrainEnd::finished;
      }
      if (!wake_queue_.empty() || wakes_.has_items()) {
        // Resumptions of a suspended handler (and stale wakes to drop).
        deliver_wakes();
        served = Served::step;
      } else if (task_) {
        // A suspended handler blocks every other lane until it finishes.
        if (enter_suspended()) continue;
        return DrainEnd::parked;
      } else if (serve_control()) {
        served = Served::step;
      } else {
        quiet = phase_ == Phase::running;
      }
    }
    if (served == Served::nothing) {
      // Lane 4: messages, up to the budget per drain.
      MailboxNode* n = next_message(bounded, bounded_slow);
      if (n == nullptr) {
        if (enter_idle()) {
          quiet = false;  // work came in as we went idle: it may be in any lane
          continue;
        }
        return DrainEnd::parked;
      }
      if (n == &drain_marker_) {
        quiet = false;
        begin_stop("drained");
        served = Served::step;
      } else {
        in_flight_ = n;
        if constexpr (kObserve) {
          // Only a message that was timed when it was sent is timed now (at sampled timing, the
          // sampled ones): the others cost no clock read.
          if (sys_.observing() & (kTiming | kSampledTiming)) [[unlikely]]
            if (Timing* t = timing())
              t->started = static_cast<MessageNode*>(n)->enqueued_ns != 0 ? runtime_.now() : TimePoint{};
        }
        if (const HookResult r = in_hook([&] { return run_message(*n); }); r.kind == HookResult::Kind::done)
            [[likely]] {
          complete_message();
          served = Served::message;
        } else {
          quiet = false;
          begin_hook(Hook::message, r);
          served = Served::message_hook;
        }
      }
    }
    // The one check: did this turn finish the actor?
    if (served != Served::message && phase_ == Phase::finished) return DrainEnd::finished;
    if (served != Served::step && --budget == 0) {
      budget = budget_;
      if (!task_ && (!message_queue_.empty() || has_work())) {
        runtime_.schedule(*this, placement(), Urgency::yielded);  // fairness: let others run
        return DrainEnd::yielded;
      }
    }
  }
}

bool CellCore::serve_control() noexcept {
  if (phase_ == Phase::starting) {
    begin_hook(Hook::post_start, in_hook([&] { return run_post_start(); }));
    return true;
  }
  // Lane 2: stop. It waits for the in-flight handler, then outranks everything queued.
  if (StopRequest* s = take_stop()) {
    std::string reason = s == &g_plain_stop ? std::string() : std::move(s->reason);
    drop_stop(s);
    begin_stop(std::move(reason));
    return true;
  }
  // Lane 3: supervision events.
  if (MailboxNode* n = next_supervision()) {
    in_flight_ = n;
    in_flight_is_supervision_ = true;
    const SupervisionEvent& event = static_cast<SupervisionNode*>(n)->event;
    if (event.is<ActorFailed>()) bump(child_failures_);
    if constexpr (kObserve) {
      if (sys_.observing() != 0) [[unlikely]]
        observe_supervision(event);
    }
    begin_hook(Hook::supervision,
               in_hook([&] { return run_supervision(static_cast<SupervisionNode*>(n)->event); }));
    return true;
  }
  return false;
}

void CellCore::deliver_wakes() noexcept {
  wake_queue_.append_lifo(wakes_.take());
  while (MailboxNode* n = wake_queue_.pop()) {
    in_hook([&] { static_cast<Wait*>(n)->deliver(); });
    if (task_ && task_.done()) complete_task();
    if (phase_ == Phase::finished || kill_.load(std::memory_order_acquire)) return;
  }
}

HookResult CellCore::start_task(std::coroutine_handle<> frame, PromiseBase& promise) noexcept {
  promise.ctx = this;
  task_ = frame;
  task_promise_ = &promise;
  frame.resume();
  if (!frame.done()) return HookResult::suspended();
  on_task_finished();
  std::exception_ptr ex = promise.exception;
  task_ = {};
  task_promise_ = nullptr;
  frame.destroy();
  return ex ? fail(describe_exception(ex)) : HookResult::ok();
}

void CellCore::complete_task() noexcept {
  on_task_finished();
  std::exception_ptr ex = task_promise_->exception;
  task_promise_ = nullptr;
  std::exchange(task_, {}).destroy();  // the frame goes before the message it may refer to
  complete_hook(std::exchange(hook_, Hook::none), ex ? fail(describe_exception(ex)) : HookResult::ok());
}

void CellCore::begin_hook(Hook hook, HookResult r) noexcept {
  if (r.kind == HookResult::Kind::suspended) {
    hook_ = hook;
    return;
  }
  complete_hook(hook, r);
}

void CellCore::drop_in_flight() noexcept {
  MailboxNode* n = std::exchange(in_flight_, nullptr);
  if (n == nullptr) return;
  if (std::exchange(in_flight_is_supervision_, false)) {
    delete static_cast<SupervisionNode*>(n);
  } else {
    destroy_message(*n);
  }
}

void CellCore::complete_hook(Hook hook, HookResult r) noexcept {
  if (hook != Hook::message && hook != Hook::supervision) drop_in_flight();
  const bool failed = r.kind == HookResult::Kind::failed;
  switch (hook) {
    case Hook::post_start:
      if (failed) return finish(ExitKind::failed, take_exit_text(), false);
      phase_ = Phase::running;
      advance_status(ActorStatus::running);
      if constexpr (kObserve) {
        if (sys_.observing() != 0) [[unlikely]]
          observe_started();
      }
      if (sys_.maybe_linked()) {
        if (Ref<CellCore> parent = sys_.supervisor_of(*this))
          parent->push_supervision(ActorStarted{ActorCell(Ref<CellCore>(this))});
      }
      return;
    case Hook::message:
    case Hook::supervision:
      if (hook == Hook::message) {
        count_handled(failed);
      } else {
        bump(supervision_handled_);
      }
      drop_in_flight();
      if (failed) finish(ExitKind::failed, take_exit_text(), false);
      return;
    case Hook::post_stop:
      if (failed) return finish(ExitKind::failed, take_exit_text(), false);
      return finish(ExitKind::stopped, take_exit_text(), true);
    case Hook::none:
      return;
  }
}

void CellCore::begin_stop(std::string reason) noexcept {
  advance_status(ActorStatus::stopping);
  set_exit_text(std::move(reason));
  phase_ = Phase::stopping;
  begin_hook(Hook::post_stop, in_hook([&] { return run_post_stop(); }));
}

void CellCore::on_killed() noexcept {
  // ractor's rule: a kill while running hands the state over; during post_start or post_stop the
  // state is not in a consistent shape, so the supervisor gets none.
  const bool with_state = phase_ == Phase::running;
  if (task_) {
    task_promise_ = nullptr;
    hook_ = Hook::none;
    std::exchange(task_, {}).destroy();  // every awaitable in the frame unregisters itself
  }
  drop_in_flight();
  finish(ExitKind::killed, "killed", with_state);
}

void CellCore::close_lanes() noexcept {
  // Wakes first: destroying messages below may complete replies whose waiters post wakes here.
  NodeQueue rest;
  rest.append_lifo(wakes_.close());
  while (MailboxNode* n = wake_queue_.pop()) static_cast<Wait*>(n)->release();
  while (MailboxNode* n = rest.pop()) static_cast<Wait*>(n)->release();

  rest.append_lifo(supervision_.close());
  while (MailboxNode* n = supervision_queue_.pop()) delete static_cast<SupervisionNode*>(n);
  while (MailboxNode* n = rest.pop()) delete static_cast<SupervisionNode*>(n);

  // Messages that were accepted but will never be handled. Their destructors run here, so a
  // reply port inside one tells its caller that no reply is coming.
  rest.append_lifo(messages_.close());
  // Senders waiting for room in a backpressured mailbox get their messages back.
  if (bounded_ && overflow_ == Overflow::backpressure) close_parked();
  while (MailboxNode* n = message_queue_.pop())
    if (n != &drain_marker_) destroy_message(*n);
  while (MailboxNode* n = rest.pop())
    if (n != &drain_marker_) destroy_message(*n);

  drop_stop(stop_.exchange(stop_taken(), std::memory_order_acq_rel));
}

// The one exit sequence. Every step runs on both paths unless its comment says why a path skips it.
void CellCore::finish(ExitKind kind, std::string text, bool with_state, ExitPath path) noexcept {
  const bool ran = path == ExitPath::ran;
  advance_status(ActorStatus::stopping);
  phase_ = Phase::finished;
  close_lanes();
  // The subtree dies with us. Each child kills its own children when it exits, so a deep tree
  // unwinds through the scheduler, never through the stack. (An actor that never ran is not
  // linked yet, linking comes after pre_start, but pre_start may have spawned linked children.)
  auto [children, parent] = sys_.leave_tree(*this);
  for (Ref<CellCore>& child : children) child->request_kill();

  // Only a supervisor receives the final state: an unsupervised actor's is destroyed in place
  // rather than boxed (an allocation) and dropped.
  BoxedState state = ran && with_state && parent ? take_state() : BoxedState{};
  destroy_state();
  advance_status(ActorStatus::stopped);
  // Final statistics: skipped by an actor that never ran, which handled nothing.
  if (ran) sys_.on_final_stats(*this);
  if constexpr (kObserve) {
    if (sys_.observing() != 0) [[unlikely]]
      observe_exit(kind, text);
  }

  ActorExit exit{kind, text};
  // The supervisor push: skipped by an actor that never ran, whose spawner hears the failure as
  // the SpawnError instead (no supervisor was ever told it started).
  if (ran && parent) {
    ActorCell me{Ref<CellCore>(this)};
    if (kind == ExitKind::failed) {
      parent->push_supervision(ActorFailed{std::move(me), std::move(text)});
    } else {
      parent->push_supervision(ActorTerminated{std::move(me), std::move(state), std::move(text), kind});
    }
  }
  sys_.before_exit(*this, exit);
  // Vacate the home the runtime settled for us; an actor that never ran was never settled.
  if (settled_) runtime_.vacate(placement());
  sched_.store(kTerminated, std::memory_order_release);
  // Leave the System before waking waiters, so that whoever wakes sees the actor gone everywhere.
  // From here on the System may be torn down; waking waiters only touches this cell.
  sys_.cell_exited(*this);
  on_exit(exit);
  set_result(std::move(exit));
}

// ---------------------------------------------------------------------------------------------
// Spawning (on the spawning thread, before the first drain)

HookResult CellCore::start_on_caller() noexcept {
  advance_status(ActorStatus::starting);
  CurrentCell scope(this);  // what pre_start sends, this actor sent
  return run_pre_start();
}

void CellCore::abandon_start(ExitKind kind, std::string text) noexcept {
  finish(kind, std::move(text), false, ExitPath::never_ran);
}

void CellCore::launch() noexcept {
  phase_ = Phase::starting;
  // sched_ is still kScheduled from construction. A continuation of the spawner's work: a child
  // spawned by an actor starts on the spawner's thread unless another thread is idle and awake.
  schedule_drain(Urgency::yielded);
}

}  // namespace actorscope::detail
