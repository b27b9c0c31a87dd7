// Factory: one actor in front of a pool of worker actors (ractor's factory). A job is a key, a
// message and its options; the factory routes each job to a worker by its key, as the factory's
// Routing says, and holds the jobs that must wait, in a FIFO or a priority queue. A worker handles
// one job at a time; when its handler returns (or its coroutine finishes) the factory hears that the
// worker finished that key and gives it the next job. A worker that fails is rebuilt with the same
// id and keeps its queue.
//
// Under load a factory sheds work instead of growing without bound: a queue limit (static, or
// asked anew every poll) drops the oldest or the newest job, a job waiting past its TTL is dropped
// before it runs, and a rate limit drops what is over the rate. Every dropped job goes to the
// discard handler with its reason and is counted (FactoryStats). A dead-man's switch reports, and
// by default kills and replaces, a worker stuck on one job. The pool can be resized, by request or
// by a capacity controller; a factory can drain (finish what it has, refuse new work, then stop).
//
// ```cpp context=declarations
// struct Resize {
//   int width = 0;
//   std::optional<as::Reply<int>> done{};  // set when the caller waits for the new size
// };
// struct Thumbnailer {
//   using Key = std::string;  // the image's path: one worker per path at a time
//   using Message = Resize;
//   void handle(as::WorkerContext<Thumbnailer>& ctx, as::Job<std::string, Resize> job, std::monostate&) {
//     ctx.log("worker {} resizes {} to {}", ctx.worker_id(), job.key, job.message.width);
//     if (job.message.done) job.message.done->send(job.message.width);
//   }
// };
// inline void thumbnails(as::System& system) {
//   as::FactorySpec<Thumbnailer> spec{.workers = 4, .routing = as::Routing::sticky_queuer};
//   spec.discard = as::DiscardSettings::fixed(1000, as::DiscardMode::oldest);  // shed past 1000 waiting
//   spec.discard_handler = [](as::Job<std::string, Resize>&& job, as::DiscardReason why) {
//     std::fprintf(stderr, "dropped %s: %s\n", job.key.c_str(), std::string(as::to_string(why)).c_str());
//   };
//   spec.dead_man = as::DeadManSwitch{std::chrono::seconds(30), true};  // replace a worker stuck 30 s
//   as::FactoryRef<std::string, Resize> pool = as::start_factory<Thumbnailer>(system, spec).value();
//   (void)pool.dispatch("cat.png", Resize{128});
//   (void)pool.dispatch("old.png", Resize{64}, as::JobOptions{.ttl = std::chrono::seconds(5)});
//   auto resize = [](as::Reply<int> r) { return Resize{256, std::move(r)}; };
//   as::CallResult<int> width = pool.call("dog.png", resize, std::chrono::seconds(1)).get();
//   std::size_t waiting = pool.queue_depth().get().value();
//   (void)pool.resize(8);
//   (void)pool.drain();  // run what is queued, take nothing new, then stop
//   (void)pool.wait(std::chrono::seconds(10));
// }
// ```
//
// A job lost with a failing worker can run again (JobOptions::retry). Not built, though ractor has
// it: a separate stats layer (FactoryStats and the observatory cover what it reports).
#pragma once

#include <actorscope/actor.hpp>
#include <actorscope/actor_ref.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/detail/factory_probe.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/factory_stats.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/supervision_event.hpp>
#include <actorscope/system.hpp>
#include <actorscope/task.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace actorscope {

/// A worker's place in its factory's pool: 0 to workers - 1. It stays the same across restarts.
using WorkerId = std::size_t;

/// How a factory chooses the worker for a job.
enum class Routing : std::uint8_t {
  /// std::hash of the key, modulo the pool size; a key with a job pending (running or queued) on a
  /// worker goes to that worker. Each worker has its own queue; the factory has none.
  key_persistent,
  /// The worker that has been free longest; with none free, the factory's own FIFO queue.
  queuer,
  /// As queuer, but a key whose job is running (or queued on a worker) joins that worker's queue,
  /// so the jobs of one key run one after another, in order.
  sticky_queuer,
  /// Worker 0, 1, ..., N-1, 0, ... in dispatch order, busy or not, onto each worker's own queue.
  round_robin,
  /// FactorySpec::custom_hash(key, N) chooses the worker, onto its own queue.
  custom_hash,
};
/// The enumerator's name: "key_persistent", "queuer", ...
std::string_view to_string(Routing r) noexcept;

/// What a factory does with a job whose worker fails while running it (the handler throws, or the
/// worker is killed, by the dead-man's switch for one): drop it (the default), or run it again on
/// the rebuilt worker, before that worker's queued jobs, up to a number of times or until it
/// succeeds (ractor's MessageRetryStrategy). Each retry is written to the log with the job's key.
/// The factory keeps a copy of a retried job's key and message while it runs, so both must be
/// copyable; for a job whose key or message is not, it says so in the log and the job runs once.
/// A retried job keeps its dispatch time, so its TTL still counts from the dispatch.
struct RetryStrategy {
  /// Runs after the first; kUnlimited: until one succeeds.
  std::uint32_t retries = 0;
  static constexpr std::uint32_t kUnlimited = std::numeric_limits<std::uint32_t>::max();

  /// No retry: a job lost with its worker is gone (the log says which).
  static constexpr RetryStrategy none() noexcept { return {}; }
  /// At most `n` runs after the first.
  static constexpr RetryStrategy count(std::uint32_t n) noexcept { return {n}; }
  /// Until one run succeeds.
  static constexpr RetryStrategy unlimited() noexcept { return {kUnlimited}; }
  constexpr bool enabled() const noexcept { return retries > 0; }
  friend constexpr bool operator==(RetryStrategy, RetryStrategy) noexcept = default;
};

/// What a factory knows about a job besides its key and message.
struct JobOptions {
  /// When the job was dispatched, on the runtime's clock (dispatch fills it in if left empty).
  TimePoint submitted{};
  /// How long the job may wait for a worker (zero: for ever). A job that has waited longer is
  /// discarded with DiscardReason::ttl_expired before it runs; a running job is never cut short.
  Duration ttl{};
  /// Whether the job runs again when its worker fails while running it; each retry counts down.
  RetryStrategy retry{};
};

/// What a job's acceptance reply says: nothing when the factory took the job, or why it dropped it
/// at once (it is draining or stopping, its rate limit had no room, the job had already expired, or
/// its queue was full with DiscardMode::newest).
using JobAcceptance = std::optional<DiscardReason>;

/// One unit of work: the key routes it, the message is what the worker handles.
template <class K, class M>
struct Job {
  K key;      ///< routes the job (and, with the sticky routings, keeps its jobs in order)
  M message;  ///< what the worker's handle is given
  JobOptions options{};
  /// Answered as soon as the factory has placed the job (run or queued) or dropped it
  /// (FactoryRef::submit fills it in). Empty by the time the worker sees the job.
  std::optional<Reply<JobAcceptance>> accepted{};
};

/// Which job goes when a queue is over its limit.
enum class DiscardMode : std::uint8_t {
  oldest,  ///< the job that has waited longest (of the lowest priority, with a priority queue)
  newest,  ///< the job just dispatched (or the newest of the lowest priority)
};
std::string_view to_string(DiscardMode mode) noexcept;

