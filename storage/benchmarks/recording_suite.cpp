// The recording measurements wrapped as suite benchmarks: each workload owns a temporary
// directory for its files and turns one measurement into one Sample.
#include "recording_suite.hpp"
#include "bench_files.hpp"

#include "recording_benchmarks.hpp"
#include "replay_benchmarks.hpp"

#include <actorscope/system.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace actorscope::recording_benchmarks {

namespace {

using bench::Benchmark;
using bench::BenchmarkInfo;
using bench::Measure;
using bench::Sample;
using bench::Workload;
using bench::WorkloadError;

std::uint64_t median_of(std::vector<std::uint64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// -- recorder throughput -------------------------------------------------------------------------

constexpr std::uint64_t kThroughputEvents = 500'000;

class Throughput final : public Workload {
 public:
  Sample sample() override {
    ThroughputSample t;
    try {
      t = recorder_throughput(dir_.file("throughput.db"), kThroughputEvents);
    } catch (const MeasurementError& e) {
      throw WorkloadError(e.what());
    }
    if (t.dropped != 0) {
      std::string m = "the recorder dropped ";
      m += with_commas(t.dropped);
      m += " events: the figure would not be at zero drops";
      throw WorkloadError(m);
    }
    Sample s;
    s.value = t.events_per_second();
    s.phases.emplace_back("all events committed", static_cast<double>(t.ns));
    return s;
  }

 private:
  TempDir dir_;
};

Benchmark throughput() {
  BenchmarkInfo i;
  i.name = "Recorder throughput at full detail (500000 events, zero drops)";
  i.group = "recording";
  i.description =
      "Feeds 500,000 synthetic full-detail events (message pairs with type names and timing, a spawn and an "
      "exit every 1,000) straight into a Recorder, never more than one buffer ahead of what it has "
      "committed; "
      "timed from the first event offered to the last one committed. The value is events per second; a "
      "sample "
      "with a dropped event fails. Independent of the runtime.";
  i.measure = Measure::rate;
  i.unit = "events/s";
  i.element = "run";
  i.runs_once = true;
  i.samples = 10;
  i.quick_samples = 3;
  i.warm_up = std::chrono::milliseconds(1);  // one run: the file system and SQLite's code are warm
  i.quick_warm_up = std::chrono::milliseconds(0);
  return {i, [](System&) { return std::make_unique<Throughput>(); }};
}

// -- the message loop at each detail level -------------------------------------------------------

constexpr std::uint64_t kLoopMessages = 100'000;

class LoopSlowdown final : public Workload {
 public:
  LoopSlowdown(System& sys, Detail detail) : sys_(sys), detail_(detail) {}

  Sample sample() override {
    // Bare and recording back to back, in alternating order, so that a change in the machine's
    // load between samples touches both sides of a ratio alike.
    const bool bare_first = (samples_++ % 2) == 0;
    MessageLoopSample bare, recorded;
    try {
      if (bare_first) bare = message_loop(sys_, std::nullopt, dir_.file("loop.db"), kLoopMessages);
      recorded = message_loop(sys_, detail_, dir_.file("loop.db"), kLoopMessages);
      if (!bare_first) bare = message_loop(sys_, std::nullopt, dir_.file("loop.db"), kLoopMessages);
    } catch (const MeasurementError& e) {
      throw WorkloadError(e.what());
    }
    if (bare.ns <= 0 || recorded.ns <= 0) throw WorkloadError("the message loop took no measurable time");
    recorded_.push_back(recorded.events_recorded);
    dropped_.push_back(recorded.events_dropped);
    Sample s;
    s.value = static_cast<double>(recorded.ns) / static_cast<double>(bare.ns);
    s.phases.emplace_back("nothing attached", static_cast<double>(bare.ns));
    s.phases.emplace_back("recording", static_cast<double>(recorded.ns));
    return s;
  }

  std::string note() const override {
    if (recorded_.empty()) return {};
    std::string n = "events a loop (median): ";
    n += with_commas(median_of(recorded_));
    n += " recorded, ";
    n += with_commas(median_of(dropped_));
    n += " dropped";
    return n;
  }

 private:
  System& sys_;
  Detail detail_;
  TempDir dir_;
  std::uint64_t samples_ = 0;
  std::vector<std::uint64_t> recorded_, dropped_;
};

Benchmark loop_slowdown(Detail detail) {
  const std::string_view level = to_string(detail);
  BenchmarkInfo i;
  // Built with += (GCC 12 at -O3 warns falsely about "literal" + std::string).
  i.name = "Message loop of 100000 messages recording at ";
  i.name += level;
  i.name += " (slowdown)";
  i.group = "recording";
  i.description =
      "ractor's single-actor loop (one actor casts itself the next message from each handler, 100,000 in "
      "all) "
      "on one worker thread, once with nothing attached and once with a Recorder at ";
  i.description += level;
  i.description +=
      " detail, back to back; timed from the spawn to the actor's exit. The value is the recording time over "
      "the bare time (the slowdown); the phases are the two times.";
  i.measure = Measure::ratio;
  i.unit = "×";
  i.element = "loop";
  i.threads = 1;
  i.samples = 15;
  i.quick_samples = 5;
  i.warm_up = std::chrono::milliseconds(500);
  i.quick_warm_up = std::chrono::milliseconds(1);  // one pair
  return {i, [detail](System& s) { return std::make_unique<LoopSlowdown>(s, detail); }};
}

// -- replay: open a big recording and get the state in the middle ---------------------------------

constexpr std::uint64_t kReplayEvents = 1'000'000;
constexpr std::uint64_t kQuickReplayEvents = 100'000;

class Replay final : public Workload {
 public:
  explicit Replay(std::uint64_t events) : events_(events) {
    try {
      file_ = make_replay_file(dir_.file("replay.db"), events);  // untimed setup, once per case
    } catch (const MeasurementError& e) {
      throw WorkloadError(e.what());
    }
  }

  Sample sample() override {
    const ReplaySample r = replay_state_at_middle(file_);
    applied_ = r.events_applied;
    Sample s;
    s.value = static_cast<double>(r.total_ns);
    s.phases.emplace_back("open", static_cast<double>(r.open_ns));
    s.phases.emplace_back("state_at", static_cast<double>(r.state_at_ns));
    return s;
  }

  std::string note() const override {
    std::string n;
    if (events_ != kReplayEvents) {
      n += "quick run: a recording of ";
      n += with_commas(events_);
      n += " events instead of ";
      n += with_commas(kReplayEvents);
      n += "; ";
    }
    n += "the state at the middle holds ";
    n += with_commas(applied_);
    n += " of ";
    n += with_commas(file_.events);
    n += " events, 9,999 of them folded after the keyframe before it";
    return n;
  }

 private:
  std::uint64_t events_;
  TempDir dir_;
  ReplayFile file_;
  std::uint64_t applied_ = 0;
};

Benchmark replay() {
  BenchmarkInfo i;
  i.name = "Opening a recording of 1000000 events and its state in the middle";
  i.group = "recording";
  i.description =
      "A recording of 1,000,000 synthetic full-detail events with a keyframe every 10,000 is made in the "
      "untimed "
      "setup (100,000 events in a quick run). Timed: opening it with a SessionReader and state_at a time in "
      "the "
      "middle, just before a keyframe, so that the most events there can be (9,999) are folded after the "
      "keyframe before it. Independent of the runtime.";
  i.element = "lookup";
  i.runs_once = true;
  i.samples = 20;
  i.quick_samples = 5;
  i.warm_up = std::chrono::milliseconds(1);  // one lookup
  i.quick_warm_up = std::chrono::milliseconds(1);
  Benchmark b{i, [](System&) { return std::make_unique<Replay>(kReplayEvents); }};
  b.make_quick = [](System&) { return std::make_unique<Replay>(kQuickReplayEvents); };
  return b;
}

}  // namespace

std::vector<bench::Benchmark> suite() {
  std::vector<Benchmark> v;
  v.push_back(throughput());
  for (Detail d : {Detail::lifecycle, Detail::sampled, Detail::full}) v.push_back(loop_slowdown(d));
  v.push_back(replay());
  for (Benchmark& b : replay_suite()) v.push_back(std::move(b));  // group "replay" (issue 20)
  return v;
}

}  // namespace actorscope::recording_benchmarks
