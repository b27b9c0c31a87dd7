// The replay timeline's queries (issue 20): SessionReader::density counts a scripted recording's
// events exactly per time bucket and class, and its buckets cover [from, to]; markers lists the
// failures, kills and restarts in order with their labels; adjacent_event steps in both directions
// with actor and kind filters. Each gives the same answers in a file without the events_notable
// index (an older file), and a bad session id is a RecordingError (no_such_session).
//
// The recording is scripted: exact events with exact times, fed into a real Recorder (attached to a
// manual System, so nothing else happens), so that every count is known.
#include "recording_test.hpp"
#include "sqlite_test.hpp"

#include <deque>
#include <random>

using namespace recording_test;
namespace obs = as::observe;
using Kind = obs::EventKind;
using Marker = as::TimelineMarker;

namespace {

constexpr std::int64_t kMs = 1'000'000;

/// What the script put where, for the expectations.
struct Script {
  std::int64_t session = 0;
  std::int64_t t0 = 0;  ///< the session's start (its runtime_info event), ns
  std::uint64_t failed_seq = 0, restart_seq = 0, killed_seq = 0;
};

class Feeder {
 public:
  Feeder(as::Recorder& rec, std::int64_t t0) : rec_(rec), t0_(t0) {}
  /// An event at t0 + ms milliseconds.
  obs::Event& add(Kind kind, std::int64_t ms, std::uint64_t actor, std::uint64_t peer = 0) {
    obs::Event e;
    e.seq = ++seq_;  // the collector hands events out in the engine's order, which seq is
    e.kind = kind;
    e.time = obs::time_from_ns(t0_ + ms * kMs);
    e.actor = {0, actor};
    e.peer = {0, peer};
    if (kind == Kind::message_sent || kind == Kind::message_handled) {
      e.message_type = "test::Job";
      e.trace = kind == Kind::message_sent ? ++trace_ : trace_;
    }
    events_.push_back(e);
    return events_.back();
  }
  void message(std::int64_t ms, std::uint64_t from, std::uint64_t to) {
    add(Kind::message_sent, ms, from, to);
    add(Kind::message_handled, ms, to, from);
  }
  /// Hands everything to the recorder and waits (generous deadline) until it is committed.
  void commit() {
    const std::uint64_t target = rec_.progress().events_recorded + events_.size();
    for (const obs::Event& e : events_) rec_.on_event(e);
    events_.clear();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (rec_.progress().events_recorded < target) {
      QVERIFY2(std::chrono::steady_clock::now() < deadline,
               qPrintable(QString("the recorder committed %1 of %2 events (%3 dropped) in 60 s")
                              .arg(rec_.progress().events_recorded)
                              .arg(target)
                              .arg(rec_.progress().events_dropped)));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the pause between polls of a condition
    }
  }

