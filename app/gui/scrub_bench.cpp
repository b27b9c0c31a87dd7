// observatory_scrubbench: how fast a replay scrubs. It writes a synthetic full-detail recording
// (1,000,000 events over 10,000 actors by default: a root, supervisors, their workers exchanging
// messages, a failure and its replacement now and then), opens it in the main window (offscreen),
// and then times scrub steps the way the frame-time benchmark times frames: one step is
// ReplaySession::setCursorNow(t) (state_at, then every visible view refreshed) plus the repaint of
// what changed, flushed at once. The steps are a drag (small moves across the middle half) and
// jumps (random times anywhere). Not a test: it prints p50/p99/max and never fails on a time.
#include "gui/main_window.hpp"
#include "gui/replay_session.hpp"

#include "gui/bench_support.hpp"

#include <actorscope/actorscope.hpp>
#include <actorscope/observe/histogram.hpp>
#include <actorscope/storage/recorder.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include <sys/resource.h>

namespace as = actorscope;
namespace gui = actorscope::gui;
namespace obs = actorscope::observe;
using namespace std::chrono_literals;

namespace {

/// Page faults this thread has taken (the trace's: where a step's time goes to fresh memory).
long threadPageFaults() {
  rusage usage{};
#if defined(RUSAGE_THREAD)
  getrusage(RUSAGE_THREAD, &usage);
#else
  getrusage(RUSAGE_SELF, &usage);
#endif
  return usage.ru_minflt + usage.ru_majflt;
}

/// A full-detail stream over `actors` actors: first their spawns and starts (a root, supervisors
/// of 100 workers each), then messages between workers of a supervisor and to and from the
/// supervisors, with every 5,000th event a worker failing and a new one of its name spawned in its
/// place. Times advance 1 µs per event from `t0`.
class Stream {
 public:
  Stream(std::uint64_t firstSeq, as::TimePoint t0, std::uint32_t actors)
      : seq_(firstSeq), t_(t0), actors_(actors) {}

  obs::Event next() {
    obs::Event e;
    e.seq = seq_++;
    t_ += 1us;
    e.time = t_;
    e.thread = 0;
    const std::uint64_t i = n_++;
    if (spawned_ < actors_) {
      const std::uint32_t pid = ++spawned_;
      if (pid > supervisors() + 1) live_.push_back(pid);
      return spawn(e, pid);
    }
    if (i % 5000 == 0) {  // a failure of a live worker (a dead one cannot fail again)...
      e.kind = obs::EventKind::failed;
      slot_ = rng_() % live_.size();
      victim_ = live_[slot_];
      e.actor = {0, victim_};
      e.text = "bench failure";
      return e;
    }
    if (i % 5000 == 1 && victim_ != 0) {  // ...and its replacement, under the same name
      const std::uint32_t pid = ++nextPid_;
      obs::Event s = spawn(e, pid, nameOf(victim_), parentOf(victim_));
      live_[slot_] = pid;  // the replacement takes its place
      victim_ = 0;
      return s;
    }
    const bool send = i % 2 == 0;
    if (send) {
      from_ = worker(rng_());
      to_ = rng_() % 4 == 0 ? parentOf(from_) : worker(rng_());
    }
    e.actor = {0, send ? from_ : to_};
    e.peer = {0, send ? to_ : from_};
    e.message_type = "bench::Job";
    e.kind = send ? obs::EventKind::message_sent : obs::EventKind::message_handled;
    e.trace = send ? ++trace_ : trace_;
    if (!send) {
      e.timed = true;
      e.queue = std::chrono::nanoseconds(300 + i % 97);
      e.handling = std::chrono::nanoseconds(150 + i % 53);
    }
    return e;
  }

  std::uint32_t actors() const noexcept { return actors_; }

