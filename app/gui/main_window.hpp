// MainWindow: the observatory. It hosts one Session at a time: the live one (a toolbar picks the
// scenario, the runtime and its threads, and starts, pauses and stops it) or a recording replayed
// (File → Open Recording, a file dropped on the window, `actorscope FILE.db`), which a banner
// names and a timeline dock scrubs. The views, made from one table (view_descriptors.hpp), sit in
// docks around a tabbed centre and render the session's SystemState; the status bar shows the
// runtime, actors alive, rates and dropped events. Only visible views are refreshed; hidden ones
// catch up when shown.
#pragma once

#include "gui/live_session.hpp"
#include "gui/replay_session.hpp"
#include "gui/view_descriptors.hpp"
#include "gui/theme.hpp"
#include "gui/workload.hpp"

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <actorscope/observe/histogram.hpp>

#include <actorscope/benchmarks/runner.hpp>

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>

#include <atomic>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QDragEnterEvent;
class QDropEvent;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QSpinBox;
class QToolBar;
class QTabWidget;

namespace actorscope::views {
class ActorInspector;
class ActorsView;
class BenchmarksView;
class EventLogView;
class MessageFlowView;
class ProcessGroupsView;
class SupervisionGraphView;
class SupervisionTreeView;
class TimersView;
class WarningsView;
}  // namespace actorscope::views

namespace actorscope::gui {

class TimelineDock;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  struct Options {
    /// Restore the window layout and choices from QSettings (and save them on close).
    bool useSettings = true;
  };

