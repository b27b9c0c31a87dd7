// The observatory's widgets over scripted states: the warnings view flags a growing mailbox and
// picking the warning selects its actor; the graph draws the tree and folds a crowd of children;
// the flow chart draws lanes; every view renders without a live System.
#include "scripted_state.hpp"

#include "bench/benchmark_results_model.hpp"
#include "bench/benchmarks_view.hpp"
#include "bench/ratio_chart.hpp"
#include "common/actor_selection.hpp"
#include "common/roles.hpp"
#include "flow/message_flow_model.hpp"
#include "flow/message_flow_view.hpp"
#include "inspector/actor_inspector.hpp"
#include "tree/supervision_graph_view.hpp"
#include "warnings/warnings_model.hpp"
#include "warnings/warnings_view.hpp"

#include <QChart>
#include <QCoreApplication>
#include <QLabel>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <cmath>
#include <map>

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
    QCOMPARE(view.ratioChart()->bars().size(), 1u);

    report.results[1] = result("qt", 0, "the actors never finished");
    view.showReport(report);
    QCOMPARE(m.index(0, 3).data().toString(), QStringLiteral("error"));
    QCOMPARE(m.index(0, 3).data(Qt::ToolTipRole).toString(), QStringLiteral("the actors never finished"));
    QCOMPARE(m.ratioAt(0), 0.0);
    QVERIFY(view.statusText().contains(QStringLiteral("1 could not run")));
  }

  void the_comparison_chart_shows_the_spread_of_every_bar_and_which_ran_on_a_busy_machine() {
    namespace b = actorscope::bench;
    b::RunReport report;
    report.options.runtimes = {"asio", "qt"};
    auto result = [](std::string name, std::string runtime, double q1, double median, double q3) {
      b::Result r;
      r.benchmark = std::move(name);
      r.runtime = std::move(runtime);
      r.unit = "ns";
      r.element = "message";
      r.elements = 1;
      r.statistics.count = 10;
      r.statistics.q1 = q1;
      r.statistics.median = median;
      r.statistics.q3 = q3;
      return r;
    };
    report.results = {result("Fan-out from one actor to 1000 actors", "asio", 90, 100, 120),
                      result("Fan-out from one actor to 1000 actors", "qt", 60, 68, 80),
                      result("Creation of 100 actors", "asio", 100, 100, 100),
                      result("Creation of 100 actors", "qt", 101, 102, 103)};
    v::BenchmarksView view;
    view.resize(900, 700);
    view.show();
    view.showReport(report);
    v::RunLoad load;
    load.cores = 2;
    load.othersCores = 0.9;
    load.othersCoresByCase[{"Fan-out from one actor to 1000 actors", "qt"}] = 1.4;
    load.othersCoresByCase[{"Creation of 100 actors", "qt"}] = 0.01;
    view.showLoad(load);
    QCoreApplication::processEvents();
    const v::RatioChart* chart = view.ratioChart();
    QCOMPARE(chart->bars().size(), 2u);
    const auto& fan = chart->bars()[0];
    QCOMPARE(fan.ratio, 0.68);
    QCOMPARE(fan.low, 60.0 / 120.0);  // qt's first quartile over asio's third
    QCOMPARE(fan.high, 80.0 / 90.0);
    QVERIFY(fan.busy);
    QVERIFY(!chart->bars()[1].busy);
    QVERIFY2(view.statusText().contains(QStringLiteral("busy")) && view.statusText().contains(QStringLiteral("0.90 of its 2 cores")),
             qPrintable(view.statusText()));
    // Every figure is beside its bar and whiskers, whole, inside the chart: a short bar's too.
    for (int i = 0; i < 2; ++i) {
      const QRectF value = chart->valueRect(i);
      QVERIFY(chart->plotRect().contains(value));
      QVERIFY(!value.intersects(chart->barRect(i)));
    }
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

  void the_graph_says_how_the_children_that_just_exited_ended() {
    ScriptedState s;
    s.spawn(1, 0, "pipeline");
    for (std::uint64_t pid = 2; pid < 8; ++pid) s.spawn(pid, 1, "stage-" + std::to_string(pid));
    v::ActorSelection selection;
    v::SupervisionGraphCanvas graph(&selection, nullptr);
    graph.resize(800, 600);
    for (std::uint64_t pid = 2; pid < 8; ++pid) s.kill(pid);
    graph.setState(s.state);
    QCOMPARE(graph.nodes().back().label, QStringLiteral("6 killed"));
    QCOMPARE(graph.nodes().back().health, v::Health::killed);
    QVERIFY(!graph.nodes().back().flashing);  // nothing failed

    ScriptedState mixed;
    mixed.spawn(1, 0, "team");
    for (std::uint64_t pid = 2; pid < 6; ++pid) mixed.spawn(pid, 1, "worker-" + std::to_string(pid));
    mixed.fail(2, "boom");
    mixed.kill(3);
    mixed.kill(4);
    mixed.stop(5);
    graph.clear();
    graph.setState(mixed.state);
    QCOMPARE(graph.nodes().back().label, QStringLiteral("1 failed, 2 killed, 1 stopped"));
    QCOMPARE(graph.nodes().back().health, v::Health::failed);
    // The node is as wide as its label: nothing is cut off.
    const QFontMetricsF bold([&] {
      QFont f = graph.font();
      f.setBold(true);
      return f;
    }());
    QVERIFY(graph.nodeRect(graph.nodes().back()).width() > bold.horizontalAdvance(graph.nodes().back().label) + 14);
  }

  void an_actor_keeps_its_place_in_the_graph_while_it_lives() {
    ScriptedState s;
    s.spawn(1, 0, "supervisor");
    s.spawn(2, 1, "team-a");
    s.spawn(3, 1, "team-b");
    for (std::uint64_t pid = 10; pid < 14; ++pid) s.spawn(pid, 2, "team-a/worker-" + std::to_string(pid - 9));
    for (std::uint64_t pid = 20; pid < 24; ++pid) s.spawn(pid, 3, "team-b/worker-" + std::to_string(pid - 19));
    v::ActorSelection selection;
    v::SupervisionGraphCanvas graph(&selection, nullptr);
    graph.resize(900, 700);
    graph.setState(s.state);
    auto places = [&] {
      std::map<std::uint64_t, QRectF> out;
      for (const auto& n : graph.nodes())
        if (!n.aggregate) out[n.id.pid] = graph.nodeRect(n);
      return out;
    };
    const auto before = places();
    QCOMPARE(before.size(), 11u);

    std::uint64_t next = 30;
    for (int round = 0; round < 6; ++round) {
      // A worker of team-a fails and team-a replaces it; rates move; the selection moves; a
      // worker of team-b stops for good. Every actor still alive stays where it was drawn.
      const std::uint64_t victim = round == 0 ? 11 : next - 1;  // the worker-2 of the moment
      s.advance(100ms);
      s.fail(victim, "job failed");
      s.spawn(next++, 2, "team-a/worker-2");
      for (std::uint64_t pid : {10, 12, 20, 21}) s.stats(pid, 10 + static_cast<std::uint64_t>(round) * 7, 0);
      if (round == 3) s.stop(22, "done");
      selection.select(id(round % 2 == 0 ? 20 : 12));
      graph.setState(s.state);
      const auto now = places();
      for (const auto& [pid, rect] : before) {
        const auto* a = s.state.actor(id(pid));
        if (a == nullptr || !a->alive()) continue;
        QVERIFY2(now.count(pid) == 1, qPrintable(QStringLiteral("actor %1 is drawn").arg(pid)));
        QVERIFY2(now.at(pid) == rect, qPrintable(QStringLiteral("round %1: actor %2 moved").arg(round).arg(pid)));
      }
      // The replacement takes the place of the worker it replaces.
      QCOMPARE(now.at(next - 1), before.at(11));
    }
  }

  void the_inspector_shows_queue_time_per_message_not_a_sum_that_reads_as_wall_time() {
    // 1,000 messages that waited 1.648 s each: 27 min 28 s summed, in a run of a few seconds.
    ScriptedState s;
    s.spawn(1, 0, "enrich");
    s.advance(100ms);
    obs::StatsSample sample;
    sample.end = s.now;
    sample.actor = id(1);
    sample.handled = 1000;
    sample.timed = 1000;
    sample.queue_time = 1648s;
    sample.handling_time = 450ms;
    s.state.apply(sample);
    v::ActorSelection selection;
    selection.select(id(1));
    v::ActorInspector inspector(&selection, nullptr);
    inspector.resize(300, 700);
    inspector.show();
    inspector.setState(s.state);
    QString text;
    for (const QLabel* l : inspector.findChildren<QLabel*>()) text += l->text() + QLatin1Char('\n');
    text.replace(QStringLiteral("&nbsp;"), QStringLiteral(" "));
    QVERIFY2(!text.contains(QStringLiteral("27 min")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("mean 1.65 s")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("mean 450 µs")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("every message (1000)")), qPrintable(text));
  }

  void the_inspector_fits_a_narrow_dock_without_cutting_anything_off() {
    ScriptedState s;
    s.spawn(1, 0, "supervisor");
    s.spawn(2, 1, "supervisor/metronome-33ms-delay-and-then-some", "actorscope::scenarios::(anonymous namespace)::Metronome");
    for (int i = 0; i < 50; ++i) s.message(1, 2, "demo::Tick", 1500us, 1200us);
    s.advance(100ms);
    s.stats(2, 754, 3);
    v::ActorSelection selection;
    selection.select(id(2));
    v::ActorInspector inspector(&selection, nullptr);
    inspector.resize(250, 900);
    inspector.show();
    inspector.setState(s.state);
    QCoreApplication::processEvents();
    auto* scroll = inspector.findChild<QScrollArea*>();
    QVERIFY(scroll != nullptr);
    const int room = scroll->viewport()->width();
    QVERIFY2(scroll->widget()->width() <= room,
             qPrintable(QStringLiteral("the page is %1 px wide in %2 px").arg(scroll->widget()->width()).arg(room)));
    for (const QWidget* w : scroll->widget()->findChildren<QWidget*>()) {
      if (!w->isVisible()) continue;
      const QRect r(w->mapTo(scroll->widget(), QPoint(0, 0)), w->size());
      QVERIFY2(r.right() < room, qPrintable(QStringLiteral("%1 ends at %2 of %3: %4")
                                                .arg(QString::fromLatin1(w->metaObject()->className()))
                                                .arg(r.right())
                                                .arg(room)
                                                .arg(qobject_cast<const QLabel*>(w) ? qobject_cast<const QLabel*>(w)->text()
                                                                                    : QString())));
    }
  }

  void the_inspector_of_a_supervisor_renders_its_strategy_intensity_backoff_and_specs() {
    ScriptedState s;
    s.spawn(1, 0, "team", "demo::Supervisor");
    s.spawn(2, 1, "team/a");
    s.configure(1, "one_for_all", 3, 5s, "child\ta\ttransient\t5000\tworker\nbackoff\t10\t1000\t30000");
    s.advance(1s);
    s.restart(1, 2, 3, "a", 1, "team/a");
    s.advance(1s);
    s.restart(1, 3, 4, "a", 2, "team/a");
    v::ActorSelection selection;
    selection.select(id(1));
    v::ActorInspector inspector(&selection, nullptr);
    inspector.resize(380, 900);
    inspector.show();
    inspector.setState(s.state);
    QString text;
    for (const QLabel* l : inspector.findChildren<QLabel*>()) text += l->text() + QLatin1Char('\n');
    for (const char* part :
         {"Strategy", "one_for_all", "Intensity", "2 of 3 in 5 s", "Backoff", "reset after", "Child specs",
          "transient", "shutdown 5000 ms", "worker", "actor:0.4"})
      QVERIFY2(text.contains(QString::fromUtf8(part)), part);
    QVERIFY(!inspector.grab().isNull());
    // The child's page says which spec it runs.
    selection.select(id(4));
    text.clear();
    for (const QLabel* l : inspector.findChildren<QLabel*>()) text += l->text() + QLatin1Char('\n');
    QVERIFY(text.contains(QStringLiteral("Child spec")));
    QVERIFY(text.contains(QStringLiteral("restarted 2\u00d7")));
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
