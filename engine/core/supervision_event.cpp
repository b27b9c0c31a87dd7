// SupervisionEvent helpers and the default supervision policy.
#include <actorscope/actor.hpp>
#include <actorscope/supervision_event.hpp>

namespace actorscope {

namespace {
std::string who(const ActorCell& a) {
  std::string s = "actor " + a.id().to_string();
  if (!a.name().empty()) s += " (" + a.name() + ")";
  return s;
}
}  // namespace

ActorCell SupervisionEvent::actor() const {
  return std::visit(
      [](const auto& e) -> ActorCell {
        if constexpr (requires { e.actor; }) {
          return e.actor;
        } else {
          return ActorCell();
        }
      },
      static_cast<const variant&>(*this));
}

std::string SupervisionEvent::describe() const {
  if (auto* e = get<ActorStarted>()) return who(e->actor) + " started";
  if (auto* e = get<ActorTerminated>())
    return who(e->actor) + " terminated" + (e->reason.empty() ? "" : ": " + e->reason);
  if (auto* e = get<ActorFailed>()) return who(e->actor) + " failed: " + e->error;
  if (auto* e = get<ProcessGroupChanged>()) {
    std::string s = std::to_string(e->members.size()) + " actor(s) ";
    s += e->change == ProcessGroupChanged::Change::joined ? "joined" : "left";
    return s + " group \"" + e->group + "\" in scope \"" + e->scope + "\"";
  }
  if (auto* e = get<ActorDown>()) {
    std::string s = who(e->actor) + " is down (" + std::string(to_string(e->exit.kind));
    return s + (e->exit.reason.empty() ? ")" : "): " + e->exit.reason);
  }
  return "unknown supervision event";
}

namespace detail {
// Only a child's exit stops the supervisor. A monitor's ActorDown and a group change are news about
// actors this one merely watches, so they never stop it.
void default_supervision(CellCore& self, const SupervisionEvent& event) {
  if (event.is<ActorTerminated>() || event.is<ActorFailed>()) self.request_stop("supervisor stopped because " + event.describe());
}
}  // namespace detail

}  // namespace actorscope
