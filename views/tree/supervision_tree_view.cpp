// The supervision tree widget.
#include "tree/supervision_tree_view.hpp"

#include "common/icons.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "tree/supervision_tree_model.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace actorscope::views {

SupervisionTreeView::SupervisionTreeView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new SupervisionTreeModel(this);

  search_ = new SearchField(QStringLiteral("Search name, id or type"), this);
  showStopped_ = new QToolButton(this);
  showStopped_->setIcon(icon(QStringLiteral("show-stopped")));
  showStopped_->setCheckable(true);
  showStopped_->setToolTip(QStringLiteral("Keep stopped actors in the tree (otherwise they leave a few seconds after "
                                          "they stop)"));
  showStopped_->setAutoRaise(true);

  tree_ = new QTreeView(this);
  tree_->setModel(model_);
  // Figures under collapsed rows are signalled when the row opens (see setNotifyExpandedOnly).
  model_->setNotifyExpandedOnly(true);
  connect(tree_, &QTreeView::expanded, this, [this](const QModelIndex& i) { model_->setExpanded(i, true); });
  connect(tree_, &QTreeView::collapsed, this, [this](const QModelIndex& i) { model_->setExpanded(i, false); });
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  tree_->setAllColumnsShowFocus(true);
  tree_->setAnimated(false);
  tree_->setIndentation(14);
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionResizeMode(SupervisionTreeModel::NameColumn, QHeaderView::Stretch);
  for (int c = SupervisionTreeModel::IdColumn; c < SupervisionTreeModel::ColumnCount; ++c)
    tree_->header()->setSectionResizeMode(c, QHeaderView::Interactive);
  const int digit = tree_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  tree_->header()->resizeSection(SupervisionTreeModel::IdColumn, 6 * digit);
  tree_->header()->resizeSection(SupervisionTreeModel::StatusColumn, 7 * digit + 4);
  tree_->header()->resizeSection(SupervisionTreeModel::MailboxColumn, 6 * digit + 4);
  tree_->header()->resizeSection(SupervisionTreeModel::RateColumn, 7 * digit);
  tree_->header()->resizeSection(SupervisionTreeModel::FailuresColumn, 5 * digit + 4);
  tree_->header()->setMinimumSectionSize(4 * digit);
  // The id is in every tooltip and in the inspector; the name needs the room more.
  tree_->header()->setSectionHidden(SupervisionTreeModel::IdColumn, true);
  tree_->header()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(tree_->header(), &QHeaderView::customContextMenuRequested, this, [this](const QPoint& pos) {
    QMenu menu;
    for (int c = 1; c < SupervisionTreeModel::ColumnCount; ++c) {
      QAction* a = menu.addAction(model_->headerData(c, Qt::Horizontal).toString());
      a->setCheckable(true);
      a->setChecked(!tree_->header()->isSectionHidden(c));
      connect(a, &QAction::toggled, tree_->header(), [this, c](bool on) { tree_->header()->setSectionHidden(c, !on); });
    }
    menu.exec(tree_->header()->mapToGlobal(pos));
  });

  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);

  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  top->addWidget(search_, 1);
  top->addWidget(showStopped_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(top);
  layout->addWidget(tree_, 1);
  layout->addWidget(summary_);

  connect(search_, &SearchField::searchChanged, this, [this](const QString& text) {
    model_->setFilterText(text);
    if (state_) setState(*state_);
    if (!text.isEmpty()) tree_->expandAll();
    followSelection(selection_->current());
  });
  connect(showStopped_, &QToolButton::toggled, this, [this](bool on) {
    model_->setShowStopped(on);
    if (state_) setState(*state_);
  });
  connect(model_, &QAbstractItemModel::rowsInserted, this, &SupervisionTreeView::expandNew);
  connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (syncing_) return;
    const ActorId id = current.data(ActorIdRole).value<ActorId>();
    if (id.is_valid()) selection_->select(id);
  });
  connect(tree_, &QTreeView::customContextMenuRequested, this, [this](const QPoint& pos) {
    const QModelIndex idx = tree_->indexAt(pos);
    if (!idx.isValid()) return;
    if (QMenu* menu = contextMenuFor(idx)) menu->popup(tree_->viewport()->mapToGlobal(pos));
  });
  connect(selection_, &ActorSelection::changed, this, &SupervisionTreeView::followSelection);
}

void SupervisionTreeView::expandNew(const QModelIndex& parent, int, int) {
  // Open a root the first time it gets children, and a supervisor under it too while the whole
  // tree is small: a view of thousands of open rows helps nobody and makes every update
  // re-examine them. Deeper levels, and anything the user collapsed since, stay as they are.
  if (!parent.isValid()) return;
  int depth = 0;
  for (QModelIndex p = parent; p.isValid(); p = p.parent()) ++depth;
  if (depth > 2 || (depth == 2 && (model_->nodeCount() > 200 || model_->rowCount(parent.parent()) > 12))) return;
  const ActorId id = parent.data(ActorIdRole).value<ActorId>();
  if (!id.is_valid() || autoExpanded_.contains(id.pid) || model_->rowCount(parent) > 400) return;
  autoExpanded_.insert(id.pid);
  tree_->expand(parent);
}

void SupervisionTreeView::setState(const observe::SystemState& state) {
  state_ = &state;
  model_->update(state);
  summary_->setText(QStringLiteral("%1 alive · %2 shown · %3 roots")
                        .arg(state.alive_count())
                        .arg(model_->nodeCount())
                        .arg(model_->rowCount()));
  if (!tree_->currentIndex().isValid() && selection_->current().is_valid()) followSelection(selection_->current());
}

void SupervisionTreeView::resetSession() {
  state_ = nullptr;
  autoExpanded_.clear();
  model_->clear();
  summary_->clear();
}

QMenu* SupervisionTreeView::contextMenuFor(const QModelIndex& viewIndex) {
  const ActorId id = viewIndex.data(ActorIdRole).value<ActorId>();
  if (!id.is_valid()) return nullptr;
  const QString label = viewIndex.siblingAtColumn(SupervisionTreeModel::NameColumn).data().toString();
  return makeActorMenu(this, id, label, selection_, control_);
}

void SupervisionTreeView::focusSearch() {
  search_->setFocus();
  search_->selectAll();
}

void SupervisionTreeView::followSelection(ActorId id) {
  const QModelIndex idx = model_->indexOf(id);
  if (!idx.isValid() || idx == tree_->currentIndex()) return;
  syncing_ = true;
  for (QModelIndex p = idx.parent(); p.isValid(); p = p.parent()) tree_->expand(p);
  tree_->setCurrentIndex(idx);
  tree_->scrollTo(idx);
  syncing_ = false;
}

}  // namespace actorscope::views
