// The factories widget.
#include "factories/factories_view.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_table.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/histogram_widget.hpp"
#include "common/roles.hpp"
#include "common/search_field.hpp"
#include "common/sparkline.hpp"
#include "factories/factories_model.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStringList>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace actorscope::views {

namespace {

/// How far back the discards table's "recent" column looks.
constexpr Duration kRecentDiscards = std::chrono::seconds(5);

QString settingsText(const observe::FactoryRecord& f) {
  const auto& s = f.settings;
  QStringList parts;
  parts << QStringLiteral("%1 routing, %2 workers").arg(routingText(f.routing)).arg(f.pool_size);
  parts << (s.priority ? QStringLiteral("priority queue (%1 levels)").arg(s.priority_levels) : QStringLiteral("FIFO queue"));
  if (s.discard == "none" || s.discard.empty()) {
    parts << QStringLiteral("no discard limit");
  } else {
    parts << QStringLiteral("%1 discard limit %2 (drops the %3)")
                 .arg(QString::fromStdString(s.discard))
                 .arg(s.discard_limit)
                 .arg(s.discard_oldest ? QStringLiteral("oldest") : QStringLiteral("newest"));
  }
  if (s.dead_man)
    parts << QStringLiteral("dead-man's switch %1 (%2)")
                 .arg(formatDuration(*s.dead_man), s.dead_man_kills ? QStringLiteral("kills") : QStringLiteral("reports"));
  if (s.rate_jobs != 0) parts << QStringLiteral("at most %1 jobs per %2").arg(s.rate_jobs).arg(formatDuration(s.rate_per));
  if (s.draining) parts << QStringLiteral("draining");
  return parts.join(QStringLiteral(" · "));
}

}  // namespace

FactoriesView::FactoriesView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  model_ = new FactoriesModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(SortRole);
  proxy_->setFilterRole(SearchRole);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_ = makeActorTable(this);
  table_->setObjectName(QStringLiteral("factories-table"));
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(FactoriesModel::NameColumn, Qt::AscendingOrder);
  static_assert(FactoriesModel::ColumnCount == 12, "a width for every column");
  setColumnWidthsInDigits(table_, {14, 12, 5, 5, 8, 9, 8, 5, 8, 8, 9, 6}, 10);
  setStretchColumn(table_, FactoriesModel::NameColumn);
  // Routing starts hidden: the line under the table names the current factory's, and without it
  // the figures fit beside the inspector at 1366x768.
  enableColumnChooser(table_->horizontalHeader(), {FactoriesModel::RoutingColumn});

  // The details of the current row's factory.
  auto* details = new QWidget(this);
  settings_ = new QLabel(details);
  settings_->setWordWrap(true);
  settings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  queueLine_ = new Sparkline(details);
  queueLine_->setTitle(QStringLiteral("Queue depth, last 12 s"));
  busyLine_ = new Sparkline(details);
  busyLine_->setTitle(QStringLiteral("Busy workers"));
  discards_ = new QTableWidget(static_cast<int>(kDiscardReasonCount), 3, details);
  discards_->setObjectName(QStringLiteral("factory-discards"));
  discards_->setHorizontalHeaderLabels({QStringLiteral("Discarded"), QStringLiteral("In all"), QStringLiteral("Last 5 s")});
  discards_->verticalHeader()->setVisible(false);
  discards_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  discards_->setSelectionMode(QAbstractItemView::NoSelection);
  discards_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int r = 0; r < static_cast<int>(kDiscardReasonCount); ++r) {
    discards_->setItem(r, 0, new QTableWidgetItem(discardReasonText(static_cast<DiscardReason>(r))));
    for (int c = 1; c < 3; ++c) {
      auto* item = new QTableWidgetItem(QStringLiteral("0"));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      discards_->setItem(r, c, item);
    }
  }
  discards_->setFixedHeight(discards_->horizontalHeader()->sizeHint().height() +
                            static_cast<int>(kDiscardReasonCount) * discards_->verticalHeader()->defaultSectionSize() +
                            2 * discards_->frameWidth());
  latency_ = new HistogramWidget(details);
  latency_->setTitle(QStringLiteral("Job latency (dispatch to done)"));
  latency_->setEmptyText(QStringLiteral("no job completed yet"));
  workers_ = new QListWidget(details);
  workers_->setObjectName(QStringLiteral("factory-workers"));
  workers_->setContextMenuPolicy(Qt::CustomContextMenu);
  workers_->setMinimumHeight(60);
  auto* workersTitle = new QLabel(QStringLiteral("Workers"), details);

  auto* charts = new QVBoxLayout;
  charts->addWidget(queueLine_);
  charts->addWidget(busyLine_);
  charts->addWidget(latency_);
  charts->addStretch(1);
  auto* side = new QVBoxLayout;
  side->addWidget(discards_);
  side->addWidget(workersTitle);
  side->addWidget(workers_, 1);
  auto* row = new QHBoxLayout;
  row->addLayout(charts, 3);
  row->addLayout(side, 2);
  auto* dv = new QVBoxLayout(details);
  dv->setContentsMargins(4, 4, 4, 4);
  dv->addWidget(settings_);
  dv->addLayout(row, 1);

  // The details scroll when the tab is short (a window of 1366x768 with its docks): the tab's
  // minimum height stays that of a few rows.
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(details);
  table_->setMinimumHeight(60);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(scroll);
  split->setChildrenCollapsible(false);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);

  search_ = new SearchField(QStringLiteral("Filter by name, routing or id"), this);
  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(makePlaceholder(QStringLiteral("No factories.\nA factory (a pool of workers that takes jobs) "
                                                   "appears here once it has started."),
                                    this));
  stack_->addWidget(split);
  layOutUnderToolRow(this, {search_, summary_}, stack_);

  connect(search_, &SearchField::searchChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connectActorView(table_, this, selection_, control_, {.labelColumn = FactoriesModel::NameColumn, .following = &syncing_});
  connectActorView(workers_, this, selection_, control_, {.following = &syncing_});
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { showDetails(); });
  connect(selection_, &ActorSelection::changed, this, &FactoriesView::followSelection);
}

