// actorscope: the observatory when started without a command (or with only options), and the
// command-line tool when the first argument names a subcommand (app/cli/).
#include "cli/command.hpp"
#include "gui/builtin_workloads.hpp"
#include "gui/observatory.hpp"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
    std::fputs(actorscope::gui::kObservatoryUsage, stdout);
    std::fputs("\n", stdout);
    return actorscope::cli::dispatch({"help"});
  }
  if (!args.empty() && !args.front().starts_with("-")) return actorscope::cli::dispatch(std::move(args));
  return actorscope::gui::runObservatory(argc, argv, std::move(args), actorscope::gui::builtinWorkloads());
}
