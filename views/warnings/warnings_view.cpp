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

  stack_ = new QStackedWidget(this);
  stack_->addWidget(makePlaceholder(
      QStringLiteral("No warnings.\nRules: growing mailbox, restart storm, blocked thread, late timer, dropped events."),
      this));
  stack_->addWidget(table_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(stack_);

  connect(model_, &WarningsModel::countChanged, this, [this](int n) {
    stack_->setCurrentIndex(n == 0 ? 0 : 1);
    emit countChanged(n);
  });
  connectActorView(table_, this, selection_, control_, {.labelColumn = WarningsModel::ActorColumn});
}

void WarningsView::setState(const observe::SystemState& state) {
  model_->update(state);
}

void WarningsView::resetSession() {
  model_->reset();
}

}  // namespace actorscope::views