 private:
  as::Recorder& rec_;
  std::int64_t t0_;
  std::uint64_t trace_ = 0;
  std::uint64_t seq_ = 1;  // 1 is the attach-time runtime_info
  std::deque<obs::Event> events_;
};

/// The script, at these times (ms after t0), with its classes:
///   0  runtime_info (seq 1, from attach)                       lifecycle
///   1  spawned sup (1)                                         lifecycle
///   2  spawned worker-a (2) by sup, linked                     lifecycle ×2
///   10..19  ten messages sup -> worker-a (sent + handled)      messages ×20
///   20 message_handled that threw, failed worker-a             failures ×2
///   30 spawned worker-a (3) by sup: a restart of 2             lifecycle
///   40 spawned an unnamed helper (4) by sup                    lifecycle
///   41 killed 4                                                failures
///   50 spawned worker-a (5) by sup while 3 lives: no restart   lifecycle
///   60..64 five messages 3 -> 5                                messages ×10
///   99 stopped 5                                               lifecycle
Script record_script(const std::filesystem::path& file) {
  Script s;
  as::System sys{as::make_runtime("manual")};
  as::Recorder rec(file, {.detail = as::Detail::full});
  sys.attach(rec);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (rec.progress().events_recorded < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the attach-time runtime_info
  s.session = rec.progress().session;
  s.t0 = obs::to_ns(sys.runtime().now());
  Feeder f(rec, s.t0);
  f.add(Kind::spawned, 1, 1).name = "sup";
  f.add(Kind::spawned, 2, 2, 1).name = "worker-a";
  f.add(Kind::linked, 2, 2, 1);
  for (int i = 0; i < 10; ++i) f.message(10 + i, 1, 2);
  f.add(Kind::message_sent, 20, 1, 2);
  f.add(Kind::message_handled, 20, 2, 1).failed = true;
  f.add(Kind::failed, 20, 2).text = "division by zero";
  f.add(Kind::spawned, 30, 3, 1).name = "worker-a";
  f.add(Kind::spawned, 40, 4, 1);
  f.add(Kind::killed, 41, 4).text = "shutdown";
  f.add(Kind::spawned, 50, 5, 1).name = "worker-a";
  for (int i = 0; i < 5; ++i) f.message(60 + i, 3, 5);
  f.add(Kind::stopped, 99, 5).text = "done";
  f.commit();
  // seq: 1 runtime_info, 2-4 spawns and link, 5-24 messages, 25-26 the throwing message, 27 failed,
  // 28 restart, 29 helper, 30 killed, 31 worker-a (5), 32-41 messages, 42 stopped.
  s.failed_seq = 27;
  s.restart_seq = 28;
  s.killed_seq = 30;
  return s;
}

as::TimePoint at(const Script& s, std::int64_t ms) {
  return obs::time_from_ns(s.t0 + ms * kMs);
}

/// A copy of `file` without the events_notable index: what a file made before it looks like.
std::filesystem::path without_index(const std::filesystem::path& file, const QTemporaryDir& dir) {
  const auto copy = path_in(dir, "old.db");
  std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
  Sqlite db(copy);
  if (!db.exec("DROP INDEX events_notable; PRAGMA journal_mode = DELETE")) return {};
  return copy;
}

struct Counts {
  std::uint32_t lifecycle, messages, failures;
};

/// Whether `d` counts `events` (all of a session's) exactly: each bucket's classes, by time.
bool counts_exactly(const std::vector<as::DensityBucket>& d, const std::vector<obs::Event>& events) {
  std::vector<Counts> want(d.size(), Counts{0, 0, 0});
  for (const obs::Event& e : events) {
    if (d.empty() || e.time < d.front().from || e.time > d.back().to) continue;
    std::size_t b = static_cast<std::size_t>(
        std::upper_bound(d.begin(), d.end(), e.time,
                         [](as::TimePoint t, const as::DensityBucket& x) { return t < x.from; }) -
        d.begin() - 1);
    while (b > 0 && d[b].from == d[b - 1].from && d[b].from == d[b].to) --b;  // empty buckets share a time
    if (e.time >= d[b].to && b + 1 < d.size()) return false;
    Counts& c = want[b];
    if (e.kind == Kind::failed || e.kind == Kind::killed || e.failed)
      ++c.failures;
    else if (e.kind == Kind::message_sent || e.kind == Kind::message_handled)
      ++c.messages;
    else
      ++c.lifecycle;
  }
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i].lifecycle != want[i].lifecycle || d[i].messages != want[i].messages ||
        d[i].failures != want[i].failures)
      return false;
  return true;
}

}  // namespace

