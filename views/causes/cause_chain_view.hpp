// CauseChainView: "why did this actor fail?" over a recording. For a failed (or killed) actor it
// lists SessionReader::cause_chain: the message whose handling threw, with the failure text, then
// the message its sender was handling when it sent it, and so on back; and under the list, where
// the chain stops and why (a message from outside, a send from post_start, a message that was not
// sampled, a recording that keeps no causes). Clicking a hop asks the replay to move its cursor
// there and to select the hop's actor; the chain's messages are offered to the message flow chart
// to highlight (highlightRequested).
#pragma once

#include "common/actor_selection.hpp"

#include <actorscope/runtime.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <QWidget>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace actorscope::views {

class CauseChainView : public QWidget {
  Q_OBJECT
 public:
  enum Column { HopColumn, TimeColumn, HandlerColumn, TypeColumn, SenderColumn, NoteColumn, ColumnCount };

  /// `selection` gives "the selected actor" to the button that explains it (may be null).
  explicit CauseChainView(ActorSelection* selection, QWidget* parent = nullptr);

  /// The recording to explain: `reader` must outlive the view or be replaced (nullptr: none).
  void setReader(const SessionReader* reader, std::int64_t session);
  /// Explains why `actor` ended as it did (a RecordingError is shown in the view, not thrown).
  void showActor(ActorId actor);
  /// Explains the selected actor.
  void showSelectedActor();
  void clear();

  /// The chain shown, if any.
  const std::optional<CauseChain>& chain() const noexcept { return chain_; }
  /// The traces of the chain's messages, first hop first (what highlightRequested carries).
  std::vector<std::uint64_t> traces() const;
  QTreeWidget* list() const noexcept { return list_; }
  QString headline() const;
  QString explanation() const;
  /// Acts as a click on hop `hop` would.
  void activateHop(int hop);
  /// How many hops back cause_chain goes.
  void setMaxHops(std::size_t hops) { maxHops_ = hops; }

 signals:
  /// The replay cursor should move to `t` (when the hop's message was handled).
  void timeRequested(actorscope::TimePoint t);
  /// The hop's handler should be selected.
  void actorRequested(actorscope::ActorId actor);
  /// The message flow chart should emphasise these messages (empty: none).
  void highlightRequested(const std::vector<std::uint64_t>& traces);

 private:
  QString actorText(ActorId id) const;

  ActorSelection* selection_;
  const SessionReader* reader_ = nullptr;
  std::int64_t session_ = 0;
  TimePoint start_{};
  std::map<ActorId, ActorInfo> actors_;
  std::optional<CauseChain> chain_;
  std::size_t maxHops_ = 16;

  QLabel* headline_;
  QPushButton* explainSelected_;
  QTreeWidget* list_;
  QLabel* explanation_;
};

}  // namespace actorscope::views
