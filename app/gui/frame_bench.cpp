// observatory_framebench: how the observatory holds up under load. It runs token rings (10,000
// actors at full message rate by default) headless first, then in the main window (offscreen),
// and reports the UI frame time (fold + view refresh + a full repaint of the window), the event
// lag (how old an event is when the UI folds it), and the engine's message rate with the GUI
// attached against its rate headless. Not a test: it prints figures and never fails on a time.
#include "gui/main_window.hpp"
#include "gui/ring_workload.hpp"

#include "gui/bench_support.hpp"

#include <actorscope/actorscope.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <chrono>
#include <cstdio>
#include <thread>

namespace as = actorscope;
namespace gui = actorscope::gui;
using namespace std::chrono_literals;

namespace {

std::uint64_t totalHandled(as::System& system) {
  std::uint64_t n = 0;
  for (const as::ActorStats& s : system.stats()) n += s.handled;
  return n;
}

double headlessRate(const gui::Workload& w, const std::string& runtime, unsigned threads, double seconds) {
  as::RuntimeOptions options;
  options.threads = threads;
  options.qt_application = as::RuntimeOptions::QtApplication::existing;
  as::System system{as::make_runtime(runtime, options)};
  w.start(system, 1);
  // Let every ring close and its tokens start (the event loop runs the qt runtime's GUI host).
  QEventLoop loop;
  QTimer::singleShot(1000, &loop, &QEventLoop::quit);
  loop.exec();
  const std::uint64_t before = totalHandled(system);
  QElapsedTimer t;
  t.start();
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  const std::uint64_t after = totalHandled(system);
  const double rate = static_cast<double>(after - before) / (static_cast<double>(t.nsecsElapsed()) / 1e9);
  system.shutdown(10s);
  return rate;
}

struct GuiRun {
  QString view;
  as::observe::LogHistogram frame;    // ns
  as::observe::LogHistogram lag;      // ns
  as::observe::LogHistogram fold;     // ns: drain + fold (the session's part of a frame)
  as::observe::LogHistogram refresh;  // ns: the views' part
  as::observe::LogHistogram stall;    // ns: how late a 10 ms timer fired (input latency)
  as::observe::LogHistogram paint;    // ns: of which painting
  double rate = 0;
  double eventsPerSecond = 0;
  std::uint64_t dropped = 0;
  std::size_t frames = 0;
  std::size_t actors = 0;
  std::uint32_t sampleEvery = 0;
};

GuiRun guiRun(const gui::Workload& w, const std::string& runtime, unsigned threads, double seconds,
              const QString& view, std::uint32_t sampleEvery, bool timing) {
  gui::MainWindow window({w}, {.useSettings = false});
  window.resize(gui::MainWindow::kDefaultSize);
  window.show();
  window.showView(view);
  gui::SessionConfig config;
  config.runtime = runtime;
  config.threads = threads;
  config.sampleEvery = sampleEvery;
  config.timing = timing;
  window.session().start(w, config);

  GuiRun run;
  run.view = view;
  bool measuring = false;
  // One frame: the session's fold (timed by the session), then the views' refresh (timed by the
  // window), then the repaint of what changed, flushed at once instead of on the event loop's
  // next turn so that it is timed with the rest.
  QObject::connect(&window, &gui::MainWindow::refreshed, &window, [&] {
    if (!measuring) return;
    QElapsedTimer paint;
    paint.start();
    QCoreApplication::sendPostedEvents(&window, QEvent::UpdateRequest);
    const auto paintNs = static_cast<std::uint64_t>(paint.nsecsElapsed());
    run.paint.record(paintNs);
    run.frame.record(window.session().lastPumpNs() + window.lastRefreshNs() + paintNs);
    if (qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_FRAMES"))
      std::fprintf(stderr, "frame: pump %.1f refresh %.1f paint %.1f ms\n",
                   window.session().lastPumpNs() / 1e6, window.lastRefreshNs() / 1e6, paintNs / 1e6);
    ++run.frames;
  });

  // Responsiveness: a 10 ms timer; how late it fires is how long input would have waited.
  QTimer probe;
  probe.setTimerType(Qt::PreciseTimer);
  QElapsedTimer sinceProbe;
  sinceProbe.start();
  QObject::connect(&probe, &QTimer::timeout, &window, [&] {
    const qint64 late = sinceProbe.nsecsElapsed() - 10'000'000;
    sinceProbe.restart();
    if (measuring) run.stall.record(static_cast<std::uint64_t>(std::max<qint64>(0, late)));
  });
  probe.start(10);

  QEventLoop loop;
  QTimer::singleShot(1500, &loop, &QEventLoop::quit);  // warm-up: rings closed, tokens running
  loop.exec();
  // Pick the busiest actor, so the inspector has work too.
  const auto& state = window.session().state();
  as::ActorId busiest{};
  std::uint64_t most = 0;
  for (const auto& [id, a] : state.actors())
    if (a.handled > most) {
      most = a.handled;
      busiest = id;
    }
  window.selection().select(busiest);

  window.session().resetTimings();
  window.resetRefreshTimes();
  const std::uint64_t before = window.session().metrics().handled;
  const std::uint64_t droppedBefore = window.session().state().dropped();
  const std::uint64_t eventsBefore = window.session().state().events_applied();
  measuring = true;
  QElapsedTimer t;
  t.start();
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  measuring = false;
  const double elapsed = static_cast<double>(t.nsecsElapsed()) / 1e9;
  // The frame includes the fold (measured from the timer firing, see above); the lag is the
  // session's own measure.
  run.lag = window.session().eventLag();
  run.fold = window.session().foldTimes();
  run.refresh = window.refreshTimes();
  run.rate = static_cast<double>(window.session().metrics().handled - before) / elapsed;
  run.eventsPerSecond =
      static_cast<double>(window.session().state().events_applied() - eventsBefore) / elapsed;
  run.dropped = window.session().state().dropped() - droppedBefore;
  run.actors = window.session().state().alive_count();
  run.sampleEvery = window.session().sampleEvery();
  if (qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_SAMPLING")) {
    const auto& st = window.session().state();
    for (std::size_t k = 0; k < as::observe::kEventKindCount; ++k)
      if (st.events_of(static_cast<as::observe::EventKind>(k)) > 0)
        std::fprintf(stderr, "  %s: %llu\n",
                     as::observe::to_string(static_cast<as::observe::EventKind>(k)).data(),
                     static_cast<unsigned long long>(st.events_of(static_cast<as::observe::EventKind>(k))));
  }
  window.stopSession();
  return run;
}

double ms(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  gui::RingShape shape;
  std::string runtime = "asio";
  unsigned threads = 2;
  double seconds = 5;
  std::uint32_t sampleEvery = gui::SessionConfig{}.sampleEvery;
  std::optional<std::string> json;
  bool timing = true;
  if (const auto exit =
          gui::parseBenchArgs("framebench", argc, argv, [&](as::cli::Args& a) -> std::optional<int> {
            if (a.flag("help")) {
              std::printf(
                  "usage: observatory_framebench [--rings R] [--nodes N] [--tokens T] [--runtime asio|qt] "
                  "[--threads N]\n"
                  "                              [--seconds S] [--sample-every K] [--no-timing] [--json "
                  "FILE]\n");
              return 0;
            }
            shape = gui::ringShapeOptions(a, shape);
            runtime = a.value_or("runtime", "asio");
            threads = static_cast<unsigned>(a.integer("threads", 1, 64).value_or(2));
            seconds = a.seconds("seconds", 600).value_or(5);
            sampleEvery =
                static_cast<std::uint32_t>(a.integer("sample-every", 1, 1 << 20).value_or(sampleEvery));
            json = a.value("json");
            timing = !a.flag("no-timing");
            return std::nullopt;
          }))
    return *exit;
  gui::offscreenUnlessChosen();
  QApplication app(argc, argv);
  const gui::Workload w = gui::ringWorkload(shape);
  const std::size_t actors = 1 + shape.rings * (1 + shape.nodes);

  std::printf("observatory frame-time benchmark: %zu actors (%s), %s runtime, %u threads, %.1f s per run\n",
              actors, w.summary.c_str(), runtime.c_str(), threads, seconds);
  const double headless = headlessRate(w, runtime, threads, seconds);
  std::printf("  headless engine rate: %.2f M msgs/s\n", headless / 1e6);

  QJsonArray runs;
  for (const QString& view : {QStringLiteral("supervision-graph"), QStringLiteral("actors")}) {
    const GuiRun r = guiRun(w, runtime, threads, seconds, view, sampleEvery, timing);
    std::printf(
        "  GUI, %-17s  frame p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms  (%zu frames) | lag p50 "
        "%6.1f ms  p99 %6.1f ms | engine %.2f M msgs/s = %3.0f%% of headless | %.0fk events/s, %llu "
        "dropped\n",
        qPrintable(r.view), ms(r.frame.percentile(50)), ms(r.frame.percentile(99)), ms(r.frame.max()),
        r.frames, ms(r.lag.percentile(50)), ms(r.lag.percentile(99)), r.rate / 1e6, 100.0 * r.rate / headless,
        r.eventsPerSecond / 1e3, static_cast<unsigned long long>(r.dropped));
    std::printf(
        "      of which: fold p50 %.1f ms p99 %.1f ms; view refresh p50 %.1f ms p99 %.1f ms; sampling 1 in "
        "%u; "
        "input latency p99 %.1f ms; paint p50 %.1f p99 %.1f ms\n",
        ms(r.fold.percentile(50)), ms(r.fold.percentile(99)), ms(r.refresh.percentile(50)),
        ms(r.refresh.percentile(99)), r.sampleEvery, ms(r.stall.percentile(99)), ms(r.paint.percentile(50)),
        ms(r.paint.percentile(99)));
    runs.append(QJsonObject{{"view", r.view},
                            {"frame_p50_ms", ms(r.frame.percentile(50))},
                            {"frame_p99_ms", ms(r.frame.percentile(99))},
                            {"frame_max_ms", ms(r.frame.max())},
                            {"frames", static_cast<qint64>(r.frames)},
                            {"lag_p50_ms", ms(r.lag.percentile(50))},
                            {"lag_p99_ms", ms(r.lag.percentile(99))},
                            {"engine_msgs_per_s", r.rate},
                            {"engine_vs_headless", r.rate / headless},
                            {"events_per_s", r.eventsPerSecond},
                            {"dropped", static_cast<qint64>(r.dropped)},
                            {"fold_p99_ms", ms(r.fold.percentile(99))},
                            {"refresh_p99_ms", ms(r.refresh.percentile(99))},
                            {"input_latency_p99_ms", ms(r.stall.percentile(99))},
                            {"sample_every", static_cast<int>(r.sampleEvery)}});
  }
  if (json) {
    QFile f(QString::fromStdString(*json));
    if (!f.open(QIODevice::WriteOnly)) {
      std::fprintf(stderr, "observatory_framebench: cannot write %s\n", json->c_str());
      return 1;
    }
    f.write(QJsonDocument(QJsonObject{{"actors", static_cast<qint64>(actors)},
                                      {"runtime", QString::fromStdString(runtime)},
                                      {"threads", static_cast<int>(threads)},
                                      {"seconds", seconds},
                                      {"sample_every", static_cast<int>(sampleEvery)},
                                      {"headless_msgs_per_s", headless},
                                      {"runs", runs}})
                .toJson());
  }
  return 0;
}
