#include "common/actor_table.hpp"

#include <QHeaderView>
#include <QStyle>
#include <QTableView>

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

}  // namespace actorscope::views
