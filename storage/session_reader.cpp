// SessionReader: read-only access to a recording, replay by keyframe plus fold, filtered streaming.
#include <actorscope/storage/session_reader.hpp>

#include <actorscope/observe/state_feed.hpp>

#include "database.hpp"
#include "event_rows.hpp"
#include "schema.hpp"
#include "stats_rows.hpp"

#include <algorithm>
#include <limits>
#include <system_error>

namespace actorscope {

using storage::Database;
using storage::Statement;

namespace {

using Kind = RecordingError::Kind;

/// A read transaction for as long as it lives (declare it before the statements that use it, so
/// that they are finalized first). Ending it never throws: a read has nothing to undo.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Database& db) : db_(db) { db_.exec("BEGIN"); }
  ~ReadSnapshot() {
    try {
      db_.exec("COMMIT");
    } catch (...) {  // the transaction already ended (an error rolled it back): nothing to end
    }
  }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  Database& db_;
};

std::chrono::system_clock::time_point wall_from_ns(std::int64_t ns) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(ns)));
}

RecordingError corrupt(const std::filesystem::path& file, std::string_view what) {
  return storage::damaged_error(file, what);
}

}  // namespace

SessionReader::SessionReader(std::filesystem::path file, Options options)
    : file_(std::move(file)), options_(options) {
  if (!storage::check_file_header(file_)) throw storage::not_a_recording_error(file_, "the file is empty");
  try {
    db_ = std::make_unique<Database>(file_, Database::Mode::read_only,
                                     static_cast<int>(options_.busy_timeout.count()));
    const auto version = storage::read_format_version(*db_, file_);
    if (!version) throw storage::not_a_recording_error(file_, "it has no meta table with a format_version");
    if (*version > kRecordingFormatVersion) throw storage::too_new_error(file_, *version);
    storage::check_structure(*db_, file_, *version);
    format_ = *version;
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  }
}

SessionReader::~SessionReader() = default;
SessionReader::SessionReader(SessionReader&&) noexcept = default;
SessionReader& SessionReader::operator=(SessionReader&&) noexcept = default;

