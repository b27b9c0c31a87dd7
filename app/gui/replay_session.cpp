// A recorded session read back: the state at a cursor, coalesced cursor moves, and following a
// session that is still being written.
#include "gui/replay_session.hpp"

#include "common/format.hpp"
#include "gui/heap_reserve.hpp"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <utility>
#include <map>
#include <set>

namespace actorscope::gui {
namespace {

QString escaped(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

}  // namespace

ReplaySession::ReplaySession(const QString& file, std::int64_t session, QObject* parent)
    : Session(parent), file_(file) {
  reader_ = std::make_unique<SessionReader>(std::filesystem::path(file.toStdString()));
  info_ = reader_->session(session);  // throws no_such_session
  following_ = !info_.ended_cleanly() &&
               std::chrono::system_clock::now() - info_.updated_at < kFollowRecency;
  // A followed session opens at its tail, where the program is now; a finished one at its start,
  // where the story begins.
  atTail_ = following_;
  cursor_ = following_ ? info_.end_time : info_.start_time;
  keepFreedHeap();
  computeState();
  QTimer::singleShot(0, this, &ReplaySession::warmUp);
  followTimer_.setInterval(100);
  connect(&followTimer_, &QTimer::timeout, this, &ReplaySession::poll);
  // A session without an end is rechecked even when its writer looks gone: it may only be slow.
  if (!info_.ended_cleanly()) followTimer_.start();
}

ReplaySession::~ReplaySession() = default;

QString ReplaySession::title() const {
  return QStringLiteral("%1 · session %2 (replay)").arg(QFileInfo(file_).fileName()).arg(info_.id);
}

QString ReplaySession::banner() const {
  const QString what = !info_.scenario.empty()
                           ? QStringLiteral("scenario <b>%1</b>").arg(escaped(info_.scenario))
                           : QStringLiteral("a program's own recording");
  QString detail = QString::fromUtf8(to_string(info_.detail).data(), static_cast<int>(to_string(info_.detail).size()));
  if (info_.detail == Detail::sampled) detail += QStringLiteral(" (1 message in %1)").arg(info_.sample_every);
  QString ending;
  if (info_.ended_cleanly())
    ending = QStringLiteral("ended cleanly");
  else if (following_)
    ending = QStringLiteral("<b>still being written</b> — following it");
  else
    ending = QStringLiteral("<b>did not end cleanly</b> (its program stopped without closing it)");
  return QStringLiteral("<b>REPLAY</b> of <b>%1</b> · session %2 · %3 · %4, %5 threads · detail %6 · %7 · %8")
      .arg(QFileInfo(file_).fileName().toHtmlEscaped())
      .arg(info_.id)
      .arg(what, escaped(info_.runtime))
      .arg(info_.threads)
      .arg(detail, views::formatDuration(info_.duration()), ending);
}

void ReplaySession::setCursor(TimePoint t) {
  t = std::clamp(t, info_.start_time, info_.end_time);
  atTail_ = following_ && t >= info_.end_time;
  if (t == cursor_ && !pending_) return;
  cursor_ = t;
  emit cursorChanged(t);
  if (pending_) return;  // the scheduled computation will take the latest cursor
  pending_ = true;
  QTimer::singleShot(0, this, [this] {
    if (pending_) computeState();
  });
}

void ReplaySession::setCursorNow(TimePoint t) {
  t = std::clamp(t, info_.start_time, info_.end_time);
  atTail_ = following_ && t >= info_.end_time;
  const bool moved = t != cursor_;
  cursor_ = t;
  if (moved) emit cursorChanged(t);
  computeState();
}

void ReplaySession::computeState() {
  pending_ = false;
  QElapsedTimer timer;
  timer.start();
  // The states the last step replaced go first, so that this one's is made in their memory: no
  // view has them (the last step's refresh gave every view the state it showed, or reset it).
  retired_.clear();
  std::vector<std::unique_ptr<observe::SystemState>> retiring;
  // Forward and not far: fold what came in between onto the state at the last place (no keyframe
  // to decode, and, unless the cursor's state has a rest, nothing copied), as a live session folds.
  // Far (the keyframe before the cursor is more than a keyframe's decoding past that place) or
  // backward: from the keyframe.
  bool complete = false, folded = false;
  // base_ may hold the last step's rest, applied in place: take it back first (it is at point_).
  if (base_ && undoPending_) {
    base_->undo(undo_);
    undoPending_ = false;
  }
  if (base_ && pointValid_ && cursor_ >= point_.reach) {
    try {
      if (reader_->advance_is_cheaper(info_.id, *base_, point_, cursor_)) {
        complete = reader_->advance(info_.id, *base_, point_, cursor_);
        folded = true;
        // Then moved to a new object (the records stay where they are: a map's nodes move with
        // it), so that every step still gives the views a state at a new address.
        auto moved = std::make_unique<observe::SystemState>(std::move(*base_));
        retiring.push_back(std::move(base_));
        base_ = std::move(moved);
      }
    } catch (const RecordingError&) {
      // base_ may be part of the way there: it is made again below, from a keyframe.
      pointValid_ = false;
    }
  }
  if (!folded) {
    // A new object, distinct from the last one shown, so that a view's cache keyed on the state's
    // address (the tree's record pointers) cannot take the new state for the old one.
    auto fresh = std::make_unique<observe::SystemState>();
    SessionReader::FoldPoint point;
    try {
      complete = reader_->prefix_at(info_.id, cursor_, *fresh, point);
    } catch (const RecordingError& e) {
      if (shown_ == nullptr) throw;  // opening: the caller reports it
      // What is shown stays. (When a failed fold broke base_ and it is what is shown, it is still
      // the fold of the recording up to some place before the cursor; it is made again next time.)
      emit readFailed(QString::fromUtf8(e.what()));
      return;
    }
    retiring.push_back(std::move(base_));
    base_ = std::move(fresh);
    point_ = point;
    pointValid_ = true;
  }
  // The state at the cursor: the one at the place, or a copy of it with the rest folded on.
  lastCopied_ = !complete;
  lastRest_ = !complete;
  if (complete) {
    retiring.push_back(std::move(tailed_));
    shown_ = base_.get();
  } else {
    // A rest of polls only is applied onto base_ itself and taken back at the next step (a few
    // counters per sample); a rest with events is folded onto a copy.
    bool inPlace = false;
    try {
      undoPending_ = true;
      inPlace = reader_->fold_rest_in_place(info_.id, *base_, point_, cursor_, undo_);
      undoPending_ = inPlace;
    } catch (const RecordingError& e) {
      base_->undo(undo_);
      undoPending_ = false;
      if (shown_ == nullptr) throw;
      shown_ = base_.get();
      retire(std::move(retiring));
      emit readFailed(QString::fromUtf8(e.what()));
      emit updated();
      return;
    }
    if (inPlace) {
      lastCopied_ = false;
      retiring.push_back(std::move(tailed_));
      shown_ = base_.get();
      retire(std::move(retiring));
      aheadCurrent_ = false;
      computedFor_ = cursor_;
      lastFolded_ = folded;
      lastStateNs_ = static_cast<std::uint64_t>(timer.nsecsElapsed());
      emit updated();
      return;
    }
    auto tailed = std::make_unique<observe::SystemState>(*base_);
    try {
      reader_->fold_rest(info_.id, *tailed, point_, cursor_);
    } catch (const RecordingError& e) {
      if (shown_ == nullptr) throw;
      // The rest could not be read: the state at the place before the cursor is the nearest.
      retiring.push_back(std::move(tailed_));
      shown_ = base_.get();
      retire(std::move(retiring));
      emit readFailed(QString::fromUtf8(e.what()));
      emit updated();
      return;
    }
    retiring.push_back(std::move(tailed_));
    tailed_ = std::move(tailed);
    shown_ = tailed_.get();
  }
  retire(std::move(retiring));
  aheadCurrent_ = false;
  computedFor_ = cursor_;
  lastFolded_ = folded;
  lastStateNs_ = static_cast<std::uint64_t>(timer.nsecsElapsed());
  emit updated();
}

void ReplaySession::retire(std::vector<std::unique_ptr<observe::SystemState>> states) {
  // They stay until the next step begins, so that the new state cannot be made at the address of
  // one a view was given before this step's refresh. (Freeing them on another thread was
  // measured: on two cores it slowed the views' refresh that ran beside it by more than it saved.)
  retired_ = std::move(states);
}

void ReplaySession::warmUp() {
  QElapsedTimer timer;
  timer.start();
  try {
    // The state at the end (the biggest, in most recordings) and three copies: what a step holds at
    // once is the new state beside the one shown, and the centred views' copy of each
    // (aheadState). Freed here, their memory stays in the heap for the steps.
    auto end = std::make_unique<observe::SystemState>();
    SessionReader::FoldPoint point;
    reader_->prefix_at(info_.id, info_.end_time, *end, point);
    const std::vector<observe::SystemState> copies(3, *end);
  } catch (const RecordingError&) {
    // Only a warm-up: a step that reads the same place reports what is wrong.
  }
  warmUpNs_ = static_cast<std::uint64_t>(timer.nsecsElapsed());
}

const observe::SystemState& ReplaySession::aheadState() const {
  if (aheadCurrent_) return *ahead_;
  auto ahead = std::make_unique<observe::SystemState>(*shown_);
  EventFilter filter;
  filter.from = cursor_ + Duration(1);
  filter.to = cursor_ + kAheadSpan;
  std::size_t n = 0;
  try {
    reader_->for_each_event(info_.id, filter, [&](const observe::Event& e) {
      ahead->apply(e);
      return ++n < kAheadEvents;
    });
  } catch (const RecordingError&) {
    // What follows the cursor could not be read: the centred views show what precedes it.
  }
  previousAhead_ = std::move(ahead_);
  ahead_ = std::move(ahead);
  aheadCurrent_ = true;
  return *ahead_;
}

void ReplaySession::goLive() {
  setCursor(info_.end_time);
  atTail_ = following_;
}

void ReplaySession::poll() {
  SessionInfo now;
  try {
    // A file opened as an immutable snapshot (WAL mode, no log yet) is reopened once a writer has
    // made its log, so that its commits are seen.
    reader_->refresh();
    now = reader_->session(info_.id);
  } catch (const RecordingError&) {
    // A moment's lock or a write in progress: the next poll tries again. What is shown stays.
    return;
  }
  const bool grew = now.end_time != info_.end_time;
  const bool ended = now.ended_cleanly() && !info_.ended_cleanly();
  const bool writing = !now.ended_cleanly() && std::chrono::system_clock::now() - now.updated_at < kFollowRecency;
  info_ = now;
  if (grew) emit rangeChanged();
  if (writing != following_) {
    following_ = writing;
    if (!writing) atTail_ = false;
    emit followingChanged(following_);
  }
  if (ended) followTimer_.stop();
  if (grew && atTail_) setCursor(info_.end_time);
  else if (ended) emit updated();  // the banner changes: the views' picture is the same
}

std::vector<DensityBucket> ReplaySession::density(TimePoint from, TimePoint to, std::size_t buckets) const {
  return reader_->density(info_.id, from, to, buckets);
}

std::vector<TimelineMarker> ReplaySession::markers(TimePoint from, TimePoint to, std::size_t limit) const {
  return reader_->markers(info_.id, from, to, limit);
}

std::optional<observe::Event> ReplaySession::adjacentEvent(TimePoint t, bool forward, ActorId actor,
                                                           std::vector<observe::EventKind> kinds) const {
  return reader_->adjacent_event(info_.id, t, forward, actor, std::move(kinds));
}

}  // namespace actorscope::gui
