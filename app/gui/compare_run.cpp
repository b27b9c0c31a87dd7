// Compare mode's two recorded runs (compare_run.hpp).
#include "gui/compare_run.hpp"

#include <actorscope/runtime.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/recording_error.hpp>
#include <actorscope/system.hpp>

#include <QDir>
#include <QFileInfo>
#include <QScopeGuard>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace actorscope::gui {

namespace {

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::vector<std::string> runnableRuntimes() {
  std::vector<std::string> out;
  for (const std::string& r : runtime_names())
    if (r != "manual") out.push_back(r);  // manual only moves when a test steps it
  return out;
}

}  // namespace

RecorderOptions compareRecorderOptions(const CompareConfig& config) {
  RecorderOptions options;
  options.detail = config.detail;
  options.sample_every = config.detail == Detail::sampled ? config.sampleEvery : 1;
  options.scenario = config.scenario;
  options.seed = config.seed;
  return options;
}

void validateCompareConfig(const CompareConfig& config, const Workloads& workloads) {
  std::vector<std::string> scenarios;
  for (const Workload& w : workloads) scenarios.push_back(w.name);
  if (std::find(scenarios.begin(), scenarios.end(), config.scenario) == scenarios.end())
    throw CompareError("there is no scenario \"" + config.scenario + "\" to compare; the scenarios are " +
                       listed(scenarios));
  const auto runtimes = runnableRuntimes();
  for (int side = 0; side < 2; ++side) {
    const CompareSideConfig& s = config.sides[static_cast<std::size_t>(side)];
    const std::string which = side == 0 ? "side A" : "side B";
    if (std::find(runtimes.begin(), runtimes.end(), s.runtime) == runtimes.end()) {
      std::string why = which + " cannot run on \"" + s.runtime + "\": the runtimes are " + listed(runtimes);
      if (s.runtime == "manual") why += " (the manual runtime only moves when a test steps it)";
      throw CompareError(why);
    }
    if (s.threads < 1 || s.threads > 64)
      throw CompareError(which + " needs 1 to 64 threads, not " + std::to_string(s.threads));
    if (!s.recordTo.isEmpty()) {
      const QFileInfo info(s.recordTo);
      if (info.isDir())
        throw CompareError(which + " would be recorded into \"" + s.recordTo.toStdString() +
                           "\", which is a folder: give a file name, e.g. " +
                           QDir(s.recordTo).filePath(QStringLiteral("side.db")).toStdString());
      if (info.exists() && !s.replace)
        throw CompareError("\"" + s.recordTo.toStdString() + "\" (" + which +
                           "'s recording) already exists: choose another file, or remove it first");
    }
  }
  if (!config.sides[0].recordTo.isEmpty() && QFileInfo(config.sides[0].recordTo).absoluteFilePath() ==
                                                 QFileInfo(config.sides[1].recordTo).absoluteFilePath())
    throw CompareError("side A and side B cannot be recorded into the same file \"" +
                       config.sides[0].recordTo.toStdString() + "\": give each its own");
  if (!(config.seconds > 0) || config.seconds > 3600 || !std::isfinite(config.seconds))
    throw CompareError("a comparison runs each side for more than 0 and at most 3600 seconds, not " +
                       std::to_string(config.seconds));
  if (config.detail == Detail::sampled && config.sampleEvery == 0)
    throw CompareError("the sampling keeps one message in N: N must be at least 1");
}

/// One side while it runs: its recorder, its System, and how long it has run.
struct CompareRun::Running {
  std::unique_ptr<Recorder> recorder;  // declared first: destroyed after the System
  std::unique_ptr<System> system;
  std::chrono::steady_clock::time_point start{};
};

CompareRun::CompareRun(CompareConfig config, const Workloads& workloads, QObject* parent)
    : QObject(parent), config_(std::move(config)) {
  validateCompareConfig(config_, workloads);
  for (const Workload& w : workloads)
    if (w.name == config_.scenario) workload_ = w;
  tick_ = new QTimer(this);
  tick_->setInterval(250);
  connect(tick_, &QTimer::timeout, this, &CompareRun::tick);
}

CompareRun::~CompareRun() {
  // Whatever still runs ends here, its recording closed, without signals to anyone.
  blockSignals(true);
  for (auto& s : sides_)
    if (s && s->system) {
      s->system->shutdown();
      s->system->detach(*s->recorder);
    }
}

QString CompareRun::sideName(const CompareConfig& config, int side) {
  const CompareSideConfig& s = config.sides.at(static_cast<std::size_t>(side));
  return QStringLiteral("%1: %2×%3")
      .arg(side == 0 ? QLatin1Char('A') : QLatin1Char('B'))
      .arg(QString::fromStdString(s.runtime))
      .arg(s.threads);
}