/// Load shedding: how many jobs a queue may hold before the factory drops some. The limit is per
/// queue: the factory's own with Routing::queuer and sticky_queuer, each worker's with the others.
struct DiscardSettings {
  enum class Kind : std::uint8_t {
    none,          ///< queues grow without limit
    static_limit,  ///< at most `limit` jobs
    dynamic,       ///< at most `limit` jobs, where `update(limit)` gives the limit anew every poll
  };
  Kind kind = Kind::none;
  std::size_t limit = 0;
  DiscardMode mode = DiscardMode::oldest;
  /// Kind::dynamic: the new limit, from the current one; called on the factory's thread every
  /// FactorySpec::poll_interval.
  std::function<std::size_t(std::size_t current)> update{};

  static DiscardSettings none() { return {}; }
  static DiscardSettings fixed(std::size_t limit, DiscardMode mode = DiscardMode::oldest) {
    return {Kind::static_limit, limit, mode, {}};
  }
  static DiscardSettings dynamic(std::size_t initial, DiscardMode mode,
                                 std::function<std::size_t(std::size_t current)> update) {
    return {Kind::dynamic, initial, mode, std::move(update)};
  }
  bool limited() const noexcept { return kind != Kind::none; }
};

/// The dead-man's switch: a worker that has run one job for longer than `detection_timeout` is
/// reported (in the log, and as a worker_stuck event) with the job's key, once per job; with
/// `kill_worker` it is killed, and rebuilt with its id and its queue as after any failure (the
/// stuck job is lost, unless its RetryStrategy runs it again). Checked every
/// FactorySpec::poll_interval, so a report comes up to one interval after the timeout. A zero
/// timeout turns it off.
struct DeadManSwitch {
  Duration detection_timeout{};
  bool kill_worker = true;
  bool enabled() const noexcept { return detection_timeout > Duration::zero(); }
};

/// Rate limiting: at most `jobs` jobs per `per`, on average, with bursts of up to `jobs` (a token
/// bucket refilled continuously). A job over the rate is discarded with DiscardReason::rate_limited.
/// `jobs` of zero turns it off.
struct RateLimit {
  std::size_t jobs = 0;
  Duration per{};
  bool enabled() const noexcept { return jobs > 0 && per > Duration::zero(); }
};

/// Settings to change on a running factory (FactoryRef::update_settings): each one given replaces
/// the factory's; the rest stay as they are.
struct FactorySettings {
  /// The pool's new size (resize: shrinking lets the busy workers finish their job first).
  std::optional<std::size_t> workers{};
  std::optional<DiscardSettings> discard{};
  std::optional<DeadManSwitch> dead_man{};
  std::optional<RateLimit> rate_limit{};
  /// A new capacity controller (an empty function removes it): see FactorySpec::capacity.
  std::optional<std::function<std::size_t(std::size_t current)>> capacity{};
};

/// The most workers one factory may have.
inline constexpr std::size_t kMaxFactoryWorkers = 1'000'000;

/// A factory that could not be started, or a request it refused, and why (a full sentence).
class FactoryError {
 public:
  enum class Kind : std::uint8_t {
    no_workers,           ///< FactorySpec::workers is 0
    missing_custom_hash,  ///< Routing::custom_hash without FactorySpec::custom_hash
    key_not_hashable,     ///< Routing::key_persistent for a key type std::hash does not know
    worker_named,         ///< FactorySpec::worker_options has a name (workers are many; a name is one)
    spawn_failed,         ///< the factory or one of its workers failed to start
    too_many_workers,     ///< more than kMaxFactoryWorkers
    invalid_settings,     ///< a discard, dead-man, rate or priority setting that cannot work
  };
  FactoryError(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}
  Kind kind() const noexcept { return kind_; }
  /// A full sentence: what is wrong and what to change.
  const char* what() const noexcept { return text_.c_str(); }

 private:
  Kind kind_;
  std::string text_;
};

/// A job the factory did not take (it is stopping or stopped, or its bounded mailbox is full); the
/// job is handed back whole.
template <class K, class M>
class DispatchError {
 public:
  DispatchError(Job<K, M> job, SendFailure kind, std::string text)
      : job_(std::move(job)), kind_(kind), text_(std::move(text)) {}
  /// The job, as it was given to dispatch.
  Job<K, M>& job() & noexcept { return job_; }
  Job<K, M>&& job() && noexcept { return std::move(job_); }
  /// Why: stopped (the factory no longer takes work), full (its bounded mailbox), ...
  SendFailure kind() const noexcept { return kind_; }
  /// A full sentence: what went wrong and what to do.
  const char* what() const noexcept { return text_.c_str(); }

 private:
  Job<K, M> job_;
  SendFailure kind_;
  std::string text_;
};

/// The requests a factory handles. Send them through FactoryRef rather than by hand.
namespace factory_request {
/// A job to route (FactoryRef::dispatch).
template <class K, class M>
struct Dispatch {
  Job<K, M> job;
};
/// From a worker: it finished the job with this key and is free for the next.
template <class K>
struct Finished {
  WorkerId worker = 0;
  ActorId from;  ///< the worker's actor: a report from an incarnation since replaced is ignored
  K key;
};
/// FactoryRef::queue_depth.
struct QueueDepth {
  Reply<std::size_t> reply;
};
/// FactoryRef::available_capacity.
struct AvailableCapacity {
  Reply<std::size_t> reply;
};
/// FactoryRef::active_workers.
struct ActiveWorkers {
  Reply<std::size_t> reply;
};
/// FactoryRef::update_settings (and resize). (Behind a pointer: the settings are large, and every
/// message of the factory, a job's dispatch most of all, is as large as its largest request.)
struct UpdateSettings {
  std::unique_ptr<FactorySettings> settings;
};
/// FactoryRef::drain.
struct Drain {};
/// The factory's own timer: the dead-man's switch, the dynamic discard limit, the capacity
/// controller.
struct Poll {};
}  // namespace factory_request

/// The factory actor's message type: the requests above.
template <class K, class M>
using FactoryMessage =
    std::variant<factory_request::Dispatch<K, M>, factory_request::Finished<K>, factory_request::QueueDepth,
                 factory_request::AvailableCapacity, factory_request::ActiveWorkers,
                 factory_request::UpdateSettings, factory_request::Drain, factory_request::Poll>;

/// A handle to a factory: everything an ActorRef does (stop, stop_and_wait, monitor, ...), and
/// the factory's requests. A stop overtakes the messages still in the factory's mailbox (stop is
/// the higher lane), so the discard handler hears, as shutdown, the jobs the factory had queued;
/// a job dispatched just before the stop may still be in the mailbox, and is discarded with it
/// unheard, as any actor's messages are when it stops. submit() tells when a job is queued;
/// drain() runs everything sent before it.
/// @thread any
template <class K, class M>
class FactoryRef : public ActorRef<FactoryMessage<K, M>> {
 public:
  using Key = K;
  /// The message inside a job (Message, as for any ActorRef, is the factory's own: FactoryMessage).
  using JobMessage = M;
  using Base = ActorRef<FactoryMessage<K, M>>;

  FactoryRef() noexcept = default;
  explicit FactoryRef(Base ref) noexcept : Base(std::move(ref)) {}

