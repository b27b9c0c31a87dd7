// The observatory's widgets over scripted states: the warnings view flags a growing mailbox and
// picking the warning selects its actor; the graph draws the tree and folds a crowd of children;
// the flow chart draws lanes; every view renders without a live System.
#include "scripted_state.hpp"

#include "bench/benchmark_results_model.hpp"
#include "bench/benchmarks_view.hpp"
#include "common/actor_selection.hpp"
#include "common/roles.hpp"
#include "flow/message_flow_model.hpp"
#include "flow/message_flow_view.hpp"
#include "inspector/actor_inspector.hpp"
#include "tree/supervision_graph_view.hpp"
#include "warnings/warnings_model.hpp"
#include "warnings/warnings_view.hpp"

#include <QChart>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <cmath>

using namespace views_test;
namespace v = actorscope::views;

class TestViewWidgets : public QObject {
  Q_OBJECT

 private slots:
  void benchmark_figures_are_written_in_their_unit_with_three_digits() {
    QCOMPARE(v::formatBenchValue(9.86, "ns"), QStringLiteral("9.86 ns"));
    QCOMPARE(v::formatBenchValue(12345, "ns"), QStringLiteral("12.3 µs"));
    QCOMPARE(v::formatBenchValue(1.5e9, "ns"), QStringLiteral("1.50 s"));
    QCOMPARE(v::formatBenchValue(837, "B"), QStringLiteral("837 B"));
    QCOMPARE(v::formatBenchValue(std::nan(""), "ns"), QStringLiteral("—"));
  }

  void the_benchmarks_table_puts_runtimes_side_by_side_and_marks_a_failed_case() {
    namespace b = actorscope::bench;
    b::RunReport report;
    report.options.runtimes = {"asio", "qt"};
    auto result = [](std::string runtime, double median, std::string error = {}) {
      b::Result r;
      r.benchmark = "Creation of 100 actors";
      r.runtime = std::move(runtime);
      r.unit = "ns";
      r.element = "actor";
      r.elements = 100;
      r.statistics.count = 3;
      r.statistics.median = median;
      r.reference = b::ReferenceRange{"ractor 0.9.3 / tokio", 890000, 1550000};
      r.error = std::move(error);
      return r;
    };
    report.results = {result("asio", 30000), result("qt", 60000)};
    v::BenchmarksView view;
    view.showReport(report);
    v::BenchmarkResultsModel& m = *view.model();
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.columnCount(), 6);  // benchmark, per, asio, qt, qt/asio, ractor
    QCOMPARE(m.headerData(4, Qt::Horizontal).toString(), QStringLiteral("qt/asio"));
    QCOMPARE(m.index(0, 2).data().toString(), QStringLiteral("300 ns"));
    QCOMPARE(m.index(0, 3).data().toString(), QStringLiteral("600 ns"));
    QCOMPARE(m.index(0, 4).data().toString(), QStringLiteral("2.00×"));
    QCOMPARE(m.index(0, 5).data().toString(), QStringLiteral("8.90 µs – 15.5 µs"));
    QCOMPARE(view.ratioChart()->series().size(), 1);

