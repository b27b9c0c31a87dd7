// The observatory's main window over a live System: it opens a workload on each runtime and the
// tree shows its root; killing an actor from the tree's context menu makes its supervisor react
// in its row; selection is shared; pause freezes the views while the session keeps folding;
// screenshots write non-empty PNGs. Waits use QTRY_* with generous deadlines; no sleeps.
#include "office_workload.hpp"

#include "gui/builtin_workloads.hpp"
#include "gui/main_window.hpp"
#include "gui/observatory.hpp"
#include "gui/screenshots.hpp"

#include "actors/actors_table_model.hpp"
#include "actors/actors_view.hpp"
#include "bench/benchmark_results_model.hpp"
#include "bench/benchmarks_view.hpp"
#include "bench/ratio_chart.hpp"
#include "common/actor_table.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "groups/process_groups_model.hpp"
#include "groups/process_groups_view.hpp"
#include "timers/timers_model.hpp"
#include "timers/timers_view.hpp"
#include "inspector/actor_inspector.hpp"
#include "tree/supervision_tree_model.hpp"
#include "tree/supervision_tree_view.hpp"

#include <QAction>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QDir>
#include <QImage>
#include <QProcess>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <actorscope/benchmarks/history_store.hpp>

#include <set>
#include <actorscope/storage/session_reader.hpp>

namespace as = actorscope;
namespace gui = actorscope::gui;
namespace v = actorscope::views;

namespace {

constexpr int kDeadline = 20000;

/// The tree view's index of the first actor with this name.
QModelIndex viewIndexOf(v::SupervisionTreeView& tree, const std::string& name) {
  QAbstractItemModel* proxy = tree.treeView()->model();
  std::function<QModelIndex(const QModelIndex&)> find = [&](const QModelIndex& parent) -> QModelIndex {
    for (int r = 0; r < proxy->rowCount(parent); ++r) {
      const QModelIndex i = proxy->index(r, 0, parent);
      if (i.data(Qt::ToolTipRole).toString().contains(QStringLiteral("<b>%1</b>").arg(QString::fromStdString(name))))
        return i;
      if (QModelIndex found = find(i); found.isValid()) return found;
    }
    return {};
  };
  return find({});
}

std::size_t aliveChildren(const as::observe::SystemState& s, as::ActorId id) {
  const auto* a = s.actor(id);
  if (!a) return 0;
  std::size_t n = 0;
  for (as::ActorId c : a->children)
    if (const auto* r = s.actor(c); r && r->alive()) ++n;
  return n;
}

}  // namespace

