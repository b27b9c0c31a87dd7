// The observatory's main window.
#include "gui/main_window.hpp"

#include "gui/compare_dialogs.hpp"

#include "gui/machine_load.hpp"
#include "gui/timeline_dock.hpp"

#include "actors/actors_view.hpp"
#include "bench/benchmarks_view.hpp"
#include "cli/bench_catalogue.hpp"
#include "common/actor_table.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/icons.hpp"
#include "events/event_log_view.hpp"
#include "flow/message_flow_view.hpp"
#include "groups/process_groups_view.hpp"
#include "inspector/actor_inspector.hpp"
#include "timers/timers_view.hpp"
#include "tree/supervision_graph_view.hpp"
#include "tree/supervision_tree_view.hpp"
#include "warnings/warnings_view.hpp"

#include <actorscope/benchmarks/history_store.hpp>
#include <actorscope/runtime.hpp>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHeaderView>
#include <QMimeData>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QTableView>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QToolTip>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <QValidator>

#include <cstdio>
#include <ctime>
#include <functional>
#include <map>

namespace actorscope::gui {
namespace {

constexpr int kSettingsVersion = 1;

std::uint64_t threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

/// The thread count: any number can be typed, and one out of range is refused out loud (the
/// plain QSpinBox dropped the keystroke, so "999" became 9 without a word).
class ThreadsBox : public QSpinBox {
 public:
  using QSpinBox::QSpinBox;
  std::function<void(const QString&)> refused;

 protected:
  QValidator::State validate(QString& text, int& pos) const override {
    const QString t = text.trimmed();
    if (t.isEmpty()) return QValidator::Intermediate;
    for (const QChar c : t)
      if (!c.isDigit()) return QValidator::Invalid;
    if (t.size() > 6) return QValidator::Invalid;
    const int v = t.toInt();
    if (v >= minimum() && v <= maximum()) return QSpinBox::validate(text, pos);
    return QValidator::Intermediate;  // typed on: it is refused, and said so, when confirmed
  }
  void fixup(QString& text) const override {
    const QString t = text.trimmed();
    if (!t.isEmpty() && refused) refused(t);
    QSpinBox::fixup(text);
  }
};

/// The views' actor actions go to whatever session the window shows: a live one's System, or
/// nothing (a replay is read-only, and its actions are disabled).
class ControlProxy : public views::ActorControl {
 public:
  explicit ControlProxy(MainWindow* window) : window_(window) {}
  bool canControl(ActorId id) const override {
    views::ActorControl* c = window_->current().control();
    return c != nullptr && c->canControl(id);
  }
  void stopActor(ActorId id) override {
    if (views::ActorControl* c = window_->current().control()) c->stopActor(id);
  }
  void killActor(ActorId id) override {
    if (views::ActorControl* c = window_->current().control()) c->killActor(id);
  }
  QString demoMessageName(ActorId id) const override {
    views::ActorControl* c = window_->current().control();
    return c != nullptr ? c->demoMessageName(id) : QString();
  }
  void sendDemoMessage(ActorId id) override {
    if (views::ActorControl* c = window_->current().control()) c->sendDemoMessage(id);
  }

 private:
  MainWindow* window_;
};

Qt::DockWidgetArea dockArea(ViewDescriptor::Place place) {
  switch (place) {
    case ViewDescriptor::Place::left: return Qt::LeftDockWidgetArea;
    case ViewDescriptor::Place::right: return Qt::RightDockWidgetArea;
    case ViewDescriptor::Place::top: return Qt::TopDockWidgetArea;
    case ViewDescriptor::Place::bottom:
    case ViewDescriptor::Place::central: break;
  }
  return Qt::BottomDockWidgetArea;
}

/// Asks which of a file's sessions to open; nullopt when the user cancels.
std::optional<std::int64_t> chooseSession(QWidget* parent, const QString& file, const std::vector<SessionInfo>& sessions) {
  QDialog dialog(parent);
  dialog.setWindowTitle(QStringLiteral("Open which session?"));
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(QStringLiteral("<b>%1</b> holds %2 recorded sessions. Which one should be replayed?")
                                   .arg(QFileInfo(file).fileName().toHtmlEscaped())
                                   .arg(sessions.size()),
                               &dialog));
  auto* list = new QTreeWidget(&dialog);
  list->setObjectName(QStringLiteral("sessions"));
  list->setRootIsDecorated(false);
  list->setHeaderLabels({QStringLiteral("Session"), QStringLiteral("Started"), QStringLiteral("Scenario"),
                         QStringLiteral("Runtime"), QStringLiteral("Length"), QStringLiteral("Events"),
                         QStringLiteral("Ended")});
  for (const SessionInfo& s : sessions) {
    const auto started = std::chrono::duration_cast<std::chrono::milliseconds>(s.started_at.time_since_epoch()).count();
    auto* item = new QTreeWidgetItem(
        list, {QString::number(s.id), QDateTime::fromMSecsSinceEpoch(started).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
               s.scenario.empty() ? QStringLiteral("(a program)") : QString::fromStdString(s.scenario),
               QStringLiteral("%1 · %2 threads").arg(QString::fromStdString(s.runtime)).arg(s.threads),
               views::formatDuration(s.duration()), QString::number(s.events_recorded),
               s.ended_cleanly() ? QStringLiteral("cleanly") : QStringLiteral("not cleanly (or still recording)")});
    item->setData(0, Qt::UserRole, static_cast<qlonglong>(s.id));
  }
  list->setCurrentItem(list->topLevelItem(list->topLevelItemCount() - 1));  // the newest
  list->header()->resizeSections(QHeaderView::ResizeToContents);
  layout->addWidget(list);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  QObject::connect(list, &QTreeWidget::itemDoubleClicked, &dialog, &QDialog::accept);
  layout->addWidget(buttons);
  dialog.resize(760, 320);
  if (dialog.exec() != QDialog::Accepted || list->currentItem() == nullptr) return std::nullopt;
  return list->currentItem()->data(0, Qt::UserRole).toLongLong();
}

constexpr int kRecentMax = 8;

QLabel* statusField(QWidget* parent, const QString& tip) {
  auto* l = new QLabel(parent);
  l->setToolTip(tip);
  l->setContentsMargins(8, 0, 8, 0);
  return l;
}

}  // namespace

