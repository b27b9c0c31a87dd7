// The subcommand table and the dispatcher shared by main() and the tests.
#include "cli/command.hpp"

#include "actorscope_version.hpp"  // generated at build time (app/CMakeLists.txt)
#include "cli/args.hpp"

#include <actorscope/runtime.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <vector>

namespace actorscope::cli {

int run_runtimes(std::vector<std::string> args);
// The other commands, each in its own file (app/cli/<name>_command.cpp).
const Command& scenarios_command();
const Command& record_command();
const Command& inspect_command();
const Command& export_command();
const Command& bench_command();
const Command& diff_command();
const Command& compare_command();

namespace {

int run_help(std::vector<std::string> args);

int (*open_handler)(std::vector<std::string>) = nullptr;

int run_open(std::vector<std::string> args) {
  if (open_handler == nullptr) {
    std::fprintf(stderr, "actorscope open: this program has no observatory to open a recording in\n");
    return 1;
  }
  return open_handler(std::move(args));
}

constexpr std::string_view kOpenUsage =
    "usage: actorscope open FILE.db [--session N] [--at T] [--theme system|light|dark]\n"
    "       actorscope FILE.db ...   (the same: a first argument that is a file, or ends in .db)\n"
    "\n"
    "Opens the observatory on a recording, read-only: a timeline of the whole session, and every view\n"
    "showing the state at its cursor. A recording still being written (a program with an as::Recorder\n"
    "attached) is followed as it grows.\n"
    "\n"
    "  --session N  the session to replay; a file with several asks which one without it\n"
    "  --at T       where the cursor starts, from the session's start: 1.5 (seconds), 1.5s, 250ms, 2m\n"
    "\n"
    "Pictures of a replay without a display: actorscope --screenshot DIR --open FILE.db --at T\n";

const std::vector<Command>& table() {
  static const std::vector<Command> list = {
      {"help", "show the commands, or one command's usage", "usage: actorscope help [COMMAND]\n", run_help},
      {"open", "replay a recording in the observatory (also: actorscope FILE.db)", kOpenUsage, run_open},
      {"runtimes", "list the runtimes this build can run actors on",
       "usage: actorscope runtimes\n\nPrints the runtime names that make_runtime() and --runtime accept.\n",
       run_runtimes},
      scenarios_command(),
      record_command(),
      inspect_command(),
      export_command(),
      diff_command(),
      compare_command(),
      bench_command(),
  };
  return list;
}

void print_overview(std::FILE* to) {
  std::fprintf(to, "usage: actorscope [COMMAND] [OPTIONS]\n\nCommands:\n");
  for (const Command& c : commands())
    std::fprintf(to, "  %-12.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  std::fprintf(to, "\n'actorscope COMMAND --help' shows the options of one command; 'actorscope --version' the\n"
                  "version.\n");
}

const Command* find(std::string_view name) {
  for (const Command& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

int run_help(std::vector<std::string> args) {
  Args a("help", std::move(args));
  auto pos = a.positionals();
  a.finish(1, "one command name");
  if (pos.empty()) {
    print_overview(stdout);
    return 0;
  }
  const Command* c = find(pos.front());
  if (c == nullptr) throw a.error("there is no command \"" + pos.front() + "\"");
  std::fwrite(c->usage.data(), 1, c->usage.size(), stdout);
  return 0;
}

}  // namespace

int run_runtimes(std::vector<std::string> args) {
  Args a("runtimes", std::move(args));
  a.finish();
  for (const std::string& name : runtime_names()) std::printf("%s\n", name.c_str());
  return 0;
}

void set_open_handler(int (*open)(std::vector<std::string> args)) { open_handler = open; }

std::span<const Command> commands() {
  return table();
}

int dispatch(std::vector<std::string> argv) {
  if (argv.empty() || argv.front() == "--help" || argv.front() == "-h") {
    print_overview(stdout);
    return 0;
  }
  if (argv.front() == "--version") {
    std::printf("actorscope %s (git %s)\n", ACTORSCOPE_VERSION, ACTORSCOPE_GIT_REVISION);
    return 0;
  }
  const std::string name = argv.front();
  const Command* c = find(name);
  if (c == nullptr) {
    std::fprintf(stderr, "actorscope: unknown command \"%s\"\n\n", name.c_str());
    print_overview(stderr);
    return 2;
  }
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  for (const std::string& a : rest) {
    if (a == "--help" || a == "-h") {
      std::fwrite(c->usage.data(), 1, c->usage.size(), stdout);
      return 0;
    }
  }
  try {
    return c->run(std::move(rest));
  } catch (const ArgError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "actorscope %s: %s\n", name.c_str(), e.what());
    return 1;
  }
}

}  // namespace actorscope::cli
