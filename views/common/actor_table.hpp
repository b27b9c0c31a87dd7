// The table every list of actors in the observatory is drawn with (actors, timers, event log,
// warnings), set up in one place so that they look and behave alike.
#pragma once

#include <initializer_list>

class QTableView;
class QWidget;

namespace actorscope::views {

/// A QTableView that selects one whole row at a time, alternates row colours, has no grid, no row
/// numbers and no word wrap, rows one text line plus `rowPadding` pixels high, and asks for its
/// context menu by signal (customContextMenuRequested).
QTableView* makeActorTable(QWidget* parent, int rowPadding = 6);

/// Column widths in digits (the width of '0' in the table's font), plus `padding` pixels each,
/// from column 0 on; never narrower than the column's header (with its sort arrow), so that every
/// header can be read. Set the model first.
void setColumnWidthsInDigits(QTableView* table, std::initializer_list<int> digits, int padding);

/// The column that takes the width left over (instead of the last one, whatever it holds).
void setStretchColumn(QTableView* table, int column);

}  // namespace actorscope::views
