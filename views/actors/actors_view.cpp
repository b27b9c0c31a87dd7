// The actors table widget.
#include "actors/actors_view.hpp"

#include "actors/actors_table_model.hpp"
#include "common/actor_table.hpp"
#include "common/icons.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTableView>
#include <QToolButton>

namespace actorscope::views {

ActorsView::ActorsView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new ActorsTableModel(this);
  table_ = makeActorTable(this);
  table_->setModel(model_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(ActorsTableModel::RateColumn, Qt::DescendingOrder);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setMinimumSectionSize(40);
  static_assert(ActorsTableModel::ColumnCount == 16, "a width for every column");
  setColumnWidthsInDigits(table_, {17, 5, 7, 8, 7, 9, 9, 7, 7, 7, 7, 7, 6, 7, 6, 12}, 10);
  table_->setObjectName(QStringLiteral("actors-table"));
  enableColumnChooser(table_->horizontalHeader());

  search_ = new SearchField(QStringLiteral("Filter by name, type or id"), this);
  showStopped_ = new QToolButton(this);
  showStopped_->setIcon(icon(QStringLiteral("show-stopped")));
  showStopped_->setCheckable(true);
  showStopped_->setChecked(model_->showStopped());
  showStopped_->setAutoRaise(true);
  showStopped_->setToolTip(QStringLiteral("List stopped actors too (greyed)"));
  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);

  layOutUnderToolRow(this, {search_, summary_, showStopped_}, table_);

  connect(search_, &SearchField::searchChanged, this, [this](const QString& t) {
    model_->setFilterText(t);
    followSelection(selection_->current());
  });
  connect(showStopped_, &QToolButton::toggled, this, [this](bool on) {
    model_->setShowStopped(on);
    followSelection(selection_->current());
  });
  connectActorView(table_, this, selection_, control_,
                   {.following = &syncing_, .menuFor = [this](const QModelIndex& i) { return contextMenuFor(i); }});
  connect(selection_, &ActorSelection::changed, this, &ActorsView::followSelection);
}

void ActorsView::setState(const observe::SystemState& state) {
  model_->update(state);
  summary_->setText(QStringLiteral("%1 of %2 actors").arg(model_->rowCount()).arg(state.actors().size()));
  if (!table_->currentIndex().isValid() && selection_->current().is_valid())
    followSelection(selection_->current());
}

void ActorsView::resetSession() {
  model_->clear();
  summary_->clear();
}

QMenu* ActorsView::contextMenuFor(const QModelIndex& index) {
  return actorMenuAt(this, index, ActorsTableModel::NameColumn, selection_, control_);
}

void ActorsView::followSelection(ActorId id) {
  const int row = model_->rowOf(id);
  if (row < 0) return;
  const QModelIndex idx = model_->index(row, ActorsTableModel::NameColumn);
  if (table_->currentIndex().row() == row) return;
  syncing_ = true;
  table_->setCurrentIndex(idx);
  table_->scrollTo(idx);
  syncing_ = false;
}

}  // namespace actorscope::views