MainWindow::MainWindow(Workloads workloads, Options options, QWidget* parent)
    : QMainWindow(parent), workloads_(std::move(workloads)), options_(options) {
  setWindowTitle(QStringLiteral("Actorscope"));
  setWindowIcon(views::icon(QStringLiteral("c-app")));
  setObjectName(QStringLiteral("ActorscopeMainWindow"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::GroupedDragging);
  session_ = std::make_unique<LiveSession>(this);
  control_ = std::make_unique<ControlProxy>(this);
  selection_ = new views::ActorSelection(this);
  if (options_.useSettings) recent_ = QSettings().value(QStringLiteral("recentRecordings")).toStringList();

  buildActions();
  buildToolBar();
  buildViews();
  buildMenus();
  buildStatusBar();
  resize(kDefaultSize);
  if (const View* tree = findView(QStringLiteral("supervision-tree")); tree && tree->dock)
    if (const View* insp = findView(QStringLiteral("inspector")); insp && insp->dock)
      resizeDocks({tree->dock, insp->dock}, {330, 300}, Qt::Horizontal);
  if (warningsDock_ != nullptr) resizeDocks({warningsDock_}, {190}, Qt::Vertical);
  if (const View* t = findView(QStringLiteral("timeline")); t && t->dock) resizeDocks({t->dock}, {150}, Qt::Vertical);
  defaultState_ = saveState(kSettingsVersion);
  if (options_.useSettings) restoreLayout();
  setAcceptDrops(true);

  connect(session_.get(), &LiveSession::updated, this, &MainWindow::refreshViews);
  connect(session_.get(), &LiveSession::started, this, &MainWindow::onSessionStarted);
  connect(session_.get(), &LiveSession::stopped, this, &MainWindow::updateActions);
  connect(session_.get(), &LiveSession::recordingChanged, this, [this](bool on) {
    recordAction_->setChecked(on);
    updateActions();
  });
  connect(session_.get(), &LiveSession::message, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
  connect(scenarioBox_, &QComboBox::activated, this, &MainWindow::applyToolbarChoice);
  connect(runtimeBox_, &QComboBox::activated, this, &MainWindow::applyToolbarChoice);
  connect(threadsBox_, &QSpinBox::valueChanged, this, [this] {
    if (!syncingToolbar_) applyToolbarChoice();
  });
  connect(selection_, &views::ActorSelection::changed, this, &MainWindow::updateActions);
  applyMode();
  updateStatus();
}

MainWindow::~MainWindow() {
  // Views keep pointers to the state the session owns: stop the session while they exist, and let
  // them forget a replay's state before it goes.
  session_->stop();
  if (replay_) {
    resetViews();
    replay_.reset();
  }
}

Session& MainWindow::current() noexcept {
  if (replay_) return *replay_;
  return *session_;
}
const Session& MainWindow::current() const noexcept {
  if (replay_) return *replay_;
  return *session_;
}

TimelineDock* MainWindow::timeline() const noexcept {
  const View* v = findView(QStringLiteral("timeline"));
  return v != nullptr ? qobject_cast<TimelineDock*>(v->widget) : nullptr;
}

void MainWindow::buildActions() {
  startAction_ = new QAction(views::icon(QStringLiteral("start")), QStringLiteral("Start"), this);
  startAction_->setObjectName(QStringLiteral("start"));
  startAction_->setShortcut(Qt::Key_F5);
  startAction_->setToolTip(QStringLiteral("Start the scenario on the chosen runtime (F5); restarts a running one"));
  connect(startAction_, &QAction::triggered, this, &MainWindow::startFromToolbar);

  pauseAction_ = new QAction(views::icon(QStringLiteral("pause")), QStringLiteral("Pause"), this);
  pauseAction_->setObjectName(QStringLiteral("pause"));
  pauseAction_->setShortcut(Qt::Key_F6);
  pauseAction_->setCheckable(true);
  pauseAction_->setToolTip(QStringLiteral("Freeze the views to read them (F6). The system keeps running and "
                                          "nothing it does is lost: resuming jumps to the present."));
  connect(pauseAction_, &QAction::toggled, this, &MainWindow::setPaused);

  stopAction_ = new QAction(views::icon(QStringLiteral("stop")), QStringLiteral("Stop"), this);
  stopAction_->setObjectName(QStringLiteral("stop"));
  stopAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  stopAction_->setToolTip(QStringLiteral("Shut the system down (Shift+F5); the final picture stays on show"));
  connect(stopAction_, &QAction::triggered, this, &MainWindow::stopSession);

  recordAction_ = new QAction(views::icon(QStringLiteral("c-record")), QStringLiteral("Record"), this);
  recordAction_->setObjectName(QStringLiteral("record"));
  recordAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  recordAction_->setCheckable(true);
  recordAction_->setToolTip(QStringLiteral("Record the live session to an SQLite file (Ctrl+R): lifecycle events, "
                                           "sampled messages and exact counters, for 'actorscope inspect' and "
                                           "'actorscope export'"));
  connect(recordAction_, &QAction::triggered, this, &MainWindow::toggleRecording);

  stopActorAction_ = new QAction(views::icon(QStringLiteral("actor-stop")), QStringLiteral("Stop Actor"), this);
  stopActorAction_->setShortcut(Qt::Key_Delete);
  connect(stopActorAction_, &QAction::triggered, this, [this] { control_->stopActor(targetActor()); });
  killActorAction_ = new QAction(views::icon(QStringLiteral("actor-kill")), QStringLiteral("Kill Actor"), this);
  killActorAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Delete));
  connect(killActorAction_, &QAction::triggered, this, [this] { control_->killActor(targetActor()); });
  sendActorAction_ = new QAction(views::icon(QStringLiteral("send")), QStringLiteral("Send Demo Message"), this);
  sendActorAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
  connect(sendActorAction_, &QAction::triggered, this, [this] { control_->sendDemoMessage(targetActor()); });

  openAction_ = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), QStringLiteral("Open Recording…"), this);
  openAction_->setObjectName(QStringLiteral("open-recording"));
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setToolTip(QStringLiteral("Replay a recording (Ctrl+O): a file written by Record, 'actorscope record' or "
                                         "a program's own as::Recorder. It is opened read-only."));
  connect(openAction_, &QAction::triggered, this, [this] {
    const QString start = recent_.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                                            : QFileInfo(recent_.front()).absolutePath();
    const QString file = QFileDialog::getOpenFileName(this, QStringLiteral("Open a recording"), start,
                                                      QStringLiteral("Actorscope recordings (*.db);;All files (*)"));
    if (!file.isEmpty()) openRecordingFromUser(file);
  });
  closeRecordingAction_ = new QAction(QStringLiteral("Close Recording"), this);
  closeRecordingAction_->setObjectName(QStringLiteral("close-recording"));
  closeRecordingAction_->setShortcut(QKeySequence::Close);
  closeRecordingAction_->setToolTip(QStringLiteral("Leave the replay for the live observatory (Ctrl+W)"));
  connect(closeRecordingAction_, &QAction::triggered, this, &MainWindow::closeRecording);
  for (QAction* a : {startAction_, pauseAction_, stopAction_, recordAction_, stopActorAction_, killActorAction_,
                     sendActorAction_, openAction_, closeRecordingAction_})
    addAction(a);
}

