// Compare mode's two recorded runs (compare_run.hpp).
#include "gui/compare_run.hpp"

#include <actorscope/runtime.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/recording_error.hpp>
#include <actorscope/system.hpp>

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

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
  if (!config.sides[0].recordTo.isEmpty() &&
      QFileInfo(config.sides[0].recordTo).absoluteFilePath() == QFileInfo(config.sides[1].recordTo).absoluteFilePath())
    throw CompareError("side A and side B cannot be recorded into the same file \"" +
                       config.sides[0].recordTo.toStdString() + "\": give each its own");
  if (!(config.seconds > 0) || config.seconds > 3600 || !std::isfinite(config.seconds))
    throw CompareError("a comparison runs each side for more than 0 and at most 3600 seconds, not " +
                       std::to_string(config.seconds));
  if (config.detail == Detail::sampled && config.sampleEvery == 0)
    throw CompareError("the sampling keeps one message in N: N must be at least 1");
}

CompareRun::CompareRun(CompareConfig config, const Workloads& workloads, QObject* parent)
    : QObject(parent), config_(std::move(config)) {
  validateCompareConfig(config_, workloads);
  for (const Workload& w : workloads)
    if (w.name == config_.scenario) workload_ = w;
}

CompareRun::~CompareRun() {
  cancel_.store(true);
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

QString CompareRun::sideName(const CompareConfig& config, int side) {
  const CompareSideConfig& s = config.sides.at(static_cast<std::size_t>(side));
  return QStringLiteral("%1: %2×%3").arg(side == 0 ? QLatin1Char('A') : QLatin1Char('B'))
      .arg(QString::fromStdString(s.runtime))
      .arg(s.threads);
}

void CompareRun::start() {
  if (running_ || thread_.joinable()) return;  // one run per object
  for (int side = 0; side < 2; ++side) {
    const QString& to = config_.sides[static_cast<std::size_t>(side)].recordTo;
    if (!to.isEmpty()) {
      files_[static_cast<std::size_t>(side)] = QFileInfo(to).absoluteFilePath();
      continue;
    }
    if (!tempDir_) {
      tempDir_ = std::make_shared<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/actorscope-compare-XXXXXX"));
      if (!tempDir_->isValid()) {
        failure_ = QStringLiteral("cannot create a temporary folder for the recordings in %1: %2. Choose files "
                                  "to record into instead.")
                       .arg(QDir::tempPath(), tempDir_->errorString());
        QMetaObject::invokeMethod(this, [this] { emit sideFailed(0, failure_); }, Qt::QueuedConnection);
        return;
      }
    }
    files_[static_cast<std::size_t>(side)] = tempDir_->filePath(side == 0 ? QStringLiteral("side-a.db")
                                                                          : QStringLiteral("side-b.db"));
  }
  running_ = true;
  thread_ = std::thread([this] {
    bool ok = true;
    if (config_.concurrent) {
      // Both at once: side B on a thread of its own, side A on this one.
      bool okB = true;
      std::thread b([this, &okB] { okB = runSide(1); });
      const bool okA = runSide(0);
      b.join();
      ok = okA && okB;
    } else {
      ok = runSide(0) && !cancel_.load() && runSide(1);
    }
    const bool wasCancelled = cancel_.load();
    QMetaObject::invokeMethod(
        this,
        [this, ok, wasCancelled] {
          running_ = false;
          if (wasCancelled) emit cancelled();
          else if (ok) emit finished();
        },
        Qt::QueuedConnection);
  });
}

void CompareRun::cancel() {
  cancel_.store(true);
  cv_.notify_all();
}

void CompareRun::waitOrCancel(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(m_);
  cv_.wait_until(lock, until, [this] { return cancel_.load(); });
}

bool CompareRun::runSide(int side) {
  const auto i = static_cast<std::size_t>(side);
  const CompareSideConfig& s = config_.sides[i];
  const std::string file = files_[i].toStdString();
  auto fail = [this, side](const std::string& why) {
    const QString message = QStringLiteral("%1 failed: %2").arg(sideName(config_, side), QString::fromStdString(why));
    QMetaObject::invokeMethod(
        this,
        [this, side, message] {
          if (failure_.isEmpty()) failure_ = message;
          emit sideFailed(side, message);
        },
        Qt::QueuedConnection);
    return false;
  };
  if (cancel_.load()) return false;

  RecorderOptions options;
  options.detail = config_.detail;
  options.sample_every = config_.detail == Detail::sampled ? config_.sampleEvery : 1;
  options.scenario = config_.scenario;
  options.seed = config_.seed;
  options.if_exists = s.replace ? RecorderOptions::IfExists::replace : RecorderOptions::IfExists::refuse;
  std::optional<std::string> error;
  try {
    Recorder recorder(file, options);
    QMetaObject::invokeMethod(this, [this, side] { emit sideStarted(side); }, Qt::QueuedConnection);
    {
      System system{make_runtime(s.runtime, {.threads = s.threads})};
      system.attach(recorder);
      try {
        workload_.start(system, config_.seed);
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        const auto end =
            start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(config_.seconds));
        // Running for the configured time is the point: wake four times a second to report, or at
        // once when cancelled.
        for (auto now = clock::now(); now < end && !cancel_.load(); now = clock::now()) {
          if (auto e = recorder.progress().error) {
            error = *e;
            break;
          }
          waitOrCancel(std::min(end, now + std::chrono::milliseconds(250)));
          const double elapsed = std::min(config_.seconds, std::chrono::duration<double>(clock::now() - start).count());
          QMetaObject::invokeMethod(this, [this, side, elapsed] { emit sideProgress(side, elapsed); },
                                    Qt::QueuedConnection);
        }
      } catch (const std::exception& e) {
        error = std::string("the scenario did not start: ") + e.what();
      }
      system.shutdown();
      system.detach(recorder);  // the final statistics, the last keyframe, ended_at
    }
    if (!error) error = recorder.progress().error;
  } catch (const RecordingError& e) {
    return fail(e.what());  // it names the file and what to do
  } catch (const std::exception& e) {
    return fail(e.what());
  }  // the recorder closed the file: one self-contained .db again
  if (error) return fail(*error);
  const QString done = files_[i];
  QMetaObject::invokeMethod(this, [this, side, done] { emit sideFinished(side, done); }, Qt::QueuedConnection);
  return true;
}

}  // namespace actorscope::gui
