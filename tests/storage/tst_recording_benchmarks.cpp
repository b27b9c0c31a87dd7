// The recording measurements run and measure what they say (small sizes; no time is judged):
// the throughput run records every event it offers, the message loop handles every message with
// and without a recorder, and replay folds the first half of the file.
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include "recording_benchmarks.hpp"
#include "recording_suite.hpp"
#include "replay_benchmarks.hpp"
#endif

namespace rb = actorscope::recording_benchmarks;

class TestRecordingBenchmarks : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path file(const char* name) const {
    return std::filesystem::path(dir_.filePath(name).toStdString());
  }

 private slots:
  void recorder_throughput_records_every_event_it_offers() {
    const rb::ThroughputSample s = rb::recorder_throughput(file("throughput.db"), 20'000);
    QCOMPARE(s.events, 20'000u);
    QCOMPARE(s.dropped, 0u);
    QVERIFY(s.ns > 0);
    QVERIFY(s.events_per_second() > 0);
    QVERIFY(!std::filesystem::exists(file("throughput.db")));  // it cleans up after itself
  }

  void the_message_loop_runs_bare_and_under_each_detail_level() {
    const rb::MessageLoopSample bare = rb::message_loop("asio", std::nullopt, file("loop.db"), 2'000);
    QCOMPARE(bare.messages, 2'000u);
    QVERIFY(bare.ns > 0);
    QCOMPARE(bare.events_recorded, 0u);
    for (actorscope::Detail d :
         {actorscope::Detail::lifecycle, actorscope::Detail::sampled, actorscope::Detail::full}) {
      const rb::MessageLoopSample s = rb::message_loop("asio", d, file("loop.db"), 2'000);
      QVERIFY(s.ns > 0);
      QVERIFY(s.events_recorded > 0);  // at least the looper's spawn and exit
      if (d == actorscope::Detail::full) QVERIFY(s.events_recorded + s.events_dropped >= 4'000);
    }
    QVERIFY(rb::message_loop("qt", actorscope::Detail::sampled, file("loop.db"), 2'000).ns > 0);
  }

  void replay_opens_the_file_and_folds_to_the_middle() {
    const rb::ReplayFile f = rb::make_replay_file(file("replay.db"), 30'000);
    QCOMPARE(f.events, 30'001u);  // and the attach-time runtime_info
    const rb::ReplaySample s = rb::replay_state_at_middle(f);
    QCOMPARE(s.events_applied, 19'999u);  // up to just before the keyframe after the middle
    QVERIFY(s.actors >= 2);
    QVERIFY(s.open_ns > 0 && s.state_at_ns > 0 && s.total_ns >= s.open_ns + s.state_at_ns);
  }

  // Issue 20's replay measurements, small.
  void the_first_picture_counts_every_event_of_the_file() {
    const rb::ReplayFile f = rb::make_replay_file(file("picture.db"), 20'000);
    const rb::FirstPictureSample s = rb::first_picture(f);
    QCOMPARE(s.events_counted, f.events);
    QVERIFY(s.open_ns > 0 && s.density_ns > 0 && s.markers_ns > 0);
    QVERIFY(s.total_ns >= s.open_ns + s.sessions_ns + s.state_ns + s.density_ns + s.markers_ns);
  }

  void replay_memory_reports_a_peak_at_least_its_baseline() {
    const rb::ReplayFile f = rb::make_replay_file(file("memory.db"), 20'000);
    const rb::ReplayMemorySample s = rb::replay_memory(f);
    QVERIFY(s.baseline_rss > 0);
    QVERIFY(s.peak_rss >= s.baseline_rss);
    QVERIFY(s.ns > 0);
  }

  void follow_latency_sees_the_writers_commits() {
    const rb::FollowLatencySample s =
        rb::follow_latency(file("follow.db"), std::chrono::milliseconds(300), 2'000, std::chrono::milliseconds(50));
    QVERIFY(!s.latencies.empty());
    QVERIFY(s.polls > 0);
    QVERIFY(s.events > 0);
    QCOMPARE(s.dropped, 0u);
    for (double l : s.latencies) QVERIFY(l >= 0);
    QVERIFY(!std::filesystem::exists(file("follow.db")));
  }

  void followed_throughput_runs_alone_and_followed() {
    const rb::FollowedThroughputSample s = rb::followed_throughput(file("followed.db"), 20'000, true);
    QCOMPARE(s.alone.events, 20'000u);
    QCOMPARE(s.followed.events, 20'000u);
    QCOMPARE(s.alone.dropped + s.followed.dropped, 0u);
    QVERIFY(s.ratio() > 0);
  }

  void the_diff_benchmark_matches_every_actor_of_two_recordings_of_one_workload() {
    const rb::ReplayFile a = rb::make_replay_file(file("diff-a.db"), 20'000);
    const rb::ReplayFile b = rb::make_replay_file(file("diff-b.db"), 20'000);
    const rb::DiffSample s = rb::diff_recordings(a, b);
    // Two players, and a short-lived helper every 1,000 events under ping: the helpers are one
    // logical actor (one path, 20 incarnations), so three rows, all matched.
    QCOMPARE(s.matched, 3u);
    QVERIFY(s.total_ns >= s.open_ns + s.read_ns + s.diff_ns);
    QVERIFY(s.peak_rss >= s.baseline_rss);
  }

  void the_replay_benchmarks_are_in_the_suite_under_their_group() {
    int replay = 0;
    for (const auto& b : rb::suite())
      if (b.info.group == "replay") {
        ++replay;
        QVERIFY(b.info.runs_once);
        QVERIFY(b.make_quick != nullptr);
      }
    QCOMPARE(replay, 5);
  }
};

QTEST_GUILESS_MAIN(TestRecordingBenchmarks)
#include "tst_recording_benchmarks.moc"
