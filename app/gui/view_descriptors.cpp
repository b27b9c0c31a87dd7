// The table of views.
#include "gui/view_descriptors.hpp"

#include "gui/main_window.hpp"
#include "gui/timeline_dock.hpp"

#include "actors/actors_view.hpp"
#include "bench/benchmarks_view.hpp"
#include "causes/cause_chain_view.hpp"
#include "events/event_log_view.hpp"
#include "factories/factories_view.hpp"
#include "flow/message_flow_view.hpp"
#include "groups/process_groups_view.hpp"
#include "inspector/actor_inspector.hpp"
#include "query/query_view.hpp"
#include "timers/timers_view.hpp"
#include "tree/supervision_graph_view.hpp"
#include "tree/supervision_tree_view.hpp"
#include "warnings/warnings_view.hpp"

#include <actorscope/benchmarks/history_store.hpp>

#include <QFileInfo>

namespace actorscope::gui {
namespace {

using Place = ViewDescriptor::Place;

/// A view that takes (selection, control), as every state view does.
template <class V>
std::function<QWidget*(const ViewContext&)> plain() {
  return [](const ViewContext& c) -> QWidget* { return new V(c.selection, c.control); };
}

QWidget* makeBenchmarks(const ViewContext& c) {
  auto* bench = new views::BenchmarksView;
  bench->setHistorySource([](const std::string& benchmark) -> std::vector<bench::HistoryPoint> {
    const std::string path = bench::default_history_path();
    if (!QFileInfo::exists(QString::fromStdString(path))) return {};  // reading must not create it
    return bench::HistoryStore(path).history(benchmark);
  });
  MainWindow* w = c.window;
  QObject::connect(bench, &views::BenchmarksView::runRequested, w, [w](const bench::RunOptions& o) { w->runBenchmarks(o); });
  QObject::connect(bench, &views::BenchmarksView::cancelRequested, w, [w] { w->cancelBenchmarks(); });
  return bench;
}

/// A dock tabbed with others must not make the window taller than the default 1366x768: the
/// area takes the largest minimum of its tabs. Its own layout would ask for the editor's, the
/// table's and the buttons' minimums stacked; it shrinks to a few rows instead (the table scrolls).
void fitSmallDock(QWidget* view) { view->setMinimumSize(160, 80); }

/// Moves a replay's cursor to `t` (nothing when a live session is shown).
void seek(MainWindow* w, TimePoint t) {
  if (ReplaySession* r = w->replay()) r->setCursor(t);
}

/// "Why did this actor fail?" over the recording shown: a clicked hop moves the cursor there and
/// selects its actor, and the message flow emphasises the chain.
QWidget* makeCauses(const ViewContext& c) {
  auto* view = new views::CauseChainView(c.selection);
  fitSmallDock(view);
  MainWindow* w = c.window;
  const auto follow = [w, view] {
    if (ReplaySession* r = w->replay())
      view->setReader(&r->reader(), r->sessionId());
    else
      view->setReader(nullptr, 0);
  };
  QObject::connect(w, &MainWindow::sessionChanged, view, follow);
  follow();
  QObject::connect(view, &views::CauseChainView::timeRequested, w, [w](TimePoint t) { seek(w, t); });
  QObject::connect(view, &views::CauseChainView::actorRequested, c.selection, &views::ActorSelection::select);
  QObject::connect(view, &views::CauseChainView::highlightRequested, w, [w](const std::vector<std::uint64_t>& traces) {
    if (const MainWindow::View* f = w->findView(QStringLiteral("message-flow")))
      if (auto* flow = qobject_cast<views::MessageFlowView*>(f->widget)) flow->setHighlightedTraces(traces);
  });
  return view;
}

/// Read-only SQL over the recording shown: a clicked row selects its actor (the view does) and
/// moves the cursor to its time.
QWidget* makeQuery(const ViewContext& c) {
  auto* view = new views::QueryView(c.selection);
  fitSmallDock(view);
  MainWindow* w = c.window;
  const auto follow = [w, view] {
    if (ReplaySession* r = w->replay())
      view->setRecording(r->reader(), r->sessionId());
    else
      view->clearRecording();
  };
  QObject::connect(w, &MainWindow::sessionChanged, view, follow);
  follow();
  QObject::connect(view, &views::QueryView::timeRequested, w, [w](TimePoint t) { seek(w, t); });
  return view;
}

/// The inspector; in a replay, "Why did it fail?" for a failed or killed actor opens the cause
/// chain on it.
QWidget* makeInspector(const ViewContext& c) {
  auto* view = new views::ActorInspector(c.selection, c.control);
  MainWindow* w = c.window;
  const auto follow = [w, view] { view->setExplainable(w->replay() != nullptr); };
  QObject::connect(w, &MainWindow::sessionChanged, view, follow);
  follow();
  QObject::connect(view, &views::ActorInspector::explainRequested, w, [w](ActorId id) {
    const MainWindow::View* v = w->findView(QStringLiteral("causes"));
    auto* causes = v != nullptr ? qobject_cast<views::CauseChainView*>(v->widget) : nullptr;
    if (causes == nullptr) return;
    w->showView(QStringLiteral("causes"));
    causes->showActor(id);
  });
  return view;
}

}  // namespace

const std::vector<ViewDescriptor>& viewDescriptors() {
  static const std::vector<ViewDescriptor> table = {
      // The centre's tabs (Ctrl+1… in this order).
      {"supervision-graph", "Supervision graph", "graph", Place::central, 250, true, ViewDescriptor::both,
       plain<views::SupervisionGraphView>()},
      {"actors", "Actors", "table", Place::central, 250, true, ViewDescriptor::both, plain<views::ActorsView>()},
      {"message-flow", "Message flow", "flow", Place::central, 100, false, ViewDescriptor::both,
       plain<views::MessageFlowView>(), /*centred=*/true},
      {"event-log", "Event log", "events", Place::central, 100, false, ViewDescriptor::both,
       plain<views::EventLogView>(), /*centred=*/true},
      {"factories", "Factories", "table", Place::central, 250, false, ViewDescriptor::both,
       plain<views::FactoriesView>()},
      {"benchmarks", "Benchmarks", "table", Place::central, 0, false, ViewDescriptor::both, makeBenchmarks},
      // Docks.
      {"supervision-tree", "Supervision tree", "tree", Place::left, 250, true, ViewDescriptor::both,
       plain<views::SupervisionTreeView>()},
      {"inspector", "Inspector", "inspector", Place::right, 100, false, ViewDescriptor::both, makeInspector},
      {"warnings", "Warnings", "warnings", Place::bottom, 500, true, ViewDescriptor::both,
       plain<views::WarningsView>()},
      {"process-groups", "Process groups", "groups", Place::bottom, 250, false, ViewDescriptor::both,
       plain<views::ProcessGroupsView>()},
      {"timers", "Timers", "timers", Place::bottom, 250, false, ViewDescriptor::both, plain<views::TimersView>()},
      {"timeline", "Timeline", "timers", Place::top, 0, false, ViewDescriptor::replay,
       [](const ViewContext& c) -> QWidget* { return new TimelineDock(c.window); }},
      {"causes", "Why it failed", "warnings", Place::bottom, 0, false, ViewDescriptor::replay, makeCauses},
      {"query", "Query", "table", Place::bottom, 0, false, ViewDescriptor::replay, makeQuery},
  };
  return table;
}

}  // namespace actorscope::gui
