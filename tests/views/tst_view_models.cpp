// The observatory's item models over SystemStates built from scripted event streams: each is
// checked by QAbstractItemModelTester through a series of updates (actors added, stopped,
// reparented, pruned; groups joined and left; timers started, fired and cancelled), and each
// update keeps selections (persistent indexes) on their actors without resetting the model.
#include "scripted_state.hpp"

#include "actors/actors_table_model.hpp"
#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"
#include "events/event_log_model.hpp"
#include "flow/message_flow_model.hpp"
#include "groups/process_groups_model.hpp"
#include "inspector/actor_details.hpp"
#include "timers/timers_model.hpp"
#include "tree/supervision_tree_model.hpp"
#include "warnings/warnings_model.hpp"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTest>

using namespace views_test;
namespace v = actorscope::views;

namespace {

/// The tree as indented lines, "name" per row: what a user sees, compared as a golden value.
QStringList dump(const QAbstractItemModel& m, const QModelIndex& parent = {}, int depth = 0) {
  QStringList out;
  for (int r = 0; r < m.rowCount(parent); ++r) {
    const QModelIndex i = m.index(r, 0, parent);
    out << QString(depth * 2, QLatin1Char(' ')) + i.data().toString();
    out << dump(m, i, depth + 1);
  }
  return out;
}

/// A supervision tree: root(1) → sup-a(2) → w3, w4; root → sup-b(5) → w6.
void buildTree(ScriptedState& s) {
  s.spawn(1, 0, "root", "demo::Root");
  s.spawn(2, 1, "sup-a", "demo::Supervisor");
  s.spawn(3, 2, "", "demo::Worker");
  s.spawn(4, 2, "w4", "demo::Worker");
  s.spawn(5, 1, "sup-b", "demo::Supervisor");
  s.spawn(6, 5, "w6", "demo::Worker");
}

}  // namespace

class TestViewModels : public QObject {
  Q_OBJECT

