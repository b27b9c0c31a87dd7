// The registry of built-in benchmarks, assembled once in run order.
#include "workload_support.hpp"

#include <algorithm>

namespace actorscope::bench {

std::span<const Benchmark> benchmarks() {
  static const std::vector<Benchmark> all = [] {
    std::vector<Benchmark> v;
    detail::add_core_benchmarks(v);
    detail::add_messaging_benchmarks(v);
    detail::add_idle_benchmarks(v);
    detail::add_lifecycle_benchmarks(v);
    detail::add_timer_benchmarks(v);
    detail::add_memory_benchmarks(v);
    detail::add_mailbox_benchmarks(v);
    detail::add_factory_benchmarks(v);
    detail::add_scaling_benchmarks(v);
    detail::add_observe_benchmarks(v);
    return v;
  }();
  return all;
}

const Benchmark* find_benchmark(std::string_view name) {
  auto all = benchmarks();
  auto it = std::find_if(all.begin(), all.end(), [&](const Benchmark& b) { return b.info.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace actorscope::bench
