// CellCore: the untyped half of an actor. It owns the four mailbox lanes, the scheduling state
// machine that guarantees one drain at a time without locks or strands, and the lifecycle
// (start, stop, kill, failure, exit). The typed Cell<A> on top supplies only the hook calls.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/actor_stats.hpp>
#include <actorscope/completion.hpp>
#include <actorscope/detail/mailbox.hpp>
#include <actorscope/detail/message_pool.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/overflow.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/supervision_event.hpp>
#include <actorscope/task.hpp>
#include <actorscope/wait.hpp>

#include <boost/intrusive/list.hpp>

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>

namespace actorscope::detail {

class SystemCore;
struct StopRequest;

/// What running a hook did: finished, threw, or suspended in a coroutine (to be resumed by a wake).
/// A failure's text waits in the cell (CellCore::fail), so that the result is one trivially
/// copyable byte, returned in a register: one is made and consumed for every message.
struct HookResult {
  enum class Kind : std::uint8_t { done, failed, suspended };
  Kind kind = Kind::done;

  static constexpr HookResult ok() noexcept { return {}; }
  static constexpr HookResult suspended() noexcept { return {Kind::suspended}; }
};

/// The text of the exception being handled ("unknown exception" for non-std ones).
std::string describe_current_exception();
std::string describe_exception(const std::exception_ptr& e);

/// A message in the message lane. What an observer needs travels with it: who sent it, when, and
/// the id that pairs its send with its handling (0 when it is not sampled).
struct MessageNode : MailboxNode {
  std::uint64_t trace = 0;
  std::uint64_t sender = 0;  ///< the sending actor's pid (0: not sent from an actor)
  std::int64_t enqueued_ns = 0;
};

struct SupervisionNode final : MailboxNode {
  explicit SupervisionNode(SupervisionEvent e) : event(std::move(e)) {}
  SupervisionEvent event;
};

enum class CellKind : std::uint8_t { actor, task };

/// What became of a message offered to the message lane.
enum class Pushed : std::uint8_t {
  queued,   ///< in the mailbox
  dropped,  ///< a full drop_newest mailbox destroyed it (counted); the send counts as done
  full,     ///< a full bounded mailbox refused it (reject, backpressure, or a try): the caller keeps it
  closed,   ///< the actor no longer accepts messages: the caller keeps it
};

/// A send that waits for room in a full backpressured mailbox. The cell queues it, in FIFO order
/// with the others, and moves its message into the mailbox when a slot frees (`queued`), or hands
/// it back when the actor stops taking messages (`closed`) or the sender gives up (`withdrawn`).
/// Then `completion()` is done. The typed half owns the message's envelope.
class ParkedSend : public RefCounted {
 public:
  enum class State : std::uint8_t { parked, queued, closed, withdrawn };

  explicit ParkedSend(MessageNode& node) noexcept : node_(&node) {}
  Completion& completion() noexcept { return done_; }
  /// Settled once completion() is done, or once CellCore::withdraw returned true.
  State state() const noexcept { return state_.load(std::memory_order_acquire); }

 protected:
  MessageNode* const node_;

 private:
  friend class CellCore;
  boost::intrusive::list_member_hook<> hook_;  // in the cell's queue of parked sends
  std::atomic<State> state_{State::parked};
  Completion done_;