 private:
  static constexpr std::uint32_t kPerSupervisor = 100;
  std::uint32_t supervisors() const {
    return std::max<std::uint32_t>(1, (actors_ - 1) / (kPerSupervisor + 1));
  }
  /// pids: 1 the root, 2..S+1 the supervisors, the rest workers.
  std::uint32_t parentOf(std::uint32_t pid) const {
    if (pid == 1) return 0;
    if (pid <= supervisors() + 1) return 1;
    return 2 + (pid % supervisors());
  }
  std::string nameOf(std::uint32_t pid) const {
    if (pid == 1) return "root";
    if (pid <= supervisors() + 1) return "sup-" + std::to_string(pid - 1);
    return "worker-" + std::to_string(pid);
  }
  std::uint32_t worker(std::uint32_t r) const { return live_[r % live_.size()]; }
  obs::Event spawn(obs::Event& e, std::uint32_t pid, std::string name = {}, std::uint32_t parent = ~0u) {
    e.kind = obs::EventKind::spawned;
    e.actor = {0, pid};
    e.peer = {0, parent == ~0u ? parentOf(pid) : parent};
    e.name = name.empty() ? nameOf(pid) : std::move(name);
    e.text = pid == 1 ? "bench::Root" : pid <= supervisors() + 1 ? "bench::Supervisor" : "bench::Worker";
    if (nextPid_ < pid) nextPid_ = pid;
    return e;
  }