void MainWindow::buildToolBar() {
  QToolBar* bar = addToolBar(QStringLiteral("Session"));
  sessionBar_ = bar;
  bar->setObjectName(QStringLiteral("SessionToolBar"));
  bar->setMovable(false);
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->setIconSize(QSize(18, 18));

  auto caption = [bar](const QString& text) {
    auto* l = new QLabel(text, bar);
    l->setContentsMargins(8, 0, 4, 0);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
  };
  scenarioBox_ = new QComboBox(bar);
  scenarioBox_->setObjectName(QStringLiteral("scenario"));
  scenarioBox_->setMinimumContentsLength(12);
  for (const Workload& w : workloads_) {
    scenarioBox_->addItem(QString::fromStdString(w.name));
    scenarioBox_->setItemData(scenarioBox_->count() - 1, QString::fromStdString(w.summary), Qt::ToolTipRole);
  }
  scenarioBox_->setToolTip(QStringLiteral("The demo scenario to run; choosing one restarts the session with it"));
  runtimeBox_ = new QComboBox(bar);
  runtimeBox_->setObjectName(QStringLiteral("runtime"));
  for (const std::string& name : runtime_names())
    if (name != "manual") runtimeBox_->addItem(QString::fromStdString(name));  // manual needs a driver, not a GUI
  runtimeBox_->setItemData(runtimeBox_->findText(QStringLiteral("asio")),
                           QStringLiteral("A Boost.Asio thread pool: actors run on any pool thread"), Qt::ToolTipRole);
  runtimeBox_->setItemData(runtimeBox_->findText(QStringLiteral("qt")),
                           QStringLiteral("Qt event loops: each actor is pinned to one event-loop thread"),
                           Qt::ToolTipRole);
  runtimeBox_->setToolTip(QStringLiteral("The runtime the actors run on; choosing one restarts the session on it"));
  auto* threads = new ThreadsBox(bar);
  threads->refused = [this](const QString& typed) { refuseThreads(typed); };
  threadsBox_ = threads;
  threadsBox_->setObjectName(QStringLiteral("threads"));
  threadsBox_->setRange(1, 64);
  threadsBox_->setValue(2);
  // The count is taken when confirmed (Enter, leaving the box, the arrows), not at every digit.
  threadsBox_->setKeyboardTracking(false);
  threadsBox_->setToolTip(QStringLiteral("Worker threads of the runtime, 1 to 64; a change restarts a running "
                                         "session with it"));

  bar->addWidget(caption(QStringLiteral("Scenario")));
  bar->addWidget(scenarioBox_);
  bar->addWidget(caption(QStringLiteral("Runtime")));
  bar->addWidget(runtimeBox_);
  bar->addWidget(caption(QStringLiteral("Threads")));
  bar->addWidget(threadsBox_);
  bar->addSeparator();
  bar->addAction(startAction_);
  bar->addAction(pauseAction_);
  bar->addAction(stopAction_);
  bar->addSeparator();
  bar->addAction(recordAction_);

  // A replay's bar: the banner that says plainly what is shown, and the way back to live.
  replayBar_ = addToolBar(QStringLiteral("Replay"));
  replayBar_->setObjectName(QStringLiteral("ReplayToolBar"));
  replayBar_->setMovable(false);
  replayBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  banner_ = new QLabel(replayBar_);
  banner_->setObjectName(QStringLiteral("replay-banner"));
  banner_->setTextFormat(Qt::RichText);
  banner_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  banner_->setContentsMargins(8, 3, 8, 3);
  banner_->setAutoFillBackground(true);
  banner_->setBackgroundRole(QPalette::ToolTipBase);  // not the live window's grey: a replay stands out
  banner_->setForegroundRole(QPalette::ToolTipText);
  replayBar_->addWidget(banner_);
  replayBar_->addAction(openAction_);
  replayBar_->addAction(closeRecordingAction_);
  replayBar_->hide();
}

QDockWidget* MainWindow::addDock(const QString& id, const QString& title, const QString& iconName, QWidget* widget,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(id + QStringLiteral("-dock"));
  dock->setWidget(widget);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetFloatable);
  dock->toggleViewAction()->setIcon(views::icon(iconName));
  addDockWidget(area, dock);
  docks_.push_back(dock);
  connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible) catchUp();
  });
  return dock;
}

void MainWindow::buildViews() {
  const ViewContext context{this, selection_, control_.get()};
  central_ = new QTabWidget(this);
  central_->setDocumentMode(true);
  std::map<ViewDescriptor::Place, QDockWidget*> lastDock, firstDock;
  for (const ViewDescriptor& d : viewDescriptors()) {
    QWidget* widget = d.make(context);
    View v{d.id, d.title, widget, dynamic_cast<views::StateView*>(widget), &d, nullptr, d.intervalMs};
    if (d.place == ViewDescriptor::Place::central) {
      central_->addTab(widget, views::icon(d.icon), d.title);
    } else {
      v.dock = addDock(d.id, d.title, d.icon, widget, dockArea(d.place));
      // Docks of one area share it as tabs, in the table's order, the first one on top.
      if (auto last = lastDock.find(d.place); last != lastDock.end()) tabifyDockWidget(last->second, v.dock);
      lastDock[d.place] = v.dock;
      firstDock.emplace(d.place, v.dock);
    }
    views_.push_back(v);
  }
  for (const auto& [place, dock] : firstDock) dock->raise();
  setCentralWidget(central_);
  connect(central_, &QTabWidget::currentChanged, this, [this] { catchUp(); });
  // The bottom docks span the centre only: the tree and the inspector keep the full height.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

  auto widgetOf = [this](const char* id) { return findView(QString::fromLatin1(id)) ? findView(QString::fromLatin1(id))->widget : nullptr; };
  tree_ = qobject_cast<views::SupervisionTreeView*>(widgetOf("supervision-tree"));
  graph_ = qobject_cast<views::SupervisionGraphView*>(widgetOf("supervision-graph"));
  actors_ = qobject_cast<views::ActorsView*>(widgetOf("actors"));
  inspector_ = qobject_cast<views::ActorInspector*>(widgetOf("inspector"));
  groups_ = qobject_cast<views::ProcessGroupsView*>(widgetOf("process-groups"));
  timers_ = qobject_cast<views::TimersView*>(widgetOf("timers"));
  flow_ = qobject_cast<views::MessageFlowView*>(widgetOf("message-flow"));
  events_ = qobject_cast<views::EventLogView*>(widgetOf("event-log"));
  warnings_ = qobject_cast<views::WarningsView*>(widgetOf("warnings"));
  bench_ = qobject_cast<views::BenchmarksView*>(widgetOf("benchmarks"));
  if (const View* w = findView(QStringLiteral("warnings")); w != nullptr && warnings_ != nullptr) {
    warningsDock_ = w->dock;
    connect(warnings_, &views::WarningsView::countChanged, this, [this](int n) {
      if (warningsDock_ != nullptr)
        warningsDock_->setWindowTitle(n > 0 ? QStringLiteral("Warnings (%1)").arg(n) : QStringLiteral("Warnings"));
    });
  }

  clock_.start();
  // Spread the views over the ticks, so that the heavy ones (tree, graph, table) never all refresh
  // in the same frame: each starts at its own phase of its interval.
  for (std::size_t i = 0; i < views_.size(); ++i)
    views_[i].lastMs = -static_cast<qint64>(views_[i].intervalMs) + static_cast<qint64>(i % 3) * 80;
}

const MainWindow::View* MainWindow::findView(const QString& id) const {
  for (const View& v : views_)
    if (v.id == id) return &v;
  return nullptr;
}