  /// Hands a job to the factory, which routes it. A factory that no longer takes work (stopping,
  /// stopped) or whose bounded mailbox is full hands the job back inside the error.
  Expected<void, DispatchError<K, M>> dispatch(Job<K, M> job) const {
    if (!*this)
      return unexpected(
          DispatchError<K, M>(std::move(job), SendFailure::stopped,
                              "the factory handle is empty: dispatch through the FactoryRef that "
                              "start_factory returned"));
    if (job.options.submitted == TimePoint{}) job.options.submitted = this->cell_->runtime().now();
    auto sent = Base::cast(factory_request::Dispatch<K, M>{std::move(job)});
    if (sent) return {};
    const SendFailure kind = sent.error().kind();
    std::string text = std::string("the factory did not take the job: ") + sent.error().what();
    auto* back = std::get_if<factory_request::Dispatch<K, M>>(&sent.error().message());
    return unexpected(DispatchError<K, M>(std::move(back->job), kind, std::move(text)));
  }
  Expected<void, DispatchError<K, M>> dispatch(K key, M message) const {
    return dispatch(Job<K, M>{std::move(key), std::move(message), {}});
  }
  Expected<void, DispatchError<K, M>> dispatch(K key, M message, JobOptions options) const {
    return dispatch(Job<K, M>{std::move(key), std::move(message), options});
  }

  /// Dispatches a job and says whether the factory took it: the pending answer is an empty
  /// JobAcceptance once the job is running or queued, or the DiscardReason it was dropped for at
  /// once. A job the factory does not take at all fails the answer with a sender error.
  PendingCall<JobAcceptance> submit(K key, M message, JobOptions options = {}, Duration timeout = no_timeout) const {
    auto builder = [&](Reply<JobAcceptance> r) {
      return Job<K, M>{std::move(key), std::move(message), options, std::move(r)};
    };
    return detail::start_call<Job<K, M>>(this->cell_->runtime(), this->id(), builder, timeout,
                                         [&](Job<K, M>&& job) { return dispatch(std::move(job)); });
  }

  /// A call answered by the worker that handles the job: `builder` makes the job's message around a
  /// fresh reply port (as ActorRef::call's does), and the pending call waits for the worker's answer.
  /// A job the factory does not take fails the call at once with a sender error; a worker that
  /// fails or drops the job's reply port fails it with a sender error too. The handle must not be
  /// empty (as for ActorRef::call).
  template <class B>
  PendingCall<detail::reply_type_t<B>> call(K key, B&& builder, Duration timeout = no_timeout) const {
    return detail::start_call<M>(this->cell_->runtime(), this->id(), builder, timeout,
                                 [&](M&& message) { return dispatch(std::move(key), std::move(message)); });
  }

  /// Jobs waiting for a worker: the factory's queue and every worker's own, not the running ones.
  PendingCall<std::size_t> queue_depth(Duration timeout = no_timeout) const {
    return Base::call(rpc<factory_request::QueueDepth>, timeout);
  }
  /// Workers free for a job right now (none running, none queued).
  PendingCall<std::size_t> available_capacity(Duration timeout = no_timeout) const {
    return Base::call(rpc<factory_request::AvailableCapacity>, timeout);
  }
  /// Workers running a job right now.
  PendingCall<std::size_t> active_workers(Duration timeout = no_timeout) const {
    return Base::call(rpc<factory_request::ActiveWorkers>, timeout);
  }

  /// Changes the settings given in `settings` (the rest stay). Settings that cannot work (a dynamic
  /// discard limit without its function, a pool of 0 or over kMaxFactoryWorkers) are refused: the
  /// factory logs why and keeps its own.
  Expected<void, SendError<FactoryMessage<K, M>>> update_settings(FactorySettings settings) const {
    return Base::cast(factory_request::UpdateSettings{std::make_unique<FactorySettings>(std::move(settings))});
  }
  /// Grows or shrinks the pool to `workers`. New workers take queued jobs at once; of the workers
  /// let go, the idle ones stop now and the busy ones when their job is done (their own queued
  /// jobs are routed again over the pool that remains).
  Expected<void, SendError<FactoryMessage<K, M>>> resize(std::size_t workers) const {
    FactorySettings s;
    s.workers = workers;
    return update_settings(std::move(s));
  }
  /// Drains the factory: from now on it discards new jobs (DiscardReason::shutdown), runs every job
  /// it has queued and running to the end, then stops. Wait for it with wait() or join().
  Expected<void, SendError<FactoryMessage<K, M>>> drain() const { return Base::cast(factory_request::Drain{}); }
};

/// A worker type's Key and Message.
template <class W>
using worker_key_t = typename W::Key;
template <class W>
using worker_message_t = typename W::Message;

namespace detail {
template <class W>
struct WorkerActor;
/// A worker's actor goes by its worker type's name (the type the program wrote, not the engine's
/// wrapper) in logs, events, recordings and views: two factories' workers can be told apart.
template <class W>
inline constexpr std::string_view type_name_v<WorkerActor<W>> = type_name_v<W>;
}  // namespace detail

/// What a worker's hooks are given: its id, its factory, and its own actor's Context (for self(),
/// timers, monitors, log). The one handle, post_start and post_stop see lives as long as the worker.
template <class W>
class WorkerContext {
 public:
  using Key = worker_key_t<W>;
  using Message = worker_message_t<W>;

  /// Made by the worker's actor; a worker only reads it.
  WorkerContext(Context<detail::WorkerActor<W>>& actor, WorkerId id,
                FactoryRef<Key, Message> factory) noexcept
      : actor_(&actor), id_(id), factory_(std::move(factory)) {}

  /// This worker's place in the pool, the same across its restarts.
  WorkerId worker_id() const noexcept { return id_; }
  /// The factory this worker belongs to (to dispatch more work, or read its gauges).
  const FactoryRef<Key, Message>& factory() const noexcept { return factory_; }
  /// The worker's own actor context.
  Context<detail::WorkerActor<W>>& actor() const noexcept { return *actor_; }
  /// Writes a line through the System's log sink, as Context::log.
  template <class... Args>
  void log(std::string_view fmt, const Args&... args) const {
    actor_->log(fmt, args...);
  }

 private:
  Context<detail::WorkerActor<W>>* actor_;
  WorkerId id_;
  FactoryRef<Key, Message> factory_;
};

/// Everything a factory is told when it is started. W is the worker type: it names Key and Message
/// and has hooks as an actor does, each given a WorkerContext<W>& instead of a Context:
/// `pre_start(ctx)` returning its State (optional), `post_start(ctx, state)`,
/// `handle(ctx, Job<Key, Message>, state)`, `handle_supervisor_event(ctx, event, state)` and
/// `post_stop(ctx, state)`. Any but pre_start may be a coroutine returning as::Task<>.
template <class W>
struct FactorySpec {
  using Key = worker_key_t<W>;
  /// How many workers the pool holds (at least one).
  std::size_t workers = 1;
  Routing routing = Routing::queuer;
  /// Makes the worker with this id, for its first start and again for every restart. Empty: W{}.
  std::function<W(WorkerId)> builder{};
  /// Routing::custom_hash: the worker for a key, in 0..pool-1 (`pool` is the pool size). An index
  /// out of range is reported in the log and the job dropped.
  std::function<std::size_t(const Key& key, std::size_t pool)> custom_hash{};
  /// How each worker is spawned (placement, budget, mailbox). Leave the name empty.
  SpawnOptions worker_options{};

  // -- the queue --
  /// A priority queue: the factory's queue (Routing::queuer, sticky_queuer) keeps one FIFO per
  /// level, and a free worker takes the oldest job of the most urgent level (0 is the most urgent;
  /// a priority past the last level counts as the last). Empty: one FIFO.
  std::function<std::size_t(const Job<Key, worker_message_t<W>>& job)> priority{};
  /// The number of levels of the priority queue (ractor's standard priorities are five:
  /// highest, high, normal, low, best effort).
  std::size_t priority_levels = 5;

