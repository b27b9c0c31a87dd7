// The fold of factories (issue 25's observability): factory_configured and worker_stuck events and
// FactorySamples make FactoryRecords (settings parsed, totals, gauges, per-bucket history, the
// latency histogram), repeats change nothing, a keyframe image keeps them, the feed folds a poll's
// factory samples with it and tells its sink, and FactoryBucketer turns cumulative polls into
// buckets. Scripted events and samples, no runtime.
#include <QTest>

#include <actorscope/observe/state_feed.hpp>
#include <actorscope/observe/stats_poller.hpp>

#include <vector>

#include "fold_events.hpp"

namespace as = actorscope;
namespace obs = actorscope::observe;
using namespace std::chrono_literals;

namespace {

using fold_events::at;
using fold_events::pid;
using fold_events::spawned;

obs::Event configured(std::uint64_t n, int ms, std::string routing, std::uint32_t workers, std::string settings) {
  obs::Event e = obs::Event::factory_configured(pid(n), std::move(routing), workers, std::move(settings));
  e.time = at(ms);
  return e;
}
obs::Event stuck(std::uint64_t worker, std::uint64_t factory, int ms, std::uint32_t id, bool killed) {
  obs::Event e = obs::Event::worker_stuck(pid(worker), pid(factory), id, "job-" + std::to_string(id), 250ms, killed);
  e.time = at(ms);
  return e;
}
obs::FactorySample fsample(std::uint64_t n, int ms, std::uint64_t completed, std::uint64_t queue, std::uint64_t busy) {
  obs::FactorySample s;
  s.end = at(ms);
  s.factory = pid(n);
  s.dispatched = completed;
  s.completed = completed;
  s.queue_depth = queue;
  s.queue_max = queue;
  s.busy_workers = busy;
  s.workers = 4;
  return s;
}

struct Tape final : obs::StateFeed::Sink {
  std::vector<obs::Event> events;
  std::vector<std::pair<as::TimePoint, std::vector<obs::FactorySample>>> factory_polls;
  std::vector<std::uint64_t> poll_numbers;  ///< feed->polls() when each factory poll was heard
  std::vector<as::TimePoint> polls;
  const obs::StateFeed* feed = nullptr;
  void on_event(obs::Event& e) override { events.push_back(e); }
  void on_poll(as::TimePoint t, std::span<const obs::StatsSample>, std::uint64_t) override { polls.push_back(t); }
  void on_factory_poll(as::TimePoint t, std::span<const obs::FactorySample> s) override {
    QVERIFY2(polls.empty() || polls.back() != t, "a poll's factory samples come before its on_poll");
    factory_polls.emplace_back(t, std::vector<obs::FactorySample>(s.begin(), s.end()));
    poll_numbers.push_back(feed->polls());
  }
};

}  // namespace

class TestFactoryFold : public QObject {
  Q_OBJECT

