// ActorInspector: everything about the selected actor on one scrolling page: status, supervisor
// and children (as links), groups, registered name, timers, figures, mailbox and throughput
// sparklines, queue- and handling-time histograms with percentiles, and recent failures.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"
#include "inspector/actor_details.hpp"

#include <QWidget>

#include <optional>

class QGridLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QStackedWidget;

namespace actorscope::views {

class HistogramWidget;
class Sparkline;

class ActorInspector : public QWidget, public StateView {
  Q_OBJECT
 public:
  ActorInspector(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;

  /// A line above the histograms about how they are measured ("" for none): the live session
  /// says when timing is paused.
  void setTimingNote(const QString& note);

  /// What is shown now (nullopt: nothing selected or the actor is unknown).
  const std::optional<ActorDetails>& details() const noexcept { return details_; }

  /// Offers "Why did it fail?" for a failed or killed actor (a replay, whose recording can follow
  /// a failure back through the messages). Off by default.
  void setExplainable(bool on);

 signals:
  /// The user asked why `actor` failed (or was killed).
  void explainRequested(actorscope::ActorId actor);

 protected:
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refresh();
  /// Puts the four figures in one row, or in two rows when the page is too narrow for one.
  void arrangeTiles();
  void render(const ActorDetails& d);
  QString link(const ActorDetails::Link& l) const;

  ActorSelection* selection_;
  ActorControl* control_;
  const observe::SystemState* state_ = nullptr;
  std::optional<ActorDetails> details_;

  QStackedWidget* stack_;
  QLabel* empty_;
  QLabel* title_;
  QLabel* subtitle_;
  QLabel* status_;
  QLabel* facts_;
  QWidget* page_ = nullptr;
  QGridLayout* tileGrid_ = nullptr;
  int tileColumns_ = 0;
  QLabel* tiles_[4];
  QLabel* tileCaptions_[4];
  Sparkline* mailboxLine_;
  Sparkline* rateLine_;
  QLabel* timingNote_;
  HistogramWidget* queueHist_;
  HistogramWidget* handlingHist_;
  QLabel* failuresTitle_;
  QLabel* failures_;
  QPushButton* explain_;
  bool explainable_ = false;
};

}  // namespace actorscope::views
