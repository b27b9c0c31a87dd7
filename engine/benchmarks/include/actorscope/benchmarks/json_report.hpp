// JsonReport: a RunReport as a JSON document (the format is described in docs/PERFORMANCE.md), for
// tools, CI artefacts and comparisons between machines and commits.
#pragma once

#include <actorscope/benchmarks/runner.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace actorscope::bench {

/// The JSON file could not be opened or written. The message names the path and the reason.
class ReportWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The schema identifier at the top of every document, bumped when a field changes meaning.
inline constexpr const char* kJsonFormat = "actorscope-bench/1";

/// The report as a JSON document (UTF-8, pretty-printed).
std::string to_json(const RunReport& report);

/// A JSON output file, opened (and so checked) before a run starts, written after it.
class JsonReport {
 public:
  /// Opens `path` for writing now; throws ReportWriteError if that is impossible.
  explicit JsonReport(std::string path);
  ~JsonReport();
  JsonReport(const JsonReport&) = delete;
  JsonReport& operator=(const JsonReport&) = delete;

  const std::string& path() const noexcept { return path_; }
  /// Writes the whole document; throws ReportWriteError on a write error.
  void write(const RunReport& report);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace actorscope::bench