void CompareRun::start() {
  if (started_) return;  // one run per object
  started_ = true;
  running_ = true;
  for (int side = 0; side < 2; ++side) {
    const QString& to = config_.sides[static_cast<std::size_t>(side)].recordTo;
    if (!to.isEmpty()) {
      files_[static_cast<std::size_t>(side)] = QFileInfo(to).absoluteFilePath();
      continue;
    }
    if (!tempDir_) {
      tempDir_ =
          std::make_shared<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/actorscope-compare-XXXXXX"));
      if (!tempDir_->isValid()) {
        // Reported on the next turn of the event loop, as every other outcome, so that whoever
        // called start() has connected its slots by then.
        const QString why = QStringLiteral(
                                "cannot create a temporary folder for the recordings in %1: %2. Choose "
                                "files to record into instead.")
                                .arg(QDir::tempPath(), tempDir_->errorString());
        QTimer::singleShot(0, this, [this, why] { fail(0, why); });
        return;
      }
    }
    files_[static_cast<std::size_t>(side)] =
        tempDir_->filePath(side == 0 ? QStringLiteral("side-a.db") : QStringLiteral("side-b.db"));
  }
  QTimer::singleShot(0, this, [this] {
    if (cancelled_) return settle();
    if (!startSide(0)) return;
    if (config_.concurrent && !startSide(1)) return;
    tick_->start();
  });
}

void CompareRun::cancel() {
  if (!running_ || cancelled_) return;
  cancelled_ = true;
  // Inside tick() (a qt side's shutdown processes this thread's events, a click on Cancel among
  // them): tick() sees the flag when the shutdown returns, and ends the rest from there.
  if (ticking_) return;
  for (int side = 0; side < 2; ++side) endSide(side);
  settle();
}

bool CompareRun::startSide(int side) {
  const auto i = static_cast<std::size_t>(side);
  const CompareSideConfig& s = config_.sides[i];
  RecorderOptions options = compareRecorderOptions(config_);
  options.if_exists = s.replace ? RecorderOptions::IfExists::replace : RecorderOptions::IfExists::refuse;
  auto running = std::make_unique<Running>();
  try {
    running->recorder = std::make_unique<Recorder>(files_[i].toStdString(), options);
    running->system = std::make_unique<System>(make_runtime(s.runtime, {.threads = s.threads}));
    running->system->attach(*running->recorder);
    running->start = std::chrono::steady_clock::now();
    sides_[i] = std::move(running);
    workload_.start(*sides_[i]->system, config_.seed);
  } catch (const std::exception& e) {
    // RecordingError names the file and what to do; a scenario that did not start says why.
    const QString why =
        sides_[i] ? QStringLiteral("the scenario did not start: %1").arg(QString::fromUtf8(e.what()))
                  : QString::fromUtf8(e.what());
    fail(side, why);  // ends this side too, if it got as far as running
    return false;
  }
  // The 250 ms tick reports progress; this ends the side on time rather than up to a tick late.
  QTimer::singleShot(static_cast<int>(std::ceil(config_.seconds * 1000)), this, [this] {
    if (running_) tick();
  });
  emit sideStarted(side);
  return true;
}

void CompareRun::tick() {
  // A side's shutdown may run this thread's events (the qt runtime's blocking waits do, on the
  // thread that made it), timers included: one tick at a time.
  if (ticking_ || !running_ || cancelled_) return;
  ticking_ = true;
  const auto done = qScopeGuard([this] { ticking_ = false; });
  using clock = std::chrono::steady_clock;
  for (int side = 0; side < 2; ++side) {
    if (!sides_[static_cast<std::size_t>(side)]) continue;
    auto& s = *sides_[static_cast<std::size_t>(side)];
    if (auto error = s.recorder->progress().error) {
      fail(side, QString::fromStdString(*error));
      return;
    }
    const double elapsed = std::chrono::duration<double>(clock::now() - s.start).count();
    emit sideProgress(side, std::min(elapsed, config_.seconds));
    if (elapsed < config_.seconds) continue;
    endSide(side);
    if (cancelled_) {  // cancel() came while the side shut down
      for (int other = 0; other < 2; ++other) endSide(other);
      settle();
      return;
    }
    done_[static_cast<std::size_t>(side)] = true;
    emit sideFinished(side, files_[static_cast<std::size_t>(side)]);
    // One after the other: B starts when A has ended, on the machine A has left.
    if (side == 0 && !config_.concurrent && !startSide(1)) return;
  }
  if (done_[0] && done_[1]) settle();
}

void CompareRun::endSide(int side) {
  // Taken out first: while it shuts down, nothing else sees it running.
  std::unique_ptr<Running> s = std::move(sides_[static_cast<std::size_t>(side)]);
  if (!s) return;
  s->system->shutdown();
  s->system->detach(*s->recorder);  // the final statistics, the last keyframe, ended_at
  s->system.reset();
  s->recorder.reset();  // closes the file: one self-contained .db again
}

void CompareRun::fail(int side, const QString& why) {
  if (!running_) return;  // one outcome per run
  // Not running from here on: a tick that comes while the sides shut down does nothing.
  running_ = false;
  tick_->stop();
  const QString message = QStringLiteral("%1 failed: %2").arg(sideName(config_, side), why);
  failure_ = message;
  for (int other = 0; other < 2; ++other) endSide(other);
  emit sideFailed(side, message);
}

void CompareRun::settle() {
  if (!running_) return;
  tick_->stop();
  running_ = false;
  if (cancelled_)
    emit cancelled();
  else
    emit finished();
}

}  // namespace actorscope::gui
