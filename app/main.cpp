// actorscope: the observatory when started without a command (or with only options, or with a
// recording to replay), and the command-line tool when the first argument names a subcommand
// (app/cli/).
#include "cli/command.hpp"
#include "cli/compare_command.hpp"
#include "gui/compare_dialogs.hpp"
#include "gui/builtin_workloads.hpp"
#include "gui/observatory.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace {

int g_argc = 0;
char** g_argv = nullptr;

/// `actorscope open ...`: the observatory, which must be given a recording.
int openInObservatory(std::vector<std::string> args) {
  return actorscope::gui::runObservatory(g_argc, g_argv, std::move(args), actorscope::gui::builtinWorkloads(),
                                         /*needRecording=*/true);
}

/// `actorscope compare ...`, once parsed: the compare window (on a run, or on two recordings).
int compareInObservatory(const actorscope::cli::CompareRequest& request) {
  return actorscope::gui::runCompareCommand(g_argc, g_argv, request, actorscope::gui::builtinWorkloads());
}

/// A first argument that is no command but a recording: an existing file, or a name ending in .db
/// (a missing one then gets the observatory's "cannot open" dialog, not "unknown command").
bool namesRecording(const std::string& arg) {
  for (const actorscope::cli::Command& c : actorscope::cli::commands())
    if (c.name == arg) return false;  // a command, even beside a file of that name
  std::error_code ec;
  return arg.ends_with(".db") || std::filesystem::is_regular_file(arg, ec);
}

}  // namespace

int main(int argc, char** argv) {
  g_argc = argc;
  g_argv = argv;
  actorscope::cli::set_open_handler(openInObservatory);
  actorscope::cli::set_compare_handler(compareInObservatory);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
    std::fputs(actorscope::gui::kObservatoryUsage, stdout);
    std::fputs("\n", stdout);
    return actorscope::cli::dispatch({"help"});
  }
  if (!args.empty() && args.front() == "--version") return actorscope::cli::dispatch({"--version"});
  if (!args.empty() && !args.front().starts_with("-")) {
    if (namesRecording(args.front()))
      return actorscope::gui::runObservatory(argc, argv, std::move(args), actorscope::gui::builtinWorkloads());
    return actorscope::cli::dispatch(std::move(args));
  }
  return actorscope::gui::runObservatory(argc, argv, std::move(args), actorscope::gui::builtinWorkloads());
}