bool MainWindow::viewInMode(const View& v) const {
  return (v.descriptor->modes & (replay_ ? ViewDescriptor::replay : ViewDescriptor::live)) != 0;
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  file->addAction(openAction_);
  recentMenu_ = file->addMenu(QStringLiteral("Open &Recent"));
  recentMenu_->setObjectName(QStringLiteral("recent-recordings"));
  rebuildRecentMenu();
  // Compare mode opens a window of its own (app/gui/compare_*), so this window keeps its session.
  QAction* compareFiles = file->addAction(QStringLiteral("&Compare Recordings…"), this, [this] {
    CompareRecordingsDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted) return;
    const auto sources = dialog.sources();
    QString error;
    if (!openCompareWindow(this, sources[0], sources[1], nullptr, &error))
      showRecordingError(QStringLiteral("Could not compare the recordings"), error);
  });
  compareFiles->setObjectName(QStringLiteral("compare-recordings"));
  file->addAction(closeRecordingAction_);
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  quit->setMenuRole(QAction::QuitRole);

  QMenu* session = menuBar()->addMenu(QStringLiteral("&Session"));
  session->addAction(startAction_);
  session->addAction(pauseAction_);
  session->addAction(stopAction_);
  session->addAction(recordAction_);
  session->addSeparator();
  QAction* compare = session->addAction(QStringLiteral("&Compare…"), this, [this] {
    CompareDialog dialog(workloads_, scenarioBox_ ? scenarioBox_->currentText() : QString(), this);
    if (dialog.exec() != QDialog::Accepted) return;
    try {
      (new CompareLauncher(dialog.config(), workloads_, this))->start();
    } catch (const CompareError& e) {
      QMessageBox::warning(this, QStringLiteral("Cannot compare"), QString::fromUtf8(e.what()));
    }
  });
  compare->setObjectName(QStringLiteral("compare"));
  compare->setToolTip(QStringLiteral("Run one scenario on two runtimes (or thread counts) and show them side by side"));

  QMenu* actor = menuBar()->addMenu(QStringLiteral("&Actor"));
  actor->addAction(stopActorAction_);
  actor->addAction(killActorAction_);
  actor->addAction(sendActorAction_);
  actor->setToolTipsVisible(true);

  QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
  viewMenu_ = view;
  for (int i = 0; i < central_->count(); ++i) {
    QAction* a = view->addAction(central_->tabIcon(i), central_->tabText(i));
    a->setShortcut(QKeySequence(static_cast<int>(Qt::CTRL) | (Qt::Key_1 + i)));
    connect(a, &QAction::triggered, this, [this, i] { central_->setCurrentIndex(i); });
  }
  view->addSeparator();
  for (QDockWidget* d : docks_) view->addAction(d->toggleViewAction());
  view->addSeparator();
  findAction_ = view->addAction(views::icon(QStringLiteral("search")), QStringLiteral("Find Actor…"));
  findAction_->setShortcut(QKeySequence::Find);
  connect(findAction_, &QAction::triggered, this, [this] {
    for (QDockWidget* d : docks_)
      if (d->widget() == tree_ && tree_ != nullptr) {
        d->show();
        d->raise();
      }
    tree_->focusSearch();
  });
  QMenu* theme = view->addMenu(views::icon(QStringLiteral("theme")), QStringLiteral("Theme"));
  auto* group = new QActionGroup(this);
  for (Theme t : {Theme::system, Theme::light, Theme::dark}) {
    QString label = themeName(t);
    label[0] = label[0].toUpper();
    QAction* a = theme->addAction(label);
    a->setCheckable(true);
    a->setData(static_cast<int>(t));
    group->addAction(a);
    themeActions_.push_back(a);
    connect(a, &QAction::triggered, this, [this, t] { setTheme(t); });
  }
  themeActions_[0]->setChecked(true);
  resetLayoutAction_ = view->addAction(views::icon(QStringLiteral("layout-reset")), QStringLiteral("Reset Layout"));
  connect(resetLayoutAction_, &QAction::triggered, this, [this] {
    restoreState(defaultState_, kSettingsVersion);
    for (QDockWidget* d : docks_) d->show();
    if (warningsDock_ != nullptr) warningsDock_->raise();
    applyMode();  // the docks of the other mode hide again
  });

  QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
  help->addAction(QStringLiteral("Keyboard Shortcuts"), this, [this] {
    QMessageBox::information(
        this, QStringLiteral("Keyboard shortcuts"),
        QStringLiteral("<table cellpadding='3'>"
                       "<tr><td><b>F5</b></td><td>start (or restart) the scenario</td></tr>"
                       "<tr><td><b>F6</b></td><td>pause / resume the views</td></tr>"
                       "<tr><td><b>Shift+F5</b></td><td>stop the system</td></tr>"
                       "<tr><td><b>Ctrl+F</b></td><td>find an actor in the tree</td></tr>"
                       "<tr><td><b>Ctrl+1…6</b></td><td>graph, actors, message flow, event log, factories, benchmarks</td></tr>"
                       "<tr><td><b>Delete</b></td><td>stop the selected actor</td></tr>"
                       "<tr><td><b>Shift+Delete</b></td><td>kill the selected actor</td></tr>"
                       "<tr><td><b>Ctrl+M</b></td><td>send the selected actor its demo message</td></tr>"
                       "<tr><td><b>Ctrl+O</b></td><td>open a recording to replay</td></tr>"
                       "<tr><td colspan='2'><i>In a replay, with the timeline focused:</i></td></tr>"
                       "<tr><td><b>Space</b></td><td>play / pause</td></tr>"
                       "<tr><td><b>← / →</b></td><td>step back / forward (Shift: ten times further)</td></tr>"
                       "<tr><td><b>Home / End</b></td><td>the start / the end (while following: go live)</td></tr>"
                       "<tr><td><b>Ctrl+W</b></td><td>close the recording</td></tr>"
                       "</table>"));
  });
  help->addAction(QStringLiteral("About Actorscope"), this, [this] {
    QMessageBox::about(this, QStringLiteral("About Actorscope"),
                       QStringLiteral("<h3>Actorscope</h3><p>An actor engine for C++20 in the Erlang/OTP tradition, "
                                      "on a runtime chosen at run time, and the observatory that shows it running: "
                                      "supervision, groups, timers, messages and warnings, live.</p>"));
  });
}

void MainWindow::buildStatusBar() {
  stateLabel_ = statusField(this, QStringLiteral("Session state"));
  stateLabel_->setObjectName(QStringLiteral("session-state"));
  runtimeLabel_ = statusField(this, QStringLiteral("The runtime and its worker threads"));
  actorsLabel_ = statusField(this, QStringLiteral("Actors alive in the picture the views show: the same count as the "
                                                  "supervision tree's"));
  actorsLabel_->setObjectName(QStringLiteral("alive-count"));
  messagesLabel_ = statusField(this, QStringLiteral("Messages handled per second, all actors (exact counters)"));
  eventsLabel_ = statusField(this, QStringLiteral("Observation events taken from the engine per second"));
  droppedLabel_ = statusField(this, QStringLiteral("Observation events dropped because the engine produced them faster "
                                                   "than the observatory took them (counted, never silent)"));
  samplingLabel_ = statusField(this, QString());
  recordLabel_ = statusField(this, QString());
  recordLabel_->setObjectName(QStringLiteral("recording"));
  recordLabel_->hide();
  statusBar()->addPermanentWidget(recordLabel_);
  for (QLabel* l : {stateLabel_, runtimeLabel_, actorsLabel_, messagesLabel_, eventsLabel_, samplingLabel_, droppedLabel_})
    statusBar()->addPermanentWidget(l);
}

void MainWindow::resetViews() {
  for (View& v : views_) {
    if (v.view == nullptr) continue;
    v.view->resetSession();
    v.shown = nullptr;
    v.dirty = true;
  }
  selection_->select({});
  aliveShown_ = 0;
}

void MainWindow::onSessionStarted() {
  resetViews();
  frozen_.reset();
  userPaused_ = false;
  aliveShown_ = 0;
  lastRecording_.clear();
  pauseAction_->setChecked(false);
  updateActions();
}

