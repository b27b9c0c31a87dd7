// Scenarios to workloads.
#include "gui/builtin_workloads.hpp"

#include "scenarios/scenario.hpp"

namespace actorscope::gui {

Workloads builtinWorkloads() {
  Workloads out;
  for (const scenarios::Scenario* s : scenarios::all()) {
    Workload w;
    w.name = std::string(s->name());
    w.summary = std::string(s->summary());
    w.start = [s](System& system, std::uint64_t seed) { s->start(system, seed); };
    w.demoMessage = [s](const ActorCell& actor) { return s->demo_message(actor); };
    w.sendDemoMessage = [s](const ActorCell& actor) { return s->send_demo_message(actor); };
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace actorscope::gui