template <class F>
auto SessionReader::guarded(F&& f) const -> decltype(f()) {
  try {
    return f();
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  } catch (const observe::StateFormatError& e) {
    throw corrupt(file_, std::string("a keyframe cannot be read (") + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    throw corrupt(file_, e.what());
  }
}

void SessionReader::verify() const {
  guarded([&] {
    Statement s = db_->prepare("PRAGMA quick_check");
    std::string problems;
    int n = 0;
    while (s.step()) {
      const std::string_view line = s.text(0);
      if (line == "ok") continue;
      if (++n <= 3) {
        if (!problems.empty()) problems += "; ";
        problems += line;
      }
    }
    if (n > 0)
      throw corrupt(file_,
                    "SQLite's integrity check found " + std::to_string(n) + " problem(s): " + problems);
    return 0;
  });
}

namespace {

constexpr const char* kSessionColumns =
    "SELECT id, started_at, ended_at, updated_at, runtime, threads, scenario, seed, detail, sample_every, "
    "stats_interval_ns, keyframe_every, start_t_ns, end_t_ns, events_recorded, events_dropped, recorder FROM "
    "sessions";

SessionInfo read_session(const Statement& r) {
  SessionInfo s;
  s.id = r.int64(0);
  s.started_at = wall_from_ns(r.int64(1));
  if (auto e = r.optional_int64(2)) s.ended_at = wall_from_ns(*e);
  s.updated_at = wall_from_ns(r.int64(3));
  s.runtime = std::string(r.text(4));
  s.threads = static_cast<std::uint32_t>(r.int64(5));
  s.scenario = std::string(r.text(6));
  if (auto seed = r.optional_int64(7)) s.seed = static_cast<std::uint64_t>(*seed);
  const std::string_view detail = r.text(8);
  const auto d = detail_from_string(detail);
  if (!d)
    throw std::invalid_argument("session " + std::to_string(s.id) + " has detail \"" + std::string(detail) +
                                "\", which is not a detail level");
  s.detail = *d;
  s.sample_every = static_cast<std::uint32_t>(r.int64(9));
  s.stats_interval = observe::duration_from_ns(r.int64(10));
  s.keyframe_every = static_cast<std::uint64_t>(r.int64(11));
  s.start_time = observe::time_from_ns(r.int64(12));
  s.end_time = observe::time_from_ns(r.optional_int64(13).value_or(r.int64(12)));
  s.events_recorded = static_cast<std::uint64_t>(r.int64(14));
  s.events_dropped = static_cast<std::uint64_t>(r.int64(15));
  s.recorder = std::string(r.text(16));
  return s;
}

}  // namespace

std::vector<SessionInfo> SessionReader::sessions() const {
  return guarded([&] {
    std::vector<SessionInfo> out;
    Statement s = db_->prepare(std::string(kSessionColumns) + " ORDER BY id");
    while (s.step()) out.push_back(read_session(s));
    return out;
  });
}

SessionInfo SessionReader::session(std::int64_t id) const {
  return guarded([&] {
    Statement s = db_->prepare(std::string(kSessionColumns) + " WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) {
      std::string m = storage::quoted(file_);
      m += " has no session ";
      m += std::to_string(id);
      m += "; 'actorscope inspect' lists the sessions it has";
      throw RecordingError(Kind::no_such_session, file_, m);
    }
    return read_session(s);
  });
}

std::vector<ActorInfo> SessionReader::actors(std::int64_t session) const {
  (void)this->session(session);
  return guarded([&] {
    std::vector<ActorInfo> out;
    Statement s = db_->prepare(
        std::string("SELECT actor_id, name, type_name, parent_id, thread, spawned_ns, stopped_ns, "
                    "exit_kind, exit_reason, ") +
        (format_ >= 5 ? "child_id, restarts, " : "NULL, 0, ") +
        (format_ >= 6 ? "mailbox_capacity, overflow" : "0, NULL") +
        " FROM actors WHERE session_id = ? ORDER BY actor_id");
    s.bind(1, session);
    while (s.step()) {
      ActorInfo a;
      a.id = {0, static_cast<std::uint64_t>(s.int64(0))};
      a.name = std::string(s.text(1));
      a.type_name = std::string(s.text(2));
      a.parent = {0, static_cast<std::uint64_t>(s.int64(3))};
      a.thread = static_cast<std::uint32_t>(s.int64(4));
      a.spawned = observe::time_from_ns(s.int64(5));
      if (auto t = s.optional_int64(6)) a.stopped = observe::time_from_ns(*t);
      if (!s.is_null(7)) {
        const std::string_view k = s.text(7);
        if (k == "stopped")
          a.exit_kind = ExitKind::stopped;
        else if (k == "failed")
          a.exit_kind = ExitKind::failed;
        else if (k == "killed")
          a.exit_kind = ExitKind::killed;
        else
          throw std::invalid_argument("actor " + a.id.to_string() + " has exit_kind \"" + std::string(k) +
                                      "\", which is not stopped, failed or killed");
      }
      a.exit_reason = std::string(s.text(8));
      a.child_id = std::string(s.text(9));
      a.restarts = static_cast<std::uint32_t>(s.int64(10));
      a.mailbox_capacity = static_cast<std::uint32_t>(s.int64(11));
      if (!s.is_null(12)) {
        const std::string_view o = s.text(12);
        const auto policy = overflow_from_string(o);
        if (!policy)
          throw std::invalid_argument("actor " + a.id.to_string() + " has overflow \"" + std::string(o) +
                                      "\", which is not reject, drop_newest, drop_oldest or backpressure");
        a.overflow = *policy;
      }
      out.push_back(std::move(a));
    }
    return out;
  });
}

std::array<std::uint64_t, observe::kEventKindCount> SessionReader::event_counts(std::int64_t session) const {
  (void)this->session(session);
  return guarded([&] {
    std::array<std::uint64_t, observe::kEventKindCount> out{};
    Statement s = db_->prepare("SELECT kind, count(*) FROM events WHERE session_id = ? GROUP BY kind");
    s.bind(1, session);
    while (s.step()) {
      const std::string_view kind = s.text(0);
      const auto k = observe::event_kind_from_string(kind);
      if (!k)
        throw std::invalid_argument("an event has kind \"" + std::string(kind) +
                                    "\", which is not an event kind");
      out[static_cast<std::size_t>(*k)] = static_cast<std::uint64_t>(s.int64(1));
    }
    return out;
  });
}

// The largest seq above `after` whose time is at or before t (or `after` if none is). Event times
// never decrease with seq within a session, so this is a binary search of point lookups on the
// primary key: a few dozen B-tree probes, whatever the size of the session.
std::uint64_t SessionReader::last_seq_at(std::int64_t session, TimePoint t, std::uint64_t after) const {
  const std::int64_t t_ns = observe::to_ns(t);
  Statement last = db_->prepare("SELECT max(seq) FROM events WHERE session_id = ?");
  last.bind(1, session);
  const std::uint64_t max_seq = last.step() ? static_cast<std::uint64_t>(last.int64(0)) : 0;
  if (max_seq <= after) return after;
  Statement probe =
      db_->prepare("SELECT seq, t_ns FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT 1");
  auto next_at = [&](std::uint64_t seq) -> std::optional<std::pair<std::uint64_t, std::int64_t>> {
    probe.reset();
    probe.bind(1, session);
    probe.bind(2, static_cast<std::int64_t>(seq));
    if (!probe.step()) return std::nullopt;
    return std::make_pair(static_cast<std::uint64_t>(probe.int64(0)), probe.int64(1));
  };
  std::uint64_t lo = after;        // known: at or before t (or the starting point)
  std::uint64_t hi = max_seq + 1;  // known: after t (or past the end)
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const auto row = next_at(mid);
    if (!row || row->first >= hi) {
      hi = mid;  // no event in [mid, hi)
    } else if (row->second <= t_ns) {
      lo = row->first;
    } else {
      hi = row->first;
    }
  }
  return lo;
}

