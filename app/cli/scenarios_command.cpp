// `actorscope scenarios`: the built-in demo scenarios, one line each.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "scenarios/scenario.hpp"

#include <cstdio>

namespace actorscope::cli {

namespace {

int run(std::vector<std::string> args) {
  Args a("scenarios", std::move(args));
  a.finish();
  for (const scenarios::Scenario* s : scenarios::all()) {
    const std::string name(s->name());
    const std::string summary(s->summary());
    std::printf("  %-12s %s\n", name.c_str(), summary.c_str());
  }
  std::printf("\nRecord one with: actorscope record --scenario NAME --out FILE.db\n");
  return 0;
}

}  // namespace

const Command& scenarios_command() {
  static const Command c{"scenarios", "list the built-in demo scenarios",
                         "usage: actorscope scenarios\n"
                         "\n"
                         "Lists the built-in demo scenarios that 'actorscope record --scenario NAME' runs, with one\n"
                         "line on what each shows. Every scenario is deterministic given --seed.\n",
                         run};
  return c;
}

}  // namespace actorscope::cli
