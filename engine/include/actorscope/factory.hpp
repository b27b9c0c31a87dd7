// Factory: one actor in front of a pool of worker actors (ractor's factory). A job is a key, a
// message and its options; the factory routes each job to a worker by its key, as the factory's
// Routing says, and holds the jobs that must wait. A worker handles one job at a time; when its
// handler returns (or its coroutine finishes) the factory hears that the worker finished that key
// and gives it the next job. A worker that fails is rebuilt with the same id and keeps its queue.
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
//   as::FactoryRef<std::string, Resize> pool = as::start_factory<Thumbnailer>(system, spec).value();
//   (void)pool.dispatch("cat.png", Resize{128});
//   auto resize = [](as::Reply<int> r) { return Resize{256, std::move(r)}; };
//   as::CallResult<int> width = pool.call("dog.png", resize, std::chrono::seconds(1)).get();
//   std::size_t waiting = pool.queue_depth().get().value();
//   pool.stop_and_wait();
// }
// ```
//
// This is the first part of the factory: routing, the queues, restarts and the gauges. Discarding,
// TTLs, priorities, the dead-man's switch, resizing and draining come later (issue #25).
#pragma once

#include <actorscope/actor.hpp>
#include <actorscope/actor_ref.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/supervision_event.hpp>
#include <actorscope/system.hpp>
#include <actorscope/task.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
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

/// What the factory records about a job besides its key and message.
struct JobOptions {
  /// When the job was dispatched, on the runtime's clock (dispatch fills it in if left empty).
  TimePoint submitted{};
};

/// One unit of work: the key routes it, the message is what the worker handles.
template <class K, class M>
struct Job {
  K key;      ///< routes the job (and, with the sticky routings, keeps its jobs in order)
  M message;  ///< what the worker's handle is given
  JobOptions options{};
};

/// A factory that could not be started, or a request it refused, and why (a full sentence).
class FactoryError {
 public:
  enum class Kind : std::uint8_t {
    no_workers,           ///< FactorySpec::workers is 0
    missing_custom_hash,  ///< Routing::custom_hash without FactorySpec::custom_hash
    key_not_hashable,     ///< Routing::key_persistent for a key type std::hash does not know
    worker_named,         ///< FactorySpec::worker_options has a name (workers are many; a name is one)
    spawn_failed,         ///< the factory or one of its workers failed to start
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
}  // namespace factory_request

/// The factory actor's message type: the requests above.
template <class K, class M>
using FactoryMessage =
    std::variant<factory_request::Dispatch<K, M>, factory_request::Finished<K>, factory_request::QueueDepth,
                 factory_request::AvailableCapacity, factory_request::ActiveWorkers>;

/// A handle to a factory: everything an ActorRef does (stop, stop_and_wait, monitor, ...), and
/// the factory's requests. @thread any
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
};

/// A worker type's Key and Message.
template <class W>
using worker_key_t = typename W::Key;
template <class W>
using worker_message_t = typename W::Message;

namespace detail {
template <class W>
struct WorkerActor;
}

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
};

namespace detail {

[[noreturn]] void throw_worker_spawn_failed(WorkerId id, const std::string& why);
std::string factory_spec_problem(std::size_t workers, Routing routing, bool has_custom_hash,
                                 bool key_hashable, bool worker_named, FactoryError::Kind& kind);
std::string custom_hash_out_of_range(std::size_t index, std::size_t pool);
std::string worker_exit_text(WorkerId id, const std::string& what, std::size_t queued);

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

/// The factory's routing and queues, on the factory actor's thread.
template <class W>
class FactoryCore {
 public:
  using K = worker_key_t<W>;
  using M = worker_message_t<W>;
  using J = Job<K, M>;
  using Msg = FactoryMessage<K, M>;

  explicit FactoryCore(FactorySpec<W> spec) : spec_(std::move(spec)) {}

  template <class C>
  void start(C& ctx) {
    factory_ = FactoryRef<K, M>(ctx.self());
    workers_ = std::vector<Worker>(spec_.workers);  // in place: a Worker (its deque of jobs) may be move-only
    // A worker that fails to start fails the factory's pre_start; the engine then kills the
    // workers already spawned, as it does every child a failed pre_start spawned.
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      spawn_worker(ctx, i);
      mark_idle(i);
    }
  }