QString MainWindow::startSession(const QString& workload, const QString& runtime, unsigned threads) {
  const int w = scenarioBox_->findText(workload);
  if (w < 0) {
    QStringList names;
    for (int i = 0; i < scenarioBox_->count(); ++i) names << scenarioBox_->itemText(i);
    const QString error = QStringLiteral("There is no scenario \"%1\"; the scenarios are: %2.").arg(workload, names.join(QStringLiteral(", ")));
    statusBar()->showMessage(error, 10000);
    return error;
  }
  if (replay_) closeRecording();  // a live session replaces the replay
  syncingToolbar_ = true;
  scenarioBox_->setCurrentIndex(w);
  if (runtimeBox_->findText(runtime) >= 0) runtimeBox_->setCurrentIndex(runtimeBox_->findText(runtime));
  threadsBox_->setValue(static_cast<int>(threads));
  syncingToolbar_ = false;
  SessionConfig config;
  config.runtime = runtime.toStdString();
  config.threads = threads;
  try {
    session_->start(workloads_[static_cast<std::size_t>(w)], config);
  } catch (const SessionError& e) {
    const QString error = QString::fromUtf8(e.what());
    statusBar()->showMessage(error, 10000);
    updateActions();
    return error;
  }
  statusBar()->showMessage(QStringLiteral("Running %1 on %2 with %3 threads").arg(workload, runtime).arg(threads), 4000);
  setWindowTitle(QStringLiteral("%1 on %2 — Actorscope").arg(workload, runtime));
  return {};
}

void MainWindow::startFromToolbar() {
  const QString error =
      startSession(scenarioBox_->currentText(), runtimeBox_->currentText(), static_cast<unsigned>(threadsBox_->value()));
  if (!error.isEmpty()) {
    QMessageBox::warning(this, QStringLiteral("Could not start"), error);
    statusBar()->clearMessage();  // said in the dialog; it must not linger after it
  }
}

void MainWindow::applyToolbarChoice() {
  if (!session_->running()) {
    updateActions();  // Start's tooltip names the choice it will start
    return;
  }
  const SessionConfig& running = session_->config();
  const Workload* workload = session_->workload();
  const bool same = workload != nullptr && QString::fromStdString(workload->name) == scenarioBox_->currentText() &&
                    QString::fromStdString(running.runtime) == runtimeBox_->currentText() &&
                    running.threads == static_cast<unsigned>(threadsBox_->value());
  if (!same) startFromToolbar();
}

void MainWindow::refuseThreads(const QString& typed) {
  const QString why = QStringLiteral("%1 threads is not a choice: a runtime takes 1 to %2 threads. Kept %3.")
                          .arg(typed)
                          .arg(threadsBox_->maximum())
                          .arg(threadsBox_->value());
  statusBar()->showMessage(why, 8000);
  QToolTip::showText(threadsBox_->mapToGlobal(QPoint(0, threadsBox_->height())), why, threadsBox_);
}

QString MainWindow::startRecording(const QString& file, bool replace) {
  try {
    session_->startRecording(file.toStdString(), replace);
  } catch (const SessionError& e) {
    recordAction_->setChecked(false);
    return QString::fromUtf8(e.what());  // the caller shows it (the toolbar: in a dialog)
  }
  lastRecording_.clear();
  statusBar()->showMessage(QStringLiteral("Recording to %1").arg(fitPath(file, statusBar()->width() / 2)), 4000);
  updateStatus();
  return {};
}

void MainWindow::stopRecording() {
  const QString file = QString::fromStdString(session_->recordingFile());
  session_->stopRecording();
  if (!file.isEmpty()) {
    // The status bar's message shares the bar with its fields: the path is fitted to what is left,
    // and the field where "● REC" was says "✓ recorded" with the whole of it in its tooltip.
    lastRecording_ = file;
    updateStatus();
    int fields = 0, count = 0;
    for (QLabel* l : {stateLabel_, runtimeLabel_, actorsLabel_, messagesLabel_, eventsLabel_, samplingLabel_,
                      droppedLabel_, recordLabel_})
      if (!l->isHidden()) {
        fields += l->sizeHint().width();
        ++count;
      }
    const int spacing = statusBar()->layout() ? statusBar()->layout()->spacing() : 6;
    const QString tail = QStringLiteral(": actorscope inspect summarises it");
    const int room = statusBar()->width() - fields - (count + 2) * std::max(spacing, 4) - 40 -
                     statusBar()->fontMetrics().horizontalAdvance(QStringLiteral("Recorded ") + tail);
    statusBar()->showMessage(QStringLiteral("Recorded %1%2").arg(fitPath(file, room), tail), 10000);
  }
  updateStatus();
}

QString MainWindow::fitPath(const QString& path, int width) const {
  const QFontMetrics fm = statusBar()->fontMetrics();
  if (fm.horizontalAdvance(path) <= width) return path;
  const QFileInfo info(path);
  QStringList folders = QDir::toNativeSeparators(info.absolutePath()).split(QDir::separator(), Qt::SkipEmptyParts);
  const QString name = info.fileName();
  while (!folders.isEmpty()) {
    folders.removeFirst();
    const QString tried = QStringLiteral("…") + QDir::separator() +
                          (folders.isEmpty() ? QString() : folders.join(QDir::separator()) + QDir::separator()) + name;
    if (fm.horizontalAdvance(tried) <= width) return tried;
  }
  return name;  // the file name is never cut
}