ActorId FactoriesView::currentFactory() const {
  const QModelIndex current = table_->currentIndex();
  return current.isValid() ? current.data(ActorIdRole).value<ActorId>() : ActorId{};
}

void FactoriesView::followSelection(ActorId id) {
  const int row = model_->rowOf(id);
  if (row < 0) return;  // a worker or another actor: the factory shown stays
  const QModelIndex at = proxy_->mapFromSource(model_->index(row, 0));
  if (!at.isValid() || at.row() == table_->currentIndex().row()) return;
  syncing_ = true;
  table_->setCurrentIndex(at);
  syncing_ = false;
}

void FactoriesView::setState(const observe::SystemState& state) {
  state_ = &state;
  model_->update(state);
  std::size_t alive = 0;
  for (const auto& [id, f] : state.factories())
    if (const observe::ActorRecord* a = state.actor(id); a == nullptr || a->alive()) ++alive;
  summary_->setText(QStringLiteral("%1 running").arg(alive));
  stack_->setCurrentIndex(state.factories().empty() ? 0 : 1);
  if (!table_->currentIndex().isValid() && proxy_->rowCount() > 0) {
    // The selected actor's factory if it is one, else the first row.
    const int row = model_->rowOf(selection_->current());
    syncing_ = true;
    table_->setCurrentIndex(row >= 0 ? proxy_->mapFromSource(model_->index(row, 0)) : proxy_->index(0, 0));
    syncing_ = false;
  }
  showDetails();
}