  template <class C>
  void on_request(C& ctx, Msg message) {
    std::visit(
        [&](auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, factory_request::Dispatch<K, M>>) {
            route(ctx, std::move(m.job));
          } else if constexpr (std::is_same_v<T, factory_request::Finished<K>>) {
            on_finished(m.worker, m.from);
          } else if constexpr (std::is_same_v<T, factory_request::QueueDepth>) {
            std::size_t n = queue_.size();
            for (const Worker& w : workers_) n += w.queue.size();
            m.reply.send(n);
          } else if constexpr (std::is_same_v<T, factory_request::AvailableCapacity>) {
            std::size_t n = 0;
            for (const Worker& w : workers_) n += is_idle(w) ? 1 : 0;
            m.reply.send(n);
          } else {
            std::size_t n = 0;
            for (const Worker& w : workers_) n += w.busy ? 1 : 0;
            m.reply.send(n);
          }
        },
        message);
  }

  /// A worker exited (failed, stopped itself or was killed): rebuild it with the same id. Its
  /// queue stays; the job it was running is lost.
  template <class C>
  void on_event(C& ctx, const SupervisionEvent& event) {
    std::string what;
    ActorCell actor;
    if (const auto* t = event.get<ActorTerminated>()) {
      actor = t->actor;
      const ActorExit exit = actor.exit().value_or(ActorExit{ExitKind::stopped, t->reason});
      what = to_string(exit.kind);
      if (!exit.reason.empty()) what += " (" + exit.reason + ")";
    } else if (const auto* f = event.get<ActorFailed>()) {
      actor = f->actor;
      what = "failed: " + f->error;
    } else {
      return;
    }
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      Worker& w = workers_[i];
      if (!w.actor || w.actor.id() != actor.id()) continue;
      ctx.log("{}", worker_exit_text(i, what, w.queue.size()));
      w.busy = false;
      w.current.reset();
      spawn_worker(ctx, i);  // a failure here fails the factory: it cannot keep its pool
      ++w.restarts;
      pump(i);
      return;
    }
  }

 private:
  struct Worker {
    ActorRef<J> actor;
    std::deque<J> queue;
    std::optional<K> current;
    bool busy = false;
    bool listed = false;  ///< in free_ (perhaps stale: checked when taken)
    std::uint32_t restarts = 0;
  };

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

  static bool is_idle(const Worker& w) noexcept { return !w.busy && w.queue.empty(); }

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
      workers_[i].listed = false;
      if (is_idle(workers_[i])) return i;
    }
    return std::nullopt;
  }

  /// The worker with a job of this key running (or, with `queued`, waiting on its own queue).
  std::optional<WorkerId> holder_of(const K& key, bool queued) const {
    for (WorkerId i = 0; i < workers_.size(); ++i) {
      const Worker& w = workers_[i];
      if (w.current && *w.current == key) return i;
      if (queued)
        for (const J& j : w.queue)
          if (j.key == key) return i;
    }
    return std::nullopt;
  }

  template <class C>
  void route(C& ctx, J job) {
    const std::size_t n = workers_.size();
    switch (spec_.routing) {
      case Routing::key_persistent: {
        std::optional<WorkerId> i = holder_of(job.key, true);
        if (!i) {
          if constexpr (key_hashable<K>) i = std::hash<K>{}(job.key) % n;
        }
        return enqueue_on(*i, std::move(job));
      }
      case Routing::round_robin: {
        const WorkerId i = next_ % n;
        next_ = (next_ + 1) % n;
        return enqueue_on(i, std::move(job));
      }
      case Routing::custom_hash: {
        const std::size_t i = spec_.custom_hash(job.key, n);
        if (i >= n) {
          ctx.log("{}", custom_hash_out_of_range(i, n));
          return;  // the job (and any reply port in it) is dropped
        }
        return enqueue_on(i, std::move(job));
      }
      case Routing::sticky_queuer:
        if (std::optional<WorkerId> i = holder_of(job.key, true)) return enqueue_on(*i, std::move(job));
        [[fallthrough]];
      case Routing::queuer:
        if (std::optional<WorkerId> i = take_free()) return run_on(*i, std::move(job));
        queue_.push_back(std::move(job));
        return;
    }
  }

  void enqueue_on(WorkerId i, J job) {
    Worker& w = workers_[i];
    if (is_idle(w)) return run_on(i, std::move(job));
    w.queue.push_back(std::move(job));
  }

  void run_on(WorkerId i, J job) {
    Worker& w = workers_[i];
    w.busy = true;
    w.current = job.key;
    if (auto sent = w.actor.cast(std::move(job)); !sent) {
      // The worker is on its way out (it stopped itself, say); its exit event is coming and will
      // rebuild it. Keep the job at the head of its queue and give it nothing else until then.
      w.queue.push_front(std::move(sent.error().message()));
      w.current.reset();
    }
  }

  void on_finished(WorkerId i, ActorId from) {
    if (i >= workers_.size()) return;
    Worker& w = workers_[i];
    if (!w.actor || w.actor.id() != from) return;  // from an incarnation already replaced
    w.busy = false;
    w.current.reset();
    pump(i);
  }

  /// Gives an idle worker its next job: its own queue first, then the factory's.
  void pump(WorkerId i) {
    Worker& w = workers_[i];
    if (w.busy) return;
    if (!w.queue.empty()) {
      J next = std::move(w.queue.front());
      w.queue.pop_front();
      return run_on(i, std::move(next));
    }
    if (!queue_.empty()) {
      J next = std::move(queue_.front());
      queue_.pop_front();
      return run_on(i, std::move(next));
    }
    mark_idle(i);
  }

  FactorySpec<W> spec_;
  FactoryRef<K, M> factory_;
  std::vector<Worker> workers_;
  std::deque<J> queue_;        ///< queuer and sticky_queuer: jobs waiting for any worker
  std::deque<WorkerId> free_;  ///< queuer: idle workers, the one idle longest first
  std::size_t next_ = 0;       ///< round_robin: the next worker
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
  /// Routes jobs, hears workers finish, answers the gauges.
  void handle(Context<Factory>& ctx, Message message, State& core) {
    core->on_request(ctx, std::move(message));
  }
  /// Rebuilds a worker that exited; one that cannot be rebuilt fails the factory.
  void handle_supervisor_event(Context<Factory>& ctx, const SupervisionEvent& event, State& core) {
    core->on_event(ctx, event);
  }
  /// Stops every worker and waits for them (their post_stop runs); queued jobs are dropped. (No
  /// worker is rebuilt meanwhile: supervision events wait while this hook runs.)
  Task<> post_stop(Context<Factory>& ctx, State&) { co_await ctx.stop_children_and_wait(); }
};

