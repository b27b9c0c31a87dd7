// The Supervisor actor: its children's records, the restart decisions (strategy, restart type,
// intensity, backoff), ordered shutdown, the dynamic-children requests, and the events that make it
// visible (supervisor_configured, child_restarted, supervisor_gave_up).
//
// Everything here runs on the supervisor's own thread, one hook at a time: a hook that waits for a
// child to shut down (co_await) holds the supervisor's other work back, as Erlang's supervisor does,
// while a restart waiting on its backoff is a timer message and holds nothing back.
#include <actorscope/supervisor.hpp>

#include <actorscope/detail/core_access.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/event.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>

namespace actorscope {

std::string_view to_string(Strategy s) noexcept {
  switch (s) {
    case Strategy::one_for_one:
      return "one_for_one";
    case Strategy::one_for_all:
      return "one_for_all";
    case Strategy::rest_for_one:
      return "rest_for_one";
    case Strategy::simple_one_for_one:
      return "simple_one_for_one";
  }
  return "unknown";
}

std::string_view to_string(Restart r) noexcept {
  switch (r) {
    case Restart::permanent:
      return "permanent";
    case Restart::transient:
      return "transient";
    case Restart::temporary:
      return "temporary";
  }
  return "unknown";
}

std::string to_string(const Shutdown& s) {
  switch (s.kind) {
    case Shutdown::Kind::brutal_kill:
      return "brutal_kill";
    case Shutdown::Kind::infinity:
      return "infinity";
    case Shutdown::Kind::timeout:
      break;
  }
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(s.timeout).count());
}

std::string_view to_string(ChildInfo::Status s) noexcept {
  switch (s) {
    case ChildInfo::Status::running:
      return "running";
    case ChildInfo::Status::restarting:
      return "restarting";
    case ChildInfo::Status::terminated:
      return "terminated";
  }
  return "unknown";
}

Duration Backoff::delay(std::uint32_t attempt, double random) const noexcept {
  // min·2^(attempt-1) in floating point, so that a long streak saturates at max instead of overflowing.
  const double exponent = attempt > 0 ? static_cast<double>(attempt - 1) : 0.0;
  const double base = static_cast<double>(min.count()) * std::pow(2.0, std::min(exponent, 62.0));
  const double capped = std::min(base, static_cast<double>(max.count()));
  const double j = std::clamp(jitter, 0.0, 1.0) * std::clamp(random, 0.0, 1.0);
  const auto ticks = static_cast<Duration::rep>(capped * (1.0 - j));
  return std::clamp(Duration(ticks), min, std::max(min, max));
}

namespace {

std::string quoted(std::string_view id) {
  std::string out;
  out.reserve(id.size() + 2);
  out.push_back('\'');
  out.append(id);
  out.push_back('\'');
  return out;
}

std::string describe_period(Duration d) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(d).count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

/// Thrown by a child_arguments that was given arguments of the wrong type.
class BadChildArguments : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace

void detail::throw_bad_child_arguments(std::string_view actor_type, std::string_view expected,
                                       std::string_view got) {
  throw BadChildArguments("start_child_with: the template starts " + std::string(actor_type) +
                          ", whose arguments are " + std::string(expected) + ", but it was given a " +
                          std::string(got) + "; pass an arguments_t of the template's actor");
}

// ---------------------------------------------------------------------------------------------

namespace detail {

class SupervisorCore {
 public:
  using Ctx = Context<Supervisor>;

  SupervisorCore(Ctx& ctx, SupervisorSpec spec)
      : sys_(CoreAccess::cell(ctx).system()),
        self_(ctx.id()),
        label_(ctx.name().empty() ? ctx.id().to_string() : quoted(ctx.name())),
        spec_(std::move(spec)) {
    if (spec_.backoff) random_.seed(spec_.backoff->seed);
  }
  ~SupervisorCore() { sys_.supervisor_gone(self_); }
  SupervisorCore(const SupervisorCore&) = delete;
  SupervisorCore& operator=(const SupervisorCore&) = delete;

  /// pre_start: checks the spec and starts the children in order. Throws what the spawn returns.
  void start(Ctx& ctx);

