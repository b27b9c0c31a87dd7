// Following a recording that another process is still writing (issue 20's "attach to your own
// program"): one SessionReader, opened once while the writer (tests/storage/follow_writer, a child
// process with an as::Recorder) records, sees each new commit on its next query, with the
// session's end_time growing; its queries never stop the writer (which reports no error) and leave
// no snapshot open between calls, so the writer can still checkpoint its log; and once the writer
// ends the session, the same reader sees ended_at. The child is driven on its stdin; every wait is
// on its answer, with a generous deadline.
#include "recording_test.hpp"

#include <QProcess>

#include <sqlite3.h>

using namespace recording_test;

namespace {

/// The writer process and its line protocol (see follow_writer.cpp).
class Writer {
 public:
  explicit Writer(const std::filesystem::path& file) {
    p_.setProcessChannelMode(QProcess::SeparateChannels);
    p_.start(QStringLiteral(FOLLOW_WRITER), {QString::fromStdString(file.string())});
  }
  ~Writer() {
    if (p_.state() != QProcess::NotRunning) {
      p_.kill();
      p_.waitForFinished(30000);
    }
  }
  QProcess& process() { return p_; }

  void send(const char* line) {
    p_.write(line);
    p_.write("\n");
    p_.waitForBytesWritten(30000);
  }
  /// The next answer line, split into words; empty if the writer died or said nothing within the
  /// deadline. `meanwhile` runs between looks at the pipe (the reader's queries, in one test).
  QStringList answer(const std::function<void()>& meanwhile = {}) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!p_.canReadLine()) {
      if (std::chrono::steady_clock::now() > deadline) return {};
      if (meanwhile) meanwhile();
      if (!p_.waitForReadyRead(meanwhile ? 1 : 1000) && p_.state() == QProcess::NotRunning &&
          !p_.canReadLine())
        return {};
    }
    return QString::fromUtf8(p_.readLine()).trimmed().split(' ');
  }
  QString errors() { return QString::fromUtf8(p_.readAllStandardError()); }

 private:
  QProcess p_;
};

}  // namespace

class TestFollow : public QObject {
  Q_OBJECT

