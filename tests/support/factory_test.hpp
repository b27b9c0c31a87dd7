// What the factory tests share: a worker that records each job (and can be held on a gate, made
// to fail, or asked for an answer), the spec that builds it, the factory's gauges, and a worker
// whose jobs fail a given number of times (for retries).
#pragma once

#include "engine_test.hpp"

#include <actorscope/observe/stats_poller.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace factory_test {

using namespace engine_test;

/// A job's message: hold on `gate` (if any), then fail or answer `reply` (if asked).
struct Work {
  Gate* gate = nullptr;
  bool fail = false;
  int payload = 0;
  std::optional<as::Reply<int>> reply{};
  bool stop_self = false;  // the worker stops itself after this job
};

/// Records "wN start K" and "wN done K" for each job, and its own building and stopping.
struct Recorder {
  using Key = int;
  using Message = Work;
  using State = int;  // jobs done by this incarnation
  Probe* probe = nullptr;

  int pre_start(as::WorkerContext<Recorder>& ctx) {
    probe->record("up w" + std::to_string(ctx.worker_id()));
    return 0;
  }
  void post_start(as::WorkerContext<Recorder>& ctx, int&) {
    probe->record("started w" + std::to_string(ctx.worker_id()));
  }
  as::Task<> handle(as::WorkerContext<Recorder>& ctx, as::Job<int, Work> job, int& done) {
    const std::string me = "w" + std::to_string(ctx.worker_id());
    probe->record(me + " start " + std::to_string(job.key));
    if (job.options.submitted == as::TimePoint{}) probe->record("a job without its dispatch time");
    if (job.message.gate != nullptr) co_await job.message.gate->opened();
    if (job.message.fail) throw std::runtime_error("job " + std::to_string(job.key) + " failed on purpose");
    if (job.message.reply) job.message.reply->send(job.key * 10 + static_cast<int>(ctx.worker_id()));
    ++done;
    if (job.message.stop_self) ctx.actor().stop("done for");
    probe->record(me + " done " + std::to_string(job.key));
  }
  void post_stop(as::WorkerContext<Recorder>& ctx, int&) {
    probe->record("stop w" + std::to_string(ctx.worker_id()));
  }
};

using Pool = as::FactoryRef<int, Work>;

inline as::FactorySpec<Recorder> spec(Probe& probe, as::Routing routing, std::size_t workers) {
  as::FactorySpec<Recorder> s;
  s.workers = workers;
  s.routing = routing;
  s.builder = [&probe](as::WorkerId id) {
    probe.record("build w" + std::to_string(id));
    return Recorder{&probe};
  };
  return s;
}

inline Work held(Gate& g) {
  Work w;
  w.gate = &g;
  return w;
}

/// The keys worker `id` started, in its order (workers run at once, so only each one's own order
/// is fixed).
inline std::vector<int> keys_of(const Probe& probe, int id) {
  const std::string prefix = "w" + std::to_string(id) + " start ";
  std::vector<int> out;
  for (const std::string& e : probe.events())
    if (e.rfind(prefix, 0) == 0) out.push_back(std::stoi(e.substr(prefix.size())));
  return out;
}
using Keys = std::vector<int>;

struct Gauges {
  std::size_t depth, capacity, active;
  friend bool operator==(const Gauges&, const Gauges&) = default;
};
template <class K, class M>
Gauges gauges(const as::FactoryRef<K, M>& pool) {
  return {pool.queue_depth(kTimeout).get().value(), pool.available_capacity(kTimeout).get().value(),
          pool.active_workers(kTimeout).get().value()};
}
inline char* toString(const Gauges& g) {
  const std::string s = "{depth " + std::to_string(g.depth) + ", capacity " + std::to_string(g.capacity) +
                        ", active " + std::to_string(g.active) + "}";
  return qstrdup(s.c_str());
}

/// After a worker records "done", its report to the factory is still on its way: ask the gauges
/// again (each ask waits for the factory's answer) until they match, for at most kTimeout.
template <class K, class M>
Gauges gauges_become(as::System& sys, const as::FactoryRef<K, M>& pool, Gauges want) {
  const as::TimePoint deadline = as::deadline_after(sys.runtime().now(), kTimeout);
  Gauges now = gauges(pool);
  while (!(now == want) && sys.runtime().now() < deadline) now = gauges(pool);
  return now;
}

/// The factory's counters now, as a poller reads them (a factory that has ended: its final
/// counters, which a poller made before the end keeps for its next poll).
template <class K, class M>
as::FactoryStats counters_of(as::observe::StatsPoller& poller, const as::FactoryRef<K, M>& pool) {
  for (const as::FactoryStats& s : poller.poll_factories())
    if (s.factory == pool.id()) return s;
  return {};
}

/// Sends the System's log lines into `probe` as "log <line>".
inline void log_into(Probe& probe, as::System& sys) {
  sys.set_log_sink([&probe](const as::LogRecord& r) { probe.record("log " + std::string(r.text)); });
}

/// A job that fails on its first `fails` runs and then succeeds; its first run waits on `gate`
/// (if any). Copyable, so that a factory can run it again.
struct Attempts {
  int fails = 0;
  Gate* gate = nullptr;
};

/// Records "try K" for every run of job K (counted across the worker's incarnations by the
/// probe), and "done K" when one succeeds.
struct Flaky {
  using Key = int;
  using Message = Attempts;
  Probe* probe = nullptr;
  as::Task<> handle(as::WorkerContext<Flaky>&, as::Job<int, Attempts> job, std::monostate&) {
    const std::string key = std::to_string(job.key);
    probe->record("try " + key);
    const std::size_t run = probe->count("try " + key);
    if (run == 1 && job.message.gate != nullptr) co_await job.message.gate->opened();
    if (run <= static_cast<std::size_t>(job.message.fails))
      throw std::runtime_error("job " + key + " failed on run " + std::to_string(run));
    probe->record("done " + key);
  }
};

/// The probe's "try" and "done" lines, in order.
inline std::vector<std::string> runs(const Probe& probe) {
  std::vector<std::string> out;
  for (const std::string& e : probe.events())
    if (e.rfind("try ", 0) == 0 || e.rfind("done ", 0) == 0) out.push_back(e);
  return out;
}

inline as::FactorySpec<Flaky> flaky_spec(Probe& probe, as::System& sys) {
  log_into(probe, sys);
  as::FactorySpec<Flaky> s;
  s.workers = 1;
  s.builder = [&probe](as::WorkerId) { return Flaky{&probe}; };
  return s;
}

}  // namespace factory_test