  // Each answers at once and returns a Task only for what must wait (empty otherwise).
  Task<> on_request(Ctx& ctx, SupervisorMessage message);
  Task<> on_event(Ctx& ctx, const SupervisionEvent& event);
  /// The supervisor stops: every child shut down as its spec says, in reverse start order.
  Task<> shutdown_all();

 private:
  struct Child {
    explicit Child(ChildSpec s) : spec(std::move(s)) {}
    ChildSpec spec;
    ActorCell actor;  // empty unless running
    ChildInfo::Status status = ChildInfo::Status::terminated;
    ActorId last{};              // the last actor it had: the peer of its next child_restarted
    std::uint32_t restarts = 0;  // restart attempts, for which_children and the events
    std::uint32_t streak = 0;    // consecutive restarts, for the backoff
    TimePoint last_start{};
    std::any arguments;  // simple_one_for_one: what start_child_with gave
  };
  /// Why a restart happens. Kept as parts and put into words only when someone reads them (an
  /// observer, or the reason the supervisor gives up with), so that a restart formats nothing.
  struct Cause {
    enum class Kind : std::uint8_t { exited, start_failed };
    Kind kind = Kind::exited;
    std::string child;  // the child that exited, or whose start failed
    ExitKind exit = ExitKind::failed;
    std::string detail;  // its exit reason, or the start's error
  };
  /// A restart of one or more children (in start order): now, after a backoff, or a retry after a
  /// failed start.
  struct Round {
    std::vector<std::string> ids;
    Cause cause;
    Duration delay{};
    bool counted = true;  // false: a retry, which counts against the intensity when it runs
    TimerHandle timer;
  };
  using Result = supervisor_request::Result<ActorCell>;

  bool simple() const noexcept { return spec_.strategy == Strategy::simple_one_for_one; }
  Child* find(std::string_view id) noexcept {
    auto it =
        std::find_if(children_.begin(), children_.end(), [&](const Child& c) { return c.spec.id == id; });
    return it == children_.end() ? nullptr : &*it;
  }
  std::size_t index_of(std::string_view id) const noexcept {
    auto it =
        std::find_if(children_.begin(), children_.end(), [&](const Child& c) { return c.spec.id == id; });
    return static_cast<std::size_t>(it - children_.begin());
  }
  void erase(std::string_view id) {
    std::erase_if(children_, [&](const Child& c) { return c.spec.id == id; });
  }

  /// Runs the child's start function; a throw from it becomes a SpawnError.
  Expected<ActorCell, SpawnError> spawn(Ctx& ctx, Child& c);
  /// A first start (spawn, start_child): no event, nothing counted.
  Expected<ActorCell, SupervisorError> start_first(Ctx& ctx, Child& c);

  /// Records a restart at `now`; false if that makes more than max_restarts within the period.
  bool count_restart(TimePoint now);
  /// Shuts every child down, says why, and fails the supervisor (throws SupervisorGaveUp).
  Task<> give_up(Cause last);
  /// Shuts one child down as its spec says and waits until it has exited.
  Task<> shut_down(Child& c, std::string reason);

  /// The words for `cause` as the text of child `id`'s restart.
  std::string describe(const Cause& cause, std::string_view id) const;

  // The restart path returns a Task only when it must wait (siblings to shut down, or giving up),
  // so that a plain one_for_one restart allocates no coroutine frame of its own.
  /// A child exited on its own: restart what the strategy says, or not, as its restart type says.
  Task<> on_exit(Ctx& ctx, const ActorCell& actor, ActorExit exit);
  /// Counts a restart of child `id` and starts it and, by the strategy, its siblings.
  Task<> restart(Ctx& ctx, std::size_t i, Cause cause);
  /// Shuts the siblings in `ids` down (reverse order), then restarts them all.
  Task<> restart_after_shutdown(Ctx& ctx, std::vector<std::string> ids, Cause cause);
  /// Marks the children of `ids` restarting and runs or schedules their round.
  void plan_round(Ctx& ctx, std::vector<std::string> ids, Cause cause);
  /// Starts the children of a round in order. A start that fails makes a new round of the rest.
  void run_round(Ctx& ctx, Round round);
  /// Queues `round` to run after its delay (a timer), or at once (a message to itself).
  void schedule(Ctx& ctx, Round round);
  /// The backoff delay before the next restart of `c` (zero without a backoff).
  Duration next_delay(Ctx& ctx, Child& c);

