// SessionReader's timeline (issue 20): event density per time bucket, failure/kill/restart markers,
// and stepping to the previous or next event. Everything is counted and filtered by SQLite; the
// only events read into objects are the ones returned.
//
// Two facts of the format carry the speed (docs/RECORDING-FORMAT.md): seq runs 1, 2, 3, ... without
// gaps, and times never decrease with seq. So "the events before time t" is a prefix of seq found by
// a search on the primary key, and the number of events between two times is a difference of seqs.
// The rare events (everything but messages, and messages whose handler threw) are in the partial
// index events_notable, which the recorder makes in new files; in a file made before it, the same
// queries scan the seq range instead.
#include <actorscope/storage/session_reader.hpp>

#include "database.hpp"
#include "event_rows.hpp"
#include "schema.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <system_error>

namespace actorscope {

using storage::Database;
using storage::Statement;

namespace {

/// The condition of the partial index events_notable, word for word: SQLite uses a partial index
/// only for a query whose WHERE has its condition as one of its terms.
constexpr const char* kNotable = "(kind NOT IN ('message_sent', 'message_handled') OR failed = 1)";

bool has_notable_index(Database& db) {
  return db.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'events_notable'")
             .value_or(0) != 0;
}

/// One read transaction for the length of a call, so that a call reads one snapshot of a file that
/// is still being written (its several statements agree), and nothing stays open after it: an
/// open read transaction would pin the snapshot and stop the writer's checkpoints.
class ReadTransaction {
 public:
  explicit ReadTransaction(Database& db) : db_(db) { db_.exec("BEGIN"); }
  ~ReadTransaction() {
    try {
      db_.exec("COMMIT");  // a read transaction: committing only ends it
    } catch (...) {        // the connection already ended it (an I/O error): nothing to end
    }
  }
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

 private:
  Database& db_;
};

}  // namespace

/// (time, seq) of events of a session that a reader has looked at: each is a fact that never
/// changes (a recorder only appends to a session, and a reader sees committed rows only), so they
/// are kept across calls, and a later search starts between the two nearest. Ordered by time and,
/// since times never decrease with seq, by seq as well.
struct SessionReader::TimelineCache {
  using Points = std::set<std::pair<std::int64_t, std::uint64_t>>;
  std::map<std::int64_t, Points> sessions;
  /// Beyond this many points a session's are dropped and gathered anew (a few MB at most).
  static constexpr std::size_t kMaxPoints = 100'000;
};

namespace {

/// Finds, for times on the runtime clock, how many events of a session come before them. Relies on
/// seq having no gaps and times never decreasing with seq. Every row it reads is remembered
/// (`known`), and each search starts between the nearest known rows on either side; within them it
/// interpolates (times grow about evenly with seq over short stretches) and halves whenever that
/// has not halved the range. Across the edges of one density, and across the polls of a follower,
/// the known rows close in, so a search reads a row or two, in a page it has usually read already.
class SeqIndex {
 public:
  using Points = SessionReader::TimelineCache::Points;

  SeqIndex(Database& db, std::int64_t session, Points& known) : session_(session), known_(known) {
    if (known_.size() > SessionReader::TimelineCache::kMaxPoints) known_.clear();
    probe_ =
        db.prepare("SELECT seq, t_ns FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT 1");
    Statement last =
        db.prepare("SELECT seq, t_ns FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1");
    last.bind(1, session);
    if (last.step()) {
      max_seq_ = static_cast<std::uint64_t>(last.int64(0));
      t_last_ = last.int64(1);
      known_.emplace(t_last_, max_seq_);
      if (known_.begin()->second != 1) {  // the first event, unless it is known already
        const auto first = at_or_after(1);
        if (!first) throw std::invalid_argument("the events table lost rows while it was read");
      }
      t_first_ = known_.begin()->first;
    }
  }

  std::uint64_t max_seq() const noexcept { return max_seq_; }

