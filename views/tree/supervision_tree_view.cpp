// The supervision tree widget.
#include "tree/supervision_tree_view.hpp"

#include "common/actor_table.hpp"
#include "common/icons.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "tree/supervision_tree_model.hpp"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QToolButton>
#include <QTreeView>
#include <QStyle>
#include <QVBoxLayout>

#include <functional>

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
  // Names come first: fitColumns() gives the name column the room its names need and the figures
  // what is left, down to what their digits need; the status shows as the name's coloured dot (the
  // header's menu brings its column back).
  tree_->header()->setStretchLastSection(false);
  for (int c = 0; c < SupervisionTreeModel::ColumnCount; ++c)
    tree_->header()->setSectionResizeMode(c, QHeaderView::Interactive);
  tree_->header()->setMinimumSectionSize(tree_->fontMetrics().horizontalAdvance(QStringLiteral("000")) + 8);
  tree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  connect(tree_->header(), &QHeaderView::sectionResized, this, [this](int, int, int) {
    if (!fitting_) userSized_ = true;  // the user's widths hold until the next session
  });
  fitTimer_.setSingleShot(true);
  fitTimer_.setInterval(0);
  connect(&fitTimer_, &QTimer::timeout, this, &SupervisionTreeView::fitColumns);
  auto refit = [this] { fitTimer_.start(); };
  connect(model_, &QAbstractItemModel::rowsInserted, this, refit);
  connect(model_, &QAbstractItemModel::rowsRemoved, this, refit);
  connect(model_, &QAbstractItemModel::modelReset, this, refit);
  connect(tree_, &QTreeView::expanded, this, refit);
  connect(tree_, &QTreeView::collapsed, this, refit);
  tree_->viewport()->installEventFilter(this);
  enableColumnChooser(tree_->header(), {SupervisionTreeModel::IdColumn, SupervisionTreeModel::StatusColumn});

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("tree-summary"));
  summary_->setForegroundRole(QPalette::PlaceholderText);
  summary_->setWordWrap(true);
  summary_->setToolTip(QStringLiteral("Actors alive (the status bar counts the same), and the stopped ones the tree "
                                      "still shows for a few seconds"));

  layOutUnderToolRow(this, {search_, showStopped_}, tree_)->addWidget(summary_);

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
  connectActorView(tree_, this, selection_, control_,
                   {.following = &syncing_, .menuFor = [this](const QModelIndex& i) { return contextMenuFor(i); }});
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
  aliveShown_ = state.alive_count();
  QString text = QStringLiteral("%1 alive").arg(aliveShown_);
  if (const std::size_t stopped = model_->stoppedCount(); stopped > 0)
    text += QStringLiteral(" · %1 stopped lately").arg(stopped);
  if (!model_->filterText().empty())
    text += QStringLiteral(" · %1 shown for \u201c%2\u201d").arg(model_->nodeCount()).arg(search_->text().trimmed());
  if (summary_->text() != text) summary_->setText(text);
  // Figures grow (a mailbox from 999 to 11,780): the columns follow, once a second at most.
  if (!sinceFit_.isValid() || sinceFit_.elapsed() > 1000) fitTimer_.start();
  if (!tree_->currentIndex().isValid() && selection_->current().is_valid()) followSelection(selection_->current());
}

void SupervisionTreeView::resetSession() {
  state_ = nullptr;
  autoExpanded_.clear();
  // A search for the last session's actors would hide the next one's ("7 alive · 0 shown").
  search_->clear();
  model_->setFilterText(QString());
  model_->clear();
  summary_->clear();
  aliveShown_ = 0;
  userSized_ = false;
  fitTimer_.start();
}

bool SupervisionTreeView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == tree_->viewport() && event->type() == QEvent::Resize) fitTimer_.start();
  return QWidget::eventFilter(watched, event);
}

