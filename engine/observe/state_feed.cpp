// StateFeed: see the header for the rules; this file only keeps them.
#include <actorscope/observe/state_feed.hpp>

#include <algorithm>
#include <utility>

namespace actorscope::observe {

namespace {

bool is_message(EventKind k) noexcept { return k == EventKind::message_sent || k == EventKind::message_handled; }

}  // namespace

StateFeed::StateFeed(Rules rules, SystemState::Limits limits) : rules_(rules), state_(limits) {}

StateFeed::StateFeed(Rules rules, SystemState state, std::uint64_t seq)
    : rules_(rules), state_(std::move(state)), seq_(seq), accounted_(state_.dropped()) {
  if (state_.events_applied() > 0) last_time_ns_ = to_ns(state_.time());
}

void StateFeed::push_events(std::vector<Event>& batch) {
  for (Event& e : batch) {
    if (rules_.max_backlog != 0 && events_.size() >= rules_.max_backlog && is_message(e.kind)) {
      ++shed_;
      ++shed_total_;
      continue;
    }
    events_.push_back(std::move(e));
    ++pushed_;
  }
  batch.clear();
  batch_pushed();
}

void StateFeed::push_event(Event event) {
  std::vector<Event> one;
  one.push_back(std::move(event));
  push_events(one);
}

void StateFeed::batch_pushed() {
  for (Poll& p : polls_) {
    if (p.ready) continue;
    if (--p.batches_left <= 0) {
      p.ready = true;
      p.after = pushed_;
    }
  }
}

void StateFeed::push_poll(TimePoint time, std::vector<StatsSample> samples, std::uint64_t dropped_total,
                          std::vector<FactorySample> factories) {
  Poll p;
  p.time = time;
  p.samples = std::move(samples);
  p.factories = std::move(factories);
  p.dropped_total = dropped_total;
  p.batches_left = finished_ ? 0 : rules_.poll_delay;
  if (p.batches_left <= 0) {
    p.ready = true;
    p.after = pushed_;
  }
  polls_.push_back(std::move(p));
}

void StateFeed::finish() noexcept {
  finished_ = true;
  for (Poll& p : polls_)
    if (!p.ready) {
      p.ready = true;
      p.after = pushed_;
    }
}

bool StateFeed::fold(std::chrono::steady_clock::time_point deadline) {
  constexpr int kCheckEvery = 256;
  bool any = false;
  int since_check = 0;
  while (true) {
    // Up to the next ready poll (polls become ready in order, so only the front can be), or all.
    const bool poll_ready = !polls_.empty() && polls_.front().ready;
    const std::uint64_t until = poll_ready ? polls_.front().after : pushed_;
    while (folded_ < until && !events_.empty()) {
      Event& e = events_.front();
      fold_event(e);
      events_.pop_front();
      ++folded_;
      any = true;
      if (++since_check == kCheckEvery) {
        since_check = 0;
        if (std::chrono::steady_clock::now() >= deadline) return any;
      }
    }
    if (!poll_ready || folded_ < until) return any;
    Poll p = std::move(polls_.front());
    polls_.pop_front();
    fold_poll(p);
    any = true;
    // A poll of 10,000 actors is a few hundred microseconds: check the clock after each one.
    since_check = 0;
    if (std::chrono::steady_clock::now() >= deadline) return any;
  }
}

void StateFeed::fold_event(Event& e) {
  if (state_.repeats(e)) {
    ++repeats_;
    return;
  }
  if (rules_.monotonic_time) {
    const std::int64_t t = to_ns(e.time);
    if (t < last_time_ns_) e.time = time_from_ns(last_time_ns_);
    last_time_ns_ = std::max(last_time_ns_, t);
  }
  if (rules_.number_events) e.seq = ++seq_;
  state_.apply(e);
  if (!rules_.number_events) seq_ = e.seq;
  if (sink_ != nullptr) sink_->on_event(e);
}

void StateFeed::fold_poll(Poll& p) {
  applied_.clear();
  // Samples held back by earlier polls first: their actors' spawns may have been folded since.
  std::vector<Held> still;
  const auto waits = [&](ActorId actor) {
    return std::any_of(still.begin(), still.end(), [&](const Held& h) { return h.sample.actor == actor; });
  };
  const auto take = [&](const StatsSample& s, int polls_waited) {
    // Behind an earlier sample of the same actor that still waits, a later one waits too, so that
    // an actor's buckets are applied in their order.
    const bool unknown = state_.actor(s.actor) == nullptr;
    if (!finished_ && polls_waited < rules_.hold_back && (unknown || waits(s.actor))) {
      still.push_back({s, polls_waited + 1});
      return;
    }
    state_.apply(s);
    applied_.push_back(s);
  };
  std::vector<Held> held = std::exchange(held_, {});
  for (const Held& h : held) take(h.sample, h.polls);
  for (const StatsSample& s : p.samples) take(s, 0);
  held_ = std::move(still);
  for (const FactorySample& f : p.factories) state_.apply(f);

  // A sample for no actor moves the state's clock to the poll's time even when nothing else moved,
  // so that rates decay and stopped actors age while the system is quiet.
  StatsSample heartbeat;
  heartbeat.end = p.time;
  state_.apply(heartbeat);

  const std::uint64_t from_source = p.dropped_total > accounted_ ? p.dropped_total - accounted_ : 0;
  accounted_ = std::max(accounted_, p.dropped_total);
  const std::uint64_t dropped = from_source + std::exchange(shed_, 0);
  state_.add_dropped(dropped);
  ++polls_folded_;
  if (sink_ != nullptr && !p.factories.empty()) sink_->on_factory_poll(p.time, p.factories);
  if (sink_ != nullptr) sink_->on_poll(p.time, applied_, dropped);
}

}  // namespace actorscope::observe
