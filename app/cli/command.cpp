// The subcommand table and the dispatcher shared by main() and the tests.
#include "cli/command.hpp"

#include "cli/args.hpp"

#include <actorscope/runtime.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

namespace actorscope::cli {

int run_runtimes(std::vector<std::string> args);
int run_bench(std::vector<std::string> args);

namespace {

int run_help(std::vector<std::string> args);

constexpr Command kCommands[] = {
    {"help", "show the commands, or one command's usage", "usage: actorscope help [COMMAND]\n", run_help},
    {"runtimes", "list the runtimes this build can run actors on",
     "usage: actorscope runtimes\n\nPrints the runtime names that make_runtime() and --runtime accept.\n",
     run_runtimes},
    {"bench", "run the benchmark suite on each runtime, side by side",
     "usage: actorscope bench [--runtime asio,qt] [--threads N] [--filter REGEX] [--quick] [--samples N]\n"
     "                        [--warm-up-ms N] [--idle-spin-us N] [--json FILE]\n"
     "                        [--history FILE | --no-history] [--list]\n"
     "\n"
     "Runs the benchmark suite (ractor's five core benchmarks, their fully quiescent variants, messaging,\n"
     "lifecycle, timers and memory) on each runtime, and prints one table per benchmark with the runtimes\n"
     "side by side, then a summary against ractor's figures. Progress goes to standard error. Each run is\n"
     "appended to the benchmark history (SQLite; see docs/RECORDING-FORMAT.md). Ctrl-C stops after the\n"
     "current sample and reports what has finished. Benchmarks never fail on a time.\n"
     "\n"
     "  --runtime LIST   comma-separated runtimes to run on (default: asio,qt)\n"
     "  --threads N      worker threads of each runtime (default: one per core)\n"
     "  --filter REGEX   only the benchmarks whose name contains a match (ECMAScript syntax)\n"
     "  --quick          fewer samples and a short warm-up: a full run stays under 2 minutes\n"
     "  --samples N      samples per benchmark (default: each benchmark's own, 3 to 30)\n"
     "  --warm-up-ms N   warm-up time per benchmark in ms; 0 skips it (default: each benchmark's own)\n"
     "  --idle-spin-us N let idle runtime threads and blocked waits spin N us before sleeping\n"
     "                   (RuntimeOptions::idle_spin; default 0)\n"
     "  --json FILE      also write the results as a JSON document (format in docs/PERFORMANCE.md)\n"
     "  --history FILE   the history file to append to\n"
     "                   (default: $XDG_DATA_HOME/actorscope/bench-history.db,\n"
     "                   or ~/.local/share/actorscope/bench-history.db)\n"
     "  --no-history     do not append this run to the history\n"
     "  --list           print the names of the (selected) benchmarks and exit\n"
     "\n"
     "Exit status: 0 when every benchmark ran, 1 when one could not run, 2 for a usage mistake,\n"
     "130 when interrupted.\n",
     run_bench},
};

void print_overview(std::FILE* to) {
  std::fprintf(to, "usage: actorscope [COMMAND] [OPTIONS]\n\nCommands:\n");
  for (const Command& c : commands())
    std::fprintf(to, "  %-12.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  std::fprintf(to, "\n'actorscope COMMAND --help' shows the options of one command.\n");
}

const Command* find(std::string_view name) {
  for (const Command& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

int run_help(std::vector<std::string> args) {
  Args a("help", std::move(args));
  auto pos = a.positionals();
  a.finish(1);
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

std::span<const Command> commands() { return kCommands; }

int dispatch(std::vector<std::string> argv) {
  if (argv.empty() || argv.front() == "--help" || argv.front() == "-h") {
    print_overview(stdout);
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