 public:
  using List = boost::intrusive::list<
      ParkedSend, boost::intrusive::member_hook<ParkedSend, boost::intrusive::list_member_hook<>, &ParkedSend::hook_>,
      boost::intrusive::constant_time_size<false>>;
};

struct CellConfig {
  std::string name;
  std::uint32_t budget = 64;
  Placement placement;
  const CellType* type = nullptr;  ///< a static CellType (actor_cell_type_v, task_cell_type_v)
  CellKind kind = CellKind::actor;
  std::uint32_t mailbox_capacity = 0;  // 0: unbounded
  Overflow overflow = Overflow::reject;
};

class CellCore : public JoinState<ActorExit>, public Runnable, public ExecContext {
 public:
  // Cells are allocated on the spawning thread and freed on the actor's: MessagePool moves their
  // memory back in batches, where glibc took its arena lock for every free from another thread.
  static void* operator new(std::size_t size) { return MessagePool::allocate(size); }
  static void* operator new(std::size_t size, std::align_val_t a) { return ::operator new(size, a); }
  static void operator delete(void* p, std::size_t size) noexcept { MessagePool::deallocate(p, size); }
  static void operator delete(void* p, std::size_t size, std::align_val_t a) noexcept {
    ::operator delete(p, size, a);
  }

  // -- identity (any thread) --
  ActorId id() const noexcept { return id_; }
  /// The registered name ("" for an unnamed actor).
  const std::string& name() const noexcept;
  std::string_view type_name() const noexcept { return type_->name; }
  const void* message_tag() const noexcept { return type_->message_tag; }
  CellKind kind() const noexcept { return kind_; }
  ActorStatus status() const noexcept {
    return static_cast<ActorStatus>(status_.load(std::memory_order_acquire));
  }
  bool accepts_messages() const noexcept { return status() < ActorStatus::draining; }
  SystemCore& system() const noexcept { return sys_; }

  // -- ExecContext --
  Runtime& runtime() const noexcept override { return runtime_; }
  /// Where the actor lives: Placement::deferred() until a backend that deferred it settles it.
  Placement placement() const noexcept override { return {home_.load(std::memory_order_acquire)}; }
  void post_wake(Wait& w) noexcept override;
  void retain_context() const noexcept override { retain(); }
  void release_context() const noexcept override { release(); }

  // -- JoinStateBase --
  void abort() noexcept override { request_kill(); }
  Runtime& join_runtime() const noexcept override { return runtime_; }

  // -- statistics (any thread) --
  ActorStats stats() const noexcept;

  // -- the bounded mailbox (fixed at spawn) --
  /// The most messages that may wait (0: unbounded), and what a full mailbox does.
  std::uint32_t mailbox_capacity() const noexcept { return capacity_; }
  Overflow overflow() const noexcept { return overflow_; }