namespace {

/// Folds onto `feed`, whose state is at `point`, the items after `point` whose time is at or
/// before `t_ns`, in recording order (a poll right after the event of its after_seq), streamed:
/// three cursors, nothing loaded whole. `to_seq` is the last event at or before t. With
/// `prefix_only`, stops where the next item in that order is after t (see SessionReader::FoldPoint)
/// and moves `point` there; returns whether nothing at or before t was left. Without, folds them
/// all (the state is then state_at(t), and `point` means nothing any more) and returns true.
bool fold_items(Database& db, int format, std::int64_t session, observe::StateFeed& feed,
                SessionReader::FoldPoint& point, std::int64_t t_ns, std::uint64_t to_seq, bool prefix_only) {
  std::uint64_t dropped_total = feed.state().dropped();
  std::int64_t reach_ns = observe::to_ns(point.reach);

  Statement ev = db.prepare(std::string("SELECT ") + storage::event_columns(format) +
                            " FROM events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq");
  ev.bind(1, session);
  ev.bind(2, static_cast<std::int64_t>(point.seq));
  ev.bind(3, static_cast<std::int64_t>(to_seq));
  bool ev_more = to_seq > point.seq && ev.step();
  // Feeds the events up to `seq` (in batches, folding as it goes, so that memory stays flat).
  std::vector<observe::Event> batch;
  auto events_through = [&](std::uint64_t seq) {
    while (ev_more) {
      observe::Event e = storage::read_event(ev);
      if (e.seq > seq) return;
      reach_ns = std::max(reach_ns, observe::to_ns(e.time));
      batch.push_back(std::move(e));
      if (batch.size() == 4096) {
        feed.push_events(batch);
        feed.fold();
      }
      ev_more = ev.step();
    }
  };
  auto place = [&](std::uint64_t seq, std::uint64_t poll) {
    point.seq = std::max(point.seq, seq);
    point.poll = poll;
    point.reach = observe::time_from_ns(reach_ns);
  };

  Statement p = db.prepare(
      "SELECT poll, after_seq, dropped, t_ns FROM stats_polls WHERE session_id = ? AND poll > ? AND t_ns <= ? "
      "ORDER BY poll");
  p.bind(1, session);
  p.bind(2, static_cast<std::int64_t>(point.poll));
  p.bind(3, t_ns);
  Statement b;  // the polls' buckets, in poll order: prepared at the first poll
  bool b_started = false, b_more = false;
  Statement fb;  // the polls' factory buckets (format 7), likewise
  bool fb_more = false;
  std::uint64_t last_poll = point.poll;
  while (p.step()) {
    const auto number = static_cast<std::uint64_t>(p.int64(0));
    const auto after_seq = static_cast<std::uint64_t>(p.int64(1));
    if (prefix_only && after_seq > to_seq) {
      // This poll follows an event after t: the place ends at the last event at or before t, and
      // this poll and the ones after it are the rest.
      events_through(to_seq);
      feed.push_events(batch);
      feed.fold();
      place(to_seq, last_poll);
      // Folding a poll applies its samples, counts its drops and moves the state's clock to its
      // time, nothing else: when the rest carries no samples and no drops and is no later than the
      // state's clock (a system with nothing to count), it would change nothing, and the state is
      // state_at(t) as it is. (The polls are still after the place: advance folds them there.)
      Statement rest = db.prepare(
          "SELECT max(poll), coalesce(sum(dropped), 0), max(t_ns) FROM stats_polls WHERE session_id = ? AND "
          "poll >= ? AND t_ns <= ?");
      rest.bind(1, session);
      rest.bind(2, static_cast<std::int64_t>(number));
      rest.bind(3, t_ns);
      if (!rest.step() || rest.int64(1) != 0 || rest.int64(2) > observe::to_ns(feed.state().time())) return false;
      Statement samples = db.prepare(
          "SELECT EXISTS (SELECT 1 FROM actor_stats WHERE session_id = ? AND poll >= ? AND poll <= ?)");
      samples.bind(1, session);
      samples.bind(2, static_cast<std::int64_t>(number));
      samples.bind(3, rest.int64(0));
      if (!samples.step() || samples.int64(0) != 0) return false;
      if (format < 7) return true;
      Statement factories = db.prepare(
          "SELECT EXISTS (SELECT 1 FROM factory_stats WHERE session_id = ? AND poll >= ? AND poll <= ?)");
      factories.bind(1, session);
      factories.bind(2, static_cast<std::int64_t>(number));
      factories.bind(3, rest.int64(0));
      return factories.step() && factories.int64(0) == 0;
    }
    dropped_total += static_cast<std::uint64_t>(p.int64(2));
    const TimePoint poll_time = observe::time_from_ns(p.int64(3));
    if (!b_started) {
      b_started = true;
      b = db.prepare(std::string("SELECT poll, ") + storage::sample_columns(format) +
                     " FROM actor_stats WHERE session_id = ? AND poll > ? ORDER BY poll, rowid");
      b.bind(1, session);
      b.bind(2, static_cast<std::int64_t>(point.poll));
      b_more = b.step();
      if (format >= 7) {
        fb = db.prepare(std::string("SELECT poll, ") + storage::factory_sample_columns(format) +
                        " FROM factory_stats WHERE session_id = ? AND poll > ? ORDER BY poll, rowid");
        fb.bind(1, session);
        fb.bind(2, static_cast<std::int64_t>(point.poll));
        fb_more = fb.step();
      }
    }
    std::vector<observe::StatsSample> samples;
    while (b_more) {
      const auto of = static_cast<std::uint64_t>(b.int64(0));
      if (of > number) break;
      if (of < number)
        throw std::invalid_argument("actor_stats refers to poll " + std::to_string(of) +
                                    ", which stats_polls does not have");
      samples.push_back(storage::read_sample(b, 1));
      b_more = b.step();
    }
    std::vector<observe::FactorySample> factories;
    while (fb_more) {
      const auto of = static_cast<std::uint64_t>(fb.int64(0));
      if (of > number) break;
      if (of < number)
        throw std::invalid_argument("factory_stats refers to poll " + std::to_string(of) +
                                    ", which stats_polls does not have");
      factories.push_back(storage::read_factory_sample(fb, 1));
      fb_more = fb.step();
    }
    events_through(after_seq);
    feed.push_events(batch);
    feed.push_poll(poll_time, std::move(samples), dropped_total, std::move(factories));
    feed.fold();
    reach_ns = std::max(reach_ns, observe::to_ns(poll_time));
    last_poll = number;
    if (prefix_only) place(after_seq, number);
  }
  // Every poll at or before t is folded. The place goes on through the events up to the next poll
  // (of a time after t): the events after that one's after_seq are the rest.
  std::uint64_t limit = to_seq;
  if (prefix_only) {
    Statement next =
        db.prepare("SELECT after_seq FROM stats_polls WHERE session_id = ? AND poll > ? ORDER BY poll LIMIT 1");
    next.bind(1, session);
    next.bind(2, static_cast<std::int64_t>(last_poll));
    if (next.step()) limit = std::max(point.seq, std::min(limit, static_cast<std::uint64_t>(next.int64(0))));
  }
  events_through(limit);
  feed.push_events(batch);
  feed.fold();
  if (prefix_only) {
    place(limit, last_poll);
    return limit >= to_seq;
  }
  return true;
}

/// The keyframe state_at(t) starts from: the latest whose items are all at or before t (with
/// `use_keyframes`); else the session's first (the empty state at seq 0, which carries the
/// state's limits). Its place is `point`.
observe::SystemState keyframe_at(Database& db, std::int64_t session, std::int64_t t_ns, bool use_keyframes,
                                 SessionReader::FoldPoint& point) {
  Statement k;
  bool found = false;
  if (use_keyframes) {
    k = db.prepare(
        "SELECT seq, poll, t_ns, state FROM keyframes WHERE session_id = ? AND t_ns <= ? ORDER BY seq DESC, "
        "poll DESC LIMIT 1");
    k.bind(1, session);
    k.bind(2, t_ns);
    found = k.step();
  }
  if (!found) {
    k = db.prepare("SELECT seq, poll, t_ns, state FROM keyframes WHERE session_id = ? AND seq = 0 AND poll = 0");
    k.bind(1, session);
    found = k.step();
  }
  point = {};
  if (!found) return {};
  point.seq = static_cast<std::uint64_t>(k.int64(0));
  point.poll = static_cast<std::uint64_t>(k.int64(1));
  // The first keyframe (the empty state) is stamped with the session's start: it holds nothing.
  point.reach = point.seq == 0 && point.poll == 0 ? TimePoint::min() : observe::time_from_ns(k.int64(2));
  return observe::SystemState::deserialize(k.blob(3));
}

}  // namespace