  // -- load shedding --
  DiscardSettings discard{};
  /// Hears every job the factory drops, with the reason, on the factory's thread, before the job is
  /// destroyed. Every discard is also counted by reason (FactoryStats). A handler that throws fails
  /// the factory, as any hook that throws fails its actor.
  std::function<void(Job<Key, worker_message_t<W>>&& job, DiscardReason reason)> discard_handler{};
  RateLimit rate_limit{};

  // -- health and size --
  DeadManSwitch dead_man{};
  /// A capacity controller: given the pool's size, the size it should have; called every
  /// poll_interval on the factory's thread, and the pool resized when the answer differs.
  std::function<std::size_t(std::size_t current)> capacity{};
  /// How often the factory checks the dead-man's switch and asks the dynamic discard limit and the
  /// capacity controller (it keeps no timer when none of them is set).
  Duration poll_interval = std::chrono::milliseconds(100);

  // -- lifecycle hooks (on the factory's thread) --
  /// Every worker has started, before the first job; a throw fails the factory.
  std::function<void(const FactoryRef<Key, worker_message_t<W>>& factory)> on_started{};
  /// The factory began to drain (FactoryRef::drain).
  std::function<void(const FactoryRef<Key, worker_message_t<W>>& factory)> on_draining{};
  /// The factory's workers have all stopped, and it is about to end.
  std::function<void()> on_stopped{};
};

namespace detail {

[[noreturn]] void throw_worker_spawn_failed(WorkerId id, const std::string& why);
std::string factory_spec_problem(std::size_t workers, Routing routing, bool has_custom_hash,
                                 bool key_hashable, bool worker_named, FactoryError::Kind& kind);
/// Why these settings cannot work, or "" (a zero pool, a dynamic limit without its function, ...).
std::string factory_settings_problem(const FactorySettings& settings, FactoryError::Kind& kind);
std::string describe_settings(const DiscardSettings& discard, std::size_t priority_levels, const DeadManSwitch& dead_man,
                              const RateLimit& rate, bool draining);
std::string stuck_text(WorkerId id, const std::string& key, Duration running, bool killed, bool retried);
std::string discard_handler_text(std::size_t count);
std::string custom_hash_out_of_range(std::size_t index, std::size_t pool);
/// What became of the job a worker was running when it failed or was killed: lost, or run again
/// (first on the `rebuilt` worker, or routed over the pool) with `retries_left` more after that
/// (RetryStrategy::kUnlimited: until it succeeds).
std::string worker_job_fate(const std::string& key, bool retried, std::uint32_t retries_left, bool rebuilt);
/// The log line for worker `id` that exited (`what`): rebuilt with the `kept_queue` jobs it had
/// queued, or, with none, not rebuilt because the pool shrank past it; then `job_fate`, if any.
std::string worker_exit_text(WorkerId id, const std::string& what, std::optional<std::size_t> kept_queue,
                             const std::string& job_fate);
std::string retry_impossible_text(const std::string& key);

class SystemCore;
/// The factory's probe is polled from now on, and its configuration told to observers (now, and
/// with the present to those that attach later). Returns the System's core, for the calls below.
SystemCore& factory_began(const ActorCell& factory, std::shared_ptr<FactoryProbe> probe, observe::Event config);
/// Its configuration changed (pool size, settings, draining).
void factory_reconfigured(SystemCore& system, observe::Event config);
/// Tells observers an event about the factory (worker_stuck), if any observe.
void factory_event(SystemCore& system, observe::Event event);
/// It ended: pollers keep its final counters.
void factory_ended(SystemCore& system, const FactoryProbe& probe) noexcept;

template <class K>
inline constexpr bool key_hashable = requires(const K& k) {
  std::hash<K>{}(k);
};

/// The actor that runs one worker W: it forwards W's hooks and, after each job, tells the factory.
template <class W>
struct WorkerActor {
  using Key = worker_key_t<W>;
  using WMessage = worker_message_t<W>;
  using Message = Job<Key, WMessage>;
  using UserState = state_t<W>;
  struct Arguments {
    WorkerId id = 0;
    FactoryRef<Key, WMessage> factory;
  };
  struct State {
    WorkerContext<W> ctx;
    UserState user;
  };
  using Self = WorkerActor<W>;

  static constexpr bool kAsyncHandle = requires(W & w, WorkerContext<W>& c, Message&& j, UserState& s) {
    { w.handle(c, std::move(j), s) } -> std::same_as<Task<>>;
  };

  W worker;

  State pre_start(Context<Self>& ctx, Arguments args) {
    WorkerContext<W> wctx(ctx, args.id, std::move(args.factory));
    if constexpr (requires { worker.pre_start(wctx); }) {
      UserState user = worker.pre_start(wctx);
      return State{std::move(wctx), std::move(user)};
    } else {
      return State{std::move(wctx), UserState{}};
    }
  }

  decltype(auto) post_start(Context<Self>&, State& s) requires requires { worker.post_start(s.ctx, s.user); }
  { return worker.post_start(s.ctx, s.user); }

  void handle(Context<Self>& ctx, Message job, State& s) requires(!kAsyncHandle) {
    Key key = job.key;
    worker.handle(s.ctx, std::move(job), s.user);
    finished(ctx, s, std::move(key));
  }
  Task<> handle(Context<Self>& ctx, Message job, State& s) requires(kAsyncHandle) {
    Key key = job.key;
    Task<> running = worker.handle(s.ctx, std::move(job), s.user);
    co_await running;
    finished(ctx, s, std::move(key));
  }

  decltype(auto) handle_supervisor_event(Context<Self>&, const SupervisionEvent& e,
                                         State& s) requires requires {
    worker.handle_supervisor_event(s.ctx, e, s.user);
  }
  { return worker.handle_supervisor_event(s.ctx, e, s.user); }

  decltype(auto) post_stop(Context<Self>&, State& s) requires requires { worker.post_stop(s.ctx, s.user); }
  { return worker.post_stop(s.ctx, s.user); }

 private:
  static void finished(Context<Self>& ctx, State& s, Key key) {
    // A factory that is stopping no longer cares; its stop reaches this worker next.
    (void)s.ctx.factory().cast(factory_request::Finished<Key>{s.ctx.worker_id(), ctx.id(), std::move(key)});
  }
};

/// A job's key as text, for reports: strings and numbers as they are, a type with a to_string
/// found by argument-dependent lookup through it, anything else as "?".
template <class K>
std::string describe_key(const K& key) {
  if constexpr (std::is_convertible_v<const K&, std::string_view>) {
    return std::string(std::string_view(key));
  } else if constexpr (std::is_arithmetic_v<K>) {
    return std::to_string(key);
  } else if constexpr (requires { { to_string(key) } -> std::convertible_to<std::string>; }) {
    return to_string(key);
  } else {
    return "?";
  }
}

/// The factory's queue: one FIFO per priority level (one level without a priority function).
template <class J>
class JobQueue {
 public:
  explicit JobQueue(std::size_t levels = 1) : levels_(std::max<std::size_t>(levels, 1)) {}
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  void push(J job, std::size_t level) {
    levels_[std::min(level, levels_.size() - 1)].push_back(std::move(job));
    ++size_;
  }
  /// The oldest job of the most urgent level.
  J pop_next() {
    for (auto& q : levels_)
      if (!q.empty()) return take(q, true);
    throw std::logic_error("JobQueue::pop_next on an empty queue");
  }
  /// The job to shed: the oldest or the newest of the least urgent level that has one.
  J pop_victim(DiscardMode mode) {
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it)
      if (!it->empty()) return take(*it, mode == DiscardMode::oldest);
    throw std::logic_error("JobQueue::pop_victim on an empty queue");
  }
  /// Every job, most urgent first, oldest first within a level; the queue is left empty.
  std::vector<J> take_all() {
    std::vector<J> out;
    out.reserve(size_);
    for (auto& q : levels_) {
      for (J& j : q) out.push_back(std::move(j));
      q.clear();
    }
    size_ = 0;
    return out;
  }
  /// The least urgent level that holds a job (0 when empty). A job of a more urgent level than
  /// this displaces one of it when the queue is full.
  std::size_t least_urgent_level() const noexcept {
    for (std::size_t i = levels_.size(); i > 0; --i)
      if (!levels_[i - 1].empty()) return i - 1;
    return 0;
  }

