// The difference model of `actorscope diff` (the definitions are in recording_diff.hpp).
#include <actorscope/storage/recording_diff.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace actorscope {

std::string_view to_string(DiffColumn column) noexcept {
  switch (column) {
    case DiffColumn::handled: return "handled";
    case DiffColumn::rate: return "rate";
    case DiffColumn::queue_p50: return "queue_p50_ns";
    case DiffColumn::queue_p99: return "queue_p99_ns";
    case DiffColumn::handling_p50: return "handling_p50_ns";
    case DiffColumn::handling_p99: return "handling_p99_ns";
    case DiffColumn::peak_mailbox: return "peak_mailbox";
    case DiffColumn::failures: return "failures";
    case DiffColumn::restarts: return "restarts";
    case DiffColumn::dropped: return "dropped";
    case DiffColumn::rejected: return "rejected";
  }
  return "";
}

std::optional<double> ActorFigures::value(DiffColumn column) const {
  auto opt = [](const std::optional<std::uint64_t>& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  switch (column) {
    case DiffColumn::handled: return static_cast<double>(handled);
    case DiffColumn::rate: return rate;
    case DiffColumn::queue_p50: return opt(queue_p50_ns);
    case DiffColumn::queue_p99: return opt(queue_p99_ns);
    case DiffColumn::handling_p50: return opt(handling_p50_ns);
    case DiffColumn::handling_p99: return opt(handling_p99_ns);
    case DiffColumn::peak_mailbox: return static_cast<double>(peak_mailbox);
    case DiffColumn::failures: return static_cast<double>(failures);
    case DiffColumn::restarts: return static_cast<double>(restarts);
    case DiffColumn::dropped: return static_cast<double>(dropped);
    case DiffColumn::rejected: return static_cast<double>(rejected);
  }
  return std::nullopt;
}

namespace {

/// Exact statistics of the actors a state no longer holds, summed from the stats table.
struct PrunedStats {
  std::uint64_t handled = 0;
  std::uint64_t mailbox_max = 0;
  std::uint64_t dropped = 0;
  std::uint64_t rejected = 0;
};

DiffSide build_side(std::string label, std::vector<ActorInfo> actors, const observe::SystemState& state,
                    Duration duration, const std::unordered_map<ActorId, PrunedStats>* pruned_stats) {
  DiffSide side;
  side.label = std::move(label);
  side.duration = duration;
  std::unordered_map<ActorId, ExitKind> exits;
  for (const ActorInfo& a : actors)
    if (a.exit_kind) exits.emplace(a.id, *a.exit_kind);
  side.actors = actor_slots(std::move(actors));
  side.figures.resize(side.actors.size());
  const double seconds = std::chrono::duration<double>(duration).count();
  for (std::size_t i = 0; i < side.actors.size(); ++i) {
    const ActorSlot& slot = side.actors[i];
    ActorFigures& f = side.figures[i];
    observe::LogHistogram queue, handling;
    for (ActorId id : slot.incarnations) {
      if (auto e = exits.find(id); e != exits.end() && e->second == ExitKind::failed) ++f.failures;
      if (const observe::ActorRecord* r = state.actor(id)) {
        f.handled += r->handled;
        f.peak_mailbox = std::max(f.peak_mailbox, r->mailbox_max);
        f.dropped += r->dropped;
        f.rejected += r->rejected;
        queue.merge(r->queue_ns);
        handling.merge(r->handling_ns);
      } else {
        ++side.pruned;
        if (pruned_stats != nullptr)
          if (auto p = pruned_stats->find(id); p != pruned_stats->end()) {
            f.handled += p->second.handled;
            f.peak_mailbox = std::max(f.peak_mailbox, p->second.mailbox_max);
            f.dropped += p->second.dropped;
            f.rejected += p->second.rejected;
          }
      }
    }
    f.incarnations = slot.incarnations.size();
    f.restarts = slot.restarts;
    f.rate = seconds > 0 ? static_cast<double>(f.handled) / seconds : 0.0;
    if (!queue.empty()) {
      f.queue_p50_ns = queue.percentile(50);
      f.queue_p99_ns = queue.percentile(99);
    }
    if (!handling.empty()) {
      f.handling_p50_ns = handling.percentile(50);
      f.handling_p99_ns = handling.percentile(99);
    }
  }
  return side;
}

RecordingDiff::Totals totals_of(const DiffSide& s) {
  RecordingDiff::Totals t;
  t.actors = s.actors.size();
  for (const ActorFigures& f : s.figures) {
    t.incarnations += f.incarnations;
    t.handled += f.handled;
    t.failures += f.failures;
    t.restarts += f.restarts;
  }
  return t;
}

}  // namespace

DiffSide make_diff_side(std::string label, std::vector<ActorInfo> actors, const observe::SystemState& state,
                        Duration duration) {
  return build_side(std::move(label), std::move(actors), state, duration, nullptr);
}

DiffSide read_diff_side(const SessionReader& reader, std::int64_t session) {
  const SessionInfo info = reader.session(session);
  std::vector<ActorInfo> actors = reader.actors(session);
  // The end state comes from the last keyframe and the few events after it: cheap at any size.
  const observe::SystemState state = reader.state_at(session, TimePoint::max());
  std::unordered_map<ActorId, PrunedStats> pruned;
  std::unordered_set<ActorId> missing;
  TimePoint from = TimePoint::max(), to = TimePoint::min();
  for (const ActorInfo& a : actors)
    if (state.actor(a.id) == nullptr) {
      missing.insert(a.id);
      from = std::min(from, a.spawned);
      to = std::max(to, a.stopped.value_or(TimePoint::max()));
    }
  if (!missing.empty()) {
    // Only when the state has forgotten stopped actors (more than its limit stopped): their exact
    // counts are in the statistics buckets, one row per actor and poll in which it did something.
    // The state forgets the earliest exits first, so their lifetimes are usually an early part of
    // the session, and only that part is read: from the first one's spawn to the last one's exit,
    // plus a wide margin (their last bucket is written by the next poll, one stats interval later
    // when the recorder keeps up; 10 s or 50 intervals cover a recorder thread held up that long).
    const Duration margin = std::max<Duration>(std::chrono::seconds(10), info.stats_interval * 50);
    const TimePoint until = to >= TimePoint::max() - margin ? TimePoint::max() : to + margin;
    for (const observe::StatsSample& s : reader.stats(session, from, until)) {
      if (!missing.contains(s.actor)) continue;
      PrunedStats& p = pruned[s.actor];
      p.handled += s.handled;
      p.mailbox_max = std::max(p.mailbox_max, s.mailbox_max);
      p.dropped += s.dropped;
      p.rejected += s.rejected;
    }
  }
  DiffSide side = build_side(reader.file().string() + ", session " + std::to_string(session), std::move(actors),
                             state, info.duration(), &pruned);
  side.scenario = info.scenario;
  side.runtime = info.runtime;
  side.threads = info.threads;
  side.detail = std::string(to_string(info.detail));
  return side;
}

double DiffCell::difference() const noexcept {
  switch (kind) {
    case Ratio::none: return 0.0;
    case Ratio::fresh:
    case Ratio::gone: return std::numeric_limits<double>::infinity();
    case Ratio::value: return std::abs(std::log(ratio));
  }
  return 0.0;
}

DiffCell diff_cell(std::optional<double> a, std::optional<double> b) {
  DiffCell c;
  c.a = a;
  c.b = b;
  if (!a || !b) return c;  // not measured on a side: nothing to compare
  if (*a == 0 && *b == 0) return c;
  if (*a == 0) {
    c.kind = DiffCell::Ratio::fresh;
  } else if (*b == 0) {
    c.kind = DiffCell::Ratio::gone;
  } else {
    c.kind = DiffCell::Ratio::value;
    c.ratio = *b / *a;
  }
  return c;
}

std::size_t RecordingDiff::differing() const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const DiffRow& r) { return r.difference > 0; }));
}

