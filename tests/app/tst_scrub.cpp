// Scrubbing a replay folds forward from the state shown when it can (SessionReader::advance), copies
// it to add what follows a poll (fold_rest), or starts again at a keyframe (prefix_at). Whichever
// it does, the state shown after each move must be exactly the state at the cursor folded from the
// session's start. Random forward and backward moves and jumps, with cursors on the times of events
// and polls (where the recording order of polls and events straddles the cursor), over recordings
// made by a real System on the asio and qt runtimes, and a synthetic one whose polls all carry the
// session's start time (the manual runtime's clock stands still) as the scrub benchmark's does. A
// drag backwards, from keyframes at every step, equals the fold too.
#include "recording_test.hpp"

#include "gui/replay_session.hpp"

#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <random>
#include <thread>

using namespace recording_test;
namespace gui = actorscope::gui;
namespace obs = actorscope::observe;

namespace {

/// The times of a session's events and polls, read with a bare connection (the test's own file).
std::vector<std::int64_t> item_times(const std::filesystem::path& file) {
  std::vector<std::int64_t> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    return out;
  }
  for (const char* sql : {"SELECT t_ns FROM events", "SELECT t_ns FROM stats_polls"}) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK)
      while (sqlite3_step(s) == SQLITE_ROW) out.push_back(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
  }
  sqlite3_close_v2(db);
  return out;
}

/// A synthetic full-detail stream written straight into a recorder (as observatory_scrubbench does):
/// `actors` spawns under a root and supervisors, then messages between them, a failure and its
/// replacement every 500 events. Times advance 1 µs per event.
std::uint64_t write_synthetic(const std::filesystem::path& file, std::uint64_t events, std::uint32_t actors) {
  constexpr std::size_t kCapacity = 8192;
  as::Recorder recorder(file, {.detail = as::Detail::full, .keyframe_every = 1000, .per_thread_capacity = kCapacity});
  as::System system{as::make_runtime("manual")};
  system.attach(recorder);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  auto wait_for = [&](std::uint64_t n) {
    // The recorder's writer thread commits on its own and says nothing: look at its progress
    // every 100 µs until it is there, with a generous deadline.
    while (recorder.progress().events_recorded < n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return true;
  };
  if (!wait_for(1)) return 0;
  const std::uint64_t base = recorder.progress().events_recorded;
  std::minstd_rand rng(5);
  as::TimePoint t = system.runtime().now();
  const std::uint32_t supervisors = std::max<std::uint32_t>(1, actors / 20);
  std::uint64_t seq = base, trace = 0;
  std::uint32_t next_pid = actors;
  std::vector<std::uint32_t> workers;
  std::size_t slot = 0;
  for (std::uint64_t i = 0; i < events; ++i) {
    obs::Event e;
    e.seq = ++seq;
    t += std::chrono::microseconds(1);
    e.time = t;
    if (i < actors) {
      const auto pid = static_cast<std::uint32_t>(i + 1);
      e.kind = obs::EventKind::spawned;
      e.actor = {0, pid};
      e.peer = {0, pid == 1 ? 0u : pid <= supervisors + 1 ? 1u : 2 + pid % supervisors};
      e.name = "a-" + std::to_string(pid);
      e.text = "synthetic::Actor";
      if (pid > supervisors + 1) workers.push_back(pid);
    } else if (i % 500 == 0) {
      // A live worker fails (a dead one failing again would be a repeat, which is not recorded)...
      e.kind = obs::EventKind::failed;
      slot = rng() % workers.size();
      e.actor = {0, workers[slot]};
      e.text = "synthetic failure";
    } else if (i % 500 == 1) {
      // ...and a new one takes its place.
      e.kind = obs::EventKind::spawned;
      e.actor = {0, ++next_pid};
      e.peer = {0, 2 + next_pid % supervisors};
      e.name = "a-" + std::to_string(next_pid);
      e.text = "synthetic::Actor";
      workers[slot] = next_pid;
    } else {
      const bool send = i % 2 == 0;
      e.kind = send ? obs::EventKind::message_sent : obs::EventKind::message_handled;
      e.actor = {0, 1 + rng() % actors};
      e.peer = {0, 1 + rng() % actors};
      e.message_type = "synthetic::Job";
      e.trace = send ? ++trace : trace;
      if (!send) {
        e.timed = true;
        e.queue = std::chrono::nanoseconds(100 + i % 37);
        e.handling = std::chrono::nanoseconds(50 + i % 11);
      }
    }
    recorder.on_event(e);
    // Never more than a buffer ahead of what the writer has committed: nothing is dropped.
    if ((i + 1) % 1024 == 0 && i + 1 > kCapacity / 2 && !wait_for(base + i + 1 - kCapacity / 2)) return 0;
  }
  if (!wait_for(base + events)) return 0;
  return recorder.progress().events_dropped == 0 ? recorder.progress().events_recorded : 0;
}

}  // namespace

