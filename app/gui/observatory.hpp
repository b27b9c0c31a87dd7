// runObservatory: `actorscope` without a subcommand. Parses the window's options, checks that a
// display is there (or explains what to do), then opens the main window on a live scenario, or
// takes headless screenshots with --screenshot.
#pragma once

#include "gui/workload.hpp"

#include <actorscope/runtime.hpp>

#include <optional>
#include <string>
#include <vector>

namespace actorscope::gui {

/// The options `actorscope` takes without a subcommand, for --help.
extern const char* const kObservatoryUsage;

/// Returns the process exit code: 0, 1 (could not run), 2 (a usage mistake). `needRecording`:
/// `actorscope open`, which must be given a recording.
int runObservatory(int argc, char** argv, std::vector<std::string> args, Workloads workloads,
                   bool needRecording = false);

/// --at's time: seconds ("1.5") or with a unit ("1.5s", "250ms", "800us", "2m"); nullopt if it is
/// not one (or negative).
std::optional<Duration> parseOffset(const std::string& text);

}  // namespace actorscope::gui
