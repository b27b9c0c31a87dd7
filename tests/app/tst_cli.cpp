// The command line: every subcommand parses its options the same way, and a mistake gets a
// message that names the option and points at --help, with exit code 2.
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <sqlite3.h>

#include "cli/args.hpp"
#include "cli/command.hpp"

using actorscope::cli::ArgError;
using actorscope::cli::Args;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ArgError& e) {
    return e.what();
  }
  return {};
}
}  // namespace

class TestCli : public QObject {
  Q_OBJECT

 private slots:
  void options_are_taken_in_both_spellings_with_numbers_and_lists_checked() {
    Args a("bench", {"--runtime", "asio,qt", "--threads=4", "--quick", "--seconds", "1.5", "file.db"});
    QCOMPARE(a.list("runtime"), (std::vector<std::string>{"asio", "qt"}));
    QCOMPARE(a.integer("threads", 1, 64).value(), 4);
    QVERIFY(a.flag("quick"));
    QVERIFY(!a.flag("json"));
    QCOMPARE(a.seconds("seconds", 3600).value(), 1.5);
    QCOMPARE(a.positionals(), std::vector<std::string>{"file.db"});
    a.finish(1);
  }

  void an_unknown_option_is_refused_by_name_with_a_pointer_to_help() {
    const std::string e = error_of([] {
      Args a("bench", {"--quick", "--frobnicate"});
      (void)a.flag("quick");
      a.finish();
    });
    QVERIFY2(e.find("unknown option --frobnicate") != std::string::npos, e.c_str());
    QVERIFY2(e.find("actorscope bench --help") != std::string::npos, e.c_str());
  }

  void a_bad_number_a_missing_value_and_a_repeated_option_are_refused() {
    QVERIFY(error_of([] { Args a("x", {"--threads", "zero"}); (void)a.integer("threads", 1, 8); })
                .find("--threads must be a whole number from 1 to 8, not \"zero\"") != std::string::npos);
    QVERIFY(error_of([] { Args a("x", {"--threads", "9"}); (void)a.integer("threads", 1, 8); }).find("from 1 to 8") !=
            std::string::npos);
    QVERIFY(error_of([] { Args a("x", {"--out"}); (void)a.value("out"); }).find("--out needs a value") !=
            std::string::npos);
    QVERIFY(error_of([] { Args a("x", {"--out", "a", "--out", "b"}); (void)a.value("out"); })
                .find("--out is given twice") != std::string::npos);
    QVERIFY(error_of([] { Args a("x", {"--runtime", "asio,,qt"}); (void)a.list("runtime"); })
                .find("empty entry") != std::string::npos);
    QVERIFY(error_of([] { Args a("x", {"--seconds", "-1"}); (void)a.seconds("seconds", 60); })
                .find("--seconds must be a number of seconds") != std::string::npos);
    QVERIFY(error_of([] { Args a("x", {"a.db", "b.db"}); a.finish(1); }).find("unexpected argument \"b.db\"") !=
            std::string::npos);
  }

  // Taking the arguments does not make any number of them acceptable: `inspect a.db b.db` once read
  // the first and silently dropped the second.
  void arguments_taken_as_positionals_still_count_against_what_a_command_takes() {
    const std::string e = error_of([] {
      Args a("export", {"a.db", "--out", "x.json", "b.db"});
      (void)a.value("out");
      QCOMPARE(a.positionals(), (std::vector<std::string>{"a.db", "b.db"}));
      a.finish(1, "one recording");
    });
    QVERIFY2(e.find("\"b.db\" is one argument too many: export takes one recording") != std::string::npos, e.c_str());
    QVERIFY2(e.find("actorscope export --help") != std::string::npos, e.c_str());
    const std::string none = error_of([] {
      Args a("scenarios", {"storm"});
      (void)a.positionals();
      a.finish();
    });
    QVERIFY2(none.find("unexpected argument \"storm\": scenarios takes only options") != std::string::npos,
             none.c_str());
    Args enough("inspect", {"a.db", "b.db"});
    QCOMPARE(enough.positionals().size(), 2u);
    enough.finish(2);
  }

  void an_unknown_command_exits_2_and_help_lists_every_command() {
    QCOMPARE(actorscope::cli::dispatch({"no-such-command"}), 2);
    QCOMPARE(actorscope::cli::dispatch({"help"}), 0);
    QCOMPARE(actorscope::cli::dispatch({"help", "no-such-command"}), 2);
    for (const auto& c : actorscope::cli::commands()) {
      QVERIFY(!c.summary.empty());
      QVERIFY2(c.usage.starts_with("usage: actorscope " + std::string(c.name)), std::string(c.name).c_str());
    }
  }

  void bench_refuses_mistakes_with_exit_code_2_before_running_anything() {
    using actorscope::cli::dispatch;
    QCOMPARE(dispatch({"bench", "--filter", "(unclosed"}), 2);
    QCOMPARE(dispatch({"bench", "--filter", "^no such benchmark$"}), 2);
    QCOMPARE(dispatch({"bench", "--runtime", "asio,tokio"}), 2);
    QCOMPARE(dispatch({"bench", "--runtime", "manual"}), 2);
    QCOMPARE(dispatch({"bench", "--threads", "0"}), 2);
    QCOMPARE(dispatch({"bench", "--history", "h.db", "--no-history"}), 2);
    QCOMPARE(dispatch({"bench", "--list", "--filter", "quiescent"}), 0);
    // An unwritable JSON path fails at once, not after the run (exit 1: not a usage mistake).
    QCOMPARE(dispatch({"bench", "--filter", "^Creation of 100 actors$", "--json", "/nonexistent-directory/x.json",
                       "--no-history"}),
             1);
  }

