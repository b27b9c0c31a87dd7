// Observation: what the hooks cost when nothing is attached. The single-actor message loop runs in
// two probe processes built from one source (probe/observe_probe.cpp), one against the engine
// with its hooks and one against the engine compiled with ACTORSCOPE_OBSERVE=0; a sample is the
// ratio of their times. Two processes, because one program cannot hold both builds of the engine.
#include "workload_support.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace actorscope::bench::detail {

namespace {

/// Runs `argv` (argv[0] is the program's path), waits for it and returns what it printed on
/// standard output. Throws WorkloadError if it cannot start or does not exit with status 0.
std::string run_capturing(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) throw WorkloadError(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    std::string m = "cannot run ";
    m += argv[0];
    m += ": ";
    m += std::strerror(rc);
    throw WorkloadError(m);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string m = argv[0];
    m += " failed (";
    if (WIFEXITED(status)) {
      m += "exit status ";
      m += std::to_string(WEXITSTATUS(status));
    } else {
      m += "killed by a signal";
    }
    m += "); its errors are on standard error";
    throw WorkloadError(m);
  }
  return out;
}

/// The median of the loop times a probe printed, after checking that it is the build we expect.
double probe_median(const std::string& path, const std::string& runtime, std::uint64_t messages,
                    unsigned loops, bool observe) {
  const std::string out = run_capturing({path, runtime, std::to_string(messages), std::to_string(loops)});
  std::istringstream in(out);
  std::string key;
  long long value = 0;
  std::vector<double> ns;
  int built_with = -1;
  while (in >> key >> value) {
    if (key == "observe") built_with = static_cast<int>(value);
    if (key == "ns") ns.push_back(static_cast<double>(value));
  }
  if (observe && built_with == 0)
    throw WorkloadError(
        "this build compiles the observation hooks out (ACTORSCOPE_WITH_OBSERVE=OFF): there is no hook to "
        "compare with a build without one");
  if (built_with != (observe ? 1 : 0) || ns.size() != loops) {
    std::string m = path;
    m += " printed something else than ";
    m += std::to_string(loops);
    m += " loop times of a build with observe=";
    m += observe ? "1" : "0";
    throw WorkloadError(m);
  }
  std::sort(ns.begin(), ns.end());
  return ns.size() % 2 == 1 ? ns[ns.size() / 2] : (ns[ns.size() / 2 - 1] + ns[ns.size() / 2]) / 2;
}

constexpr std::uint64_t kLoopMessages = 100000;

class DetachedHook final : public Workload {
 public:
  DetachedHook(System& sys, unsigned loops) : runtime_(sys.runtime().name()), loops_(loops) {
    for (const char* p : {ACTORSCOPE_OBSERVE_PROBE, ACTORSCOPE_OBSERVE_PROBE_COMPILED_OUT}) {
      if (!std::filesystem::exists(p)) {
        std::string m = "the observation probe ";
        m += p;
        m += " is not there: build the targets actorscope_observe_probe and "
             "actorscope_observe_probe_compiled_out (they are made with the benchmark suite)";
        throw WorkloadError(m);
      }
    }
  }

  Sample sample() override {
    // Alternate which build runs first, so that a change in the machine's load between the two
    // touches both sides of the ratios alike.
    const bool hooked_first = (taken_++ % 2) == 0;
    double hooked = 0, without = 0;
    if (hooked_first) hooked = probe_median(ACTORSCOPE_OBSERVE_PROBE, runtime_, kLoopMessages, loops_, true);
    without = probe_median(ACTORSCOPE_OBSERVE_PROBE_COMPILED_OUT, runtime_, kLoopMessages, loops_, false);
    if (!hooked_first) hooked = probe_median(ACTORSCOPE_OBSERVE_PROBE, runtime_, kLoopMessages, loops_, true);
    if (without <= 0) throw WorkloadError("the compiled-out loop took no measurable time");
    Sample s;
    s.value = hooked / without;
    s.phases.emplace_back("hook detached", hooked);
    s.phases.emplace_back("compiled out", without);
    return s;
  }

  std::string note() const override {
    std::string n = "each side: the median of ";
    n += std::to_string(loops_);
    n += " loops in a process of its own, after one untimed loop";
    return n;
  }

 private:
  std::string runtime_;
  unsigned loops_;
  std::uint64_t taken_ = 0;
};

Benchmark detached_hook() {
  BenchmarkInfo i;
  i.name = "Observation hook detached vs compiled out, message loop of 100000 messages";
  i.group = "observe";
  i.description =
      "ractor's single-actor loop (100,000 self-messages, one worker thread) in two processes built from one "
      "source: against the engine with its observation hooks and nothing attached, and against the engine "
      "compiled with ACTORSCOPE_OBSERVE=0. Each process times several loops after an untimed one; the value "
      "is the ratio of their medians (hooked over compiled out).";
  i.measure = Measure::ratio;
  i.unit = "×";
  i.element = "loop";
  i.threads = 1;
  // A 3% difference on a loop of 3–6 ms: many loops, many processes (3–4 s per runtime).
  i.samples = 20;
  i.quick_samples = 3;
  i.warm_up = std::chrono::milliseconds(0);  // each process warms itself up
  i.quick_warm_up = std::chrono::milliseconds(0);
  Benchmark b{i, [](System& s) { return std::make_unique<DetachedHook>(s, 15); }};
  b.make_quick = [](System& s) { return std::make_unique<DetachedHook>(s, 5); };
  return b;
}

}  // namespace

void add_observe_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(detached_hook());
}

}  // namespace actorscope::bench::detail