class TestSessionTimeline : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path file_, old_;
  Script script_;

  /// The new file and the one without the index: every answer must be the same in both.
  std::vector<std::filesystem::path> files() const { return {file_, old_}; }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    file_ = path_in(dir_, "script.db");
    script_ = record_script(file_);
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file_);
    QCOMPARE(r.session(script_.session).events_recorded, 42u);
    QCOMPARE(r.events(script_.session)[script_.failed_seq - 1].kind, Kind::failed);
    QCOMPARE(r.events(script_.session)[script_.restart_seq - 1].kind, Kind::spawned);
    QCOMPARE(r.events(script_.session)[script_.killed_seq - 1].kind, Kind::killed);
    old_ = without_index(file_, dir_);
    QVERIFY2(!old_.empty(), "the index could not be dropped from the copy");
  }

  void the_recorder_makes_the_notable_index_and_the_old_copy_has_none() {
    auto indexes = [](const std::filesystem::path& file) {
      sqlite3* db = nullptr;
      sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(
          db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'events_notable'", -1, &st,
          nullptr);
      const int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
      sqlite3_finalize(st);
      sqlite3_close_v2(db);
      return n;
    };
    QCOMPARE(indexes(file_), 1);
    QCOMPARE(indexes(old_), 0);
  }

  void density_counts_each_class_exactly_per_bucket() {
    // Ten buckets of 10 ms over [t0, t0 + 100 ms].
    const std::vector<Counts> expected = {
        {3, 0, 0},   // 0: runtime_info, spawned sup, spawned worker-a... and the link at 2 ms
        {0, 20, 0},  // 10-19: ten messages
        {0, 1, 2},   // 20: the send of the throwing message, its handling, failed
        {1, 0, 0},   // 30: the restart
        {1, 0, 1},   // 40, 41: the helper and its kill
        {1, 0, 0},   // 50: worker-a (5)
        {0, 10, 0},  // 60-64
        {0, 0, 0},   // 70
        {0, 0, 0},   // 80
        {1, 0, 0},   // 99: stopped
    };
    for (const auto& file : files()) {
      const as::SessionReader r(file);
      const auto d = r.density(script_.session, at(script_, 0), at(script_, 100), 10);
      QCOMPARE(d.size(), 10u);
      for (std::size_t i = 0; i < d.size(); ++i) {
        const QString where = QString::fromStdString(file.filename().string()) + QString(" bucket %1").arg(i);
        QVERIFY2(d[i].from == at(script_, 10 * static_cast<std::int64_t>(i)), qPrintable(where));
        QVERIFY2(d[i].to == at(script_, 10 * static_cast<std::int64_t>(i) + 10), qPrintable(where));
        // The first bucket holds the runtime_info too: four lifecycle events.
        const std::uint32_t lifecycle = expected[i].lifecycle + (i == 0 ? 1 : 0);
        QVERIFY2(d[i].lifecycle == lifecycle,
                 qPrintable(where + QString(": lifecycle %1").arg(d[i].lifecycle)));
        QVERIFY2(d[i].messages == expected[i].messages,
                 qPrintable(where + QString(": messages %1").arg(d[i].messages)));
        QVERIFY2(d[i].failures == expected[i].failures,
                 qPrintable(where + QString(": failures %1").arg(d[i].failures)));
      }
    }
  }

  void density_buckets_cover_the_range_and_hold_each_event_once() {
    for (const auto& file : files()) {
      const as::SessionReader r(file);
      // Ranges that cut through events, buckets that do not divide the span, a single bucket, a
      // range that ends exactly on an event (the last bucket holds it), and a range in one instant.
      struct Case {
        std::int64_t from_ns, to_ns;
        std::size_t buckets;
      };
      const std::int64_t t0 = script_.t0;
      const Case cases[] = {{t0 + 5 * kMs, t0 + 41 * kMs, 7},
                            {t0, t0 + 99 * kMs, 1},
                            {t0 + 15 * kMs, t0 + 62 * kMs, 800},
                            {t0 + 20 * kMs, t0 + 20 * kMs, 3},
                            {t0 - 1000 * kMs, t0 + 1000 * kMs, 13}};
      for (const Case& c : cases) {
        const auto from = obs::time_from_ns(c.from_ns), to = obs::time_from_ns(c.to_ns);
        const auto d = r.density(script_.session, from, to, c.buckets);
        QCOMPARE(d.size(), c.buckets);
        QVERIFY(d.front().from == from);
        QVERIFY(d.back().to == to);
        std::uint64_t sum = 0, failures = 0;
        for (std::size_t i = 0; i < d.size(); ++i) {
          if (i + 1 < d.size()) QVERIFY(d[i].to == d[i + 1].from);
          QVERIFY(d[i].from <= d[i].to);
          sum += d[i].total();
          failures += d[i].failures;
        }
        as::EventFilter in;
        in.from = from;
        in.to = to;
        const auto events = r.events(script_.session, in);
        QCOMPARE(sum, events.size());
        const auto failing = std::count_if(events.begin(), events.end(), [](const obs::Event& e) {
          return e.kind == Kind::failed || e.kind == Kind::killed || e.failed;
        });
        QCOMPARE(failures, static_cast<std::uint64_t>(failing));
        // Each event is in the bucket whose [from, to) holds its time (the last bucket: [from, to]).
        for (const obs::Event& e : events) {
          std::size_t b = 0;
          while (b + 1 < d.size() && e.time >= d[b + 1].from) ++b;
          QVERIFY(e.time >= d[b].from && (e.time < d[b].to || (b + 1 == d.size() && e.time <= d[b].to)));
        }
      }
      // A span so long that the buckets are counted in coarser units: everything in the first.
      const auto whole = r.density(script_.session, at(script_, 0), as::TimePoint::max(), 800);
      QCOMPARE(whole.size(), 800u);
      QCOMPARE(whole.front().total(), 42u);
      QVERIFY(whole.back().to == as::TimePoint::max());
      // Nothing to count.
      QVERIFY(r.density(script_.session, at(script_, 10), at(script_, 5), 10).empty());
      QVERIFY(r.density(script_.session, at(script_, 0), at(script_, 10), 0).empty());
    }
  }

  void markers_are_the_failures_kills_and_restarts_in_order() {
    for (const auto& file : files()) {
      const as::SessionReader r(file);
      const auto m = r.markers(script_.session, at(script_, 0), at(script_, 100));
      QCOMPARE(m.size(), 3u);
      QCOMPARE(m[0].kind, Marker::Kind::failure);
      QCOMPARE(m[0].seq, script_.failed_seq);
      QVERIFY(m[0].time == at(script_, 20));
      QCOMPARE(m[0].actor, (as::ActorId{0, 2}));
      QCOMPARE(m[0].label, std::string("worker-a failed: division by zero"));
      QCOMPARE(m[1].kind, Marker::Kind::restart);
      QCOMPARE(m[1].seq, script_.restart_seq);
      QCOMPARE(m[1].actor, (as::ActorId{0, 3}));
      QCOMPARE(m[1].label,
               std::string("worker-a restarted: replaces actor 0.2, which failed: division by zero"));
      QCOMPARE(m[2].kind, Marker::Kind::kill);
      QCOMPARE(m[2].seq, script_.killed_seq);
      QCOMPARE(m[2].actor, (as::ActorId{0, 4}));
      QCOMPARE(m[2].label, std::string("actor 0.4 was killed: shutdown"));

      // A range: only what is in it (a restart whose predecessor is before the range counts).
      const auto mid = r.markers(script_.session, at(script_, 25), at(script_, 41));
      QCOMPARE(mid.size(), 2u);
      QCOMPARE(mid[0].kind, Marker::Kind::restart);
      QCOMPARE(mid[1].kind, Marker::Kind::kill);
      // The limit keeps the earliest.
      const auto first = r.markers(script_.session, at(script_, 0), at(script_, 100), 2);
      QCOMPARE(first.size(), 2u);
      QCOMPARE(first[1].seq, script_.restart_seq);
      QVERIFY(r.markers(script_.session, at(script_, 0), at(script_, 100), 0).empty());
      QVERIFY(r.markers(script_.session, at(script_, 42), at(script_, 100)).empty());
    }
  }

  void a_supervisors_restarts_are_marked_exactly_once_named_or_not() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "supervisor.db");
    std::int64_t session = 0, t0 = 0;
    auto restarted = [](obs::Event& e, const char* child, const char* why, bool start_failed) {
      e.name = child;
      e.text = why;
      e.thread = 1;
      e.failed = start_failed;
      e.lane = obs::Lane::supervision;
    };
    {
      as::System sys{as::make_runtime("manual")};
      as::Recorder rec(file, {.detail = as::Detail::full});
      sys.attach(rec);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (rec.progress().events_recorded < 1 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the attach-time runtime_info
      session = rec.progress().session;
      t0 = obs::to_ns(sys.runtime().now());
      Feeder f(rec, t0);
      f.add(Kind::spawned, 1, 1).name = "team";
      f.add(Kind::spawned, 2, 2, 1).name = "db";   // seq 3
      f.add(Kind::spawned, 2, 4, 1);               // seq 4, unnamed
      f.add(Kind::failed, 10, 2).text = "boom";    // seq 5
      f.add(Kind::spawned, 11, 3, 1).name = "db";  // seq 6: the named-respawn rule would mark it
      restarted(f.add(Kind::child_restarted, 11, 3, 2), "db", "failed: boom", false);  // seq 7
      f.add(Kind::failed, 20, 4).text = "bang";                                        // seq 8
      f.add(Kind::spawned, 21, 5, 1);  // seq 9: a start that fails in pre_start
      f.add(Kind::failed, 21, 5).text = "cannot open";
      // A start that failed names no new actor.
      restarted(f.add(Kind::child_restarted, 21, 0, 4), "cache",
                "failed: bang; its start failed: cannot open", true);
      f.commit();
    }
    const as::SessionReader r(file);
    const auto m = r.markers(session, obs::time_from_ns(t0), obs::time_from_ns(t0 + 100 * kMs));
    QCOMPARE(m.size(), 5u);
    QCOMPARE(m[1].kind, Marker::Kind::restart);
    QCOMPARE(m[1].actor, (as::ActorId{0, 3}));
    QCOMPARE(m[1].seq, 7u);  // the child_restarted, not the spawn
    QCOMPARE(m[1].label, std::string("child \"db\" restarted (#1): replaces actor 0.2, failed: boom"));
    QCOMPARE(m[3].kind, Marker::Kind::failure);  // the start that failed
    QCOMPARE(m[3].actor, (as::ActorId{0, 5}));
    QCOMPARE(m[4].kind, Marker::Kind::restart);
    QCOMPARE(m[4].actor, (as::ActorId{0, 4}));  // no new actor: the one it replaces
    QCOMPARE(m[4].label,
             std::string("child \"cache\" restarted (#1): replaces actor 0.4, failed: bang; its start "
                         "failed: cannot open"));
    // The density counts a restart as lifecycle, even one whose start failed (the failure is the
    // attempt's own failed event, counted once): 3 failures, 8 lifecycle events.
    for (const auto& path : {file, without_index(file, dir)}) {
      const as::SessionReader rr(path);
      const auto d = rr.density(session, obs::time_from_ns(t0), obs::time_from_ns(t0 + 100 * kMs), 1);
      QCOMPARE(d.size(), 1u);
      QCOMPARE(d[0].failures, 3u);
      QCOMPARE(d[0].lifecycle, 8u);
      QCOMPARE(d[0].messages, 0u);
    }
  }

  void adjacent_event_steps_both_ways_with_filters() {
    for (const auto& file : files()) {
      const as::SessionReader r(file);
      const std::int64_t s = script_.session;
      auto seq_of = [](const std::optional<obs::Event>& e) { return e ? e->seq : 0; };
      // Any event: strictly after / before.
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 0), true)), 2u);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 2), true)), 5u);   // not the two at 2 ms
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 2), false)), 2u);  // spawned sup at 1 ms
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 99), false)), 41u);
      QVERIFY(!r.adjacent_event(s, at(script_, 99), true));
      QVERIFY(!r.adjacent_event(s, at(script_, 0), false));
      // An actor's events (actor_id): worker-a (2) handled the messages; sup (1) sent them.
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 2), true, {0, 2})), 6u);  // its first handling
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 30), false, {0, 2})), script_.failed_seq);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 20), true, {0, 5})), 31u);
      QVERIFY(!r.adjacent_event(s, at(script_, 20), true, {0, 2}));
      QVERIFY(!r.adjacent_event(s, at(script_, 0), true, {0, 77}));
      // Kinds: failures forward and back, the index's kinds and the messages'.
      const std::vector<Kind> exits = {Kind::failed, Kind::killed};
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 0), true, {}, exits)), script_.failed_seq);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 20), true, {}, exits)), script_.killed_seq);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 100), false, {}, exits)), script_.killed_seq);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 41), false, {}, exits)), script_.failed_seq);
      QVERIFY(!r.adjacent_event(s, at(script_, 41), true, {}, exits));
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 50), false, {}, {Kind::message_handled})), 26u);
      // Both: worker-a's handled messages; the throwing one, then the one before it.
      const std::vector<Kind> handled = {Kind::message_handled};
      const auto throwing = r.adjacent_event(s, at(script_, 25), false, {0, 2}, handled);
      QVERIFY(throwing && throwing->failed);
      QCOMPARE(throwing->seq, 26u);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 20), false, {0, 2}, handled)), 24u);
      QCOMPARE(seq_of(r.adjacent_event(s, at(script_, 0), true, {0, 4}, exits)), script_.killed_seq);
      // The event comes back whole.
      const auto failed = r.adjacent_event(s, at(script_, 19), true, {0, 2}, {Kind::failed});
      QVERIFY(failed.has_value());
      QCOMPARE(failed->text, std::string("division by zero"));
      QVERIFY(failed->time == at(script_, 20));
    }
  }

  void one_reader_asked_many_ranges_counts_each_exactly() {
    // Bursts of messages at uneven times (where guessing a time's seq goes wrong most), then one
    // reader asked 300 ranges in a row: what it remembers between calls never changes a count.
    const auto file = path_in(dir_, "bursts.db");
    std::int64_t id = 0, t0 = 0;
    {
      as::System sys{as::make_runtime("manual")};
      as::Recorder rec(file, {.detail = as::Detail::full});
      sys.attach(rec);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (rec.progress().events_recorded < 1 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      id = rec.progress().session;
      t0 = obs::to_ns(sys.runtime().now());
      Feeder f(rec, t0);
      f.add(Kind::spawned, 0, 1).name = "a";
      f.add(Kind::spawned, 0, 2).name = "b";
      std::mt19937 rng(20);
      std::int64_t ms = 1;
      const std::string again =
          "b";  // a name, assigned from a string (GCC 12 -Wrestrict misfires on a literal here)
      for (int burst = 0; burst < 60; ++burst) {
        ms += 1 + static_cast<std::int64_t>(rng() % 40);
        const int n = 1 + static_cast<int>(rng() % (burst % 7 == 0 ? 400 : 40));
        for (int i = 0; i < n; ++i) f.message(ms, 1, 2);
        // Now and then a child of actor 1 that fails soon after.
        const auto child = 100 + static_cast<std::uint64_t>(burst / 9);
        if (burst % 9 == 4) f.add(Kind::spawned, ms, child, 1).name = again;
        if (burst % 9 == 6) f.add(Kind::failed, ms, child).text = "oops";
      }
      f.commit();
    }
    const as::SessionReader r(file);
    const std::vector<obs::Event> all = r.events(id);
    QVERIFY(all.size() > 1000);
    const std::int64_t end = obs::to_ns(all.back().time);
    std::mt19937 rng(7);
    for (int q = 0; q < 300; ++q) {
      std::int64_t a =
          t0 - kMs + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(end - t0 + 2 * kMs));
      std::int64_t b =
          t0 - kMs + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(end - t0 + 2 * kMs));
      if (a > b) std::swap(a, b);
      if (q % 3 == 0) b = end;  // a follower's range: to its end
      const std::size_t n = 1 + rng() % 900;
      const auto d = r.density(id, obs::time_from_ns(a), obs::time_from_ns(b), n);
      QVERIFY2(counts_exactly(d, all),
               qPrintable(QString("query %1: [%2, %3] in %4 buckets").arg(q).arg(a).arg(b).arg(n)));
      if (q % 10 == 0) {
        const auto t = obs::time_from_ns(a);
        const auto next = r.adjacent_event(id, t, true);
        const auto it = std::upper_bound(all.begin(), all.end(), t,
                                         [](as::TimePoint x, const obs::Event& e) { return x < e.time; });
        QCOMPARE(next.has_value(), it != all.end());
        if (next) QCOMPARE(next->seq, it->seq);
      }
    }
  }

  void an_empty_session_has_empty_buckets_and_nothing_to_mark_or_step_to() {
    // A session row with no events at all (a recorder that died before its first commit of events).
    const auto file = path_in(dir_, "empty-session.db");
    std::filesystem::copy_file(old_, file, std::filesystem::copy_options::overwrite_existing);
    {
      Sqlite db(file);
      QVERIFY(
          db.exec("INSERT INTO sessions(id, started_at, updated_at, runtime, threads, detail, sample_every, "
                  "stats_interval_ns, keyframe_every, start_t_ns, recorder) "
                  "VALUES (7, 0, 0, 'manual', 1, 'full', 1, 100000000, 10000, 5, 'test')"));
    }
    const as::SessionReader r(file);
    const auto d = r.density(7, obs::time_from_ns(5), obs::time_from_ns(1005), 4);
    QCOMPARE(d.size(), 4u);
    for (const auto& b : d) QCOMPARE(b.total(), 0u);
    QVERIFY(d[1].from == obs::time_from_ns(255));
    QVERIFY(r.markers(7, as::TimePoint::min(), as::TimePoint::max()).empty());
    QVERIFY(!r.adjacent_event(7, obs::time_from_ns(5), true));
    QVERIFY(!r.adjacent_event(7, obs::time_from_ns(5), false));
    // The scripted session beside it is unchanged.
    QCOMPARE(r.density(script_.session, at(script_, 0), at(script_, 100), 1).front().total(), 42u);
  }

  void a_bad_session_id_is_no_such_session() {
    const as::SessionReader r(file_);
    const auto t = at(script_, 0);
    for (const std::function<void()>& call : std::initializer_list<std::function<void()>>{
             [&] { (void)r.density(99, t, t, 10); },
             [&] { (void)r.markers(99, t, t); },
             [&] { (void)r.adjacent_event(99, t, true); },
         }) {
      const auto e = error_of(call);
      QVERIFY(e.has_value());
      QCOMPARE(e->kind(), as::RecordingError::Kind::no_such_session);
      QVERIFY(std::string(e->what()).find("has no session 99") != std::string::npos);
    }
  }

  void opening_and_querying_never_change_the_file() {
    const auto file = path_in(dir_, "untouched.db");
    std::filesystem::copy_file(file_, file, std::filesystem::copy_options::overwrite_existing);
    auto bytes = [](const std::filesystem::path& f) {
      std::ifstream in(f, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const std::string before = bytes(file);
    {
      const as::SessionReader r(file);
      (void)r.density(script_.session, at(script_, 0), at(script_, 100), 800);
      (void)r.markers(script_.session, as::TimePoint::min(), as::TimePoint::max());
      (void)r.adjacent_event(script_.session, at(script_, 50), false, {0, 2}, {Kind::failed});
    }
    QVERIFY(bytes(file) == before);
  }
};

QTEST_GUILESS_MAIN(TestSessionTimeline)
#include "tst_session_timeline.moc"