  /// Tells observers (and later ones) the strategy, intensity, specs and the actors running them.
  void publish_config();
  /// Child `c` runs another actor now, or none: remembered for observers attaching later.
  void note_actor(const Child& c);

  Result start_child(Ctx& ctx, ChildSpec spec);
  Result start_child_with(Ctx& ctx, std::any arguments);
  /// Shuts the child down and answers the request.
  Task<> terminate_child(supervisor_request::TerminateChild request);
  Result restart_child(Ctx& ctx, const std::string& id);
  Expected<void, SupervisorError> delete_child(const std::string& id);
  std::vector<ChildInfo> which_children() const;
  ChildCounts count_children() const;

  SystemCore& sys_;
  ActorId self_;
  std::string label_;
  SupervisorSpec spec_;  // its `children` are the initial specs; the live ones are in children_
  ChildSpec template_;   // simple_one_for_one
  std::uint64_t next_simple_ = 1;
  std::vector<Child> children_;  // in start order
  std::deque<TimePoint> restarts_;
  std::map<std::uint64_t, Round> rounds_;
  std::uint64_t next_round_ = 1;
  std::mt19937_64 random_;
  bool stopping_ = false;
};

Expected<ActorCell, SpawnError> SupervisorCore::spawn(Ctx& ctx, Child& c) {
  try {
    const ChildStartContext start{ctx.system(), ctx.cell(), c.arguments.has_value() ? &c.arguments : nullptr};
    return c.spec.start(start);
  } catch (const BadChildArguments&) {
    throw;  // the caller's mistake, not the child's: start_child_with answers it as a bad request
  } catch (const std::exception& e) {
    return unexpected(SpawnError(SpawnError::Kind::startup_failed, "child " + quoted(c.spec.id), e.what()));
  }
}

Expected<ActorCell, SupervisorError> SupervisorCore::start_first(Ctx& ctx, Child& c) {
  auto started = spawn(ctx, c);
  if (!started)
    return unexpected(
        SupervisorError(SupervisorError::Kind::start_failed,
                        "child " + quoted(c.spec.id) + " failed to start: " + started.error().what()));
  c.actor = *started;
  c.last = c.actor.id();
  c.status = ChildInfo::Status::running;
  if (spec_.backoff) c.last_start = ctx.runtime().now();
  return c.actor;
}

void SupervisorCore::start(Ctx& ctx) {
  auto invalid = [&](std::string what) { throw std::invalid_argument("supervisor " + label_ + ": " + what); };
  if (spec_.period <= Duration::zero()) invalid("the restart period must be positive");
  if (spec_.backoff && (spec_.backoff->min < Duration::zero() || spec_.backoff->max < spec_.backoff->min))
    invalid("the backoff needs 0 <= min <= max");
  std::vector<ChildSpec> specs = std::move(spec_.children);
  spec_.children.clear();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].id.empty()) invalid("child spec #" + std::to_string(i + 1) + " has no id");
    if (!specs[i].start) invalid("child " + quoted(specs[i].id) + " has no start function");
    for (std::size_t j = 0; j < i; ++j)
      if (specs[j].id == specs[i].id) invalid("two child specs have the id " + quoted(specs[i].id));
  }
  if (simple()) {
    if (specs.size() != 1)
      invalid("simple_one_for_one takes exactly one child spec, the template (got " +
              std::to_string(specs.size()) + ")");
    template_ = std::move(specs.front());
    publish_config();
    return;
  }
  children_.reserve(specs.size());
  for (ChildSpec& s : specs) children_.push_back(Child(std::move(s)));
  for (Child& c : children_) {
    auto started = start_first(ctx, c);
    if (started) continue;
    // pre_start cannot wait, so the ones already started are killed rather than stopped in order.
    for (Child& k : children_)
      if (k.actor) k.actor.kill();
    throw std::runtime_error(started.error().what());
  }
  publish_config();
}

