// The supervision graph's layout alone, as a function from a scripted SystemState (the options and
// the previous layout) to rows and columns (no widget, no fonts): the positions of a small tree,
// one aggregate node of each kind per supervisor however often it is laid out, no two nodes in one
// place, the same layout from the same input, actors that keep their places as the tree changes,
// and crowds folded into one node.
#include "scripted_state.hpp"

#include "tree/supervision_graph_layout.hpp"

#include <QTest>

#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
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

/// Where each actor is drawn, by id: (column, row).
std::map<std::uint64_t, std::pair<int, int>> actorPlaces(const Layout& layout) {
  std::map<std::uint64_t, std::pair<int, int>> out;
  for (const Layout::Node& n : layout.nodes())
    if (!n.aggregate) out[n.id.pid] = {n.depth, n.row};
  return out;
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

  void the_same_input_gives_the_same_layout() {
    // A tree with a crowd, exits and a selected child beyond the crowd's places.
    ScriptedState s;
    s.spawn(1, 0, "root");
    s.spawn(2, 1, "crowd");
    for (std::uint64_t pid = 100; pid < 120; ++pid) s.spawn(pid, 2, "c-" + std::to_string(pid));
    s.spawn(3, 1, "team");
    for (std::uint64_t pid = 200; pid < 205; ++pid) s.spawn(pid, 3, "t-" + std::to_string(pid));
    s.fail(201, "boom");
    const Layout::Options options{.selected = id(118)};

    // From nothing: twice the same layout, and the selected child drawn though beyond the places.
    const Layout first = v::layOutSupervisionGraph(s.state, options);
    QVERIFY(first == v::layOutSupervisionGraph(s.state, options));
    QVERIFY(first.indexOf(id(118)) >= 0);
    verifyNoOverlaps(first);

    // From a previous layout, after the tree changed: the same again, and the previous layout is
    // not touched (it is a value; the function keeps nothing of its own).
    s.stop(104);
    s.spawn(300, 3, "t-300");
    const Layout previous = first;
    const Layout next = v::layOutSupervisionGraph(s.state, options, previous);
    QVERIFY(next == v::layOutSupervisionGraph(s.state, options, previous));
    QVERIFY(previous == first);
    verifyNoOverlaps(next);

    // Laying out an unchanged state again from its own layout changes nothing.
    QVERIFY(v::layOutSupervisionGraph(s.state, options, next) == next);
    // Other options give another layout from the same state: the options are an input too.
    QVERIFY(v::layOutSupervisionGraph(s.state, {}, previous).indexOf(id(118)) < 0);
  }

  void a_new_child_never_moves_the_actors_above_it_and_a_replacement_moves_nothing() {
    // root(1) → sup-a(2) → w3, w4, w5; root → sup-b(6) → w7, w8.
    ScriptedState s;
    s.spawn(1, 0, "root");
    s.spawn(2, 1, "sup-a");
    for (std::uint64_t pid = 3; pid <= 5; ++pid) s.spawn(pid, 2, "w-" + std::to_string(pid));
    s.spawn(6, 1, "sup-b");
    s.spawn(7, 6, "w7");
    s.spawn(8, 6, "w8");
    const Layout before = v::layOutSupervisionGraph(s.state, {});
    const auto placesBefore = actorPlaces(before);

    // w4 stops and w9 replaces it: w9 takes w4's place, and every other actor stays where it was
    // (w4's exit goes on the row kept under sup-a's children).
    s.stop(4);
    s.spawn(9, 2, "w9");
    const Layout replaced = v::layOutSupervisionGraph(s.state, {}, before);
    auto placesReplaced = actorPlaces(replaced);
    QCOMPARE(placesReplaced.at(9), placesBefore.at(4));
    placesReplaced.erase(9);
    auto expected = placesBefore;
    expected.erase(4);
    QCOMPARE(placesReplaced, expected);
    QCOMPARE(aggregatesByParent(replaced).size(), std::size_t{1});
    verifyNoOverlaps(replaced);

    // A child with no place to take goes at the end of its family: every actor above it keeps its
    // place, and those below keep their column and move down by its one row (never up).
    s.spawn(10, 2, "w10");
    const Layout grown = v::layOutSupervisionGraph(s.state, {}, replaced);
    const auto placesGrown = actorPlaces(grown);
    const int newRow = placesGrown.at(10).second;
    QCOMPARE(placesGrown.at(10).first, 2);
    QCOMPARE(placesGrown.size(), placesReplaced.size() + 2);  // w9 and w10
    for (const auto& [pid, place] : actorPlaces(replaced)) {
      const auto now = placesGrown.at(pid);
      if (place.second < newRow) {
        QCOMPARE(now, place);
      } else {
        QCOMPARE(now, std::make_pair(place.first, place.second + 1));
      }
    }
    QCOMPARE(placesGrown.at(7), std::make_pair(2, placesBefore.at(7).second + 1));  // sup-b's family is below
    verifyNoOverlaps(grown);
  }

  void a_restarted_child_takes_the_place_of_the_one_it_replaces_with_its_restart_count() {
    // team(1) → w-2 (temporary), w-3, w-4, w-5: a Supervisor's children.
    ScriptedState s;
    s.spawn(1, 0, "team");
    for (std::uint64_t pid = 2; pid <= 5; ++pid) s.spawn(pid, 1, "w-" + std::to_string(pid));
    s.configure(1, "one_for_one", 5, 5s,
                "child\tc2\ttemporary\t100\tworker\nchild\tc3\tpermanent\t100\tworker\n"
                "child\tc4\tpermanent\t100\tworker\nchild\tc5\tpermanent\t100\tworker");
    const Layout before = v::layOutSupervisionGraph(s.state, {});
    const auto placesBefore = actorPlaces(before);
    // w-2 ends for good (a temporary child is not restarted): its place is free.
    s.stop(2);
    const Layout gap = v::layOutSupervisionGraph(s.state, {}, before);
    // w-4 is restarted twice and w-3 once between two updates: each replacement takes the place of
    // the child it replaces, not the free one above it, and is labelled with its restart count.
    s.advance(10ms);
    s.restart(1, 4, 6, "c4", 1, "w-4");
    s.restart(1, 3, 7, "c3", 1, "w-3");
    s.restart(1, 6, 8, "c4", 2, "w-4");
    const Layout after = v::layOutSupervisionGraph(s.state, {}, gap);
    const auto placesAfter = actorPlaces(after);
    QCOMPARE(placesAfter.at(8), placesBefore.at(4));
    QCOMPARE(placesAfter.at(7), placesBefore.at(3));
    QCOMPARE(placesAfter.at(5), placesBefore.at(5));
    QCOMPARE(after.nodes()[static_cast<std::size_t>(after.indexOf(id(8)))].label,
             QStringLiteral("w-4  \u21bb 2"));
    QCOMPARE(after.nodes()[static_cast<std::size_t>(after.indexOf(id(7)))].label,
             QStringLiteral("w-3  \u21bb 1"));
    QCOMPARE(after.nodes()[static_cast<std::size_t>(after.indexOf(id(5)))].label, QStringLiteral("w-5"));
    // The replaced actors are no nodes of their own (nor among the children that exited lately).
    for (std::uint64_t old : {3, 4, 6}) QCOMPARE(after.indexOf(id(old)), -1);
    verifyNoOverlaps(after);
  }

  void the_children_beyond_the_threshold_collapse_with_their_subtrees_into_one_aggregate() {
    // sup(2) has five children, each with one child of its own; the threshold is three.
    ScriptedState s;
    s.spawn(1, 0, "root");
    s.spawn(2, 1, "sup");
    for (std::uint64_t pid = 10; pid < 15; ++pid) {
      s.spawn(pid, 2, "c-" + std::to_string(pid));
      s.spawn(pid + 10, pid, "leaf-" + std::to_string(pid + 10));
    }
    QCOMPARE(Layout::Options{}.maxChildrenShown, Layout::kMaxChildrenShown);
    const Layout layout = v::layOutSupervisionGraph(s.state, {.maxChildrenShown = 3});
    // Two children shown with their subtrees (each with its kept row under its own child), then
    // one node for the other three, whose subtrees are not drawn at all.
    QCOMPARE(places(layout), (QStringList{QStringLiteral("root@0,0"), QStringLiteral("sup@1,0"),
                                          QStringLiteral("c-10@2,0"), QStringLiteral("leaf-20@3,0"),
                                          QStringLiteral("c-11@2,2"), QStringLiteral("leaf-21@3,2"),
                                          QStringLiteral("+ 3 more@2,4")}));
    const Layout::Node& more = layout.nodes().back();
    QVERIFY(more.aggregate && !more.exits);
    QCOMPARE(more.parent, layout.indexOf(id(2)));
    QCOMPARE(more.hidden, std::size_t{3});
    QCOMPARE(more.hiddenAlive, std::size_t{3});
    for (std::uint64_t pid : {12, 13, 14, 22, 23, 24}) QCOMPARE(layout.indexOf(id(pid)), -1);
    verifyNoOverlaps(layout);

    // The selected child comes out of the aggregate, with its subtree; the others stay in it.
    const Layout selected = v::layOutSupervisionGraph(s.state, {.selected = id(13), .maxChildrenShown = 3}, layout);
    QVERIFY(selected.indexOf(id(13)) >= 0);
    QVERIFY(selected.indexOf(id(23)) >= 0);
    QCOMPARE(selected.nodes().back().label, QStringLiteral("+ 2 more"));
    verifyNoOverlaps(selected);

    // A threshold of one folds the whole crowd; below one is refused with what to do.
    const Layout folded = v::layOutSupervisionGraph(s.state, {.maxChildrenShown = 1});
    QCOMPARE(folded.nodes().back().label, QStringLiteral("+ 5 more"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, v::layOutSupervisionGraph(s.state, {.maxChildrenShown = 0}));
  }

  void nodes_never_overlap_and_live_actors_never_move_up_over_many_random_updates() {
    // A seeded walk: spawns under random live actors, exits of every kind, selections and "show
    // stopped" switched on and off, the clock moving so that exits age out. After every update no
    // two nodes share a place, and an actor drawn both times is in the same column and no higher.
    ScriptedState s;
    std::mt19937 random(22);
    auto pick = [&random](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
    std::vector<std::uint64_t> alive{1};
    s.spawn(1, 0, "root");
    std::uint64_t next = 2;
    Layout layout;
    for (int step = 0; step < 400; ++step) {
      const std::size_t what = pick(10);
      if (what < 6 || alive.size() < 3) {
        const std::uint64_t parent = alive[pick(alive.size())];
        s.spawn(next, parent, "a-" + std::to_string(next));
        alive.push_back(next++);
      } else if (what < 9) {
        const std::size_t i = 1 + pick(alive.size() - 1);  // never the root
        const std::uint64_t pid = alive[i];
        if (what == 6) s.stop(pid);
        if (what == 7) s.fail(pid, "boom");
        if (what == 8) s.kill(pid);
        alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        s.advance(1s);
        s.tick();
      }
      const Layout::Options options{.showStopped = step % 50 >= 40,
                                    .selected = id(alive[pick(alive.size())]),
                                    .maxChildrenShown = 4};
      const Layout updated = v::layOutSupervisionGraph(s.state, options, layout);
      verifyNoOverlaps(updated);
      if (QTest::currentTestFailed()) return;
      const auto placesNow = actorPlaces(updated);
      for (const auto& [pid, place] : actorPlaces(layout)) {
        const auto it = placesNow.find(pid);
        if (it == placesNow.end()) continue;
        QVERIFY2(it->second.first == place.first && it->second.second >= place.second,
                 qPrintable(QStringLiteral("step %1: actor %2 moved from %3,%4 to %5,%6")
                                .arg(step)
                                .arg(pid)
                                .arg(place.first)
                                .arg(place.second)
                                .arg(it->second.first)
                                .arg(it->second.second)));
      }
      layout = updated;
    }
  }
};

QTEST_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"