void MainWindow::toggleRecording(bool on) {
  if (!on) {
    stopRecording();
    return;
  }
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  const QString suggested = QDir(dir.isEmpty() ? QDir::currentPath() : dir)
                                .filePath(QStringLiteral("actorscope-%1-%2.db")
                                              .arg(scenarioBox_->currentText(),
                                                   QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
  // The dialog asks before overwriting a file, so a confirmed choice replaces it.
  const QString file = QFileDialog::getSaveFileName(this, QStringLiteral("Record the session to"), suggested,
                                                    QStringLiteral("Actorscope recordings (*.db);;All files (*)"));
  if (file.isEmpty()) {
    recordAction_->setChecked(false);
    return;
  }
  const QString error = startRecording(file, true);
  if (!error.isEmpty()) {
    QMessageBox::warning(this, QStringLiteral("Could not record"), error);
    statusBar()->clearMessage();
  }
}

void MainWindow::stopSession() {
  session_->stop();
  statusBar()->showMessage(QStringLiteral("Stopped: the final picture stays on show"), 4000);
}

const observe::SystemState& MainWindow::shownState() const { return frozen_ ? *frozen_ : current().state(); }

void MainWindow::setPaused(bool paused) {
  if (paused == userPaused_) return;
  userPaused_ = paused;
  if (pauseAction_->isChecked() != paused) pauseAction_->setChecked(paused);
  freeze(paused);
}

void MainWindow::holdViews(bool hold) {
  if (userPaused_) return;  // already frozen by the user, who thaws it
  freeze(hold);
}

void MainWindow::freeze(bool on) {
  if (on == (frozen_ != nullptr)) {
    updateStatus();
    return;
  }
  if (on) {
    frozen_ = std::make_unique<observe::SystemState>(session_->state());
  } else {
    // Views may keep a pointer to the state they were given: none may keep the frozen copy.
    for (View& v : views_)
      if (v.shown == frozen_.get()) refreshView(v, session_->state());
    frozen_.reset();
  }
  refreshViews();
}

const observe::SystemState& MainWindow::stateFor(const View& v, const observe::SystemState& shown) const {
  return replay_ && v.descriptor->centred && &shown == &replay_->state() ? replay_->aheadState() : shown;
}

void MainWindow::refreshView(View& v, const observe::SystemState& shown) {
  const observe::SystemState& state = stateFor(v, shown);
  if (v.descriptor->centred)
    v.view->setFocusTime(replay_ && &state != &shown ? std::optional<TimePoint>(replay_->cursor()) : std::nullopt);
  v.shown = &state;
  v.view->setState(state);
  v.dirty = false;
  v.lastMs = clock_.elapsed();
}

void MainWindow::refreshViews() {
  QElapsedTimer timer;
  timer.start();
  const std::uint64_t cpu0 = threadCpuNs();
  const observe::SystemState& state = shownState();
  static const bool trace = qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_REFRESH");
  const qint64 now = clock_.elapsed();
  // A frozen picture (pause), a stopped session or a replay's cursor is shown at once, whatever the
  // intervals: a scrub must show the state it asked for.
  const bool immediate = frozen_ != nullptr || replay_ != nullptr || !session_->running();
  // A big system's tables and tree are slower to refresh, and nobody reads 10,000 rows four
  // times a second: those views slow down to twice their interval, and at most one of them
  // refreshes per frame (the others wait a frame or two), so that their costs never add up.
  const bool big = state.actors().size() > 2000;
  bool heavyDone = false;
  for (View& v : views_) {
    if (v.view == nullptr || !viewInMode(v)) continue;
    const bool heavy = v.descriptor->heavy;
    if (!immediate && (now - v.lastMs < v.intervalMs * (big && heavy ? 2 : 1) || (big && heavy && heavyDone))) {
      v.dirty = true;
      continue;
    }
    // The status bar counts the actors of the state the tree shows, when the tree is given it (or
    // would be, were it visible): the two counts never disagree.
    if (v.widget == tree_) aliveShown_ = state.alive_count();
    // Hidden views wait (they catch up when shown); the warnings always run, for the dock's count.
    if (v.widget->isVisible() || v.widget == warnings_) {
      QElapsedTimer vt;
      vt.start();
      refreshView(v, state);
      if (heavy) heavyDone = true;
      if (trace) std::fprintf(stderr, "%s %.2f ms\n", qPrintable(v.id), vt.nsecsElapsed() / 1e6);
    } else {
      v.dirty = true;
      // A replay's state is replaced whole at each step, and the one a hidden view was given goes
      // soon: the view forgets it (and what it found in it), and catches up when shown.
      // (A centred view's was a state past the cursor, never the shown one: it forgets it too.)
      if (replay_ && v.shown != nullptr && v.shown != &state) {
        v.view->resetSession();
        v.shown = nullptr;
      }
    }
  }
  updateStatus();
  lastRefreshNs_ = static_cast<std::uint64_t>(timer.nsecsElapsed());
  lastRefreshCpuNs_ = threadCpuNs() - cpu0;
  refreshNs_.record(lastRefreshNs_);
  emit refreshed();
}

void MainWindow::catchUp() {
  const observe::SystemState& state = shownState();
  for (View& v : views_)
    if (v.view != nullptr && v.dirty && v.widget->isVisible() && viewInMode(v)) refreshView(v, state);
}

void MainWindow::showView(const QString& id) {
  if (const View* v = findView(id)) showView(*v);
}

void MainWindow::showView(const View& v) {
  if (!viewInMode(v)) return;
  if (v.dock != nullptr) {
    v.dock->show();
    v.dock->raise();
  } else {
    central_->setCurrentWidget(v.widget);
  }
  catchUp();
}

void MainWindow::updateStatus() {
  // Style sheets restyle (and repaint) on every call, and a label relays out on every text: set
  // them only when they change, since this runs with every update.
  auto restyle = [](QLabel* label, const QString& sheet) {
    if (label->styleSheet() != sheet) label->setStyleSheet(sheet);
  };
  auto setText = [](QLabel* label, const QString& text) {
    if (label->text() != text) label->setText(text);
  };
  if (replay_) {
    // A replay: where the cursor is, and what the recording holds. Rates of a live system mean
    // nothing here.
    const SessionInfo& info = replay_->info();
    const bool tail = replay_->following() && replay_->atTail();
    setText(stateLabel_, replay_->following() ? (tail ? QStringLiteral("● following (live)")
                                                      : QStringLiteral("● following, scrolled back"))
                                              : QStringLiteral("● replay"));
    restyle(stateLabel_, QStringLiteral("color: %1;").arg(
        (tail ? views::healthColor(views::Health::running, palette()) : palette().color(QPalette::Highlight)).name()));
    const observe::SystemState& s = replay_->state();
    setText(runtimeLabel_, QStringLiteral("%1 · %2 threads")
                               .arg(QString::fromStdString(s.runtime().empty() ? info.runtime : s.runtime()))
                               .arg(s.runtime().empty() ? info.threads : s.threads()));
    setText(actorsLabel_, QStringLiteral("%1 alive").arg(aliveShown_));
    setText(messagesLabel_, QStringLiteral("at %1 of %2")
                                .arg(views::formatDuration(replay_->cursor() - info.start_time),
                                     views::formatDuration(info.duration())));
    messagesLabel_->setToolTip(QStringLiteral("The cursor's time from the session's start, and the session's length"));
    setText(eventsLabel_, QStringLiteral("%1 events recorded").arg(views::formatCount(static_cast<double>(info.events_recorded))));
    setText(droppedLabel_, QStringLiteral("%1 dropped").arg(views::formatCount(static_cast<double>(info.events_dropped))));
    restyle(droppedLabel_, info.events_dropped > 0 ? QStringLiteral("color: %1;").arg(views::errorColor(palette()).name())
                                                   : QString());
    setText(samplingLabel_, info.detail == Detail::sampled ? QStringLiteral("1:%1 sampled").arg(info.sample_every)
                                                           : QString::fromUtf8(to_string(info.detail).data()) +
                                                                 QStringLiteral(" detail"));
    samplingLabel_->setToolTip(QStringLiteral("How much of the event stream the recording kept; counters are exact"));
    inspector_->setTimingNote(info.detail == Detail::sampled && info.sample_every > 1
                                  ? QStringLiteral("Queue and handling times cover the recorded messages, one in %1 "
                                                   "per actor.")
                                        .arg(info.sample_every)
                                  : QString());
    recordLabel_->hide();
    return;
  }
  messagesLabel_->setToolTip(QStringLiteral("Messages handled per second, all actors (exact counters)"));
  samplingLabel_->setToolTip(QString());
  const LiveSession::Metrics m = session_->metrics();
  const bool running = session_->running();
  const observe::SystemState& s = session_->state();
  setText(stateLabel_, running ? (paused() ? QStringLiteral("● paused") : QStringLiteral("● live"))
                               : QStringLiteral("● stopped"));
  restyle(stateLabel_, QStringLiteral("color: %1;").arg(
      (running && !paused() ? views::healthColor(views::Health::running, palette())
                            : running ? views::warningColor(palette()) : palette().color(QPalette::PlaceholderText))
          .name()));
  setText(runtimeLabel_, s.runtime().empty()
                             ? QStringLiteral("no runtime")
                             : QStringLiteral("%1 · %2 threads").arg(QString::fromStdString(s.runtime())).arg(s.threads()));
  setText(actorsLabel_, QStringLiteral("%1 alive").arg(running || aliveShown_ > 0 ? aliveShown_ : m.alive));
  setText(messagesLabel_, QStringLiteral("%1 msgs").arg(views::formatRate(m.messagesPerSecond)));
  setText(eventsLabel_, QStringLiteral("%1 events").arg(views::formatRate(m.eventsPerSecond)));
  setText(droppedLabel_, QStringLiteral("%1 dropped").arg(views::formatCount(static_cast<double>(m.dropped))));
  // How the message events are taken: the sampling, and whether the sampled ones are timed.
  const bool timing = session_->timingActive() || !running;
  setText(samplingLabel_, !running ? QString()
                          : QStringLiteral("1:%1 sampled%2").arg(session_->sampleEvery()).arg(timing ? QString() : QStringLiteral(", no timing")));
  samplingLabel_->setToolTip(
      QStringLiteral("One message in %1 per receiving actor becomes a message event for the flow chart and the latency "
                     "histograms; the sampling adapts to the message rate. Counters stay exact.%2")
          .arg(session_->sampleEvery())
          .arg(timing ? QStringLiteral(" The sampled messages are also timed (queue and handling times), so the "
                                       "histograms and the inspector's queue and handling times describe them, not "
                                       "every message.")
                      : QString()));
  inspector_->setTimingNote(running && timing && session_->sampleEvery() > 1
                                ? QStringLiteral("Queue and handling times cover the sampled messages, one in %1 "
                                                 "per actor: the system is too busy to time every message.")
                                      .arg(session_->sampleEvery())
                                : QString());
  if (const auto progress = session_->recordingProgress()) {
    setText(recordLabel_, QStringLiteral("● REC %1 · %2 events")
                              .arg(QFileInfo(QString::fromStdString(session_->recordingFile())).fileName(),
                                   views::formatCount(static_cast<double>(progress->events_recorded))));
    recordLabel_->setToolTip(QStringLiteral("Recording to %1; %2 events written, %3 dropped%4")
                                 .arg(QString::fromStdString(session_->recordingFile()))
                                 .arg(progress->events_recorded)
                                 .arg(progress->events_dropped)
                                 .arg(progress->error ? QStringLiteral(": ") + QString::fromStdString(*progress->error)
                                                      : QString()));
    restyle(recordLabel_, QStringLiteral("color: %1; font-weight: bold;").arg(views::errorColor(palette()).name()));
    recordLabel_->show();
  } else if (!lastRecording_.isEmpty()) {
    setText(recordLabel_, QStringLiteral("✓ recorded"));
    recordLabel_->setToolTip(QStringLiteral("Recorded to %1\nactorscope inspect \"%1\" summarises it")
                                 .arg(QDir::toNativeSeparators(lastRecording_)));
    restyle(recordLabel_, QString());
    recordLabel_->show();
  } else {
    recordLabel_->hide();
  }
  restyle(droppedLabel_, m.dropped > 0 ? QStringLiteral("color: %1;").arg(views::errorColor(palette()).name())
                                             : QString());
}

ActorId MainWindow::targetActor() const { return selection_->current(); }

void MainWindow::updateActions() {
  // A replay is read-only: nothing to start, pause, stop or record, and no actor to act on.
  const bool live = replay_ == nullptr;
  const bool running = live && session_->running();
  startAction_->setText(running ? QStringLiteral("Restart") : QStringLiteral("Start"));
  startAction_->setToolTip(QStringLiteral("%1 %2 on %3 with %4 threads (F5)")
                               .arg(running ? QStringLiteral("Restart") : QStringLiteral("Start"), scenarioBox_->currentText(),
                                    runtimeBox_->currentText())
                               .arg(threadsBox_->value()));
  startAction_->setEnabled(live && !workloads_.empty());
  pauseAction_->setEnabled(running);
  stopAction_->setEnabled(running);
  recordAction_->setEnabled(running);
  recordAction_->setChecked(live && session_->recording());
  scenarioBox_->setEnabled(live);
  runtimeBox_->setEnabled(live);
  threadsBox_->setEnabled(live);
  closeRecordingAction_->setEnabled(!live);
  const ActorId id = targetActor();
  const bool controllable = control_->canControl(id);
  stopActorAction_->setEnabled(controllable);
  killActorAction_->setEnabled(controllable);
  sendActorAction_->setEnabled(controllable && !control_->demoMessageName(id).isEmpty());
  updateStatus();
}

void MainWindow::setTheme(Theme theme) {
  theme_ = theme;
  applyTheme(theme);
  for (QAction* a : themeActions_) a->setChecked(a->data().toInt() == static_cast<int>(theme));
  // Rows cache nothing colour-dependent, but painted views and labels need a fresh paint.
  for (View& v : views_) v.widget->update();
  if (replay_) banner_->setText(replay_->banner());
  updateStatus();
}

void MainWindow::restoreLayout() {
  QSettings settings;
  settings.beginGroup(QStringLiteral("MainWindow"));
  if (settings.value(QStringLiteral("version")).toInt() == kSettingsVersion) {
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("state")).toByteArray(), kSettingsVersion);
    central_->setCurrentIndex(settings.value(QStringLiteral("tab"), 0).toInt());
    syncingToolbar_ = true;
    const int s = scenarioBox_->findText(settings.value(QStringLiteral("scenario")).toString());
    if (s >= 0) scenarioBox_->setCurrentIndex(s);
    const int r = runtimeBox_->findText(settings.value(QStringLiteral("runtime")).toString());
    if (r >= 0) runtimeBox_->setCurrentIndex(r);
    threadsBox_->setValue(settings.value(QStringLiteral("threads"), 2).toInt());
    syncingToolbar_ = false;
    if (auto t = themeFromName(settings.value(QStringLiteral("theme")).toString())) setTheme(*t);
    for (QTableView* table : findChildren<QTableView*>()) {
      const QString key = QStringLiteral("columns/") + table->objectName();
      if (views::hasColumnChooser(table->horizontalHeader()) && !table->objectName().isEmpty() && settings.contains(key))
        views::setHiddenColumns(table->horizontalHeader(), settings.value(key).toStringList());
    }
  }
  settings.endGroup();
}

