// TimersModel: every active timer (send_interval, send_after, exit_after, kill_after): who owns
// it, whom it targets, its period, the time to its next fire, how often it fired and how late.
#pragma once

#include "common/keyed_table_model.hpp"

#include <actorscope/observe/system_state.hpp>

#include <string>

namespace actorscope::views {

struct TimerRow {
  std::uint64_t id = 0;
  ActorId target{};
  ActorId owner{};
  std::string targetName;
  std::string ownerName;
  std::string kind;
  Duration period{};
  Duration nextIn{};  ///< negative when overdue
  std::uint64_t fired = 0;
  std::uint64_t lateP50 = 0;  ///< ns
  std::uint64_t lateP99 = 0;
  std::uint64_t lateMax = 0;
  std::uint64_t key() const noexcept { return id; }
  bool operator==(const TimerRow&) const = default;
};

class TimersModel : public KeyedTableModel<TimerRow> {
  Q_OBJECT
 public:
  enum Column {
    IdColumn,
    TargetColumn,
    OwnerColumn,
    KindColumn,
    PeriodColumn,
    NextColumn,
    FiredColumn,
    LateP50Column,
    LateP99Column,
    LateMaxColumn,
    ColumnCount
  };

  explicit TimersModel(QObject* parent = nullptr);
  void update(const observe::SystemState& state);

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

/// "interval", "after", "exit after", "kill after": a timer kind as people say it.
QString timerKindText(const std::string& kind);

}  // namespace actorscope::views