observe::SystemState SessionReader::state_at(std::int64_t session, TimePoint t, StateOptions options) const {
  (void)this->session(session);
  return guarded([&] {
    // One read transaction for every statement below: a file still being recorded gets new commits
    // meanwhile, and the keyframe, the events and the polls must all come from one snapshot.
    const ReadSnapshot snapshot(*db_);
    const std::int64_t t_ns = observe::to_ns(t);
    FoldPoint point;
    observe::SystemState state = keyframe_at(*db_, session, t_ns, options.use_keyframes, point);
    const std::uint64_t to_seq = last_seq_at(session, t, point.seq);
    // Events and polls go through the same feed as when they were recorded, in recording order.
    observe::StateFeed feed(observe::StateFeed::recorded_rules(), std::move(state), point.seq);
    fold_items(*db_, format_, session, feed, point, t_ns, to_seq, false);
    return std::move(feed).take_state();
  });
}

bool SessionReader::prefix_at(std::int64_t session, TimePoint t, observe::SystemState& state, FoldPoint& point) const {
  (void)this->session(session);
  return guarded([&] {
    const ReadSnapshot snapshot(*db_);
    const std::int64_t t_ns = observe::to_ns(t);
    FoldPoint at;
    observe::SystemState start = keyframe_at(*db_, session, t_ns, true, at);
    const std::uint64_t to_seq = last_seq_at(session, t, at.seq);
    observe::StateFeed feed(observe::StateFeed::recorded_rules(), std::move(start), at.seq);
    const bool complete = fold_items(*db_, format_, session, feed, at, t_ns, to_seq, true);
    state = std::move(feed).take_state();
    point = at;
    return complete;
  });
}