  /// The largest seq whose time is before `t` (0 when none is).
  std::uint64_t before(std::int64_t t) {
    if (max_seq_ == 0 || t <= t_first_) return 0;
    if (t_last_ < t) return max_seq_;
    // Invariants: event lo exists and is before t; the first event at or after seq hi is at or
    // after t, at t_hi. The answer is lo once hi = lo + 1. Both start at the nearest known rows.
    auto above = known_.lower_bound({t, 0});  // the first known at or after t: exists (t_last_ >= t)
    auto below = std::prev(above);            // exists: the first event is known, and before t
    std::uint64_t lo = below->second, hi = above->second;
    std::int64_t t_lo = below->first, t_hi = above->first;
    bool halve = false;
    while (hi - lo > 1) {
      std::uint64_t mid = lo + (hi - lo) / 2;
      if (!halve && t_hi > t_lo) {
        const long double f = static_cast<long double>(t - t_lo) / static_cast<long double>(t_hi - t_lo);
        mid = std::clamp<std::uint64_t>(
            lo + static_cast<std::uint64_t>(f * static_cast<long double>(hi - lo)), lo + 1, hi - 1);
      }
      const std::uint64_t span = hi - lo;
      const auto row = at_or_after(mid);
      if (!row || row->first >= hi) {
        hi = mid;  // no event in [mid, hi): only in a damaged file
      } else if (row->second < t) {
        lo = row->first;
        t_lo = row->second;
      } else {
        hi = mid;  // the first event at or after mid is this one, at or after t
        t_hi = row->second;
      }
      // A guess that did not at least halve the range is followed by one halving step.
      halve = !halve && (hi - lo) * 2 > span;
    }
    return lo;
  }

  /// The largest seq whose time is at or before `t`.
  std::uint64_t through(std::int64_t t) {
    if (t == std::numeric_limits<std::int64_t>::max()) return max_seq_;
    return before(t + 1);
  }

 private:
  std::optional<std::pair<std::uint64_t, std::int64_t>> at_or_after(std::uint64_t seq) {
    probe_.reset();
    probe_.bind(1, session_);
    probe_.bind(2, static_cast<std::int64_t>(seq));
    if (!probe_.step()) return std::nullopt;
    const auto row = std::make_pair(static_cast<std::uint64_t>(probe_.int64(0)), probe_.int64(1));
    known_.emplace(row.second, row.first);
    return row;
  }