 private:
  J take(std::deque<J>& q, bool front) {
    J j = std::move(front ? q.front() : q.back());
    if (front)
      q.pop_front();
    else
      q.pop_back();
    --size_;
    return j;
  }
  std::deque<std::deque<J>> levels_;  // (a deque: it never copies a level, whose jobs may be move-only)
  std::size_t size_ = 0;
};

/// The factory's routing, queues, load shedding, dead-man's switch and pool size, on the factory
/// actor's thread.
template <class W>
class FactoryCore {
 public:
  using K = worker_key_t<W>;
  using M = worker_message_t<W>;
  using J = Job<K, M>;
  using Msg = FactoryMessage<K, M>;

  explicit FactoryCore(FactorySpec<W> spec)
      : spec_(std::move(spec)), queue_(spec_.priority ? spec_.priority_levels : 1) {}
  FactoryCore(const FactoryCore&) = delete;
  FactoryCore& operator=(const FactoryCore&) = delete;

  /// A factory killed (no post_stop) still counts the jobs it held as shut down, and its final
  /// counters reach the pollers.
  ~FactoryCore() {
    if (probe_ == nullptr) return;
    for (std::size_t n = waiting(); n > 0; --n) probe_->discarded(DiscardReason::shutdown);
    factory_ended(*system_, *probe_);
  }

  template <class C>
  void start(C& ctx) {
    factory_ = FactoryRef<K, M>(ctx.self());
    pool_ = spec_.workers;
    workers_.resize(pool_);
    // A worker that fails to start fails the factory's pre_start; the engine then kills the
    // workers already spawned, as it does every child a failed pre_start spawned.
    for (WorkerId i = 0; i < pool_; ++i) {
      spawn_worker(ctx, i);
      mark_idle(i);
    }
    tokens_ = static_cast<double>(spec_.rate_limit.jobs);
    refilled_ = ctx.runtime().now();
    probe_ = std::make_shared<FactoryProbe>(ctx.id());
    publish();
    system_ = &factory_began(ctx.cell(), probe_, configuration(ctx.id()));
  }

  /// Every worker is up: the on_started hook, then the poll timer if anything needs it.
  template <class C>
  void started(C& ctx) {
    if (spec_.on_started) spec_.on_started(factory_);
    reschedule_poll(ctx);
  }

