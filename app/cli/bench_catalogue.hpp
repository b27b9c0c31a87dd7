// The benchmarks `actorscope bench` and the app's Benchmarks view choose from: the suite's built-in
// ones, then the recording measurements of storage/benchmarks, which the engine's benchmark library
// cannot know about.
#pragma once

#include <actorscope/benchmarks/benchmark.hpp>

#include <span>

namespace actorscope::cli {

std::span<const bench::Benchmark> bench_catalogue();

}  // namespace actorscope::cli
