// The reader refuses every kind of bad file with a typed error whose message names the file, says
// what is wrong and what to do, and never crashes: missing, a folder, empty, random bytes, a
// foreign SQLite database, a newer format, a truncated copy, damaged pages, a locked file. It also
// streams events with filters, and reads a recording that is still being written.
#include "recording_test.hpp"
#include "sqlite_test.hpp"

#include <actorscope/supervisor.hpp>

#include <sqlite3.h>

#include <random>

using namespace recording_test;
namespace obs = as::observe;
using Kind = as::RecordingError::Kind;

namespace {

/// Runs SQL on a file with a connection of the test's own (the "other program").

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A finished recording with some of everything in it.
void make_recording(const std::filesystem::path& file, WorkloadResult& w) {
  as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 2ms, .keyframe_every = 100});
  as::System sys{as::make_runtime("asio", {.threads = 2})};
  sys.attach(rec);
  run_workload(sys, w, 6, 200, 2000);
}

/// Records one more small session into `file` (a recorder adding a session to an older file).
void add_a_session(const std::filesystem::path& file) {
  as::Recorder rec(file, {.detail = as::Detail::lifecycle, .stats_interval = 2ms});
  as::System sys{as::make_runtime("asio", {.threads = 2})};
  sys.attach(rec);
  WorkloadResult w;
  run_workload(sys, w, 2, 20, 50);
}

/// The SQL that takes a current file back to format 5: no factories (format 7), no bounded mailboxes (the columns first,
/// since the older formats' simulations start from the current one).
constexpr const char* kBackToFormat5 =
    "DROP TABLE factory_stats; "
    "ALTER TABLE actors DROP COLUMN mailbox_capacity; ALTER TABLE actors DROP COLUMN overflow; "
    "ALTER TABLE actor_stats DROP COLUMN dropped; ALTER TABLE actor_stats DROP COLUMN rejected; ";

/// Holds its first message in the handler (a suspended coroutine) until the gate opens, so that
/// what is sent meanwhile waits in its mailbox; records "holding" and "got N".
struct Held {
  using Message = int;
  Probe* probe = nullptr;
  Gate* gate = nullptr;
  as::Task<> handle(as::Context<Held>&, int m, std::monostate&) {
    if (m == 1) {
      probe->record("holding");
      co_await gate->opened();
    }
    probe->record("got " + std::to_string(m));
  }
};

as::SpawnOptions bounded(std::uint32_t capacity, as::Overflow overflow) {
  as::SpawnOptions o;
  o.mailbox_capacity = capacity;
  o.overflow = overflow;
  return o;
}

/// Checks that opening `file` fails with `kind`, a message that names the file, and `words` in it.
void expect_refused(const std::filesystem::path& file, Kind kind, const std::string& words) {
  const auto e = error_of([&] { as::SessionReader r(file, {.busy_timeout = 100ms}); });
  QVERIFY2(e.has_value(), qPrintable(QString::fromStdString(file.string() + " was accepted")));
  QVERIFY2(e->kind() == kind,
           qPrintable(QString::fromStdString(std::string(as::to_string(e->kind())) + ": " + e->what())));
  const std::string m = e->what();
  QVERIFY2(m.find(file.string()) != std::string::npos, m.c_str());
  QVERIFY2(m.find(words) != std::string::npos, m.c_str());
  QCOMPARE(e->file(), file);
}

}  // namespace

