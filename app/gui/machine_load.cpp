// Reading the machine's load from /proc.
#include "gui/machine_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace actorscope::gui {

CpuCounters readCpuCounters() {
  CpuCounters c;
  c.wall = std::chrono::steady_clock::now();
  std::ifstream stat("/proc/stat");
  std::string line;
  if (!stat || !std::getline(stat, line) || line.rfind("cpu ", 0) != 0) return c;
  // cpu  user nice system idle iowait irq softirq steal ...
  std::istringstream in(line.substr(4));
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  const long hz = sysconf(_SC_CLK_TCK);
  if (!in || hz <= 0) return c;
  c.busySeconds = static_cast<double>(user + nice + system + irq + softirq + steal) / static_cast<double>(hz);
  rusage self{};
  if (getrusage(RUSAGE_SELF, &self) != 0) return c;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  c.selfSeconds = seconds(self.ru_utime) + seconds(self.ru_stime);
  c.valid = true;
  return c;
}

double othersCores(const CpuCounters& before, const CpuCounters& after) {
  if (!before.valid || !after.valid) return -1;
  const double wall = std::chrono::duration<double>(after.wall - before.wall).count();
  if (wall <= 0.05) return -1;  // the kernel counts in ticks (10 ms): too short to say
  const double others = (after.busySeconds - before.busySeconds) - (after.selfSeconds - before.selfSeconds);
  return std::max(0.0, others / wall);
}

double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  if (!(in >> one)) return -1;
  return one;
}

unsigned coreCount() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace actorscope::gui
