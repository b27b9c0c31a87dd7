// The colour and role rules of a cell about an actor (actorCellData), alone and as the actors
// table and the supervision tree apply them: both models show one actor alike.
#include "scripted_state.hpp"

#include "actors/actors_table_model.hpp"
#include "common/actor_selection.hpp"
#include "common/health.hpp"
#include "common/roles.hpp"
#include "tree/supervision_tree_model.hpp"

#include <QGuiApplication>
#include <QTest>

using namespace views_test;
namespace v = actorscope::views;

class TestActorCells : public QObject {
  Q_OBJECT

 private slots:
  void the_rules_colour_status_mailbox_failures_and_exited_rows() {
    const QPalette pal = QGuiApplication::palette();
    const std::string name = "clerk", type = "demo::Clerk";
    const v::ActorCellFacts live{
        .id = id(7), .health = v::Health::running, .mailbox = 5000, .failing = true, .name = name, .type = type};
    auto colour = [](v::ActorCell cell, const v::ActorCellFacts& f) {
      return v::actorCellData(cell, Qt::ForegroundRole, f).value<QColor>();
    };
    QCOMPARE(colour(v::ActorCell::status, live), v::healthColor(v::Health::running, pal));
    QCOMPARE(colour(v::ActorCell::mailbox, live), v::mailboxColor(5000, pal));
    QCOMPARE(colour(v::ActorCell::failures, live), v::errorColor(pal));
    QCOMPARE(colour(v::ActorCell::id, live), pal.color(QPalette::PlaceholderText));
    QCOMPARE(colour(v::ActorCell::type, live), pal.color(QPalette::PlaceholderText));
    QVERIFY(!v::actorCellData(v::ActorCell::other, Qt::ForegroundRole, live).isValid());  // the model's
    QVERIFY(!v::actorCellData(v::ActorCell::name, Qt::DisplayRole, live).isValid());      // text is the model's
    QVERIFY(v::actorCellData(v::ActorCell::name, Qt::DecorationRole, live).isValid());    // the status dot
    QVERIFY(!v::actorCellData(v::ActorCell::id, Qt::DecorationRole, live).isValid());
    QCOMPARE(v::actorCellData(v::ActorCell::other, v::ActorIdRole, live).value<actorscope::ActorId>(), id(7));
    QCOMPARE(v::actorCellData(v::ActorCell::other, v::HealthRole, live).toInt(), static_cast<int>(v::Health::running));
    QCOMPARE(v::actorCellData(v::ActorCell::other, v::SearchRole, live).toString(),
             QStringLiteral("clerk demo::Clerk 0.7"));

    // Not failing: the failures cell has no colour of its own.
    v::ActorCellFacts calm = live;
    calm.failing = false;
    QVERIFY(!v::actorCellData(v::ActorCell::failures, Qt::ForegroundRole, calm).isValid());

    // An exited actor: its status keeps its colour, every other cell is greyed.
    for (const v::Health h : {v::Health::stopped, v::Health::failed, v::Health::killed}) {
      v::ActorCellFacts gone = live;
      gone.health = h;
      QVERIFY(v::hasExited(h));
      QCOMPARE(colour(v::ActorCell::status, gone), v::healthColor(h, pal));
      QCOMPARE(colour(v::ActorCell::mailbox, gone), pal.color(QPalette::PlaceholderText));
      QCOMPARE(colour(v::ActorCell::failures, gone), pal.color(QPalette::PlaceholderText));
    }
    QVERIFY(!v::hasExited(v::Health::stopping));
  }

  void the_actors_table_and_the_tree_show_an_actor_alike() {
    ScriptedState s;
    s.spawn(1, 0, "desk");
    s.spawn(2, 1, "clerk");
    s.spawn(3, 1, "printer");
    s.advance(100ms);
    s.stats(2, 10, 2000);  // a deep mailbox
    s.fail(3, "paper jam");
    v::ActorsTableModel table;
    table.setShowStopped(true);
    table.update(s.state);
    v::SupervisionTreeModel tree;
    tree.setShowStopped(true);
    tree.update(s.state);

    using T = v::ActorsTableModel;
    using Tr = v::SupervisionTreeModel;
    const std::pair<int, int> sameColumns[] = {{T::NameColumn, Tr::NameColumn},
                                               {T::IdColumn, Tr::IdColumn},
                                               {T::StatusColumn, Tr::StatusColumn},
                                               {T::MailboxColumn, Tr::MailboxColumn}};
    for (const std::uint64_t pid : {1u, 2u, 3u}) {
      const int row = table.rowOf(id(pid));
      QVERIFY2(row >= 0, qPrintable(QStringLiteral("actor %1 not in the table").arg(pid)));
      const QModelIndex inTree = tree.indexOf(id(pid));
      QVERIFY2(inTree.isValid(), qPrintable(QStringLiteral("actor %1 not in the tree").arg(pid)));
      for (const auto& [tc, rc] : sameColumns) {
        const QModelIndex a = table.index(row, tc);
        const QModelIndex b = inTree.siblingAtColumn(rc);
        for (const int role : {int(Qt::ForegroundRole), int(v::ActorIdRole), int(v::HealthRole)})
          QCOMPARE(a.data(role), b.data(role));
        QCOMPARE(a.data(Qt::DecorationRole).isValid(), b.data(Qt::DecorationRole).isValid());
      }
    }
    // The figures behind the comparison are the ones scripted.
    const QPalette pal = QGuiApplication::palette();
    QCOMPARE(table.index(table.rowOf(id(2)), T::MailboxColumn).data(Qt::ForegroundRole).value<QColor>(),
             v::mailboxColor(2000, pal));
    QCOMPARE(tree.indexOf(id(3), Tr::StatusColumn).data(Qt::ForegroundRole).value<QColor>(),
             v::healthColor(v::Health::failed, pal));
  }
};

QTEST_MAIN(TestActorCells)
#include "tst_actor_cells.moc"
