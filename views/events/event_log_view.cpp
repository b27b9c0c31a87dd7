// The event log widget and its filter proxy.
#include "events/event_log_view.hpp"

#include "common/actor_table.hpp"
#include "common/icons.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "events/event_log_model.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

namespace actorscope::views {

/// Category mask and free text, in one proxy.
class EventLogFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void setMask(int mask) {
    mask_ = mask;
    invalidateFilter();
  }
  int mask() const noexcept { return mask_; }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    const QModelIndex idx = sourceModel()->index(row, 0, parent);
    if ((idx.data(KindRole).toInt() & mask_) == 0) return false;
    return QSortFilterProxyModel::filterAcceptsRow(row, parent);
  }

 private:
  int mask_ = static_cast<int>(EventCategory::all);
};

EventLogView::EventLogView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new EventLogModel(this);
  filter_ = new EventLogFilter(this);
  filter_->setSourceModel(model_);
  filter_->setFilterRole(SearchRole);
  filter_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  filter_->setDynamicSortFilter(false);

  table_ = makeActorTable(this);
  table_->setModel(filter_);
  table_->horizontalHeader()->setStretchLastSection(true);
  // The event column as wide as its longest kind; the actor and its peer start narrow and grow to
  // the names the log holds (fitNameColumns), so that the detail keeps the rest.
  const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  table_->setColumnWidth(EventLogModel::TimeColumn, 8 * digit + 10);
  table_->setColumnWidth(EventLogModel::KindColumn,
                         table_->fontMetrics().horizontalAdvance(QStringLiteral("supervision delivered")) + 16);
  table_->setColumnWidth(EventLogModel::ActorColumn, 12 * digit);
  table_->setColumnWidth(EventLogModel::PeerColumn, 12 * digit);

  search_ = new SearchField(QStringLiteral("Search events (actor, kind, reason…)"), this);
  // Kinds to list: every category is a checkable entry. Name registrations repeat every spawn and
  // exit, so they start hidden.
  category_ = new QToolButton(this);
  category_->setText(QStringLiteral("Kinds"));
  category_->setIcon(icon(QStringLiteral("events")));
  category_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  category_->setPopupMode(QToolButton::InstantPopup);
  category_->setToolTip(QStringLiteral("Which kinds of events to list"));
  auto* kinds = new QMenu(category_);
  const std::pair<const char*, EventCategory> categories[] = {
      {"Lifecycle (spawn, start, stop, kill)", EventCategory::lifecycle},
      {"Failures", EventCategory::failure},
      {"Supervision (links, supervision events)", EventCategory::supervision},
      {"Process groups", EventCategory::groups},
      {"Registered names", EventCategory::names},
      {"Timers", EventCategory::timers},
      {"Runtime", EventCategory::runtime},
  };
  int mask = 0;
  for (const auto& [label, cat] : categories) {
    QAction* a = kinds->addAction(QString::fromLatin1(label));
    a->setCheckable(true);
    a->setChecked(cat != EventCategory::names);
    a->setData(static_cast<int>(cat));
    if (a->isChecked()) mask |= static_cast<int>(cat);
    connect(a, &QAction::toggled, this, [this, a](bool on) {
      const int bit = a->data().toInt();
      setCategoryMask(on ? (filter_->mask() | bit) : (filter_->mask() & ~bit));
    });
  }
  category_->setMenu(kinds);
  filter_->setMask(mask);
  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);

  layOutUnderToolRow(this, {search_, category_, summary_}, table_);

  connect(search_, &SearchField::searchChanged, this, &EventLogView::setSearch);
  // A row is its actor's; the menu is for the actor clicked (the actor or its peer).
  connectActorView(table_, this, selection_, control_, {.selectColumn = EventLogModel::ActorColumn});
}

void EventLogView::setSearch(const QString& text) {
  filter_->setFilterFixedString(text);
  summary_->setText(QStringLiteral("%1 of %2").arg(filter_->rowCount()).arg(model_->rowCount()));
}

void EventLogView::setCategoryMask(int mask) {
  filter_->setMask(mask);
  summary_->setText(QStringLiteral("%1 of %2").arg(filter_->rowCount()).arg(model_->rowCount()));
}

int EventLogView::visibleRows() const {
  return filter_->rowCount();
}

void EventLogView::setState(const observe::SystemState& state) {
  QScrollBar* bar = table_->verticalScrollBar();
  const bool atBottom = bar->value() >= bar->maximum() - 2;
  model_->update(state);
  fitNameColumns();
  summary_->setText(QStringLiteral("%1 of %2").arg(filter_->rowCount()).arg(model_->rowCount()));
  if (focusTime_) {
    auto centre = [this] {
      if (const int row = focusRow(); row >= 0)
        table_->scrollTo(filter_->index(row, 0), QAbstractItemView::PositionAtCenter);
    };
    centre();
    // Again once the table is laid out: a log just shown (a tab switched to) has no height yet.
    QTimer::singleShot(0, this, centre);
  } else if (atBottom) {
    table_->scrollToBottom();
  }
}

int EventLogView::focusRow() const {
  if (!focusTime_) return -1;
  // Rows are in recording order, so in time order: the last one at or before the cursor.
  int lo = 0, hi = filter_->rowCount();
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (model_->timeAt(filter_->mapToSource(filter_->index(mid, 0)).row()) <= *focusTime_)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

void EventLogView::fitNameColumns() {
  // As wide as the widest actor or peer among the newest 200 events (which is what one reads), never
  // narrower than before in a session (columns that jump are hard to read), at most 30 digits.
  const QFontMetrics fm = table_->fontMetrics();
  const int digit = fm.horizontalAdvance(QLatin1Char('0'));
  const int rows = model_->rowCount();
  int widest = 0;
  for (int r = std::max(0, rows - 200); r < rows; ++r)
    for (int c : {int(EventLogModel::ActorColumn), int(EventLogModel::PeerColumn)})
      widest = std::max(widest, fm.horizontalAdvance(model_->index(r, c).data().toString()));
  const int width = std::min(30 * digit, widest + 14);
  for (int c : {int(EventLogModel::ActorColumn), int(EventLogModel::PeerColumn)})
    if (table_->columnWidth(c) < width) table_->setColumnWidth(c, width);
}

void EventLogView::resetSession() {
  model_->clear();
  summary_->clear();
  const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  table_->setColumnWidth(EventLogModel::ActorColumn, 12 * digit);
  table_->setColumnWidth(EventLogModel::PeerColumn, 12 * digit);
}

}  // namespace actorscope::views