/// Checks the spec and spawns the factory and its workers (each worker's pre_start has run when
/// this returns). Every mistake in the spec is a FactoryError that says what to change.
template <class W>
Expected<FactoryRef<worker_key_t<W>, worker_message_t<W>>, FactoryError> start_factory(
    System& system, FactorySpec<W> spec, SpawnOptions options = {}) {
  using K = worker_key_t<W>;
  using M = worker_message_t<W>;
  FactoryError::Kind kind{};
  std::string problem =
      detail::factory_spec_problem(spec.workers, spec.routing, static_cast<bool>(spec.custom_hash),
                                   detail::key_hashable<K>, !spec.worker_options.name.empty(), kind);
  if (!problem.empty()) return unexpected(FactoryError(kind, std::move(problem)));
  if constexpr (!std::is_default_constructible_v<W>) {
    if (!spec.builder)
      return unexpected(FactoryError(FactoryError::Kind::spawn_failed,
                                     "the worker type is not default-constructible, so FactorySpec::builder "
                                     "must make each worker from its id"));
  }
  auto ref = system.spawn<Factory<W>>(std::move(options), std::move(spec));
  if (!ref) {
    std::string text = "the factory failed to start: ";
    text += ref.error().what();
    return unexpected(FactoryError(FactoryError::Kind::spawn_failed, std::move(text)));
  }
  return FactoryRef<K, M>(std::move(*ref));
}

}  // namespace actorscope
