// EventLogModel: the lifecycle and supervision events the state keeps (spawns, exits, failures,
// links, supervision, groups, names, timers), oldest first. It only ever appends new events at the
// bottom and drops the oldest at the top, as the state's window moves.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <QAbstractTableModel>

#include <deque>
#include <string>

namespace actorscope::views {

/// What the event log's filter offers, one bit each.
enum class EventCategory : int {
  lifecycle = 1,    ///< spawned, started, stopped, killed
  failure = 2,      ///< failed
  supervision = 4,  ///< linked, unlinked, supervision delivered
  groups = 8,
  names = 16,
  timers = 32,
  runtime = 64,
  all = 127,
};
EventCategory categoryOf(observe::EventKind kind);

class EventLogModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { TimeColumn, KindColumn, ActorColumn, PeerColumn, DetailColumn, ColumnCount };

  explicit EventLogModel(QObject* parent = nullptr);

  void update(const observe::SystemState& state);
  void clear();
  /// The time of row `row` (0 <= row < rowCount()).
  TimePoint timeAt(int row) const { return rows_[static_cast<std::size_t>(row)].time; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    std::uint64_t seq = 0;
    TimePoint time{};
    observe::EventKind kind{};
    ActorId actor{};
    ActorId peer{};
    std::string actorName;
    std::string peerName;
    std::string detail;
  };
  Row rowFor(const observe::SystemState& state, const observe::Event& e) const;

  std::deque<Row> rows_;
  TimePoint origin_{};
};

}  // namespace actorscope::views