  template <class C>
  void on_request(C& ctx, Msg message) {
    std::visit(
        [&](auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, factory_request::Dispatch<K, M>>) {
            on_dispatch(ctx, std::move(m.job));
          } else if constexpr (std::is_same_v<T, factory_request::Finished<K>>) {
            on_finished(ctx, m.worker, m.from);
          } else if constexpr (std::is_same_v<T, factory_request::QueueDepth>) {
            m.reply.send(waiting());
          } else if constexpr (std::is_same_v<T, factory_request::AvailableCapacity>) {
            std::size_t n = 0;
            for (WorkerId i = 0; i < pool_; ++i) n += is_idle(workers_[i]) ? 1 : 0;
            m.reply.send(n);
          } else if constexpr (std::is_same_v<T, factory_request::ActiveWorkers>) {
            m.reply.send(busy_);
          } else if constexpr (std::is_same_v<T, factory_request::UpdateSettings>) {
            update(ctx, std::move(*m.settings));
          } else if constexpr (std::is_same_v<T, factory_request::Drain>) {
            begin_drain(ctx);
          } else {
            on_poll(ctx);
          }
        },
        message);
  }

  /// A worker exited (failed, stopped itself or was killed): rebuild it with the same id, unless
  /// the pool has shrunk past it. Its queue stays. The job it was running, if it failed or was
  /// killed in it, is lost, or runs again first if its RetryStrategy allows (a worker that stopped
  /// itself finished its job: a stop lets the handler end).
  template <class C>
  void on_event(C& ctx, const SupervisionEvent& event) {
    std::string what;
    ActorCell actor;
    bool job_lost = true;
    if (const auto* t = event.get<ActorTerminated>()) {
      actor = t->actor;
      what = to_string(t->kind);
      if (!t->reason.empty()) what += " (" + t->reason + ")";
      job_lost = t->kind != ExitKind::stopped;
    } else if (const auto* f = event.get<ActorFailed>()) {
      actor = f->actor;
      what = "failed: " + f->error;
    } else {
      return;
    }
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      if (!w.actor || w.actor.id() != actor.id()) continue;
      std::optional<J> again;
      std::string fate;
      if (w.busy && w.current && job_lost) {
        again = std::exchange(w.again, std::nullopt);
        if (again) {
          if (again->options.retry.retries != RetryStrategy::kUnlimited) --again->options.retry.retries;
          probe_->retried();
        }
        fate = worker_job_fate(describe_key(*w.current), again.has_value(),
                               again ? again->options.retry.retries : 0, i < pool_);
      }
      set_idle(w);
      if (i >= pool_) {  // let go by a resize: it is not rebuilt, and a retry goes to the rest
        w.actor = {};
        trim_workers();
        if (!fate.empty()) ctx.log("{}", worker_exit_text(i, what, std::nullopt, fate));
        if (again) route(ctx, std::move(*again));
        publish();
        return maybe_drained(ctx);
      }
      ctx.log("{}", worker_exit_text(i, what, w.queue.size(), fate));
      spawn_worker(ctx, i);  // a failure here fails the factory: it cannot keep its pool
      ++w.restarts;
      probe_->worker_restarted();
      if (again) {
        w.queue.push_front(std::move(*again));
        ++queued_;
      }
      pump(ctx, i);
      publish();
      return;
    }
  }

  /// The factory is stopping (post_stop, before its workers are stopped): every job still
  /// waiting is discarded as shutdown.
  template <class C>
  void stopping(C& ctx) {
    poll_timer_.cancel();
    std::vector<J> left = queue_.take_all();
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      for (J& j : w.queue) left.push_back(std::move(j));
      w.queue.clear();
    }
    queued_ = 0;
    publish();
    if (!left.empty() && !spec_.discard_handler) ctx.log("{}", discard_handler_text(left.size()));
    for (J& j : left) discard(std::move(j), DiscardReason::shutdown);
  }

  /// Its workers have stopped: the on_stopped hook.
  void stopped() {
    for (WorkerId i = 0; i < workers_.size(); ++i) set_idle(workers_[i]);
    publish();
    if (spec_.on_stopped) spec_.on_stopped();
  }

 private:
  struct Worker {
    ActorRef<J> actor;
    std::deque<J> queue;
    std::optional<K> current;   ///< the key of the job it runs
    TimePoint submitted{};      ///< when that job was dispatched
    TimePoint began{};          ///< when the factory handed it over (timed only for the dead-man's switch)
    bool busy = false;
    bool listed = false;        ///< in free_ (perhaps stale: checked when taken)
    bool reported = false;      ///< the dead-man's switch reported the current job
    std::uint32_t restarts = 0;
    /// A copy of the running job, kept while it runs when its RetryStrategy allows a retry.
    std::optional<J> again{};
  };

  std::size_t waiting() const noexcept { return queued_ + queue_.size(); }

  void publish() noexcept {
    std::uint64_t limit = spec_.discard.limited() ? spec_.discard.limit : 0;
    probe_->gauges(waiting(), busy_, pool_, limit);
  }

  observe::Event configuration(ActorId self) const {
    return observe::Event::factory_configured(
        self, std::string(to_string(spec_.routing)), static_cast<std::uint32_t>(pool_),
        describe_settings(spec_.discard, spec_.priority ? spec_.priority_levels : 0, spec_.dead_man,
                          spec_.rate_limit, draining_));
  }
  template <class C>
  void reconfigured(C& ctx) {
    publish();
    factory_reconfigured(*system_, configuration(ctx.id()));
  }

  template <class C>
  void spawn_worker(C& ctx, WorkerId i) {
    W built = build(i);
    auto spawned = ctx.system().template spawn_linked<WorkerActor<W>>(
        ctx.cell(), WorkerActor<W>{std::move(built)}, spec_.worker_options,
        typename WorkerActor<W>::Arguments{i, factory_});
    if (!spawned) throw_worker_spawn_failed(i, spawned.error().what());
    workers_[i].actor = std::move(*spawned);
  }

  W build(WorkerId i) {
    try {
      return spec_.builder ? spec_.builder(i) : make_default();
    } catch (const std::exception& e) {
      throw_worker_spawn_failed(i, std::string("its builder threw: ") + e.what());
    } catch (...) {
      throw_worker_spawn_failed(i, "its builder threw something that is not a std::exception");
    }
  }

  static W make_default() {
    if constexpr (std::is_default_constructible_v<W>) {
      return W{};
    } else {
      // start_factory refuses an empty builder for such a W before this can run.
      throw std::logic_error("the worker type is not default-constructible: give FactorySpec a builder");
    }
  }

  static bool is_idle(const Worker& w) noexcept { return w.actor && !w.busy && w.queue.empty(); }

  void set_idle(Worker& w) noexcept {
    if (w.busy) --busy_;
    w.busy = false;
    w.current.reset();
    w.again.reset();
    w.reported = false;
  }

  void mark_idle(WorkerId i) {
    Worker& w = workers_[i];
    if (!w.listed) {
      w.listed = true;
      free_.push_back(i);
    }
  }

  /// The worker free longest, if any.
  std::optional<WorkerId> take_free() {
    while (!free_.empty()) {
      const WorkerId i = free_.front();
      free_.pop_front();
      if (i >= workers_.size()) continue;
      workers_[i].listed = false;
      if (i < pool_ && is_idle(workers_[i])) return i;
    }
    return std::nullopt;
  }

  /// The worker with a job of this key running (or, with `queued`, waiting on its own queue).
  std::optional<WorkerId> holder_of(const K& key, bool queued) const {
    for (WorkerId i = 0; i < pool_; ++i) {
      const Worker& w = workers_[i];
      if (w.current && *w.current == key) return i;
      if (queued)
        for (const J& j : w.queue)
          if (j.key == key) return i;
    }
    return std::nullopt;
  }

  /// The job has waited past its TTL (the clock is read only for a job that has one).
  template <class C>
  static bool expired(const J& job, C& ctx) noexcept {
    return job.options.ttl > Duration::zero() && ctx.runtime().now() - job.options.submitted > job.options.ttl;
  }

  /// Drops a job: counted by reason, told to the submitter (if it still waits to hear) and to the
  /// discard handler.
  void discard(J job, DiscardReason reason) {
    probe_->discarded(reason);
    // The handler first: a submitter that hears the reason finds the handler has run.
    std::optional<Reply<JobAcceptance>> accepted = std::move(job.accepted);
    job.accepted.reset();
    if (spec_.discard_handler) spec_.discard_handler(std::move(job), reason);
    if (accepted) accepted->send(reason);
  }

  static void accept(J& job) {
    if (job.accepted) {
      job.accepted->send(std::nullopt);
      job.accepted.reset();
    }
  }

  /// Takes a token from the rate limit's bucket, if it has one.
  template <class C>
  bool take_token(C& ctx) {
    const RateLimit& r = spec_.rate_limit;
    if (!r.enabled()) return true;
    const TimePoint now = ctx.runtime().now();
    const double per_ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(r.per).count());
    const double elapsed = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - refilled_).count());
    refilled_ = now;
    tokens_ = std::min(static_cast<double>(r.jobs), tokens_ + elapsed * static_cast<double>(r.jobs) / per_ns);
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

  template <class C>
  void on_dispatch(C& ctx, J job) {
    probe_->dispatched();
    if (draining_) return discard(std::move(job), DiscardReason::shutdown);
    if (!take_token(ctx)) return discard(std::move(job), DiscardReason::rate_limited);
    if (expired(job, ctx)) return discard(std::move(job), DiscardReason::ttl_expired);
    route(ctx, std::move(job));
    publish();
  }

  template <class C>
  void route(C& ctx, J job) {
    const std::size_t n = pool_;
    switch (spec_.routing) {
      case Routing::key_persistent: {
        WorkerId i = 0;  // (start_factory refuses key_persistent for a key std::hash does not know)
        if (std::optional<WorkerId> holder = holder_of(job.key, true)) {
          i = *holder;
        } else if constexpr (key_hashable<K>) {
          i = std::hash<K>{}(job.key) % n;
        }
        return enqueue_on(ctx, i, std::move(job));
      }
      case Routing::round_robin: {
        const WorkerId i = next_ % n;
        next_ = (next_ + 1) % n;
        return enqueue_on(ctx, i, std::move(job));
      }
      case Routing::custom_hash: {
        const std::size_t i = spec_.custom_hash(job.key, n);
        if (i >= n) {
          ctx.log("{}", custom_hash_out_of_range(i, n));
          return;  // the job (and any reply port in it) is dropped
        }
        return enqueue_on(ctx, i, std::move(job));
      }
      case Routing::sticky_queuer:
        if (std::optional<WorkerId> i = holder_of(job.key, true)) return enqueue_on(ctx, *i, std::move(job));
        [[fallthrough]];
      case Routing::queuer:
        if (std::optional<WorkerId> i = take_free()) {
          accept(job);
          return run_on(ctx, *i, std::move(job));
        }
        return enqueue_shared(std::move(job));
    }
  }

  /// Onto the factory's queue, shedding past the discard limit.
  void enqueue_shared(J job) {
    const std::size_t level = spec_.priority ? spec_.priority(job) : 0;
    const DiscardSettings& d = spec_.discard;
    if (d.limited() && d.mode == DiscardMode::newest && queue_.size() >= d.limit &&
        !(spec_.priority && std::min(level, spec_.priority_levels - 1) < queue_.least_urgent_level())) {
      return discard(std::move(job), DiscardReason::load_shed);  // the newest is this one
    }
    accept(job);
    queue_.push(std::move(job), level);
    while (d.limited() && queue_.size() > d.limit) discard(queue_.pop_victim(d.mode), DiscardReason::load_shed);
  }


  /// Onto worker i's own queue (or straight to it when it is idle), shedding past the limit.
  template <class C>
  void enqueue_on(C& ctx, WorkerId i, J job) {
    Worker& w = workers_[i];
    if (is_idle(w)) {
      accept(job);
      return run_on(ctx, i, std::move(job));
    }
    const DiscardSettings& d = spec_.discard;
    if (d.limited() && d.mode == DiscardMode::newest && w.queue.size() >= d.limit)
      return discard(std::move(job), DiscardReason::load_shed);
    accept(job);
    w.queue.push_back(std::move(job));
    ++queued_;
    while (d.limited() && w.queue.size() > d.limit) {
      J victim = std::move(w.queue.front());
      w.queue.pop_front();
      --queued_;
      discard(std::move(victim), DiscardReason::load_shed);
    }
  }

  template <class C>
  void run_on(C& ctx, WorkerId i, J job) {
    Worker& w = workers_[i];
    if (!w.busy) ++busy_;
    w.busy = true;
    w.reported = false;
    w.current = job.key;
    w.submitted = job.options.submitted;
    if (spec_.dead_man.enabled()) w.began = ctx.runtime().now();
    if (job.options.retry.enabled()) keep_for_retry(ctx, w, job);
    if (auto sent = w.actor.cast(std::move(job)); !sent) {
      // The worker is on its way out (it stopped itself, say); its exit event is coming and will
      // rebuild it. Keep the job at the head of its queue and give it nothing else until then.
      w.queue.push_front(std::move(sent.error().message()));
      ++queued_;
      w.current.reset();
      w.again.reset();
    }
  }

  /// Copies a job that may have to run again (its acceptance reply has been answered already).
  template <class C>
  void keep_for_retry(C& ctx, Worker& w, const J& job) {
    if constexpr (std::is_copy_constructible_v<K> && std::is_copy_constructible_v<M>) {
      w.again.emplace(J{job.key, job.message, job.options, std::nullopt});
    } else {
      ctx.log("{}", retry_impossible_text(describe_key(job.key)));
    }
  }

  template <class C>
  void on_finished(C& ctx, WorkerId i, ActorId from) {
    if (i >= workers_.size()) return;
    Worker& w = workers_[i];
    if (!w.actor || w.actor.id() != from || !w.busy) return;  // from an incarnation already replaced
    probe_->completed(ctx.runtime().now() - w.submitted);
    set_idle(w);
    if (i >= pool_) {  // let go by a resize: its job is done, so now it stops
      w.actor.stop("the factory's pool shrank");
    } else {
      pump(ctx, i);
    }
    publish();
    maybe_drained(ctx);
  }

  /// Gives an idle worker its next job: its own queue first, then the factory's. Jobs that waited
  /// past their TTL are discarded on the way.
  template <class C>
  void pump(C& ctx, WorkerId i) {
    Worker& w = workers_[i];
    if (w.busy || !w.actor) return;
    while (!w.queue.empty()) {
      J next = std::move(w.queue.front());
      w.queue.pop_front();
      --queued_;
      if (expired(next, ctx)) {
        discard(std::move(next), DiscardReason::ttl_expired);
        continue;
      }
      return run_on(ctx, i, std::move(next));
    }
    while (!queue_.empty()) {
      J next = queue_.pop_next();
      if (expired(next, ctx)) {
        discard(std::move(next), DiscardReason::ttl_expired);
        continue;
      }
      return run_on(ctx, i, std::move(next));
    }
    mark_idle(i);
  }

  // -- settings, resizing, draining, the poll --

  template <class C>
  void update(C& ctx, FactorySettings s) {
    FactoryError::Kind kind{};
    if (std::string problem = factory_settings_problem(s, kind); !problem.empty()) {
      ctx.log("factory: the new settings were refused: {}", problem);
      return;
    }
    if (s.discard) spec_.discard = std::move(*s.discard);
    if (s.dead_man) {
      // A switch turned on now times the jobs running from now (it did not see them begin).
      if (!spec_.dead_man.enabled())
        for (WorkerId i = 0; i < workers_.size(); ++i) workers_[i].began = ctx.runtime().now();
      spec_.dead_man = *s.dead_man;
    }
    if (s.rate_limit) {
      spec_.rate_limit = *s.rate_limit;
      tokens_ = static_cast<double>(spec_.rate_limit.jobs);
      refilled_ = ctx.runtime().now();
    }
    if (s.capacity) spec_.capacity = std::move(*s.capacity);
    if (s.workers && *s.workers != pool_) {
      resize(ctx, *s.workers);
    } else {
      shed_to_limit();
    }
    reschedule_poll(ctx);
    reconfigured(ctx);
  }

  /// After the limit went down: shed what is now over it.
  void shed_to_limit() {
    const DiscardSettings& d = spec_.discard;
    if (!d.limited()) return;
    while (queue_.size() > d.limit) discard(queue_.pop_victim(d.mode), DiscardReason::load_shed);
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      while (w.queue.size() > d.limit) {
        J victim = d.mode == DiscardMode::oldest ? std::move(w.queue.front()) : std::move(w.queue.back());
        if (d.mode == DiscardMode::oldest)
          w.queue.pop_front();
        else
          w.queue.pop_back();
        --queued_;
        discard(std::move(victim), DiscardReason::load_shed);
      }
    }
  }

  template <class C>
  void resize(C& ctx, std::size_t n) {
    const std::size_t old = pool_;
    if (n > old) {
      if (workers_.size() < n) workers_.resize(n);
      pool_ = n;
      for (WorkerId i = old; i < n; ++i) {
        // A worker let go earlier and still finishing its job is taken back as it is.
        if (!workers_[i].actor) spawn_worker(ctx, i);
        if (!workers_[i].busy) pump(ctx, i);
      }
    } else {
      pool_ = n;
      std::vector<J> reroute;
      for (WorkerId i = n; i < workers_.size(); ++i) {
        Worker& w = workers_[i];
        for (J& j : w.queue) reroute.push_back(std::move(j));
        queued_ -= w.queue.size();
        w.queue.clear();
        if (w.actor && !w.busy) w.actor.stop("the factory's pool shrank");
      }
      if (next_ >= n) next_ = 0;
      for (J& j : reroute) route(ctx, std::move(j));
    }
    ctx.log("factory: the pool goes from {} to {} workers", old, n);
  }

  /// Drops the empty slots past the pool (workers let go that have exited).
  void trim_workers() {
    while (workers_.size() > pool_ && !workers_.back().actor) workers_.pop_back();
  }

  template <class C>
  void begin_drain(C& ctx) {
    if (draining_) return;
    draining_ = true;
    if (spec_.on_draining) spec_.on_draining(factory_);
    reconfigured(ctx);
    maybe_drained(ctx);
  }

  template <class C>
  void maybe_drained(C& ctx) {
    if (draining_ && busy_ == 0 && waiting() == 0) ctx.stop("drained");
  }

  bool needs_poll() const noexcept {
    return spec_.dead_man.enabled() || spec_.discard.kind == DiscardSettings::Kind::dynamic ||
           static_cast<bool>(spec_.capacity);
  }

  template <class C>
  void reschedule_poll(C& ctx) {
    if (needs_poll() && !poll_timer_.is_active()) {
      poll_timer_ = ctx.send_interval(
          spec_.poll_interval, [] { return Msg(factory_request::Poll{}); }, MissedTick::skip);
    } else if (!needs_poll()) {
      poll_timer_.cancel();
    }
  }

  template <class C>
  void on_poll(C& ctx) {
    if (spec_.discard.kind == DiscardSettings::Kind::dynamic && spec_.discard.update) {
      const std::size_t limit = spec_.discard.update(spec_.discard.limit);
      if (limit != spec_.discard.limit) {
        spec_.discard.limit = limit;
        shed_to_limit();
        reconfigured(ctx);
      }
    }
    if (spec_.capacity && !draining_) {
      const std::size_t want = std::clamp<std::size_t>(spec_.capacity(pool_), 1, kMaxFactoryWorkers);
      if (want != pool_) {
        resize(ctx, want);
        reconfigured(ctx);
      }
    }
    if (spec_.dead_man.enabled()) check_dead_man(ctx);
    publish();
  }

  template <class C>
  void check_dead_man(C& ctx) {
    const TimePoint now = ctx.runtime().now();
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      if (!w.busy || w.reported || !w.current || now - w.began < spec_.dead_man.detection_timeout) continue;
      w.reported = true;
      probe_->stuck();
      const bool kill = spec_.dead_man.kill_worker;
      std::string key = describe_key(*w.current);
      ctx.log("{}", stuck_text(i, key, now - w.began, kill, w.again.has_value()));
      factory_event(*system_, observe::Event::worker_stuck(w.actor.id(), ctx.id(), static_cast<std::uint32_t>(i),
                                                           std::move(key), now - w.began, kill));
      if (kill) w.actor.kill();  // its exit rebuilds it, with its queue
    }
  }

  FactorySpec<W> spec_;
  SystemCore* system_ = nullptr;
  FactoryRef<K, M> factory_;
  std::shared_ptr<FactoryProbe> probe_;
  /// The workers by id: pointers, so that the list grows and shrinks without moving a Worker
  /// (whose queued jobs may be move-only), and indexes in O(1).
  class Slots {
   public:
    Worker& operator[](std::size_t i) noexcept { return *v_[i]; }
    const Worker& operator[](std::size_t i) const noexcept { return *v_[i]; }
    std::size_t size() const noexcept { return v_.size(); }
    void resize(std::size_t n) {
      v_.reserve(n);
      while (v_.size() < n) v_.push_back(std::make_unique<Worker>());
      v_.resize(n);
    }
    Worker& back() noexcept { return *v_.back(); }
    void pop_back() noexcept { v_.pop_back(); }

   private:
    std::vector<std::unique_ptr<Worker>> v_;
  };
  /// By id; past pool_, workers let go that are finishing a job.
  Slots workers_;
  std::size_t pool_ = 0;         ///< the pool's size: workers 0..pool_-1 take jobs
  JobQueue<J> queue_;            ///< queuer and sticky_queuer: jobs waiting for any worker
  std::size_t queued_ = 0;       ///< jobs on the workers' own queues
  std::size_t busy_ = 0;         ///< workers running a job
  std::deque<WorkerId> free_;    ///< queuer: idle workers, the one idle longest first
  std::size_t next_ = 0;         ///< round_robin: the next worker
  double tokens_ = 0;            ///< the rate limit's bucket
  TimePoint refilled_{};
  TimerHandle poll_timer_;
  bool draining_ = false;
};

}  // namespace detail

