// Screenshots: runs a scenario in the main window (offscreen or not) for a few seconds, then saves
// one PNG per view and one of the whole window. This is `actorscope --screenshot DIR`, and how the
// pictures in the user guide are made.
#pragma once

#include <QString>
#include <QStringList>

#include "gui/workload.hpp"

#include <actorscope/runtime.hpp>

#include <array>

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace actorscope::gui {

class MainWindow;

struct ScreenshotOptions {
  QString dir;
  QString scenario;
  QString runtime = QStringLiteral("asio");
  unsigned threads = 2;
  double seconds = 3.0;
  /// A recording to replay instead of a live scenario: its session (nullopt: the only one; a file
  /// with several needs it), and the cursor from the session's start (nullopt: the end).
  QString recording;
  std::optional<std::int64_t> session;
  std::optional<Duration> at;
  /// The actor the inspector shows, by its registered name ("" : the one the first warning names,
  /// else the most interesting one).
  QString select;
};

/// The directory cannot be created or written, or the scenario would not start. what() is for users.
class ScreenshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `--screenshot DIR --compare asio,qt --scenario S`: compare mode's pictures.
struct CompareScreenshotOptions {
  QString dir;
  QString scenario;
  std::array<QString, 2> runtimes;
  std::array<unsigned, 2> threads{2, 2};
  double seconds = 2.0;  ///< per side
};

/// Checks that `dir` exists (creating it if needed) and is writable. Throws ScreenshotError.
void prepareScreenshotDir(const QString& dir);

/// Runs the scenario, picks an interesting actor for the inspector, freezes the views and saves
/// `<view>.png` for every view and `window.png`. With a recording: opens it, puts the cursor at
/// `at`, and saves every view of the replay, `timeline.png` and `window.png` (no benchmarks).
/// Returns the files written. Throws ScreenshotError (a bad recording: its message).
QStringList takeScreenshots(MainWindow& window, const ScreenshotOptions& options);

/// Runs the comparison (side A, then side B, into temporary recordings), opens the compare window
/// at 1366×768 and saves compare-window.png, compare-actors.png, compare-charts.png,
/// compare-diff.png and compare-warnings.png (app/gui/compare_screenshots.cpp). Throws
/// ScreenshotError (a configuration that cannot run, a side that failed: their messages).
QStringList takeCompareScreenshots(const CompareScreenshotOptions& options, const Workloads& workloads);

}  // namespace actorscope::gui
