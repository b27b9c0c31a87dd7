// The table every list of actors in the observatory is drawn with (actors, timers, event log,
// warnings), set up in one place so that they look and behave alike; and the wiring every item view
// of actors (those tables, the supervision tree, the process groups) shares with the rest of the
// observatory: its current row selects that row's actor everywhere, and a right-click opens the
// actor's context menu.
#pragma once

#include <functional>
#include <initializer_list>

#include <QStringList>

class QAbstractItemView;
class QHeaderView;
class QLabel;
class QMenu;
class QModelIndex;
class QString;
class QTableView;
class QVBoxLayout;
class QWidget;

namespace actorscope::views {

class ActorControl;
class ActorSelection;

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

/// Lets the user choose which of a view's columns show, from a menu on its header (right-click):
/// a checkable entry per column but the first, which names the row and always shows, and "Show
/// all columns". The columns in `hiddenAtFirst` start hidden. MainWindow keeps the choice of every
/// table with an object name between runs, by column title (hiddenColumns, setHiddenColumns).
void enableColumnChooser(QHeaderView* header, std::initializer_list<int> hiddenAtFirst = {});
/// Whether enableColumnChooser was called on `header`.
bool hasColumnChooser(const QHeaderView* header);
/// The header menu enableColumnChooser pops up, parented to `parent` (for tests).
QMenu* makeColumnMenu(QHeaderView* header, QWidget* parent);
/// The titles of the header's hidden columns, in column order.
QStringList hiddenColumns(const QHeaderView* header);
/// Hides the columns titled in `titles` and shows every other one (the first always shows; a title
/// no column has any more is skipped).
void setHiddenColumns(QHeaderView* header, const QStringList& titles);

/// What an empty list shows instead ("No active timers. …"): centred, wrapped, in the palette's
/// placeholder colour.
QLabel* makePlaceholder(const QString& text, QWidget* parent);

/// Lays `owner` out as the list views are: a row of `tools` on top (the first, the search field,
/// takes the width left), `body` under it with the height left. Returns the layout, for a view that
/// puts more under the body.
QVBoxLayout* layOutUnderToolRow(QWidget* owner, std::initializer_list<QWidget*> tools, QWidget* body);

/// The actor context menu (makeActorMenu) for the actor of `index` (its ActorIdRole), titled with
/// the text of the row's `labelColumn` (-1: the text of `index` itself), parented to `parent`.
/// Null where the index has no actor (a group or scope row, an empty area).
QMenu* actorMenuAt(QWidget* parent, const QModelIndex& index, int labelColumn, ActorSelection* selection,
                   ActorControl* control);

/// How connectActorView reads a view's rows. The defaults suit a model whose every cell carries
/// its row's actor and whose clicked cell names it.
struct ActorViewWiring {
  /// The column whose ActorIdRole a new current row selects (-1: the current cell's own). A row
  /// may name more than one actor (a timer's owner and target): this says which one is the row's.
  int selectColumn = -1;
  /// The column whose text titles the context menu (-1: the clicked cell's text).
  int labelColumn = -1;
  /// While `*following` is true the view is moving its own current row to follow the shared
  /// selection: that move is not echoed back as a new selection (null: the view never does).
  const bool* following = nullptr;
  /// The view's own context menu for an index, for views that expose it to tests (null result: no
  /// menu). Empty: actorMenuAt(owner, index, labelColumn, ...), for the clicked cell's actor.
  std::function<QMenu*(const QModelIndex&)> menuFor = {};
};

/// Wires `view` to the shared selection and to the actor context menu: a new current row selects
/// its actor (rows without one select nothing), and a right-click on a row with an actor pops its
/// menu up where the mouse is. `owner` is the view's widget: it parents the menus and scopes the
/// connections. The view needs Qt::CustomContextMenu (makeActorTable sets it).
void connectActorView(QAbstractItemView* view, QWidget* owner, ActorSelection* selection, ActorControl* control,
                      ActorViewWiring wiring = {});

}  // namespace actorscope::views
