// The recording measurements run and measure what they say (small sizes; no time is judged):
// the throughput run records every event it offers, the message loop handles every message with
// and without a recorder, and replay folds the first half of the file.
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include "recording_benchmarks.hpp"
#endif

namespace rb = actorscope::recording_benchmarks;

class TestRecordingBenchmarks : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path file(const char* name) const { return std::filesystem::path(dir_.filePath(name).toStdString()); }

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
    for (actorscope::Detail d : {actorscope::Detail::lifecycle, actorscope::Detail::sampled, actorscope::Detail::full}) {
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
};

QTEST_GUILESS_MAIN(TestRecordingBenchmarks)
#include "tst_recording_benchmarks.moc"