  // -- requests (any thread) --
  /// Queues a message on the lowest lane, subject to a bounded mailbox's policy; `try_only`
  /// refuses rather than drops when it is full. The caller still owns `n` unless the result is
  /// queued or dropped.
  Pushed push_message(MessageNode& n, bool try_only = false) noexcept {
    if (!accepts_messages()) return Pushed::closed;
    if (capacity_ != 0) [[unlikely]]
      return push_bounded_message(n, try_only);
    return push_unbounded(n);
  }
  /// The same for a message this actor sends itself, from its own drain or pre_start (where
  /// current() == this): nobody else consumes the lane then, so the message goes straight to
  /// the drain's queue without an atomic read-modify-write or a wake-up check. Always inline: it is
  /// most of a self-send, and GCC stopped inlining it into TypedCell::send on its own once the
  /// bounded branch was added (a call and its spills: 18 more instructions per self-send). @thread owner
  [[gnu::always_inline]] Pushed push_own_message(MessageNode& n, bool try_only = false) noexcept {
    if (!accepts_messages()) return Pushed::closed;
    if (capacity_ != 0) [[unlikely]] {
      // A slot of a bounded mailbox, taken without a compare-and-swap: only this thread writes
      // own_slots_ and started_ (see bounded_mailbox.cpp for what that allows).
      // (The actor reads its own started_, and every slot it has seen begin was taken before it,
      // so the sum cannot trail started_: no saturating subtraction needed.)
      // No look at parked sends: while this thread sends, nothing frees a slot (only its drain
      // does, between handlers), and a send parks only on a full mailbox, then takes whatever room
      // it finds (park() admits under the queue's lock). So room here means nobody is parked, and
      // a full mailbox sends this message to push_bounded, which keeps the parked ones' order.
      const std::uint64_t own = own_slots_.load(std::memory_order_relaxed);
      if (full(received_.load(std::memory_order_relaxed) + own, started_.load(std::memory_order_relaxed)))
        return push_bounded(n, try_only, true);
      if (!queue_own(n)) [[unlikely]]
        return Pushed::closed;
      own_slots_.store(own + 1, std::memory_order_relaxed);
      return Pushed::queued;
    }
    if (!queue_own(n)) [[unlikely]]
      return Pushed::closed;
    bump(received_own_);
    return Pushed::queued;
  }
  /// Backpressure: queues `p` behind the sends already waiting for room in this full mailbox (or
  /// settles it at once if room or a closed lane turn up meanwhile). @thread any
  void park(ParkedSend& p) noexcept;
  /// Takes `p` back if it is still waiting: true, and its state is withdrawn. False if it has been
  /// settled (its completion is done or about to be). @thread any
  bool withdraw(ParkedSend& p) noexcept;
  /// Counts a send that a full mailbox refused in the end (ActorStats::rejected). @thread any
  void count_rejected() noexcept;
  /// Fills in a message's observation fields and emits message_sent; `observing` is the System's
  /// observing() bits, non-zero. Called by the sender before push_message.
  void note_send(MessageNode& n, std::uint8_t observing, std::string_view type) noexcept;
  /// The actor whose hook is running on this thread (nullptr outside actors). Its sends count as
  /// its own. @thread any
  static CellCore* current() noexcept { return current_; }
  /// Counts one message sent by this actor. @thread owner
  void count_sent() noexcept { bump(sent_); }
  /// Queues a supervision event. False (event dropped) if the actor has exited.
  bool push_supervision(SupervisionEvent event) noexcept;
  /// Graceful stop: the in-flight handler finishes, then post_stop runs. A second stop is ignored.
  void request_stop(std::string reason) noexcept;
  /// Immediate: interrupts a suspended handler, skips post_stop.
  void request_kill() noexcept;
  /// Refuses new messages; the queued ones are handled, then the actor stops ("drained").
  bool request_drain() noexcept;

  // -- Runnable: the mailbox drain (runtime thread) --
  void run() noexcept override;
  void discard() noexcept override;
  void settle(Placement home) noexcept override;

 protected:
  CellCore(SystemCore& sys, CellConfig config);
  ~CellCore() override;

  // Hooks supplied by the typed cell. run_pre_start runs on the spawning thread; the others on
  // the actor's thread, one at a time. A hook that returns suspended has called start_task().
  virtual HookResult run_pre_start() noexcept = 0;
  virtual HookResult run_post_start() noexcept = 0;
  virtual HookResult run_message(MailboxNode& n) noexcept = 0;
  virtual HookResult run_supervision(SupervisionEvent& event) noexcept = 0;
  virtual HookResult run_post_stop() noexcept = 0;
  virtual void destroy_message(MailboxNode& n) noexcept = 0;
  /// The type of the message in `n`, for observers ("Add" for a variant holding an Add).
  virtual std::string_view message_type(MailboxNode& n) noexcept = 0;
  /// Moves the final state into a box for the supervisor (empty box if there is none).
  virtual BoxedState take_state() noexcept = 0;
  /// Destroys the state (if it was not taken). Runs on the actor's thread.
  virtual void destroy_state() noexcept = 0;
  /// A coroutine hook finished; called before its frame is destroyed.
  virtual void on_task_finished() noexcept {}
  /// The actor has exited and left its System; called just before its waiters are woken. It must
  /// not touch the System, which may already be gone.
  virtual void on_exit(const ActorExit& exit) noexcept { (void)exit; }

  /// A failed hook's result; `text` (what went wrong) is kept until the failure is handled.
  HookResult fail(std::string text) noexcept {
    set_exit_text(std::move(text));
    return {HookResult::Kind::failed};
  }

