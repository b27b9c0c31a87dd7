// CompareRun: compare mode's runs. One scenario, with one seed, under two configurations (a runtime
// and a thread count each: asio×1 against asio×2 works as well as asio against qt), each side
// headless on a System of its own for the same number of seconds and recorded into a file: the
// user's (--record-a/--record-b, the dialog's "keep") or a temporary one that lives as long as the
// CompareRun's files() does. By default side B starts when side A has ended, so that neither takes
// the other's cores; `concurrent` runs both at once (the window then says they shared the machine).
//
// The Systems are made, run and shut down on the thread that owns the CompareRun (the GUI thread:
// the qt runtime must be made on the thread that owns the QApplication, which becomes its GUI
// host), while their actors run on their runtimes' own threads. A timer reports progress four times
// a second and ends each side on time; cancel() ends the side(s) running now early (their
// recordings still close cleanly) and starts nothing more. A side's end (shutdown, the recorder's
// last flush) holds that thread for as long as it takes, typically a few milliseconds.
#pragma once

#include "gui/workload.hpp"

#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/recording_format.hpp>

#include <QObject>
#include <QString>

#include <QTimer>

#include <array>
#include <memory>
#include <stdexcept>

class QTemporaryDir;

namespace actorscope::gui {

/// A comparison that cannot run as asked (unknown runtime or scenario, no threads, a file that
/// exists): what() names the value and the choices.
class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompareSideConfig {
  std::string runtime = "asio";
  unsigned threads = 2;
  /// Where to record this side; empty: a temporary file.
  QString recordTo;
  /// Replace recordTo if it exists (the user confirmed); otherwise an existing file is refused.
  bool replace = false;
};

struct CompareConfig {
  std::string scenario;
  std::array<CompareSideConfig, 2> sides;
  double seconds = 5;
  std::uint64_t seed = 1;
  bool concurrent = false;
  /// What each side records. A live session records at `sampled` detail (LiveSession::
  /// startRecording), and so does compare mode by default: one message in `sampleEvery` becomes an
  /// event and is timed, the counters stay exact. At `full`, every message is an event: the
  /// latencies are complete, and the recorder's cost per message is higher.
  Detail detail = Detail::sampled;
  std::uint32_t sampleEvery = 100;
};

/// What each side's Recorder is given: the detail and sampling, the scenario and seed (not the
/// file, nor what to do if it exists). The compare benchmark records "alone" with the same.
RecorderOptions compareRecorderOptions(const CompareConfig& config);

/// Checks `config` against the runtimes this build has and the workloads given. Throws CompareError.
void validateCompareConfig(const CompareConfig& config, const Workloads& workloads);

class CompareRun : public QObject {
  Q_OBJECT
 public:
  /// Validates (CompareError) but does not start.
  CompareRun(CompareConfig config, const Workloads& workloads, QObject* parent = nullptr);
  /// Ends what still runs (its recording closes cleanly).
  ~CompareRun() override;

  void start();
  /// Ends the side(s) running now, early, and runs no more; cancelled() follows, their recordings
  /// closed.
  void cancel();

  const CompareConfig& config() const noexcept { return config_; }
  /// The recordings (valid once the side finished); temporary ones live as long as the
  /// QTemporaryDir returned by temporaryDir(), which the compare window keeps.
  QString file(int side) const { return files_.at(static_cast<std::size_t>(side)); }
  std::shared_ptr<QTemporaryDir> temporaryDir() const { return tempDir_; }
  /// Which side failed and why; empty when none did.
  QString failure() const { return failure_; }
  bool running() const noexcept { return running_; }

  /// "A: asio×2" / "B: qt×1".
  static QString sideName(const CompareConfig& config, int side);

 signals:
  void sideStarted(int side);
  void sideProgress(int side, double secondsElapsed);
  void sideFinished(int side, const QString& file);
  void sideFailed(int side, const QString& message);
  /// Both sides recorded: open the window on file(0) and file(1).
  void finished();
  /// cancel() took effect; the recordings made so far are closed.
  void cancelled();

 private:
  struct Running;
  /// Starts side `side` (Recorder, System, workload). Returns false when it failed (reported).
  bool startSide(int side);
  /// Shuts side `side` down, closes its recording, reports it; then what comes next.
  void endSide(int side);
  void tick();
  void fail(int side, const QString& why);
  void settle();

  CompareConfig config_;
  Workload workload_;
  std::array<QString, 2> files_;
  std::shared_ptr<QTemporaryDir> tempDir_;
  QString failure_;
  bool running_ = false;
  bool cancelled_ = false;
  bool started_ = false;
  bool ticking_ = false;  ///< inside tick(): see cancel()
  std::array<std::unique_ptr<Running>, 2> sides_;
  std::array<bool, 2> done_{};
  QTimer* tick_ = nullptr;
};

}  // namespace actorscope::gui