class TestScrub : public QObject {
  Q_OBJECT

  /// Scrubs `file` at random and checks every step against the fold from the session's start.
  /// Returns how many steps folded forward, and how many had a rest past the place they folded to.
  void scrub_and_compare(const std::filesystem::path& file, int steps, unsigned seed, int& folded, int& rests) {
    gui::ReplaySession replay(QString::fromStdString(file.string()), 1);
    const as::SessionReader& reader = replay.reader();
    const auto range = *replay.timeRange();
    const std::int64_t start = obs::to_ns(range.start), span = obs::to_ns(range.end) - start;
    QVERIFY(span > 0);
    const std::vector<std::int64_t> items = item_times(file);
    QVERIFY(!items.empty());
    std::mt19937_64 rng(seed);
    auto cursor = [&] { return obs::to_ns(replay.cursor()); };
    for (int i = 0; i < steps; ++i) {
      std::int64_t t = 0;
      switch (rng() % 6) {
        case 0:
        case 1:  // a small step forward (a drag)
          t = cursor() + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span / 50 + 1));
          break;
        case 2:  // a small step back
          t = cursor() - static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span / 50 + 1));
          break;
        case 3:  // a jump anywhere
          t = start + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span + 1));
          break;
        default:  // on (or right next to) an event's or a poll's time: where the orders straddle
          t = items[rng() % items.size()] + static_cast<std::int64_t>(rng() % 3) - 1;
          break;
      }
      replay.setCursorNow(obs::time_from_ns(t));
      const as::TimePoint at = replay.cursor();
      if (replay.lastStateFolded()) ++folded;
      if (replay.lastStateHadRest()) ++rests;
      const obs::SystemState scratch = reader.state_at(replay.sessionId(), at, {.use_keyframes = false});
      QVERIFY2(replay.state() == scratch,
               qPrintable(QString("step %1 (seed %2): at %3 ns, %4 events shown, %5 from the start; %6")
                              .arg(i)
                              .arg(seed)
                              .arg(obs::to_ns(at))
                              .arg(replay.state().events_applied())
                              .arg(scratch.events_applied())
                              .arg(replay.lastStateFolded() ? "folded forward" : "from a keyframe")));
    }
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void random_scrubs_of_a_real_system_equal_the_fold_from_the_start_data() {
    QTest::addColumn<QString>("runtime");
    QTest::newRow("asio") << "asio";
    QTest::newRow("qt") << "qt";
  }
  void random_scrubs_of_a_real_system_equal_the_fold_from_the_start() {
    QFETCH(QString, runtime);
    const auto file = path_in(dir_, qPrintable(runtime + ".db"));
    {
      // Polls every 2 ms while the workload runs: many polls land between events (the orders of
      // polls and events straddle cursors), and carry samples (the copy-and-fold-the-rest path).
      as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = std::chrono::milliseconds(2),
                              .keyframe_every = 100});
      as::System sys{as::make_runtime(runtime.toStdString(), {.threads = 2})};
      sys.attach(rec);
      WorkloadResult w;
      run_workload(sys, w);
      if (QTest::currentTestFailed()) return;
      sys.shutdown();
      QVERIFY(sys.detach(rec));
    }
    int folded = 0, rests = 0;
    scrub_and_compare(file, 150, 17, folded, rests);
    if (QTest::currentTestFailed()) return;
    qInfo("%s: %d of 150 steps folded forward, %d had a rest past their place", qPrintable(runtime), folded, rests);
    QVERIFY(folded > 0);    // the fold-forward path was taken...
    QVERIFY(folded < 150);  // ...and so was the keyframe path
    // (How many steps have a rest depends on how the runtime's threads interleaved polls and events:
    // from none to most. The undo that takes a rest back is checked alone below.)
  }

  void random_scrubs_of_a_synthetic_recording_equal_the_fold_from_the_start() {
    const auto file = synthetic();
    QVERIFY(!file.empty());
    int folded = 0, rests = 0;
    scrub_and_compare(file, 120, 23, folded, rests);
    if (QTest::currentTestFailed()) return;
    qInfo("synthetic: %d of 120 steps folded forward, %d had a rest past their place", folded, rests);
    QVERIFY(folded > 0);
    QVERIFY(folded < 120);
  }

  // The reader's three steps, alone: the state at the place before t, moved forward, and the rest
  // on a copy, equal state_at at each time; a place cannot be moved back.
  void the_reader_folds_forward_from_a_place_and_refuses_to_go_back() {
    const auto file = synthetic();
    QVERIFY(!file.empty());
    const as::SessionReader r(file);
    const auto s = r.session(1);
    obs::SystemState base;
    as::SessionReader::FoldPoint point;
    const auto at = [&](int tenths) { return s.start_time + s.duration() * tenths / 10; };
    bool complete = r.prefix_at(1, at(1), base, point);
    for (int tenths = 1; tenths <= 10; ++tenths) {
      if (tenths > 1) complete = r.advance(1, base, point, at(tenths));
      obs::SystemState shown = base;
      if (!complete) r.fold_rest(1, shown, point, at(tenths));
      QVERIFY2(shown == r.state_at(1, at(tenths), {.use_keyframes = false}), qPrintable(QString::number(tenths)));
      QVERIFY(point.reach <= at(tenths));
    }
    QVERIFY(base.events_applied() > 0);
    const auto before = point;
    bool refused = false;
    try {
      (void)r.advance(1, base, point, at(5));
    } catch (const std::invalid_argument&) {
      refused = true;
    }
    QVERIFY(refused);
    QVERIFY(point == before);
  }

  // Statistics applied with an undo record and taken back leave the state exactly as it was:
  // counters, mailbox figures, the clock, drops, and the history (points pushed, the ones a push
  // pushed out past the limit, the back point added to).
  void statistics_applied_and_taken_back_leave_the_state_as_it_was() {
    obs::SystemState::Limits limits;
    limits.history_points = 3;
    limits.history_bucket = std::chrono::milliseconds(10);
    obs::SystemState state(limits);
    const as::TimePoint t0 = as::TimePoint{} + std::chrono::seconds(1);
    for (std::uint64_t pid = 1; pid <= 4; ++pid) {
      obs::Event e;
      e.seq = pid;
      e.time = t0;
      e.kind = obs::EventKind::spawned;
      e.actor = {0, pid};
      e.name = "a";
      e.name += std::to_string(pid);  // (not "a" + ...: GCC 12's false -Wrestrict, its bug 105329)
      QVERIFY(state.apply(e));
    }
    std::mt19937_64 rng(3);
    auto sample = [&](std::int64_t ms) {
      obs::StatsSample s;
      s.actor = {0, 1 + rng() % 5};  // actor 5 does not exist: only the clock moves
      s.end = t0 + std::chrono::milliseconds(ms);
      s.handled = rng() % 10;
      s.sent = rng() % 10;
      s.mailbox_depth = rng() % 7;
      s.mailbox_max = rng() % 9;
      s.timed = s.handled;
      s.queue_time = std::chrono::nanoseconds(rng() % 1000);
      s.handling_time = std::chrono::nanoseconds(rng() % 1000);
      s.busy = std::chrono::nanoseconds(rng() % 100);
      return s;
    };
    std::int64_t ms = 0;
    for (int round = 0; round < 50; ++round) {
      // Some statistics kept (the place moves on)...
      for (int k = 0; k < 6; ++k) state.apply(sample(ms += static_cast<std::int64_t>(rng() % 15)));
      const obs::SystemState before = state;
      // ...then some applied with an undo record (pushing and filling history points), taken back.
      obs::SystemState::StatsUndo undo;
      std::int64_t later = ms;
      for (int k = 0; k < 8; ++k) state.apply(sample(later += static_cast<std::int64_t>(rng() % 25)), undo);
      state.add_dropped(rng() % 3, undo);
      QVERIFY(!(state == before) || round == 0);
      state.undo(undo);
      QVERIFY2(state == before, qPrintable(QString("round %1").arg(round)));
    }
  }

  // A drag backwards starts at a keyframe at every step (a state cannot be folded backwards), and
  // every step equals the fold from the start.
  void a_drag_backwards_starts_at_keyframes_and_equals_the_fold_from_the_start() {
    const auto file = synthetic();
    QVERIFY(!file.empty());
    gui::ReplaySession replay(QString::fromStdString(file.string()), 1);
    const auto range = *replay.timeRange();
    constexpr int kSteps = 100;
    for (int i = 0; i <= kSteps; ++i) {
      const as::TimePoint t = range.end - (range.end - range.start) * i / kSteps;
      replay.setCursorNow(t);
      QVERIFY(!replay.lastStateFolded() || i == 0);  // (the first step may fold: it opened at the start)
      const obs::SystemState scratch = replay.reader().state_at(1, replay.cursor(), {.use_keyframes = false});
      QVERIFY2(replay.state() == scratch, qPrintable(QString("step %1 at %2 ns").arg(i).arg(obs::to_ns(t))));
    }
  }

 private:
  /// The synthetic recording (20,000 events over 400 actors, a keyframe every 1,000), made once.
  std::filesystem::path synthetic() {
    if (synthetic_.empty()) {
      const auto file = path_in(dir_, "synthetic.db");
      if (write_synthetic(file, 20'000, 400) >= 20'000) synthetic_ = file;
    }
    return synthetic_;
  }

  QTemporaryDir dir_;
  std::filesystem::path synthetic_;
};

QTEST_MAIN(TestScrub)
#include "tst_scrub.moc"