 private slots:
  void the_tree_model_follows_spawns_stops_reparenting_and_pruning_without_a_reset() {
    ScriptedState s({.stopped_actors = 2});
    buildTree(s);
    v::SupervisionTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelAboutToBeReset);
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"root", "  sup-a", "    Worker", "    w4", "  sup-b", "    w6"}));

    // A persistent index (what a selection holds) on w6 must follow it through every update.
    QPersistentModelIndex w6 = model.indexOf(id(6));
    QVERIFY(w6.isValid());

    s.spawn(7, 5, "w7");
    model.update(s.state);
    QCOMPARE(dump(model).last(), QStringLiteral("    w7"));
    QCOMPARE(w6.data().toString(), QStringLiteral("w6"));

    // w4 stops: it lingers (greyed, "stopped") for a few seconds, then leaves the tree.
    s.stop(4, "enough");
    model.update(s.state);
    QCOMPARE(model.indexOf(id(4), v::SupervisionTreeModel::StatusColumn).data().toString(), QStringLiteral("stopped"));
    s.advance(v::SupervisionTreeModel::kLinger + 1s);
    s.tick();
    model.update(s.state);
    QVERIFY(!model.indexOf(id(4)).isValid());
    QCOMPARE(w6.data().toString(), QStringLiteral("w6"));

    // With "show stopped", the stopped actor comes back.
    model.setShowStopped(true);
    model.update(s.state);
    QVERIFY(model.indexOf(id(4)).isValid());

    // w6 moves from sup-b to sup-a (link to a new supervisor).
    s.link(6, 2);
    model.update(s.state);
    QCOMPARE(model.indexOf(id(6)).parent(), model.indexOf(id(2)));
    QCOMPARE(model.rowCount(model.indexOf(id(5))), 1);  // only w7 left under sup-b

    // Pruning: with room for two stopped actors, the oldest exits are forgotten (and leave).
    s.fail(3, "boom");
    s.stop(7);
    model.update(s.state);
    QVERIFY(!model.indexOf(id(4)).isValid());  // pruned: the oldest of three stopped actors
    QCOMPARE(model.indexOf(id(3), v::SupervisionTreeModel::StatusColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(model.indexOf(id(2), v::SupervisionTreeModel::FailuresColumn).data().toString(), QStringLiteral("1"));

    // The whole subtree goes when its supervisor is killed and everything is pruned.
    s.kill(2);
    s.kill(6);
    model.setShowStopped(false);
    s.advance(v::SupervisionTreeModel::kLinger + 1s);
    s.tick();
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"root", "  sup-b"}));
    QCOMPARE(resets.count(), 0);
  }

  void only_the_latest_stopped_actors_linger_in_the_tree() {
    ScriptedState s;
    s.spawn(1, 0, "storm");
    for (std::uint64_t pid = 2; pid < 102; ++pid) s.spawn(pid, 1, "", "demo::Drop");
    for (std::uint64_t pid = 2; pid < 102; ++pid) {
      s.advance(1ms);
      s.stop(pid, "evaporated");
    }
    v::SupervisionTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.update(s.state);
    QCOMPARE(model.rowCount(model.indexOf(id(1))), static_cast<int>(v::SupervisionTreeModel::kMaxLingering));
    QVERIFY(model.indexOf(id(101)).isValid());  // the latest stay
    QVERIFY(!model.indexOf(id(2)).isValid());
  }

  void the_tree_model_filters_by_name_type_or_id_and_keeps_the_ancestors_of_matches() {
    ScriptedState s;
    buildTree(s);
    v::SupervisionTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.update(s.state);
    model.setFilterText(QStringLiteral("W4"));
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"root", "  sup-a", "    w4"}));
    model.setFilterText(QStringLiteral("0.6"));
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"root", "  sup-b", "    w6"}));
    model.setFilterText(QStringLiteral("supervisor"));  // the type
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"root", "  sup-a", "  sup-b"}));
    model.setFilterText(QString());
    model.update(s.state);
    QCOMPARE(dump(model).size(), 6);
  }

  void the_tree_model_sends_data_changes_only_for_rows_whose_figures_moved() {
    ScriptedState s;
    buildTree(s);
    v::SupervisionTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.update(s.state);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.update(s.state);
    QCOMPARE(changed.count(), 0);  // nothing moved, nothing sent
    s.advance(100ms);
    s.stats(6, 50, 12);
    model.update(s.state);
    QCOMPARE(changed.count(), 1);
    const QModelIndex tl = changed.first().at(0).value<QModelIndex>();
    QCOMPARE(model.actorAt(tl), id(6));
    QCOMPARE(model.indexOf(id(6), v::SupervisionTreeModel::MailboxColumn).data().toString(), QStringLiteral("12"));
    QCOMPARE(model.indexOf(id(6), v::SupervisionTreeModel::RateColumn).data().toString(), QStringLiteral("50/s"));
  }

  void figures_under_a_collapsed_row_are_signalled_when_it_opens_if_the_view_asks() {
    ScriptedState s;
    buildTree(s);
    v::SupervisionTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNotifyExpandedOnly(true);
    model.update(s.state);
    model.setExpanded(model.indexOf(id(1)), true);  // root open, sup-a and sup-b closed
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    s.advance(100ms);
    s.stats(3, 10, 7);  // a worker under sup-a
    s.stats(2, 10, 1);  // sup-a itself, under the open root
    model.update(s.state);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.actorAt(changed.first().at(0).value<QModelIndex>()), id(2));
    // The worker's row is up to date all the same, and is signalled when sup-a opens.
    QCOMPARE(model.indexOf(id(3), v::SupervisionTreeModel::MailboxColumn).data().toString(), QStringLiteral("7"));
    model.setExpanded(model.indexOf(id(2)), true);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.last().at(0).value<QModelIndex>().parent(), model.indexOf(id(2)));
  }

  void the_actors_table_sorts_by_mailbox_and_keeps_the_selection_on_its_actor() {
    ScriptedState s;
    buildTree(s);
    v::ActorsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setShowStopped(true);
    model.sort(v::ActorsTableModel::MailboxColumn, Qt::DescendingOrder);
    model.update(s.state);
    QCOMPARE(model.rowCount(), 6);
    QPersistentModelIndex selected = model.index(model.rowOf(id(3)), v::ActorsTableModel::NameColumn);

    s.advance(100ms);
    s.stats(3, 10, 5);
    s.stats(6, 10, 900);
    s.stats(4, 10, 40);
    model.update(s.state);
    QCOMPARE(model.actorAt(0), id(6));
    QCOMPARE(model.actorAt(1), id(4));
    QCOMPARE(model.actorAt(2), id(3));
    QCOMPARE(selected.row(), 2);  // the selection moved with its actor
    QCOMPARE(selected.data(v::ActorIdRole).value<as::ActorId>(), id(3));

    // New actors come in, stopped ones can be hidden, and a filter narrows the list.
    s.spawn(8, 1, "late-comer");
    s.stop(5);
    model.update(s.state);
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.index(model.rowOf(id(5)), v::ActorsTableModel::StatusColumn).data().toString(), QStringLiteral("stopped"));
    model.setShowStopped(false);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.rowOf(id(5)), -1);
    model.setFilterText(QStringLiteral("sup"));
    QCOMPARE(model.rowCount(), 1);  // sup-b stopped and hidden; sup-a left
    QCOMPARE(model.actorAt(0), id(2));
    model.setFilterText(QString());
    QCOMPARE(model.rowCount(), 6);

    // Sort by p99 handling time: timed messages give histograms.
    s.message(3, 4, "demo::Job", 10us, 2ms);
    s.message(3, 6, "demo::Job", 10us, 50us);
    model.sort(v::ActorsTableModel::HandlingP99Column, Qt::DescendingOrder);
    model.update(s.state);
    QCOMPARE(model.actorAt(0), id(4));
    QVERIFY(model.index(0, v::ActorsTableModel::HandlingP99Column).data().toString().endsWith(QStringLiteral("ms")));
  }

  void the_actors_table_shows_a_bounded_mailbox_against_its_capacity_and_sorts_by_its_losses() {
    ScriptedState s;
    s.spawn(1, 0, "open");
    s.spawn(2, 0, "sensor");
    s.bounded(2, 8, as::Overflow::drop_oldest);
    s.spawn(3, 0, "gate");
    s.bounded(3, 4, as::Overflow::reject);
    s.advance(100ms);
    s.stats(1, 10, 5);
    s.losses(2, 8, 30, 0);
    s.losses(3, 2, 0, 7);
    v::ActorsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.update(s.state);
    const auto cell = [&](std::uint64_t pid, int column, int role = Qt::DisplayRole) {
      return model.index(model.rowOf(id(pid)), column).data(role);
    };
    QCOMPARE(cell(1, v::ActorsTableModel::MailboxColumn).toString(), QStringLiteral("5"));  // unbounded: as before
    QCOMPARE(cell(2, v::ActorsTableModel::MailboxColumn).toString(), QStringLiteral("8 / 8"));
    QCOMPARE(cell(3, v::ActorsTableModel::MailboxColumn).toString(), QStringLiteral("2 / 4"));
    QVERIFY(cell(2, v::ActorsTableModel::MailboxColumn, Qt::ToolTipRole).toString().contains(QStringLiteral("drop_oldest")));
    // A full one is red (a depth of 8 alone is not).
    QCOMPARE(cell(2, v::ActorsTableModel::MailboxColumn, Qt::ForegroundRole).value<QColor>(),
             v::errorColor(QGuiApplication::palette()));
    QVERIFY(cell(3, v::ActorsTableModel::MailboxColumn, Qt::ForegroundRole).value<QColor>() !=
            v::errorColor(QGuiApplication::palette()));
    QCOMPARE(cell(2, v::ActorsTableModel::DroppedColumn).toString(), QStringLiteral("30"));
    QCOMPARE(cell(1, v::ActorsTableModel::DroppedColumn).toString(), QString());
    QCOMPARE(cell(3, v::ActorsTableModel::RejectedColumn).toString(), QStringLiteral("7"));
    QCOMPARE(model.headerData(v::ActorsTableModel::DroppedColumn, Qt::Horizontal).toString(), QStringLiteral("Dropped"));
    QCOMPARE(model.headerData(v::ActorsTableModel::RejectedColumn, Qt::Horizontal).toString(),
             QStringLiteral("Rejected"));
    model.sort(v::ActorsTableModel::DroppedColumn, Qt::DescendingOrder);
    QCOMPARE(model.actorAt(0), id(2));
    model.sort(v::ActorsTableModel::RejectedColumn, Qt::DescendingOrder);
    QCOMPARE(model.actorAt(0), id(3));
    // More losses move the figures, and the order with them.
    s.advance(100ms);
    s.losses(2, 8, 0, 9);
    model.update(s.state);
    QCOMPARE(model.actorAt(0), id(2));
    QCOMPARE(cell(2, v::ActorsTableModel::RejectedColumn).toString(), QStringLiteral("9"));

    // The inspector has all of it.
    const auto d = v::inspect(s.state, id(2));
    QVERIFY(d.has_value());
    QCOMPARE(d->capacity, 8u);
    QCOMPARE(d->overflow, as::Overflow::drop_oldest);
    QCOMPARE(d->mailbox, 8u);
    QCOMPARE(d->dropped, 30u);
    QCOMPARE(d->rejected, 9u);
    QCOMPARE(v::inspect(s.state, id(1))->capacity, 0u);
  }

  // The qt runtime chooses the thread of an actor spawned from outside when the actor starts.
  void the_actors_table_shows_a_thread_chosen_when_the_actor_starts() {
    ScriptedState s;
    s.runtime("qt", 2);
    auto spawned = s.event(obs::EventKind::spawned, id(1));
    spawned.text = "demo::Worker";
    spawned.thread = obs::no_thread;
    s.apply(spawned);
    v::ActorsTableModel model;
    model.update(s.state);
    const auto thread = [&] { return model.index(model.rowOf(id(1)), v::ActorsTableModel::ThreadColumn).data().toString(); };
    QCOMPARE(thread(), QStringLiteral("—"));

    auto started = s.event(obs::EventKind::started, id(1));
    started.thread = 1;
    s.apply(started);
    model.update(s.state);
    QCOMPARE(thread(), QStringLiteral("1"));
    QCOMPARE(s.state.actor(id(1))->thread, 1u);
  }

  void the_groups_model_follows_joins_and_leaves_in_place() {
    ScriptedState s;
    buildTree(s);
    v::ProcessGroupsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelAboutToBeReset);
    model.update(s.state);
    QCOMPARE(model.rowCount(), 0);

    s.join(3, "default", "workers");
    s.join(4, "default", "workers");
    s.join(6, "default", "printers");
    s.join(6, "billing", "workers");
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"billing", "  workers", "    w6  0.6", "default", "  printers", "    w6  0.6",
                                       "  workers", "    Worker  0.3", "    w4  0.4"}));
    QCOMPARE(model.index(1, v::ProcessGroupsModel::MembersColumn).data().toString(), QStringLiteral("3"));
    QPersistentModelIndex w4 = model.indexOf(id(4));

    s.leave(3, "default", "workers");
    s.join(7, "default", "workers");  // an actor the state has not seen spawn yet
    s.stop(6);                        // a stopped actor leaves every group
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"default", "  workers", "    w4  0.4", "    actor 0.7  0.7"}));
    QCOMPARE(w4.data().toString(), QStringLiteral("w4  0.4"));
    QCOMPARE(resets.count(), 0);
  }

  void the_timers_model_shows_kind_period_fires_and_lateness() {
    ScriptedState s;
    buildTree(s);
    v::TimersModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    s.timerStarted(11, 3, 2, "interval", 100ms);
    s.timerStarted(12, 4, 0, "exit_after", {});
    model.update(s.state);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, v::TimersModel::KindColumn).data().toString(), QStringLiteral("interval"));
    QCOMPARE(model.index(0, v::TimersModel::PeriodColumn).data().toString(), QStringLiteral("100 ms"));
    QCOMPARE(model.index(0, v::TimersModel::OwnerColumn).data().toString(), QStringLiteral("sup-a"));
    QCOMPARE(model.index(0, v::TimersModel::TargetColumn).data().toString(), QStringLiteral("Worker"));
    QCOMPARE(model.index(1, v::TimersModel::KindColumn).data().toString(), QStringLiteral("exit after"));
    QCOMPARE(model.index(1, v::TimersModel::OwnerColumn).data().toString(), QStringLiteral("outside"));
    QCOMPARE(model.index(1, v::TimersModel::PeriodColumn).data().toString(), QStringLiteral("once"));

    // Three firings, each 2 ms late.
    as::TimePoint due = s.now + 100ms;
    for (int i = 0; i < 3; ++i) {
      s.now = due + 2ms;
      s.timerFired(11, 3, "interval", due);
      due += 100ms;
    }
    model.update(s.state);
    QCOMPARE(model.index(0, v::TimersModel::FiredColumn).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(0, v::TimersModel::LateMaxColumn).data().toString(), QStringLiteral("2.00 ms"));
    QCOMPARE(model.index(0, v::TimersModel::NextColumn).data().toString(), QStringLiteral("98.0 ms"));

    s.timerCancelled(12, 4, "exit_after");
    model.update(s.state);
    QCOMPARE(model.rowCount(), 1);
    s.stop(3);  // a timer stops with its target
    model.update(s.state);
    QCOMPARE(model.rowCount(), 0);
  }

  void the_event_log_appends_at_the_bottom_and_drops_the_oldest_at_the_top() {
    ScriptedState s({.recent_events = 10});
    v::EventLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelAboutToBeReset);
    buildTree(s);  // runtime_info + 6 × (spawned, started) + 4 names = 17 events; 10 kept
    model.update(s.state);
    QCOMPARE(model.rowCount(), 10);
    s.fail(3, "disk full");
    model.update(s.state);
    QCOMPARE(model.rowCount(), 10);
    const QModelIndex last = model.index(9, v::EventLogModel::DetailColumn);
    QCOMPARE(last.data().toString(), QStringLiteral("disk full"));
    QCOMPARE(model.index(9, v::EventLogModel::KindColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(model.index(9, v::EventLogModel::ActorColumn).data().toString(), QStringLiteral("Worker  0.3"));
    QCOMPARE(model.index(9, 0).data(v::KindRole).toInt(), static_cast<int>(v::EventCategory::failure));
    QCOMPARE(resets.count(), 0);
  }

  void the_flow_model_draws_the_selected_actor_and_its_partners() {
    ScriptedState s;
    buildTree(s);
    v::MessageFlowModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    s.message(0, 2, "demo::Start");
    for (int i = 0; i < 3; ++i) {
      s.message(2, 3, "demo::Job");
      s.message(3, 4, "demo::Result");
    }
    s.message(6, 6, "demo::Tick");
    model.update(s.state);  // no focus: the top talkers, oldest first
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.index(0, v::MessageFlowModel::FromColumn).data().toString(), QStringLiteral("outside"));
    QCOMPARE(model.index(1, v::MessageFlowModel::TypeColumn).data().toString(), QStringLiteral("Job"));

    model.setFocus(id(3));  // 3 receives from 2 and sends to 4: 2 | 3 | 4
    model.update(s.state);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.lanes().size(), 3u);
    QCOMPARE(model.lanes()[0].id, id(2));
    QCOMPARE(model.lanes()[1].id, id(3));
    QCOMPARE(model.lanes()[2].id, id(4));

    // The window slides: older messages leave at the top.
    s.advance(10s);
    s.message(2, 3, "demo::Job");
    model.update(s.state);
    QCOMPARE(model.rowCount(), 1);
  }

  void two_live_actors_with_one_name_get_lanes_that_tell_them_apart() {
    ScriptedState s;
    s.spawn(1, 0, "team");
    s.spawn(2, 1, "worker-3");
    s.spawn(3, 1, "worker-3");  // its replacement, registered under the same name
    for (int i = 0; i < 3; ++i) {
      s.message(1, 2, "demo::Job");
      s.message(1, 3, "demo::Job");
    }
    v::MessageFlowModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setFocus(id(1));
    model.update(s.state);
    QStringList names;
    for (const auto& l : model.lanes()) names << QString::fromStdString(l.name);
    QCOMPARE(names, (QStringList{"team", "worker-3", "worker-3 (2)"}));
    QCOMPARE(model.lanes()[1].id, id(2));
    QCOMPARE(model.lanes()[2].id, id(3));
  }

  void a_crowd_of_nameless_short_lived_actors_shares_one_lane_instead_of_others() {
    // A storm: a squall pokes 40 nameless drops once each; a few are already forgotten.
    ScriptedState s({.stopped_actors = 5});
    s.spawn(1, 0, "squall", "demo::Squall");
    for (std::uint64_t pid = 10; pid < 50; ++pid) {
      s.spawn(pid, 1, "", "demo::Drop");
      s.message(1, pid, "demo::Poke");
    }
    for (std::uint64_t pid = 10; pid < 20; ++pid) s.stop(pid, "evaporated");  // 5 of them forgotten
    v::MessageFlowModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMaxLanes(4);
    model.update(s.state);  // the top talkers
    QStringList names;
    for (const auto& l : model.lanes()) names << QString::fromStdString(l.name);
    QCOMPARE(names, (QStringList{"squall", "Drop ×35", "stopped ×5"}));
    QCOMPARE(model.rowCount(), 40);
    for (const auto& m : model.rows()) {
      QCOMPARE(m.fromLane, 0);
      QVERIFY(m.toLane == 1 || m.toLane == 2);  // never "others"
    }
    QCOMPARE(model.laneOf(id(30)), 1);

    // The squall selected: the drops are its partners, on their crowd's lane.
    model.setFocus(id(1));
    model.update(s.state);
    names.clear();
    for (const auto& l : model.lanes()) names << QString::fromStdString(l.name);
    QCOMPARE(names, (QStringList{"squall", "Drop ×35", "stopped ×5"}));
  }

  void a_timers_message_comes_from_the_timer_not_from_outside() {
    ScriptedState s;
    s.spawn(1, 0, "metronome");
    s.timerStarted(7, 1, 1, "interval", 20ms);
    as::TimePoint due = s.now + 20ms;
    for (int i = 0; i < 3; ++i) {
      s.now = due + 100us;
      s.timerFired(7, 1, "interval", due);
      s.message(0, 1, "demo::Tick");  // what the timer delivered as it fired
      due += 20ms;
    }
    s.advance(5ms);
    s.message(0, 1, "demo::Poke");  // a cast from outside any actor
    v::MessageFlowModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setFocus(id(1));
    model.update(s.state);
    QCOMPARE(model.rowCount(), 4);
    using K = v::MessageFlowModel::Lane::Kind;
    const auto& lanes = model.lanes();
    const auto from = [&](int row) { return lanes[static_cast<std::size_t>(model.rows()[static_cast<std::size_t>(row)].fromLane)]; };
    QCOMPARE(from(0).kind, K::timers);
    QCOMPARE(from(0).name, std::string("timers"));
    QCOMPARE(model.index(0, v::MessageFlowModel::FromColumn).data().toString(),
             QStringLiteral("timer 7 (interval, every 20.0 ms)"));
    QCOMPARE(from(2).kind, K::timers);
    QCOMPARE(from(3).kind, K::outside);
    QCOMPARE(model.index(3, v::MessageFlowModel::FromColumn).data().toString(), QStringLiteral("outside"));
  }

  void a_restarted_child_keeps_its_place_in_the_tree_with_its_restart_count() {
    ScriptedState s;
    s.spawn(1, 0, "team", "demo::Supervisor");
    s.spawn(2, 1, "team/a");
    s.spawn(3, 1, "team/b");
    s.spawn(4, 1, "team/c");
    s.configure(1, "one_for_one", 3, 5s,
                "child\ta\tpermanent\t5000\tworker\nchild\tb\ttransient\tbrutal_"
                "kill\tworker\nchild\tc\ttemporary\tinfinity\tworker");
    v::SupervisionTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelAboutToBeReset);
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"team", "  a", "  b", "  c"}));

    // b fails: it shows failed in its place, then its replacement takes that place, with "↻ 1".
    s.advance(10ms);
    s.fail(3, "boom");
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"team", "  a", "  b", "  c"}));
    QCOMPARE(model.indexOf(id(3), v::SupervisionTreeModel::StatusColumn).data().toString(),
             QStringLiteral("failed"));
    s.restart(1, 3, 5, "b", 1, "team/b");
    model.update(s.state);
    QCOMPARE(dump(model), (QStringList{"team", "  a", QStringLiteral("  b  \u21bb 1"), "  c"}));
    QVERIFY(!model.indexOf(id(3)).isValid());  // one row per child: the old one is gone at once
    QCOMPARE(model.indexOf(id(5)).row(), 1);

    // Restarted again, and c too, between two updates: each in its place, with its own count.
    s.advance(10ms);
    s.restart(1, 5, 6, "b", 2, "team/b");
    s.restart(1, 4, 7, "c", 1, "team/c");
    model.update(s.state);
    QCOMPARE(dump(model),
             (QStringList{"team", "  a", QStringLiteral("  b  \u21bb 2"), QStringLiteral("  c  \u21bb 1")}));
    QVERIFY(
        model.indexOf(id(6)).data(Qt::ToolTipRole).toString().contains(QStringLiteral("restarted 2\u00d7")));

    // "Show stopped" shows no second row for a restarted child, and neither does time passing.
    model.setShowStopped(true);
    model.update(s.state);
    QCOMPARE(model.rowCount(model.indexOf(id(1))), 3);
    model.setShowStopped(false);
    s.advance(v::SupervisionTreeModel::kLinger + 1s);
    s.tick();
    model.update(s.state);
    QCOMPARE(model.rowCount(model.indexOf(id(1))), 3);
    QCOMPARE(resets.count(), 0);
  }

  void the_inspector_of_a_supervisor_shows_its_strategy_intensity_backoff_and_child_specs() {
    ScriptedState s;
    s.spawn(1, 0, "team", "demo::Supervisor");
    s.spawn(2, 1, "team/a");
    s.spawn(3, 1, "team/b");
    s.configure(1, "rest_for_one", 3, 5s,
                "child\ta\tpermanent\t5000\tworker\nchild\tb\ttransient\tbrutal_kill\tsupervisor\n"
                "backoff\t10\t1000\t30000");
    s.advance(1s);
    s.restart(1, 3, 4, "b", 1, "team/b");
    s.advance(1s);
    s.restart(1, 4, 5, "b", 2, "team/b");
    const auto d = v::inspect(s.state, id(1));
    QVERIFY(d.has_value() && d->supervision.has_value());
    const v::ActorDetails::Supervision& sv = *d->supervision;
    QCOMPARE(sv.strategy, std::string("rest_for_one"));
    QCOMPARE(sv.intensity, std::string("2 of 3 in 5 s"));
    QCOMPARE(sv.totalRestarts, 2u);
    QVERIFY(sv.backoff.has_value() && sv.backoff->min == 10ms && sv.backoff->max == 1s &&
            sv.backoff->reset == 30s);
    QCOMPARE(sv.children.size(), 2u);
    QCOMPARE(sv.children[0].id, std::string("a"));
    QCOMPARE(sv.children[0].restart, std::string("permanent"));
    QCOMPARE(sv.children[0].shutdown, std::string("5000"));
    QVERIFY(!sv.children[0].supervisor && sv.children[1].supervisor);
    QCOMPARE(sv.children[0].actor->id, id(2));
    QCOMPARE(sv.children[1].actor->id, id(5));  // the current actor of spec b
    QCOMPARE(sv.children[1].restarts, 2u);
    QVERIFY(!sv.gaveUp.has_value());
    // The child says which spec it runs and how often it was restarted.
    const auto child = v::inspect(s.state, id(5));
    QCOMPARE(child->childId, std::string("b"));
    QCOMPARE(child->restarts, 2u);
    QVERIFY(!child->supervision.has_value());
    // The intensity is a window: 4.5 s on, the first restart has left it.
    s.advance(4500ms);
    s.tick();
    QCOMPARE(v::inspect(s.state, id(1))->supervision->intensity, std::string("1 of 3 in 5 s"));
    s.gaveUp(1, 4, 5s, "reached max restart intensity");
    QCOMPARE(v::inspect(s.state, id(1))->supervision->gaveUpReason,
             std::string("reached max restart intensity"));
    // An actor that is no Supervisor has none of it.
    QVERIFY(!v::inspect(s.state, id(2))->supervision.has_value());
    QCOMPARE(v::inspect(s.state, id(2))->childId, std::string("a"));
  }

  void the_warnings_model_flags_a_growing_mailbox_a_restart_storm_a_late_timer_and_drops() {
    ScriptedState s;
    buildTree(s);
    v::WarningsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.update(s.state);
    QCOMPARE(model.rowCount(), 0);

    // w4's mailbox grows every 100 ms for two seconds; w6's goes up and down.
    for (int i = 1; i <= 20; ++i) {
      s.advance(100ms);
      s.stats(4, 5, static_cast<std::uint64_t>(100 + 60 * i));
      s.stats(6, 5, static_cast<std::uint64_t>(i % 2 == 0 ? 400 : 100));
    }
    model.update(s.state);
    QCOMPARE(model.rowCount(), 1);
    const QModelIndex row = model.index(0, v::WarningsModel::RuleColumn);
    QCOMPARE(row.data().toString(), QStringLiteral("growing mailbox"));
    QCOMPARE(row.data(v::ActorIdRole).value<as::ActorId>(), id(4));
    const QString summary = model.index(0, v::WarningsModel::SummaryColumn).data().toString();
    QVERIFY2(summary.contains(QStringLiteral("1,300")), qPrintable(summary));
    QPersistentModelIndex kept = row;

    // sup-b replaces children that fail, five times in a row; a timer fires 30 ms late; events
    // were dropped. (sup-a's own first children failing would not be a restart storm.)
    for (std::uint64_t pid = 20; pid < 25; ++pid) {
      s.spawn(pid, 5, "", "demo::Flaky");
      s.fail(pid, "flaky " + std::to_string(pid));
    }
    s.timerStarted(31, 6, 6, "interval", 50ms);
    as::TimePoint due = s.now + 50ms;
    for (int i = 0; i < 4; ++i) {
      s.now = due + 30ms;
      s.timerFired(31, 6, "interval", due);
      due += 50ms;
    }
    s.state.add_dropped(7);
    s.advance(100ms);
    s.stats(4, 5, 1400);
    model.update(s.state);
    QStringList rules;
    for (int r = 0; r < model.rowCount(); ++r) rules << model.index(r, 0).data().toString();
    QCOMPARE(rules, (QStringList{"growing mailbox", "restart storm", "late timer", "dropped events"}));
    QCOMPARE(kept.row(), 0);  // the growing-mailbox row is the same row
    QCOMPARE(model.index(1, 0).data(v::ActorIdRole).value<as::ActorId>(), id(5));
    QCOMPARE(model.index(3, v::WarningsModel::ActorColumn).data().toString(), QStringLiteral("system"));

    // A supervisor whose first children fail, and that replaces none, is no restart storm.
    ScriptedState cloud;
    cloud.spawn(1, 0, "cloud");
    for (std::uint64_t pid = 2; pid < 10; ++pid) cloud.spawn(pid, 1, "", "demo::Drop");
    cloud.advance(50ms);
    for (std::uint64_t pid = 2; pid < 10; ++pid) cloud.fail(pid, "evaporated");
    QVERIFY(v::lint(cloud.state).empty());
  }

  void a_handler_longer_than_the_threshold_on_the_qt_runtime_is_a_blocked_event_loop() {
    ScriptedState s;
    s.runtime("qt", 2);
    s.spawn(1, 0, "ui-worker", "demo::Worker", 1);
    s.spawn(2, 0, "neighbour", "demo::Worker", 1);
    s.message(2, 1, "demo::Job", 10us, 80ms);
    const auto warnings = v::lint(s.state);
    QCOMPARE(warnings.size(), 1u);
    QCOMPARE(warnings[0].kind, v::WarningKind::blocked_event_loop);
    QCOMPARE(warnings[0].actor, id(1));
    QVERIFY2(warnings[0].summary.find("blocking its 1 other actors") != std::string::npos, warnings[0].summary.c_str());
    // On the asio runtime the same handler held a pool thread.
    ScriptedState a;
    a.runtime("asio", 2);
    a.spawn(1, 0, "ui-worker");
    a.message(0, 1, "demo::Job", 10us, 80ms);
    const auto pool = v::lint(a.state);
    QCOMPARE(pool.size(), 1u);
    QCOMPARE(pool[0].kind, v::WarningKind::blocked_event_loop);
    QCOMPARE(pool[0].actor, id(1));
    QVERIFY2(pool[0].summary.find("one of the 2 threads") != std::string::npos, pool[0].summary.c_str());
    // A short handler is no warning.
    ScriptedState quick;
    quick.runtime("asio", 2);
    quick.spawn(1, 0, "quick");
    quick.message(0, 1, "demo::Job", 10us, 2ms);
    QVERIFY(v::lint(quick.state).empty());
  }

  void a_handler_still_holding_its_thread_is_a_blocked_thread_on_every_runtime() {
    for (const char* runtime : {"asio", "qt", "manual"}) {
      ScriptedState s;
      s.runtime(runtime, 2);
      s.spawn(1, 0, "stuck", "demo::Worker", 0);
      s.spawn(2, 0, "neighbour", "demo::Worker", 0);
      s.busy(1, 1200ms);  // no message handled yet, so no handling time: only the polls know
      const auto warnings = v::lint(s.state);
      QCOMPARE(warnings.size(), 1u);
      QCOMPARE(warnings[0].kind, v::WarningKind::blocked_event_loop);
      QCOMPARE(warnings[0].actor, id(1));
      QVERIFY2(warnings[0].summary.find("has been running for 1200.0 ms and still is") != std::string::npos,
               warnings[0].summary.c_str());
      s.busy(1, 0ms);  // it returned
      QVERIFY(v::lint(s.state).empty());
    }
  }

  void the_inspector_gathers_family_groups_timers_histograms_and_failures() {
    ScriptedState s;
    buildTree(s);
    s.join(2, "default", "supervisors");
    s.timerStarted(40, 2, 2, "interval", 1s);
    s.message(1, 2, "demo::Job", 300us, 40us);
    s.fail(4, "out of memory");
    s.advance(100ms);
    s.stats(2, 30, 3);
    const auto d = v::inspect(s.state, id(2));
    QVERIFY(d.has_value());
    QCOMPARE(d->name, std::string("sup-a"));
    QCOMPARE(d->registered, std::string("sup-a"));
    QVERIFY(d->parent.has_value());
    QCOMPARE(d->parent->id, id(1));
    QCOMPARE(d->children.size(), 2u);
    QCOMPARE(d->aliveChildren, 1u);
    QCOMPARE(d->groups.size(), 1u);
    QCOMPARE(d->groups[0].second, std::string("supervisors"));
    QCOMPARE(d->timers.size(), 1u);
    QVERIFY(d->timers[0].owned);
    QCOMPARE(d->queue.count(), 1u);
    QCOMPARE(d->failures.size(), 1u);
    QCOMPARE(d->failures[0].error, std::string("out of memory"));
    QCOMPARE(d->failures[0].who.id, id(4));
    QCOMPARE(d->mailbox, 3u);
    QCOMPARE(d->rateHistory.back(), 60.0);  // 30 in one 100 ms bucket, averaged over 0.5 s
    QCOMPARE(d->mailboxHistory.back(), 3.0);
    // Time moves into the next bucket before its poll: the charts still end at the last sampled
    // bucket, not at a zero for the one in progress.
    s.advance(150ms);
    s.join(1, "default", "later");  // an event moves the state's clock into the next bucket
    const auto between = v::inspect(s.state, id(2));
    QCOMPARE(between->mailboxHistory.back(), 3.0);
    QCOMPARE(between->rateHistory.back(), 60.0);
    QVERIFY(!v::inspect(s.state, id(99)).has_value());
  }

  void derived_figures_name_actors_and_count_rates_the_same_everywhere() {
    QCOMPARE(v::shortTypeName("demo::(anonymous namespace)::Worker<int, std::string>"), std::string("Worker"));
    QCOMPARE(v::shortTypeName("Plain"), std::string("Plain"));
    ScriptedState s;
    s.spawn(1, 0, "", "demo::Pinger");
    for (int i = 0; i < 10; ++i) {
      s.advance(100ms);
      s.stats(1, 7, 0);
    }
    QCOMPARE(v::messagesPerSecond(s.state, *s.state.actor(id(1))), 70.0);
  }
};

QTEST_MAIN(TestViewModels)
#include "tst_view_models.moc"
