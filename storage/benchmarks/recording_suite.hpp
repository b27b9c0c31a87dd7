// The recording measurements of issue 5 as benchmarks of the suite (group "recording"), so that
// `actorscope bench` runs them with the others and reports them in its tables, JSON and history.
// The engine's benchmark library knows nothing of storage: a program adds these to the built-in
// list and hands the whole catalogue to bench::Runner.
#pragma once

#include <actorscope/benchmarks/benchmark.hpp>

#include <vector>

namespace actorscope::recording_benchmarks {

/// Recorder throughput at full detail (events/s, a sample fails if one event is dropped), the
/// slowdown of the single-actor message loop recording at each detail level (a ratio per
/// runtime), and opening a recording of 1,000,000 events to get the state in its middle (a
/// 100,000-event recording in a quick run; the result's note says so); then the replay
/// measurements of issue 20, group "replay" (replay_benchmarks.hpp).
std::vector<bench::Benchmark> suite();

}  // namespace actorscope::recording_benchmarks