 private slots:
  void factory_configured_makes_a_record_with_its_settings_parsed() {
    obs::SystemState st;
    st.apply(spawned(1, 0));
    QVERIFY(st.apply(configured(1, 1, "queuer", 4,
                                "queue\tpriority\t3\ndiscard\tstatic\t100\toldest\ndead_man\t500\tkill\nrate\t10\t"
                                "1000\nfuture_tag\tx")));
    const obs::FactoryRecord* f = st.factory(pid(1));
    QVERIFY(f != nullptr);
    QCOMPARE(st.factories().size(), 1u);
    QCOMPARE(f->routing, std::string("queuer"));
    QCOMPARE(f->pool_size, 4u);
    QVERIFY(f->settings.priority);
    QCOMPARE(f->settings.priority_levels, 3u);
    QCOMPARE(f->settings.discard, std::string("static"));
    QCOMPARE(f->settings.discard_limit, 100u);
    QVERIFY(f->settings.discard_oldest);
    QVERIFY(f->settings.dead_man.has_value());
    QCOMPARE(*f->settings.dead_man, as::Duration(500ms));
    QVERIFY(f->settings.dead_man_kills);
    QCOMPARE(f->settings.rate_jobs, 10u);
    QCOMPARE(f->settings.rate_per, as::Duration(1s));
    QVERIFY(!f->settings.draining);
    QCOMPARE(st.events_of(obs::EventKind::factory_configured), 1u);

    // The same configuration again (an observer attached later hears the present) changes nothing.
    const obs::SystemState before = st;
    QVERIFY(st.repeats(configured(1, 5, "queuer", 4,
                                  "queue\tpriority\t3\ndiscard\tstatic\t100\toldest\ndead_man\t500\tkill\nrate\t10\t"
                                  "1000\nfuture_tag\tx")));
    QVERIFY(!st.apply(configured(1, 5, "queuer", 4,
                                 "queue\tpriority\t3\ndiscard\tstatic\t100\toldest\ndead_man\t500\tkill\nrate\t10\t"
                                 "1000\nfuture_tag\tx")));
    QVERIFY(st == before);

    // A change (a resize, draining) is folded.
    QVERIFY(st.apply(configured(1, 6, "queuer", 2, "queue\tfifo\ndiscard\tnone\ndraining")));
    f = st.factory(pid(1));
    QCOMPARE(f->pool_size, 2u);
    QVERIFY(!f->settings.priority);
    QCOMPARE(f->settings.discard, std::string("none"));
    QVERIFY(!f->settings.dead_man.has_value());
    QCOMPARE(f->settings.rate_jobs, 0u);
    QVERIFY(f->settings.draining);
  }

  void worker_stuck_is_counted_and_the_latest_few_are_kept() {
    obs::SystemState::Limits limits;
    limits.failures_per_actor = 3;
    obs::SystemState st(limits);
    st.apply(spawned(1, 0));
    st.apply(configured(1, 1, "round_robin", 2, "queue\tfifo\ndead_man\t100\treport"));
    for (int i = 0; i < 5; ++i) QVERIFY(st.apply(stuck(10 + static_cast<std::uint64_t>(i), 1, 10 + i, static_cast<std::uint32_t>(i), i % 2 == 0)));
    const obs::FactoryRecord* f = st.factory(pid(1));
    QCOMPARE(f->stuck_reports, 5u);
    QCOMPARE(f->recent_stuck.size(), 3u);
    QCOMPARE(f->recent_stuck.back().worker, pid(14));
    QCOMPARE(f->recent_stuck.back().worker_id, 4u);
    QCOMPARE(f->recent_stuck.back().key, std::string("job-4"));
    QCOMPARE(f->recent_stuck.back().running, as::Duration(250ms));
    QVERIFY(f->recent_stuck.back().killed);
    QVERIFY(!f->recent_stuck[1].killed);
    // Never a repeat: each one happened once.
    QVERIFY(!st.repeats(stuck(14, 1, 14, 4, true)));
    QCOMPARE(st.events_of(obs::EventKind::worker_stuck), 5u);
  }

