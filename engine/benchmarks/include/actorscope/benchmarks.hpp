// The benchmark suite as a library: the registry, the runner, the statistics, the JSON report and
// the SQLite history. Link actorscope::benchmarks.
#pragma once

#include <actorscope/benchmarks/benchmark.hpp>
#include <actorscope/benchmarks/history_store.hpp>
#include <actorscope/benchmarks/json_report.hpp>
#include <actorscope/benchmarks/machine_info.hpp>
#include <actorscope/benchmarks/runner.hpp>
#include <actorscope/benchmarks/statistics.hpp>