  /// Starts a coroutine hook and takes ownership of its frame.
  HookResult start_task(std::coroutine_handle<> frame, PromiseBase& promise) noexcept;

  /// Releases whatever an actor that never exited still holds (a suspended frame, queued
  /// messages). The most-derived cell calls it from its destructor, while its members are alive.
  void dispose() noexcept;

 private:
  friend class SystemCore;

  enum class Phase : std::uint8_t { created, starting, running, stopping, finished };
  enum class Hook : std::uint8_t { none, post_start, message, supervision, post_stop };
  enum class DrainEnd : std::uint8_t { parked, yielded, finished };
  // The scheduling state: at most one drain is in flight, and only the producer that moves the
  // cell out of idle (or suspended, for urgent work) schedules it.
  static constexpr std::uint8_t kIdle = 0, kScheduled = 1, kSuspended = 2, kTerminated = 3;

  /// The name and the exit text of the actors that have them (see text_), from MessagePool: a
  /// stop with a reason makes one for an unnamed actor.
  struct CellText {
    std::string name;
    std::string exit;  // see set_exit_text
    static void* operator new(std::size_t size) { return MessagePool::allocate(size); }
    static void operator delete(void* p, std::size_t size) noexcept { MessagePool::deallocate(p, size); }
  };
  /// Keeps the reason of a stop in progress (from begin_stop until post_stop ends), or a failed
  /// hook's text (see fail()) until the failure is handled. Never both: a stop begins only once no
  /// hook is in flight, and only post_stop's own failure comes after it (and replaces it). If the
  /// text's block cannot be allocated, the text is lost and the exit reports none. @thread owner
  void set_exit_text(std::string text) noexcept;
  /// Takes the text set_exit_text kept ("" if none). @thread owner
  std::string take_exit_text() noexcept;

  Pushed push_unbounded(MessageNode& n) noexcept;
  /// Appends `n` to the drain's queue behind what other senders queued. @thread owner
  bool queue_own(MessageNode& n) noexcept {
    // What other senders queued before this send stays ahead of it: splice them in first.
    if (messages_.has_items() && !splice_inbox()) [[unlikely]]
      return false;
    message_queue_.push_back(&n);
    return true;
  }
  // The bounded mailbox (core/bounded_mailbox.cpp). A message takes a slot when it is queued and
  // frees it when its handler begins (a drop_oldest message takes over the slot of the one it
  // evicts); waiting() is the number of taken slots: received_ + own_slots_ - started_.
  // push_bounded_message is a send from another actor or thread when there is room, as short as
  // push_unbounded; it leaves every other case to push_bounded.
  Pushed push_bounded_message(MessageNode& n, bool try_only) noexcept;
  Pushed push_bounded(MessageNode& n, bool try_only, bool own) noexcept;
  bool take_slot() noexcept;
  static std::uint64_t waiting(std::uint64_t slots_taken, std::uint64_t started) noexcept {
    return slots_taken > started ? slots_taken - started : 0;
  }
  /// Whether waiting(slots_taken, started) has reached the capacity, in the fewest instructions
  /// (a bounded mailbox's every send asks). @thread any
  bool full(std::uint64_t slots_taken, std::uint64_t started) const noexcept {
    return slots_taken >= started + capacity_;
  }
  /// The message `n`, just taken from the queue, is about to be handled, for the policies that do
  /// more than count its slot free: drop_oldest discards it (and the next ones) while evictions are
  /// owed, backpressure lets a waiting sender in. Returns the message to handle (or the drain
  /// marker, or nullptr). @thread owner
  MailboxNode* begin_bounded_message(MailboxNode* n) noexcept;
  struct ParkedQueue;
  struct Bounded;
  struct Settled;
  struct Timing;
  /// Moves parked sends into the mailbox while there is room; `settled` collects them, to be told
  /// once the queue's lock is released. @lock bounded_->parked.m
  void admit_parked_locked(Settled& settled) noexcept;
  void admit_parked() noexcept;
  /// The lane has closed: every parked send gets its message back.
  void close_parked() noexcept;
  /// The drain's Timing, made on first use (nullptr if that allocation failed: the message is
  /// then not timed). @thread owner
  Timing* timing() noexcept;

