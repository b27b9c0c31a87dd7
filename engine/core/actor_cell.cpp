// ActorCell: the untyped handle's operations, forwarded to the cell and its System.
#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/detail/timers.hpp>

namespace actorscope {

namespace {
const std::string kNoName;

bool wait_for_exit(detail::CellCore& c, Duration timeout, std::string_view operation) {
  Runtime& rt = c.runtime();
  return c.completion().wait_until(rt, deadline_after(rt.now(), timeout), operation);
}
}  // namespace

ActorCell::ActorCell() noexcept = default;
ActorCell::ActorCell(Ref<detail::CellCore> cell) noexcept : cell_(std::move(cell)) {}
ActorCell::ActorCell(const ActorCell&) noexcept = default;
ActorCell::ActorCell(ActorCell&&) noexcept = default;
ActorCell& ActorCell::operator=(const ActorCell&) noexcept = default;
ActorCell& ActorCell::operator=(ActorCell&&) noexcept = default;
ActorCell::~ActorCell() = default;

ActorId ActorCell::id() const noexcept { return cell_ ? cell_->id() : ActorId{}; }
const std::string& ActorCell::name() const noexcept { return cell_ ? cell_->name() : kNoName; }
std::string_view ActorCell::type_name() const noexcept { return cell_ ? cell_->type_name() : std::string_view(); }
ActorStatus ActorCell::status() const noexcept { return cell_ ? cell_->status() : ActorStatus::stopped; }

std::optional<ActorExit> ActorCell::exit() const {
  if (!cell_ || !cell_->is_finished()) return std::nullopt;
  return cell_->result().value();
}

ActorStats ActorCell::stats() const { return cell_ ? cell_->stats() : ActorStats{}; }

void ActorCell::stop(std::string reason) const { cell_->request_stop(std::move(reason)); }
void ActorCell::kill() const { cell_->request_kill(); }
bool ActorCell::drain() const { return cell_->request_drain(); }

bool ActorCell::wait(Duration timeout) const { return wait_for_exit(*cell_, timeout, "ActorCell::wait"); }

bool ActorCell::stop_and_wait(Duration timeout, std::string reason) const {
  if (detail::this_thread_runs_actors()) throw BlockingWaitError("stop_and_wait");
  cell_->request_stop(std::move(reason));
  return wait_for_exit(*cell_, timeout, "stop_and_wait");
}

bool ActorCell::kill_and_wait(Duration timeout) const {
  if (detail::this_thread_runs_actors()) throw BlockingWaitError("kill_and_wait");
  cell_->request_kill();
  return wait_for_exit(*cell_, timeout, "kill_and_wait");
}

bool ActorCell::drain_and_wait(Duration timeout) const {
  if (detail::this_thread_runs_actors()) throw BlockingWaitError("drain_and_wait");
  cell_->request_drain();
  return wait_for_exit(*cell_, timeout, "drain_and_wait");
}

JoinHandle<ActorExit> ActorCell::join_handle() const { return JoinHandle<ActorExit>(Ref<JoinState<ActorExit>>(cell_.get())); }

Expected<void, LinkError> ActorCell::link(const ActorCell& supervisor) const {
  return cell_->system().link(*cell_, *supervisor.cell_);
}

bool ActorCell::unlink(const ActorCell& supervisor) const {
  return supervisor.cell_ && cell_->system().unlink(*cell_, *supervisor.cell_);
}

ActorCell ActorCell::supervisor() const { return ActorCell(cell_->system().supervisor_of(*cell_)); }

std::vector<ActorCell> ActorCell::children() const { return cell_->system().children_of(*cell_); }

void ActorCell::stop_children(std::string reason) const {
  for (const ActorCell& child : children()) child.stop(reason);
}

bool ActorCell::stop_children_and_wait(Duration timeout, std::string reason) const {
  if (detail::this_thread_runs_actors()) throw BlockingWaitError("stop_children_and_wait");
  const std::vector<ActorCell> kids = children();
  for (const ActorCell& child : kids) child.stop(reason);
  Runtime& rt = cell_->runtime();
  const TimePoint deadline = deadline_after(rt.now(), timeout);
  bool all = true;
  for (const ActorCell& child : kids)
    all = child.cell_->completion().wait_until(rt, deadline, "stop_children_and_wait") && all;
  return all;
}

detail::CellCore& ActorCell::monitor_peer(const ActorCell& target, std::string_view operation) const {
  if (!cell_ || !target.cell_)
    throw MonitorError(std::string(operation) + ": an actor handle is empty; pass handles returned by spawn");
  if (cell_ == target.cell_)
    throw MonitorError(std::string(operation) + ": actor " + id().to_string() +
                       " cannot monitor itself; its supervisor or another actor can");
  if (&cell_->system() != &target.cell_->system())
    throw MonitorError(std::string(operation) + ": actor " + target.id().to_string() +
                       " belongs to another System; monitor it from an actor of its own System");
  return *target.cell_;
}

bool ActorCell::monitor(const ActorCell& target) const {
  detail::CellCore& t = monitor_peer(target, "monitor");
  return cell_->system().monitors().add(*cell_, t);
}

bool ActorCell::unmonitor(const ActorCell& target) const {
  detail::CellCore& t = monitor_peer(target, "unmonitor");
  return cell_->system().monitors().remove(*cell_, t);
}

std::vector<ActorCell> ActorCell::monitors() const {
  return cell_ ? cell_->system().monitors().observers_of(*cell_) : std::vector<ActorCell>{};
}

namespace {
// exit_after and kill_after: TimerCore's own deliver() does the work.
class ActionTimer final : public detail::TimerCore {
 public:
  ActionTimer(Kind kind, Ref<detail::CellCore> target, Duration delay)
      : TimerCore(kind, std::move(target), delay, MissedTick::burst) {}
};

TimerHandle start_action(const Ref<detail::CellCore>& cell, detail::TimerCore::Kind kind, Duration delay,
                         std::string_view operation) {
  if (!cell) throw TimerError(std::string(operation) + ": the actor handle is empty; pass a handle returned by spawn");
  return TimerHandle(detail::start_timer(make_ref<ActionTimer>(kind, cell, delay)));
}
}  // namespace

TimerHandle ActorCell::exit_after(Duration delay) const {
  return start_action(cell_, detail::TimerCore::Kind::exit, delay, "exit_after");
}

TimerHandle ActorCell::kill_after(Duration delay) const {
  return start_action(cell_, detail::TimerCore::Kind::kill, delay, "kill_after");
}

// The same actor, not merely the same id: ids are unique within one System, and two Systems may
// both have an actor 0.1.
bool operator==(const ActorCell& a, const ActorCell& b) noexcept { return a.cell_ == b.cell_; }

}  // namespace actorscope