  std::uint64_t seq_;
  as::TimePoint t_;
  std::uint32_t actors_;
  std::uint32_t spawned_ = 0;
  std::uint32_t nextPid_ = 0;
  std::uint32_t victim_ = 0;
  std::size_t slot_ = 0;
  std::vector<std::uint32_t> live_;  ///< the workers alive
  std::uint32_t from_ = 0, to_ = 0;
  std::uint64_t n_ = 0;
  std::uint64_t trace_ = 0;
  std::minstd_rand rng_{7};
};

/// Writes the recording: a Recorder on an empty manual System, fed never more than a buffer ahead
/// of what it has committed, so that nothing is dropped. Returns the events recorded.
std::uint64_t writeRecording(const std::filesystem::path& file, std::uint64_t events, std::uint32_t actors) {
  std::filesystem::remove(file);
  constexpr std::size_t kCapacity = 16384;
  as::Recorder recorder(file, {.detail = as::Detail::full,
                               .keyframe_every = 10'000,
                               .per_thread_capacity = kCapacity,
                               .scenario = "scrub-bench"});
  as::System system{as::make_runtime("manual")};
  system.attach(recorder);
  // The writer works on its own thread: this one waits for it by yielding the core (setup, untimed).
  while (recorder.progress().events_recorded == 0) std::this_thread::sleep_for(100us);
  const std::uint64_t base = recorder.progress().events_recorded;
  Stream stream(base + 1, system.runtime().now(), actors);
  constexpr std::uint64_t kStep = 1024;
  const auto feedDeadline = std::chrono::steady_clock::now() + 10min;
  for (std::uint64_t sent = 0; sent < events;) {
    const auto p = recorder.progress();
    if (p.error) throw std::runtime_error("the recorder failed: " + *p.error);
    if (sent + kStep - (p.events_recorded - base) > kCapacity - kStep) {
      if (std::chrono::steady_clock::now() > feedDeadline)
        throw std::runtime_error("the recorder stopped taking events after " + std::to_string(sent));
      std::this_thread::sleep_for(100us);
      continue;
    }
    if (qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_FEED") && sent % (1u << 17) == 0)
      std::fprintf(stderr, "fed %llu, committed %llu\n", static_cast<unsigned long long>(sent),
                   static_cast<unsigned long long>(p.events_recorded - base));
    for (std::uint64_t k = 0; k < kStep && sent < events; ++k, ++sent) recorder.on_event(stream.next());
  }
  // Every event committed, with a deadline: a recorder that stops taking events is said, not waited on.
  const auto deadline = std::chrono::steady_clock::now() + 5min;
  while (recorder.progress().events_recorded - base < events) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("the recorder committed " +
                               std::to_string(recorder.progress().events_recorded - base) + " of " +
                               std::to_string(events) + " events in 5 minutes");
    std::this_thread::sleep_for(100us);
  }
  if (recorder.progress().events_dropped != 0) throw std::runtime_error("the recorder dropped events");
  return recorder.progress().events_recorded;
}

double ms(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t events = 1'000'000;
  std::uint32_t actors = 10'000;
  int drag = 200, jumps = 50;
  bool reverse = false;
  std::optional<std::string> file, json;
  if (const auto exit =
          gui::parseBenchArgs("scrubbench", argc, argv, [&](as::cli::Args& a) -> std::optional<int> {
            if (a.flag("help")) {
              std::printf(
                  "usage: observatory_scrubbench [--events N] [--actors N] [--drag STEPS] [--jumps N] "
                  "[--file FILE]\n"
                  "                              [--json FILE] [--reverse]\n"
                  "  --reverse    drag backwards (from three quarters of the session to one quarter)\n"
                  "  --file FILE  keep the recording there (and reuse it when it exists) instead of a "
                  "temporary one\n");
              return 0;
            }
            events = static_cast<std::uint64_t>(a.integer("events", 1000, 100'000'000).value_or(1'000'000));
            actors = static_cast<std::uint32_t>(a.integer("actors", 10, 1'000'000).value_or(10'000));
            drag = static_cast<int>(a.integer("drag", 1, 100'000).value_or(200));
            jumps = static_cast<int>(a.integer("jumps", 0, 100'000).value_or(50));
            reverse = a.flag("reverse");
            file = a.value("file");
            json = a.value("json");
            return std::nullopt;
          }))
    return *exit;
  gui::offscreenUnlessChosen();
  QApplication app(argc, argv);
  QTemporaryDir tmp;
  const std::filesystem::path path =
      file ? std::filesystem::path(*file) : std::filesystem::path(tmp.path().toStdString()) / "scrub.db";
  QElapsedTimer t;
  t.start();
  if (!file || !std::filesystem::exists(path)) {
    try {
      const std::uint64_t written = writeRecording(path, events, actors);
      std::printf("wrote %llu events over %u actors to %s in %.1f s (%.0f MB)\n",
                  static_cast<unsigned long long>(written), actors, path.c_str(), t.nsecsElapsed() / 1e9,
                  static_cast<double>(std::filesystem::file_size(path)) / 1e6);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "observatory_scrubbench: %s\n", e.what());
      return 1;
    }
  }

  gui::MainWindow window({}, {.useSettings = false});
  window.resize(gui::MainWindow::kDefaultSize);
  window.show();
  t.restart();
  const QString error = window.openRecording(QString::fromStdString(path.string()));
  if (!error.isEmpty()) {
    std::fprintf(stderr, "observatory_scrubbench: %s\n", error.toLocal8Bit().constData());
    return 1;
  }
  QCoreApplication::sendPostedEvents(&window, QEvent::UpdateRequest);
  const double openMs = t.nsecsElapsed() / 1e6;
  gui::ReplaySession& replay = *window.replay();
  const auto range = *replay.timeRange();
  const auto span = range.end - range.start;
  t.restart();
  // The timeline's density and markers, and the replay's warm-up of the heap: what the event loop
  // does after the first picture, before the user can drag (not part of a step).
  QCoreApplication::processEvents();
  const double timelineMs = t.nsecsElapsed() / 1e6 - replay.warmUpNs() / 1e6;
  const double warmUpMs = replay.warmUpNs() / 1e6;

  as::observe::LogHistogram step, state, refresh, paint;
  int folded = 0;  // steps that folded forward from the state shown (the rest started at a keyframe)
  int copied = 0;  // steps whose state had items past the place it folded to, folded onto a copy
  int rests = 0;   // steps whose state had such a rest (copied, or polls applied in place)
  auto oneStep = [&](as::TimePoint at) {
    const long faults0 = threadPageFaults();
    QElapsedTimer s;
    s.start();
    replay.setCursorNow(at);  // state_at, then updated(): the window refreshes every visible view
    QCoreApplication::sendPostedEvents(&window, QEvent::UpdateRequest);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
    const auto total = static_cast<std::uint64_t>(s.nsecsElapsed());
    step.record(total);
    state.record(replay.lastStateNs());
    static const bool trace = qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_STEPS");
    if (trace)
      std::fprintf(stderr,
                   "step at %.3f s: %s%s, state %.1f ms, refresh %.1f ms, total %.1f ms, %ld page faults\n",
                   std::chrono::duration<double>(at - range.start).count(),
                   replay.lastStateFolded() ? "folded" : "keyframe", replay.lastStateCopied() ? "+copy" : "",
                   ms(replay.lastStateNs()), ms(window.lastRefreshNs()), ms(total),
                   threadPageFaults() - faults0);
    if (replay.lastStateFolded()) ++folded;
    if (replay.lastStateCopied()) ++copied;
    if (replay.lastStateHadRest()) ++rests;
    refresh.record(window.lastRefreshNs());
    paint.record(total - std::min(total, replay.lastStateNs() + window.lastRefreshNs()));
  };
  // A drag across the middle half, then jumps anywhere.
  for (int i = 0; i < drag; ++i) {
    const auto along = span / 2 * i / drag;
    oneStep(reverse ? range.start + span * 3 / 4 - along : range.start + span / 4 + along);
  }
  std::minstd_rand rng(11);
  for (int i = 0; i < jumps; ++i)
    oneStep(range.start + span * static_cast<std::int64_t>(rng() % 10'000) / 10'000);

  // What a step pays when the cursor's state has events past the place it folded to (events before
  // the cursor recorded after a later poll): a copy of the whole state.
  as::observe::LogHistogram copy;
  for (int i = 0; i < 5; ++i) {
    QElapsedTimer c;
    c.start();
    const as::observe::SystemState copied(replay.state());
    copy.record(static_cast<std::uint64_t>(c.nsecsElapsed()));
  }
  std::printf(
      "observatory scrub-step benchmark: %llu events, %zu actors alive at the end of the drag, window "
      "%dx%d\n",
      static_cast<unsigned long long>(replay.info().events_recorded), replay.state().alive_count(),
      gui::MainWindow::kDefaultSize.width(), gui::MainWindow::kDefaultSize.height());
  std::printf(
      "  open + first picture: %.1f ms; then the timeline's density and markers: %.1f ms, "
      "the heap's warm-up: %.1f ms\n",
      openMs, timelineMs, warmUpMs);
  std::printf("  scrub step (%d drag%s + %d jumps): p50 %.1f ms  p99 %.1f ms  max %.1f ms\n", drag,
              reverse ? " backwards" : "", jumps, ms(step.percentile(50)), ms(step.percentile(99)),
              ms(step.max()));
  std::printf(
      "      %d of the steps folded forward from the state shown, %d started at a keyframe; %d had a rest "
      "past "
      "the place they folded to, %d of them folded onto a copy\n",
      folded, drag + jumps - folded, rests, copied);
  std::printf(
      "      of which: state_at p50 %.1f p99 %.1f ms; view refresh p50 %.1f p99 %.1f ms; paint p50 %.1f p99 "
      "%.1f ms\n",
      ms(state.percentile(50)), ms(state.percentile(99)), ms(refresh.percentile(50)),
      ms(refresh.percentile(99)), ms(paint.percentile(50)), ms(paint.percentile(99)));
  std::printf(
      "  a copy of the state (what a step pays when its rest holds events): p50 %.1f ms (%zu actors)\n",
      ms(copy.percentile(50)), replay.state().actors().size());
  if (json) {
    QFile f(QString::fromStdString(*json));
    if (!f.open(QIODevice::WriteOnly)) {
      std::fprintf(stderr, "observatory_scrubbench: cannot write %s\n", json->c_str());
      return 1;
    }
    f.write(QJsonDocument(QJsonObject{{"events", static_cast<qint64>(replay.info().events_recorded)},
                                      {"actors", static_cast<qint64>(actors)},
                                      {"open_first_picture_ms", openMs},
                                      {"timeline_data_ms", timelineMs},
                                      {"warm_up_ms", warmUpMs},
                                      {"step_p50_ms", ms(step.percentile(50))},
                                      {"step_p99_ms", ms(step.percentile(99))},
                                      {"step_max_ms", ms(step.max())},
                                      {"state_at_p99_ms", ms(state.percentile(99))},
                                      {"refresh_p99_ms", ms(refresh.percentile(99))},
                                      {"paint_p99_ms", ms(paint.percentile(99))},
                                      {"steps_folded_forward", folded},
                                      {"steps_with_a_rest", rests},
                                      {"steps_copied", copied},
                                      {"steps", drag + jumps}})
                .toJson());
  }
  return 0;
}