void SupervisorCore::publish_config() {
  SystemCore::SupervisorPresent present;
  auto line = [](const ChildSpec& s) {
    return "child\t" + s.id + "\t" + std::string(to_string(s.restart)) + "\t" + to_string(s.shutdown) + "\t" +
           (s.kind == ChildKind::supervisor ? "supervisor" : "worker");
  };
  if (simple()) {
    present.children.push_back(line(template_));
    present.actors.push_back(ActorId{});
  } else {
    for (const Child& c : children_) {
      present.children.push_back(line(c.spec));
      present.actors.push_back(c.actor ? c.actor.id() : ActorId{});
    }
  }
  std::string options;
  if (spec_.backoff) {
    auto ms = [](Duration d) {
      return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
    };
    options = "backoff\t" + ms(spec_.backoff->min) + "\t" + ms(spec_.backoff->max) + "\t" +
              ms(spec_.backoff->reset_after);
  }
  present.config = observe::Event::supervisor_configured(
      self_, std::string(to_string(spec_.strategy)), spec_.max_restarts, spec_.period, std::move(options));
  sys_.supervisor_configured(std::move(present));
}

void SupervisorCore::note_actor(const Child& c) {
  if (simple()) return;  // its children are not specs
  sys_.supervisor_child_actor(self_, static_cast<std::size_t>(&c - children_.data()),
                              c.actor ? c.actor.id() : ActorId{});
}

// ---------------------------------------------------------------------------------------------
// Restarts

bool SupervisorCore::count_restart(TimePoint now) {
  while (!restarts_.empty() && now - restarts_.front() >= spec_.period) restarts_.pop_front();
  restarts_.push_back(now);
  return restarts_.size() <= spec_.max_restarts;
}

Task<> SupervisorCore::give_up(Cause last) {
  const auto n = static_cast<std::uint32_t>(restarts_.size());
  std::string reason = "supervisor " + label_ + " gave up: " + std::to_string(n) + " restarts within " +
                       describe_period(spec_.period) + " exceed its limit of " +
                       std::to_string(spec_.max_restarts) + "; the last: " + describe(last, last.child);
  if (sys_.observing() != 0)
    sys_.emit_event(observe::Event::supervisor_gave_up(self_, n, spec_.period, reason));
  Task<> shutting = shutdown_all();
  co_await shutting;
  throw SupervisorGaveUp(reason);
}

std::string SupervisorCore::describe(const Cause& cause, std::string_view id) const {
  if (id != cause.child)
    return "restarted with " + quoted(cause.child) + " (" + std::string(to_string(spec_.strategy)) + ")";
  if (cause.kind == Cause::Kind::start_failed)
    return "child " + quoted(id) + " could not start: " + cause.detail;
  return "child " + quoted(id) + " " + std::string(to_string(cause.exit)) +
         (cause.detail.empty() ? "" : ": " + cause.detail);
}

Task<> SupervisorCore::shut_down(Child& c, std::string reason) {
  ActorCell actor = std::move(c.actor);
  c.actor = ActorCell();
  c.status = ChildInfo::Status::terminated;
  if (!actor) co_return;
  c.last = actor.id();
  note_actor(c);
  // Once the child is taken out of its record, its exit event finds no child and changes nothing.
  const JoinHandle<ActorExit> exited = actor.join_handle();
  switch (c.spec.shutdown.kind) {
    case Shutdown::Kind::brutal_kill:
      actor.kill();
      break;
    case Shutdown::Kind::infinity:
      actor.stop(std::move(reason));
      break;
    case Shutdown::Kind::timeout:
      actor.stop(std::move(reason));
      if (co_await exited.join_for(c.spec.shutdown.timeout)) co_return;
      actor.kill();
      break;
  }
  co_await exited.join();
}

Task<> SupervisorCore::shutdown_all() {
  stopping_ = true;
  for (auto& [n, round] : rounds_) round.timer.cancel();
  rounds_.clear();
  for (std::size_t k = children_.size(); k-- > 0;) {
    Task<> shutting = shut_down(children_[k], "shutdown");
    co_await shutting;
  }
}