 private slots:
  void a_reader_follows_a_recording_that_another_process_is_writing() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "live.db");
    Writer w(file);
    QVERIFY2(w.process().waitForStarted(30000), "follow_writer did not start");
    const QStringList ready = w.answer();
    QVERIFY2(ready.size() == 2 && ready[0] == "ready", qPrintable(ready.join(' ') + w.errors()));
    const std::int64_t id = ready[1].toLongLong();

    // One reader for the whole test: following needs no reopening.
    const as::SessionReader r(file);
    as::SessionInfo last = r.session(id);
    QVERIFY(!last.ended_cleanly());

    for (int round = 0; round < 3; ++round) {
      w.send("burst 300");
      const QStringList c = w.answer();
      QVERIFY2(c.size() == 3 && c[0] == "committed", qPrintable(c.join(' ') + w.errors()));
      const std::uint64_t committed = c[1].toULongLong();
      QCOMPARE(c[2].toULongLong(), 0u);  // nothing dropped
      const as::SessionInfo now = r.session(id);
      QVERIFY2(now.events_recorded >= committed,
               qPrintable(QString("the reader sees %1 events, the writer committed %2")
                              .arg(now.events_recorded)
                              .arg(committed)));
      QVERIFY(now.events_recorded > last.events_recorded);
      QVERIFY(now.end_time > last.end_time);
      QVERIFY(!now.ended_cleanly());
      // Every query sees at least that commit, and the queries agree with each other.
      const auto d = r.density(id, now.start_time, as::TimePoint::max(), 50);
      std::uint64_t total = 0;
      for (const auto& b : d) total += b.total();
      QVERIFY(total >= committed);
      QVERIFY(r.adjacent_event(id, now.start_time, true).has_value());
      QVERIFY(r.state_at(id, as::TimePoint::max()).events_applied() >= committed);
      last = now;
    }

    // The reader's queries while the writer writes: they never fail and never hold it up (the
    // writer answers with no error and nothing dropped).
    int queries = 0;
    w.send("burst 20000");
    const QStringList busy = w.answer([&] {
      const as::SessionInfo s = r.session(id);
      (void)r.density(id, s.start_time, s.end_time, 800);
      (void)r.markers(id, s.start_time, s.end_time);
      ++queries;
    });
    QVERIFY2(busy.size() == 3 && busy[0] == "committed", qPrintable(busy.join(' ') + w.errors()));
    QCOMPARE(busy[2].toULongLong(), 0u);
    QVERIFY(queries > 0);

    // No snapshot stays open between calls: with the reader open and idle, the writer's side can
    // checkpoint the whole log (busy 0). A reader that keeps a transaction open stops it (busy 1):
    // the check can tell the difference.
    w.send("checkpoint");
    QStringList cp = w.answer();
    QVERIFY2(cp.size() == 4 && cp[0] == "checkpoint", qPrintable(cp.join(' ') + w.errors()));
    QCOMPARE(cp[1], QString("0"));
    {
      sqlite3* pin = nullptr;
      QCOMPARE(sqlite3_open_v2(file.c_str(), &pin, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
      QCOMPARE(sqlite3_exec(pin, "BEGIN; SELECT count(*) FROM sessions;", nullptr, nullptr, nullptr),
               SQLITE_OK);
      w.send("burst 100");  // something new in the log, that the pinned snapshot does not have
      QCOMPARE(w.answer().value(0), QString("committed"));
      w.send("checkpoint");
      cp = w.answer();
      QCOMPARE(cp.value(0), QString("checkpoint"));
      QCOMPARE(cp.value(1), QString("1"));
      sqlite3_exec(pin, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close_v2(pin);
    }
    (void)r.session(id);
    w.send("checkpoint");
    cp = w.answer();
    QCOMPARE(cp.value(1), QString("0"));

    // The writer ends the session: the same reader sees it end cleanly, with everything in it.
    const as::SessionInfo before_end = r.session(id);
    w.send("quit");
    const QStringList ended = w.answer();
    QVERIFY2(ended.size() == 2 && ended[0] == "ended", qPrintable(ended.join(' ') + w.errors()));
    QVERIFY(w.process().waitForFinished(60000));
    QCOMPARE(w.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(w.process().exitCode(), 0);
    const as::SessionInfo end = r.session(id);
    QVERIFY(end.ended_cleanly());
    QCOMPARE(end.events_recorded, ended[1].toULongLong());
    QVERIFY(end.end_time >= before_end.end_time);
    QCOMPARE(r.events(id).size(), end.events_recorded);
  }

  void refresh_reopens_a_snapshot_once_a_writer_has_started() {
    // A finished recording left in WAL mode without its log: opened as an immutable snapshot.
    QTemporaryDir dir;
    const auto file = path_in(dir, "snapshot.db");
    {
      as::Recorder rec(file, {.detail = as::Detail::full});
      as::System sys{as::make_runtime("manual")};
      sys.attach(rec);
    }
    {
      sqlite3* db = nullptr;
      QCOMPARE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
      QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr), SQLITE_OK);
      sqlite3_close_v2(db);  // the last connection: the log is checkpointed and removed
    }
    std::filesystem::path wal = file;
    wal += "-wal";
    QVERIFY(!std::filesystem::exists(wal));
    as::SessionReader r(file);
    QCOMPARE(r.sessions().size(), 1u);
    QVERIFY(!r.refresh());  // nobody writes: nothing to do
    {
      as::Recorder rec(file, {.detail = as::Detail::full});
      as::System sys{as::make_runtime("manual")};
      sys.attach(rec);
      QVERIFY(std::filesystem::exists(wal));
      QVERIFY(r.refresh());
      QVERIFY(!r.refresh());  // once is enough: it is an ordinary reader now
      const auto sessions = r.sessions();
      QCOMPARE(sessions.size(), 2u);
      QVERIFY(!sessions[1].ended_cleanly());
    }
    QVERIFY(r.session(2).ended_cleanly());  // and it follows from then on
  }

  void a_file_being_checkpointed_is_not_taken_for_a_truncated_one() {
    // While a writer checkpoints, the file's header already counts the pages being copied into it:
    // for a moment the file is shorter than its header says. With the writer's log beside it, a
    // reader opening it then must not call it truncated (it would, for a file without a log).
    QTemporaryDir dir;
    const auto file = path_in(dir, "checkpointing.db");
    {
      as::Recorder rec(file, {.detail = as::Detail::full});
      as::System sys{as::make_runtime("manual")};
      sys.attach(rec);
    }
    // A writer in WAL mode that has grown the database by pages that are only in its log so far.
    sqlite3* writer = nullptr;
    QCOMPARE(sqlite3_open_v2(file.c_str(), &writer, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_exec(writer,
                          "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; "
                          "CREATE TABLE filler(x); INSERT INTO filler VALUES (zeroblob(200000));",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    std::filesystem::path wal = file;
    wal += "-wal";
    QVERIFY(std::filesystem::exists(wal));
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(writer, "PRAGMA page_count", -1, &st, nullptr);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    const auto pages = static_cast<std::uint32_t>(sqlite3_column_int(st, 0));
    sqlite3_finalize(st);
    // A checkpoint has copied the first page (the header, with the new page count) and not yet
    // the pages after the file's end: the file is shorter than its header says.
    {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      unsigned char h[100];
      f.read(reinterpret_cast<char*>(h), 100);
      const unsigned char count[4] = {
          static_cast<unsigned char>(pages >> 24), static_cast<unsigned char>(pages >> 16),
          static_cast<unsigned char>(pages >> 8), static_cast<unsigned char>(pages)};
      f.seekp(28);
      f.write(reinterpret_cast<const char*>(count), 4);
      f.seekp(92);
      f.write(reinterpret_cast<const char*>(h + 24), 4);  // version-valid-for: the count is valid
    }
    QVERIFY(std::filesystem::file_size(file) < std::uint64_t{pages} * 4096);
    const auto opened = error_of([&] { QCOMPARE(as::SessionReader(file).sessions().size(), 1u); });
    QVERIFY2(!opened, opened ? opened->what() : "");
    // The same bytes without the log beside them are a truncated file.
    const auto copy = path_in(dir, "copy.db");
    std::filesystem::copy_file(file, copy);
    sqlite3_close_v2(writer);
    const auto e = error_of([&] { as::SessionReader r(copy); });
    QVERIFY(e.has_value());
    QCOMPARE(e->kind(), as::RecordingError::Kind::corrupt);
    QVERIFY(std::string(e->what()).find("shorter than its header says") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestFollow)
#include "tst_follow.moc"
