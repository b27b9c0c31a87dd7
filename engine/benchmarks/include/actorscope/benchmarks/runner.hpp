// Runner: runs the selected benchmarks on each requested runtime (warm-up, then N samples) and
// gives back a RunReport. Progress and cancellation go through callbacks and a flag; the library
// never prints.
#pragma once

#include <actorscope/benchmarks/benchmark.hpp>
#include <actorscope/benchmarks/machine_info.hpp>
#include <actorscope/benchmarks/statistics.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace actorscope::bench {

/// The options make no sense (a filter that is not a regular expression or matches nothing, no
/// runtime, zero threads, ...). The message says what to change. An unknown runtime name is
/// reported as actorscope::UnknownRuntimeError instead, which lists the names this build knows.
class RunOptionsError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct RunOptions {
  /// Runtime names, in the order their columns appear. Each benchmark runs on each of them.
  std::vector<std::string> runtimes{"asio", "qt"};
  /// Worker threads of every runtime. 0: one per core.
  unsigned threads = 0;
  /// A regular expression (ECMAScript) searched for in benchmark names; empty selects all.
  std::string filter;
  /// Fewer samples and a shorter warm-up: a full run of everything stays under 2 minutes.
  bool quick = false;
  /// Samples per case; 0 keeps each benchmark's default (see BenchmarkInfo).
  unsigned samples = 0;
  /// Overrides each benchmark's warm-up time; zero disables the warm-up (smoke tests do).
  std::optional<std::chrono::milliseconds> warm_up;
  /// RuntimeOptions::idle_spin of every runtime (zero: the runtimes' default, no spinning).
  std::chrono::microseconds idle_spin{0};
  /// RuntimeOptions::wait_spin of every runtime: blocking waits outside the runtime (the driver
  /// thread's) spin this long before they sleep; idle workers do not. Zero: the default.
  std::chrono::microseconds wait_spin{0};
};

/// What the runner is doing; reported between samples, never inside a timed region.
struct Progress {
  enum class Phase : std::uint8_t { starting, warming_up, sampling, finished };
  Phase phase = Phase::starting;
  std::string benchmark;
  std::string runtime;
  /// 1-based index of the current case (benchmark × runtime) and how many there are.
  std::size_t case_index = 0;
  std::size_t case_count = 0;
  /// Samples taken so far in this case, and how many it will take.
  std::size_t sample = 0;
  std::size_t samples = 0;
};

/// The statistics of one named part of a sample (see Sample::phases).
struct PhaseStatistics {
  std::string name;
  Statistics statistics;
};

/// One benchmark on one runtime.
struct Result {
  std::string benchmark;
  std::string group;
  std::string runtime;
  unsigned threads = 0;
  Measure measure = Measure::time;
  std::string unit;
  double elements = 1;
  std::string element;
  /// Each sample's value in `unit`, in the order they were taken (warm-up excluded).
  std::vector<double> samples;
  Statistics statistics;
  /// For latency benchmarks: every individual observation (ns) of every sample, summarised.
  std::optional<Statistics> distribution;
  /// For benchmarks whose samples have named parts.
  std::vector<PhaseStatistics> phases;
  /// ractor's figure for the same benchmark, if any (copied from BenchmarkInfo).
  std::optional<ReferenceRange> reference;
  std::size_t warm_up_iterations = 0;
  /// What the workload said about how it ran (Workload::note); empty for most.
  std::string note;
  /// Non-empty when the workload could not run (a spawn failed, actors never finished). Such a
  /// result has no statistics. It is never a verdict on speed.
  std::string error;

  bool ok() const noexcept { return error.empty(); }
  /// The median per element (ns per message, ns per actor, bytes per actor).
  double median_per_element() const noexcept { return statistics.median / elements; }
  /// Whether a per-element figure means anything: not for rates and ratios.
  bool has_per_element() const noexcept { return measure != Measure::rate && measure != Measure::ratio; }
};

struct RunReport {
  /// When the run started, ISO 8601 UTC ("2026-12-03T08:00:52Z").
  std::string started_at;
  double seconds = 0;
  MachineInfo machine;
  std::string git_revision;
  RunOptions options;
  /// In run order: for each benchmark, one result per runtime (only the first runtime's for a
  /// benchmark that runs once).
  std::vector<Result> results;
  /// The cancel flag was raised: `results` holds the cases that finished before.
  bool cancelled = false;

  /// The result for (benchmark, runtime), or nullptr.
  const Result* find(std::string_view benchmark, std::string_view runtime) const;
};

class Runner {
 public:
  using ProgressCallback = std::function<void(const Progress&)>;

  /// Validates everything up front, so that a mistake costs no run: throws RunOptionsError for a
  /// bad filter, no runtime, a duplicated runtime or zero samples; UnknownRuntimeError for a
  /// runtime name no linked backend provides. Runs the built-in benchmarks (benchmarks()).
  explicit Runner(RunOptions options);
  /// The same, choosing from `catalogue` instead of the built-in list: a program that has
  /// benchmarks of its own runs them with the suite's (`actorscope bench` adds the recording
  /// measurements of storage/benchmarks). Names must be unique (RunOptionsError otherwise). The
  /// catalogue must outlive the Runner.
  Runner(RunOptions options, std::span<const Benchmark> catalogue);

  const RunOptions& options() const noexcept { return options_; }
  /// The benchmarks the filter selected, in run order.
  const std::vector<const Benchmark*>& selected() const noexcept { return selected_; }
  /// Cases = selected benchmarks × runtimes (one case only for a benchmark that runs once).
  std::size_t case_count() const noexcept;

  /// Called on the thread that called run(), between samples.
  void on_progress(ProgressCallback callback) { progress_ = std::move(callback); }
  /// Polled before every sample; once it is true the run stops and reports what it has.
  void set_cancel_flag(const std::atomic<bool>* flag) noexcept { cancel_ = flag; }
  /// Called on the calling thread about every `period` while a case runs (a GUI processes its
  /// events there). Without it, the calling thread simply blocks until the case is done.
  void on_idle(std::function<void()> callback, std::chrono::milliseconds period = std::chrono::milliseconds(30)) {
    idle_ = std::move(callback);
    idle_period_ = period;
  }

  /// Runs every case. Each case gets a fresh System, created and destroyed on the calling thread
  /// (the qt runtime must live on the Q(Core)Application's thread when there is one); its samples
  /// run on a separate driver thread, an ordinary thread outside the runtime, the way a program's
  /// main thread would drive actors.
  RunReport run();

 private:
  RunOptions options_;
  std::vector<const Benchmark*> selected_;
  ProgressCallback progress_;
  std::function<void()> idle_;
  std::chrono::milliseconds idle_period_{30};
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace actorscope::bench