Task<> SupervisorCore::on_exit(Ctx& ctx, const ActorCell& actor, ActorExit exit) {
  if (stopping_) return {};
  auto it =
      std::find_if(children_.begin(), children_.end(), [&](const Child& c) { return c.actor == actor; });
  if (it == children_.end()) return {};  // not (or no longer) one of ours: shut down by us, or linked by hand
  Child& c = *it;
  c.actor = ActorCell();
  c.last = actor.id();
  c.status = ChildInfo::Status::terminated;
  note_actor(c);
  const bool abnormal = exit.kind != ExitKind::stopped;
  const bool again =
      c.spec.restart == Restart::permanent || (c.spec.restart == Restart::transient && abnormal);
  if (!again) {
    if (c.spec.restart == Restart::temporary || simple()) {
      const std::string id = c.spec.id;
      erase(id);
      if (!simple()) publish_config();
    }
    return {};
  }
  return restart(ctx, static_cast<std::size_t>(it - children_.begin()),
                 Cause{Cause::Kind::exited, c.spec.id, exit.kind, std::move(exit.reason)});
}

Task<> SupervisorCore::restart(Ctx& ctx, std::size_t i, Cause cause) {
  if (!count_restart(ctx.runtime().now())) return give_up(std::move(cause));
  // Which children go: by the strategy, in start order.
  std::size_t first = i, last = i + 1;
  if (spec_.strategy == Strategy::one_for_all) first = 0;
  if (spec_.strategy == Strategy::one_for_all || spec_.strategy == Strategy::rest_for_one)
    last = children_.size();
  std::vector<std::string> ids;
  ids.reserve(last - first);
  bool running = false;
  for (std::size_t k = first; k < last; ++k) {
    ids.push_back(children_[k].spec.id);
    running = running || (k != i && children_[k].actor);
  }
  if (running) return restart_after_shutdown(ctx, std::move(ids), std::move(cause));
  plan_round(ctx, std::move(ids), std::move(cause));
  return {};
}

Task<> SupervisorCore::restart_after_shutdown(Ctx& ctx, std::vector<std::string> ids, Cause cause) {
  // The others are shut down first, in reverse start order, as the supervisor's own stop would.
  for (std::size_t k = ids.size(); k-- > 0;) {
    if (ids[k] == cause.child) continue;
    Child* c = find(ids[k]);
    if (c == nullptr || !c->actor) continue;
    Task<> shutting = shut_down(*c, describe(cause, ids[k]));
    co_await shutting;
  }
  plan_round(ctx, std::move(ids), std::move(cause));
}

void SupervisorCore::plan_round(Ctx& ctx, std::vector<std::string> ids, Cause cause) {
  Round round;
  bool forgot = false;
  for (std::string& k : ids) {
    Child* c = find(k);
    if (c == nullptr) continue;
    if (k != cause.child && c->spec.restart == Restart::temporary) {  // as Erlang: not restarted
      erase(k);
      forgot = true;
      continue;
    }
    // A child waiting on its own backoff joins this round instead.
    if (!rounds_.empty())
      for (auto& [n, r] : rounds_) std::erase(r.ids, k);
    c->status = ChildInfo::Status::restarting;
    round.ids.push_back(std::move(k));
  }
  if (!rounds_.empty()) std::erase_if(rounds_, [](const auto& r) { return r.second.ids.empty(); });
  if (forgot) publish_config();
  if (Child* c = find(cause.child)) round.delay = next_delay(ctx, *c);
  round.cause = std::move(cause);
  if (round.delay > Duration::zero()) {
    schedule(ctx, std::move(round));
  } else {
    run_round(ctx, std::move(round));
  }
}

Duration SupervisorCore::next_delay(Ctx& ctx, Child& c) {
  if (!spec_.backoff) return Duration::zero();
  const TimePoint now = ctx.runtime().now();
  if (c.last_start != TimePoint{} && now - c.last_start >= spec_.backoff->reset_after) c.streak = 0;
  ++c.streak;
  return spec_.backoff->delay(c.streak, std::uniform_real_distribution<double>(0.0, 1.0)(random_));
}

void SupervisorCore::schedule(Ctx& ctx, Round round) {
  const std::uint64_t n = next_round_++;
  if (round.delay > Duration::zero()) {
    round.timer = ctx.send_after(round.delay, SupervisorMessage(supervisor_request::RestartDue{n}));
  } else {
    (void)ctx.self().cast(supervisor_request::RestartDue{n});
  }
  rounds_.emplace(n, std::move(round));
}

