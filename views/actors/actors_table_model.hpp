// ActorsTableModel: every actor in one sortable table (the Erlang observer's process list, with
// timing): mailbox depth (against its capacity when bounded), messages per second, p99 handling
// time, failures, what a bounded mailbox dropped or rejected... It sorts and filters
// itself, because a proxy re-sorting 10,000 changing rows row by row costs far more than one sort
// and one layoutChanged per update; persistent indexes (the selection) follow their actors.
#pragma once

#include "common/health.hpp"

#include <actorscope/observe/system_state.hpp>

#include <QAbstractTableModel>

#include <string>
#include <unordered_map>
#include <vector>

namespace actorscope::views {

class ActorsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// The figures people sort by come first; identity details last.
  enum Column {
    NameColumn,
    IdColumn,
    StatusColumn,
    MailboxColumn,
    RateColumn,
    HandlingP99Column,
    QueueP99Column,
    FailuresColumn,
    DroppedColumn,
    RejectedColumn,
    HandledColumn,
    SentColumn,
    MailboxMaxColumn,
    ChildrenColumn,
    ThreadColumn,
    TypeColumn,
    ColumnCount
  };
  static bool isNumeric(int column) { return column >= MailboxColumn && column <= ThreadColumn; }

  explicit ActorsTableModel(QObject* parent = nullptr);

  void update(const observe::SystemState& state);
  void clear();

  /// Case-insensitive text matched against name, type and id. Refilters from the last update.
  void setFilterText(const QString& text);
  /// Whether stopped actors are listed, greyed (default: no, like a process list).
  void setShowStopped(bool show);
  bool showStopped() const noexcept { return showStopped_; }

  int rowOf(ActorId id) const;
  ActorId actorAt(int row) const;
  int sortColumn() const noexcept { return sortColumn_; }
  Qt::SortOrder sortOrder() const noexcept { return sortOrder_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

 private:
  /// Which of the shared actor-cell rules (actorCellData) a column follows.
  static ActorCell cellOf(int column);
  /// Strings that identify an actor: made once per actor, not on every update.
  struct Identity {
    std::string name;  ///< registered name ("" if none)
    std::string type;
    std::string shortType;
    std::string shown;  ///< what the Actor column says: the name, or the short type
    std::size_t nameLength = 0;
  };
  struct Row {
    ActorId id{};
    const Identity* identity = nullptr;
    Health health = Health::starting;
    std::uint32_t thread = 0;
    std::uint64_t mailbox = 0;
    std::uint64_t mailboxMax = 0;
    std::uint32_t capacity = 0;  ///< 0: an unbounded mailbox
    Overflow overflow = Overflow::reject;
    std::uint64_t dropped = 0;
    std::uint64_t rejected = 0;
    double rate = 0;
    std::uint64_t handled = 0;
    std::uint64_t sent = 0;
    std::uint64_t queueP99 = 0;     ///< ns; 0 without timing samples
    std::uint64_t handlingP99 = 0;  ///< ns
    std::uint64_t timedCount = 0;   ///< timed samples behind the percentiles
    std::uint64_t failures = 0;
    std::size_t children = 0;
    bool operator==(const Row&) const = default;
  };

  Row rowFor(const observe::SystemState& state, const observe::ActorRecord& a, const Row* previous);
  const Identity& identityOf(const observe::ActorRecord& a);
  bool accepts(const Row& row) const;
  /// Re-sorts rows_ and emits one layout change if the order moved.
  void applySort();
  bool lessThan(const Row& a, const Row& b) const;
  QVariant sortValue(const Row& r, int column) const;

  /// Every actor of the last update. Entries are updated in place (node-based map: pointers to
  /// them stay valid), so 10,000 rows are not copied on every update.
  struct Entry {
    Row row;
    std::uint64_t generation = 0;
    bool changed = false;
    int index = -1;  ///< its row in rows_, or -1 when filtered out
  };
  std::unordered_map<ActorId, Entry> all_;
  std::vector<Entry*> rows_;                  ///< the visible rows, in display order
  std::uint64_t generation_ = 0;
  void reindex();
  std::unordered_map<ActorId, Identity> identities_;
  QString filter_;
  bool showStopped_ = false;
  int sortColumn_ = -1;
  Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

}  // namespace actorscope::views
