// The supervision graph's layout alone, as a function from a scripted SystemState to rows and
// columns (no widget, no fonts): the positions of a small tree, one aggregate node of each kind per
// supervisor however often it is laid out, and no two nodes in one place.
#include "scripted_state.hpp"

#include "tree/supervision_graph_layout.hpp"

#include <QTest>

#include <map>
#include <set>
#include <utility>

using namespace views_test;
namespace v = actorscope::views;
using Layout = v::SupervisionGraphLayout;

namespace {

/// "label@column,row" per node, in the layout's order: what the drawing puts where.
QStringList places(const Layout& layout) {
  QStringList out;
  for (const Layout::Node& n : layout.nodes()) out << QStringLiteral("%1@%2,%3").arg(n.label).arg(n.depth).arg(n.row);
  return out;
}

/// Fails the test where two nodes share a place, or a node is not one column right of its parent
/// and on or below its parent's row (the drawing's edges run right and down, never up).
void verifyNoOverlaps(const Layout& layout) {
  std::set<std::pair<int, int>> taken;
  const auto& nodes = layout.nodes();
  for (const Layout::Node& n : nodes) {
    QVERIFY2(taken.insert({n.depth, n.row}).second,
             qPrintable(QStringLiteral("two nodes at column %1, row %2 (one is %3)").arg(n.depth).arg(n.row).arg(n.label)));
    QVERIFY2(n.row >= 0 && n.row < layout.rowCount(), qPrintable(n.label));
    QVERIFY(n.depth <= layout.maxDepth());
    if (n.parent < 0) continue;
    const Layout::Node& p = nodes[static_cast<std::size_t>(n.parent)];
    QCOMPARE(n.depth, p.depth + 1);
    QVERIFY2(n.row >= p.row, qPrintable(n.label));
  }
}

/// Aggregate nodes per (parent, kind): each supervisor has at most one of each.
std::map<std::pair<int, bool>, int> aggregatesByParent(const Layout& layout) {
  std::map<std::pair<int, bool>, int> out;
  for (const Layout::Node& n : layout.nodes())
    if (n.aggregate) ++out[{n.parent, n.exits}];
  return out;
}

}  // namespace

class TestGraphLayout : public QObject {
  Q_OBJECT

 private slots:
  void a_small_tree_is_laid_out_left_to_right_with_a_row_kept_under_each_family() {
    // root(1) → sup-a(2) → w3, w4; root → sup-b(5) → w6.
    ScriptedState s;
    s.spawn(1, 0, "root");
    s.spawn(2, 1, "sup-a");
    s.spawn(3, 2, "w3");
    s.spawn(4, 2, "w4");
    s.spawn(5, 1, "sup-b");
    s.spawn(6, 5, "w6");
    const Layout layout = v::layOutSupervisionGraph(s.state, {});
    // Depth-first, each supervisor on the row of its first child; under each supervisor's children
    // one row stays free for its aggregate nodes, so that their coming never moves an actor.
    QCOMPARE(places(layout), (QStringList{QStringLiteral("root@0,0"), QStringLiteral("sup-a@1,0"),
                                          QStringLiteral("w3@2,0"), QStringLiteral("w4@2,1"),
                                          QStringLiteral("sup-b@1,3"), QStringLiteral("w6@2,3")}));
    QCOMPARE(layout.rowCount(), 6);
    QCOMPARE(layout.maxDepth(), 2);
    QCOMPARE(layout.indexOf(id(5)), 4);
    QCOMPARE(layout.indexOf(id(99)), -1);
    QCOMPARE(layout.nodes()[5].parent, 4);  // w6 under sup-b
    verifyNoOverlaps(layout);
  }

