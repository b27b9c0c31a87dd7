// The warnings widget.
#include "warnings/warnings_view.hpp"

#include "common/actor_table.hpp"
#include "common/roles.hpp"
#include "warnings/warnings_model.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace actorscope::views {

WarningsView::WarningsView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new WarningsModel(this);
  table_ = makeActorTable(this, 8);
  table_->setModel(model_);
  table_->horizontalHeader()->setSectionResizeMode(WarningsModel::SummaryColumn, QHeaderView::Stretch);
  const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  table_->setColumnWidth(WarningsModel::RuleColumn, 19 * digit);
  table_->setColumnWidth(WarningsModel::ActorColumn, 18 * digit);
  table_->setColumnWidth(WarningsModel::SinceColumn, 9 * digit);
  // A summary is one line of figures; where the panel is narrower than that, it wraps rather than
  // hiding its end (a restart storm's latest error, a mailbox's rate). Warnings are few rows.
  table_->setWordWrap(true);
  table_->setTextElideMode(Qt::ElideNone);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  auto* empty =
      new QLabel(QStringLiteral("No warnings.\nRules: growing mailbox, restart storm, blocked thread, "
                                "late timer, dropped events."),
                 this);
  empty->setAlignment(Qt::AlignCenter);
  empty->setWordWrap(true);
  empty->setForegroundRole(QPalette::PlaceholderText);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(empty);
  stack_->addWidget(table_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(stack_);

  connect(model_, &WarningsModel::countChanged, this, [this](int n) {
    stack_->setCurrentIndex(n == 0 ? 0 : 1);
    emit countChanged(n);
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            const ActorId id = current.data(ActorIdRole).value<ActorId>();
            if (id.is_valid()) selection_->select(id);
          });
  connect(table_, &QTableView::customContextMenuRequested, this, [this](const QPoint& pos) {
    const QModelIndex idx = table_->indexAt(pos);
    const ActorId id = idx.data(ActorIdRole).value<ActorId>();
    if (!id.is_valid()) return;
    makeActorMenu(this, id, idx.siblingAtColumn(WarningsModel::ActorColumn).data().toString(), selection_,
                  control_)
        ->popup(table_->viewport()->mapToGlobal(pos));
  });
}

void WarningsView::setState(const observe::SystemState& state) {
  model_->update(state);
}

void WarningsView::resetSession() {
  model_->reset();
}

}  // namespace actorscope::views
