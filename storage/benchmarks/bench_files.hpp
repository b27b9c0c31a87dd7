// What the recording and replay benchmarks share: a temporary directory for their files, and
// figures written for people.
#pragma once

#include <actorscope/benchmarks/benchmark.hpp>
#include <actorscope/detail/format.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace actorscope::recording_benchmarks {

/// A fresh directory under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "actorscope-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::string m = "cannot make a temporary directory from ";
      m += pattern;
      throw bench::WorkloadError(m);
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path file(const char* name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// 1234567 as "1,234,567".
using actorscope::detail::with_commas;

}  // namespace actorscope::recording_benchmarks