  DrainEnd drain() noexcept;
  /// Serves one of post_start, a stop (lane 2) or a supervision event (lane 3), in that order;
  /// false if none was waiting. Part of drain(), which then checks whether the actor finished.
  bool serve_control() noexcept;
  void schedule_drain(Urgency u) noexcept;
  void wake_if_idle(Urgency u) noexcept;
  void wake_if_idle_or_suspended() noexcept;
  /// Tells the drain to look at lanes 1-3 again. @thread any, after the lane's request is queued
  void raise_attention() noexcept { attention_.store(1, std::memory_order_release); }
  bool enter_idle() noexcept;
  bool enter_suspended() noexcept;
  bool has_work() const noexcept;
  StopRequest* take_stop() noexcept;
  MailboxNode* next_supervision() noexcept;
  /// The next message, or nullptr, or the drain marker. `bounded` and `bounded_slow` are
  /// capacity_ != 0 and bounded_slow_path_, which the drain reads once (see drain()).
  MailboxNode* next_message(bool bounded, bool bounded_slow) noexcept;
  /// Moves what other senders queued into the drain's queue; false if that closed the lane (a
  /// drain's seal was among it).
  bool splice_inbox() noexcept;
  void deliver_wakes() noexcept;
  void begin_hook(Hook hook, HookResult r) noexcept;
  void complete_hook(Hook hook, HookResult r) noexcept;
  /// Messages accepted into the lane: by other senders, by the actor itself, and by drop_oldest
  /// in the place of an evicted one.
  /// drop_oldest: the messages evicted to make room (each took the evicted one's slot). @thread any
  std::uint64_t evicted() const noexcept;
  std::uint64_t received() const noexcept {
    std::uint64_t n = received_.load(std::memory_order_relaxed) + received_own_.load(std::memory_order_relaxed);
    if (capacity_ != 0) {
      n += own_slots_.load(std::memory_order_relaxed);
      if (overflow_ == Overflow::drop_oldest) n += evicted();
    }
    return n;
  }
  /// What waits in a bounded mailbox.
  std::uint64_t bounded_depth() const noexcept {
    return waiting(received_.load(std::memory_order_relaxed) + own_slots_.load(std::memory_order_relaxed),
                   started_.load(std::memory_order_relaxed));
  }
  void complete_task() noexcept;
  void drop_in_flight() noexcept;
  void begin_stop(std::string reason) noexcept;
  void on_killed() noexcept;
  /// How an actor's life ends: the drain ends one that ran (stop, failure, kill); spawning gives
  /// up on one that never ran (pre_start failed, name taken, System or supervisor stopping). Both
  /// go through finish(), which names the steps a path skips and why.
  enum class ExitPath : std::uint8_t { ran, never_ran };
  void finish(ExitKind kind, std::string text, bool with_state, ExitPath path = ExitPath::ran) noexcept;
  void close_lanes() noexcept;
  /// Monotonic status update; the first move to stopping or beyond frees the name. Returns the old status.
  ActorStatus advance_status(ActorStatus to) noexcept;