void MainWindow::saveLayout() {
  QSettings settings;
  settings.beginGroup(QStringLiteral("MainWindow"));
  settings.setValue(QStringLiteral("version"), kSettingsVersion);
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("state"), saveState(kSettingsVersion));
  settings.setValue(QStringLiteral("tab"), central_->currentIndex());
  settings.setValue(QStringLiteral("scenario"), scenarioBox_->currentText());
  settings.setValue(QStringLiteral("runtime"), runtimeBox_->currentText());
  settings.setValue(QStringLiteral("threads"), threadsBox_->value());
  settings.setValue(QStringLiteral("theme"), themeName(theme_));
  // The columns each table shows (the user's choice from its header menu), by title.
  for (QTableView* table : findChildren<QTableView*>())
    if (views::hasColumnChooser(table->horizontalHeader()) && !table->objectName().isEmpty())
      settings.setValue(QStringLiteral("columns/") + table->objectName(), views::hiddenColumns(table->horizontalHeader()));
  settings.endGroup();
}

void MainWindow::runBenchmarks(const bench::RunOptions& options, bool history) {
  if (benchRunning_) return;
  std::optional<bench::Runner> runner;
  try {
    runner.emplace(options, cli::bench_catalogue());
  } catch (const bench::RunOptionsError& e) {
    bench_->showError(QString::fromUtf8(e.what()));
    return;
  } catch (const UnknownRuntimeError& e) {
    bench_->showError(QString::fromUtf8(e.what()));
    return;
  }
  benchRunning_ = true;
  benchCancel_.store(false);
  bench_->setRunning(true);
  runner->set_cancel_flag(&benchCancel_);
  // How busy the machine was, over the run and case by case: figures taken while other programs
  // kept the cores busy are marked so.
  views::RunLoad load;
  load.cores = coreCount();
  load.loadBefore = loadAverage();
  load.sessionRunning = session_->running();
  const CpuCounters runStart = readCpuCounters();
  std::pair<std::string, std::string> currentCase;
  CpuCounters caseStart;
  auto endCase = [&] {
    if (currentCase.first.empty()) return;
    const double others = othersCores(caseStart, readCpuCounters());
    if (others >= 0) load.othersCoresByCase[currentCase] = others;
    currentCase = {};
  };
  runner->on_progress([&](const bench::Progress& p) {
    bench_->showProgress(p);
    if (std::pair(p.benchmark, p.runtime) != currentCase) {
      endCase();
      currentCase = {p.benchmark, p.runtime};
      caseStart = readCpuCounters();
    }
    if (p.phase == bench::Progress::Phase::finished) endCase();
  });
  // The qt runtime's System must live on this thread, so the run does too; the window stays
  // responsive by processing its events while each case runs.
  runner->on_idle([] { QCoreApplication::processEvents(QEventLoop::AllEvents, 20); });
  bench::RunReport report;
  try {
    report = runner->run();
  } catch (const std::exception& e) {
    benchRunning_ = false;
    bench_->setRunning(false);
    bench_->showError(QStringLiteral("The benchmark run failed: %1").arg(QString::fromUtf8(e.what())));
    if (closeAfterBench_) close();
    return;
  }
  endCase();
  load.othersCores = othersCores(runStart, readCpuCounters());
  load.loadAfter = loadAverage();
  benchRunning_ = false;
  bench_->setRunning(false);
  bench_->showReport(report);
  bench_->showLoad(load);
  if (history && !report.results.empty()) {
    try {
      bench::HistoryStore store(bench::default_history_path());
      const auto id = store.record(report);
      bench_->showNote(QStringLiteral("Stored as run %1 in %2").arg(id).arg(QString::fromStdString(store.path())));
      bench_->refreshHistory();
    } catch (const std::exception& e) {
      bench_->showNote(QStringLiteral("Not stored in the history: %1").arg(QString::fromUtf8(e.what())));
    }
  }
  if (closeAfterBench_) close();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (benchRunning_) {  // the run holds this thread's stack: let it stop, then close
    closeAfterBench_ = true;
    cancelBenchmarks();
    event->ignore();
    return;
  }
  if (options_.useSettings) saveLayout();
  session_->stop();
  QMainWindow::closeEvent(event);
}

