// The Factories view and the factory warnings, over scripted states: the table has a row per
// factory with its figures, the current row's details follow it (settings, charts, discards by
// reason, latency, workers), picking a factory or a worker selects that actor for every view, and
// selecting a factory elsewhere makes it the current row; the three factory warnings come and go
// with the samples and events behind them; the header menu chooses the columns shown.
#include "scripted_state.hpp"

#include "common/actor_selection.hpp"
#include "common/actor_table.hpp"
#include "common/histogram_widget.hpp"
#include "common/roles.hpp"
#include "factories/factories_model.hpp"
#include "factories/factories_view.hpp"
#include "inspector/actor_details.hpp"
#include "warnings/warning_rules.hpp"

#include <QAction>
#include <QHeaderView>
#include <QListWidget>
#include <QMenu>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <memory>
#include <optional>

using namespace views_test;
namespace v = actorscope::views;

namespace {

/// Factory `pid` with `workers` workers (pids pid+1...), configured.
void factory(ScriptedState& s, std::uint64_t pid, const std::string& name, std::uint32_t workers,
             const std::string& settings = "queue\tfifo\ndiscard\tnone") {
  s.spawn(pid, 0, name, "actorscope::Factory<demo::Job>");
  for (std::uint32_t w = 1; w <= workers; ++w) s.spawn(pid + w, pid, "", "demo::JobWorker");
  auto e = s.event(obs::EventKind::factory_configured, id(pid));
  e.name = "queuer";
  e.thread = workers;
  e.text = settings;
  s.apply(e);
}

/// One poll's sample of factory `pid`, at the script's clock.
obs::FactorySample sample(const ScriptedState& s, std::uint64_t pid, std::uint64_t completed, std::uint64_t queue,
                          std::uint64_t busy, std::uint64_t workers = 2) {
  obs::FactorySample x;
  x.end = s.now;
  x.factory = id(pid);
  x.dispatched = completed;
  x.completed = completed;
  x.queue_depth = queue;
  x.queue_max = queue;
  x.busy_workers = busy;
  x.workers = workers;
  if (completed != 0) {
    x.latency_buckets.assign(obs::LogHistogram::index_of(2'000'000) + 1, 0);
    x.latency_buckets.back() = completed;
    x.latency_sum = std::chrono::milliseconds(2) * completed;
  }
  return x;
}

std::optional<v::Warning> warningAbout(const obs::SystemState& state, v::WarningKind kind, as::ActorId actor) {
  for (const v::Warning& w : v::lint(state))
    if (w.kind == kind && w.actor == actor) return w;
  return std::nullopt;
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

class TestFactoriesView : public QObject {
  Q_OBJECT

 private slots:
  void the_inspector_sums_up_a_factory_and_names_a_workers_factory() {
    ScriptedState s;
    factory(s, 10, "thumbnails", 2, "queue\tfifo\ndiscard\tstatic\t8\toldest");
    s.spawn(30, 0, "plain");
    s.advance(100ms);
    obs::FactorySample a = sample(s, 10, 7, 3, 1);
    a.discarded_ttl = 2;
    a.retried = 1;
    a.queue_limit = 8;
    s.state.apply(a);

    const auto f = v::inspect(s.state, id(10));
    QVERIFY(f && f->factory);
    QCOMPARE(f->factory->routing, std::string("queuer"));
    QCOMPARE(f->factory->workers, 2u);
    QCOMPARE(f->factory->busy, 1u);
    QCOMPARE(f->factory->queue, 3u);
    QCOMPARE(f->factory->queueLimit, 8u);
    QCOMPARE(f->factory->completed, 7u);
    QCOMPARE(f->factory->discarded, 2u);
    QCOMPARE(f->factory->retried, 1u);
    QVERIFY(!f->workerOf);
    // A worker names its factory; a plain actor has neither.
    const auto w = v::inspect(s.state, id(12));
    QVERIFY(w && w->workerOf && !w->factory);
    QCOMPARE(w->workerOf->id, id(10));
    QCOMPARE(w->workerOf->name, std::string("thumbnails"));
    const auto p = v::inspect(s.state, id(30));
    QVERIFY(p && !p->factory && !p->workerOf);
  }

  void the_table_has_a_row_per_factory_and_the_details_follow_the_current_row() {
    ScriptedState s;
    factory(s, 10, "thumbnails", 2, "queue\tpriority\t3\ndiscard\tstatic\t8\toldest\ndead_man\t500\tkill");
    factory(s, 20, "mailer", 1);
    s.spawn(30, 0, "plain");  // not a factory: no row
    for (int i = 0; i < 5; ++i) {
      s.advance(100ms);
      obs::FactorySample a = sample(s, 10, 4, static_cast<std::uint64_t>(i), 2);
      if (i == 4) a.discarded_load_shed = 3;
      if (i == 2) a.retried = 2;
      s.state.apply(a);
      s.state.apply(sample(s, 20, 1, 0, 0, 1));
    }

    v::ActorSelection selection;
    v::FactoriesView view(&selection, nullptr);
    view.resize(900, 600);
    view.setState(s.state);
    v::FactoriesModel* model = view.model();
    QCOMPARE(model->rowCount(), 2);
    const int row = model->rowOf(id(10));
    QVERIFY(row >= 0);
    const auto cell = [&](int column) { return model->index(row, column).data().toString(); };
    QCOMPARE(cell(v::FactoriesModel::NameColumn), QStringLiteral("thumbnails"));
    QCOMPARE(cell(v::FactoriesModel::RoutingColumn), QStringLiteral("queuer"));
    QCOMPARE(cell(v::FactoriesModel::WorkersColumn), QStringLiteral("2"));
    QCOMPARE(cell(v::FactoriesModel::BusyColumn), QStringLiteral("2"));
    QCOMPARE(cell(v::FactoriesModel::QueueColumn), QStringLiteral("4"));
    QCOMPARE(cell(v::FactoriesModel::CompletedColumn), QStringLiteral("20"));
    QCOMPARE(cell(v::FactoriesModel::DiscardedColumn), QStringLiteral("3"));
    QCOMPARE(cell(v::FactoriesModel::RetriedColumn), QStringLiteral("2"));
    QVERIFY(!cell(v::FactoriesModel::LatencyP50Column).isEmpty());
    QCOMPARE(model->index(row, 0).data(v::ActorIdRole).value<as::ActorId>(), id(10));

    // Selecting the factory elsewhere makes it the current row; its details are shown.
    selection.select(id(10));
    QCOMPARE(view.shownFactory(), id(10));
    QCOMPARE(view.workers()->count(), 2);
    QCOMPARE(view.discards()->item(static_cast<int>(as::DiscardReason::load_shed), 1)->text(), QStringLiteral("3"));
    QCOMPARE(view.discards()->item(static_cast<int>(as::DiscardReason::load_shed), 2)->text(), QStringLiteral("3"));
    QCOMPARE(view.discards()->item(static_cast<int>(as::DiscardReason::ttl_expired), 1)->text(), QStringLiteral("0"));

    // Picking a worker selects it for every view; the factory shown stays.
    view.workers()->setCurrentRow(1);
    QCOMPARE(selection.current(), id(12));
    QCOMPARE(view.shownFactory(), id(10));
    view.setState(s.state);  // a refresh keeps the worker current
    QCOMPARE(view.workers()->currentRow(), 1);

    // Picking the other factory's row selects it, and its details replace the first's.
    const int other = model->rowOf(id(20));
    view.table()->setCurrentIndex(view.table()->model()->index(
        [&] {
          for (int r = 0; r < view.table()->model()->rowCount(); ++r)
            if (view.table()->model()->index(r, 0).data(v::ActorIdRole).value<as::ActorId>() == id(20)) return r;
          return -1;
        }(),
        0));
    QVERIFY(other >= 0);
    QCOMPARE(selection.current(), id(20));
    QCOMPARE(view.shownFactory(), id(20));
    QCOMPARE(view.workers()->count(), 1);
    QCOMPARE(view.discards()->item(static_cast<int>(as::DiscardReason::load_shed), 1)->text(), QStringLiteral("0"));

    // A stopped factory is marked; a new session empties the view.
    s.stop(20);
    view.setState(s.state);
    QVERIFY(model->index(model->rowOf(id(20)), 0).data().toString().contains(QStringLiteral("stopped")));
    view.resetSession();
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(!view.shownFactory().is_valid());
  }

  void the_header_menu_chooses_the_columns_and_routing_starts_hidden() {
    ScriptedState s;
    factory(s, 10, "thumbnails", 2);
    v::ActorSelection selection;
    v::FactoriesView view(&selection, nullptr);
    view.resize(900, 600);
    view.setState(s.state);
    QHeaderView* header = view.table()->horizontalHeader();
    QVERIFY(v::hasColumnChooser(header));
    // The line under the table names the routing: its column starts hidden, and the figures that
    // matter most come before the ones the inspector already tells.
    QVERIFY(header->isSectionHidden(v::FactoriesModel::RoutingColumn));
    QVERIFY(v::FactoriesModel::LatencyP99Column < v::FactoriesModel::DispatchedColumn);
    QCOMPARE(v::hiddenColumns(header), QStringList{QStringLiteral("Routing")});

    // One checkable entry per column but the first, then "Show all columns".
    std::unique_ptr<QMenu> menu(v::makeColumnMenu(header, nullptr));
    const QList<QAction*> actions = menu->actions();
    QCOMPARE(actions.size(), v::FactoriesModel::ColumnCount - 1 + 2);  // + separator + show all
    QAction* routing = actions[v::FactoriesModel::RoutingColumn - 1];
    QCOMPARE(routing->text(), QStringLiteral("Routing"));
    QVERIFY(routing->isCheckable() && !routing->isChecked());
    QAction* stuck = actions[v::FactoriesModel::StuckColumn - 1];
    QVERIFY(stuck->isChecked());
    stuck->setChecked(false);
    QVERIFY(header->isSectionHidden(v::FactoriesModel::StuckColumn));
    QCOMPARE(v::hiddenColumns(header), (QStringList{QStringLiteral("Routing"), QStringLiteral("Stuck")}));
    actions.last()->trigger();  // show all
    QVERIFY(v::hiddenColumns(header).isEmpty());

    // What MainWindow keeps between runs is by title: an unknown one is skipped, the first column
    // never hides.
    v::setHiddenColumns(header, {QStringLiteral("Done"), QStringLiteral("Factory"), QStringLiteral("No such column")});
    QCOMPARE(v::hiddenColumns(header), QStringList{QStringLiteral("Done")});
    QVERIFY(!header->isSectionHidden(v::FactoriesModel::NameColumn));
    QVERIFY(header->isSectionHidden(v::FactoriesModel::CompletedColumn));
  }

  void a_queue_that_keeps_growing_is_flagged_and_one_that_falls_is_not() {
    ScriptedState s;
    factory(s, 10, "ingest", 2);
    for (std::uint64_t i = 0; i < 20; ++i) {
      s.advance(100ms);
      s.state.apply(sample(s, 10, 1, 5 + 2 * i, 2));
    }
    const auto w = warningAbout(s.state, v::WarningKind::factory_queue_growing, id(10));
    QVERIFY(w.has_value());
    QVERIFY2(contains(w->summary, "43 jobs waiting") && contains(w->summary, "growing by 20 jobs/s"), w->summary.c_str());
    QCOMPARE(v::warningTitle(v::WarningKind::factory_queue_growing), std::string_view("factory queue growing"));
    QVERIFY(!v::warningExplanation(v::WarningKind::factory_queue_growing).empty());
    // It falls: no longer flagged.
    s.advance(100ms);
    s.state.apply(sample(s, 10, 10, 30, 2));
    QVERIFY(!warningAbout(s.state, v::WarningKind::factory_queue_growing, id(10)));
    // Steady and shallow: never flagged.
    ScriptedState q;
    factory(q, 10, "steady", 2);
    for (int i = 0; i < 20; ++i) {
      q.advance(100ms);
      q.state.apply(sample(q, 10, 3, 3, 1));
    }
    QVERIFY(!warningAbout(q.state, v::WarningKind::factory_queue_growing, id(10)));
  }

  void discards_by_load_shed_rate_or_ttl_are_flagged_for_a_while_but_not_those_at_shutdown() {
    ScriptedState s;
    factory(s, 10, "ingest", 2, "queue\tfifo\ndiscard\tstatic\t4\tnewest\nrate\t10\t1000");
    s.advance(100ms);
    obs::FactorySample x = sample(s, 10, 1, 4, 2);
    x.discarded_load_shed = 2;
    x.discarded_rate_limited = 1;
    s.state.apply(x);
    const auto w = warningAbout(s.state, v::WarningKind::factory_shedding, id(10));
    QVERIFY(w.has_value());
    QCOMPARE(w->severity, v::Severity::error);
    QVERIFY2(contains(w->summary, "3 jobs discarded") && contains(w->summary, "2 shed at the queue limit") &&
                 contains(w->summary, "1 over the rate limit"),
             w->summary.c_str());
    QCOMPARE(v::warningTitle(v::WarningKind::factory_shedding), std::string_view("factory shedding jobs"));
    // Five seconds of quiet later it is over.
    for (int i = 0; i < 52; ++i) {
      s.advance(100ms);
      s.state.apply(sample(s, 10, 1, 0, 0));
    }
    QVERIFY(!warningAbout(s.state, v::WarningKind::factory_shedding, id(10)));
    // Discards at shutdown are what a stop does: no warning.
    s.advance(100ms);
    obs::FactorySample bye = sample(s, 10, 0, 0, 0);
    bye.discarded_shutdown = 5;
    s.state.apply(bye);
    QVERIFY(!warningAbout(s.state, v::WarningKind::factory_shedding, id(10)));
  }

  void a_stuck_worker_is_flagged_with_its_job_until_the_window_passes() {
    ScriptedState s;
    factory(s, 10, "render", 2, "queue\tfifo\ndead_man\t200\tkill");
    s.advance(300ms);
    auto e = s.event(obs::EventKind::worker_stuck, id(12), id(10));
    e.thread = 1;
    e.name = "frame-7";
    e.period = 250ms;
    e.failed = true;
    s.apply(e);
    const auto w = warningAbout(s.state, v::WarningKind::factory_worker_stuck, id(10));
    QVERIFY(w.has_value());
    QVERIFY2(contains(w->summary, "worker 1 ran job frame-7 for 250.0 ms") && contains(w->summary, "killed and replaced"),
             w->summary.c_str());
    QCOMPARE(v::warningTitle(v::WarningKind::factory_worker_stuck), std::string_view("dead-man's switch fired"));
    QVERIFY(!v::warningExplanation(v::WarningKind::factory_worker_stuck).empty());
    s.advance(31s);
    s.tick();
    QVERIFY(!warningAbout(s.state, v::WarningKind::factory_worker_stuck, id(10)));
  }
};

QTEST_MAIN(TestFactoriesView)
#include "tst_factories_view.moc"