/// The factory actor. Start it with start_factory.
template <class W>
struct Factory {
  using Message = FactoryMessage<worker_key_t<W>, worker_message_t<W>>;
  using Arguments = FactorySpec<W>;
  using State = std::unique_ptr<detail::FactoryCore<W>>;

  /// Spawns the workers, linked to the factory; one that fails to start fails the spawn.
  State pre_start(Context<Factory>& ctx, FactorySpec<W> spec) {
    auto core = std::make_unique<detail::FactoryCore<W>>(std::move(spec));
    core->start(ctx);
    return core;
  }
  /// Runs the on_started hook and starts the poll timer, if one is needed.
  void post_start(Context<Factory>& ctx, State& core) { core->started(ctx); }
  /// Routes jobs, hears workers finish, answers the gauges, resizes, drains.
  void handle(Context<Factory>& ctx, Message message, State& core) {
    core->on_request(ctx, std::move(message));
  }
  /// Rebuilds a worker that exited; one that cannot be rebuilt fails the factory.
  void handle_supervisor_event(Context<Factory>& ctx, const SupervisionEvent& event, State& core) {
    core->on_event(ctx, event);
  }
  /// Discards the queued jobs (DiscardReason::shutdown), stops every worker and waits for them
  /// (their post_stop runs), then runs the on_stopped hook. (No worker is rebuilt meanwhile:
  /// supervision events wait while this hook runs.)
  Task<> post_stop(Context<Factory>& ctx, State& core) {
    core->stopping(ctx);
    co_await ctx.stop_children_and_wait();
    core->stopped();
  }
};

