// `actorscope compare`: compare mode from the command line. The command line library has no GUI,
// so this file only reads and checks the request (every mistake an ArgError that names the value
// and the choices, before any window opens); the program registers what runs it (main.cpp: the
// observatory's compare window), as it does for `open`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace actorscope::cli {

struct CompareRequest {
  /// Two recordings to compare (`actorscope compare A.db B.db`); empty: run a comparison.
  std::vector<std::string> files;
  /// Their sessions (0: the file's last session).
  std::int64_t session_a = 0, session_b = 0;
  // A comparison to run:
  std::string scenario;
  std::string runtime_a, runtime_b;
  unsigned threads_a = 2, threads_b = 2;
  double seconds = 5;
  bool concurrent = false;
  std::string record_a, record_b;  ///< "": a temporary file
  std::optional<std::string> theme;
};

/// Parses `actorscope compare ...` (ArgError on a mistake). Exposed for the tests.
CompareRequest parse_compare(std::vector<std::string> args);

/// What runs a parsed request (the observatory); returns the exit code.
void set_compare_handler(int (*run)(const CompareRequest& request));

}  // namespace actorscope::cli