  // Observation: defined in core/observation.cpp, and only reached when an observer is attached
  // (the call sites test SystemCore::observing() first).
  void observe_started() noexcept;
  void observe_exit(ExitKind kind, const std::string& text) noexcept;
  void observe_supervision(const SupervisionEvent& event) noexcept;
  /// Counts the in-flight message as handled and, with an observer attached, reports it.
  void count_handled(bool failed) noexcept;
  void observe_handled(bool failed) noexcept;
  /// Ends the in-flight message's handling after its hook finished without failing or suspending:
  /// the drain's common case, without the general hook completion's branches.
  void complete_message() noexcept;
  void note_mailbox_depth() noexcept;
  /// Runs a hook on the actor's thread, marked in hook_seq_ for the statistics (a poller that sees
  /// the same odd value twice knows that one hook held the thread all along). @thread owner
  template <class F>
  decltype(auto) in_hook(F&& run) noexcept {
    struct Mark {
      std::atomic<std::uint64_t>& seq;
      explicit Mark(std::atomic<std::uint64_t>& s) noexcept : seq(s) { bump(seq); }
      ~Mark() { bump(seq); }
    } mark(hook_seq_);
    return run();
  }
  /// Increments a counter that only the owner thread writes (no read-modify-write needed).
  static void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
    c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  // Constant-initialised and defined here, so that reading it needs no TLS init check.
  static inline thread_local constinit CellCore* current_ = nullptr;
  class CurrentCell;

  // Called by SystemCore on the spawning thread.
  HookResult start_on_caller() noexcept;
  void abandon_start(ExitKind kind, std::string text) noexcept;
  void launch() noexcept;

  // Cross-thread state, in two groups at least a cache line apart, whatever the cell's alignment.
  // Senders write the second group once per message (the inbox CAS, received_); every drain
  // iteration reads the first (the kill, stop, wake and supervision lanes). Sharing one line, they
  // cost a cross-core transfer of it per message, in both directions; apart, the first is only read
  // while messages flow. What keeps them apart, and apart from the owner's counters after them, is
  // not padding (it was three lines of it, 192 bytes of every actor) but fields that are never
  // written while messages flow, each run of them at least 63 bytes long: the identity between the
  // groups (fixed at construction; home_ once more by settle()), and after them the text pointer
  // (at most once more, at the end), the tree links (written under SystemCore's lock, at spawn and
  // exit) and the pointer to the timing totals (written once, the first time an observer has a
  // message timed).
  // Within each group the fields are ordered by size, so that no hole is left between them.

  // -- cross-thread state that changes rarely --
  std::atomic<std::uint8_t> status_{static_cast<std::uint8_t>(ActorStatus::unstarted)};
  std::atomic<std::uint8_t> sched_{kScheduled};  // the spawner owns the first drain
  std::atomic<bool> kill_{false};
  // Raised by every producer of lanes 1-3 (kill, stop, wake, supervision) after it has queued its
  // request, so that while messages flow the drain looks at one byte instead of at four lanes.
  std::atomic<std::uint8_t> attention_{0};
  std::atomic<bool> has_parked_{false};  // backpressure: sends wait in bounded_->parked
  // Guarded by SystemCore's structure mutex (with the tree below); written once, at exit.
  bool children_closed_ = false;
  std::atomic<StopRequest*> stop_{nullptr};
  MailboxNode drain_marker_;
  Inbox wakes_;
  Inbox supervision_;

  // -- identity, the first spacer (64 bytes): fixed at construction (home_ and settled_: once more,
  // by settle()) --
  SystemCore& sys_;
  Runtime& runtime_;
  ActorId id_;
  const CellType* type_;
  // A bounded mailbox's state that its fast paths never touch (bounded_mailbox.cpp): what it
  // dropped and refused, the evictions carried out, and under backpressure the waiting sends.
  std::unique_ptr<Bounded> bounded_;  // bounded mailboxes only
  std::atomic<std::uint32_t> home_;      // a Placement's host: set at construction, or once by settle()
  std::uint32_t budget_;
  const std::uint32_t capacity_;         // 0: unbounded
  bool settled_ = false;                 // settle() chose home_: tell the runtime when we exit
  CellKind kind_;
  const Overflow overflow_;
  const bool bounded_slow_path_;  // drop_oldest or backpressure: see begin_bounded_message