RecordingDiff diff_sides(const DiffSide& a, const DiffSide& b) {
  RecordingDiff d;
  const ActorMatch m = match_actors(a.actors, b.actors);
  d.rows.reserve(m.matched.size());
  for (const ActorMatch::Pair& p : m.matched) {
    DiffRow row;
    row.path = a.actors[p.a].path;
    row.path_b = b.actors[p.b].path;
    row.by = p.by;
    for (std::size_t c = 0; c < kDiffColumnCount; ++c) {
      const auto column = static_cast<DiffColumn>(c);
      row.cells[c] = diff_cell(a.figures[p.a].value(column), b.figures[p.b].value(column));
      row.difference = std::max(row.difference, row.cells[c].difference());
    }
    d.rows.push_back(std::move(row));
  }
  auto larger_handled = [](const DiffRow& r) {
    const DiffCell& h = r.cell(DiffColumn::handled);
    return std::max(h.a.value_or(0), h.b.value_or(0));
  };
  std::stable_sort(d.rows.begin(), d.rows.end(), [&](const DiffRow& x, const DiffRow& y) {
    if (x.difference != y.difference) return x.difference > y.difference;
    const double hx = larger_handled(x), hy = larger_handled(y);
    if (hx != hy) return hx > hy;
    return x.path < y.path;
  });
  for (std::size_t i : m.only_a) d.only_a.push_back({a.actors[i].path, a.figures[i]});
  for (std::size_t j : m.only_b) d.only_b.push_back({b.actors[j].path, b.figures[j]});
  d.total_a = totals_of(a);
  d.total_b = totals_of(b);
  return d;
}

}  // namespace actorscope