// -- replay --

QString MainWindow::openRecording(const QString& file, std::optional<std::int64_t> session, bool ask) {
  std::unique_ptr<ReplaySession> next;
  try {
    if (!session) {
      const std::vector<SessionInfo> sessions = SessionReader(std::filesystem::path(file.toStdString())).sessions();
      if (sessions.empty())
        return QStringLiteral("\"%1\" is a recording with no session in it: the program that created it recorded "
                              "nothing. Record into it again, or open another file.")
            .arg(file);
      if (sessions.size() == 1) {
        session = sessions.front().id;
      } else if (ask) {
        session = chooseSession(this, file, sessions);
        if (!session) return {};  // the user chose none: nothing to complain about
      } else {
        QStringList ids;
        for (const SessionInfo& s : sessions) ids << QString::number(s.id);
        return QStringLiteral("\"%1\" holds %2 sessions (%3): say which one to open with --session N.")
            .arg(file)
            .arg(sessions.size())
            .arg(ids.join(QStringLiteral(", ")));
      }
    }
    next = std::make_unique<ReplaySession>(file, *session, this);
  } catch (const RecordingError& e) {
    return QString::fromUtf8(e.what());  // it names the file, what is wrong and what to do
  } catch (const std::exception& e) {
    return QStringLiteral("Cannot replay \"%1\": %2").arg(file, QString::fromUtf8(e.what()));
  }
  // Opened: the live session stops (its recording, if any, ends with it), and the views forget it.
  session_->stop();
  frozen_.reset();
  userPaused_ = false;
  pauseAction_->setChecked(false);
  resetViews();
  replay_ = std::move(next);  // the last replay goes only now that no view points at its state
  connect(replay_.get(), &Session::updated, this, &MainWindow::refreshViews);
  connect(replay_.get(), &ReplaySession::cursorChanged, this, &MainWindow::updateStatus);
  connect(replay_.get(), &ReplaySession::readFailed, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10000); });
  connect(replay_.get(), &ReplaySession::followingChanged, this, [this] {
    banner_->setText(replay_->banner());
    updateStatus();
  });
  connect(replay_.get(), &ReplaySession::rangeChanged, this, [this] {
    // "did not end cleanly" can become "ended cleanly": the banner says what the file says now.
    banner_->setText(replay_->banner());
  });
  rememberRecent(file);
  applyMode();
  setWindowTitle(replay_->title() + QStringLiteral(" — Actorscope"));
  emit sessionChanged();
  refreshViews();
  statusBar()->showMessage(QStringLiteral("Replaying %1 (read-only)").arg(fitPath(file, statusBar()->width() / 2)), 6000);
  return {};
}

QString MainWindow::openRecordingFromUser(const QString& file, std::optional<std::int64_t> session) {
  const QString error = openRecording(file, session, true);
  if (!error.isEmpty()) showRecordingError(QStringLiteral("Could not open the recording"), error);
  return error;
}

void MainWindow::showRecordingError(const QString& title, const QString& text) {
  // Window-modal, not blocking: the window stays as it was behind it, and nothing waits on it.
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("recording-error"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  errorDialog_ = box;
  box->open();
  statusBar()->showMessage(text, 10000);
}

void MainWindow::closeRecording() {
  if (!replay_) return;
  resetViews();
  replay_.reset();
  setWindowTitle(QStringLiteral("Actorscope"));
  applyMode();
  emit sessionChanged();
  refreshViews();
}

QStringList MainWindow::recentRecordings() const { return recent_; }

void MainWindow::rememberRecent(const QString& file) {
  const QString path = QFileInfo(file).absoluteFilePath();
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kRecentMax) recent_.removeLast();
  if (options_.useSettings) QSettings().setValue(QStringLiteral("recentRecordings"), recent_);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  if (recentMenu_ == nullptr) return;
  recentMenu_->clear();
  for (const QString& path : recent_) {
    QAction* a = recentMenu_->addAction(QFileInfo(path).fileName());
    a->setToolTip(QDir::toNativeSeparators(path));
    a->setStatusTip(QDir::toNativeSeparators(path));
    a->setData(path);
    connect(a, &QAction::triggered, this, [this, path] { openRecordingFromUser(path); });
  }
  if (recent_.isEmpty()) {
    recentMenu_->addAction(QStringLiteral("(none yet)"))->setEnabled(false);
    return;
  }
  recentMenu_->addSeparator();
  connect(recentMenu_->addAction(QStringLiteral("Clear the List")), &QAction::triggered, this, [this] {
    recent_.clear();
    if (options_.useSettings) QSettings().remove(QStringLiteral("recentRecordings"));
    rebuildRecentMenu();
  });
}

void MainWindow::applyMode() {
  const bool replay = replay_ != nullptr;
  sessionBar_->setVisible(!replay);
  replayBar_->setVisible(replay);
  banner_->setText(replay ? replay_->banner() : QString());
  for (const View& v : views_) {
    const bool in = viewInMode(v);
    if (v.dock != nullptr) {
      v.dock->toggleViewAction()->setVisible(in);
      // A view of one mode only (the timeline) comes with its mode and goes with it.
      if (!in) v.dock->hide();
      else if (v.descriptor->modes != ViewDescriptor::both) v.dock->show();
    } else if (const int tab = central_->indexOf(v.widget); tab >= 0) {
      central_->setTabVisible(tab, in);
    }
  }
  updateActions();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  event->acceptProposedAction();
  // Opened once the drop is over: a dialog (which session, an error) must not run inside it.
  const QString file = urls.front().toLocalFile();
  QTimer::singleShot(0, this, [this, file] { openRecordingFromUser(file); });
}

}  // namespace actorscope::gui
