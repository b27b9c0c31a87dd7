#include "common/actor_table.hpp"

#include <QHeaderView>
#include <QTableView>

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
  int column = 0;
  for (const int d : digits) table->setColumnWidth(column++, d * digit + padding);
}

}  // namespace actorscope::views
