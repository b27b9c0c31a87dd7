// The timers widget.
#include "timers/timers_view.hpp"

#include "common/actor_table.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "timers/timers_model.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>

namespace actorscope::views {

TimersView::TimersView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new TimersModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(SortRole);
  proxy_->setFilterRole(SearchRole);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_ = makeActorTable(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(TimersModel::IdColumn, Qt::AscendingOrder);
  static_assert(TimersModel::ColumnCount == 10, "a width for every column");
  setColumnWidthsInDigits(table_, {5, 20, 12, 8, 7, 8, 6, 7, 7, 7}, 10);
  setStretchColumn(table_, TimersModel::TargetColumn);  // the names get the room, not "Late max"
  table_->setObjectName(QStringLiteral("timers-table"));
  enableColumnChooser(table_->horizontalHeader());

  search_ = new SearchField(QStringLiteral("Filter by actor, kind or id"), this);
  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(makePlaceholder(QStringLiteral("No active timers.\nsend_interval, send_after, exit_after and "
                                                   "kill_after timers appear here while they are armed."),
                                    this));
  stack_->addWidget(table_);
  layOutUnderToolRow(this, {search_, summary_}, stack_);

  connect(search_, &SearchField::searchChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  // A row is its target's; the menu is for the actor clicked (owner or target).
  connectActorView(table_, this, selection_, control_, {.selectColumn = TimersModel::TargetColumn});
}

void TimersView::setState(const observe::SystemState& state) {
  model_->update(state);
  summary_->setText(QStringLiteral("%1 active").arg(state.timers().size()));
  stack_->setCurrentIndex(state.timers().empty() ? 0 : 1);
}

void TimersView::resetSession() {
  model_->clear();
  summary_->clear();
  stack_->setCurrentIndex(0);
}

}  // namespace actorscope::views