void FactoriesView::showDetails() {
  shown_ = currentFactory();
  const observe::FactoryRecord* f = state_ != nullptr && shown_.is_valid() ? state_->factory(shown_) : nullptr;
  if (f == nullptr) {
    settings_->clear();
    queueLine_->setValues({}, 2);
    busyLine_->setValues({}, 2);
    latency_->setHistogram({});
    workers_->clear();
    workerItems_.clear();
    for (int r = 0; r < discards_->rowCount(); ++r)
      for (int c = 1; c < 3; ++c) discards_->item(r, c)->setText(QStringLiteral("0"));
    return;
  }
  const observe::SystemState& state = *state_;
  settings_->setText(settingsText(*f));

  // Charts: one slot per history bucket, as the inspector's; a bucket without a sample keeps the
  // gauge it had (a sample comes every poll while the factory lives).
  const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(state.limits().history_bucket));
  const int slotCount = static_cast<int>(std::max<std::size_t>(2, state.limits().history_points));
  std::int64_t last = observe::to_ns(state.time()) / bucketNs;
  if (f->history.empty() || f->history.back().bucket < last) --last;
  const std::int64_t first = last - slotCount + 1;
  QVector<double> queue, busy;
  double q = 0, b = 0;
  auto it = f->history.begin();
  std::int64_t born = first;
  if (!f->history.empty()) born = std::max(first, f->history.front().bucket);
  for (std::int64_t bucket = born; bucket <= last; ++bucket) {
    while (it != f->history.end() && it->bucket < bucket) ++it;
    if (it != f->history.end() && it->bucket == bucket) {
      q = static_cast<double>(std::max(it->queue_depth, it->queue_max));
      b = static_cast<double>(it->busy_workers);
    }
    queue.push_back(q);
    busy.push_back(b);
  }
  const QPalette pal = palette();
  queueLine_->setColor(warningColor(pal));
  queueLine_->setValues(queue, slotCount);
  busyLine_->setColor(healthColor(Health::running, pal));
  busyLine_->setValues(busy, slotCount);

  // Discards by reason, in all and lately.
  const std::int64_t recentFrom = (observe::to_ns(state.time()) - observe::to_ns(kRecentDiscards)) / bucketNs;
  for (int r = 0; r < static_cast<int>(kDiscardReasonCount); ++r) {
    std::uint64_t recent = 0;
    for (const auto& h : f->history)
      if (h.bucket > recentFrom) recent += h.discarded[static_cast<std::size_t>(r)];
    const std::uint64_t all = f->discarded(static_cast<DiscardReason>(r));
    discards_->item(r, 1)->setText(QString::number(all));
    discards_->item(r, 2)->setText(QString::number(recent));
    const QColor color = recent != 0 ? warningColor(pal) : pal.color(QPalette::Text);
    discards_->item(r, 2)->setForeground(color);
  }

  latency_->setHistogram(f->latency());

  // Workers: the factory actor's children (rebuilt only when they change, so the current item stays).
  std::vector<std::pair<ActorId, QString>> items;
  if (const observe::ActorRecord* a = state.actor(shown_)) {
    for (ActorId kid : a->children) {
      const observe::ActorRecord* w = state.actor(kid);
      if (w == nullptr) continue;
      QString text = QString::fromStdString(displayName(*w)) + QStringLiteral("  ") + formatActorId(kid);
      if (!w->alive()) text += QStringLiteral("  (stopped)");
      for (const auto& s : f->recent_stuck)
        if (s.worker == kid) text += s.killed ? QStringLiteral("  — stuck, killed") : QStringLiteral("  — stuck");
      items.emplace_back(kid, text);
    }
  }
  if (items != workerItems_) {
    const ActorId keep = workers_->currentItem() != nullptr ? workers_->currentItem()->data(ActorIdRole).value<ActorId>() : ActorId{};
    syncing_ = true;
    workers_->clear();
    for (const auto& [id, text] : items) {
      auto* item = new QListWidgetItem(text, workers_);
      item->setData(ActorIdRole, QVariant::fromValue(id));
      if (id == keep) workers_->setCurrentItem(item);
    }
    syncing_ = false;
    workerItems_ = std::move(items);
  }
}

void FactoriesView::resetSession() {
  state_ = nullptr;
  model_->clear();
  summary_->clear();
  stack_->setCurrentIndex(0);
  shown_ = {};
  workers_->clear();
  workerItems_.clear();
}

}  // namespace actorscope::views