  MainWindow(Workloads workloads, Options options, QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Selects a scenario, runtime and thread count in the toolbar and starts a session. Returns
  /// "" on success, otherwise what went wrong (also shown in the status bar).
  QString startSession(const QString& workload, const QString& runtime, unsigned threads);
  void stopSession();
  /// Pause (the user's): the views freeze on a copy of the state while the session keeps folding.
  void setPaused(bool paused);
  /// Freezes the views as a pause does, without pausing in the user's eyes: the status bar and the
  /// Pause button still say what the session does. For pictures (--screenshot) of one instant.
  void holdViews(bool hold);
  /// Starts recording the session to `file` (`replace`: overwrite an existing file). Returns ""
  /// on success, otherwise what went wrong (also shown to the user).
  QString startRecording(const QString& file, bool replace);
  void stopRecording();
  bool paused() const noexcept { return userPaused_; }

  /// The live session (the toolbar's). It exists, stopped, while a recording is shown.
  LiveSession& session() noexcept { return *session_; }
  /// The session the views show: the live one, or the replayed recording.
  Session& current() noexcept;
  const Session& current() const noexcept;
  /// The replayed recording, or nullptr when the live session is shown.
  ReplaySession* replay() const noexcept { return replay_.get(); }

  // -- replay --
  /// Opens session `session` of the recording `file` read-only and shows it (the live session
  /// stops). Without `session`: the file's only session; when it has several, a dialog asks which
  /// (`ask`), or (not `ask`) it is refused with a message naming them. Returns "" on success,
  /// otherwise what is wrong and what to do (the RecordingError's message); the window then shows
  /// what it showed before.
  QString openRecording(const QString& file, std::optional<std::int64_t> session = std::nullopt, bool ask = true);
  /// openRecording() from the user's hand (menu, recent files, a drop): an error gets a dialog
  /// (window-modal, not blocking) that names the file, says what is wrong and what to do.
  QString openRecordingFromUser(const QString& file, std::optional<std::int64_t> session = std::nullopt);
  /// Back to the live session (stopped, its toolbar ready).
  void closeRecording();
  /// The recent recordings, newest first (File → Open Recent).
  QStringList recentRecordings() const;
  /// The last error dialog shown for a recording (or nullptr); for tests.
  QWidget* lastErrorDialog() const noexcept { return errorDialog_; }
  /// The banner that says a replay is shown, and what it is.
  QLabel* banner() const noexcept { return banner_; }
  TimelineDock* timeline() const noexcept;
  views::ActorSelection& selection() noexcept { return *selection_; }
  /// The state the views show now (the live one, or the frozen copy while paused).
  const observe::SystemState& shownState() const;

  /// A view made from its ViewDescriptor.
  struct View {
    QString id;     ///< "supervision-tree", "actors", ...: also the screenshot's file name
    QString title;  ///< "Supervision tree"
    QWidget* widget;
    views::StateView* view;  ///< nullptr for a view that does not render the state (benchmarks, timeline)
    const ViewDescriptor* descriptor = nullptr;
    QDockWidget* dock = nullptr;  ///< nullptr for a central tab
    int intervalMs = 100;
    bool dirty = false;
    qint64 lastMs = -1000000;
    const observe::SystemState* shown = nullptr;  ///< the state it was last given (it may keep a pointer)
  };
  const std::vector<View>& viewList() const noexcept { return views_; }
  /// Brings a view to the front (raises its dock or switches the central tab).
  void showView(const QString& id);
  /// The view with this id (nullptr if none).
  const View* findView(const QString& id) const;
  /// Whether the view is offered in the session shown now (the timeline only in a replay).
  bool viewInMode(const View& v) const;

  void showView(const View& v);
  views::SupervisionTreeView* treeView() const noexcept { return tree_; }
  views::SupervisionGraphView* graphView() const noexcept { return graph_; }
  views::ActorsView* actorsView() const noexcept { return actors_; }
  views::WarningsView* warningsView() const noexcept { return warnings_; }
  views::ActorInspector* inspector() const noexcept { return inspector_; }
  views::BenchmarksView* benchmarksView() const noexcept { return bench_; }

  /// Runs the benchmark suite (what `actorscope bench` runs) on the GUI thread, processing events
  /// meanwhile, shows it in the Benchmarks view and appends it to the benchmark history (unless
  /// `history` is false). Returns once the run is over (finished, cancelled or refused).
  void runBenchmarks(const bench::RunOptions& options, bool history = true);
  /// Asks a running benchmark run to stop after its current sample.
  void cancelBenchmarks() noexcept { benchCancel_.store(true); }
  bool benchmarksRunning() const noexcept { return benchRunning_; }

  void setTheme(Theme theme);
  /// Time spent refreshing the views per update (ns).
  const observe::LogHistogram& refreshTimes() const noexcept { return refreshNs_; }
  void resetRefreshTimes() { refreshNs_.clear(); }
  /// The last refresh's wall time and the UI thread's CPU time for it (ns).
  std::uint64_t lastRefreshNs() const noexcept { return lastRefreshNs_; }
  std::uint64_t lastRefreshCpuNs() const noexcept { return lastRefreshCpuNs_; }

  static constexpr QSize kDefaultSize{1366, 768};

 signals:
  /// The views show a new state.
  void refreshed();
  /// Another session is shown (live ↔ replay, another recording).
  void sessionChanged();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildActions();
  void buildFileMenu();
  void rebuildRecentMenu();
  void rememberRecent(const QString& file);
  /// Shows the views and bars of the session shown now (live or replay), and the banner.
  void applyMode();
  /// The views forget the session they showed (before the state they point to goes away).
  void resetViews();
  void showRecordingError(const QString& title, const QString& text);
  void buildToolBar();
  void buildViews();
  void buildMenus();
  void buildStatusBar();
  QDockWidget* addDock(const QString& id, const QString& title, const QString& iconName, QWidget* widget,
                       Qt::DockWidgetArea area);
  void refreshViews();
  void refreshView(View& v, const observe::SystemState& state);
  /// The state a view is given: the shown one, or for a view centred on a replay's cursor the state
  /// that runs past it.
  const observe::SystemState& stateFor(const View& v, const observe::SystemState& shown) const;
  void catchUp();
  void updateStatus();
  void updateActions();
  void restoreLayout();
  void saveLayout();
  void onSessionStarted();
  void startFromToolbar();
  void toggleRecording(bool on);
  /// Freezes or thaws the views (pause and holdViews).
  void freeze(bool on);
  /// A toolbar choice changed: a running session restarts with it at once, so that what the
  /// toolbar shows is what runs (a stopped one starts with it on Start).
  void applyToolbarChoice();
  /// Says, in the status bar and beside the box, that a thread count was refused and why.
  void refuseThreads(const QString& typed);
  /// `path` for the status bar in at most `width` pixels: leading folders give way to "…", the file
  /// name stays whole.
  QString fitPath(const QString& path, int width) const;
  ActorId targetActor() const;

  Workloads workloads_;
  Options options_;
  std::unique_ptr<LiveSession> session_;
  std::unique_ptr<ReplaySession> replay_;
  /// The views' ActorControl: it forwards to the shown session's control (none for a replay).
  std::unique_ptr<views::ActorControl> control_;
  views::ActorSelection* selection_;
  std::unique_ptr<observe::SystemState> frozen_;
  bool userPaused_ = false;
  /// Actors alive in the state the tree was last given (or would have been, hidden): the status
  /// bar's count, so that it always agrees with the tree's.
  std::size_t aliveShown_ = 0;
  bool syncingToolbar_ = false;  ///< the toolbar is being set from code, not by the user
  QString lastRecording_;        ///< the file of the last recording that ended
  std::vector<View> views_;
  QByteArray defaultState_;

  views::SupervisionTreeView* tree_ = nullptr;
  views::SupervisionGraphView* graph_ = nullptr;
  views::ActorsView* actors_ = nullptr;
  views::ActorInspector* inspector_ = nullptr;
  views::ProcessGroupsView* groups_ = nullptr;
  views::TimersView* timers_ = nullptr;
  views::MessageFlowView* flow_ = nullptr;
  views::EventLogView* events_ = nullptr;
  views::WarningsView* warnings_ = nullptr;
  views::BenchmarksView* bench_ = nullptr;
  std::atomic<bool> benchCancel_{false};
  bool benchRunning_ = false;
  bool closeAfterBench_ = false;  // the window was closed during a run: close once it has stopped
  QTabWidget* central_ = nullptr;
  QDockWidget* warningsDock_ = nullptr;
  std::vector<QDockWidget*> docks_;
  QToolBar* sessionBar_ = nullptr;
  QToolBar* replayBar_ = nullptr;
  QLabel* banner_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* closeRecordingAction_ = nullptr;
  QPointer<QWidget> errorDialog_;
  QStringList recent_;  ///< without settings (tests, screenshots): kept for this run only

  QComboBox* scenarioBox_ = nullptr;
  QComboBox* runtimeBox_ = nullptr;
  QSpinBox* threadsBox_ = nullptr;
  QAction* startAction_ = nullptr;
  QAction* pauseAction_ = nullptr;
  QAction* stopAction_ = nullptr;
  QAction* recordAction_ = nullptr;
  QAction* stopActorAction_ = nullptr;
  QAction* killActorAction_ = nullptr;
  QAction* sendActorAction_ = nullptr;
  QAction* findAction_ = nullptr;
  QAction* resetLayoutAction_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  std::vector<QAction*> themeActions_;

  QLabel* runtimeLabel_ = nullptr;
  QLabel* actorsLabel_ = nullptr;
  QLabel* messagesLabel_ = nullptr;
  QLabel* eventsLabel_ = nullptr;
  QLabel* droppedLabel_ = nullptr;
  QLabel* samplingLabel_ = nullptr;
  QLabel* recordLabel_ = nullptr;
  QLabel* stateLabel_ = nullptr;

  observe::LogHistogram refreshNs_;
  std::uint64_t lastRefreshNs_ = 0;
  std::uint64_t lastRefreshCpuNs_ = 0;
  QElapsedTimer clock_;
  Theme theme_ = Theme::system;
};

}  // namespace actorscope::gui
