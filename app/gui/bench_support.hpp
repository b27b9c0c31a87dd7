// What the observatory's benchmark programs (observatory_framebench, _scrubbench, _comparebench)
// share: their command line, parsed and refused the way every `actorscope` command's is; the token
// rings' shape options; and the offscreen platform they run on unless the user chose one.
#pragma once

#include "gui/ring_workload.hpp"

#include "cli/args.hpp"

#include <QtGlobal>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace actorscope::gui {

/// Parses a benchmark's arguments with `parse(Args&)`, which returns an exit status when the
/// program should end at once (0 after --help) and nullopt to go on; then refuses what nobody
/// asked for. A usage mistake is printed and gives 2. nullopt: run the benchmark.
template <class Parse>
std::optional<int> parseBenchArgs(const char* name, int argc, char** argv, Parse&& parse) {
  try {
    cli::Args a(name, std::vector<std::string>(argv + 1, argv + argc));
    if (std::optional<int> exit = parse(a)) return exit;
    a.finish();
  } catch (const cli::ArgError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return std::nullopt;
}

/// --rings R, --nodes N, --tokens T over `shape`'s values.
inline RingShape ringShapeOptions(cli::Args& a, RingShape shape) {
  shape.rings =
      static_cast<std::size_t>(a.integer("rings", 1, 10000).value_or(static_cast<std::int64_t>(shape.rings)));
  shape.nodes = static_cast<std::size_t>(
      a.integer("nodes", 2, 100000).value_or(static_cast<std::int64_t>(shape.nodes)));
  shape.tokens = static_cast<std::size_t>(
      a.integer("tokens", 1, 1000).value_or(static_cast<std::int64_t>(shape.tokens)));
  return shape;
}

/// The benchmarks draw offscreen unless QT_QPA_PLATFORM says otherwise. Call before QApplication.
inline void offscreenUnlessChosen() {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
}

}  // namespace actorscope::gui
