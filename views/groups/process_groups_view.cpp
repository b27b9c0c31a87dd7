// The process groups widget.
#include "groups/process_groups_view.hpp"

#include "common/actor_table.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "groups/process_groups_model.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTreeView>

namespace actorscope::views {

ProcessGroupsView::ProcessGroupsView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new ProcessGroupsModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setRecursiveFilteringEnabled(true);
  proxy_->setFilterRole(SearchRole);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy_->setDynamicSortFilter(false);

  tree_ = new QTreeView(this);
  tree_->setModel(proxy_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  tree_->setAllColumnsShowFocus(true);
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionResizeMode(ProcessGroupsModel::NameColumn, QHeaderView::Stretch);
  tree_->header()->resizeSection(ProcessGroupsModel::MembersColumn, 70);
  tree_->header()->resizeSection(ProcessGroupsModel::StatusColumn, 70);
  tree_->header()->resizeSection(ProcessGroupsModel::MailboxColumn, 64);

  search_ = new SearchField(QStringLiteral("Filter scopes, groups, members"), this);
  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);
  empty_ = makePlaceholder(QStringLiteral("No process groups yet.\nActors that join a group (pg::join) appear here, "
                                         "under their scope and group."),
                           this);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(empty_);
  stack_->addWidget(tree_);
  layOutUnderToolRow(this, {search_, summary_}, stack_);

  connect(search_, &SearchField::searchChanged, this, [this](const QString& t) {
    proxy_->setFilterFixedString(t);
    tree_->expandAll();
  });
  connect(proxy_, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex& parent, int first, int last) {
    // Scopes and groups open as they appear (membership is what this view is for), unless a group
    // is so big that its members would bury the others.
    if (parent.isValid() && parent.parent().isValid()) return;  // members
    auto open = [this](const QModelIndex& idx) {
      if (proxy_->rowCount(idx) <= 50) tree_->expand(idx);
    };
    for (int r = first; r <= last; ++r) {
      const QModelIndex idx = proxy_->index(r, 0, parent);
      open(idx);
      if (!parent.isValid())
        for (int g = 0; g < proxy_->rowCount(idx); ++g) open(proxy_->index(g, 0, idx));
    }
  });
  // Member rows carry their actor; scope and group rows carry none, and select nothing.
  connectActorView(tree_, this, selection_, control_, {.labelColumn = ProcessGroupsModel::NameColumn});
}

void ProcessGroupsView::setState(const observe::SystemState& state) {
  model_->update(state);
  std::size_t groups = 0;
  for (const auto& [scope, g] : state.groups()) groups += g.size();
  summary_->setText(QStringLiteral("%1 scopes · %2 groups").arg(state.groups().size()).arg(groups));
  stack_->setCurrentIndex(state.groups().empty() ? 0 : 1);
}

void ProcessGroupsView::resetSession() {
  model_->clear();
  summary_->clear();
  stack_->setCurrentIndex(0);
}

}  // namespace actorscope::views