bool SessionReader::advance(std::int64_t session, observe::SystemState& state, FoldPoint& point,
                            TimePoint t) const {
  if (t < point.reach)
    throw std::invalid_argument("advance: the state holds items after the time asked for (make it with prefix_at)");
  return guarded([&] {
    const ReadSnapshot snapshot(*db_);
    FoldPoint at = point;
    const std::uint64_t to_seq = last_seq_at(session, t, at.seq);
    observe::StateFeed feed(observe::StateFeed::recorded_rules(), std::move(state), at.seq);
    bool complete = false;
    try {
      complete = fold_items(*db_, format_, session, feed, at, observe::to_ns(t), to_seq, true);
    } catch (...) {
      state = std::move(feed).take_state();  // part of the way: the caller makes it again
      throw;
    }
    state = std::move(feed).take_state();
    point = at;
    return complete;
  });
}

void SessionReader::fold_rest(std::int64_t session, observe::SystemState& state, const FoldPoint& point,
                              TimePoint t) const {
  if (t < point.reach)
    throw std::invalid_argument("fold_rest: the state holds items after the time asked for (make it with prefix_at)");
  guarded([&] {
    const ReadSnapshot snapshot(*db_);
    FoldPoint at = point;
    const std::uint64_t to_seq = last_seq_at(session, t, at.seq);
    observe::StateFeed feed(observe::StateFeed::recorded_rules(), std::move(state), at.seq);
    try {
      fold_items(*db_, format_, session, feed, at, observe::to_ns(t), to_seq, false);
    } catch (...) {
      state = std::move(feed).take_state();
      throw;
    }
    state = std::move(feed).take_state();
    return 0;
  });
}