  // -- written by every sender --
  // Every send writes received_ and then the inbox's head: the two are the first 16 bytes of the
  // group, which begins at a multiple of 16, so that they share a cache line whatever the cell's
  // (16-byte) alignment. (With the head first, in one cell of four they lay on two lines, and a
  // send from another thread paid for two cross-core transfers where one would do.)
  std::atomic<std::uint64_t> received_{0};  // statistics: by any sender
  Inbox messages_{&drain_marker_};
  // Bounded mailboxes only: received_ counts the slots other senders took, own_slots_ those the
  // actor took for its own messages (written by the owner only, read by senders on the same line);
  // the senders' last look at started_ (never ahead of it). (What a full one drops or refuses is
  // counted in bounded_.)
  std::atomic<std::uint64_t> own_slots_{0};
  std::atomic<std::uint64_t> started_seen_{0};

  // -- cold: the second spacer (72 bytes) --
  // The name and the exit text, which most actors never have: made at construction for a named
  // actor, else by the drain the first time it keeps an exit text (see set_exit_text). Read by
  // name() from any thread.
  std::atomic<CellText*> text_{nullptr};
  // Guarded by SystemCore's structure mutex.
  using ListHook = boost::intrusive::list_member_hook<>;
  template <ListHook CellCore::*H>
  using List = boost::intrusive::list<CellCore, boost::intrusive::member_hook<CellCore, ListHook, H>,
                                      boost::intrusive::constant_time_size<false>>;
  CellCore* parent_ = nullptr;  // holds a reference while linked
  ListHook sibling_hook_;       // in parent_->children_ while linked
  ListHook live_hook_;          // in SystemCore's live list from spawn to exit
  using Children = List<&CellCore::sibling_hook_>;
  using LiveList = List<&CellCore::live_hook_>;
  // Mutable as the lock that guards it: a const cell still lists its children.
  mutable Children children_;  // in link order; the parent holds a reference to each child
  // Timing (an observer asked for queue and handling times): the drain's clock and the exact totals,
  // made by the drain the first time it times a message, and freed with the cell. Most actors are
  // never timed; those that are pay one indirection per timed message (see timing()).
  struct Timing {
    TimePoint started{};  // when the current message's handler began (zero: it is not timed)
    std::atomic<std::uint64_t> timed{0};  // messages in queue_ns and handling_ns
    std::atomic<std::uint64_t> queue_ns{0};
    std::atomic<std::uint64_t> handling_ns{0};
  };
  std::atomic<Timing*> timing_{nullptr};  // written once, by the drain; read by stats() from any thread

  // -- statistics: by the owner (relaxed stores) --
  std::atomic<std::uint64_t> received_own_{0};  // sent to itself (push_own_message)
  std::atomic<std::uint64_t> handled_{0};
  std::atomic<std::uint64_t> started_{0};  // bounded mailboxes: messages whose handler began
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> supervision_handled_{0};
  std::atomic<std::uint64_t> child_failures_{0};
  std::atomic<std::uint64_t> mailbox_max_{0};

  // -- owned by the drain (one thread at a time) --
  NodeQueue wake_queue_;
  NodeQueue supervision_queue_;
  NodeQueue message_queue_;
  // Odd while a hook runs on the actor's thread: raised by one as it starts and as it returns. Near
  // the drain's own queues and phase, which every hook's drain reads anyway, so that a cold cell
  // brings in no line for it (StatsPoller reads it from other threads: an atomic).
  std::atomic<std::uint64_t> hook_seq_{0};
  std::coroutine_handle<> task_{};
  PromiseBase* task_promise_ = nullptr;
  MailboxNode* in_flight_ = nullptr;  // the message or event the current hook is handling
  Phase phase_ = Phase::created;
  Hook hook_ = Hook::none;  // the suspended hook, if task_ is set
  bool in_flight_is_supervision_ = false;
};

}  // namespace actorscope::detail