class TestSessionReader : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path good_;
  WorkloadResult work_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    good_ = path_in(dir_, "good.db");
    make_recording(good_, work_);
    if (QTest::currentTestFailed()) return;
    as::SessionReader r(good_);
    r.verify();
    QCOMPARE(r.sessions().size(), 1u);
  }

  void a_missing_file_or_a_folder_is_refused_as_cannot_open() {
    expect_refused(path_in(dir_, "no-such.db"), Kind::cannot_open, "no such file");
    expect_refused(std::filesystem::path(dir_.path().toStdString()), Kind::cannot_open, "folder");
  }

  void an_empty_file_and_random_bytes_are_refused() {
    const auto empty = path_in(dir_, "empty.db");
    write_bytes(empty, "");
    expect_refused(empty, Kind::not_a_recording, "empty");
    std::mt19937 rng(5);
    std::string noise(64 * 1024, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    const auto random = path_in(dir_, "random.db");
    write_bytes(random, noise);
    expect_refused(random, Kind::not_sqlite, "not an SQLite database");
    write_bytes(random, "hello");
    expect_refused(random, Kind::not_sqlite, "not an SQLite database");
  }

  void a_foreign_sqlite_database_is_refused_as_not_a_recording() {
    const auto foreign = path_in(dir_, "contacts.db");
    {
      Sqlite db(foreign);
      QVERIFY(
          db.exec("CREATE TABLE contacts(name TEXT, phone TEXT); INSERT INTO contacts VALUES ('Ada', '1');"));
    }
    expect_refused(foreign, Kind::not_a_recording, "not an Actorscope recording");
    {
      Sqlite db(foreign);  // a meta table of its own, without our key
      QVERIFY(
          db.exec("CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES ('owner', 'someone');"));
    }
    expect_refused(foreign, Kind::not_a_recording, "format_version");
  }

  void a_newer_format_is_refused_with_the_versions_named() {
    const auto newer = path_in(dir_, "newer.db");
    std::filesystem::copy_file(good_, newer);
    {
      Sqlite db(newer);
      QVERIFY(db.exec("UPDATE meta SET value = '99' WHERE key = 'format_version'"));
    }
    expect_refused(newer, Kind::too_new, "format 99");
    expect_refused(newer, Kind::too_new, "newer Actorscope");
    // A recorder does not touch it either.
    const auto e = error_of([&] { as::Recorder rec(newer); });
    QVERIFY(e);
    QCOMPARE(e->kind(), Kind::too_new);
  }

  void a_truncated_copy_is_refused_as_corrupt() {
    const std::string bytes = read_bytes(good_);
    QVERIFY(bytes.size() > 8192);
    for (std::size_t keep : {std::size_t{50}, std::size_t{4096}, bytes.size() / 2, bytes.size() - 1}) {
      const auto cut = path_in(dir_, "cut.db");
      write_bytes(cut, bytes.substr(0, keep));
      expect_refused(cut, Kind::corrupt, keep < 100 ? "truncated" : "shorter than its header says");
    }
  }

  void damaged_pages_are_reported_as_corrupt_and_never_crash_the_reader() {
    const std::string bytes = read_bytes(good_);
    const std::size_t page = 4096;  // SQLite's default page size, which the recorder keeps
    QCOMPARE(static_cast<unsigned char>(bytes[16]) * 256u + static_cast<unsigned char>(bytes[17]), page);
    const std::size_t pages = bytes.size() / page;
    QVERIFY(pages > 8);
    std::mt19937 rng(11);
    int refused = 0;
    for (int round = 0; round < 16; ++round) {
      std::string bad = bytes;
      // Scribble over the start of a page (a b-tree page's header and cell pointers, or an
      // overflow page's link): page 2 (the first table's root) once, then pages at random.
      const std::size_t p = round == 0 ? 1 : 1 + rng() % (pages - 1);
      for (std::size_t i = 0; i < 64; ++i) bad[p * page + i] = static_cast<char>(rng());
      const auto file = path_in(dir_, "damaged.db");
      write_bytes(file, bad);
      // Whatever it is asked, the reader either answers or throws RecordingError.
      bool noticed = false;
      try {
        as::SessionReader r(file);
        try {
          r.verify();
        } catch (const as::RecordingError& e) {
          QCOMPARE(e.kind(), Kind::corrupt);
          QVERIFY2(std::string(e.what()).find("damaged") != std::string::npos, e.what());
          noticed = true;
        }
        for (const auto& s : r.sessions()) {
          (void)r.state_at(s.id, s.start_time + s.duration() / 2);
          (void)r.state_at(s.id, as::TimePoint::max());
          (void)r.events(s.id, {}, 5000);
          (void)r.event_counts(s.id);
          (void)r.actors(s.id);
        }
      } catch (const as::RecordingError& e) {
        QVERIFY2(
            e.kind() == Kind::corrupt || e.kind() == Kind::not_a_recording || e.kind() == Kind::not_sqlite,
            e.what());
        noticed = true;
      }
      refused += noticed ? 1 : 0;
    }
    QVERIFY2(refused >= 8, qPrintable(QString("only %1 of 16 damaged files were noticed").arg(refused)));
  }

  void a_file_locked_by_another_connection_is_reported_as_locked() {
    const auto locked = path_in(dir_, "locked.db");
    std::filesystem::copy_file(good_, locked);
    Sqlite other(locked);
    QVERIFY(other.exec("BEGIN EXCLUSIVE"));  // a finished recording is in rollback-journal mode
    expect_refused(locked, Kind::locked, "locked by another program");
    QVERIFY(other.exec("COMMIT"));
    as::SessionReader r(locked);  // free again
    QCOMPARE(r.sessions().size(), 1u);
  }

  void an_unknown_session_is_refused_by_number() {
    as::SessionReader r(good_);
    const auto e = error_of([&] { (void)r.state_at(42, as::TimePoint::max()); });
    QVERIFY(e);
    QCOMPARE(e->kind(), Kind::no_such_session);
    QVERIFY2(std::string(e->what()).find("no session 42") != std::string::npos, e->what());
  }

  void events_stream_in_order_filtered_by_time_actor_and_kind() {
    as::SessionReader r(good_);
    const as::SessionInfo s = r.sessions().front();
    const auto all = r.events(s.id);
    QCOMPARE(all.size(), s.events_recorded);
    QVERIFY(std::is_sorted(all.begin(), all.end(),
                           [](const obs::Event& a, const obs::Event& b) { return a.time < b.time; }));

    const as::ActorId w = work_.workers[2];
    const auto about_w = r.events(s.id, {.actors = {w}});
    QVERIFY(!about_w.empty());
    std::size_t expected = 0;
    for (const auto& e : all) expected += (e.actor == w || e.peer == w) ? 1 : 0;
    QCOMPARE(about_w.size(), expected);

    const auto failures = r.events(s.id, {.kinds = {obs::EventKind::failed}});
    QCOMPARE(failures.size(), 1u);
    QCOMPARE(failures.front().actor, work_.crashed);
    QCOMPARE(failures.front().text, std::string("worker crashed on purpose"));

    const as::TimePoint mid = all[all.size() / 2].time;
    const as::TimePoint late = all[all.size() * 3 / 4].time;
    const auto window = r.events(s.id, {.from = mid, .to = late});
    std::size_t in_window = 0;
    for (const auto& e : all) in_window += (e.time >= mid && e.time <= late) ? 1 : 0;
    QCOMPARE(window.size(), in_window);
    QCOMPARE(r.events(s.id, {}, 10).size(), 10u);
    const auto handled = r.events(s.id, {.actors = {w}, .kinds = {obs::EventKind::message_handled}});
    QCOMPARE(handled.size(), work_.adds_per_worker + 1);  // the adds and the Total call
    for (const auto& e : handled) {
      QVERIFY(e.timed);
      QVERIFY(e.message_type.find("Add") != std::string_view::npos ||
              e.message_type.find("Total") != std::string_view::npos);
    }
  }

  void a_format_1_recording_is_read_as_one_and_migrated_when_a_session_is_added() {
    const auto file = path_in(dir_, "format1.db");
    {
      as::Recorder rec(file, {.detail = as::Detail::sampled, .sample_every = 10, .stats_interval = 2ms});
      as::System sys{as::make_runtime("asio", {.threads = 2})};
      sys.attach(rec);
      WorkloadResult w;
      run_workload(sys, w, 2, 20, 50);
      if (QTest::currentTestFailed()) return;
    }
    {  // What format 1 was: no actor_stats.timed (every message was timed at sampled and full), busy_ns,
       // cause, actors.child_id or actors.restarts.
      Sqlite db(file);
      QVERIFY(
          db.exec(kBackToFormat5) &&
          db.exec(
                  "ALTER TABLE actor_stats DROP COLUMN timed; ALTER TABLE actor_stats DROP COLUMN busy_ns; "
                  "ALTER TABLE events DROP COLUMN cause; ALTER TABLE actors DROP COLUMN child_id; "
                  "ALTER TABLE actors DROP COLUMN restarts; "
                  "UPDATE meta SET value = '1' WHERE key = 'format_version'"));
    }
    auto check_timed_is_handled = [](const as::SessionReader& r, std::int64_t session) {
      const auto stats = r.stats(session);
      QVERIFY(!stats.empty());
      std::uint64_t handled = 0;
      for (const auto& x : stats) {
        QCOMPARE(x.timed, x.handled);
        handled += x.handled;
      }
      QVERIFY(handled > 0);
    };
    std::int64_t first = 0;
    {
      const as::SessionReader r(file);
      QCOMPARE(r.format_version(), 1);
      first = r.sessions().front().id;
      check_timed_is_handled(r, first);
      QVERIFY(r.state_at(first, as::TimePoint::max()).events_applied() > 0);
    }
    add_a_session(file);  // a recorder that adds one brings the file to the current format first
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    QCOMPARE(r.sessions().size(), 2u);
    check_timed_is_handled(r, first);  // the migration fills it in as format 1 meant it
    for (const auto& x : r.stats(r.sessions().back().id)) QCOMPARE(x.timed, 0u);  // lifecycle times nothing
  }

  void a_format_2_recording_reads_no_busy_time_and_is_migrated_when_a_session_is_added() {
    const auto file = path_in(dir_, "format2.db");
    {
      as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 2ms});
      as::System sys{as::make_runtime("asio", {.threads = 2})};
      sys.attach(rec);
      WorkloadResult w;
      run_workload(sys, w, 2, 20, 50);
      if (QTest::currentTestFailed()) return;
    }
    {  // What format 2 was: no actor_stats.busy_ns, no events.cause, no actors.child_id or restarts.
      Sqlite db(file);
      QVERIFY(
          db.exec(kBackToFormat5) &&
          db.exec(
                  "ALTER TABLE actor_stats DROP COLUMN busy_ns; ALTER TABLE events DROP COLUMN cause; "
                  "ALTER TABLE actors DROP COLUMN child_id; ALTER TABLE actors DROP COLUMN restarts; "
                  "UPDATE meta SET value = '2' WHERE key = 'format_version'"));
    }
    const std::string before = read_bytes(file);
    {
      const as::SessionReader r(file);
      QCOMPARE(r.format_version(), 2);
      const auto stats = r.stats(r.sessions().front().id);
      QVERIFY(!stats.empty());
      for (const auto& x : stats) QCOMPARE(x.busy, as::Duration::zero());
      QVERIFY(r.state_at(r.sessions().front().id, as::TimePoint::max()).events_applied() > 0);
    }
    QVERIFY2(read_bytes(file) == before, "reading a format-2 recording changed it");
    add_a_session(file);  // a recorder that adds one brings the file to the current format first
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    QCOMPARE(r.sessions().size(), 2u);
    for (const auto& x : r.stats(r.sessions().front().id)) QCOMPARE(x.busy, as::Duration::zero());
  }

  void the_supervisor_events_round_trip_with_every_field_and_replay_into_the_fold() {
    const auto file = path_in(dir_, "supervisor.db");
    const std::vector<obs::Event> fed = record_supervisor(file);
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    const std::int64_t session = r.sessions().front().id;
    std::vector<obs::Event> back = r.events(session);
    QCOMPARE(back.size(), fed.size() + 1);
    back.erase(back.begin());  // runtime_info
    for (std::size_t i = 0; i < fed.size(); ++i)
      QVERIFY2(back[i] == fed[i], qPrintable(QString("event %1 (%2) reads back differently")
                                                 .arg(fed[i].seq)
                                                 .arg(QString::fromUtf8(obs::to_string(fed[i].kind)))));
    // The fields each kind uses, spelled out.
    QCOMPARE(back[2].name, std::string("one_for_all"));
    QCOMPARE(back[2].thread, 3u);
    QVERIFY(back[2].period == 5s);
    QVERIFY(back[5].failed && back[5].thread == 1 && back[5].period == 20ms &&
            back[5].lane == obs::Lane::supervision);
    QCOMPARE(back[5].text, std::string("failed: boom"));
    QCOMPARE(back[6].thread, 4u);

    // The actors table says which spec each actor ran and its restart count.
    const auto actors = r.actors(session);
    QCOMPARE(actors.size(), 3u);
    QCOMPARE(actors[1].child_id, std::string("b"));  // bound by order when the supervisor was configured
    QCOMPARE(actors[1].restarts, 0u);
    QCOMPARE(actors[2].child_id, std::string("b"));
    QCOMPARE(actors[2].restarts, 1u);
    QCOMPARE(actors[0].child_id, std::string());

    // Replayed (from keyframes every 3 events, and from the start), the fold has the supervisor.
    const obs::SystemState st = r.state_at(session, as::TimePoint::max());
    const obs::SupervisorRecord* sup = st.supervisor({0, 1});
    QVERIFY(sup != nullptr);
    QCOMPARE(sup->strategy, std::string("one_for_all"));
    QVERIFY(sup->backoff.has_value() && sup->backoff->max == 1000ms);
    QCOMPARE(sup->children.at(0).actor, (as::ActorId{0, 3}));
    QVERIFY(sup->gave_up.has_value());
    QCOMPARE(st.actor({0, 1})->children, std::vector<as::ActorId>{(as::ActorId{0, 3})});
    QCOMPARE(r.event_counts(session)[static_cast<std::size_t>(obs::EventKind::child_restarted)], 1u);
  }

  void a_real_supervisors_restart_is_recorded_in_the_actors_table_and_replays() {
    const auto file = path_in(dir_, "real-supervisor.db");
    as::ActorId restarted, first_a, team;
    {
      as::Recorder rec(file, {.detail = as::Detail::lifecycle, .stats_interval = 2ms});
      as::System sys{as::make_runtime("asio", {.threads = 2})};
      sys.attach(rec);
      auto sup = as::start_supervisor(sys,
                                      {.strategy = as::Strategy::rest_for_one,
                                       .children = {as::child("a", Worker{}, {.name = "a"}),
                                                    as::child("b", Worker{}, {.name = "b"})}},
                                      {.name = "team"})
                     .value();
      team = sup.id();
      first_a = sys.where_is<WorkerMsg>("a").value().id();
      auto b = sys.where_is<WorkerMsg>("b").value();
      QVERIFY(b.cast(Crash{}));
      QVERIFY(b.wait(kTimeout));
      const auto children = sup.which_children().get().value();  // queued after b's exit event
      QCOMPARE(children.size(), std::size_t{2});
      QCOMPARE(children[1].restarts, std::uint32_t{1});
      restarted = children[1].actor.id();
      QVERIFY(restarted != b.id());
      QVERIFY(sup.stop_and_wait(kTimeout));
    }
    const as::SessionReader r(file);
    const std::int64_t session = r.sessions().front().id;
    bool found_a = false, found_b = false;
    for (const as::ActorInfo& a : r.actors(session)) {
      if (a.id == first_a) {
        found_a = true;
        QCOMPARE(a.child_id, std::string("a"));
        QCOMPARE(a.restarts, 0u);
      }
      if (a.id == restarted) {
        found_b = true;
        QCOMPARE(a.child_id, std::string("b"));
        QCOMPARE(a.restarts, 1u);
      }
    }
    QVERIFY(found_a && found_b);
    // Replayed: the supervisor as it described itself, b's replacement in b's place.
    const obs::SystemState st = r.state_at(session, as::TimePoint::max());
    const obs::SupervisorRecord* sup = st.supervisor(team);
    QVERIFY(sup != nullptr);
    QCOMPARE(sup->strategy, std::string("rest_for_one"));
    QCOMPARE(sup->children.size(), 2u);
    QCOMPARE(sup->children[1].actor, restarted);
    QCOMPARE(sup->recent_restarts.size(), 1u);
    QCOMPARE(st.actor(team)->children.back(), restarted);
    QCOMPARE(st.actor(team)->children.size(), 2u);
  }

  void a_format_4_recording_opens_read_only_unchanged_and_is_migrated_when_a_session_is_added() {
    const auto file = path_in(dir_, "format4.db");
    std::filesystem::copy_file(good_, file, std::filesystem::copy_options::overwrite_existing);
    {  // What format 4 was: no actors.child_id or actors.restarts (and no supervisor events).
      Sqlite db(file);
      QVERIFY(
          db.exec(kBackToFormat5) &&
          db.exec(
                  "ALTER TABLE actors DROP COLUMN child_id; ALTER TABLE actors DROP COLUMN restarts; "
                  "UPDATE meta SET value = '4' WHERE key = 'format_version'"));
    }
    const std::string before = read_bytes(file);
    std::size_t actors = 0;
    {
      const as::SessionReader r(file);
      QCOMPARE(r.format_version(), 4);
      r.verify();
      const auto list = r.actors(r.sessions().front().id);
      QVERIFY(!list.empty());
      actors = list.size();
      for (const auto& a : list) {
        QCOMPARE(a.child_id, std::string());
        QCOMPARE(a.restarts, 0u);
      }
      QVERIFY(r.state_at(r.sessions().front().id, as::TimePoint::max()).events_applied() > 0);
    }
    QVERIFY2(read_bytes(file) == before, "reading a format-4 recording changed it");
    add_a_session(file);  // a recorder that adds one brings the file to the current format first
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    r.verify();
    QCOMPARE(r.sessions().size(), 2u);
    QCOMPARE(r.actors(r.sessions().front().id).size(), actors);
    for (const auto& a : r.actors(r.sessions().front().id)) QCOMPARE(a.restarts, 0u);
  }

  void a_bounded_mailbox_that_drops_is_recorded_with_its_capacity_policy_and_every_loss() {
    const auto file = path_in(dir_, "bounded.db");
    as::ActorId dropper_id, refuser_id, open_id;
    {
      // Declared before the System, so that they outlive the handlers waiting on them if a check fails.
      Probe probe;
      Gate gate, gate2;
      as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 2ms, .keyframe_every = 5});
      as::System sys{as::make_runtime("asio", {.threads = 2})};
      sys.attach(rec);
      auto dropper = sys.spawn<Held>(Held{.probe = &probe, .gate = &gate}, bounded(3, as::Overflow::drop_oldest))
                         .value();
      auto refuser = sys.spawn<Held>(Held{.probe = &probe, .gate = &gate2}, bounded(1, as::Overflow::reject)).value();
      auto open = sys.spawn<Held>(Held{.probe = &probe, .gate = &gate2}, {}).value();
      dropper_id = dropper.id();
      refuser_id = refuser.id();
      open_id = open.id();
      QVERIFY(dropper.cast(1));
      QVERIFY(refuser.cast(1));
      QVERIFY(probe.wait_count(sys, "holding", 2));
      // 2, 3 and 4 fill the mailbox; 5 to 9 each push the oldest waiting one out.
      for (int i = 2; i <= 9; ++i) QVERIFY(dropper.cast(i));
      QVERIFY(refuser.cast(2));
      for (int i = 3; i <= 5; ++i) QVERIFY(!refuser.cast(i));
      gate.open();
      gate2.open();
      QVERIFY(probe.wait_for(sys, "got 9"));
      QVERIFY(probe.wait_for(sys, "got 2"));
      for (int i = 3; i <= 6; ++i) QVERIFY(!probe.contains("got " + std::to_string(i)));  // dropped or refused
      QCOMPARE(dropper.stats().dropped, 5u);
      QVERIFY(sys.shutdown(kTimeout));
    }
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    const std::int64_t session = r.sessions().front().id;
    const auto actors = r.actors(session);
    const auto info = [&](as::ActorId id) {
      return *std::find_if(actors.begin(), actors.end(), [&](const as::ActorInfo& a) { return a.id == id; });
    };
    QCOMPARE(info(dropper_id).mailbox_capacity, 3u);
    QCOMPARE(info(dropper_id).overflow, as::Overflow::drop_oldest);
    QCOMPARE(info(refuser_id).mailbox_capacity, 1u);
    QCOMPARE(info(refuser_id).overflow, as::Overflow::reject);
    QCOMPARE(info(open_id).mailbox_capacity, 0u);
    // The statistics count every loss exactly, bucket by bucket.
    std::uint64_t dropped = 0, rejected = 0, others = 0;
    for (const auto& x : r.stats(session)) {
      if (x.actor == dropper_id) {
        dropped += x.dropped;
        others += x.rejected;
      } else if (x.actor == refuser_id) {
        rejected += x.rejected;
        others += x.dropped;
      } else {
        others += x.dropped + x.rejected;
      }
    }
    QCOMPARE(dropped, 5u);
    QCOMPARE(rejected, 3u);
    QCOMPARE(others, 0u);
    QCOMPARE(r.event_counts(session)[static_cast<std::size_t>(obs::EventKind::mailbox_configured)], 2u);
    // Replayed, from keyframes and from the start alike, the fold has them all.
    for (bool keyframes : {true, false}) {
      const obs::SystemState st = r.state_at(session, as::TimePoint::max(), {.use_keyframes = keyframes});
      QCOMPARE(st.actor(dropper_id)->mailbox_capacity, 3u);
      QCOMPARE(st.actor(dropper_id)->overflow, as::Overflow::drop_oldest);
      QCOMPARE(st.actor(dropper_id)->dropped, 5u);
      QCOMPARE(st.actor(refuser_id)->rejected, 3u);
      QCOMPARE(st.actor(refuser_id)->overflow, as::Overflow::reject);
      QCOMPARE(st.actor(open_id)->mailbox_capacity, 0u);
    }
    QVERIFY(r.state_at(session, as::TimePoint::max()) ==
            r.state_at(session, as::TimePoint::max(), {.use_keyframes = false}));
  }

  void a_format_5_recording_opens_read_only_unchanged_unbounded_and_is_migrated_when_a_session_is_added() {
    const auto file = path_in(dir_, "format5.db");
    std::filesystem::copy_file(good_, file, std::filesystem::copy_options::overwrite_existing);
    {  // What format 5 was: no bounded mailboxes.
      Sqlite db(file);
      QVERIFY(db.exec(kBackToFormat5) && db.exec("UPDATE meta SET value = '5' WHERE key = 'format_version'"));
    }
    const std::string before = read_bytes(file);
    std::size_t actors = 0;
    {
      const as::SessionReader r(file);
      QCOMPARE(r.format_version(), 5);
      r.verify();
      const std::int64_t session = r.sessions().front().id;
      const auto list = r.actors(session);
      QVERIFY(!list.empty());
      actors = list.size();
      for (const auto& a : list) {
        QCOMPARE(a.mailbox_capacity, 0u);
        QCOMPARE(a.overflow, as::Overflow::reject);
      }
      const auto stats = r.stats(session);
      QVERIFY(!stats.empty());
      for (const auto& x : stats) QVERIFY(x.dropped == 0 && x.rejected == 0);
      const obs::SystemState st = r.state_at(session, as::TimePoint::max());
      QVERIFY(st.events_applied() > 0);
      for (const auto& [id, a] : st.actors()) QVERIFY(a.mailbox_capacity == 0 && a.dropped == 0 && a.rejected == 0);
    }
    QVERIFY2(read_bytes(file) == before, "reading a format-5 recording changed it");
    add_a_session(file);  // a recorder that adds one brings the file to the current format first
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    r.verify();
    QCOMPARE(r.sessions().size(), 2u);
    QCOMPARE(r.actors(r.sessions().front().id).size(), actors);
    for (const auto& a : r.actors(r.sessions().front().id)) QCOMPARE(a.mailbox_capacity, 0u);
    for (const auto& x : r.stats(r.sessions().front().id)) QVERIFY(x.dropped == 0 && x.rejected == 0);
  }

  void a_recording_that_lost_a_table_or_column_is_refused_as_damaged_naming_it() {
    const auto file = path_in(dir_, "lost-table.db");
    std::filesystem::copy_file(good_, file, std::filesystem::copy_options::overwrite_existing);
    {
      Sqlite db(file);
      QVERIFY(db.exec("DROP TABLE keyframes"));
    }
    expect_refused(file, Kind::corrupt,
                   "it is a recording in format " + std::to_string(as::kRecordingFormatVersion) +
                       ", but its keyframes table is missing");
    std::filesystem::copy_file(good_, file, std::filesystem::copy_options::overwrite_existing);
    {
      Sqlite db(file);
      QVERIFY(db.exec("ALTER TABLE sessions DROP COLUMN recorder"));
    }
    expect_refused(file, Kind::corrupt, "its sessions table has no recorder column");
  }

  // Appending checks what a file is by reading it only, so a refusal changes nothing: not its
  // bytes (its journal mode is in its header), and no WAL or index is left beside it.
  void a_recorder_refuses_a_file_it_cannot_add_to_and_leaves_it_byte_for_byte_as_it_was_data() {
    QTest::addColumn<QString>("foreign");  // another program's database, or
    QTest::addColumn<QString>("damage");   // what is done to a copy of a good recording
    QTest::addColumn<int>("kind");
    QTest::newRow("another program's database")
        << "CREATE TABLE t(x); INSERT INTO t VALUES (1);" << QString() << int(Kind::not_a_recording);
    QTest::newRow("another program's database in WAL mode")
        << "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);" << QString()
        << int(Kind::not_a_recording);
    QTest::newRow("another program's empty database with its own application_id")
        << "PRAGMA application_id = 1234;" << QString() << int(Kind::not_a_recording);
    QTest::newRow("a recording without its events table")
        << QString() << "DROP TABLE events;" << int(Kind::corrupt);
    QTest::newRow("a recording of a newer format")
        << QString() << "UPDATE meta SET value = '99' WHERE key = 'format_version';" << int(Kind::too_new);
  }
  void a_recorder_refuses_a_file_it_cannot_add_to_and_leaves_it_byte_for_byte_as_it_was() {
    QFETCH(QString, foreign);
    QFETCH(QString, damage);
    QFETCH(int, kind);
    const auto file = path_in(dir_, "append-target.db");
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(file.string() + suffix);
    if (foreign.isEmpty()) {
      std::filesystem::copy_file(good_, file);
      Sqlite db(file);
      QVERIFY(db.exec(damage.toUtf8().constData()));
    } else {
      Sqlite db(file);
      QVERIFY(db.exec(foreign.toUtf8().constData()));
    }
    auto side_files = [&] {
      int n = 0;
      for (const char* suffix : {"-wal", "-shm", "-journal"})
        n += std::filesystem::exists(file.string() + suffix);
      return n;
    };
    QCOMPARE(side_files(), 0);
    const std::string before = read_bytes(file);

    const auto e =
        error_of([&] { as::Recorder rec(file, {.if_exists = as::RecorderOptions::IfExists::append}); });
    QVERIFY2(e.has_value(), "the recorder accepted the file");
    QVERIFY(read_bytes(file) == before);
    QCOMPARE(side_files(), 0);
    QVERIFY2(int(e->kind()) == kind, e->what());
    QVERIFY2(std::string(e->what()).find("the file was left as it was") != std::string::npos, e->what());
  }

  // "Opening a file never changes it": a WAL-mode file with no log beside it is read without
  // SQLite making a log and an index that a read-only connection could not remove again.
  void reading_a_wal_mode_file_leaves_nothing_beside_it() {
    const auto file = path_in(dir_, "wal-mode.db");
    std::filesystem::copy_file(good_, file, std::filesystem::copy_options::overwrite_existing);
    {
      Sqlite db(file);
      QVERIFY(db.exec("PRAGMA journal_mode = WAL"));
    }  // the last connection checkpoints and removes the log; the header still says WAL
    QVERIFY(!std::filesystem::exists(file.string() + "-wal"));
    const std::string before = read_bytes(file);
    {
      const as::SessionReader r(file);
      QCOMPARE(r.sessions().size(), 1u);
      r.verify();
    }
    QVERIFY(!std::filesystem::exists(file.string() + "-wal"));
    QVERIFY(!std::filesystem::exists(file.string() + "-shm"));
    QVERIFY(read_bytes(file) == before);
  }

  void a_recording_in_progress_can_be_read_while_it_is_written() {
    const auto file = path_in(dir_, "live.db");
    as::Recorder rec(file, {.detail = as::Detail::full, .flush_interval = 1ms});
    as::System sys{as::make_runtime("asio", {.threads = 2})};
    sys.attach(rec);
    WorkloadResult w;
    run_workload(sys, w, 2, 20, 50);
    if (QTest::currentTestFailed()) return;
    // Wait (event-driven on the writer's progress, generous deadline) for something to be on disk.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (rec.progress().events_recorded == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    QVERIFY(rec.progress().events_recorded > 0);
    as::SessionReader r(file);
    const as::SessionInfo s = r.sessions().front();
    QVERIFY(!s.ended_cleanly());  // not ended yet
    QVERIFY(s.events_recorded > 0);
    // Each call reads the file as it is then: the recording only grows between them.
    const std::size_t listed = r.events(s.id).size();
    const std::uint64_t folded = r.state_at(s.id, as::TimePoint::max()).events_applied();
    QVERIFY(listed >= s.events_recorded);
    QVERIFY(folded >= listed);
  }
};

QTEST_GUILESS_MAIN(TestSessionReader)
#include "tst_session_reader.moc"
