// The benchmark suite as a library: every benchmark runs (one sample, no warm-up) on asio and qt
// and gives sane statistics; the statistics are right on known samples; the JSON document has its
// documented fields; a run lands in the history file; mistakes get typed errors. Nothing here
// judges a time: benchmarks never fail on one.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include <actorscope/benchmarks.hpp>
#include <actorscope/benchmarks/history_store.hpp>

#include <cmath>
#include <fstream>
#include <sqlite3.h>
#include <thread>

namespace bench = actorscope::bench;
#endif

class TestBenchmarks : public QObject {
  Q_OBJECT

 private slots:
  // -- statistics ------------------------------------------------------------------------------

  void statistics_of_known_samples_give_quartiles_percentiles_and_tukey_outliers() {
    // Ranks interpolate linearly: q1 is at rank 0.25 · 9 = 2.25, between 3 and 4.
    const std::vector<double> v{7, 1, 100, 3, 5, 2, 9, 4, 6, 8};
    const bench::Statistics s = bench::compute_statistics(v);
    QCOMPARE(s.count, std::size_t{10});
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 100.0);
    QCOMPARE(s.median, 5.5);
    QCOMPARE(s.q1, 3.25);
    QCOMPARE(s.q3, 7.75);
    QCOMPARE(s.p95, 9 + 0.55 * 91);
    QCOMPARE(s.mean, 14.5);
    // The fences: q3 + 1.5 · 4.5 = 14.5 (mild), q3 + 3 · 4.5 = 21.25 (severe): 100 is severe.
    QCOMPARE(s.outliers_severe, std::size_t{1});
    QCOMPARE(s.outliers_mild, std::size_t{0});
    QCOMPARE(s.outliers(), std::size_t{1});
  }

  void a_sample_between_the_fences_is_a_mild_outlier_on_either_side() {
    const bench::Statistics high = bench::compute_statistics(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 16});
    QCOMPARE(high.outliers_mild, std::size_t{1});
    QCOMPARE(high.outliers_severe, std::size_t{0});
    // Mirror image: -6 is below q1 − 1.5 · IQR but above q1 − 3 · IQR.
    const bench::Statistics low = bench::compute_statistics(std::vector<double>{-6, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    QCOMPARE(low.outliers_mild, std::size_t{1});
    QCOMPARE(low.outliers_severe, std::size_t{0});
  }

  void statistics_of_one_sample_and_of_none() {
    const bench::Statistics one = bench::compute_statistics(std::vector<double>{42});
    QCOMPARE(one.count, std::size_t{1});
    QCOMPARE(one.min, 42.0);
    QCOMPARE(one.median, 42.0);
    QCOMPARE(one.p95, 42.0);
    QCOMPARE(one.max, 42.0);
    QCOMPARE(one.stddev, 0.0);
    QCOMPARE(one.outliers(), std::size_t{0});
    QCOMPARE(bench::compute_statistics(std::vector<double>{}).count, std::size_t{0});
    const std::vector<double> two{10, 20};
    QCOMPARE(bench::percentile_of_sorted(two, 0.5), 15.0);
    QCOMPARE(bench::compute_statistics(two).stddev, std::sqrt(50.0));
  }

  // -- the registry ----------------------------------------------------------------------------

  void the_registry_has_ractors_five_by_name_with_a_quiescent_variant_of_each() {
    const char* ractor[] = {"Creation of 100 actors", "Creation of 10000 actors",
                            "Waiting on 100 actors to process first message",
                            "Waiting on 1000 actors to process first message",
                            "Waiting on 100000 messages to be processed"};
    for (const char* name : ractor) {
      const bench::Benchmark* b = bench::find_benchmark(name);
      QVERIFY2(b != nullptr, name);
      QCOMPARE(b->info.group, std::string("core"));
      QVERIFY(b->info.reference.has_value());
      const bench::Benchmark* q = bench::find_benchmark(std::string(name) + " (quiescent)");
      QVERIFY2(q != nullptr, name);
      QCOMPARE(q->info.group, std::string("core-quiescent"));
    }
    std::vector<std::string> names;
    for (const auto& b : bench::benchmarks()) {
      QVERIFY(!b.info.description.empty());
      QVERIFY(!b.info.element.empty());
      QVERIFY(b.info.elements >= 1);
      QVERIFY(b.make != nullptr);
      QVERIFY2(std::find(names.begin(), names.end(), b.info.name) == names.end(), b.info.name.c_str());
      names.push_back(b.info.name);
    }
  }

  // -- every benchmark runs on both runtimes ----------------------------------------------------

  void every_benchmark_runs_on_asio_and_qt_with_sane_statistics() {
    const bench::RunReport& r = smoke_report();
    QVERIFY(!r.cancelled);
    QCOMPARE(r.results.size(), bench::benchmarks().size() * 2);
    for (const bench::Result& res : r.results) {
      const std::string what = res.benchmark + " on " + res.runtime;
      QVERIFY2(res.ok(), (what + ": " + res.error).c_str());
      const bench::Benchmark* b = bench::find_benchmark(res.benchmark);
      // The runner's 2 threads, or the benchmark's own (1 for the single-actor loops).
      QVERIFY2(res.threads == (b->info.threads != 0 ? b->info.threads : 2u), what.c_str());
      QCOMPARE(res.samples.size(), std::size_t{1});
      QCOMPARE(res.warm_up_iterations, std::size_t{0});
      const bench::Statistics& s = res.statistics;
      QCOMPARE(s.count, std::size_t{1});
      QVERIFY2(std::isfinite(s.median) && s.median > 0, what.c_str());
      QVERIFY2(s.min <= s.median && s.median <= s.max, what.c_str());
      if (res.measure == bench::Measure::latency) {
        QVERIFY2(res.distribution.has_value() && res.distribution->count > 0, what.c_str());
        QVERIFY2(res.distribution->min >= 0, what.c_str());  // timers never fire early
      } else {
        QVERIFY2(!res.distribution.has_value(), what.c_str());
      }
    }
    // Columns come out in the order asked for, benchmark by benchmark.
    QCOMPARE(r.results[0].runtime, std::string("asio"));
    QCOMPARE(r.results[1].runtime, std::string("qt"));
    QCOMPARE(r.results[0].benchmark, r.results[1].benchmark);
    QVERIFY(r.find("Creation of 100 actors", "qt") != nullptr);
  }

  // -- JSON ------------------------------------------------------------------------------------

  void the_json_document_has_the_documented_fields() {
    const std::string text = bench::to_json(smoke_report());
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
    QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
    const QJsonObject root = doc.object();
    QCOMPARE(root["format"].toString(), QString(bench::kJsonFormat));
    QVERIFY(!root["started_at"].toString().isEmpty());
    QVERIFY(!root["git_revision"].toString().isEmpty());
    QCOMPARE(root["cancelled"].toBool(true), false);
    const QJsonObject machine = root["machine"].toObject();
    for (const char* k : {"cpu_model", "os", "compiler", "build_type", "hostname"})
      QVERIFY2(machine[k].isString(), k);
    QVERIFY(machine["cores"].toInt() >= 1);
    const QJsonObject options = root["options"].toObject();
    QCOMPARE(options["runtimes"].toArray().size(), 2);
    QCOMPARE(options["threads"].toInt(), 2);

    const QJsonArray results = root["results"].toArray();
    QCOMPARE(results.size(), qsizetype(bench::benchmarks().size() * 2));
    for (const QJsonValue& v : results) {
      const QJsonObject o = v.toObject();
      for (const char* k : {"benchmark", "group", "runtime", "measure", "unit", "element"})
        QVERIFY2(o[k].isString() && !o[k].toString().isEmpty(), k);
      const bench::Benchmark* b = bench::find_benchmark(o["benchmark"].toString().toStdString());
      QVERIFY(b != nullptr);
      QCOMPARE(o["threads"].toInt(), int(b->info.threads != 0 ? b->info.threads : 2));
      QVERIFY(o["elements"].toDouble() >= 1);
      QVERIFY(o["error"].isNull());
      QVERIFY(o["note"].isNull() || o["note"].isString());
      QCOMPARE(o["samples"].toArray().size(), 1);
      const QJsonObject s = o["statistics"].toObject();
      for (const char* k : {"count", "min", "q1", "median", "q3", "p95", "p99", "max", "mean", "stddev",
                            "outliers_mild", "outliers_severe"})
        QVERIFY2(s[k].isDouble(), k);
      QCOMPARE(s["median"].toDouble(), o["samples"].toArray()[0].toDouble());
      if (o["measure"].toString() == "ratio" || o["measure"].toString() == "rate") {
        QCOMPARE(o["per_element"].toObject()["unit"].toString(), o["unit"].toString());  // the value itself
      } else {
        QVERIFY(o["per_element"].toObject()["unit"].toString().contains('/'));
      }
      QVERIFY(o["distribution"].isNull() || o["distribution"].isObject());
      QVERIFY(o["phases"].isArray());
      QVERIFY(o["reference"].isNull() || o["reference"].toObject()["low"].isDouble());
    }
  }

  void a_json_report_to_an_unwritable_path_fails_before_the_run_with_the_path_in_the_message() {
    try {
      bench::JsonReport report("/nonexistent-directory/out.json");
      QFAIL("no error");
    } catch (const bench::ReportWriteError& e) {
      QVERIFY(std::string(e.what()).find("/nonexistent-directory/out.json") != std::string::npos);
    }
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.json").toStdString();
    {
      bench::JsonReport report(path);
      report.write(smoke_report());
    }
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    QCOMPARE(first, std::string("{"));
  }

  // -- history ---------------------------------------------------------------------------------

  void a_run_lands_in_the_history_file_with_its_results_and_samples() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("sub/dir/history.db").toStdString();  // directories are made
    const bench::RunReport& report = smoke_report();
    std::int64_t first = 0, second = 0;
    {
      bench::HistoryStore store(path);
      first = store.record(report);
    }
    bench::HistoryStore store(path);  // reopening keeps what was there
    second = store.record(report);
    QVERIFY(second > first);
    const auto runs = store.runs();
    QCOMPARE(runs.size(), std::size_t{2});
    QCOMPARE(runs.front().id, second);  // newest first
    QCOMPARE(runs.front().results, report.results.size());
    QCOMPARE(runs.front().git_revision, report.git_revision);
    QCOMPARE(runs.front().threads, 2u);

    const auto points = store.history("Creation of 100 actors", "qt");
    QCOMPARE(points.size(), std::size_t{2});
    QCOMPARE(points[0].run_id, first);
    const bench::Result* qt = report.find("Creation of 100 actors", "qt");
    QCOMPARE(points[0].statistics.median, qt->statistics.median);
    QCOMPARE(points[0].elements, 100.0);
    QCOMPARE(store.history("Creation of 100 actors").size(), std::size_t{4});  // both runtimes
    QCOMPARE(store.samples(first, "Creation of 100 actors", "qt"), qt->samples);
  }

  void the_history_refuses_a_database_that_is_not_one_and_a_newer_schema() {
    QTemporaryDir dir;
    const std::string other = dir.filePath("other.db").toStdString();
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(other.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "CREATE TABLE invoices (id INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    QVERIFY_THROWS_EXCEPTION(bench::HistoryError, bench::HistoryStore{other});

    const std::string newer = dir.filePath("newer.db").toStdString();
    { bench::HistoryStore store(newer); }
    QCOMPARE(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    try {
      bench::HistoryStore store(newer);
      QFAIL("no error");
    } catch (const bench::HistoryError& e) {
      QVERIFY2(std::string(e.what()).find("schema version 99") != std::string::npos, e.what());
    }
  }

  // A history written by an older actorscope (schema version 1, before --wait-spin-us) is brought
  // forward when it is opened: its runs stay, read back with no wait spin, and new runs can be added.
  void a_version_1_history_is_migrated_and_keeps_its_runs() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("v1.db").toStdString();
    {
      bench::HistoryStore store(path);
      store.record(smoke_report());
    }
    // Turn it into exactly what version 1 wrote: no wait_spin_us column, user_version 1.
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "ALTER TABLE runs DROP COLUMN wait_spin_us; PRAGMA user_version = 1", nullptr, nullptr,
                          nullptr),
             SQLITE_OK);
    sqlite3_close(db);

    {
      bench::HistoryStore store(path);
      QCOMPARE(store.runs().size(), std::size_t{1});
      store.record(smoke_report());
      QCOMPARE(store.runs().size(), std::size_t{2});
    }
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    auto single = [db](const char* sql) {
      sqlite3_stmt* st = nullptr;
      std::int64_t v = -1;
      if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
      return v;
    };
    const std::int64_t version = single("PRAGMA user_version");
    const std::int64_t spinning = single("SELECT count(*) FROM runs WHERE wait_spin_us != 0");
    const std::int64_t runs = single("SELECT count(*) FROM runs WHERE wait_spin_us = 0");
    sqlite3_close(db);
    QCOMPARE(version, std::int64_t{bench::kHistorySchemaVersion});
    QCOMPARE(spinning, std::int64_t{0});
    QCOMPARE(runs, std::int64_t{2});
  }

  void the_default_history_path_follows_xdg_data_home() {
    const QByteArray old = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", "/tmp/xdg-data");
    QCOMPARE(bench::default_history_path(), std::string("/tmp/xdg-data/actorscope/bench-history.db"));
    qputenv("XDG_DATA_HOME", "relative/is/ignored");
    QVERIFY(bench::default_history_path().ends_with("/.local/share/actorscope/bench-history.db"));
    if (old.isNull()) {
      qunsetenv("XDG_DATA_HOME");
    } else {
      qputenv("XDG_DATA_HOME", old);
    }
  }

  // -- options, progress, cancellation ---------------------------------------------------------

  void bad_options_are_refused_up_front_with_typed_errors() {
    auto options = [](auto&& edit) {
      bench::RunOptions o;
      edit(o);
      return o;
    };
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner(options([](auto& o) { o.filter = "(unclosed"; })));
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner(options([](auto& o) { o.filter = "^no such benchmark$"; })));
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner(options([](auto& o) { o.runtimes.clear(); })));
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner(options([](auto& o) { o.runtimes = {"asio", "asio"}; })));
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner(options([](auto& o) { o.runtimes = {"manual"}; })));
    try {
      bench::Runner r(options([](auto& o) { o.runtimes = {"asio", "tokio"}; }));
      QFAIL("no error");
    } catch (const actorscope::UnknownRuntimeError& e) {
      QCOMPARE(e.requested(), std::string("tokio"));
      QVERIFY(std::find(e.known().begin(), e.known().end(), "qt") != e.known().end());
    }
    bench::Runner filtered(options([](auto& o) { o.filter = "quiescent"; }));
    QCOMPARE(filtered.selected().size(), std::size_t{5});
    QCOMPARE(filtered.case_count(), std::size_t{10});
  }

  void a_program_runs_its_own_benchmarks_with_the_suite_and_one_that_runs_once_has_one_result() {
    struct Counting final : bench::Workload {
      bench::Sample sample() override {
        ++taken;
        bench::Sample s;
        s.value = 1.5;
        return s;
      }
      std::string note() const override { return "took " + std::to_string(taken); }
      int taken = 0;
    };
    const auto built_in = bench::benchmarks();
    std::vector<bench::Benchmark> catalogue(built_in.begin(), built_in.end());
    bench::BenchmarkInfo i;
    i.name = "A program's own ratio";
    i.group = "program";
    i.description = "Needs no runtime.";
    i.measure = bench::Measure::ratio;
    i.unit = "×";
    i.element = "run";
    i.runs_once = true;
    catalogue.push_back({i, [](actorscope::System&) { return std::make_unique<Counting>(); }});

    bench::RunOptions o;
    o.threads = 2;
    o.filter = "^A program's own";
    o.samples = 3;
    o.warm_up = std::chrono::milliseconds(0);
    bench::Runner runner(o, catalogue);
    QCOMPARE(runner.case_count(), std::size_t{1});  // not one per runtime
    const bench::RunReport report = runner.run();
    QCOMPARE(report.results.size(), std::size_t{1});
    const bench::Result& r = report.results[0];
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.runtime, std::string("asio"));  // the first one named
    QCOMPARE(r.threads, 0u);                   // it ran on none
    QCOMPARE(r.samples, (std::vector<double>{1.5, 1.5, 1.5}));
    QCOMPARE(r.note, std::string("took 3"));
    QVERIFY(!r.has_per_element());

    const QJsonObject o0 = QJsonDocument::fromJson(QByteArray::fromStdString(bench::to_json(report)))
                               .object()["results"]
                               .toArray()[0]
                               .toObject();
    QCOMPARE(o0["measure"].toString(), QString("ratio"));
    QCOMPARE(o0["note"].toString(), QString("took 3"));
    QCOMPARE(o0["per_element"].toObject()["unit"].toString(), QString("×"));
    QCOMPARE(o0["per_element"].toObject()["median"].toDouble(), 1.5);

    // The built-in list alone does not know it; a name given twice is refused.
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner{o});
    catalogue.push_back(catalogue.back());
    QVERIFY_THROWS_EXCEPTION(bench::RunOptionsError, bench::Runner(o, catalogue));
  }

  void progress_arrives_on_the_calling_thread_and_the_cancel_flag_stops_the_run() {
    bench::RunOptions o;
    o.threads = 2;
    o.filter = "^Creation of 100 actors";
    o.samples = 2;
    o.warm_up = std::chrono::milliseconds(0);
    bench::Runner runner(o);
    std::atomic<bool> cancel{false};
    runner.set_cancel_flag(&cancel);
    std::vector<bench::Progress> seen;
    const auto caller = std::this_thread::get_id();
    bool other_thread = false;
    runner.on_progress([&](const bench::Progress& p) {
      other_thread |= std::this_thread::get_id() != caller;
      seen.push_back(p);
      if (p.phase == bench::Progress::Phase::finished && p.case_index == 1) cancel = true;
    });
    const bench::RunReport report = runner.run();
    QVERIFY(!other_thread);
    QVERIFY(report.cancelled);
    QCOMPARE(report.results.size(), std::size_t{1});
    QCOMPARE(report.results[0].samples.size(), std::size_t{2});
    QVERIFY(!seen.empty());
    QCOMPARE(seen.front().phase, bench::Progress::Phase::starting);
    QCOMPARE(seen.front().case_count, std::size_t{4});
    QVERIFY(std::any_of(seen.begin(), seen.end(), [](const auto& p) {
      return p.phase == bench::Progress::Phase::sampling && p.sample == 2 && p.samples == 2;
    }));
  }

 private:
  // Every benchmark, one sample each, no warm-up, on both runtimes: run once, shared by the tests.
  const bench::RunReport& smoke_report() {
    if (!smoke_) {
      bench::RunOptions o;
      o.threads = 2;
      o.samples = 1;
      o.warm_up = std::chrono::milliseconds(0);
      bench::Runner runner(o);
      smoke_ = runner.run();
    }
    return *smoke_;
  }
  std::optional<bench::RunReport> smoke_;
};

QTEST_GUILESS_MAIN(TestBenchmarks)
#include "tst_benchmarks.moc"
