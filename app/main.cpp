// actorscope: the command-line tool (subcommands in app/cli/). The desktop observatory will open
// when it is started without a command.
#include "cli/command.hpp"

#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return actorscope::cli::dispatch(std::move(args));
}
