// Shared by the storage suites: a small workload that exercises every event kind the engine emits
// today (spawns, links, names, messages, failures, supervision, stops, kills), and files in a
// temporary folder. Waits are event-driven (Probe, blocking calls), never sleeps.
#pragma once

#include "engine_test.hpp"

#ifndef Q_MOC_RUN

#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <variant>

namespace recording_test {

using namespace engine_test;

struct Add {
  int n;
};
struct Crash {};
struct Total {
  as::Reply<int> reply;
};
using WorkerMsg = std::variant<Add, Crash, Total>;

struct Worker {
  using Message = WorkerMsg;
  using State = int;
  int pre_start(as::Context<Worker>&) { return 0; }
  void handle(as::Context<Worker>&, WorkerMsg m, int& total) {
    as::match(
        m, [&](Add& a) { total += a.n; },
        [&](Crash&) { throw std::runtime_error("worker crashed on purpose"); },
        [&](Total& t) { t.reply.send(total); });
  }
};

/// A supervisor that outlives its children's failures.
struct Tolerant {
  using Message = int;
  void handle(as::Context<Tolerant>&, int, std::monostate&) {}
  void handle_supervisor_event(as::Context<Tolerant>&, const as::SupervisionEvent&, std::monostate&) {}
};

/// Reports every message it handles ("tick") to a probe.
struct TickCounter {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<TickCounter>&, int, std::monostate&) { probe->record("tick"); }
};

/// What the workload did, for exact comparisons.
struct WorkloadResult {
  as::ActorId root, crashed, stopped;
  std::vector<as::ActorId> workers;
  std::uint64_t adds_per_worker = 0;
};

/// Runs on a System with an attached recorder; returns once everything it started has been
/// handled (calls are answered after the casts before them). Leaves the root and some workers
/// alive, for the shutdown to stop or kill. Check QTest::currentTestFailed() after it.
inline void run_workload(as::System& sys, WorkloadResult& r, int workers = 5, int adds = 40,
                         int rally = 300) {
  Probe probe;
  auto root = sys.spawn<Tolerant>({.name = "root"}).value();
  r.root = root.id();
  std::vector<as::ActorRef<WorkerMsg>> ws;
  for (int i = 0; i < workers; ++i) {
    std::string name = "worker-";
    name += std::to_string(i);
    ws.push_back(sys.spawn_linked<Worker>(root, {.name = name}).value());
    r.workers.push_back(ws.back().id());
  }
  for (int n = 0; n < adds; ++n)
    for (auto& w : ws) (void)w.cast(Add{1});
  r.adds_per_worker = static_cast<std::uint64_t>(adds);
  auto pinger = sys.spawn_linked<Pinger>(root, Pinger{.probe = &probe}, {}).value();
  auto ponger = sys.spawn_linked<Ponger>(root, {.name = "ponger"}, pinger).value();
  (void)pinger.cast(ponger);
  (void)pinger.cast(rally);
  for (auto& w : ws) QCOMPARE_GE(w.call(as::rpc<Total>, kTimeout).get().value_or(-1), 0);
  QVERIFY(probe.wait_for(sys, "rally over"));
  r.crashed = ws[1].id();
  (void)ws[1].cast(Crash{});
  QVERIFY(ws[1].wait(kTimeout));
  r.stopped = ws[0].id();
  QVERIFY(ws[0].stop_and_wait(kTimeout, "enough for today"));
  // Process groups and a timer, when there are enough workers for them.
  if (ws.size() >= 5) {
    sys.groups().join("crew", ws[2]);
    sys.groups().join("crew", ws[3]);
    sys.groups().join_scoped("night", "watch", ws[4]);
    sys.groups().leave("crew", ws[3]);
  }
  auto ticker = sys.spawn_linked<TickCounter>(root, TickCounter{.probe = &probe}, {.name = "ticker"}).value();
  const as::TimerHandle every = ticker.send_interval(1ms, [] { return 0; });
  QVERIFY(probe.wait_count(sys, "tick", 3));
  every.cancel();
  // Ticks queued before the cancel would still be handled, and report to this function's probe:
  // stop the ticker (a stop outranks queued messages) before the probe goes away.
  QVERIFY(ticker.stop_and_wait(kTimeout));
}

inline std::filesystem::path path_in(const QTemporaryDir& dir, const char* name) {
  return std::filesystem::path(dir.path().toStdString()) / name;
}

/// The RecordingError `f` throws (QFAIL-style message if it throws nothing).
template <class F>
std::optional<as::RecordingError> error_of(F&& f) {
  try {
    f();
  } catch (const as::RecordingError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace recording_test

#endif  // Q_MOC_RUN
