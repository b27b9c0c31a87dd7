#include "common/actor_table.hpp"

#include "common/actor_selection.hpp"
#include "common/roles.hpp"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QStringList>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace actorscope::views {

QTableView* makeActorTable(QWidget* parent, int rowPadding) {
  auto* table = new QTableView(parent);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setAlternatingRowColors(true);
  table->setShowGrid(false);
  table->setWordWrap(false);
  table->setContextMenuPolicy(Qt::CustomContextMenu);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + rowPadding);
  table->horizontalHeader()->setHighlightSections(false);
  return table;
}

void setColumnWidthsInDigits(QTableView* table, std::initializer_list<int> digits, int padding) {
  const int digit = table->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  QHeaderView* header = table->horizontalHeader();
  const QFontMetrics headerFont = header->fontMetrics();
  const int margin = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  const int arrow = table->isSortingEnabled()
                        ? header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) + margin
                        : 0;
  int column = 0;
  for (const int d : digits) {
    const QString title =
        table->model() ? table->model()->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString() : QString();
    const int titleWidth = title.isEmpty() ? 0 : headerFont.horizontalAdvance(title) + margin + arrow + 6;
    table->setColumnWidth(column++, std::max(d * digit + padding, titleWidth));
  }
}

void setStretchColumn(QTableView* table, int column) {
  table->horizontalHeader()->setStretchLastSection(false);
  table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Stretch);
}

namespace {
constexpr char kChooserProperty[] = "actorscopeColumnChooser";

int columnCount(const QHeaderView* header) { return header->model() ? header->model()->columnCount() : 0; }
QString columnTitle(const QHeaderView* header, int column) {
  return header->model() ? header->model()->headerData(column, header->orientation(), Qt::DisplayRole).toString()
                         : QString();
}
}  // namespace

void enableColumnChooser(QHeaderView* header, std::initializer_list<int> hiddenAtFirst) {
  header->setProperty(kChooserProperty, true);
  for (const int column : hiddenAtFirst)
    if (column > 0) header->setSectionHidden(column, true);
  header->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(header, &QHeaderView::customContextMenuRequested, header, [header](const QPoint& pos) {
    QMenu* menu = makeColumnMenu(header, header);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(header->mapToGlobal(pos));
  });
}

bool hasColumnChooser(const QHeaderView* header) { return header->property(kChooserProperty).toBool(); }

QMenu* makeColumnMenu(QHeaderView* header, QWidget* parent) {
  auto* menu = new QMenu(parent);
  menu->setObjectName(QStringLiteral("column-menu"));
  for (int c = 1; c < columnCount(header); ++c) {
    QAction* a = menu->addAction(columnTitle(header, c));
    a->setCheckable(true);
    a->setChecked(!header->isSectionHidden(c));
    QObject::connect(a, &QAction::toggled, header, [header, c](bool on) { header->setSectionHidden(c, !on); });
  }
  menu->addSeparator();
  QAction* all = menu->addAction(QStringLiteral("Show all columns"));
  QObject::connect(all, &QAction::triggered, header, [header] { setHiddenColumns(header, {}); });
  return menu;
}

QStringList hiddenColumns(const QHeaderView* header) {
  QStringList titles;
  for (int c = 1; c < columnCount(header); ++c)
    if (header->isSectionHidden(c)) titles << columnTitle(header, c);
  return titles;
}

void setHiddenColumns(QHeaderView* header, const QStringList& titles) {
  for (int c = 1; c < columnCount(header); ++c) header->setSectionHidden(c, titles.contains(columnTitle(header, c)));
}

QLabel* makePlaceholder(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setAlignment(Qt::AlignCenter);
  label->setWordWrap(true);
  label->setForegroundRole(QPalette::PlaceholderText);
  return label;
}

QVBoxLayout* layOutUnderToolRow(QWidget* owner, std::initializer_list<QWidget*> tools, QWidget* body) {
  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  bool first = true;
  for (QWidget* tool : tools) {
    top->addWidget(tool, first ? 1 : 0);
    first = false;
  }
  auto* layout = new QVBoxLayout(owner);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(top);
  layout->addWidget(body, 1);
  return layout;
}

QMenu* actorMenuAt(QWidget* parent, const QModelIndex& index, int labelColumn, ActorSelection* selection,
                   ActorControl* control) {
  const ActorId id = index.data(ActorIdRole).value<ActorId>();
  if (!id.is_valid()) return nullptr;
  const QModelIndex labelled = labelColumn < 0 ? index : index.siblingAtColumn(labelColumn);
  return makeActorMenu(parent, id, labelled.data().toString(), selection, control);
}

void connectActorView(QAbstractItemView* view, QWidget* owner, ActorSelection* selection, ActorControl* control,
                      ActorViewWiring wiring) {
  QObject::connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, owner,
                   [selection, column = wiring.selectColumn, following = wiring.following](const QModelIndex& current) {
                     if (following != nullptr && *following) return;
                     const QModelIndex cell = column < 0 ? current : current.siblingAtColumn(column);
                     const ActorId id = cell.data(ActorIdRole).value<ActorId>();
                     if (id.is_valid()) selection->select(id);
                   });
  std::function<QMenu*(const QModelIndex&)> menuFor = std::move(wiring.menuFor);
  if (!menuFor)
    menuFor = [owner, column = wiring.labelColumn, selection, control](const QModelIndex& index) {
      return actorMenuAt(owner, index, column, selection, control);
    };
  QObject::connect(view, &QAbstractItemView::customContextMenuRequested, owner,
                   [view, menuFor = std::move(menuFor)](const QPoint& pos) {
                     if (QMenu* menu = menuFor(view->indexAt(pos))) menu->popup(view->viewport()->mapToGlobal(pos));
                   });
}

}  // namespace actorscope::views
