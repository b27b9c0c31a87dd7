// MachineLoad: how busy the machine was while something ran, from the kernel's counters (Linux
// /proc): the CPU time every program used, less this process's own, over the wall time, in cores;
// and the load average. The Benchmarks tab says so next to figures that a busy machine skews.
#pragma once

#include <chrono>

namespace actorscope::gui {

/// The counters at one instant. `valid` is false where /proc cannot be read (figures unknown).
struct CpuCounters {
  bool valid = false;
  std::chrono::steady_clock::time_point wall{};
  double busySeconds = 0;  ///< CPU time of every program on every core (not idle, not waiting on I/O)
  double selfSeconds = 0;  ///< CPU time of this process (all its threads)
};

CpuCounters readCpuCounters();

/// Cores that programs other than this one kept busy, on average, between two readings; negative
/// when unknown.
double othersCores(const CpuCounters& before, const CpuCounters& after);

/// The one-minute load average; negative when unknown.
double loadAverage();

/// The cores this machine has.
unsigned coreCount();

}  // namespace actorscope::gui
