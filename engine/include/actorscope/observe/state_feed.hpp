// StateFeed: the one path from "observation events + exact per-actor statistics" to a SystemState.
// The live observatory, the recorder and replay all feed their SystemState through it, so that the
// three cannot disagree about the order in which events and statistics polls are folded, about
// when a poll may be folded, or about how dropped events are counted.
//
// The rules, in order of importance:
//  - Events are folded in the order they were pushed. Repeats (an observer attached to a running
//    system hears the present again) are ignored by SystemState::apply and never reach the sink.
//  - A statistics poll is folded only after `poll_delay` further event batches: every actor a poll
//    counts was spawned before the poll read its counters, and an EventCollector hands out
//    everything that was in a buffer within two drains. So the fold knows the poll's actors.
//  - A sample whose actor is still unknown then waits for up to `hold_back` further polls (its
//    spawn may be late still), behind which that actor's later samples wait too; after that it is
//    applied anyway (and counts nothing: its spawn was lost).
//  - A poll's factory samples (FactorySample) are folded with it, after its actor samples and
//    before its drops are counted; none is held back (a factory's record is made by its first sample
//    or event, whichever comes first).
//  - Dropped events are counted at poll boundaries: the source's running total of drops (a
//    collector's dropped()) plus the message events the feed itself shed because its backlog was
//    full (Rules::max_backlog). Nothing is lost silently.
//
// The sink hears every event and every poll exactly as they were folded, which is what a recorder
// writes; replay pushes them back with recorded_rules() and gets the same state.
#pragma once

#include <actorscope/observe/event.hpp>
#include <actorscope/observe/system_state.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

namespace actorscope::observe {

class StateFeed {
 public:
  struct Rules {
    /// Event batches to wait before a poll is folded (see above). 0: at once.
    int poll_delay = 2;
    /// Further polls an unknown actor's sample may wait for its spawn. 0: applied at once.
    int hold_back = 3;
    /// Events waiting to be folded beyond which message events are shed (and counted as dropped);
    /// lifecycle events are never shed. 0: no limit.
    std::size_t max_backlog = 0;
    /// Make event times non-decreasing in fold order, so that "the events up to t" is a range of
    /// the order (a recording relies on it). Threads stamp their events just before they are
    /// ordered, so a step back is microseconds.
    bool monotonic_time = true;
    /// Number folded events 1, 2, 3... (Event::seq), in fold order. Off: keep their seq.
    bool number_events = true;
  };
  /// What an engine observer (the live observatory, a recorder) uses.
  static Rules live_rules() noexcept { return Rules{}; }
  /// Replaying what a sink heard: the order, the times and the numbers are already decided.
  static Rules recorded_rules() noexcept {
    return Rules{.poll_delay = 0, .hold_back = 0, .max_backlog = 0, .monotonic_time = false, .number_events = false};
  }

  /// Hears each item as it is folded.
  class Sink {
   public:
    virtual ~Sink() = default;
    /// `event` was folded (it changed the state; its seq and time are final). The feed is done
    /// with it: the sink may keep it by moving from it.
    virtual void on_event(Event& event) = 0;
    /// A poll was folded at `time`: the samples applied with it (held-back samples of earlier polls
    /// first), and the events counted as dropped at it.
    virtual void on_poll(TimePoint time, std::span<const StatsSample> samples, std::uint64_t dropped) = 0;
    /// The factory samples folded with the same poll, heard right before its on_poll (the feed's
    /// polls() already counts that poll). Not called for a poll without factory samples.
    virtual void on_factory_poll(TimePoint time, std::span<const FactorySample> samples) {
      (void)time;
      (void)samples;
    }
  };

  explicit StateFeed(Rules rules = live_rules(), SystemState::Limits limits = {});
  /// Continues from `state` (a keyframe): events are numbered after `seq`, and the state's dropped
  /// count is the drops already accounted for.
  StateFeed(Rules rules, SystemState state, std::uint64_t seq);

  /// Where folded items go (nullptr: nowhere). Not owned.
  void set_sink(Sink* sink) noexcept { sink_ = sink; }

  /// Queues a batch of events, in order (moved from; `batch` is left empty).
  void push_events(std::vector<Event>& batch);
  /// Queues one event.
  void push_event(Event event);
  /// Queues a poll taken at `time`; `dropped_total` is the source's running count of dropped
  /// events when it was taken.
  void push_poll(TimePoint time, std::vector<StatsSample> samples, std::uint64_t dropped_total,
                 std::vector<FactorySample> factories = {});
  /// Ends the input: polls still waiting for batches become ready and no sample waits any more.
  /// Push the last poll first, then fold().
  void finish() noexcept;

  /// Folds what is ready, in order, until `deadline` (checked every few hundred items). Returns
  /// whether anything was folded.
  bool fold(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

  const SystemState& state() const noexcept { return state_; }
  /// Moves the state out (the feed is done).
  SystemState take_state() && noexcept { return std::move(state_); }
  /// Events queued and not yet folded.
  std::size_t backlog() const noexcept { return events_.size(); }
  /// Polls queued and not yet folded.
  std::size_t polls_waiting() const noexcept { return polls_.size(); }
  /// Whether nothing is left to fold.
  bool idle() const noexcept { return events_.empty() && polls_.empty(); }
  /// The last event's number (Rules::number_events), and the polls folded.
  std::uint64_t seq() const noexcept { return seq_; }
  std::uint64_t polls() const noexcept { return polls_folded_; }
  /// Message events shed because the backlog was full (counted as dropped at the next poll).
  std::uint64_t shed() const noexcept { return shed_total_; }
  /// Events ignored as repeats.
  std::uint64_t repeats() const noexcept { return repeats_; }

 private:
  struct Poll {
    TimePoint time{};
    std::vector<StatsSample> samples;
    std::vector<FactorySample> factories;
    std::uint64_t dropped_total = 0;
    int batches_left = 0;
    /// Folded once this many events (of all ever pushed) are folded; set when ready.
    std::uint64_t after = 0;
    bool ready = false;
  };
  struct Held {
    StatsSample sample;
    int polls = 0;
  };

  void batch_pushed();
  void fold_event(Event& e);
  void fold_poll(Poll& p);

  Rules rules_;
  SystemState state_;
  Sink* sink_ = nullptr;
  std::deque<Event> events_;
  std::uint64_t pushed_ = 0;  ///< events ever queued (shed ones not included)
  std::uint64_t folded_ = 0;  ///< events ever taken off the queue (folded or ignored as repeats)
  std::deque<Poll> polls_;
  std::vector<Held> held_;
  std::vector<StatsSample> applied_;  ///< scratch: one poll's samples as applied
  bool finished_ = false;
  std::uint64_t seq_ = 0;
  std::uint64_t polls_folded_ = 0;
  std::uint64_t accounted_ = 0;  ///< the source's drops already counted
  std::uint64_t shed_ = 0;       ///< shed since the last poll
  std::uint64_t shed_total_ = 0;
  std::uint64_t repeats_ = 0;
  std::int64_t last_time_ns_ = INT64_MIN;
};

}  // namespace actorscope::observe
