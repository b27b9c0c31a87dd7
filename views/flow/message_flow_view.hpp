// MessageFlowView: a sequence chart (Erlang et style) of the messages of the last seconds: one
// lifeline per actor, one arrow per message from sender to receiver with its type name, newest at
// the bottom. It follows the selected actor (its partners around it) or shows the top talkers.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QAbstractScrollArea>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;

namespace actorscope::views {

class MessageFlowModel;

/// The chart itself; it draws the rows and lanes of a MessageFlowModel.
class SequenceChart : public QAbstractScrollArea {
  Q_OBJECT
 public:
  SequenceChart(MessageFlowModel* model, ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  /// Lane centre (viewport x) of lane `i`.
  double laneX(int lane) const;
  int laneAt(const QPoint& viewportPos) const;
  int rowAt(const QPoint& viewportPos) const;

  static constexpr int kHeaderH = 42;
  static constexpr int kRowH = 24;
  static constexpr int kGutter = 76;

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  bool viewportEvent(QEvent*) override;
  void contextMenuEvent(QContextMenuEvent*) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void modelChanged();
  void updateScrollBar();

  MessageFlowModel* model_;
  ActorSelection* selection_;
  ActorControl* control_;
  bool follow_ = true;
};

class MessageFlowView : public QWidget, public StateView {
  Q_OBJECT
 public:
  MessageFlowView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;
  /// Zooms the chart to the messages sent in [from, to] (a replay's selected range); nullopt: back
  /// to the window before the state's time.
  void setTimeRange(std::optional<std::pair<TimePoint, TimePoint>> range);
  /// Centres the chart on a replay's cursor: the messages of the window around it, scrolled to it.
  void setFocusTime(std::optional<TimePoint> t) override { focusTime_ = t; }
  MessageFlowModel* model() const noexcept { return model_; }
  /// Draws these messages (by trace) emphasised, e.g. a chain of causes (CauseChainView's
  /// highlightRequested); empty for none.
  void setHighlightedTraces(std::vector<std::uint64_t> traces);
  SequenceChart* chart() const noexcept { return chart_; }

 private:
  void refresh();

  /// The narrowest lane: "team-a/worker-2" and its id fit.
  static constexpr int kMinLaneWidth = 118;

  ActorSelection* selection_;
  MessageFlowModel* model_;
  SequenceChart* chart_;
  QComboBox* mode_;
  QComboBox* window_;
  QLabel* summary_;
  const observe::SystemState* state_ = nullptr;
  std::optional<std::pair<TimePoint, TimePoint>> userRange_;  ///< a range the user selected (timeline)
  std::optional<TimePoint> focusTime_;
};

}  // namespace actorscope::views
