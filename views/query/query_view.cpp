// The Query dock: an editor, Run, Examples, the result table and a status line.
#include "query/query_view.hpp"

#include "common/format.hpp"
#include "common/health.hpp"

#include <actorscope/storage/session_reader.hpp>

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPromise>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>

namespace actorscope::views {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

/// Columns that hold an actor id (the pid of the recording's actor_id), most telling first.
constexpr std::array<std::string_view, 6> kActorColumns{"actor_id", "handler", "sender", "peer_id", "parent_id", "actor"};
/// Columns that hold a time on the runtime clock, in nanoseconds (durations such as queue_ns are not).
constexpr std::array<std::string_view, 7> kTimeColumns{"t_ns",       "bucket_ns",   "spawned_ns", "stopped_ns",
                                                       "scheduled_ns", "start_t_ns", "end_t_ns"};

bool is_actor_column(std::string_view name) {
  return std::any_of(kActorColumns.begin(), kActorColumns.end(), [&](std::string_view c) { return same_name(c, name); });
}
bool is_time_column(std::string_view name) {
  return std::any_of(kTimeColumns.begin(), kTimeColumns.end(), [&](std::string_view c) { return same_name(c, name); });
}

std::optional<std::int64_t> as_integer(const QueryValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v); d != nullptr && std::isfinite(*d)) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}
std::optional<double> as_real(const QueryValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v); d != nullptr && std::isfinite(*d)) return *d;
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// QueryResultModel

QueryResultModel::QueryResultModel(QObject* parent) : QAbstractTableModel(parent) {}

void QueryResultModel::setResult(QueryResult result) {
  beginResetModel();
  result_ = std::move(result);
  endResetModel();
}

void QueryResultModel::clear() { setResult({}); }

int QueryResultModel::column(std::string_view name) const {
  for (std::size_t c = 0; c < result_.columns.size(); ++c)
    if (same_name(result_.columns[c], name)) return static_cast<int>(c);
  return -1;
}

int QueryResultModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(result_.rows.size());
}

int QueryResultModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(result_.columns.size());
}

QVariant QueryResultModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const QueryValue& v = result_.rows[static_cast<std::size_t>(index.row())][static_cast<std::size_t>(index.column())];
  switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
      return std::visit(
          [](const auto& x) -> QVariant {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::monostate>)
              return QStringLiteral("NULL");
            else if constexpr (std::is_same_v<T, std::int64_t>)
              return QString::number(x);
            else if constexpr (std::is_same_v<T, double>)
              return QString::number(x, 'g', 10);
            else if constexpr (std::is_same_v<T, std::string>)
              return QString::fromStdString(x);
            else
              return QStringLiteral("(blob, %1 bytes)").arg(x.bytes);
          },
          v);
    case Qt::TextAlignmentRole:
      if (std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (std::holds_alternative<std::monostate>(v) || std::holds_alternative<QueryBlob>(v))
        return QPalette().color(QPalette::PlaceholderText);
      return {};
    default:
      return {};
  }
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  if (section < 0 || section >= columnCount()) return {};
  return QString::fromStdString(result_.columns[static_cast<std::size_t>(section)]);
}

// ---------------------------------------------------------------------------------------------
// QueryView

