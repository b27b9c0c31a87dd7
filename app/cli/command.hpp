// The `actorscope` subcommands: one table, so `actorscope help` and the dispatcher can never
// disagree about what exists. Each command lives in its own file under app/cli/.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope::cli {

struct Command {
  std::string_view name;
  /// One line: what it does.
  std::string_view summary;
  /// The full usage text, printed by `actorscope <name> --help`.
  std::string_view usage;
  /// Runs with the arguments after the command name; returns the process exit code.
  int (*run)(std::vector<std::string> args);
};

/// Every subcommand, in the order `actorscope help` lists them.
std::span<const Command> commands();

/// `actorscope open FILE`: the observatory replays the recording. The command-line library has no
/// GUI: the program registers how to open one (main.cpp); without it, `open` says it cannot.
void set_open_handler(int (*open)(std::vector<std::string> args));

/// Runs `actorscope <argv...>` (argv without the program name); returns the exit code. Usage
/// mistakes (ArgError) print the message and return 2; other failures print and return 1.
int dispatch(std::vector<std::string> argv);

}  // namespace actorscope::cli
