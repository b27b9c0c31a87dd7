// observatory_comparebench: what compare mode costs each side's engine. Issue 21's target: in
// compare mode, each side keeps at least 90% of the message rate it has alone at the same detail.
//
// One configuration per side (a runtime and a thread count: asio×2 and qt×2 by default) runs the
// token rings at full message rate, recorded at compare mode's default detail (sampled, one
// message in 100). Each is measured three ways:
//   alone       the side by itself: a Recorder, a System, the workload, the event loop turning,
//               for the same seconds — what a user gets recording that configuration on its own;
//   sequential  inside a CompareRun, one side after the other (compare mode's default);
//   concurrent  inside a CompareRun with both sides at once (the option; they share the cores).
// A side's rate is its recording's messages handled (the exact counters) per second of its
// session, read back the way `actorscope diff` reads it, so that every mode is measured by the
// same rule. The modes are rotated from run to run (the machine is shared and noisy) and the
// table gives each mode's median rate and its ratio to the median alone. Not a test: it prints
// figures (and JSON with --json) and never fails on a rate.
#include "gui/compare_run.hpp"
#include "gui/ring_workload.hpp"

#include "gui/bench_support.hpp"

#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/recording_diff.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <QApplication>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace as = actorscope;
namespace gui = actorscope::gui;

namespace {

enum class Mode { alone, sequential, concurrent };
constexpr std::array kModes{Mode::alone, Mode::sequential, Mode::concurrent};

const char* modeName(Mode m) {
  switch (m) {
    case Mode::alone:
      return "alone";
    case Mode::sequential:
      return "sequential";
    case Mode::concurrent:
      return "concurrent";
  }
  return "?";
}

struct Side {
  std::string runtime;
  unsigned threads = 2;
  std::string name() const { return runtime + "×" + std::to_string(threads); }
};

/// A recording's rate: messages handled (all actors, all incarnations) per second of its session.
double recordedRate(const QString& file) {
  const as::SessionReader reader(file.toStdString());
  const auto sessions = reader.sessions();
  if (sessions.size() != 1)
    throw std::runtime_error(file.toStdString() + " holds " + std::to_string(sessions.size()) +
                             " sessions; one was expected");
  const as::DiffSide side = as::read_diff_side(reader, sessions.front().id);
  std::uint64_t handled = 0;
  for (const as::ActorFigures& f : side.figures) handled += f.handled;
  const double seconds = std::chrono::duration<double>(side.duration).count();
  return seconds > 0 ? static_cast<double>(handled) / seconds : 0;
}

/// One side alone, as CompareRun runs it, without CompareRun: recorded into `file`.
double aloneRate(const gui::Workload& w, const gui::CompareConfig& config, const Side& side,
                 const QString& file) {
  {
    as::Recorder recorder(file.toStdString(), gui::compareRecorderOptions(config));
    as::System system{as::make_runtime(side.runtime, {.threads = side.threads})};
    system.attach(recorder);
    w.start(system, config.seed);
    QEventLoop loop;  // turns the qt runtime's GUI host, as the window's event loop does
    QTimer::singleShot(static_cast<int>(std::ceil(config.seconds * 1000)), &loop, &QEventLoop::quit);
    loop.exec();
    system.shutdown();
    system.detach(recorder);
  }
  return recordedRate(file);
}

/// Both sides inside a CompareRun; the rate of each.
std::array<double, 2> compareRates(const gui::Workloads& workloads, gui::CompareConfig config,
                                   const QString& fileA, const QString& fileB) {
  config.sides[0].recordTo = fileA;
  config.sides[1].recordTo = fileB;
  gui::CompareRun run(config, workloads);
  QEventLoop loop;
  QString failure;
  QObject::connect(&run, &gui::CompareRun::finished, &loop, &QEventLoop::quit);
  QObject::connect(&run, &gui::CompareRun::sideFailed, &loop, [&](int, const QString& why) {
    failure = why;
    loop.quit();
  });
  run.start();
  loop.exec();
  if (!failure.isEmpty()) throw std::runtime_error(failure.toStdString());
  return {recordedRate(fileA), recordedRate(fileB)};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return load;
}

}  // namespace