QueryView::QueryView(ActorSelection* selection, QWidget* parent)
    : QWidget(parent),
      selection_(selection),
      editor_(new QPlainTextEdit(this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      examplesButton_(new QToolButton(this)),
      examples_(new QMenu(this)),
      table_(new QTableView(this)),
      model_(new QueryResultModel(this)),
      status_(new QLabel(this)),
      watcher_(new QFutureWatcher<Outcome>(this)) {
  editor_->setObjectName(QStringLiteral("query-editor"));
  editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  editor_->setPlaceholderText(
      tr("SELECT kind, count(*) FROM events WHERE session_id = 1 GROUP BY kind\n\n"
         "Read-only SQL over the open recording (tables: docs/RECORDING-FORMAT.md). Ctrl+Enter runs it."));
  editor_->setTabChangesFocus(true);
  run_->setObjectName(QStringLiteral("query-run"));
  run_->setToolTip(tr("Run the statement (Ctrl+Enter)"));
  cancel_->setObjectName(QStringLiteral("query-cancel"));
  cancel_->setToolTip(tr("Stop the statement that runs"));
  examplesButton_->setText(tr("Examples"));
  examplesButton_->setObjectName(QStringLiteral("query-examples"));
  examplesButton_->setPopupMode(QToolButton::InstantPopup);
  examplesButton_->setMenu(examples_);
  examplesButton_->setToolTip(tr("The example queries of the recording format's documentation"));
  table_->setObjectName(QStringLiteral("query-results"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setStretchLastSection(true);
  status_->setObjectName(QStringLiteral("query-status"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // The examples, in the page's order. Each one fills the editor (for the open session) and runs.
  int n = 0;
  for (const ExampleQuery& example : example_queries()) {
    QAction* a = examples_->addAction(QString::fromStdString(example.title));
    a->setObjectName(QStringLiteral("example-%1").arg(n++));
    a->setToolTip(QString::fromStdString(example.sql));
    const std::string sql = example.sql;
    connect(a, &QAction::triggered, this, [this, sql] {
      editor_->setPlainText(QString::fromStdString(for_session(sql, session_)));
      run();
    });
  }
  examples_->setToolTipsVisible(true);

  auto* buttons = new QHBoxLayout;
  buttons->setContentsMargins(0, 0, 0, 0);
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(examplesButton_);
  buttons->addStretch(1);
  auto* top = new QWidget(this);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(editor_);
  topLayout->addLayout(buttons);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(table_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split, 1);
  layout->addWidget(status_);

  connect(run_, &QPushButton::clicked, this, &QueryView::run);
  connect(cancel_, &QPushButton::clicked, this, &QueryView::cancel);
  for (const auto key : {Qt::Key_Return, Qt::Key_Enter}) {
    auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | key), this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, &QueryView::run);
  }
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) { activateRow(index.row(), index.column()); });
  connect(watcher_, &QFutureWatcher<Outcome>::finished, this, &QueryView::showOutcome);

  clearRecording();
}

QueryView::~QueryView() { stopWorker(); }

void QueryView::stopWorker() {
  ++generation_;
  if (!worker_.joinable()) return;
  if (cancelFlag_) *cancelFlag_ = true;
  worker_.join();
}

void QueryView::setRecording(const std::filesystem::path& file, std::int64_t session, TimePoint sessionStart) {
  stopWorker();
  query_.reset();
  model_->clear();
  session_ = session;
  sessionStart_ = sessionStart;
  try {
    query_ = std::make_shared<const RecordingQuery>(file);
    status_->setText(tr("Read-only SQL over %1, session %2. Try the Examples.")
                         .arg(QString::fromStdString(file.filename().string()))
                         .arg(session));
  } catch (const RecordingError& e) {
    status_->setText(QString::fromUtf8(e.what()));
  }
  lastError_.clear();
  updateButtons();
}

void QueryView::setRecording(const SessionReader& reader, std::int64_t session) {
  std::optional<TimePoint> start;
  try {
    start = reader.session(session).start_time;
  } catch (const RecordingError&) {
    // No such session (yet): the queries still run; only at_s cannot become a time.
  }
  setRecording(reader.file(), session, TimePoint{});
  sessionStart_ = start;
}

void QueryView::clearRecording() {
  stopWorker();
  query_.reset();
  sessionStart_.reset();
  model_->clear();
  lastError_.clear();
  status_->setText(tr("No recording is open: open one (File → Open Recording…) to query it."));
  updateButtons();
}

void QueryView::updateButtons() {
  const bool running = worker_.joinable();
  run_->setEnabled(query_ != nullptr && !running);
  cancel_->setEnabled(running);
  examplesButton_->setEnabled(query_ != nullptr && !running);
}

void QueryView::run() {
  if (!query_ || worker_.joinable()) return;
  const std::string sql = editor_->toPlainText().toStdString();
  status_->setText(tr("Running…"));
  QPromise<Outcome> promise;
  watcher_->setFuture(promise.future());
  promise.start();
  // The worker owns a reference to the connection and to its cancel flag: a new recording opened
  // meanwhile waits for it (stopWorker cancels it first).
  const std::uint64_t generation = ++generation_;
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  worker_ = std::thread([promise = std::move(promise), query = query_, sql, rows = maxRows_, generation,
                         cancel = cancelFlag_]() mutable {
    Outcome outcome;
    outcome.generation = generation;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      outcome.result = query->run(sql, QueryOptions{.max_rows = rows, .cancel = cancel.get()});
    } catch (const QueryError& e) {
      outcome.error = QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
      outcome.error = QString::fromUtf8(e.what());
    }
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    promise.addResult(std::move(outcome));
    promise.finish();
  });
  updateButtons();
}

void QueryView::cancel() {
  if (worker_.joinable() && cancelFlag_) *cancelFlag_ = true;
}

void QueryView::showOutcome() {
  if (worker_.joinable()) worker_.join();
  const QFuture<Outcome> future = watcher_->future();
  if (future.resultCount() > 0 && future.result().generation == generation_) {
    Outcome outcome = future.result();
    lastError_ = outcome.error;
    if (outcome.result) {
      const std::size_t rows = outcome.result->rows.size();
      const bool truncated = outcome.result->truncated;
      model_->setResult(std::move(*outcome.result));
      table_->resizeColumnsToContents();
      QString text = rows == 1 ? tr("1 row") : tr("%1 rows").arg(QLocale().toString(static_cast<qulonglong>(rows)));
      text += tr(" in %1").arg(formatNanos(static_cast<std::uint64_t>(outcome.seconds * 1e9)));
      if (truncated)
        text += tr(" — stopped at the limit of %1 rows: narrow it with WHERE or LIMIT")
                    .arg(QLocale().toString(static_cast<qulonglong>(maxRows_)));
      status_->setText(text);
      status_->setStyleSheet({});
    } else {
      // The last good result stays in the table; the line under it says what went wrong.
      status_->setText(outcome.error);
      status_->setStyleSheet(QStringLiteral("color: %1").arg(errorColor(palette()).name()));
    }
  }
  updateButtons();
  emit finished();
}

QString QueryView::statusText() const { return status_->text(); }

void QueryView::activateRow(int row, int column) {
  const QueryResult& r = model_->result();
  if (row < 0 || static_cast<std::size_t>(row) >= r.rows.size()) return;
  const auto& values = r.rows[static_cast<std::size_t>(row)];
  // The clicked cell when it is an actor's or a time's; otherwise the row's first such column.
  auto pick = [&](auto&& is_kind) -> int {
    if (column >= 0 && static_cast<std::size_t>(column) < r.columns.size() &&
        is_kind(r.columns[static_cast<std::size_t>(column)]) && as_integer(values[static_cast<std::size_t>(column)]))
      return column;
    for (std::size_t c = 0; c < r.columns.size(); ++c)
      if (is_kind(r.columns[c]) && as_integer(values[c])) return static_cast<int>(c);
    return -1;
  };
  if (selection_ != nullptr) {
    const int a = pick([](std::string_view n) { return is_actor_column(n); });
    if (a >= 0) {
      const std::int64_t pid = *as_integer(values[static_cast<std::size_t>(a)]);
      if (pid > 0) selection_->select(ActorId{0, static_cast<std::uint64_t>(pid)});
    }
  }
  const int t = pick([](std::string_view n) { return is_time_column(n); });
  if (t >= 0) {
    emit timeRequested(TimePoint(std::chrono::nanoseconds(*as_integer(values[static_cast<std::size_t>(t)]))));
    return;
  }
  // "at_s": seconds into the session, as the examples write times.
  const int at = model_->column("at_s");
  if (at >= 0 && sessionStart_) {
    if (const auto seconds = as_real(values[static_cast<std::size_t>(at)]))
      emit timeRequested(*sessionStart_ + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(*seconds)));
  }
}

}  // namespace actorscope::views
