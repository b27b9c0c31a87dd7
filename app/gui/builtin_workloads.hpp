// The built-in demo scenarios (app/scenarios) as the observatory's workloads, with their demo
// messages for the "Send" action.
#pragma once

#include "gui/workload.hpp"

namespace actorscope::gui {

/// One workload per built-in scenario, in the order `actorscope scenarios` lists them.
Workloads builtinWorkloads();

}  // namespace actorscope::gui
