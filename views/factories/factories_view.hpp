// FactoriesView: the factories (factory.hpp) in a sortable table, and for the factory of the
// current row its settings, its queue depth and busy workers over time, its discards by reason, its
// job-latency histogram and its workers. Picking a factory or a worker selects that actor
// everywhere (the inspector follows); selecting a factory elsewhere makes it the current row here.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

#include <vector>

class QLabel;
class QListWidget;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTableWidget;

namespace actorscope::views {

class FactoriesModel;
class HistogramWidget;
class SearchField;
class Sparkline;

class FactoriesView : public QWidget, public StateView {
  Q_OBJECT
 public:
  FactoriesView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;

  FactoriesModel* model() const noexcept { return model_; }
  QTableView* table() const noexcept { return table_; }
  /// The factory whose details are shown (invalid: none).
  ActorId shownFactory() const noexcept { return shown_; }
  /// The workers list, each item's ActorIdRole its worker.
  QListWidget* workers() const noexcept { return workers_; }
  /// The discards table: one row per DiscardReason (reason, in all, in the last 5 s).
  QTableWidget* discards() const noexcept { return discards_; }
  Sparkline* queueChart() const noexcept { return queueLine_; }
  Sparkline* busyChart() const noexcept { return busyLine_; }
  HistogramWidget* latencyHistogram() const noexcept { return latency_; }

 private:
  void followSelection(ActorId id);
  void showDetails();
  ActorId currentFactory() const;

  ActorSelection* selection_;
  ActorControl* control_;
  FactoriesModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  SearchField* search_;
  QLabel* summary_;
  QStackedWidget* stack_;
  QLabel* settings_;
  Sparkline* queueLine_;
  Sparkline* busyLine_;
  QTableWidget* discards_;
  HistogramWidget* latency_;
  QListWidget* workers_;
  const observe::SystemState* state_ = nullptr;
  ActorId shown_{};
  std::vector<std::pair<ActorId, QString>> workerItems_;
  bool syncing_ = false;
};

}  // namespace actorscope::views