bool SessionReader::fold_rest_in_place(std::int64_t session, observe::SystemState& state, const FoldPoint& point,
                                       TimePoint t, observe::SystemState::StatsUndo& undo) const {
  if (t < point.reach)
    throw std::invalid_argument("fold_rest_in_place: the state holds items after the time asked for");
  return guarded([&] {
    const ReadSnapshot snapshot(*db_);
    if (last_seq_at(session, t, point.seq) > point.seq) return false;  // events in the rest
    if (format_ >= 7) {  // factory samples in the rest: StatsUndo does not note them
      Statement f = db_->prepare(
          "SELECT EXISTS (SELECT 1 FROM factory_stats JOIN stats_polls USING (session_id, poll) WHERE "
          "session_id = ? AND poll > ? AND t_ns <= ?)");
      f.bind(1, session);
      f.bind(2, static_cast<std::int64_t>(point.poll));
      f.bind(3, observe::to_ns(t));
      if (f.step() && f.int64(0) != 0) return false;
    }
    // Each poll as StateFeed::fold_poll folds it under recorded_rules(): its samples in order (none
    // is held back), a sample for no actor that moves the clock to its time, then its drops.
    Statement p = db_->prepare(
        "SELECT poll, dropped, t_ns FROM stats_polls WHERE session_id = ? AND poll > ? AND t_ns <= ? ORDER BY poll");
    p.bind(1, session);
    p.bind(2, static_cast<std::int64_t>(point.poll));
    p.bind(3, observe::to_ns(t));
    Statement b = db_->prepare(std::string("SELECT poll, ") + storage::sample_columns(format_) +
                               " FROM actor_stats WHERE session_id = ? AND poll > ? ORDER BY poll, rowid");
    b.bind(1, session);
    b.bind(2, static_cast<std::int64_t>(point.poll));
    bool b_more = b.step();
    while (p.step()) {
      const auto number = static_cast<std::uint64_t>(p.int64(0));
      while (b_more) {
        const auto of = static_cast<std::uint64_t>(b.int64(0));
        if (of > number) break;
        if (of < number)
          throw std::invalid_argument("actor_stats refers to poll " + std::to_string(of) +
                                      ", which stats_polls does not have");
        state.apply(storage::read_sample(b, 1), undo);
        b_more = b.step();
      }
      observe::StatsSample heartbeat;
      heartbeat.end = observe::time_from_ns(p.int64(2));
      state.apply(heartbeat, undo);
      state.add_dropped(static_cast<std::uint64_t>(p.int64(1)), undo);
    }
    return true;
  });
}

std::uint64_t SessionReader::keyframe_seq_at(std::int64_t session, TimePoint t) const {
  return guarded([&] {
    Statement k = db_->prepare(
        "SELECT seq FROM keyframes WHERE session_id = ? AND t_ns <= ? ORDER BY seq DESC, poll DESC LIMIT 1");
    k.bind(1, session);
    k.bind(2, observe::to_ns(t));
    return k.step() ? static_cast<std::uint64_t>(k.int64(0)) : std::uint64_t{0};
  });
}

bool SessionReader::advance_is_cheaper(std::int64_t session, const observe::SystemState& state,
                                       const FoldPoint& point, TimePoint t) const {
  const auto actors = static_cast<double>(state.actors().size());
  const auto budget = kKeyframeCostEvents + static_cast<std::uint64_t>(kKeyframeCostPerActor * actors);
  return keyframe_seq_at(session, t) < point.seq + budget;
}

void SessionReader::for_each_event(std::int64_t session, const EventFilter& filter,
                                   const std::function<bool(const observe::Event&)>& visit) const {
  (void)this->session(session);
  guarded([&] {
    if (filter.from > filter.to) return 0;
    const std::uint64_t first =
        filter.from == TimePoint::min() ? 1 : last_seq_at(session, filter.from - Duration(1), 0) + 1;
    const std::uint64_t last = last_seq_at(session, filter.to, 0);
    if (last < first) return 0;
    std::string sql = std::string("SELECT ") + storage::event_columns(format_) +
                      " FROM events WHERE session_id = ? AND seq >= ? AND seq <= ?";
    if (!filter.kinds.empty()) {
      sql += " AND kind IN (";
      for (std::size_t i = 0; i < filter.kinds.size(); ++i) sql += i == 0 ? "?" : ",?";
      sql += ")";
    }
    if (!filter.actors.empty()) {
      std::string list;
      for (std::size_t i = 0; i < filter.actors.size(); ++i) list += i == 0 ? "?" : ",?";
      sql += " AND (actor_id IN (" + list + ") OR peer_id IN (" + list + "))";
    }
    sql += " ORDER BY seq";
    Statement s = db_->prepare(sql);
    int i = 1;
    s.bind(i++, session);
    s.bind(i++, static_cast<std::int64_t>(first));
    s.bind(i++, static_cast<std::int64_t>(last));
    for (observe::EventKind k : filter.kinds) s.bind(i++, observe::to_string(k));
    for (int round = 0; round < 2 && !filter.actors.empty(); ++round)
      for (ActorId a : filter.actors) s.bind(i++, static_cast<std::int64_t>(a.pid));
    while (s.step())
      if (!visit(storage::read_event(s))) break;
    return 0;
  });
}

