// MachineInfo: where a benchmark run happened (CPU, cores, OS, compiler) and which revision of the
// source it measured, so that results from different machines and commits are never confused.
#pragma once

#include <string>

namespace actorscope::bench {

struct MachineInfo {
  std::string cpu_model;  ///< /proc/cpuinfo "model name" ("unknown" elsewhere)
  unsigned cores = 0;     ///< std::thread::hardware_concurrency()
  std::string os;         ///< "Debian GNU/Linux 12 (bookworm), Linux 6.1.0-... x86_64"
  std::string compiler;   ///< "GCC 12.2.0"
  std::string build_type; ///< CMAKE_BUILD_TYPE of the benchmark library ("Release")
  std::string hostname;
};

/// Describes the machine this process runs on.
MachineInfo describe_machine();

/// `git describe --always --dirty` of the source tree at build time, or "unknown" when it was not
/// built from a git checkout.
std::string git_revision();

}  // namespace actorscope::bench