class TestObservatory : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void the_window_opens_a_workload_on_each_runtime_and_the_tree_shows_its_root_data() {
    QTest::addColumn<QString>("runtime");
    QTest::newRow("asio") << QStringLiteral("asio");
    QTest::newRow("qt") << QStringLiteral("qt");
  }
  void the_window_opens_a_workload_on_each_runtime_and_the_tree_shows_its_root() {
    QFETCH(QString, runtime);
    gui::MainWindow window({office::workload()}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("office"), runtime, 2), QString());
    auto* tree = window.treeView()->treeView();
    QTRY_VERIFY_WITH_TIMEOUT(tree->model()->rowCount() >= 1, kDeadline);
    QCOMPARE(tree->model()->index(0, v::SupervisionTreeModel::NameColumn).data().toString(), QStringLiteral("office"));
    QTRY_COMPARE_WITH_TIMEOUT(window.session().state().runtime(), runtime.toStdString(), kDeadline);
    // The desks and their clerks arrive as the workload starts them.
    QTRY_VERIFY_WITH_TIMEOUT(viewIndexOf(*window.treeView(), "desk-a").isValid(), kDeadline);
    QTRY_VERIFY_WITH_TIMEOUT(window.session().metrics().handled > 0, kDeadline);
    window.stopSession();
    QVERIFY(!window.session().running());
    QCOMPARE(window.session().state().alive_count(), 0u);
  }

  void the_builtin_scenarios_open_on_each_runtime_and_the_tree_shows_their_root_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("runtime");
    QTest::addColumn<QString>("root");
    QTest::newRow("supervision on asio") << "supervision" << "asio" << "supervisor";
    QTest::newRow("supervision on qt") << "supervision" << "qt" << "supervisor";
    QTest::newRow("pipeline on qt") << "pipeline" << "qt" << "pipeline";
    QTest::newRow("groups on asio") << "groups" << "asio" << "hub";
    QTest::newRow("timers on qt") << "timers" << "qt" << "clockwork";
    QTest::newRow("storm on asio") << "storm" << "asio" << "storm";
  }
  void the_builtin_scenarios_open_on_each_runtime_and_the_tree_shows_their_root() {
    QFETCH(QString, scenario);
    QFETCH(QString, runtime);
    QFETCH(QString, root);
    gui::MainWindow window(gui::builtinWorkloads(), {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(scenario, runtime, 2), QString());
    auto* tree = window.treeView()->treeView();
    QTRY_VERIFY_WITH_TIMEOUT(tree->model()->rowCount() >= 1, kDeadline);
    QCOMPARE(tree->model()->index(0, v::SupervisionTreeModel::NameColumn).data().toString(), root);
    QTRY_VERIFY_WITH_TIMEOUT(window.session().state().alive_count() > 2, kDeadline);
    window.stopSession();
  }

  void the_demo_message_of_a_builtin_scenario_reaches_the_actor() {
    gui::MainWindow window(gui::builtinWorkloads(), {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("supervision"), QStringLiteral("asio"), 2), QString());
    // A worker takes jobs (its team is a Supervisor, which takes none). Workers fail now and then and
    // are restarted under their name: one that failed between being found and being sent to refuses
    // (and says so), and the next one found takes it.
    int refused = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      // (The tree may still show a worker that just stopped, greyed, under the same name: wait for
      // the live one.)
      QModelIndex row;
      auto live_worker = [&] {
        row = viewIndexOf(*window.treeView(), "team-a/worker-1");
        return row.isValid() &&
               window.session().demoMessageName(row.data(v::ActorIdRole).value<as::ActorId>()) == QStringLiteral("Job");
      };
      QTRY_VERIFY_WITH_TIMEOUT(live_worker(), kDeadline);
      QMenu* menu = window.treeView()->contextMenuFor(row);
      auto* send = menu->findChild<QAction*>(QStringLiteral("send"));
      QVERIFY(send && send->isEnabled());
      QCOMPARE(send->text(), QStringLiteral("Send Job"));
      QSignalSpy complaints(&window.session(), &gui::LiveSession::message);
      send->trigger();
      menu->close();
      if (complaints.count() == 0) break;  // taken
      ++refused;
    }
    QVERIFY2(refused < 3, "three workers in a row refused the job");
    // The dispatcher has no demo message: the action says so instead of pretending.
    QTRY_VERIFY_WITH_TIMEOUT(viewIndexOf(*window.treeView(), "dispatcher").isValid(), kDeadline);
    QMenu* other = window.treeView()->contextMenuFor(viewIndexOf(*window.treeView(), "dispatcher"));
    QVERIFY(!other->findChild<QAction*>(QStringLiteral("send"))->isEnabled());
    other->close();
  }

  void the_record_toggle_writes_the_live_session_to_a_recording() {
    QTemporaryDir dir;
    // A deep folder: the hint after recording must still show the file's name whole.
    const QString deep = dir.filePath(QStringLiteral("recordings/of/the/observatory/made/by/its/tests/on/a/long/path"));
    QVERIFY(QDir().mkpath(deep));
    const QString file = QDir(deep).filePath(QStringLiteral("live-session-recorded-by-the-record-toggle.db"));
    gui::MainWindow window(gui::builtinWorkloads(), {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("supervision"), QStringLiteral("asio"), 2), QString());
    QCOMPARE(window.startRecording(file, false), QString());
    QVERIFY(window.session().recording());
    QTRY_VERIFY_WITH_TIMEOUT(window.session().recordingProgress()->events_recorded > 50, kDeadline);
    window.stopRecording();
    QVERIFY(!window.session().recording());
    const QString hint = window.statusBar()->currentMessage();
    QVERIFY2(hint.contains(QStringLiteral("live-session-recorded-by-the-record-toggle.db")), qPrintable(hint));
    int fields = 0;  // the status bar's fields share its width with the message
    for (const QLabel* l : window.statusBar()->findChildren<QLabel*>())
      if (l->isVisible()) fields += l->sizeHint().width();
    QVERIFY2(window.statusBar()->fontMetrics().horizontalAdvance(hint) + fields < window.statusBar()->width(),
             qPrintable(hint));
    as::SessionReader reader(file.toStdString());
    QCOMPARE(reader.sessions().size(), 1u);
    QCOMPARE(reader.sessions().front().scenario, std::string("supervision"));
    QVERIFY(reader.sessions().front().events_recorded > 50);

    // The file exists now: recording to it again without replacing is refused, with a message.
    const QString error = window.startRecording(file, false);
    QVERIFY2(error.contains(QStringLiteral("exists")), qPrintable(error));
    QVERIFY(!window.session().recording());
    // The caller says it (the toolbar, in a dialog): it does not linger in the status bar after.
    QVERIFY2(!window.statusBar()->currentMessage().contains(QStringLiteral("exists")),
             qPrintable(window.statusBar()->currentMessage()));
    window.stopSession();
  }

  void an_unknown_workload_or_runtime_is_refused_with_a_message() {
    gui::MainWindow window({office::workload()}, {.useSettings = false});
    QVERIFY(window.startSession(QStringLiteral("no-such"), QStringLiteral("asio"), 2).contains(QStringLiteral("office")));
    QVERIFY(window.startSession(QStringLiteral("office"), QStringLiteral("tokio"), 2).contains(QStringLiteral("tokio")));
    QVERIFY(!window.session().running());
  }

  void killing_an_actor_from_the_tree_menu_makes_its_supervisor_react_in_its_row() {
    gui::MainWindow window({office::workload(false)}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("quiet-office"), QStringLiteral("asio"), 2), QString());
    v::SupervisionTreeView& tree = *window.treeView();
    QTRY_VERIFY_WITH_TIMEOUT(viewIndexOf(tree, "desk-a/clerk-3").isValid(), kDeadline);

    const QModelIndex clerk = viewIndexOf(tree, "desk-a/clerk-2");
    const as::ActorId clerkId = clerk.data(v::ActorIdRole).value<as::ActorId>();
    const as::ActorId deskId = clerk.parent().data(v::ActorIdRole).value<as::ActorId>();
    QVERIFY(clerkId.is_valid() && deskId.is_valid());
    QCOMPARE(aliveChildren(window.session().state(), deskId), 3u);

    QMenu* menu = tree.contextMenuFor(clerk);
    QVERIFY(menu);
    auto* kill = menu->findChild<QAction*>(QStringLiteral("kill"));
    QVERIFY(kill && kill->isEnabled());
    kill->trigger();
    menu->close();

    // The clerk's row says it was killed, and the desk (its supervisor) hires a replacement: its
    // row in the tree gains a new live child.
    QTRY_COMPARE_WITH_TIMEOUT(
        window.treeView()->model()->indexOf(clerkId, v::SupervisionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("killed"), kDeadline);
    QTRY_VERIFY_WITH_TIMEOUT(viewIndexOf(tree, "desk-a/clerk-4").isValid(), kDeadline);
    QCOMPARE(viewIndexOf(tree, "desk-a/clerk-4").parent().data(v::ActorIdRole).value<as::ActorId>(), deskId);
    QTRY_COMPARE_WITH_TIMEOUT(aliveChildren(window.session().state(), deskId), 3u, kDeadline);
    const auto* desk = window.session().state().actor(deskId);
    QVERIFY(desk->supervision_handled >= 1);
  }

  void the_selection_is_shared_between_the_table_the_tree_and_the_inspector() {
    gui::MainWindow window({office::workload(false)}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("quiet-office"), QStringLiteral("asio"), 2), QString());
    window.showView(QStringLiteral("actors"));
    v::ActorsView& actors = *window.actorsView();
    // desk-b is started by the workload after its root, so wait for its row, not for a count.
    auto rowOf = [&](const QString& name) {
      for (int r = 0; r < actors.model()->rowCount(); ++r)
        if (actors.model()->index(r, v::ActorsTableModel::NameColumn).data().toString() == name) return r;
      return -1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(rowOf(QStringLiteral("desk-b")) >= 0, kDeadline);
    const int row = rowOf(QStringLiteral("desk-b"));
    const as::ActorId id = actors.model()->actorAt(row);
    actors.tableView()->setCurrentIndex(actors.model()->index(row, v::ActorsTableModel::NameColumn));
    QCOMPARE(window.selection().current(), id);
    const QModelIndex inTree = window.treeView()->treeView()->currentIndex();
    QCOMPARE(inTree.data(v::ActorIdRole).value<as::ActorId>(), id);
    QTRY_VERIFY_WITH_TIMEOUT(window.inspector()->details().has_value(), kDeadline);
    QCOMPARE(window.inspector()->details()->id, id);
  }

  void the_groups_and_timers_views_follow_the_live_system() {
    gui::MainWindow window({office::workload(false)}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("quiet-office"), QStringLiteral("qt"), 2), QString());
    window.showView(QStringLiteral("process-groups"));
    auto* groups = window.findChild<v::ProcessGroupsView*>();
    QVERIFY(groups);
    // Six clerks in "clerks" (default scope) and three in each desk's group (scope "desks").
    auto membersOf = [&](const QString& scope, const QString& group) {
      const QAbstractItemModel* m = groups->model();
      for (int s = 0; s < m->rowCount(); ++s) {
        const QModelIndex si = m->index(s, 0);
        if (si.data().toString() != scope) continue;
        for (int g = 0; g < m->rowCount(si); ++g)
          if (m->index(g, 0, si).data().toString() == group) return m->rowCount(m->index(g, 0, si));
      }
      return -1;
    };
    QTRY_COMPARE_WITH_TIMEOUT(membersOf(QStringLiteral("default"), QStringLiteral("clerks")), 6, kDeadline);
    QTRY_COMPARE_WITH_TIMEOUT(membersOf(QStringLiteral("desks"), QStringLiteral("desk-b")), 3, kDeadline);

    window.showView(QStringLiteral("timers"));
    auto* timers = window.findChild<v::TimersView*>();
    QVERIFY(timers);
    QTRY_COMPARE_WITH_TIMEOUT(timers->model()->rowCount(), 1, kDeadline);
    QCOMPARE(timers->model()->index(0, v::TimersModel::KindColumn).data().toString(), QStringLiteral("interval"));
    QTRY_VERIFY_WITH_TIMEOUT(timers->model()->index(0, v::TimersModel::FiredColumn).data().toInt() > 3, kDeadline);
  }

  void pausing_freezes_the_views_while_the_session_keeps_folding() {
    gui::MainWindow window({office::workload()}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("office"), QStringLiteral("asio"), 2), QString());
    QTRY_VERIFY_WITH_TIMEOUT(window.session().state().events_applied() > 20, kDeadline);
    window.setPaused(true);
    const std::uint64_t frozen = window.shownState().events_applied();
    QTRY_VERIFY_WITH_TIMEOUT(window.session().state().events_applied() > frozen + 10, kDeadline);
    QCOMPARE(window.shownState().events_applied(), frozen);
    // Every view shown the frozen copy is given the live state before the copy goes (a view
    // keeps a pointer to re-filter when the selection changes).
    window.showView(QStringLiteral("message-flow"));
    const as::observe::SystemState* copy = &window.shownState();
    window.showView(QStringLiteral("supervision-graph"));
    window.setPaused(false);
    QVERIFY(window.shownState().events_applied() > frozen);
    for (const auto& v : window.viewList()) QVERIFY2(v.shown != copy, qPrintable(v.id));
    window.selection().select(as::ActorId{0, 2});  // views refresh from what they hold: no stale copy
  }

  void the_status_bar_counts_the_actors_the_tree_counts_even_in_a_storm() {
    // (Declared before the window, which refreshes once more as it closes: they outlive it.)
    int compared = 0;
    std::set<int> seen;
    QString mismatch;
    gui::MainWindow window(gui::builtinWorkloads(), {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("storm"), QStringLiteral("asio"), 2), QString());
    auto* status = window.findChild<QLabel*>(QStringLiteral("alive-count"));
    auto* summary = window.treeView()->findChild<QLabel*>(QStringLiteral("tree-summary"));
    QVERIFY(status && summary);
    auto count = [](const QLabel* l) { return l->text().section(QLatin1Char(' '), 0, 0).toInt(); };
    QObject::connect(&window, &gui::MainWindow::refreshed, &window, [&] {
      if (summary->text().isEmpty()) return;
      ++compared;
      seen.insert(count(summary));
      if (count(status) != count(summary) && mismatch.isEmpty())
        mismatch = QStringLiteral("status bar \"%1\", tree \"%2\"").arg(status->text(), summary->text());
    });
    // A storm's actor count moves all the time: the two must agree at every refresh all the same.
    QTRY_VERIFY_WITH_TIMEOUT(compared >= 40 && seen.size() >= 3, kDeadline);
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));

    // Paused, the session keeps folding; the status bar counts what the frozen views show.
    window.setPaused(true);
    const std::size_t frozen = window.shownState().alive_count();
    QTRY_VERIFY_WITH_TIMEOUT(window.session().state().alive_count() != frozen, kDeadline);
    QCOMPARE(count(status), static_cast<int>(frozen));
    QCOMPARE(count(summary), static_cast<int>(frozen));
    window.stopSession();
  }

  void choosing_a_scenario_or_runtime_in_the_toolbar_applies_it_at_once() {
    gui::MainWindow window({office::workload(false), office::workload()}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("quiet-office"), QStringLiteral("asio"), 2), QString());
    QTRY_COMPARE_WITH_TIMEOUT(window.session().state().runtime(), std::string("asio"), kDeadline);
    auto* runtime = window.findChild<QComboBox*>(QStringLiteral("runtime"));
    auto* scenario = window.findChild<QComboBox*>(QStringLiteral("scenario"));
    auto* threads = window.findChild<QSpinBox*>(QStringLiteral("threads"));
    QVERIFY(runtime && scenario && threads);

    // The user picks qt: what the box shows is what runs.
    runtime->setCurrentIndex(runtime->findText(QStringLiteral("qt")));
    emit runtime->activated(runtime->currentIndex());
    QCOMPARE(window.session().config().runtime, std::string("qt"));
    QTRY_COMPARE_WITH_TIMEOUT(window.session().state().runtime(), std::string("qt"), kDeadline);

    scenario->setCurrentIndex(scenario->findText(QStringLiteral("office")));
    emit scenario->activated(scenario->currentIndex());
    QVERIFY(window.session().workload() != nullptr);
    QCOMPARE(window.session().workload()->name, std::string("office"));

    // A thread count is taken once confirmed (Enter), and the session restarts with it.
    threads->setFocus();
    threads->selectAll();
    QTest::keyClicks(threads, QStringLiteral("3"));
    QCOMPARE(window.session().config().threads, 2u);  // not at each digit
    QTest::keyClick(threads, Qt::Key_Return);
    QCOMPARE(threads->value(), 3);
    QCOMPARE(window.session().config().threads, 3u);
    QTRY_COMPARE_WITH_TIMEOUT(window.session().state().threads(), 3u, kDeadline);

    // Stopped, a choice waits for Start, and Start says what it will start.
    window.stopSession();
    runtime->setCurrentIndex(runtime->findText(QStringLiteral("asio")));
    emit runtime->activated(runtime->currentIndex());
    QVERIFY(!window.session().running());
    auto* start = window.findChild<QAction*>(QStringLiteral("start"));
    QVERIFY2(start->toolTip().contains(QStringLiteral("office on asio with 3 threads")), qPrintable(start->toolTip()));
  }

  void a_thread_count_out_of_range_is_refused_out_loud_not_cut_to_a_digit() {
    gui::MainWindow window({office::workload(false)}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("quiet-office"), QStringLiteral("asio"), 2), QString());
    auto* threads = window.findChild<QSpinBox*>(QStringLiteral("threads"));
    threads->setFocus();
    threads->selectAll();
    QTest::keyClicks(threads, QStringLiteral("999"));
    QCOMPARE(threads->text(), QStringLiteral("999"));  // every digit typed is there
    QTest::keyClick(threads, Qt::Key_Return);
    QCOMPARE(threads->value(), 2);  // refused: the count stays, and nothing restarted
    QCOMPARE(window.session().config().threads, 2u);
    const QString said = window.statusBar()->currentMessage();
    QVERIFY2(said.contains(QStringLiteral("999")) && said.contains(QStringLiteral("1 to 64")), qPrintable(said));
    window.stopSession();
  }

  void a_new_session_starts_without_the_last_ones_tree_search() {
    gui::MainWindow window({office::workload(false), office::workload()}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("quiet-office"), QStringLiteral("asio"), 2), QString());
    v::SupervisionTreeView& tree = *window.treeView();
    QTRY_VERIFY_WITH_TIMEOUT(viewIndexOf(tree, "desk-a/clerk-3").isValid(), kDeadline);
    auto* search = tree.findChild<v::SearchField*>();
    search->setText(QStringLiteral("no actor is called this"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(tree.treeView()->model()->rowCount(), 0, kDeadline);

    QCOMPARE(window.startSession(QStringLiteral("office"), QStringLiteral("asio"), 2), QString());
    QCOMPARE(search->text(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(viewIndexOf(tree, "desk-a/clerk-3").isValid(), kDeadline);
    window.stopSession();
  }

  void holding_the_views_for_a_picture_is_not_a_pause() {
    gui::MainWindow window({office::workload()}, {.useSettings = false});
    window.show();
    QCOMPARE(window.startSession(QStringLiteral("office"), QStringLiteral("asio"), 2), QString());
    QTRY_VERIFY_WITH_TIMEOUT(window.session().state().events_applied() > 20, kDeadline);
    auto* state = window.findChild<QLabel*>(QStringLiteral("session-state"));
    window.holdViews(true);
    const std::uint64_t frozen = window.shownState().events_applied();
    QTRY_VERIFY_WITH_TIMEOUT(window.session().state().events_applied() > frozen + 10, kDeadline);
    QCOMPARE(window.shownState().events_applied(), frozen);
    QVERIFY(!window.paused());
    QCOMPARE(state->text(), QStringLiteral("● live"));
    QVERIFY(!window.findChild<QAction*>(QStringLiteral("pause"))->isChecked());
    window.holdViews(false);
    QVERIFY(window.shownState().events_applied() > frozen);
    window.setPaused(true);
    QCOMPARE(state->text(), QStringLiteral("● paused"));
    window.stopSession();
  }

  void the_window_layout_and_choices_are_remembered_between_runs() {
    QCoreApplication::setOrganizationName(QStringLiteral("ActorscopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_observatory"));
    QSettings().clear();
    {
      gui::MainWindow first({office::workload(false), office::workload()}, {.useSettings = true});
      first.show();
      first.showView(QStringLiteral("actors"));
      auto* timersDock = first.findChild<QDockWidget*>(QStringLiteral("timers-dock"));
      QVERIFY(timersDock);
      timersDock->hide();
      first.findChild<QComboBox*>(QStringLiteral("scenario"))->setCurrentIndex(1);
      first.findChild<QSpinBox*>(QStringLiteral("threads"))->setValue(3);
      first.setTheme(gui::Theme::dark);
      // The columns chosen from a table's header menu (by title).
      auto* actors = first.findChild<QTableView*>(QStringLiteral("actors-table"));
      QVERIFY(actors);
      v::setHiddenColumns(actors->horizontalHeader(), {QStringLiteral("Type")});
      QCOMPARE(v::hiddenColumns(actors->horizontalHeader()), QStringList{QStringLiteral("Type")});
      v::setHiddenColumns(first.findChild<QTableView*>(QStringLiteral("factories-table"))->horizontalHeader(), {});
      QVERIFY(first.close());
    }
    gui::MainWindow second({office::workload(false), office::workload()}, {.useSettings = true});
    second.show();
    QVERIFY(second.findChild<QDockWidget*>(QStringLiteral("timers-dock"))->isHidden());
    QCOMPARE(second.findChild<QTabWidget*>()->currentIndex(), 1);
    QCOMPARE(second.findChild<QComboBox*>(QStringLiteral("scenario"))->currentText(), QStringLiteral("office"));
    QCOMPARE(second.findChild<QSpinBox*>(QStringLiteral("threads"))->value(), 3);
    QVERIFY(second.palette().color(QPalette::Window).lightness() < 128);
    QCOMPARE(v::hiddenColumns(second.findChild<QTableView*>(QStringLiteral("actors-table"))->horizontalHeader()),
             QStringList{QStringLiteral("Type")});
    // Routing starts hidden in a new install; the choice to show it was kept too.
    QVERIFY(v::hiddenColumns(second.findChild<QTableView*>(QStringLiteral("factories-table"))->horizontalHeader()).isEmpty());
    second.setTheme(gui::Theme::system);
    QSettings().clear();
  }

  void screenshots_write_a_non_empty_png_for_every_view_and_the_window() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    gui::MainWindow window({office::workload()}, {.useSettings = false});
    gui::ScreenshotOptions options;
    options.dir = dir.filePath(QStringLiteral("shots"));
    options.scenario = QStringLiteral("office");
    options.seconds = 0.5;
    const QStringList files = gui::takeScreenshots(window, options);
    // One per view of a live session (the benchmarks come last, the timeline is a replay's), the window, the benchmarks.
    qsizetype pictured = 0;
    for (const auto& v : window.viewList())
      if (v.id != QLatin1String("benchmarks") && window.viewInMode(v)) ++pictured;
    QCOMPARE(pictured, qsizetype(10));
    QCOMPARE(files.size(), pictured + 2);
    for (const QString& f : files) {
      const QImage image(f);
      QVERIFY2(!image.isNull() && image.width() > 50 && image.height() > 50, qPrintable(f));
    }
    const QString windowShot = files.at(files.size() - 2);
    QVERIFY(windowShot.endsWith(QStringLiteral("window.png")));
    QCOMPARE(QImage(windowShot).size(), gui::MainWindow::kDefaultSize);
    // The Benchmarks tab is pictured after a short run, with its results in the table.
    QVERIFY(files.last().endsWith(QStringLiteral("benchmarks.png")));
    QVERIFY(window.benchmarksView()->model()->rowCount() > 0);
  }

  void the_benchmarks_tab_runs_the_suite_on_both_runtimes_and_keeps_a_history() {
    QTemporaryDir data;
    QVERIFY(data.isValid());
    const QByteArray oldData = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", data.path().toUtf8());
    gui::MainWindow window({office::workload()}, {.useSettings = false});
    v::BenchmarksView* view = window.benchmarksView();
    QVERIFY(view != nullptr);

    // A mistake is refused before anything runs, and the view says what is wrong.
    as::bench::RunOptions bad;
    bad.filter = "(unclosed";
    window.runBenchmarks(bad);
    QCOMPARE(view->model()->rowCount(), 0);
    QVERIFY2(view->statusText().contains(QStringLiteral("regular expression")), qPrintable(view->statusText()));
    as::bench::RunOptions none;
    none.filter = "no benchmark is called this";
    window.runBenchmarks(none);
    QCOMPARE(view->model()->rowCount(), 0);
    QVERIFY(!view->running());

    // One benchmark on both runtimes: a row with both columns and their ratio, a bar in the
    // comparison chart, and a run in the history, which the history chart shows per runtime.
    as::bench::RunOptions o;
    o.runtimes = {"asio", "qt"};
    o.quick = true;
    o.samples = 2;
    o.warm_up = std::chrono::milliseconds(0);
    o.filter = "^Creation of 100 actors$";
    window.runBenchmarks(o);
    QVERIFY(!view->running());
    QCOMPARE(view->model()->rowCount(), 1);
    QCOMPARE(view->model()->benchmarkAt(0), QStringLiteral("Creation of 100 actors"));
    QCOMPARE(view->model()->runtimes(), (std::vector<std::string>{"asio", "qt"}));
    QVERIFY(view->model()->ratioAt(0) > 0);
    QCOMPARE(view->ratioChart()->bars().size(), 1u);
    QCOMPARE(view->historyChart()->series().size(), 2);
    QVERIFY2(view->statusText().contains(QStringLiteral("Stored as run")), qPrintable(view->statusText()));
    QCOMPARE(as::bench::HistoryStore(as::bench::default_history_path()).runs().size(), std::size_t{1});
    if (oldData.isNull()) {
      qunsetenv("XDG_DATA_HOME");
    } else {
      qputenv("XDG_DATA_HOME", oldData);
    }
  }

  void every_usage_mistake_gets_a_message_and_exit_code_2() {
    char prog[] = "actorscope";
    char* argv[] = {prog, nullptr};
    const gui::Workloads w{office::workload()};
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"--scenario", "nope"},
             {"--runtime", "manual"},
             {"--runtime", "tokio"},
             {"--theme", "purple"},
             {"--threads", "0"},
             {"--seconds", "3"},
             {"--frobnicate"},
             {"--screenshot", "/proc/actorscope-cannot-be-here"},
             {"--select", "enrich"},  // it chooses the actor of a screenshot's pictures
         }) {
      QCOMPARE(gui::runObservatory(1, argv, args, w), 2);
    }
  }

  void actorscope_screenshot_writes_non_empty_pngs_and_exits_0() {
    QTemporaryDir dir;
    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // it must choose offscreen by itself
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    app.setProcessEnvironment(env);
    app.start(QStringLiteral(ACTORSCOPE_BINARY),
              {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("shots")), QStringLiteral("--scenario"),
               QStringLiteral("pipeline"), QStringLiteral("--seconds"), QStringLiteral("1")});
    QVERIFY(app.waitForFinished(120000));
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QCOMPARE(app.exitCode(), 0);
    const QStringList pngs = QDir(dir.filePath(QStringLiteral("shots"))).entryList({QStringLiteral("*.png")});
    QCOMPARE(pngs.size(), 12);  // ten views, the window, the Benchmarks tab
    QVERIFY(pngs.contains(QStringLiteral("window.png")));
    QVERIFY(pngs.contains(QStringLiteral("factories.png")));
    QVERIFY(pngs.contains(QStringLiteral("benchmarks.png")));
    for (const QString& p : pngs) {
      const QImage image(dir.filePath(QStringLiteral("shots/") + p));
      QVERIFY2(!image.isNull() && image.width() > 50, qPrintable(p));
    }
  }

  void a_screenshot_of_an_actor_that_is_not_there_names_the_ones_that_are() {
    QTemporaryDir dir;
    QProcess app;
    app.start(QStringLiteral(ACTORSCOPE_BINARY),
              {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("shots")), QStringLiteral("--scenario"),
               QStringLiteral("pipeline"), QStringLiteral("--seconds"), QStringLiteral("0.3"), QStringLiteral("--select"),
               QStringLiteral("nope")});
    QVERIFY(app.waitForFinished(120000));
    QCOMPARE(app.exitCode(), 1);
    const QString err = QString::fromLocal8Bit(app.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("--select nope")) && err.contains(QStringLiteral("throttle")), qPrintable(err));
    QVERIFY(QDir(dir.filePath(QStringLiteral("shots"))).entryList({QStringLiteral("*.png")}).isEmpty());
  }

  void without_a_display_the_observatory_says_what_to_do() {
    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    app.setProcessEnvironment(env);
    app.start(QStringLiteral(ACTORSCOPE_BINARY), {});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitCode(), 1);
    const QString err = QString::fromLocal8Bit(app.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("xvfb-run")) && err.contains(QStringLiteral("--screenshot")), qPrintable(err));
  }

  void a_screenshot_directory_that_cannot_be_written_is_refused() {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("a-file"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    try {
      gui::prepareScreenshotDir(file + QStringLiteral("/shots"));
      QFAIL("a directory under a file was accepted");
    } catch (const gui::ScreenshotError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot create")), e.what());
      QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("is a file, not a directory")), e.what());
    }
    // The directory asked for is itself a file.
    try {
      gui::prepareScreenshotDir(file);
      QFAIL("a file was accepted as the screenshot directory");
    } catch (const gui::ScreenshotError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("a file of that name is in the way")), e.what());
    }
  }
};

QTEST_MAIN(TestObservatory)
#include "tst_observatory.moc"