int main(int argc, char** argv) {
  gui::RingShape shape{.rings = 20, .nodes = 50, .tokens = 8};
  std::array<Side, 2> sides{Side{"asio", 2}, Side{"qt", 2}};
  double seconds = 3;
  int runs = 3;
  std::uint32_t sampleEvery = gui::CompareConfig{}.sampleEvery;
  std::optional<std::string> json;
  if (const auto exit =
          gui::parseBenchArgs("comparebench", argc, argv, [&](as::cli::Args& a) -> std::optional<int> {
            if (a.flag("help")) {
              std::printf(
                  "usage: observatory_comparebench [--runtime A,B] [--threads N,M] [--seconds S] [--runs K]\n"
                  "                                [--rings R] [--nodes N] [--tokens T] [--sample-every K] "
                  "[--json "
                  "FILE]\n"
                  "Each side's message rate alone, and inside compare mode one after the other and at the "
                  "same\n"
                  "time; medians over K rotated runs (default 3 runs of 3 s, asio,qt with 2,2 threads).\n");
              return 0;
            }
            if (const auto rts = a.list("runtime"); !rts.empty()) {
              if (rts.size() != 2) throw a.error("--runtime takes two runtimes, e.g. --runtime asio,qt");
              sides[0].runtime = rts[0];
              sides[1].runtime = rts[1];
            }
            if (const auto ts = a.integer_pair("threads", 1, 64)) {
              sides[0].threads = static_cast<unsigned>(ts->first);
              sides[1].threads = static_cast<unsigned>(ts->second);
            }
            seconds = a.seconds("seconds", 600).value_or(seconds);
            runs = static_cast<int>(a.integer("runs", 1, 100).value_or(runs));
            shape = gui::ringShapeOptions(a, shape);
            sampleEvery =
                static_cast<std::uint32_t>(a.integer("sample-every", 1, 1 << 20).value_or(sampleEvery));
            json = a.value("json");
            return std::nullopt;
          }))
    return *exit;
  gui::offscreenUnlessChosen();
  QApplication app(argc, argv);
  const gui::Workloads workloads{gui::ringWorkload(shape)};
  const gui::Workload& w = workloads.front();

  gui::CompareConfig config;
  config.scenario = w.name;
  config.seconds = seconds;
  for (std::size_t s = 0; s < 2; ++s) {
    config.sides[s].runtime = sides[s].runtime;
    config.sides[s].threads = sides[s].threads;
    config.sides[s].replace = true;  // the files are this benchmark's own, made afresh each run
  }
  try {
    gui::validateCompareConfig(config, workloads);
  } catch (const gui::CompareError& e) {
    std::fprintf(stderr, "observatory_comparebench: %s\n", e.what());
    return 2;
  }

  QTemporaryDir dir;
  if (!dir.isValid()) {
    std::fprintf(stderr, "observatory_comparebench: cannot create a temporary folder: %s\n",
                 qPrintable(dir.errorString()));
    return 1;
  }
  const std::size_t actors = 1 + shape.rings * (1 + shape.nodes);
  std::printf("compare-mode benchmark: %zu actors (%s), sampled 1 in %u, %.1f s per side, %d rotated runs\n",
              actors, w.summary.c_str(), sampleEvery, seconds, runs);
  std::printf("  side A %s, side B %s; load average at start %.2f\n", sides[0].name().c_str(),
              sides[1].name().c_str(), loadAverage());

  // rates[mode][side]: one per run.
  std::map<Mode, std::array<std::vector<double>, 2>> rates;
  const QString fileA = dir.filePath(QStringLiteral("a.db"));
  const QString fileB = dir.filePath(QStringLiteral("b.db"));
  try {
    for (int r = 0; r < runs; ++r) {
      std::vector<Mode> order(kModes.begin(), kModes.end());
      std::rotate(order.begin(), order.begin() + r % static_cast<int>(order.size()), order.end());
      for (Mode m : order) {
        std::array<double, 2> got{};
        if (m == Mode::alone) {
          for (std::size_t s = 0; s < 2; ++s) {
            QFile::remove(fileA);
            got[s] = aloneRate(w, config, sides[s], fileA);
          }
        } else {
          gui::CompareConfig c = config;
          c.concurrent = m == Mode::concurrent;
          got = compareRates(workloads, c, fileA, fileB);
        }
        for (std::size_t s = 0; s < 2; ++s) rates[m][s].push_back(got[s]);
        std::printf("  run %d %-10s  A %7.3f M msgs/s  B %7.3f M msgs/s  (load %.2f)\n", r + 1, modeName(m),
                    got[0] / 1e6, got[1] / 1e6, loadAverage());
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "observatory_comparebench: %s\n", e.what());
    return 1;
  }

  std::printf(
      "\n| side | alone (M msgs/s) | sequential | ratio | concurrent | ratio |\n|---|---|---|---|---|---|\n");
  QJsonArray sideJson;
  for (std::size_t s = 0; s < 2; ++s) {
    const double alone = median(rates[Mode::alone][s]);
    const double seq = median(rates[Mode::sequential][s]);
    const double conc = median(rates[Mode::concurrent][s]);
    const auto ratio = [&](double x) { return alone > 0 ? x / alone : 0.0; };
    std::printf("| %s %s | %.3f | %.3f | %.2f | %.3f | %.2f |\n", s == 0 ? "A" : "B", sides[s].name().c_str(),
                alone / 1e6, seq / 1e6, ratio(seq), conc / 1e6, ratio(conc));
    QJsonObject o{{"side", s == 0 ? "A" : "B"},
                  {"runtime", QString::fromStdString(sides[s].runtime)},
                  {"threads", static_cast<int>(sides[s].threads)},
                  {"alone_msgs_per_s", alone},
                  {"sequential_msgs_per_s", seq},
                  {"sequential_vs_alone", ratio(seq)},
                  {"concurrent_msgs_per_s", conc},
                  {"concurrent_vs_alone", ratio(conc)}};
    for (Mode m : kModes) {
      QJsonArray each;
      for (double x : rates[m][s]) each.append(x);
      o.insert(QStringLiteral("%1_runs").arg(QLatin1String(modeName(m))), each);
    }
    sideJson.append(o);
  }
  std::printf(
      "(ratio: the mode's median over the median alone; compare mode's target is >= 0.90 for the default, "
      "sequential, mode. At the same time the two sides share the machine's %u cores.)\n",
      std::thread::hardware_concurrency());
  if (json) {
    QFile f(QString::fromStdString(*json));
    if (!f.open(QIODevice::WriteOnly)) {
      std::fprintf(stderr, "observatory_comparebench: cannot write %s\n", json->c_str());
      return 1;
    }
    f.write(QJsonDocument(QJsonObject{{"actors", static_cast<qint64>(actors)},
                                      {"seconds", seconds},
                                      {"runs", runs},
                                      {"sample_every", static_cast<int>(sampleEvery)},
                                      {"sides", sideJson}})
                .toJson());
  }
  return 0;
}
