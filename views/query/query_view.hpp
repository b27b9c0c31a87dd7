// QueryView: "ask the recording anything". A SQL editor, Run (Ctrl+Enter), and the result as a
// table, over the open recording (a RecordingQuery: its own read-only connection). The Examples
// menu holds the example queries of docs/RECORDING-FORMAT.md, moved to the open session. A bad
// query shows SQLite's message; a statement that would write is refused. Clicking a row with an
// actor id selects that actor; a row with a time (t_ns, or at_s into the session) asks the replay
// cursor to go there (timeRequested). Statements run on a worker thread, so that a long one
// leaves the window responsive and can be cancelled.
#pragma once

#include "common/actor_selection.hpp"

#include <actorscope/runtime.hpp>
#include <actorscope/storage/query.hpp>

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QWidget>

#include <atomic>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

class QLabel;
class QMenu;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QToolButton;

namespace actorscope {
class SessionReader;
}

namespace actorscope::views {

/// A QueryResult as a table: numbers right-aligned, NULL greyed, a blob by its size.
class QueryResultModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit QueryResultModel(QObject* parent = nullptr);

  void setResult(QueryResult result);
  void clear();
  const QueryResult& result() const noexcept { return result_; }

  /// The column named `name` (case-insensitive), or -1.
  int column(std::string_view name) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QueryResult result_;
};

class QueryView : public QWidget {
  Q_OBJECT
 public:
  /// `selection` takes the actor of a clicked row (may be null).
  explicit QueryView(ActorSelection* selection, QWidget* parent = nullptr);
  ~QueryView() override;

  /// Queries `file` from now on, through a read-only connection of its own. The examples are
  /// given for `session`; `sessionStart` (its start on the runtime clock) turns an `at_s` column
  /// into a time. A file that cannot be opened shows its RecordingError in the status line.
  void setRecording(const std::filesystem::path& file, std::int64_t session, TimePoint sessionStart);
  /// The same for the file and session a replay has open.
  void setRecording(const SessionReader& reader, std::int64_t session);
  /// No recording: the editor stays, Run is disabled.
  void clearRecording();
  bool hasRecording() const noexcept { return query_ != nullptr; }

  QPlainTextEdit* editor() const noexcept { return editor_; }
  QTableView* table() const noexcept { return table_; }
  QueryResultModel* model() const noexcept { return model_; }
  QMenu* examplesMenu() const noexcept { return examples_; }
  /// The line under the table: rows and time, "stopped at 10,000 rows", or the error.
  QString statusText() const;
  bool isRunning() const noexcept { return worker_.joinable(); }
  /// The message of the last run's error ("" after a run that succeeded).
  const QString& lastError() const noexcept { return lastError_; }

  /// Rows kept per run (QueryOptions::max_rows).
  void setMaxRows(std::size_t rows) { maxRows_ = rows; }

  /// Runs the editor's statement (Ctrl+Enter). Ignored while one runs or without a recording.
  void run();
  /// Stops the statement that runs.
  void cancel();
  /// Activates row `row` as a click on its cell in `column` would (-1: the row as a whole).
  void activateRow(int row, int column = -1);

 signals:
  /// The replay cursor should move to `t` (runtime clock).
  void timeRequested(actorscope::TimePoint t);
  /// A run ended: the result or its error is shown.
  void finished();

 private:
  struct Outcome {
    std::optional<QueryResult> result;
    QString error;
    double seconds = 0;
    std::uint64_t generation = 0;  ///< which run (or recording) it belongs to
  };
  void showOutcome();
  void stopWorker();
  void updateButtons();

  ActorSelection* selection_;
  std::shared_ptr<const RecordingQuery> query_;
  std::int64_t session_ = 1;
  std::optional<TimePoint> sessionStart_;
  std::size_t maxRows_ = QueryOptions{}.max_rows;

  QPlainTextEdit* editor_;
  QPushButton* run_;
  QPushButton* cancel_;
  QToolButton* examplesButton_;
  QMenu* examples_;
  QTableView* table_;
  QueryResultModel* model_;
  QLabel* status_;
  QString lastError_;
  /// Bumped by every run and every change of recording: an outcome of an older one is not shown.
  std::uint64_t generation_ = 0;

  std::thread worker_;
  /// The running statement's cancel flag (QueryOptions::cancel), shared with its worker.
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  QFutureWatcher<Outcome>* watcher_;
};

}  // namespace actorscope::views