std::vector<observe::Event> SessionReader::events(std::int64_t session, const EventFilter& filter,
                                                  std::size_t limit) const {
  std::vector<observe::Event> out;
  if (limit == 0) return out;
  for_each_event(session, filter, [&](const observe::Event& e) {
    out.push_back(e);
    return out.size() < limit;
  });
  return out;
}

std::optional<observe::Event> SessionReader::find_traced(std::int64_t session, observe::EventKind kind,
                                                        std::uint64_t trace, std::uint64_t near,
                                                        bool forward) const {
  Statement last = db_->prepare("SELECT max(seq) FROM events WHERE session_id = ?");
  last.bind(1, session);
  const std::uint64_t max_seq = last.step() ? static_cast<std::uint64_t>(last.int64(0)) : 0;
  Statement s = db_->prepare(std::string("SELECT ") + storage::event_columns(format_) +
                             " FROM events WHERE session_id = ? AND seq >= ? AND seq <= ? AND kind = ? AND "
                             "trace = ? ORDER BY seq " +
                             (forward ? "ASC" : "DESC") + " LIMIT 1");
  // Windows of 4,096, 65,536, ... events on the side to look: a message is usually handled soon
  // after it is sent, so the first window holds it and the primary key reads only its pages.
  for (std::uint64_t window = 4096;; window *= 16) {
    const std::uint64_t lo = forward ? near : (near > window ? near - window : 1);
    const std::uint64_t hi = forward ? near + window : near;
    s.reset();
    s.bind(1, session);
    s.bind(2, static_cast<std::int64_t>(lo));
    s.bind(3, static_cast<std::int64_t>(std::min<std::uint64_t>(hi, std::numeric_limits<std::int64_t>::max())));
    s.bind(4, observe::to_string(kind));
    s.bind(5, static_cast<std::int64_t>(trace));
    if (s.step()) return storage::read_event(s);
    if ((forward && hi >= max_seq) || (!forward && lo <= 1)) return std::nullopt;
  }
}

