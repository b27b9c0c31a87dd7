// The benchmark suite as a library: the registry, the runner, the statistics and the JSON report.
// Link actorscope::benchmarks. The SQLite history of runs is actorscope::bench_history
// (<actorscope/benchmarks/history_store.hpp>, in storage/bench_history).
#pragma once

#include <actorscope/benchmarks/benchmark.hpp>
#include <actorscope/benchmarks/json_report.hpp>
#include <actorscope/benchmarks/machine_info.hpp>
#include <actorscope/benchmarks/runner.hpp>
#include <actorscope/benchmarks/statistics.hpp>
