// MessageFlowModel: the messages of the last seconds between a few actors, for a sequence chart.
// Lanes are the selected actor and its busiest partners, or (with no selection) the top talkers;
// messages with an actor outside the lanes go to an "others" lane. Rows are the messages, oldest
// first, keyed by send time so that the window slides with inserts at the bottom and removals at
// the top. Message events are sampled by the session, so this is a sample of the traffic.
#pragma once

#include "common/keyed_table_model.hpp"

#include <actorscope/observe/system_state.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace actorscope::views {

struct FlowMessage {
  TimePoint sent{};
  std::uint64_t trace = 0;
  ActorId from{};
  ActorId to{};
  std::string_view type;
  std::optional<TimePoint> handled;
  Duration queue{};
  Duration handling{};
  bool failed = false;
  int fromLane = 0;
  int toLane = 0;
  auto key() const noexcept { return std::tuple(sent, trace, from, to); }
  bool operator==(const FlowMessage&) const = default;
};

class MessageFlowModel : public KeyedTableModel<FlowMessage> {
  Q_OBJECT
 public:
  enum Column { TimeColumn, FromColumn, ToColumn, TypeColumn, QueueColumn, HandlingColumn, ColumnCount };

  struct Lane {
    ActorId id{};  ///< invalid: "outside" (sends from non-actor code); kOthers: everyone else
    std::string name;
    bool operator==(const Lane&) const = default;
  };
  static constexpr ActorId kOthers{0xffffffffu, ~std::uint64_t{0}};

  explicit MessageFlowModel(QObject* parent = nullptr);

  /// The actor whose traffic to show; an invalid id shows the top talkers.
  void setFocus(ActorId id) { focus_ = id; }
  ActorId focus() const noexcept { return focus_; }
  void setWindow(Duration window) { window_ = window; }
  Duration window() const noexcept { return window_; }
  void setMaxMessages(int n) { maxMessages_ = n; }
  void setMaxLanes(int n) { maxLanes_ = n; }

  void update(const observe::SystemState& state);
  void reset();

  const std::vector<Lane>& lanes() const noexcept { return lanes_; }
  TimePoint origin() const noexcept { return origin_; }
  TimePoint now() const noexcept { return now_; }
  /// Messages in the window that matched the lanes, before the max-messages cut.
  std::size_t matched() const noexcept { return matched_; }

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 signals:
  void lanesChanged();

 private:
  std::vector<ActorId> chooseLanes(const std::vector<const observe::MessageRecord*>& window) const;

  ActorId focus_{};
  Duration window_ = std::chrono::seconds(5);
  int maxMessages_ = 400;
  int maxLanes_ = 8;
  std::vector<Lane> lanes_;
  TimePoint origin_{};
  TimePoint now_{};
  std::size_t matched_ = 0;
};

}  // namespace actorscope::views