    report.results[1] = result("qt", 0, "the actors never finished");
    view.showReport(report);
    QCOMPARE(m.index(0, 3).data().toString(), QStringLiteral("error"));
    QCOMPARE(m.index(0, 3).data(Qt::ToolTipRole).toString(), QStringLiteral("the actors never finished"));
    QCOMPARE(m.ratioAt(0), 0.0);
    QVERIFY(view.statusText().contains(QStringLiteral("1 could not run")));
  }

  void the_warnings_view_flags_a_scripted_growing_mailbox_and_links_to_the_actor() {
    ScriptedState s;
    s.spawn(1, 0, "source");
    s.spawn(2, 1, "slow-stage");
    v::ActorSelection selection;
    v::WarningsView view(&selection, nullptr);
    QSignalSpy count(&view, &v::WarningsView::countChanged);
    view.resize(700, 200);
    view.show();
    view.setState(s.state);
    QCOMPARE(view.model()->rowCount(), 0);

    for (int i = 1; i <= 20; ++i) {
      s.advance(100ms);
      s.stats(2, 10, static_cast<std::uint64_t>(50 * i));
      view.setState(s.state);
    }
    QCOMPARE(view.model()->rowCount(), 1);
    QCOMPARE(count.last().at(0).toInt(), 1);
    const QModelIndex row = view.model()->index(0, v::WarningsModel::ActorColumn);
    QCOMPARE(row.data().toString(), QStringLiteral("slow-stage  0.2"));
    QVERIFY(view.model()->index(0, v::WarningsModel::RuleColumn).data(Qt::ToolTipRole).toString().contains(
        QStringLiteral("faster than it handles")));

    view.tableView()->setCurrentIndex(row);
    QCOMPARE(selection.current(), id(2));

    // The mailbox is worked off: the warning goes away.
    for (int i = 1; i <= 5; ++i) {
      s.advance(100ms);
      s.stats(2, 400, static_cast<std::uint64_t>(1000 - 200 * i));
    }
    view.setState(s.state);
    QCOMPARE(view.model()->rowCount(), 0);
    QCOMPARE(count.last().at(0).toInt(), 0);
  }

  void the_graph_draws_the_tree_and_folds_a_crowd_of_children_into_one_node() {
    ScriptedState s;
    s.spawn(1, 0, "root");
    for (std::uint64_t pid = 2; pid < 102; ++pid) s.spawn(pid, 1, "", "demo::Worker");
    s.fail(50, "boom");
    v::ActorSelection selection;
    v::SupervisionGraphCanvas graph(&selection, nullptr);
    graph.resize(800, 600);
    graph.setState(s.state);
    const auto& nodes = graph.nodes();
    // root, the first children shown, "+ N more" for the other live ones, and one node for the
    // child that just failed.
    QCOMPARE(nodes.size(), static_cast<std::size_t>(1 + v::SupervisionGraphCanvas::kMaxChildrenShown + 1));
    QCOMPARE(nodes[0].label, QStringLiteral("root"));
    const auto& more = nodes[nodes.size() - 2];
    QVERIFY(more.aggregate && !more.exits);
    QCOMPARE(more.hidden, 99u - (v::SupervisionGraphCanvas::kMaxChildrenShown - 1));
    const auto& gone = nodes.back();
    QVERIFY(gone.exits && gone.flashing);
    QCOMPARE(gone.label, QStringLiteral("1 failed"));
    QVERIFY(nodes[0].flashing);  // the supervisor of a child that just failed
    QVERIFY(!graph.grab().isNull());
  }

  void the_flow_chart_and_the_inspector_render_a_scripted_conversation() {
    ScriptedState s;
    s.spawn(1, 0, "client");
    s.spawn(2, 0, "server");
    for (int i = 0; i < 5; ++i) {
      s.message(1, 2, "demo::Request");
      s.message(2, 1, "demo::Reply");
    }
    v::ActorSelection selection;
    selection.select(id(2));
    v::MessageFlowView flow(&selection, nullptr);
    flow.resize(700, 400);
    flow.show();
    flow.setState(s.state);
    QCOMPARE(flow.model()->rowCount(), 10);
    QCOMPARE(flow.model()->lanes().size(), 2u);
    QVERIFY(!flow.grab().isNull());

    v::ActorInspector inspector(&selection, nullptr);
    inspector.resize(380, 700);
    inspector.show();
    inspector.setState(s.state);
    QVERIFY(inspector.details().has_value());
    QCOMPARE(inspector.details()->name, std::string("server"));
    QCOMPARE(inspector.details()->handling.count(), 5u);
    selection.select(id(1));
    QCOMPARE(inspector.details()->name, std::string("client"));
    QVERIFY(!inspector.grab().isNull());
  }
};

QTEST_MAIN(TestViewWidgets)
#include "tst_view_widgets.moc"
