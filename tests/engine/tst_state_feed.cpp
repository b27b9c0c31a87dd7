// StateFeed, the one path from events and statistics polls to a SystemState: repeats never reach
// the state or the sink, a poll waits for its batches, an unknown actor's sample waits for its
// spawn (and an actor's later samples behind it), drops are counted at polls (with what the feed
// shed itself), and what the sink heard, pushed back with the recorded rules, gives the same state.
// Scripted streams, no runtime.
#include <QTest>

#include <actorscope/observe/state_feed.hpp>

#include <vector>

#include "fold_events.hpp"

namespace as = actorscope;
namespace obs = actorscope::observe;
using namespace std::chrono_literals;

namespace {

using fold_events::at;
using fold_events::pid;
using fold_events::spawned;

obs::Event started(std::uint64_t n, int ms) { return {.kind = obs::EventKind::started, .time = at(ms), .actor = pid(n)}; }
obs::Event message(std::uint64_t from, std::uint64_t to, int ms, std::uint64_t trace) {
  return {.kind = obs::EventKind::message_sent, .time = at(ms), .actor = pid(from), .peer = pid(to), .trace = trace,
          .message_type = "Ping"};
}
obs::StatsSample sample(std::uint64_t n, int ms, std::uint64_t handled) {
  obs::StatsSample s;
  s.end = at(ms);
  s.actor = pid(n);
  s.handled = handled;
  return s;
}

/// Remembers what it heard, to push it back as a recording would.
struct Tape final : obs::StateFeed::Sink {
  struct Poll {
    as::TimePoint time;
    std::vector<obs::StatsSample> samples;
    std::uint64_t dropped;
    std::uint64_t after_seq;
  };
  std::vector<obs::Event> events;
  std::vector<Poll> polls;
  const obs::StateFeed* feed = nullptr;
  void on_event(obs::Event& e) override { events.push_back(e); }
  void on_poll(as::TimePoint t, std::span<const obs::StatsSample> s, std::uint64_t dropped) override {
    polls.push_back({t, {s.begin(), s.end()}, dropped, feed->seq()});
  }
};

std::vector<obs::Event> batch(std::initializer_list<obs::Event> events) { return {events}; }

}  // namespace

class TestStateFeed : public QObject {
  Q_OBJECT
 private slots:
  void repeatsChangeNothing() {
    obs::SystemState s;
    QVERIFY(s.apply(obs::Event{.kind = obs::EventKind::runtime_info, .thread = 2, .name = "asio"}));
    QVERIFY(s.apply(spawned(1, 1)));
    QVERIFY(s.apply(started(1, 2)));
    QVERIFY(s.apply(obs::Event{.kind = obs::EventKind::name_registered, .time = at(3), .actor = pid(1), .name = "n"}));
    QVERIFY(s.apply(obs::Event{
        .kind = obs::EventKind::group_joined, .time = at(4), .actor = pid(1), .name = "g", .text = "default"}));
    QVERIFY(s.apply(obs::Event{.kind = obs::EventKind::timer_started, .time = at(5), .actor = pid(1), .trace = 9}));
    const obs::SystemState before = s;
    // What an observer attached later hears about the present, again: nothing changes, not even
    // the counters or the event log.
    QVERIFY(!s.apply(obs::Event{.kind = obs::EventKind::runtime_info, .thread = 2, .time = at(9), .name = "asio"}));
    QVERIFY(!s.apply(spawned(1, 9)));
    QVERIFY(!s.apply(started(1, 9)));
    QVERIFY(!s.apply(obs::Event{.kind = obs::EventKind::name_registered, .time = at(9), .actor = pid(1), .name = "n"}));
    QVERIFY(!s.apply(obs::Event{
        .kind = obs::EventKind::group_joined, .time = at(9), .actor = pid(1), .name = "g", .text = "default"}));
    QVERIFY(!s.apply(obs::Event{.kind = obs::EventKind::timer_started, .time = at(9), .actor = pid(1), .trace = 9}));
    QVERIFY(s == before);
    // A second exit of a dead actor is a repeat too; a link is never one.
    QVERIFY(s.apply(obs::Event{.kind = obs::EventKind::stopped, .time = at(10), .actor = pid(1)}));
    const obs::SystemState dead = s;
    QVERIFY(!s.apply(obs::Event{.kind = obs::EventKind::killed, .time = at(11), .actor = pid(1)}));
    QVERIFY(s == dead);
    QVERIFY(s.apply(obs::Event{.kind = obs::EventKind::linked, .time = at(12), .actor = pid(2), .peer = pid(3)}));
  }

  void anEventSeenBeforeItsSpawnIsNotARepeatOfIt() {
    // A message the actor sent can be drained before its spawned event: the spawn still counts.
    obs::SystemState s;
    QVERIFY(s.apply(message(5, 6, 1, 1)));
    QVERIFY(s.apply(spawned(5, 0)));
    QCOMPARE(s.events_of(obs::EventKind::spawned), 1u);
    QCOMPARE(s.actor(pid(5))->name, std::string("a5"));
  }