namespace detail {
/// Every mistake in a factory's spec, as the FactoryError that says what to change.
template <class W>
std::optional<FactoryError> factory_spec_error(const FactorySpec<W>& spec) {
  FactoryError::Kind kind{};
  std::string problem =
      factory_spec_problem(spec.workers, spec.routing, static_cast<bool>(spec.custom_hash),
                           key_hashable<worker_key_t<W>>, !spec.worker_options.name.empty(), kind);
  if (!problem.empty()) return FactoryError(kind, std::move(problem));
  FactorySettings settings;
  settings.workers = spec.workers;
  settings.discard = spec.discard;
  settings.dead_man = spec.dead_man;
  settings.rate_limit = spec.rate_limit;
  problem = factory_settings_problem(settings, kind);
  if (!problem.empty()) return FactoryError(kind, std::move(problem));
  if (spec.priority && spec.priority_levels == 0)
    return FactoryError(FactoryError::Kind::invalid_settings,
                        "FactorySpec::priority is set but priority_levels is 0: give the priority queue at least "
                        "one level");
  if (spec.poll_interval <= Duration::zero())
    return FactoryError(FactoryError::Kind::invalid_settings,
                        "FactorySpec::poll_interval must be positive (100 ms is the default)");
  if constexpr (!std::is_default_constructible_v<W>) {
    if (!spec.builder)
      return FactoryError(FactoryError::Kind::spawn_failed,
                          "the worker type is not default-constructible, so FactorySpec::builder must make each "
                          "worker from its id");
  }
  return std::nullopt;
}

template <class W, class Spawned>
Expected<FactoryRef<worker_key_t<W>, worker_message_t<W>>, FactoryError> factory_started(Spawned ref) {
  if (!ref) {
    std::string text = "the factory failed to start: ";
    text += ref.error().what();
    return unexpected(FactoryError(FactoryError::Kind::spawn_failed, std::move(text)));
  }
  return FactoryRef<worker_key_t<W>, worker_message_t<W>>(std::move(*ref));
}
}  // namespace detail

/// Checks the spec and spawns the factory and its workers (each worker's pre_start has run when
/// this returns). Every mistake in the spec is a FactoryError that says what to change.
template <class W>
Expected<FactoryRef<worker_key_t<W>, worker_message_t<W>>, FactoryError> start_factory(
    System& system, FactorySpec<W> spec, SpawnOptions options = {}) {
  if (auto error = detail::factory_spec_error(spec)) return unexpected(std::move(*error));
  return detail::factory_started<W>(system.spawn<Factory<W>>(std::move(options), std::move(spec)));
}

/// As above, but the factory is the linked child of the actor whose hook holds `parent`, as
/// Context::spawn_linked makes one: its supervisor hears when it fails or stops.
template <class W, class A>
Expected<FactoryRef<worker_key_t<W>, worker_message_t<W>>, FactoryError> start_factory(
    Context<A>& parent, FactorySpec<W> spec, SpawnOptions options = {}) {
  if (auto error = detail::factory_spec_error(spec)) return unexpected(std::move(*error));
  return detail::factory_started<W>(parent.template spawn_linked<Factory<W>>(std::move(options), std::move(spec)));
}

}  // namespace actorscope