  void samples_add_up_with_gauges_history_and_a_latency_histogram() {
    obs::SystemState st;
    st.apply(spawned(1, 0));
    // A sample before the configuration makes the record too.
    obs::FactorySample a = fsample(1, 100, 5, 3, 4);
    a.discarded_load_shed = 2;
    a.latency_sum = 5ms;
    a.latency_buckets.assign(obs::LogHistogram::index_of(1'000'000) + 1, 0);
    a.latency_buckets.back() = 5;  // five jobs of about 1 ms
    st.apply(a);
    QVERIFY(st.factory(pid(1)) != nullptr);
    st.apply(configured(1, 120, "queuer", 4, "queue\tfifo"));
    obs::FactorySample b = fsample(1, 150, 3, 7, 2);  // the same 100 ms bucket as the next
    b.discarded_ttl = 1;
    st.apply(b);
    obs::FactorySample c = fsample(1, 250, 1, 9, 1);
    c.discarded_rate_limited = 4;
    c.stuck = 1;
    c.latency_sum = 10ms;
    c.latency_buckets.assign(obs::LogHistogram::index_of(10'000'000) + 1, 0);
    c.latency_buckets.back() = 1;
    st.apply(c);

    const obs::FactoryRecord& f = *st.factory(pid(1));
    QCOMPARE(f.completed, 9u);
    QCOMPARE(f.dispatched, 9u);
    QCOMPARE(f.discarded_load_shed, 2u);
    QCOMPARE(f.discarded_ttl, 1u);
    QCOMPARE(f.discarded_rate_limited, 4u);
    QCOMPARE(f.discarded_total(), 7u);
    QCOMPARE(f.stuck, 1u);
    QCOMPARE(f.queue_depth, 9u);  // gauges: the latest sample's
    QCOMPARE(f.busy_workers, 1u);
    QCOMPARE(f.queue_max, 9u);
    QCOMPARE(f.routing, std::string("queuer"));
    QCOMPARE(st.time(), at(250));
    // History: bucket 1 (100..199 ms) holds a and b, bucket 2 holds c.
    QCOMPARE(f.history.size(), 2u);
    QCOMPARE(f.history[0].bucket, 1);
    QCOMPARE(f.history[0].completed, 8u);
    QCOMPARE(f.history[0].queue_depth, 7u);
    QCOMPARE(f.history[0].queue_max, 7u);
    QCOMPARE(f.history[0].busy_workers, 2u);
    QCOMPARE(f.history[0].discarded[static_cast<std::size_t>(as::DiscardReason::load_shed)], 2u);
    QCOMPARE(f.history[0].discarded[static_cast<std::size_t>(as::DiscardReason::ttl_expired)], 1u);
    QCOMPARE(f.history[1].discarded[static_cast<std::size_t>(as::DiscardReason::rate_limited)], 4u);
    QCOMPARE(f.history[1].discarded_total(), 4u);
    // Latency: six jobs, five near 1 ms and one near 10 ms.
    const obs::LogHistogram h = f.latency();
    QCOMPARE(h.count(), 6u);
    QVERIFY(h.percentile(50) >= 900'000 && h.percentile(50) <= 1'200'000);
    QVERIFY(h.max() >= 10'000'000 && h.max() <= 12'000'000);
    QCOMPARE(h.sum(), 15'000'000u);
  }

  void the_history_keeps_its_limit_and_a_pruned_factory_goes_with_its_actor() {
    obs::SystemState::Limits limits;
    limits.history_points = 3;
    limits.stopped_actors = 0;
    obs::SystemState st(limits);
    st.apply(spawned(1, 0));
    for (int i = 1; i <= 6; ++i) st.apply(fsample(1, i * 100, 1, 0, 0));
    QCOMPARE(st.factory(pid(1))->history.size(), 3u);
    QCOMPARE(st.factory(pid(1))->history.front().bucket, 4);
    QCOMPARE(st.factory(pid(1))->completed, 6u);
    st.apply(obs::Event{.kind = obs::EventKind::stopped, .time = at(700), .actor = pid(1)});
    QVERIFY(st.factory(pid(1)) == nullptr);  // stopped actors kept: none
  }

  void a_keyframe_image_keeps_the_factories() {
    obs::SystemState st;
    st.apply(spawned(1, 0));
    st.apply(configured(1, 1, "key_persistent", 3, "queue\tfifo\ndiscard\tdynamic\t50\tnewest\ndead_man\t200\treport"));
    st.apply(stuck(7, 1, 5, 2, false));
    obs::FactorySample s = fsample(1, 100, 4, 2, 1);
    s.latency_sum = 3ms;
    s.latency_buckets = {0, 0, 1, 2};
    s.queue_limit = 50;
    st.apply(s);
    const std::string image = st.serialize();
    const obs::SystemState back = obs::SystemState::deserialize(image);
    QVERIFY(back == st);
    QCOMPARE(back.factory(pid(1))->settings.discard, std::string("dynamic"));
    QCOMPARE(back.factory(pid(1))->recent_stuck.size(), 1u);
    QCOMPARE(back.events_of(obs::EventKind::worker_stuck), 1u);
  }

  void the_feed_folds_a_polls_factory_samples_with_it_and_a_replay_agrees() {
    obs::StateFeed live(obs::StateFeed::live_rules());
    Tape tape;
    tape.feed = &live;
    live.set_sink(&tape);
    std::vector<obs::Event> b{spawned(1, 0), configured(1, 1, "queuer", 4, "queue\tfifo")};
    live.push_events(b);
    live.push_poll(at(100), {}, 0, {fsample(1, 100, 2, 1, 1)});
    QVERIFY(live.state().factory(pid(1)) == nullptr || live.state().factory(pid(1))->completed == 0);
    // The poll waits for two more batches, as actor samples do.
    std::vector<obs::Event> none;
    live.push_events(none);
    live.push_events(none);
    live.fold();
    QCOMPARE(live.state().factory(pid(1))->completed, 2u);
    live.push_poll(at(200), {}, 0, {fsample(1, 200, 3, 0, 0)});
    live.finish();
    live.fold();
    QCOMPARE(live.state().factory(pid(1))->completed, 5u);
    QCOMPARE(tape.factory_polls.size(), 2u);
    QCOMPARE(tape.polls.size(), 2u);
    QCOMPARE(tape.poll_numbers, (std::vector<std::uint64_t>{1, 2}));

    // Pushed back as a recording does: the same state.
    obs::StateFeed replay(obs::StateFeed::recorded_rules());
    std::vector<obs::Event> events = tape.events;
    replay.push_events(events);
    for (std::size_t i = 0; i < tape.polls.size(); ++i)
      replay.push_poll(tape.polls[i], {}, 0, tape.factory_polls[i].second);
    replay.fold();
    QVERIFY(replay.state() == live.state());
  }

  void the_bucketer_reports_what_grew_and_the_gauges_now() {
    obs::FactoryBucketer bucketer;
    as::FactoryStats s;
    s.factory = pid(3);
    s.dispatched = 10;
    s.completed = 8;
    s.queue_depth = 2;
    s.workers = 4;
    bucketer.baseline({s});
    s.dispatched = 15;
    s.completed = 14;
    s.discarded_load_shed = 1;
    s.queue_depth = 1;
    s.busy_workers = 3;
    s.latency_buckets = {0, 4};
    auto out = bucketer.update({s}, at(100));
    QCOMPARE(out.size(), 1u);
    QCOMPARE(out[0].factory, pid(3));
    QCOMPARE(out[0].end, at(100));
    QCOMPARE(out[0].dispatched, 5u);
    QCOMPARE(out[0].completed, 6u);
    QCOMPARE(out[0].discarded_load_shed, 1u);
    QCOMPARE(out[0].queue_depth, 1u);
    QCOMPARE(out[0].busy_workers, 3u);
    QCOMPARE(out[0].latency_buckets, (std::vector<std::uint64_t>{0, 4}));
    // Nothing moved: still a sample (the gauges), with zero sums.
    out = bucketer.update({s}, at(200));
    QCOMPARE(out.size(), 1u);
    QCOMPARE(out[0].completed, 0u);
    QVERIFY(out[0].latency_buckets.empty());
    QCOMPARE(out[0].busy_workers, 3u);
    // Live then final in one poll: the final one is compared with the live one.
    as::FactoryStats fin = s;
    fin.completed = 16;
    out = bucketer.update({s, fin}, at(300));
    QCOMPARE(out.size(), 2u);
    QCOMPARE(out[0].completed, 0u);
    QCOMPARE(out[1].completed, 2u);
    // Gone from the poll: forgotten (a new factory with that id would start from zero).
    QVERIFY(bucketer.update({}, at(400)).empty());
    out = bucketer.update({fin}, at(500));
    QCOMPARE(out[0].completed, 16u);
  }
};

QTEST_GUILESS_MAIN(TestFactoryFold)
#include "tst_factory_fold.moc"