  void eventsAreNumberedInOrderAndTimesNeverStepBack() {
    obs::StateFeed feed;
    Tape tape;
    tape.feed = &feed;
    feed.set_sink(&tape);
    auto b = batch({spawned(1, 10), spawned(2, 8), spawned(1, 12), started(1, 13)});
    feed.push_events(b);
    QVERIFY(b.empty());
    QVERIFY(feed.fold());
    QCOMPARE(tape.events.size(), std::size_t(3));  // the repeated spawn of 1 never reaches the sink
    QCOMPARE(feed.repeats(), 1u);
    QCOMPARE(tape.events[0].seq, 1u);
    QCOMPARE(tape.events[1].seq, 2u);
    QCOMPARE(tape.events[2].seq, 3u);
    QCOMPARE(tape.events[1].time, at(10));  // 8 ms came after 10 ms: moved up
    QCOMPARE(tape.events[2].time, at(13));
    QCOMPARE(feed.state().events_applied(), 3u);
    QVERIFY(feed.idle());
  }

  void aPollWaitsForItsBatches() {
    obs::StateFeed feed;  // live rules: two batches
    Tape tape;
    tape.feed = &feed;
    feed.set_sink(&tape);
    // The poll counted actor 2, whose spawned event is still in an engine buffer.
    auto b1 = batch({spawned(1, 1)});
    feed.push_events(b1);
    feed.push_poll(at(5), {sample(1, 5, 3), sample(2, 5, 4)}, 0);
    feed.fold();
    QCOMPARE(feed.polls(), 0u);
    QCOMPARE(feed.polls_waiting(), std::size_t(1));
    auto b2 = batch({spawned(2, 2)});
    feed.push_events(b2);
    feed.fold();
    QCOMPARE(feed.polls(), 0u);
    auto b3 = batch({message(1, 2, 6, 1)});
    feed.push_events(b3);
    feed.fold();
    QCOMPARE(feed.polls(), 1u);
    QCOMPARE(feed.state().actor(pid(1))->handled, 3u);
    QCOMPARE(feed.state().actor(pid(2))->handled, 4u);
    // Folded after the events of both batches, and the sink says so.
    QCOMPARE(tape.polls.size(), std::size_t(1));
    QCOMPARE(tape.polls[0].after_seq, 3u);
    QCOMPARE(tape.polls[0].samples.size(), std::size_t(2));
  }

  void anUnknownActorsSampleWaitsForItsSpawnAndItsLaterOnesBehindIt() {
    obs::StateFeed feed(obs::StateFeed::Rules{.poll_delay = 0, .hold_back = 3});
    Tape tape;
    tape.feed = &feed;
    feed.set_sink(&tape);
    feed.push_poll(at(1), {sample(7, 1, 10)}, 0);
    feed.fold();
    QCOMPARE(tape.polls.back().samples.size(), std::size_t(0));
    feed.push_poll(at(2), {sample(7, 2, 20)}, 0);  // behind the first, though still unknown
    feed.fold();
    QCOMPARE(tape.polls.back().samples.size(), std::size_t(0));
    auto b = batch({spawned(7, 0)});
    feed.push_events(b);
    feed.push_poll(at(3), {sample(7, 3, 5)}, 0);
    feed.fold();
    // All three now, in their order: the counters are exact.
    QCOMPARE(tape.polls.back().samples.size(), std::size_t(3));
    QCOMPARE(tape.polls.back().samples[0].handled, 10u);
    QCOMPARE(tape.polls.back().samples[1].handled, 20u);
    QCOMPARE(tape.polls.back().samples[2].handled, 5u);
    QCOMPARE(feed.state().actor(pid(7))->handled, 35u);
  }

  void aSampleWhoseSpawnNeverComesIsAppliedAfterTheHoldBack() {
    obs::StateFeed feed(obs::StateFeed::Rules{.poll_delay = 0, .hold_back = 2});
    Tape tape;
    tape.feed = &feed;
    feed.set_sink(&tape);
    feed.push_poll(at(1), {sample(8, 1, 1)}, 0);
    feed.push_poll(at(2), {}, 0);
    feed.push_poll(at(3), {}, 0);
    feed.fold();
    QCOMPARE(tape.polls.size(), std::size_t(3));
    QCOMPARE(tape.polls[0].samples.size(), std::size_t(0));
    QCOMPARE(tape.polls[1].samples.size(), std::size_t(0));
    QCOMPARE(tape.polls[2].samples.size(), std::size_t(1));  // given up on: written, counts nothing
    QVERIFY(feed.state().actor(pid(8)) == nullptr);
  }

  void finishReleasesEverything() {
    obs::StateFeed feed;
    auto b = batch({spawned(1, 1)});
    feed.push_events(b);
    feed.push_poll(at(2), {sample(1, 2, 1), sample(9, 2, 1)}, 0);
    feed.finish();
    feed.fold();
    QVERIFY(feed.idle());
    QCOMPARE(feed.polls(), 1u);
    QCOMPARE(feed.state().actor(pid(1))->handled, 1u);
  }