  void bench_runs_a_selection_and_writes_json_and_history() {
    QTemporaryDir dir;
    const std::string json = dir.filePath("out.json").toStdString();
    const std::string history = dir.filePath("history.db").toStdString();
    QCOMPARE(actorscope::cli::dispatch({"bench", "--filter", "^Creation of 100 actors$", "--runtime", "asio,qt",
                                        "--threads", "2", "--samples", "2", "--json", json, "--history", history}),
             0);
    QVERIFY(QFileInfo(QString::fromStdString(json)).size() > 0);
    QVERIFY(QFileInfo(QString::fromStdString(history)).size() > 0);
  }

  // --wait-spin-us reaches the run's options: the JSON document and the history both say what the
  // run was measured with, so that spinning and sleeping runs are never mixed up.
  void bench_records_the_wait_spin_it_ran_with() {
    QTemporaryDir dir;
    const std::string json = dir.filePath("out.json").toStdString();
    const std::string history = dir.filePath("history.db").toStdString();
    QCOMPARE(actorscope::cli::dispatch({"bench", "--filter", "^Call round trip from outside$", "--runtime", "asio",
                                        "--samples", "1", "--warm-up-ms", "0", "--wait-spin-us", "20", "--json",
                                        json, "--history", history}),
             0);
    QFile f(QString::fromStdString(json));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(doc["options"].toObject()["wait_spin_us"].toDouble(), 20.0);
    QCOMPARE(doc["options"].toObject()["idle_spin_us"].toDouble(), 0.0);
    const QJsonArray results = doc["results"].toArray();
    QCOMPARE(results.size(), 1);
    QVERIFY2(results[0].toObject()["error"].isNull(), qPrintable(results[0].toObject()["error"].toString()));

    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(history.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, "SELECT wait_spin_us, idle_spin_us FROM runs", -1, &st, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    const auto wait = sqlite3_column_int64(st, 0), idle = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    QCOMPARE(wait, 20);
    QCOMPARE(idle, 0);

    // Out of range is a usage error that names the option.
    QCOMPARE(actorscope::cli::dispatch({"bench", "--wait-spin-us", "2000000", "--no-history"}), 2);
  }

  // The recording measurements (storage/benchmarks) are part of `actorscope bench`: in a quick run
  // they run (the replay on a smaller file, which its note says), and their results land in the
  // JSON document like the others. No time is judged.
  void bench_runs_the_recording_measurements_quickly_with_well_formed_json() {
    QTemporaryDir dir;
    const std::string json = dir.filePath("recording.json").toStdString();
    const std::string history = dir.filePath("history.db").toStdString();
    QCOMPARE(actorscope::cli::dispatch({"bench", "--filter",
                                        "^(Recorder throughput|Message loop of|Opening a recording)",
                                        "--runtime", "asio,qt", "--quick", "--samples", "1", "--warm-up-ms",
                                        "0", "--json", json, "--history", history}),
             0);
    QFile f(QString::fromStdString(json));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
    QVERIFY(doc.object()["options"].toObject()["quick"].toBool());
    const QJsonArray results = doc.object()["results"].toArray();
    // Throughput and replay do not use a runtime: once each; the three loops once per runtime.
    QCOMPARE(results.size(), 2 + 3 * 2);
    int rates = 0, ratios = 0, times = 0;
    for (const QJsonValue& v : results) {
      const QJsonObject o = v.toObject();
      const QString what = o["benchmark"].toString() + " on " + o["runtime"].toString();
      QVERIFY2(o["error"].isNull(), qPrintable(what + ": " + o["error"].toString()));
      QCOMPARE(o["group"].toString(), QString("recording"));
      QCOMPARE(o["samples"].toArray().size(), 1);
      const double median = o["statistics"].toObject()["median"].toDouble();
      QVERIFY2(std::isfinite(median) && median > 0, qPrintable(what));
      QCOMPARE(o["per_element"].toObject()["median"].toDouble(), median);
      const QString measure = o["measure"].toString();
      if (measure == "rate") {
        ++rates;
        QCOMPARE(o["unit"].toString(), QString("events/s"));
        QCOMPARE(o["runtime"].toString(), QString("asio"));
      } else if (measure == "ratio") {
        ++ratios;
        QCOMPARE(o["unit"].toString(), QString("×"));
        QCOMPARE(o["threads"].toInt(), 1);
        QCOMPARE(o["phases"].toArray().size(), 2);  // nothing attached, recording
        QVERIFY2(o["note"].toString().contains("dropped"), qPrintable(what));
      } else {
        ++times;
        QCOMPARE(measure, QString("time"));
        QCOMPARE(o["runtime"].toString(), QString("asio"));
        QVERIFY2(o["note"].toString().contains("quick run: a recording of 100,000 events"), qPrintable(what));
      }
    }
    QCOMPARE(rates, 1);
    QCOMPARE(ratios, 6);
    QCOMPARE(times, 1);
    QVERIFY(QFileInfo(QString::fromStdString(history)).size() > 0);
  }

  void runtimes_lists_every_backend_this_build_has() {
    QCOMPARE(actorscope::cli::dispatch({"runtimes"}), 0);
    QCOMPARE(actorscope::cli::dispatch({"runtimes", "--bogus"}), 2);
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
