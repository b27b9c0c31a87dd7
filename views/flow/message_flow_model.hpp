// MessageFlowModel: the messages of the last seconds between a few actors, for a sequence chart.
// Lanes are the selected actor and its busiest partners, or (with no selection) the top talkers.
// A lane is an actor, a crowd of nameless actors of one type that each say too little for a lane
// of their own ("Drop ×312"), the timers (a timer's message comes from its timer), or code outside
// any actor; messages with an actor outside the lanes go to an "others" lane. Two actors with one
// name get lanes that say which is which ("worker-3", "worker-3 (2)"). Rows are the messages,
// oldest first, keyed by send time so that the window slides with inserts at the bottom and
// removals at the top. Message events are sampled by the session, so this is a sample.
#pragma once

#include "common/keyed_table_model.hpp"

#include <actorscope/observe/system_state.hpp>

#include <chrono>
#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
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
  std::uint64_t timer = 0;  ///< the timer that sent it (0: an actor, or code outside any actor)
  std::string timerText;    ///< "timer 12 (interval, every 20.0 ms)"
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
    enum class Kind {
      actor,    ///< one actor (`id`)
      crowd,    ///< the nameless actors of one type without a lane of their own (`members` of them)
      timers,   ///< timers firing: the messages they deliver
      outside,  ///< code outside any actor (a cast from main, the observatory's demo message)
      others,   ///< every actor without a lane of its own
    };
    Kind kind = Kind::actor;
    ActorId id{};
    /// What its header says: "worker-3", "worker-3 (2)" for a second live "worker-3", "Drop ×312".
    std::string name;
    std::size_t members = 1;
    bool operator==(const Lane&) const = default;
  };

  explicit MessageFlowModel(QObject* parent = nullptr);

  /// The actor whose traffic to show; an invalid id shows the top talkers.
  void setFocus(ActorId id) { focus_ = id; }
  ActorId focus() const noexcept { return focus_; }
  void setWindow(Duration window) { window_ = window; }
  Duration window() const noexcept { return window_; }
  /// Shows the messages sent in [from, to] instead of the window before the state's time (a replay's
  /// timeline zooms the chart to a range it selected); nullopt: the window again.
  void setRange(std::optional<std::pair<TimePoint, TimePoint>> range) { range_ = range; }
  const std::optional<std::pair<TimePoint, TimePoint>>& range() const noexcept { return range_; }
  void setMaxMessages(int n) { maxMessages_ = n; }
  int maxMessages() const noexcept { return maxMessages_; }
  void setMaxLanes(int n) { maxLanes_ = n; }

  void update(const observe::SystemState& state);
  /// Forgets the rows, the lanes and the highlighted messages.
  void reset();

  /// Messages (by trace) to draw emphasised, e.g. a chain of causes; empty for none. They stay
  /// highlighted whenever they are in the window, until replaced.
  void setHighlightedTraces(std::vector<std::uint64_t> traces);
  const std::vector<std::uint64_t>& highlightedTraces() const noexcept { return highlighted_; }
  bool isHighlighted(const FlowMessage& m) const noexcept;

  const std::vector<Lane>& lanes() const noexcept { return lanes_; }
  TimePoint origin() const noexcept { return origin_; }
  TimePoint now() const noexcept { return now_; }
  /// The lane of an actor in the last update (its own, its crowd's, or "others"), or -1.
  int laneOf(ActorId id) const;
  /// Messages in the window that matched the lanes, before the max-messages cut.
  std::size_t matched() const noexcept { return matched_; }

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 signals:
  void lanesChanged();
  void highlightChanged();

 private:
  /// What a lane stands for while lanes are chosen: an actor, a crowd (by type), timers, outside.
  struct Unit {
    Lane::Kind kind = Lane::Kind::actor;
    ActorId id{};
    std::string crowd;  ///< the type's short name ("" for actors that were forgotten)
    auto operator<=>(const Unit&) const = default;
  };
  /// The lanes' units for `window`, and the actors that go to a crowd's lane (in `crowdOf`).
  std::vector<Unit> chooseLanes(const observe::SystemState& state, const std::vector<const observe::MessageRecord*>& window,
                                std::map<ActorId, Unit>& crowdOf) const;

  ActorId focus_{};
  Duration window_ = std::chrono::seconds(5);
  std::optional<std::pair<TimePoint, TimePoint>> range_;
  int maxMessages_ = 400;
  int maxLanes_ = 8;
  std::vector<Lane> lanes_;
  std::vector<Unit> units_;  ///< what each lane of lanes_ stands for (but "others")
  std::map<ActorId, int> laneOfActor_;
  TimePoint origin_{};
  TimePoint now_{};
  std::size_t matched_ = 0;
  std::vector<std::uint64_t> highlighted_;  ///< sorted
};

}  // namespace actorscope::views
