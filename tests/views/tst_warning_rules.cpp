// The warning rules over scripted states, for longer than a glance: a mailbox that leaks at a steady
// rate stays flagged for the whole minute, with its depth and its growth rate; a deep mailbox that
// holds steady stays flagged, one being worked off is not; a restart storm is counted exactly
// however many children fail, and recognised however short-lived the supervisor and its children.
#include "scripted_state.hpp"

#include "common/actor_metrics.hpp"
#include "warnings/warning_rules.hpp"

#include <QTest>

#include <algorithm>
#include <optional>

using namespace views_test;
namespace v = actorscope::views;

namespace {

/// The warning of `kind` about `actor`, if the state has one.
std::optional<v::Warning> warningAbout(const obs::SystemState& state, v::WarningKind kind,
                                       as::ActorId actor) {
  for (const v::Warning& w : v::lint(state))
    if (w.kind == kind && w.actor == actor) return w;
  return std::nullopt;
}

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class TestWarningRules : public QObject {
  Q_OBJECT

 private slots:
  void
  a_supervisor_near_its_restart_limit_is_flagged_until_its_window_passes_and_one_that_gave_up_with_its_reason() {
    ScriptedState s;
    s.spawn(1, 0, "team", "demo::Supervisor");
    s.spawn(2, 1, "team/a");
    s.configure(1, "one_for_one", 3, 5s, "child\ta\tpermanent\t5000\tworker");
    QVERIFY(!warningAbout(s.state, v::WarningKind::supervisor_near_limit, id(1)));
    s.advance(1s);
    s.restart(1, 2, 3, "a", 1, "team/a");
    QVERIFY(!warningAbout(s.state, v::WarningKind::supervisor_near_limit, id(1)));  // 1 of 3: not yet
    s.advance(1s);
    s.restart(1, 3, 4, "a", 2, "team/a");
    const auto near = warningAbout(s.state, v::WarningKind::supervisor_near_limit, id(1));
    QVERIFY(near.has_value());  // 2 of 3 (max - 1)
    QCOMPARE(near->severity, v::Severity::warning);
    QVERIFY2(contains(near->summary, "2 of 3 in 5 s") && contains(near->summary, "one_for_one") &&
                 contains(near->summary, "2 more within 5 s"),
             near->summary.c_str());
    QCOMPARE(v::warningTitle(near->kind), std::string_view("supervisor near its restart limit"));
    QVERIFY(!v::warningExplanation(near->kind).empty());
    // 3 of 3: one more and it gives up.
    s.advance(1s);
    s.restart(1, 4, 5, "a", 3, "team/a");
    QVERIFY(
        contains(warningAbout(s.state, v::WarningKind::supervisor_near_limit, id(1))->summary, "one more"));
    // Quiet for the period: the restarts leave the window, and so does the warning.
    s.advance(5s);
    s.tick();
    QVERIFY(!warningAbout(s.state, v::WarningKind::supervisor_near_limit, id(1)));

    // Four restarts within the period: it gives up, and fails.
    for (std::uint64_t n = 0; n < 4; ++n) {
      s.advance(100ms);
      s.restart(1, 5 + n, 6 + n, "a", static_cast<std::uint32_t>(4 + n), "team/a");
    }
    s.gaveUp(1, 4, 5s, "reached max restart intensity: 4 restarts in 5000 ms");
    s.fail(1, "reached max restart intensity: 4 restarts in 5000 ms");
    const auto gave = warningAbout(s.state, v::WarningKind::supervisor_gave_up, id(1));
    QVERIFY(gave.has_value());
    QCOMPARE(gave->severity, v::Severity::error);
    QVERIFY2(contains(gave->summary, "reached max restart intensity: 4 restarts in 5000 ms"), gave->summary.c_str());
    QCOMPARE(v::warningTitle(gave->kind), std::string_view("supervisor gave up"));
    QVERIFY(!warningAbout(s.state, v::WarningKind::supervisor_near_limit, id(1)));  // one warning, the worse
    // A minute later its own supervisor has long restarted it: the old one's warning goes.
    s.advance(61s);
    s.tick();
    QVERIFY(!warningAbout(s.state, v::WarningKind::supervisor_gave_up, id(1)));
    // Whose limit is one restart: its first restart is already near it.
    ScriptedState t;
    t.spawn(1, 0, "solo", "demo::Supervisor");
    t.spawn(2, 1, "solo/a");
    t.configure(1, "one_for_one", 1, 5s, "child\ta\tpermanent\t5000\tworker");
    t.advance(1s);
    t.restart(1, 2, 3, "a", 1, "solo/a");
    QVERIFY(contains(warningAbout(t.state, v::WarningKind::supervisor_near_limit, id(1))->summary,
                     "1 of 1 in 5 s"));
  }

  void a_full_bounded_mailbox_and_one_that_loses_messages_are_flagged_until_they_recover() {
    ScriptedState s;
    s.spawn(1, 0, "open");
    s.spawn(2, 0, "sensor");
    s.bounded(2, 8, as::Overflow::drop_oldest);
    s.spawn(3, 0, "gate");
    s.bounded(3, 4, as::Overflow::reject);
    s.advance(100ms);
    s.stats(1, 10, 5000);  // deep, but unbounded: no "full"
    s.losses(2, 8, 0, 0);  // full, nothing lost yet
    s.losses(3, 3, 0, 0);
    const auto full = warningAbout(s.state, v::WarningKind::mailbox_full, id(2));
    QVERIFY(full.has_value());
    QCOMPARE(full->severity, v::Severity::warning);
    QVERIFY2(contains(full->summary, "8 of 8 messages waiting (drop_oldest)") &&
                 contains(full->summary, "drops the oldest"),
             full->summary.c_str());
    QVERIFY(!warningAbout(s.state, v::WarningKind::mailbox_dropping, id(2)));
    QVERIFY(!warningAbout(s.state, v::WarningKind::mailbox_full, id(1)));
    QVERIFY(!warningAbout(s.state, v::WarningKind::mailbox_full, id(3)));  // 3 of 4

    // It drops; the other refuses one send.
    s.advance(100ms);
    s.losses(2, 8, 12, 0);
    s.losses(3, 4, 0, 1);
    const auto dropping = warningAbout(s.state, v::WarningKind::mailbox_dropping, id(2));
    QVERIFY(dropping.has_value());
    QCOMPARE(dropping->severity, v::Severity::error);
    QVERIFY2(contains(dropping->summary, "12 messages dropped in the last 5.0 s") &&
                 contains(dropping->summary, "capacity 8, drop_oldest"),
             dropping->summary.c_str());
    const auto refused = warningAbout(s.state, v::WarningKind::mailbox_dropping, id(3));
    QVERIFY(refused.has_value());
    QVERIFY2(contains(refused->summary, "1 send rejected"), refused->summary.c_str());
    QVERIFY2(contains(warningAbout(s.state, v::WarningKind::mailbox_full, id(3))->summary, "the next send is rejected"),
             "a full reject mailbox says what happens next");
    QCOMPARE(v::warningTitle(v::WarningKind::mailbox_full), std::string_view("mailbox full"));
    QCOMPARE(v::warningTitle(v::WarningKind::mailbox_dropping), std::string_view("dropping messages"));
    for (auto kind : {v::WarningKind::mailbox_full, v::WarningKind::mailbox_dropping}) {
      const std::string why(v::warningExplanation(kind));
      QVERIFY2(contains(why, "capacity") && contains(why, "backpressure"), why.c_str());
    }
    // A replay from a keyframe flags the same.
    QVERIFY(v::lint(obs::SystemState::deserialize(s.state.serialize())) == v::lint(s.state));

    // Worked off, and nothing lost for longer than the window: both go.
    for (int step = 0; step < 30; ++step) {
      s.advance(100ms);
      s.losses(2, 2, 0, 0);
      s.losses(3, 0, 0, 0);
    }
    QVERIFY(!warningAbout(s.state, v::WarningKind::mailbox_full, id(2)));
    QVERIFY(warningAbout(s.state, v::WarningKind::mailbox_dropping, id(2)).has_value());  // 3 s ago: still within
    for (int step = 0; step < 25; ++step) {
      s.advance(100ms);
      s.tick();
    }
    QVERIFY(!warningAbout(s.state, v::WarningKind::mailbox_dropping, id(2)));
    QVERIFY(!warningAbout(s.state, v::WarningKind::mailbox_dropping, id(3)));
    QCOMPARE(s.state.actor(id(2))->dropped, 12u);  // the totals stay
  }

  void a_mailbox_that_leaks_steadily_for_a_minute_stays_flagged_with_its_depth_and_rate() {
    ScriptedState s;
    s.spawn(1, 0, "source");
    s.spawn(2, 0, "enrich");
    // 400 messages a second more than it handles: 40 deeper every 100 ms, for 60 s.
    std::uint64_t depth = 0;
    for (int step = 1; step <= 600; ++step) {
      s.advance(100ms);
      depth += 40;
      s.stats(1, 100, 0);
      s.stats(2, 60, depth);
      if (depth < 100 || step < 15) continue;  // not deep yet, or less than a window of samples
      const auto w = warningAbout(s.state, v::WarningKind::growing_mailbox, id(2));
      QVERIFY2(w.has_value(),
               qPrintable(QStringLiteral("not flagged at %1 s, %2 deep").arg(step / 10.0).arg(depth)));
      QVERIFY2(contains(w->summary, "growing by 400 messages/s"), w->summary.c_str());
    }
    const auto w = warningAbout(s.state, v::WarningKind::growing_mailbox, id(2));
    QVERIFY(w.has_value());
    QVERIFY2(contains(w->summary, "24,000 messages queued"), w->summary.c_str());
    QVERIFY(!warningAbout(s.state, v::WarningKind::growing_mailbox, id(1)));  // empty all along
  }

  void a_deep_mailbox_that_holds_steady_stays_flagged_and_one_being_worked_off_does_not() {
    ScriptedState s;
    s.spawn(1, 0, "steady");
    s.spawn(2, 0, "draining");
    s.spawn(3, 0, "shallow");
    // "steady" holds at about 5,000 (within a few messages either way); "draining" is worked off
    // from 20,000 at 300 a second; "shallow" holds at 40, too few to matter.
    for (int step = 1; step <= 300; ++step) {
      s.advance(100ms);
      s.stats(1, 500, static_cast<std::uint64_t>(5000 + (step % 3) * 4));
      s.stats(2, 800, static_cast<std::uint64_t>(20000 - 30 * step));
      s.stats(3, 50, 40);
      if (step < 15) continue;
      const auto steady = warningAbout(s.state, v::WarningKind::growing_mailbox, id(1));
      QVERIFY2(steady.has_value(), qPrintable(QStringLiteral("not flagged at %1 s").arg(step / 10.0)));
      QVERIFY2(contains(steady->summary, "5,00") && contains(steady->summary, "holding steady"),
               steady->summary.c_str());
      QVERIFY2(contains(steady->summary, "messages/s"), steady->summary.c_str());
      QVERIFY(!warningAbout(s.state, v::WarningKind::growing_mailbox, id(2)));
      QVERIFY(!warningAbout(s.state, v::WarningKind::growing_mailbox, id(3)));
    }
    // Worked off at last: no longer flagged once the window shows it going down.
    for (int step = 1; step <= 15; ++step) {
      s.advance(100ms);
      s.stats(1, 900, static_cast<std::uint64_t>(5000 - 200 * step));
    }
    QVERIFY(!warningAbout(s.state, v::WarningKind::growing_mailbox, id(1)));
  }

  void a_storm_of_two_hundred_failures_is_counted_as_two_hundred() {
    ScriptedState s;
    s.spawn(1, 0, "team");
    s.advance(5s);
    // The team replaces its worker every time it fails: 200 failures in 8 s.
    std::uint64_t worker = 100;
    s.spawn(worker, 1, "team/worker-1");
    for (int i = 0; i < 200; ++i) {
      s.advance(40ms);
      s.fail(worker, "job " + std::to_string(i) + " failed");
      s.spawn(++worker, 1, "team/worker-1");
    }
    const auto storm = warningAbout(s.state, v::WarningKind::restart_storm, id(1));
    QVERIFY(storm.has_value());
    QVERIFY2(contains(storm->summary, "200 child failures and 200 replacements in the last 10.0 s"),
             storm->summary.c_str());
    QVERIFY2(contains(storm->summary, "latest: job 199 failed"), storm->summary.c_str());
    // The tree's figure is the same count.
    QCOMPARE(v::recentChildFailures(*s.state.actor(id(1)), s.state.time(), 10s), 200u);

    // It goes on for a minute at 25 a second: the count is what falls in the last 10 s (to the
    // 100 ms bucket at the window's far end), never the whole history and never a capped few.
    for (int i = 200; i < 1700; ++i) {
      s.advance(40ms);
      s.fail(worker, "job " + std::to_string(i) + " failed");
      s.spawn(++worker, 1, "team/worker-1");
      if (i < 300 || i % 50 != 0) continue;  // from when the 10 s window is full of failures
      const v::ChildChurn churn = v::childChurn(*s.state.actor(id(1)), s.state.time(), 10s);
      QVERIFY2(churn.failed >= 248 && churn.failed <= 250, qPrintable(QString::number(churn.failed)));
      QCOMPARE(churn.replacements, churn.failed);
    }
    // Memory stays bounded: a minute of 100 ms buckets at most, not a record per failure.
    const obs::ActorRecord& team = *s.state.actor(id(1));
    QVERIFY2(team.child_tally.size() <= 601, qPrintable(QString::number(team.child_tally.size())));
    QCOMPARE(team.child_failures, 1700u);

    // Once the failures stop, the storm passes with its window.
    s.advance(10s);
    s.tick();
    QVERIFY(!warningAbout(s.state, v::WarningKind::restart_storm, id(1)));
  }

  void a_short_lived_supervisor_whose_children_fail_while_more_are_spawned_is_a_restart_storm() {
    // The storm scenario's shape: a cloud lives for 150 ms; 25 drops are spawned under it at once,
    // some refusing to start (failed at spawn, before the next is spawned), more failing a few
    // milliseconds later.
    ScriptedState s;
    s.spawn(1, 0, "storm");
    s.advance(3s);
    s.spawn(2, 1, "cloud-1", "demo::Cloud");
    for (std::uint64_t i = 0; i < 25; ++i) {
      s.spawn(10 + i, 2, "", "demo::Drop");
      if (i % 4 == 2) s.fail(10 + i, "a drop refused to start");
    }
    s.advance(5ms);
    for (std::uint64_t i = 0; i < 25; i += 4) s.fail(10 + i, "a drop failed on its message");
    s.advance(5ms);
    const auto storm = warningAbout(s.state, v::WarningKind::restart_storm, id(2));
    QVERIFY2(storm.has_value(), "the cloud's storm was not recognised");
    QVERIFY2(contains(storm->summary, "13 child failures and 22 replacements"), storm->summary.c_str());
    // Gone with the cloud: a stopped supervisor restarts nothing.
    s.advance(140ms);
    s.stop(2, "blown away");
    QVERIFY(!warningAbout(s.state, v::WarningKind::restart_storm, id(2)));
  }

  void a_fan_out_that_never_fails_or_whose_children_fail_unreplaced_is_no_storm() {
    ScriptedState s;
    s.spawn(1, 0, "fan");
    s.spawn(2, 0, "doomed");
    s.advance(3s);
    for (std::uint64_t i = 0; i < 40; ++i) {
      s.spawn(10 + i, 1, "", "demo::Leaf");  // spawned, some stop, none fails
      if (i % 2 == 0) s.stop(10 + i);
      s.spawn(100 + i, 2, "", "demo::Leaf");  // all spawned first ...
    }
    s.advance(20ms);
    for (std::uint64_t i = 0; i < 40; ++i) s.fail(100 + i, "no luck");  // ... then all fail: none replaced
    s.advance(20ms);
    QVERIFY(!warningAbout(s.state, v::WarningKind::restart_storm, id(1)));
    QVERIFY(!warningAbout(s.state, v::WarningKind::restart_storm, id(2)));
    QCOMPARE(v::childChurn(*s.state.actor(id(2)), s.state.time(), 10s).failed, 40u);
    QCOMPARE(v::childChurn(*s.state.actor(id(2)), s.state.time(), 10s).replacements, 0u);
  }

  void the_child_tally_survives_a_keyframe_image() {
    ScriptedState s;
    s.spawn(1, 0, "team");
    std::uint64_t worker = 100;
    s.spawn(worker, 1);
    for (int i = 0; i < 50; ++i) {
      s.advance(30ms);
      s.fail(worker, "again");
      s.spawn(++worker, 1);
    }
    const obs::SystemState back = obs::SystemState::deserialize(s.state.serialize());
    QVERIFY(back == s.state);
    const auto storm = warningAbout(back, v::WarningKind::restart_storm, id(1));
    QVERIFY(storm.has_value());
    QVERIFY2(contains(storm->summary, "50 child failures and 50 replacements"), storm->summary.c_str());
  }
};

QTEST_GUILESS_MAIN(TestWarningRules)
#include "tst_warning_rules.moc"
