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

/// A recording of a Supervisor's events, hand-built and fed to a real Recorder (attached to a manual
/// System, so that nothing else happens): sup (1) with child 2, configured with spec "b" after 2
/// spawned; 2 fails and 3 replaces it (its pre_start threw); then the supervisor gives up.
/// Returns the events fed, as they must read back.
inline std::vector<as::observe::Event> record_supervisor(const std::filesystem::path& file) {
  as::System sys{as::make_runtime("manual")};
  as::Recorder rec(file, {.detail = as::Detail::full, .keyframe_every = 3});
  sys.attach(rec);
  auto wait_for = [&](std::uint64_t events) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (rec.progress().events_recorded < events && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the pause between polls of a condition
    QCOMPARE(rec.progress().events_recorded, events);
  };
  wait_for(1);  // the attach-time runtime_info
  const as::TimePoint t0 = sys.runtime().now();
  std::vector<as::observe::Event> ev;
  auto add = [&](as::observe::Event e) {
    e.seq = ev.size() + 2;
    e.time = t0 + std::chrono::milliseconds(ev.size() + 1);
    ev.push_back(std::move(e));
  };
  add(as::observe::Event::spawned({0, 1}, {}, "team", "Supervisor", 0));
  add(as::observe::Event::spawned({0, 2}, {0, 1}, "", "Worker", 0));
  add(as::observe::Event::supervisor_configured(
      {0, 1}, "one_for_all", 3, std::chrono::seconds(5),
      "child\tb\tpermanent\t5000\tworker\nbackoff\t10\t1000\t30000"));
  add(as::observe::Event::failed_with({0, 2}, "boom"));
  add(as::observe::Event::spawned({0, 3}, {0, 1}, "", "Worker", 0));
  add(as::observe::Event::child_restarted({0, 3}, {0, 2}, "b", "failed: boom", 1,
                                          std::chrono::milliseconds(20), true));
  add(as::observe::Event::supervisor_gave_up({0, 1}, 4, std::chrono::seconds(5),
                                             "reached max restart intensity: 4 restarts in 5000 ms"));
  for (const as::observe::Event& e : ev) rec.on_event(e);
  wait_for(ev.size() + 1);
  return ev;
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