  std::int64_t session_;
  Points& known_;
  Statement probe_;
  std::uint64_t max_seq_ = 0;
  std::int64_t t_first_ = 0, t_last_ = 0;
};

/// One line, at most `max` bytes (cut at a character boundary, with "…").
std::string one_line(std::string s, std::size_t max = 120) {
  std::replace_if(
      s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  if (s.size() <= max) return s;
  std::size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;  // not inside a UTF-8 character
  s.resize(cut);
  s += "\xE2\x80\xA6";
  return s;
}

std::string who(std::string_view name, std::int64_t pid) {
  if (!name.empty()) return std::string(name);
  return "actor " + ActorId{0, static_cast<std::uint64_t>(pid)}.to_string();
}

bool is_notable_kind(observe::EventKind k) {
  return k != observe::EventKind::message_sent && k != observe::EventKind::message_handled;
}

}  // namespace

SessionReader::TimelineCache::Points& SessionReader::known_points(std::int64_t session) const {
  if (!timeline_cache_) timeline_cache_ = std::make_shared<TimelineCache>();
  return timeline_cache_->sessions[session];
}

std::vector<DensityBucket> SessionReader::density(std::int64_t session, TimePoint from, TimePoint to,
                                                  std::size_t buckets) const {
  const std::int64_t from_ns = observe::to_ns(from), to_ns = observe::to_ns(to);
  // to − from must fit in 63 bits (for from ≥ 0, as the runtime clocks' times are, it always does).
  if (from_ns < 0 && to_ns > std::numeric_limits<std::int64_t>::max() + from_ns)
    throw std::invalid_argument(
        "SessionReader::density: the time range is longer than 292 years; pass a session's start_time and "
        "end_time, or a part of them");
  if (buckets > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("SessionReader::density: more than 4,294,967,295 buckets asked for");
  try {
    ReadTransaction tx(*db_);
    (void)this->session(session);
    std::vector<DensityBucket> out;
    if (buckets == 0 || from_ns > to_ns) return out;
    const auto n = static_cast<std::int64_t>(buckets);
    const std::int64_t d = to_ns - from_ns;
    // The bucket of a time: with x = t − from, bucket = min(n − 1, (n·(x + 1) − 1) / d), whose edges
    // are from + ⌊i·d/n⌋. For a span so long that n·d overflows, x and d are counted in units of
    // r ns (edges from + r·⌊i·d'/n⌋): SQLite and the edges below agree on every event's bucket.
    std::int64_t r = 1;
    while (d / r >= std::numeric_limits<std::int64_t>::max() / n - 1) r *= 2;
    const std::int64_t dr = std::max<std::int64_t>(d / r, 1);
    std::vector<std::int64_t> edges(buckets);
    for (std::size_t i = 0; i < buckets; ++i)
      edges[i] = from_ns + r * (static_cast<std::int64_t>(i) * dr / n);

    out.resize(buckets);
    for (std::size_t i = 0; i < buckets; ++i) {
      out[i].from = observe::time_from_ns(edges[i]);
      out[i].to = i + 1 < buckets ? observe::time_from_ns(edges[i + 1]) : to;
    }

    // Every event of a bucket, from seq: the events before each edge.
    SeqIndex index(*db_, session, known_points(session));
    const std::uint64_t recorded = static_cast<std::uint64_t>(
        db_->scalar("SELECT events_recorded FROM sessions WHERE id = " + std::to_string(session))
            .value_or(0));
    const bool gapless =
        index.max_seq() == recorded;  // the recorder's invariant; a damaged file may break it
    std::vector<std::uint64_t> before(buckets + 1);
    for (std::size_t i = 0; i < buckets; ++i) before[i] = index.before(edges[i]);
    before[buckets] = index.through(to_ns);
    if (before[buckets] == before[0]) return out;

    // The classes, by SQLite: the notable events of the range, grouped by bucket. (A child_restarted
    // whose new actor's pre_start threw has failed = 1 too, but that failure is the actor's own
    // failed event: it counts once.) Messages are the
    // rest of each bucket's total, so the many message rows are never read. In a file without the
    // index, SQLite counts every row of each bucket; in one whose seq has gaps (never seen: only a
    // damaged file), the same GROUP BY reads every row of the range and counts the messages too.
    const bool indexed = gapless && has_notable_index(*db_);
    if (gapless && !indexed) {
      // A file made before the index: every row of the range is read, bucket by bucket on the
      // primary key (the seq ranges are known), which spares SQLite sorting them for a GROUP BY.
      Statement c = db_->prepare(
          "SELECT sum(kind IN ('failed', 'killed') OR (kind = 'message_handled' AND failed = 1)), "
          "sum(kind IN ('message_sent', 'message_handled') AND NOT ifnull(failed, 0)), count(*) FROM events "
          "WHERE session_id = ? AND seq > ? AND seq <= ?");
      for (std::size_t i = 0; i < buckets; ++i) {
        if (before[i + 1] == before[i]) continue;
        c.reset();
        c.bind(1, session);
        c.bind(2, static_cast<std::int64_t>(before[i]));
        c.bind(3, static_cast<std::int64_t>(before[i + 1]));
        if (!c.step()) continue;
        out[i].failures = static_cast<std::uint32_t>(c.int64(0));
        out[i].messages = static_cast<std::uint32_t>(c.int64(1));
        out[i].lifecycle = static_cast<std::uint32_t>(c.int64(2)) - out[i].failures - out[i].messages;
      }
      return out;
    }
    std::string sql =
        "SELECT min(?4, (?3 * ((t_ns - ?1) / ?2 + 1) - 1) / ?5) AS bucket, "
        "sum(kind IN ('failed', 'killed') OR (kind = 'message_handled' AND failed = 1)), "
        "sum(kind IN ('message_sent', 'message_handled') AND NOT ifnull(failed, 0)), "
        "count(*) FROM events";
    sql += indexed ? " INDEXED BY events_notable" : "";
    sql += " WHERE session_id = ?6 AND seq > ?7 AND seq <= ?8";
    if (indexed) {
      sql += " AND ";
      sql += kNotable;
    }
    sql += " GROUP BY bucket";
    Statement s = db_->prepare(sql);
    s.bind(1, from_ns);
    s.bind(2, r);
    s.bind(3, n);
    s.bind(4, n - 1);
    s.bind(5, dr);
    s.bind(6, session);
    s.bind(7, static_cast<std::int64_t>(before[0]));
    s.bind(8, static_cast<std::int64_t>(before[buckets]));
    while (s.step()) {
      const std::int64_t b = s.int64(0);
      if (b < 0 || b >= n) throw std::invalid_argument("an event's time is outside its seq range");
      DensityBucket& x = out[static_cast<std::size_t>(b)];
      x.failures = static_cast<std::uint32_t>(s.int64(1));
      const auto messages = static_cast<std::uint32_t>(s.int64(2));
      const auto rows = static_cast<std::uint32_t>(s.int64(3));
      x.lifecycle = rows - x.failures - messages;
      x.messages = messages;
    }
    if (indexed) {
      for (std::size_t i = 0; i < buckets; ++i) {
        const auto total = static_cast<std::uint32_t>(before[i + 1] - before[i]);
        if (total < out[i].lifecycle + out[i].failures)
          throw std::invalid_argument("the events table has fewer rows than its seq numbers say");
        out[i].messages = total - out[i].lifecycle - out[i].failures;
      }
    }
    return out;
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  } catch (const std::invalid_argument& e) {
    throw storage::damaged_error(file_, e.what());
  }
}

std::vector<TimelineMarker> SessionReader::markers(std::int64_t session, TimePoint from, TimePoint to,
                                                   std::size_t limit) const {
  try {
    ReadTransaction tx(*db_);
    (void)this->session(session);
    std::vector<TimelineMarker> out;
    if (limit == 0 || from > to) return out;
    SeqIndex index(*db_, session, known_points(session));
    const std::uint64_t first = index.before(observe::to_ns(from)) + 1;
    const std::uint64_t last = index.through(observe::to_ns(to));
    if (last < first) return out;
    const bool indexed = has_notable_index(*db_);
    const std::string by = indexed ? std::string(" INDEXED BY events_notable") : std::string();
    const std::string notable = indexed ? std::string(" AND ") + kNotable : std::string();
    const auto sql_limit =
        static_cast<std::int64_t>(std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max()));

    // Failures and kills, with the actor's name.
    {
      Statement s =
          // The matching seqs from the index first, then their rows: selecting a column that is not
          // in the index straight from it would make SQLite read the table row of every notable
          // event before testing its kind (and the LIMIT keeps this subquery from being merged).
          db_->prepare(
              "SELECT e.seq, e.t_ns, e.kind, e.actor_id, e.detail, a.name FROM (SELECT seq FROM events" + by +
              " WHERE session_id = ?1 AND seq >= ?2 AND seq <= ?3" + notable +
              " AND kind IN ('failed', 'killed') ORDER BY seq LIMIT ?4) AS m"
              " JOIN events AS e ON e.session_id = ?1 AND e.seq = m.seq"
              " LEFT JOIN actors AS a ON a.session_id = e.session_id AND a.actor_id = e.actor_id"
              " ORDER BY e.seq");
      s.bind(1, session);
      s.bind(2, static_cast<std::int64_t>(first));
      s.bind(3, static_cast<std::int64_t>(last));
      s.bind(4, sql_limit);
      while (s.step()) {
        TimelineMarker m;
        m.seq = static_cast<std::uint64_t>(s.int64(0));
        m.time = observe::time_from_ns(s.int64(1));
        const bool failed = s.text(2) == "failed";
        m.kind = failed ? TimelineMarker::Kind::failure : TimelineMarker::Kind::kill;
        m.actor = {0, static_cast<std::uint64_t>(s.int64(3))};
        const std::string_view reason = s.text(4);
        m.label = who(s.text(5), s.int64(3)) + (failed ? " failed" : " was killed");
        if (!reason.empty()) {
          m.label += ": ";
          m.label += reason;
        }
        m.label = one_line(std::move(m.label));
        out.push_back(std::move(m));
      }
    }

    // Restarts: a named child spawned by the same supervisor as the previous child of that name,
    // which had exited by then. The previous one is found among all the session's spawns (it may
    // precede `from`), by a window over the spawned events: there are as many as actors.
    {
      Statement s = db_->prepare(
          "WITH spawns AS (SELECT seq, t_ns, actor_id, name, lag(actor_id) OVER (PARTITION BY peer_id, name "
          "ORDER BY "
          "seq) AS previous FROM events" +
          by + " WHERE session_id = ?1 AND seq <= ?3" + notable +
          " AND kind = 'spawned' AND name IS NOT NULL AND peer_id IS NOT NULL) "
          "SELECT s.seq, s.t_ns, s.actor_id, s.name, s.previous, p.exit_kind, p.exit_reason FROM spawns AS s "
          "JOIN actors AS p ON p.session_id = ?1 AND p.actor_id = s.previous "
          "WHERE s.seq >= ?2 AND p.stopped_ns <= s.t_ns ORDER BY s.seq LIMIT ?4");
      s.bind(1, session);
      s.bind(2, static_cast<std::int64_t>(first));
      s.bind(3, static_cast<std::int64_t>(last));
      s.bind(4, sql_limit);
      while (s.step()) {
        TimelineMarker m;
        m.kind = TimelineMarker::Kind::restart;
        m.seq = static_cast<std::uint64_t>(s.int64(0));
        m.time = observe::time_from_ns(s.int64(1));
        m.actor = {0, static_cast<std::uint64_t>(s.int64(2))};
        m.label = std::string(s.text(3)) + " restarted: replaces actor " +
                  ActorId{0, static_cast<std::uint64_t>(s.int64(4))}.to_string();
        const std::string_view how = s.text(5), why = s.text(6);
        if (!how.empty()) {
          m.label += how == "killed"   ? ", which was killed"
                     : how == "failed" ? ", which failed"
                                       : ", which stopped";
          if (!why.empty()) {
            m.label += ": ";
            m.label += why;
          }
        }
        m.label = one_line(std::move(m.label));
        out.push_back(std::move(m));
      }
    }
    // A Supervisor's restarts say so (child_restarted, format 5): exact, named or not. Such a restart
    // is not marked a second time by its spawn above.
    {
      Statement s = db_->prepare(
          "SELECT e.seq, e.t_ns, e.actor_id, e.peer_id, e.name, e.thread, e.failed, e.detail FROM (SELECT "
          "seq FROM "
          "events" +
          by + " WHERE session_id = ?1 AND seq >= ?2 AND seq <= ?3" + notable +
          " AND kind = 'child_restarted' ORDER BY seq LIMIT ?4) AS m"
          " JOIN events AS e ON e.session_id = ?1 AND e.seq = m.seq ORDER BY e.seq");
      s.bind(1, session);
      s.bind(2, static_cast<std::int64_t>(first));
      s.bind(3, static_cast<std::int64_t>(last));
      s.bind(4, sql_limit);
      std::vector<TimelineMarker> restarts;
      while (s.step()) {
        TimelineMarker m;
        m.kind = TimelineMarker::Kind::restart;
        m.seq = static_cast<std::uint64_t>(s.int64(0));
        m.time = observe::time_from_ns(s.int64(1));
        // The new actor; the one it replaces when the start failed and there is none.
        m.actor = {0, static_cast<std::uint64_t>(s.is_null(2) ? s.int64(3) : s.int64(2))};
        m.label = "child \"" + std::string(s.text(4)) + "\" restarted (#" + std::to_string(s.int64(5)) + ")";
        if (!s.is_null(3))
          m.label += ": replaces actor " + ActorId{0, static_cast<std::uint64_t>(s.int64(3))}.to_string();
        if (!s.text(7).empty()) {
          m.label += ", ";
          m.label += s.text(7);
        }
        // (A start that failed says so at the end of the text: "...; its start failed: ...".)
        m.label = one_line(std::move(m.label));
        restarts.push_back(std::move(m));
      }
      if (!restarts.empty()) {
        std::set<ActorId> exact;
        for (const TimelineMarker& m : restarts) exact.insert(m.actor);
        std::erase_if(out, [&](const TimelineMarker& m) {
          return m.kind == TimelineMarker::Kind::restart && exact.count(m.actor) != 0;
        });
        out.insert(out.end(), std::make_move_iterator(restarts.begin()),
                   std::make_move_iterator(restarts.end()));
      }
    }
    std::sort(out.begin(), out.end(),
              [](const TimelineMarker& a, const TimelineMarker& b) { return a.seq < b.seq; });
    if (out.size() > limit) out.resize(limit);
    return out;
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  } catch (const std::invalid_argument& e) {
    throw storage::damaged_error(file_, e.what());
  }
}

std::optional<observe::Event> SessionReader::adjacent_event(std::int64_t session, TimePoint t, bool forward,
                                                            ActorId actor,
                                                            std::vector<observe::EventKind> kinds) const {
  try {
    ReadTransaction tx(*db_);
    (void)this->session(session);
    SeqIndex index(*db_, session, known_points(session));
    const std::int64_t t_ns = observe::to_ns(t);
    // Forward: after every event at or before t. Backward: at or before the last event before t.
    const std::uint64_t edge = forward ? index.through(t_ns) : index.before(t_ns);
    if ((forward && edge >= index.max_seq()) || (!forward && edge == 0)) return std::nullopt;
    std::sort(kinds.begin(), kinds.end());
    kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
    // Only lifecycle and failure kinds asked for: the partial index holds every candidate, and
    // reading it in seq order skips the messages in between.
    const bool indexed =
        !kinds.empty() && std::all_of(kinds.begin(), kinds.end(), is_notable_kind) && has_notable_index(*db_);
    // Through the index, the seq is found from the index alone and then its row is read (see
    // markers); without it, the primary key is scanned from `edge` until a row matches.
    std::string sql = std::string("SELECT ") + storage::event_columns(format_) +
                      " FROM events WHERE session_id = ?1 AND seq = (SELECT seq FROM events" +
                      (indexed ? " INDEXED BY events_notable" : "") + " WHERE session_id = ?1 AND seq " +
                      (forward ? "> ?2" : "<= ?2");
    if (indexed) {
      sql += " AND ";
      sql += kNotable;
    }
    if (actor.is_valid()) sql += " AND actor_id = ?3";
    if (!kinds.empty()) {
      sql += " AND kind IN (";
      for (std::size_t i = 0; i < kinds.size(); ++i) sql += (i == 0 ? "?" : ",?") + std::to_string(4 + i);
      sql += ")";
    }
    sql += forward ? " ORDER BY seq ASC LIMIT 1)" : " ORDER BY seq DESC LIMIT 1)";
    Statement s = db_->prepare(sql);
    s.bind(1, session);
    s.bind(2, static_cast<std::int64_t>(edge));
    if (actor.is_valid()) s.bind(3, static_cast<std::int64_t>(actor.pid));
    int i = 4;
    for (observe::EventKind k : kinds) s.bind(i++, observe::to_string(k));
    if (!s.step()) return std::nullopt;
    return storage::read_event(s);
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  } catch (const std::invalid_argument& e) {
    throw storage::damaged_error(file_, e.what());
  }
}

bool SessionReader::refresh() {
  // Database opened it with "?immutable=1" only in that one case (see database.cpp).
  const char* name = sqlite3_db_filename(db_->handle(), "main");
  if (name == nullptr || sqlite3_uri_boolean(name, "immutable", 0) == 0) return false;
  std::filesystem::path wal = file_;
  wal += "-wal";
  std::error_code ec;
  if (!std::filesystem::exists(wal, ec)) return false;
  *this = SessionReader(file_, options_);  // opens it the ordinary way now, and checks it again
  return true;
}

}  // namespace actorscope
