// How compare mode is started: the Session → Compare… dialog (a scenario and two configurations),
// the File → Compare Recordings… dialog (two files, and a session of each when a file has several),
// and CompareLauncher, which runs a comparison behind a progress dialog and opens the compare
// window on its two recordings. `actorscope compare` goes through the same launcher.
#pragma once

#include "gui/compare_run.hpp"
#include "gui/compare_window.hpp"
#include "gui/workload.hpp"

#include "cli/compare_command.hpp"

#include <QDialog>
#include <QObject>
#include <QPointer>

#include <array>
#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QProgressDialog;
class QSpinBox;

namespace actorscope::gui {

class CompareDialog : public QDialog {
  Q_OBJECT
 public:
  CompareDialog(const Workloads& workloads, const QString& scenario, QWidget* parent = nullptr);
  /// What the user chose (validated by CompareRun when it is made).
  CompareConfig config() const;
  /// Refuses "Keep the recordings" without a file for each side (says so, stays open).
  void accept() override;

 private:
  QComboBox* scenario_;
  std::array<QComboBox*, 2> runtime_{};
  std::array<QSpinBox*, 2> threads_{};
  QDoubleSpinBox* seconds_;
  QCheckBox* concurrent_;
  QCheckBox* keep_;
  std::array<QLineEdit*, 2> files_{};
};

class CompareRecordingsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit CompareRecordingsDialog(QWidget* parent = nullptr);
  std::array<CompareSource, 2> sources() const;
  /// Fills side `side`'s file (and its session list), as choosing it in the file picker does.
  void setFile(int side, const QString& file);

 private:
  std::array<QLineEdit*, 2> files_{};
  std::array<QComboBox*, 2> sessions_{};
};

/// Opens a compare window on two recordings (shown, deleted when closed). Returns it, or nullptr
/// with `error` set (the RecordingError's message, which names the file).
CompareWindow* openCompareWindow(QWidget* parent, const CompareSource& a, const CompareSource& b,
                                 std::shared_ptr<QTemporaryDir> temporary, QString* error);

/// Runs a comparison behind a progress dialog (cancellable), then opens the compare window.
/// Deletes itself when done.
class CompareLauncher : public QObject {
  Q_OBJECT
 public:
  /// Throws CompareError for a configuration that cannot run.
  CompareLauncher(CompareConfig config, const Workloads& workloads, QWidget* parent);
  void start();
  CompareRun* run() const noexcept { return run_; }

 signals:
  void opened(actorscope::gui::CompareWindow* window);
  /// The run failed or was cancelled (`message` empty), or the window could not open.
  void failed(const QString& message);

 private:
  QWidget* parentWidget_;
  CompareRun* run_;
  QPointer<QProgressDialog> progress_;
};

/// `actorscope compare ...` once parsed: a QApplication, then the launcher or the window.
int runCompareCommand(int argc, char** argv, const cli::CompareRequest& request, Workloads workloads);

}  // namespace actorscope::gui
