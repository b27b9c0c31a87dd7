// Built by installer/test with nothing but pkg-config's flags:
//   c++ -std=c++20 main.cpp $(pkg-config --cflags --libs actorscope-qt actorscope-storage)
// The qt runtime registers itself only if its archive is linked whole; storage must link and throw
// its own error for a missing file.
#include <actorscope/runtime.hpp>
#include <actorscope/storage/recording_error.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <algorithm>
#include <cstdio>

int main() {
  const auto names = actorscope::runtime_names();
  for (const char* name : {"asio", "qt"}) {
    if (std::ranges::find(names, name) == names.end()) {
      std::printf("FAILED: runtime %s is not linked in\n", name);
      return 1;
    }
  }
  try {
    actorscope::SessionReader reader("/nonexistent/actorscope-pkg-config-check.db");
    std::printf("FAILED: opened a file that does not exist\n");
    return 1;
  } catch (const actorscope::RecordingError&) {
  }
  std::printf("pkg-config: the asio and qt runtimes and storage link\n");
  return 0;
}