  void dropsAreCountedAtPollsWithWhatTheFeedShed() {
    obs::StateFeed feed(obs::StateFeed::Rules{.poll_delay = 0, .max_backlog = 2});
    Tape tape;
    tape.feed = &feed;
    feed.set_sink(&tape);
    // The backlog holds two: two of the four messages are shed, the spawn (lifecycle) is kept.
    auto b = batch({spawned(1, 1), message(1, 1, 2, 1), message(1, 1, 3, 2), message(1, 1, 4, 3),
                    spawned(2, 5)});
    feed.push_events(b);
    QCOMPARE(feed.shed(), 2u);
    QCOMPARE(feed.state().dropped(), 0u);  // counted at the next poll
    feed.push_poll(at(6), {}, 5);          // the source lost 5
    feed.fold();
    QCOMPARE(feed.state().dropped(), 7u);
    QCOMPARE(tape.polls.back().dropped, 7u);
    feed.push_poll(at(7), {}, 5);  // nothing new
    feed.push_poll(at(8), {}, 6);
    feed.fold();
    QCOMPARE(tape.polls[1].dropped, 0u);
    QCOMPARE(tape.polls[2].dropped, 1u);
    QCOMPARE(feed.state().dropped(), 8u);
    QCOMPARE(feed.state().actor(pid(2))->name, std::string("a2"));
  }

  void aPollMovesTheClockEvenWhenNothingHappened() {
    obs::StateFeed feed(obs::StateFeed::Rules{.poll_delay = 0});
    auto b = batch({spawned(1, 1)});
    feed.push_events(b);
    feed.push_poll(at(500), {}, 0);
    feed.fold();
    QCOMPARE(feed.state().time(), at(500));
  }

  void theDeadlineBoundsAFold() {
    obs::StateFeed feed;
    std::vector<obs::Event> b;
    for (std::uint64_t i = 1; i <= 5000; ++i) b.push_back(spawned(i, static_cast<int>(i)));
    feed.push_events(b);
    // A deadline in the past: the first chunk only, the rest waits for the next fold.
    QVERIFY(feed.fold(std::chrono::steady_clock::now() - 1s));
    QVERIFY(feed.backlog() > 0);
    QVERIFY(feed.backlog() < 5000);
    feed.fold();
    QCOMPARE(feed.state().actors().size(), std::size_t(5000));
  }

  void whatTheSinkHeardReplaysToTheSameState() {
    // A live feed with repeats, late spawns, drops and held samples; then its tape pushed back
    // with the recorded rules, as a reader does, from the start and from a keyframe in between.
    obs::StateFeed live;
    Tape tape;
    tape.feed = &live;
    live.set_sink(&tape);
    obs::SystemState keyframe;
    std::uint64_t keyframe_seq = 0, keyframe_polls = 0;
    int t = 0;
    for (int round = 0; round < 30; ++round) {
      std::vector<obs::Event> b;
      const std::uint64_t base = static_cast<std::uint64_t>(round) * 3 + 1;
      b.push_back(spawned(base, ++t, round == 0 ? 0 : 1));
      b.push_back(spawned(base + 1, ++t, 1));
      b.push_back(started(base, ++t));
      b.push_back(spawned(base, ++t));  // a repeat
      b.push_back(message(base, base + 1, ++t, static_cast<std::uint64_t>(round) + 1));
      if (round % 5 == 4) b.push_back(obs::Event{.kind = obs::EventKind::failed, .time = at(++t), .actor = pid(base + 1)});
      live.push_events(b);
      // This poll counts an actor whose spawn comes in the next batch.
      live.push_poll(at(++t), {sample(base, t, 2), sample(base + 3, t, 1)}, static_cast<std::uint64_t>(round / 3));
      live.fold();
      if (round == 14) {
        keyframe = live.state();
        keyframe_seq = live.seq();
        keyframe_polls = live.polls();
      }
    }
    live.finish();
    live.fold();
    QVERIFY(live.idle());

    auto replay = [&](obs::SystemState from, std::uint64_t seq, std::uint64_t polls_done) {
      obs::StateFeed r(obs::StateFeed::recorded_rules(), std::move(from), seq);
      std::uint64_t total = r.state().dropped();
      std::size_t next = 0;
      for (std::size_t p = polls_done; p < tape.polls.size(); ++p) {
        std::vector<obs::Event> b;
        for (; next < tape.events.size() && tape.events[next].seq <= tape.polls[p].after_seq; ++next)
          if (tape.events[next].seq > seq) b.push_back(tape.events[next]);
        r.push_events(b);
        total += tape.polls[p].dropped;
        r.push_poll(tape.polls[p].time, tape.polls[p].samples, total);
        r.fold();
      }
      std::vector<obs::Event> rest;
      for (; next < tape.events.size(); ++next)
        if (tape.events[next].seq > seq) rest.push_back(tape.events[next]);
      r.push_events(rest);
      r.fold();
      return std::move(r).take_state();
    };
    QVERIFY(replay(obs::SystemState{}, 0, 0) == live.state());
    QVERIFY(replay(keyframe, keyframe_seq, keyframe_polls) == live.state());
  }
};

QTEST_GUILESS_MAIN(TestStateFeed)
#include "tst_state_feed.moc"