CauseChain SessionReader::cause_chain(std::int64_t session, ActorId actor, std::size_t max_hops) const {
  const SessionInfo info = this->session(session);
  return guarded([&] {
    using observe::EventKind;
    using End = CauseChain::End;
    CauseChain chain;
    chain.actor = actor;
    auto stop = [&](End end, std::string why) {
      chain.end = end;
      chain.explanation = std::move(why);
      return chain;
    };
    const std::string who = "actor " + actor.to_string();

    // How it ended, from the actors table, then its exit event, found by time.
    Statement a = db_->prepare("SELECT exit_kind, stopped_ns FROM actors WHERE session_id = ? AND actor_id = ?");
    a.bind(1, session);
    a.bind(2, static_cast<std::int64_t>(actor.pid));
    if (!a.step()) return stop(End::not_ended, who + " is not in this session");
    const std::string exit_kind(a.text(0));
    if (exit_kind != "failed" && exit_kind != "killed")
      return stop(End::not_ended, who + (exit_kind.empty() ? " was still running when the session ended"
                                                            : " ended normally (" + exit_kind + "), not by a failure or a kill"));
    const TimePoint stopped = observe::time_from_ns(a.int64(1));
    const std::uint64_t exit_last = last_seq_at(session, stopped, 0);
    const std::uint64_t exit_first = last_seq_at(session, stopped - Duration(1), 0) + 1;
    {
      Statement e = db_->prepare(std::string("SELECT ") + storage::event_columns(format_) +
                                 " FROM events WHERE session_id = ? AND seq >= ? AND seq <= ? AND actor_id = ? AND "
                                 "kind = ? ORDER BY seq DESC LIMIT 1");
      e.bind(1, session);
      e.bind(2, static_cast<std::int64_t>(exit_first));
      e.bind(3, static_cast<std::int64_t>(exit_last));
      e.bind(4, static_cast<std::int64_t>(actor.pid));
      e.bind(5, std::string_view(exit_kind));
      if (e.step()) chain.exit = storage::read_event(e);
    }
    const bool failed = exit_kind == "failed";
    if (info.detail == Detail::lifecycle)
      return stop(End::not_recorded, "this session was recorded at lifecycle detail, which keeps no message events: "
                                     "record at full detail to follow a failure back");

    // The first hop: the message whose handling threw, or the last one handled before the kill.
    // Its message_handled event comes just before the exit event.
    const std::uint64_t before = chain.exit ? chain.exit->seq : exit_last;
    std::optional<observe::Event> handled;
    {
      Statement h = db_->prepare(std::string("SELECT ") + storage::event_columns(format_) +
                                 " FROM events WHERE session_id = ? AND seq >= ? AND seq <= ? AND actor_id = ? AND "
                                 "kind = 'message_handled'" +
                                 (failed ? " AND failed = 1" : "") + " ORDER BY seq DESC LIMIT 1");
      for (std::uint64_t window = 4096;; window *= 16) {
        const std::uint64_t lo = before > window ? before - window : 1;
        h.reset();
        h.bind(1, session);
        h.bind(2, static_cast<std::int64_t>(lo));
        h.bind(3, static_cast<std::int64_t>(before));
        h.bind(4, static_cast<std::int64_t>(actor.pid));
        if (h.step()) {
          handled = storage::read_event(h);
          break;
        }
        if (lo <= 1 || !failed) break;  // a kill: only the recent past says what it was doing
      }
    }
    const bool sampled = info.detail == Detail::sampled;
    if (!handled) {
      if (!failed) return stop(End::no_message, who + " was killed; it had handled no recorded message just before");
      return stop(sampled ? End::not_sampled : End::no_message,
                  sampled ? who + " failed, but the message it was handling was not sampled (or it failed outside a "
                                  "message handler): record at full detail to follow it back"
                          : who + " failed outside a message handler (in post_start, post_stop or a supervision event)");
    }

    while (handled) {
      CauseHop hop;
      hop.handled = *handled;
      hop.sent = find_traced(session, EventKind::message_sent, handled->trace, handled->seq, false);
      chain.hops.push_back(hop);
      const observe::Event& h = chain.hops.back().handled;
      const std::string sender = h.peer.is_valid() ? "actor " + h.peer.to_string() : "outside the system";
      if (!h.peer.is_valid()) return stop(End::outside, "the chain starts with a message sent from outside the system");
      if (!hop.sent)
        return stop(End::not_sampled, "the send of the message from " + sender +
                                          " is not in the recording (sent before it began, or not sampled)");
      if (format_ < 4)
        return stop(End::not_recorded, "this recording (format " + std::to_string(format_) +
                                           ") does not record what caused each send: record it again with this "
                                           "version to follow the chain back");
      if (hop.sent->cause == 0)
        return stop(End::other_hook,
                    sampled ? sender + " sent it while not handling a sampled message (in post_start, post_stop, a "
                                       "supervision event, or a message that was not sampled)"
                            : sender + " sent it from post_start, post_stop or a supervision event, not while "
                                       "handling a message");
      if (chain.hops.size() >= max_hops)
        return stop(End::limit, "the chain goes on beyond " + std::to_string(max_hops) + " messages");
      handled = find_traced(session, EventKind::message_handled, hop.sent->cause, hop.sent->seq, true);
      if (!handled)
        return stop(End::not_sampled, "the message " + sender +
                                          " was handling when it sent this one is not in the recording (not sampled, "
                                          "or still being handled when the recording ended)");
    }
    return chain;
  });
}

std::vector<observe::FactorySample> SessionReader::factory_stats(std::int64_t session, TimePoint from,
                                                                TimePoint to) const {
  (void)this->session(session);
  return guarded([&] {
    std::vector<observe::FactorySample> out;
    if (format_ < 7) return out;
    Statement s = db_->prepare(std::string("SELECT ") + storage::factory_sample_columns(format_) +
                               " FROM factory_stats WHERE session_id = ? AND bucket_ns >= ? AND bucket_ns <= ? "
                               "ORDER BY poll, rowid");
    s.bind(1, session);
    s.bind(2, observe::to_ns(from));
    s.bind(3, observe::to_ns(to));
    while (s.step()) out.push_back(storage::read_factory_sample(s, 0));
    return out;
  });
}

std::vector<observe::StatsSample> SessionReader::stats(std::int64_t session, TimePoint from,
                                                       TimePoint to) const {
  (void)this->session(session);
  return guarded([&] {
    std::vector<observe::StatsSample> out;
    Statement s =
        db_->prepare(std::string("SELECT ") + storage::sample_columns(format_) +
                     " FROM actor_stats WHERE session_id = ? AND bucket_ns >= ? AND bucket_ns <= ? ORDER BY "
                     "poll, rowid");
    s.bind(1, session);
    s.bind(2, observe::to_ns(from));
    s.bind(3, observe::to_ns(to));
    while (s.step()) out.push_back(storage::read_sample(s, 0));
    return out;
  });
}

}  // namespace actorscope