  void aggregate_nodes_are_built_once_per_supervisor_and_update() {
    // A crowd of 30 live children and 3 that exited lately under one supervisor, and a second
    // supervisor with a crowd of its own.
    ScriptedState s;
    s.spawn(1, 0, "root");
    s.spawn(2, 1, "crowd-a");
    for (std::uint64_t pid = 100; pid < 133; ++pid) s.spawn(pid, 2, "a-" + std::to_string(pid));
    s.fail(130, "boom");
    s.kill(131);
    s.stop(132);
    s.spawn(3, 1, "crowd-b");
    for (std::uint64_t pid = 200; pid < 220; ++pid) s.spawn(pid, 3, "b-" + std::to_string(pid));
    Layout layout;
    for (int round = 0; round < 3; ++round) {
      // Laying the same state out again rebuilds the aggregates, never adds to them.
      layout = v::layOutSupervisionGraph(s.state, {}, layout);
      const auto byParent = aggregatesByParent(layout);
      const int a = layout.indexOf(id(2));
      const int b = layout.indexOf(id(3));
      QCOMPARE(byParent.size(), std::size_t{3});
      QCOMPARE(byParent.at({a, false}), 1);
      QCOMPARE(byParent.at({a, true}), 1);
      QCOMPARE(byParent.at({b, false}), 1);
      for (const Layout::Node& n : layout.nodes()) {
        if (!n.aggregate) continue;
        if (n.parent == a && !n.exits) {
          QCOMPARE(n.hidden, std::size_t{30 - (Layout::kMaxChildrenShown - 1)});
          QCOMPARE(n.hiddenAlive, n.hidden);
          QCOMPARE(n.label, QStringLiteral("+ %1 more").arg(n.hidden));
        } else if (n.parent == a) {
          QCOMPARE(n.hidden, std::size_t{3});
          QCOMPARE(n.failed + n.killed + n.stopped, std::size_t{3});
          QCOMPARE(n.label, QStringLiteral("1 failed, 1 killed, 1 stopped"));
          QCOMPARE(n.health, v::Health::failed);
          QVERIFY(n.flashing);
        } else {
          QCOMPARE(n.hidden, std::size_t{20 - (Layout::kMaxChildrenShown - 1)});
          QCOMPARE(n.health, v::Health::running);
        }
      }
      verifyNoOverlaps(layout);
    }
    // Once the exits are old news their node goes; the row it used stays, so nothing moves.
    const int rowOfB = layout.nodes()[static_cast<std::size_t>(layout.indexOf(id(3)))].row;
    s.advance(Layout::kExitsShownFor + 1s);
    s.tick();
    layout = v::layOutSupervisionGraph(s.state, {}, layout);
    QCOMPARE(aggregatesByParent(layout).size(), std::size_t{2});
    QCOMPARE(layout.nodes()[static_cast<std::size_t>(layout.indexOf(id(3)))].row, rowOfB);
    verifyNoOverlaps(layout);
  }

  void nodes_never_overlap_as_a_tree_grows_and_shrinks() {
    // Three levels, families of several sizes (some crowds), members leaving and joining between
    // updates: after every update each node has a place of its own.
    ScriptedState s;
    Layout layout;
    s.spawn(1, 0, "root");
    std::uint64_t next = 10;
    for (std::uint64_t sup = 2; sup < 7; ++sup) {
      s.spawn(sup, 1, "sup-" + std::to_string(sup));
      const std::uint64_t children = 2 + (sup * 5) % 17;  // 12, 2, 7, 14, 4: two crowds
      for (std::uint64_t c = 0; c < children; ++c, ++next) {
        s.spawn(next, sup, "w-" + std::to_string(next));
        if (c % 4 == 0) s.spawn(next + 1000, next, "leaf-" + std::to_string(next));
      }
      layout = v::layOutSupervisionGraph(s.state, {}, layout);
      verifyNoOverlaps(layout);
    }
    for (std::uint64_t pid = 10; pid < next; pid += 3) {
      s.stop(pid);
      s.spawn(pid + 5000, 2 + pid % 5, "new-" + std::to_string(pid));
      layout = v::layOutSupervisionGraph(s.state, {}, layout);
      verifyNoOverlaps(layout);
    }
    layout = v::layOutSupervisionGraph(s.state, {.showStopped = true}, layout);
    verifyNoOverlaps(layout);
    layout = {};  // a new session
    QVERIFY(layout.nodes().empty());
    QCOMPARE(layout.rowCount(), 0);
  }
};

QTEST_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"