void SupervisorCore::run_round(Ctx& ctx, Round round) {
  const bool observing = sys_.observing() != 0;
  for (std::size_t k = 0; k < round.ids.size(); ++k) {
    Child* c = find(round.ids[k]);
    if (c == nullptr) continue;  // deleted while it waited
    auto started = spawn(ctx, *c);
    ++c->restarts;
    if (started) {
      if (observing)
        sys_.emit_event(observe::Event::child_restarted(started->id(), c->last, c->spec.id,
                                                        describe(round.cause, c->spec.id), c->restarts,
                                                        round.delay, false));
      c->actor = std::move(*started);
      c->last = c->actor.id();
      c->status = ChildInfo::Status::running;
      if (spec_.backoff) c->last_start = ctx.runtime().now();  // only the backoff's reset reads it
      note_actor(*c);
      continue;
    }
    std::string error = started.error().what();
    if (observing)
      sys_.emit_event(observe::Event::child_restarted(
          ActorId{}, c->last, c->spec.id, describe(round.cause, c->spec.id) + "; its start failed: " + error,
          c->restarts, round.delay, true));
    // As Erlang: the failed start is tried again, and each try counts against the intensity. The
    // children after it in the round wait with it.
    Round retry;
    retry.counted = false;
    retry.ids.assign(round.ids.begin() + static_cast<std::ptrdiff_t>(k), round.ids.end());
    retry.cause = Cause{Cause::Kind::start_failed, c->spec.id, ExitKind::failed, std::move(error)};
    retry.delay = next_delay(ctx, *c);
    schedule(ctx, std::move(retry));
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

Task<> SupervisorCore::on_request(Ctx& ctx, SupervisorMessage message) {
  namespace r = supervisor_request;
  if (auto* m = std::get_if<r::StartChild>(&message)) {
    m->reply.send(start_child(ctx, std::move(m->spec)));
  } else if (auto* m = std::get_if<r::StartChildWith>(&message)) {
    m->reply.send(start_child_with(ctx, std::move(m->arguments)));
  } else if (auto* m = std::get_if<r::TerminateChild>(&message)) {
    return terminate_child(std::move(*m));
  } else if (auto* m = std::get_if<r::RestartChild>(&message)) {
    m->reply.send(restart_child(ctx, m->id));
  } else if (auto* m = std::get_if<r::DeleteChild>(&message)) {
    m->reply.send(delete_child(m->id));
  } else if (auto* m = std::get_if<r::WhichChildren>(&message)) {
    m->reply.send(which_children());
  } else if (auto* m = std::get_if<r::CountChildren>(&message)) {
    m->reply.send(count_children());
  } else if (auto* m = std::get_if<r::RestartDue>(&message)) {
    auto it = rounds_.find(m->round);
    if (it == rounds_.end()) return {};  // cancelled: its children were terminated or restarted otherwise
    Round round = std::move(it->second);
    rounds_.erase(it);
    if (!round.counted && !count_restart(ctx.runtime().now())) return give_up(std::move(round.cause));
    run_round(ctx, std::move(round));
  }
  return {};
}

SupervisorCore::Result SupervisorCore::start_child(Ctx& ctx, ChildSpec spec) {
  using K = SupervisorError::Kind;
  if (simple())
    return unexpected(
        SupervisorError(K::bad_request, "supervisor " + label_ +
                                            " is simple_one_for_one: start its children from the "
                                            "template with start_child_with(arguments)"));
  if (spec.id.empty())
    return unexpected(SupervisorError(K::bad_request, "start_child: the child spec has no id"));
  if (!spec.start)
    return unexpected(
        SupervisorError(K::bad_request, "start_child: child " + quoted(spec.id) + " has no start function"));
  if (const Child* c = find(spec.id))
    return unexpected(
        c->actor ? SupervisorError(K::already_started, "child " + quoted(spec.id) + " is already running")
                 : SupervisorError(K::already_present, "a child spec with the id " + quoted(spec.id) +
                                                           " exists; restart_child or delete_child it"));
  children_.push_back(Child(std::move(spec)));
  auto started = start_first(ctx, children_.back());
  if (!started) children_.pop_back();
  publish_config();
  return started;
}

SupervisorCore::Result SupervisorCore::start_child_with(Ctx& ctx, std::any arguments) {
  if (!simple())
    return unexpected(SupervisorError(SupervisorError::Kind::bad_request,
                                      "start_child_with is for simple_one_for_one supervisors; supervisor " +
                                          label_ + " is " + std::string(to_string(spec_.strategy)) +
                                          ": use start_child(spec)"));
  Child c(template_);
  c.spec.id = template_.id + "#" + std::to_string(next_simple_++);
  c.arguments = std::move(arguments);
  children_.push_back(std::move(c));
  Result started = [&]() -> Result {
    try {
      return start_first(ctx, children_.back());
    } catch (const BadChildArguments& e) {
      return unexpected(SupervisorError(SupervisorError::Kind::bad_request, e.what()));
    }
  }();
  if (!started) children_.pop_back();
  return started;
}

Task<> SupervisorCore::terminate_child(supervisor_request::TerminateChild request) {
  const std::string& id = request.id;
  Child* c = find(id);
  if (c == nullptr) {
    request.reply.send(unexpected(SupervisorError(SupervisorError::Kind::unknown_child,
                                                  "supervisor " + label_ + " has no child " + quoted(id))));
    co_return;
  }
  for (auto& [n, r] : rounds_) std::erase(r.ids, id);
  std::erase_if(rounds_, [](const auto& r) { return r.second.ids.empty(); });
  Task<> shutting = shut_down(*c, "terminate_child");
  co_await shutting;
  if (simple() || c->spec.restart == Restart::temporary) {
    erase(id);
    if (!simple()) publish_config();
  }
  request.reply.send(Expected<void, SupervisorError>());
}

SupervisorCore::Result SupervisorCore::restart_child(Ctx& ctx, const std::string& id) {
  using K = SupervisorError::Kind;
  if (simple())
    return unexpected(
        SupervisorError(K::bad_request, "restart_child does not apply to simple_one_for_one supervisor " +
                                            label_ + ": start a new child with start_child_with"));
  Child* c = find(id);
  if (c == nullptr)
    return unexpected(
        SupervisorError(K::unknown_child, "supervisor " + label_ + " has no child " + quoted(id)));
  if (c->status == ChildInfo::Status::running)
    return unexpected(
        SupervisorError(K::running, "child " + quoted(id) + " is running; terminate_child it first"));
  if (c->status == ChildInfo::Status::restarting)
    return unexpected(
        SupervisorError(K::restarting, "child " + quoted(id) + " is already waiting to restart"));
  const ActorId old = c->last;
  auto started = start_first(ctx, *c);
  if (!started) return started;
  ++c->restarts;
  note_actor(*c);
  if (sys_.observing() != 0)
    sys_.emit_event(observe::Event::child_restarted(c->actor.id(), old, id, "restart_child", c->restarts,
                                                    Duration{}, false));
  return started;
}

Expected<void, SupervisorError> SupervisorCore::delete_child(const std::string& id) {
  using K = SupervisorError::Kind;
  if (simple())
    return unexpected(
        SupervisorError(K::bad_request, "delete_child does not apply to simple_one_for_one supervisor " +
                                            label_ + ": terminate_child removes its children"));
  const Child* c = find(id);
  if (c == nullptr)
    return unexpected(
        SupervisorError(K::unknown_child, "supervisor " + label_ + " has no child " + quoted(id)));
  if (c->status == ChildInfo::Status::running)
    return unexpected(
        SupervisorError(K::running, "child " + quoted(id) + " is running; terminate_child it first"));
  if (c->status == ChildInfo::Status::restarting)
    return unexpected(SupervisorError(
        K::restarting, "child " + quoted(id) + " is waiting to restart; terminate_child it first"));
  erase(id);
  publish_config();
  return {};
}

std::vector<ChildInfo> SupervisorCore::which_children() const {
  std::vector<ChildInfo> out;
  out.reserve(children_.size());
  for (const Child& c : children_)
    out.push_back(
        ChildInfo{c.spec.id, c.actor, c.status, c.spec.restart, c.spec.shutdown, c.spec.kind, c.restarts});
  return out;
}

ChildCounts SupervisorCore::count_children() const {
  ChildCounts n;
  n.specs = children_.size();
  for (const Child& c : children_) {
    if (c.actor) ++n.active;
    (c.spec.kind == ChildKind::supervisor ? n.supervisors : n.workers) += 1;
  }
  return n;
}

Task<> SupervisorCore::on_event(Ctx& ctx, const SupervisionEvent& event) {
  if (const auto* t = event.get<ActorTerminated>())
    return on_exit(ctx, t->actor, ActorExit{t->kind, t->reason});
  if (const auto* f = event.get<ActorFailed>())
    return on_exit(ctx, f->actor, ActorExit{ExitKind::failed, f->error});
  return {};
}

void SupervisorCoreDeleter::operator()(SupervisorCore* core) const noexcept {
  delete core;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// The actor's hooks

Supervisor::State Supervisor::pre_start(Context<Supervisor>& ctx, SupervisorSpec spec) {
  State core(new detail::SupervisorCore(ctx, std::move(spec)));
  core->start(ctx);
  return core;
}

// The core answers at once and returns a Task only for what must wait (a child's shutdown, giving
// up). The Task is a named local: GCC 12 mishandles temporaries that live across a co_await.
Task<> Supervisor::handle(Context<Supervisor>& ctx, SupervisorMessage message, State& state) {
  Task<> rest = state->on_request(ctx, std::move(message));
  if (rest.valid()) co_await rest;
}

Task<> Supervisor::handle_supervisor_event(Context<Supervisor>& ctx, const SupervisionEvent& event,
                                           State& state) {
  Task<> rest = state->on_event(ctx, event);
  if (rest.valid()) co_await rest;
}

Task<> Supervisor::post_stop(Context<Supervisor>&, State& state) {
  Task<> shutting = state->shutdown_all();
  co_await shutting;
}

// ---------------------------------------------------------------------------------------------
// Handles and helpers

namespace {
/// Sends `Request{field, reply}` to the supervisor and returns the pending call for its answer.
template <class Request, class T, class Field>
PendingCall<Expected<T, SupervisorError>> ask(const SupervisorRef& supervisor, Field field,
                                              Duration timeout) {
  return supervisor.call(
      [&](Reply<Expected<T, SupervisorError>> r) {
        return Request{std::move(field), std::move(r)};
      },
      timeout);
}
}  // namespace

SupervisorRef::Pending<ActorCell> SupervisorRef::start_child(ChildSpec spec, Duration timeout) const {
  return ask<supervisor_request::StartChild, ActorCell>(*this, std::move(spec), timeout);
}

SupervisorRef::Pending<void> SupervisorRef::terminate_child(std::string id, Duration timeout) const {
  return ask<supervisor_request::TerminateChild, void>(*this, std::move(id), timeout);
}

SupervisorRef::Pending<ActorCell> SupervisorRef::restart_child(std::string id, Duration timeout) const {
  return ask<supervisor_request::RestartChild, ActorCell>(*this, std::move(id), timeout);
}

SupervisorRef::Pending<void> SupervisorRef::delete_child(std::string id, Duration timeout) const {
  return ask<supervisor_request::DeleteChild, void>(*this, std::move(id), timeout);
}

PendingCall<std::vector<ChildInfo>> SupervisorRef::which_children(Duration timeout) const {
  return call(rpc<supervisor_request::WhichChildren>, timeout);
}

PendingCall<ChildCounts> SupervisorRef::count_children(Duration timeout) const {
  return call(rpc<supervisor_request::CountChildren>, timeout);
}

Expected<SupervisorRef, SpawnError> start_supervisor(System& system, SupervisorSpec spec,
                                                     SpawnOptions options) {
  auto ref = system.spawn<Supervisor>(std::move(options), std::move(spec));
  if (!ref) return unexpected(ref.error());
  return SupervisorRef(*ref);
}

Expected<SupervisorRef, SpawnError> start_supervisor(System& system, const ActorCell& parent,
                                                     SupervisorSpec spec, SpawnOptions options) {
  auto ref = system.spawn_linked<Supervisor>(parent, std::move(options), std::move(spec));
  if (!ref) return unexpected(ref.error());
  return SupervisorRef(*ref);
}

ChildSpec supervisor_child(std::string id, SupervisorSpec spec, SpawnOptions options) {
  ChildSpec child = actorscope::child<Supervisor>(std::move(id), std::move(spec), std::move(options));
  child.kind = ChildKind::supervisor;
  child.shutdown = Shutdown::infinity();
  return child;
}

}  // namespace actorscope