std::vector<int> SupervisionTreeView::widthsNeeded() const {
  // The widest cell of each column among the rows one can see by scrolling (open branches), as the
  // view draws it (the name with its indentation and status dot). Looks at 3,000 rows at most: a
  // larger tree is read by searching it anyway.
  std::vector<int> widest(SupervisionTreeModel::ColumnCount, 0);
  widest[SupervisionTreeModel::NameColumn] =
      tree_->fontMetrics().horizontalAdvance(model_->headerData(0, Qt::Horizontal).toString()) + 24;
  int budget = 3000;
  const int indent = tree_->indentation();
  const int rootIndent = tree_->rootIsDecorated() ? indent : 0;
  std::function<void(const QModelIndex&, int)> walk = [&](const QModelIndex& parent, int depth) {
    const int rows = model_->rowCount(parent);
    for (int r = 0; r < rows && budget > 0; ++r, --budget) {
      const QModelIndex i = model_->index(r, 0, parent);
      widest[0] = std::max(widest[0], rootIndent + depth * indent + tree_->sizeHintForIndex(i).width() + 4);
      for (int c = 1; c < SupervisionTreeModel::ColumnCount; ++c)
        if (!tree_->header()->isSectionHidden(c))
          widest[static_cast<std::size_t>(c)] =
              std::max(widest[static_cast<std::size_t>(c)], tree_->sizeHintForIndex(i.siblingAtColumn(c)).width() + 4);
      if (tree_->isExpanded(i)) walk(i, depth + 1);
    }
  };
  walk({}, 0);
  return widest;
}

void SupervisionTreeView::fitColumns() {
  sinceFit_.start();
  if (userSized_) return;
  QHeaderView* header = tree_->header();
  const QFontMetrics fm = tree_->fontMetrics();
  const int digit = fm.horizontalAdvance(QLatin1Char('0'));
  // Each figure column: its natural width (its header, or its widest usual figure), and the least
  // it can take (four digits).
  struct Figure {
    int column;
    int natural;
    int least;
  };
  std::vector<Figure> figures;
  const std::vector<int> needed = widthsNeeded();
  for (int c = SupervisionTreeModel::IdColumn; c < SupervisionTreeModel::ColumnCount; ++c) {
    if (header->isSectionHidden(c)) continue;
    // The least keeps the header and every figure whole (a cut figure or title reads as nothing);
    // the natural width leaves room for the figures to grow.
    const int title = fm.horizontalAdvance(model_->headerData(c, Qt::Horizontal).toString()) + 10;
    const int usual = c == SupervisionTreeModel::StatusColumn ? fm.horizontalAdvance(QStringLiteral("draining"))
                      : c == SupervisionTreeModel::RateColumn ? fm.horizontalAdvance(QStringLiteral("88.8k/s"))
                                                              : 4 * digit;
    const int least = std::max({title, 3 * digit + 8, needed[static_cast<std::size_t>(c)]});
    figures.push_back({c, std::max(least, usual + 12), least});
  }
  const int room = tree_->viewport()->width();
  const int name = needed[SupervisionTreeModel::NameColumn];
  int natural = 0, least = 0;
  for (const Figure& f : figures) {
    natural += f.natural;
    least += f.least;
  }
  fitting_ = true;
  if (name + natural <= room) {
    // Room for everything: the figures at their natural width, the name takes the rest.
    for (const Figure& f : figures) header->resizeSection(f.column, f.natural);
    header->resizeSection(SupervisionTreeModel::NameColumn, room - natural);
  } else {
    // Names first: the figures give up what the names need, down to their least; if that is not
    // enough, the tree scrolls sideways rather than cut a name.
    const int give = std::min(name + natural - room, natural - least);
    int given = 0;
    for (std::size_t i = 0; i < figures.size(); ++i) {
      const Figure& f = figures[i];
      const int share = natural == least ? 0
                        : i + 1 == figures.size()
                            ? give - given
                            : give * (f.natural - f.least) / (natural - least);
      given += share;
      header->resizeSection(f.column, f.natural - share);
    }
    header->resizeSection(SupervisionTreeModel::NameColumn, std::max(name, room - (natural - give)));
  }
  fitting_ = false;
}

QMenu* SupervisionTreeView::contextMenuFor(const QModelIndex& viewIndex) {
  return actorMenuAt(this, viewIndex, SupervisionTreeModel::NameColumn, selection_, control_);
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
