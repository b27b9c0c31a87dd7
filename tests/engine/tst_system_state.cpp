// SystemState, the fold: folding is deterministic, a keyframe image round-trips exactly, the state
// at any time equals a keyframe plus the events after it, bad images are refused, and the
// histogram and the event collector keep their promises. No runtime needed: scripted streams.
#include <QTest>

#include "engine_test.hpp"

#include <actorscope/observe/event_collector.hpp>
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/observe/system_state.hpp>
#include <actorscope/supervisor.hpp>

#include <random>
#include <thread>

namespace as = actorscope;
namespace obs = actorscope::observe;
using namespace std::chrono_literals;

namespace {

as::ActorId pid(std::uint64_t n) { return {0, n}; }

/// A deterministic stream: a supervisor, workers that come and go, failures, names, groups,
/// timers, messages. Times advance 1 ms per event.
std::vector<obs::Event> script(std::size_t workers = 40, unsigned seed = 7) {
  std::vector<obs::Event> out;
  std::mt19937 rng(seed);
  as::TimePoint t{};
  auto add = [&](obs::Event e) {
    t += 1ms;
    e.time = t;
    e.seq = out.size() + 1;
    out.push_back(std::move(e));
  };
  add({.kind = obs::EventKind::runtime_info, .thread = 2, .name = "asio"});
  add({.kind = obs::EventKind::spawned, .actor = pid(1), .name = "sup", .text = "Supervisor"});
  add({.kind = obs::EventKind::name_registered, .actor = pid(1), .name = "sup"});
  add({.kind = obs::EventKind::started, .actor = pid(1)});
  add({.kind = obs::EventKind::timer_started, .actor = pid(1), .trace = 99, .period = 10ms, .scheduled = t + 10ms,
       .name = "interval"});
  for (std::uint64_t w = 2; w < 2 + workers; ++w) {
    std::string name = "w";  // (built in steps: GCC 12 misreports -Wrestrict on "w" + s at -O3)
    name += std::to_string(w);
    add({.kind = obs::EventKind::spawned, .actor = pid(w), .peer = pid(1), .name = name, .text = "Worker"});
    add({.kind = obs::EventKind::started, .actor = pid(w)});
    add({.kind = obs::EventKind::group_joined, .actor = pid(w), .name = w % 2 ? "odd" : "even", .text = "default"});
    for (int m = 0; m < 3; ++m) {
      const std::uint64_t trace = w * 10 + static_cast<std::uint64_t>(m);
      add({.kind = obs::EventKind::message_sent, .actor = pid(1), .peer = pid(w), .trace = trace, .message_type = "Job"});
      add({.kind = obs::EventKind::message_handled, .failed = false, .timed = true, .actor = pid(w), .peer = pid(1),
           .trace = trace, .queue = std::chrono::microseconds(rng() % 500), .handling = std::chrono::microseconds(rng() % 900),
           .message_type = "Job"});
    }
    add({.kind = obs::EventKind::timer_fired, .actor = pid(1), .trace = 99, .scheduled = t});
    if (rng() % 3 == 0) {
      std::string why = "worker ";
      why += std::to_string(w);
      why += " crashed";
      add({.kind = obs::EventKind::failed, .actor = pid(w), .text = why});
      add({.kind = obs::EventKind::supervision_delivered, .actor = pid(1), .peer = pid(w), .text = "failed"});
    } else if (rng() % 2 == 0) {
      add({.kind = obs::EventKind::group_left, .actor = pid(w), .name = w % 2 ? "odd" : "even", .text = "default"});
      add({.kind = obs::EventKind::stopped, .actor = pid(w), .text = "done"});
    }
  }
  add({.kind = obs::EventKind::timer_cancelled, .actor = pid(1), .trace = 99});
  return out;
}

/// The image as an older format wrote it: each format appends to the one before, so the one prefix
/// that reads as a whole image of that format, with its format number, is it.
std::string as_format(std::string image, char format) {
  image[4] = format;
  for (std::size_t size = 5; size < image.size(); ++size) {
    try {
      (void)obs::SystemState::deserialize(std::string_view(image).substr(0, size));
      return image.substr(0, size);
    } catch (const obs::StateFormatError&) {
    }
  }
  return {};
}
std::string as_format_2(std::string image) { return as_format(std::move(image), 2); }

/// One actor with counters, timed messages and busy time, folded.
obs::SystemState with_actor(std::uint64_t timed, as::Duration busy) {
  obs::SystemState s;
  obs::Event e{.kind = obs::EventKind::spawned, .actor = pid(2), .name = "w", .text = "Worker"};
  e.seq = 1;
  e.time = as::TimePoint{} + 1ms;
  s.apply(e);
  obs::StatsSample sample;
  sample.end = as::TimePoint{} + 2ms;
  sample.actor = pid(2);
  sample.handled = 7;
  sample.timed = timed;
  sample.queue_time = 3us;
  sample.handling_time = 4us;
  sample.busy = busy;
  s.apply(sample);
  return s;
}

/// A Supervisor's stream, hand-built (no Supervisor needed): sup (1) with children a (2), b (3),
/// c (4) started in spec order, then configured; b fails and is replaced by 5, then 5 by 6, c by 7
/// (one_for_one restarts, 1 s apart), and at last it gives up.
std::vector<obs::Event> supervised_script() {
  std::vector<obs::Event> out;
  as::TimePoint t = as::TimePoint{} + 10s;
  auto add = [&](obs::Event e, as::Duration after = 1ms) {
    t += after;
    e.time = t;
    e.seq = out.size() + 1;
    out.push_back(std::move(e));
  };
  using K = obs::EventKind;
  add({.kind = K::runtime_info, .thread = 1, .name = "manual"});
  add({.kind = K::spawned, .actor = pid(1), .name = "team", .text = "Supervisor"});
  add({.kind = K::started, .actor = pid(1)});
  for (std::uint64_t c = 2; c <= 4; ++c) {
    add({.kind = K::spawned, .actor = pid(c), .peer = pid(1), .text = "Worker"});
    add({.kind = K::started, .actor = pid(c)});
  }
  add(obs::Event::supervisor_configured(pid(1), "one_for_one", 3, 5s,
                                        "child\ta\tpermanent\t5000\tworker\n"
                                        "child\tb\ttransient\tbrutal_kill\tworker\n"
                                        "child\tc\ttemporary\tinfinity\tsupervisor\n"
                                        "backoff\t10\t1000\t30000\n"
                                        "future\tsomething\tnew"));
  auto restart = [&](std::uint64_t old, std::uint64_t fresh, const char* id, std::uint32_t attempt) {
    add(obs::Event::failed_with(pid(old), "boom"), 1s);
    add({.kind = K::spawned, .actor = pid(fresh), .peer = pid(1), .text = "Worker"});
    add(obs::Event::child_restarted(pid(fresh), pid(old), id, "failed: boom", attempt, 20ms, false));
    add({.kind = K::started, .actor = pid(fresh)});
  };
  restart(3, 5, "b", 1);
  restart(5, 6, "b", 2);
  restart(4, 7, "c", 1);
  add(obs::Event::supervisor_gave_up(pid(1), 4, 5s, "reached max restart intensity: 4 restarts in 5000 ms"));
  return out;
}

/// Keeps every event a System emits, for folding in order afterwards.
class Capture final : public obs::Observer {
 public:
  obs::Interest interest() const noexcept override { return {}; }
  void on_event(const obs::Event& e) noexcept override {
    std::lock_guard lk(m_);
    events_.push_back(e);
  }
  /// The fold of everything so far, in the engine's order.
  obs::SystemState fold() const {
    std::vector<obs::Event> ev;
    {
      std::lock_guard lk(m_);
      ev = events_;
    }
    std::sort(ev.begin(), ev.end(), [](const obs::Event& a, const obs::Event& b) { return a.seq < b.seq; });
    obs::SystemState s;
    for (const obs::Event& e : ev) s.apply(e);
    return s;
  }

 private:
  mutable std::mutex m_;
  std::vector<obs::Event> events_;
};

/// A Supervisor's child: reports "start <tag>"; message 0 makes it fail. With `fragile`, every start
/// after its first fails in pre_start.
struct Kid {
  using Message = int;
  engine_test::Probe* probe = nullptr;
  std::string tag;
  std::atomic<int>* starts = nullptr;
  std::monostate pre_start(as::Context<Kid>&) {
    if (starts != nullptr && starts->fetch_add(1) >= 1) throw std::runtime_error("cannot open the database");
    probe->record("start " + tag);
    return {};
  }
  void handle(as::Context<Kid>&, int, std::monostate&) { throw std::runtime_error("boom in " + tag); }
};

obs::SystemState fold(const std::vector<obs::Event>& ev, std::size_t n, obs::SystemState::Limits limits = {}) {
  obs::SystemState s(limits);
  for (std::size_t i = 0; i < n && i < ev.size(); ++i) s.apply(ev[i]);
  return s;
}

}  // namespace

class TestSystemState : public QObject {
  Q_OBJECT

 private slots:
  void the_fold_builds_tree_statuses_groups_names_timers_and_failures() {
    const auto ev = script();
    const obs::SystemState s = fold(ev, ev.size());
    QCOMPARE(s.runtime(), std::string("asio"));
    QCOMPARE(s.threads(), 2u);
    const obs::ActorRecord* sup = s.actor(pid(1));
    QVERIFY(sup != nullptr);
    QCOMPARE(sup->children.size(), 40u);
    QCOMPARE(s.roots(), std::vector<as::ActorId>{pid(1)});
    QCOMPARE(s.registry().at("sup"), pid(1));
    std::size_t failed = 0, alive = 1, in_groups = 0;
    for (const auto& [id, a] : s.actors()) {
      if (id == pid(1)) continue;
      if (a.exit_kind == as::ExitKind::failed) ++failed;
      if (a.alive()) ++alive;
      QCOMPARE(a.handling_ns.count(), 3u);
    }
    for (const auto& [scope, groups] : s.groups())
      for (const auto& [g, members] : groups) in_groups += members.size();
    QCOMPARE(sup->child_failures, failed);
    QCOMPARE(sup->recent_failures.size(), std::min<std::size_t>(failed, s.limits().failures_per_actor));
    QCOMPARE(s.alive_count(), alive);
    QCOMPARE(in_groups, alive - 1);  // every live worker is in one group; stopped ones left
    QVERIFY(s.timers().empty());     // cancelled at the end
    const obs::SystemState mid = fold(ev, 6);
    QCOMPARE(mid.timers().size(), 1u);
    QCOMPARE(mid.timers().at(99).kind, std::string("interval"));
    // Every handled message found its send.
    std::size_t paired = 0;
    for (const auto& m : s.recent_messages()) paired += m.handled.has_value() && m.from == pid(1) ? 1 : 0;
    QCOMPARE(paired, 120u);
  }

  void a_keyframe_image_round_trips_exactly_at_every_point_of_the_stream() {
    const auto ev = script(12);
    obs::SystemState s;
    for (const auto& e : ev) {
      s.apply(e);
      const obs::SystemState back = obs::SystemState::deserialize(s.serialize());
      QVERIFY2(back == s, qPrintable(QString("after event %1 (%2)").arg(e.seq).arg(QString::fromUtf8(obs::to_string(e.kind)))));
    }
  }

  void a_format_1_image_reads_with_every_timed_message_counted() {
    // Format 1 had no ActorRecord::timed: whenever it timed, it timed every message.
    const std::string zero = as_format_2(with_actor(0, 0ns).serialize());
    const std::string five = as_format_2(with_actor(5, 0ns).serialize());
    QCOMPARE(zero.size(), five.size());
    std::vector<std::size_t> diff;
    for (std::size_t i = 0; i < zero.size(); ++i)
      if (zero[i] != five[i]) diff.push_back(i);
    QCOMPARE(diff.size(), 1u);  // the one-byte varint of `timed`
    std::string v1 = zero;
    v1.erase(diff[0], 1);
    QCOMPARE(int(v1[4]), 2);  // the image's format number
    v1[4] = 1;
    const obs::SystemState back = obs::SystemState::deserialize(v1);
    QCOMPARE(back.actor(pid(2))->timed, 7u);
    QVERIFY(back == with_actor(7, 0ns));
  }

  void a_format_3_image_reads_with_no_busy_time() {
    const std::string v3 = as_format(with_actor(5, 40ms).serialize(), 3);
    QVERIFY(!v3.empty());
    const obs::SystemState back = obs::SystemState::deserialize(v3);
    QCOMPARE(back.actor(pid(2))->busy, as::Duration::zero());
    QVERIFY(back == with_actor(5, 0ns));
    // And format 4 keeps it.
    QCOMPARE(obs::SystemState::deserialize(with_actor(5, 40ms).serialize()).actor(pid(2))->busy, as::Duration(40ms));
  }

  void the_bucketer_reports_how_long_one_hook_has_held_its_thread() {
    obs::StatsBucketer b;
    const as::TimePoint t0 = as::TimePoint{} + 1s;
    as::ActorStats s;
    s.id = pid(3);
    s.status = as::ActorStatus::running;
    s.hook_runs = 4;
    s.in_hook = false;
    QVERIFY(b.update({s}, t0).empty());  // idle, nothing moved
    s.hook_runs = 5;
    s.in_hook = true;  // a hook began between the polls: how long, nobody knows yet
    QVERIFY(b.update({s}, t0 + 100ms).empty());
    auto out = b.update({s}, t0 + 200ms);  // the same hook, a poll later
    QCOMPARE(out.size(), 1u);
    QCOMPARE(out[0].busy, as::Duration(100ms));
    out = b.update({s}, t0 + 300ms);
    QCOMPARE(out.size(), 1u);
    QCOMPARE(out[0].busy, as::Duration(200ms));
    s.hook_runs = 6;  // it returned, and the next one began: counted afresh
    out = b.update({s}, t0 + 400ms);
    QCOMPARE(out.size(), 1u);  // one sample that says the old hook is over
    QCOMPARE(out[0].busy, as::Duration::zero());
    QVERIFY(b.update({s}, t0 + 500ms).size() == 1u);
    s.in_hook = false;
    out = b.update({s}, t0 + 600ms);
    QCOMPARE(out.size(), 1u);
    QCOMPARE(out[0].busy, as::Duration::zero());
    QVERIFY(b.update({s}, t0 + 700ms).empty());  // and then nothing, as before

    // The fold shows the latest figure while the actor lives.
    const auto busy_sample = [](as::TimePoint end, as::Duration busy) {
      obs::StatsSample sample;
      sample.end = end;
      sample.actor = pid(3);
      sample.busy = busy;
      return sample;
    };
    obs::SystemState st;
    st.apply(obs::Event{.kind = obs::EventKind::spawned, .seq = 1, .time = t0, .actor = pid(3), .name = "slow"});
    st.apply(busy_sample(t0 + 300ms, 200ms));
    QCOMPARE(st.actor(pid(3))->busy, as::Duration(200ms));
    st.apply(busy_sample(t0 + 400ms, as::Duration::zero()));
    QCOMPARE(st.actor(pid(3))->busy, as::Duration::zero());
    st.apply(busy_sample(t0 + 500ms, 100ms));
    st.apply(obs::Event{.kind = obs::EventKind::killed, .seq = 2, .time = t0 + 600ms, .actor = pid(3)});
    QCOMPARE(st.actor(pid(3))->busy, as::Duration::zero());
  }

  void a_format_2_image_reads_with_its_kept_child_failures_tallied() {
    // Format 2 had no child tallies: the latest failures it kept are what there is to count.
    const auto ev = script();
    const obs::SystemState s = fold(ev, ev.size());
    const std::string v2 = as_format_2(s.serialize());
    QVERIFY(!v2.empty());
    const obs::SystemState back = obs::SystemState::deserialize(v2);
    const obs::ActorRecord& sup = *back.actor(pid(1));
    std::uint64_t tallied = 0;
    for (const auto& b : sup.child_tally) tallied += b.failed;
    QCOMPARE(tallied, static_cast<std::uint64_t>(sup.recent_failures.size()));
    QVERIFY(tallied > 0);
    QCOMPARE(sup.child_failures, s.actor(pid(1))->child_failures);
    QVERIFY(s.actor(pid(1))->child_failures > tallied);  // format 3 tallies all of them
  }

  void a_message_a_timer_queues_as_it_fires_is_the_timers_and_survives_a_keyframe() {
    obs::SystemState s;
    std::uint64_t seq = 0;
    auto at = [&](obs::Event e, as::TimePoint t) {
      e.seq = ++seq;
      e.time = t;
      s.apply(e);
    };
    const as::TimePoint t0 = as::TimePoint{} + 1s;
    at({.kind = obs::EventKind::spawned, .actor = pid(1), .name = "metronome", .text = "Metronome"}, t0);
    at({.kind = obs::EventKind::timer_started, .actor = pid(1), .peer = pid(1), .trace = 7, .period = 20ms,
        .scheduled = t0 + 20ms, .name = "interval"},
       t0);
    // The firing, then (a keyframe cut between them) its message from outside any actor.
    at({.kind = obs::EventKind::timer_fired, .actor = pid(1), .trace = 7, .scheduled = t0 + 20ms, .name = "interval"},
       t0 + 20ms);
    obs::SystemState cut = obs::SystemState::deserialize(s.serialize());
    QVERIFY(cut == s);
    obs::Event tick{.kind = obs::EventKind::message_sent, .actor = {}, .peer = pid(1), .trace = 100,
                    .message_type = "Tick"};
    tick.seq = ++seq;
    tick.time = t0 + 20ms + 30us;
    s.apply(tick);
    cut.apply(tick);
    QCOMPARE(s.recent_messages().back().timer, 7u);
    QVERIFY(cut == s);
    // A cast from outside any actor long after the firing is not the timer's.
    at({.kind = obs::EventKind::message_sent, .actor = {}, .peer = pid(1), .trace = 101, .message_type = "Tick"},
       t0 + 25ms);
    QCOMPARE(s.recent_messages().back().timer, 0u);
    // Nor is the next one after a firing whose message was not sampled, once the moment has passed.
    at({.kind = obs::EventKind::timer_fired, .actor = pid(1), .trace = 7, .scheduled = t0 + 40ms, .name = "interval"},
       t0 + 40ms);
    at({.kind = obs::EventKind::message_sent, .actor = {}, .peer = pid(1), .trace = 102, .message_type = "Poke"},
       t0 + 52ms);
    QCOMPARE(s.recent_messages().back().timer, 0u);
    QVERIFY(obs::SystemState::deserialize(s.serialize()) == s);
    // A format-4 image (format 5 appended what timers sent) reads, with nothing from a timer.
    std::string v3 = s.serialize();
    v3[4] = 4;
    for (std::size_t size = 5; size < v3.size(); ++size) {
      try {
        const obs::SystemState back = obs::SystemState::deserialize(std::string_view(v3).substr(0, size));
        QCOMPARE(back.recent_messages().size(), s.recent_messages().size());
        for (const auto& m : back.recent_messages()) QCOMPARE(m.timer, 0u);
        return;
      } catch (const obs::StateFormatError&) {
      }
    }
    QFAIL("no prefix of the image reads as format 4");
  }

  void a_restarted_child_takes_its_predecessors_place_with_its_restart_count() {
    const auto ev = supervised_script();
    const obs::SystemState s = fold(ev, ev.size());
    const obs::ActorRecord* sup = s.actor(pid(1));
    QVERIFY(sup != nullptr);
    // One row per child, where the first one was: b's and c's replacements in their places.
    QCOMPARE(sup->children, (std::vector<as::ActorId>{pid(2), pid(6), pid(7)}));
    QCOMPARE(s.roots(), std::vector<as::ActorId>{pid(1)});  // the replaced ones are not roots either
    QCOMPARE(s.actor(pid(6))->restarts, 2u);
    QCOMPARE(s.actor(pid(6))->child_id, std::string("b"));
    QCOMPARE(s.actor(pid(6))->replaces, pid(5));
    QCOMPARE(s.actor(pid(7))->restarts, 1u);
    QCOMPARE(s.actor(pid(2))->restarts, 0u);
    QCOMPARE(s.actor(pid(2))->child_id, std::string("a"));  // bound by spec order
    QVERIFY(!s.actor(pid(3))->alive());                     // the old records stay, out of the tree
    QCOMPARE(s.actor(pid(3))->parent, pid(1));
  }

  void the_fold_keeps_each_supervisors_strategy_specs_intensity_and_surrender() {
    const auto ev = supervised_script();
    const obs::SystemState s = fold(ev, ev.size() - 1);
    const obs::SupervisorRecord* sup = s.supervisor(pid(1));
    QVERIFY(sup != nullptr);
    QCOMPARE(sup->strategy, std::string("one_for_one"));
    QCOMPARE(sup->max_restarts, 3u);
    QVERIFY(sup->period == 5s);
    QVERIFY(sup->backoff.has_value());
    QVERIFY(sup->backoff->min == 10ms && sup->backoff->max == 1000ms && sup->backoff->reset == 30s);
    QCOMPARE(sup->children.size(), 3u);  // the unknown tag is ignored
    QCOMPARE(sup->children[1].id, std::string("b"));
    QCOMPARE(sup->children[1].restart, std::string("transient"));
    QCOMPARE(sup->children[1].shutdown, std::string("brutal_kill"));
    QVERIFY(!sup->children[1].supervisor && sup->children[2].supervisor);
    QCOMPARE(sup->children[0].actor, pid(2));
    QCOMPARE(sup->children[1].actor, pid(6));
    QCOMPARE(sup->children[2].actor, pid(7));
    QCOMPARE(sup->child_of(pid(6)), &sup->children[1]);
    QCOMPARE(sup->total_restarts, 3u);
    QVERIFY(!sup->gave_up.has_value());
    // Three restarts 1 s apart: all three within 5 s now, two of them 1.5 s after the first.
    QCOMPARE(sup->restarts_within_period(s.time()), 3u);
    QCOMPARE(sup->restarts_within_period(sup->recent_restarts.front() + 1500ms), 2u);
    QCOMPARE(sup->restarts_within_period(s.time() + 10s), 0u);

    const obs::SystemState end = fold(ev, ev.size());
    const obs::SupervisorRecord* gave = end.supervisor(pid(1));
    QVERIFY(gave->gave_up.has_value());
    QVERIFY(*gave->gave_up == ev.back().time);
    QCOMPARE(gave->gave_up_restarts, 4u);
    QVERIFY(gave->gave_up_reason.find("max restart intensity") != std::string::npos);
    QCOMPARE(end.events_of(obs::EventKind::child_restarted), 3u);
  }

  void a_supervisor_configured_before_its_children_binds_them_as_they_spawn_and_repeats_change_nothing() {
    obs::SystemState s;
    std::uint64_t seq = 0;
    auto at = [&](obs::Event e) {
      e.seq = ++seq;
      e.time = as::TimePoint{} + std::chrono::milliseconds(seq);
      return s.apply(e);
    };
    at({.kind = obs::EventKind::spawned, .actor = pid(1), .text = "Supervisor"});
    const obs::Event configured = obs::Event::supervisor_configured(
        pid(1), "rest_for_one", 1, 2s, "child\tx\tpermanent\t100\tworker\nchild\ty\tpermanent\t100\tworker");
    QVERIFY(at(configured));
    at({.kind = obs::EventKind::spawned, .actor = pid(2), .peer = pid(1), .text = "X"});
    at({.kind = obs::EventKind::spawned, .actor = pid(3), .peer = pid(1), .text = "Y"});
    QCOMPARE(s.supervisor(pid(1))->children[0].actor, pid(2));
    QCOMPARE(s.supervisor(pid(1))->children[1].actor, pid(3));
    QCOMPARE(s.actor(pid(3))->child_id, std::string("y"));
    // An observer attaching later hears the configuration again: a repeat.
    const obs::SystemState before = s;
    QVERIFY(!at(configured));
    QVERIFY(s == before);
    // start_child: the list is sent again with one more spec; the ones bound stay bound.
    at({.kind = obs::EventKind::spawned, .actor = pid(4), .peer = pid(1), .text = "Z"});
    at(obs::Event::supervisor_configured(pid(1), "rest_for_one", 1, 2s,
                                         "child\tx\tpermanent\t100\tworker\nchild\ty\tpermanent\t100\tworker"
                                         "\nchild\tz\ttemporary\t100\tworker"));
    QCOMPARE(s.supervisor(pid(1))->children[0].actor, pid(2));
    QCOMPARE(s.supervisor(pid(1))->children[2].actor, pid(4));
    QVERIFY(!s.supervisor(pid(1))->backoff.has_value());
    // The intensity keeps at most max_restarts + 1 restarts.
    for (std::uint64_t n = 0; n < 5; ++n)
      at(obs::Event::child_restarted(pid(10 + n), pid(n == 0 ? 2 : 9 + n), "x", "failed",
                                     static_cast<std::uint32_t>(n + 1), {}, n == 4));
    QCOMPARE(s.supervisor(pid(1))->recent_restarts.size(), 2u);
    QCOMPARE(s.supervisor(pid(1))->total_restarts, 5u);
    QCOMPARE(s.supervisor(pid(1))->children[0].actor, pid(14));
    QCOMPARE(s.actor(pid(1))->children.front(), pid(14));  // (no spawned seen: it still takes the place)
  }

  void a_spec_line_that_names_its_actor_binds_it_exactly_whatever_the_order() {
    // An observer attaching after restarts hears the children in any order: a sixth word on a
    // child line (the pid running it) says which is which.
    obs::SystemState s;
    std::uint64_t seq = 0;
    auto at = [&](obs::Event e) {
      e.seq = ++seq;
      e.time = as::TimePoint{} + std::chrono::milliseconds(seq);
      s.apply(e);
    };
    at({.kind = obs::EventKind::spawned, .actor = pid(1), .text = "Supervisor"});
    at({.kind = obs::EventKind::spawned, .actor = pid(2), .peer = pid(1), .text = "A"});
    at({.kind = obs::EventKind::spawned, .actor = pid(9), .peer = pid(1), .text = "B"});
    at({.kind = obs::EventKind::spawned, .actor = pid(4), .peer = pid(1), .text = "C"});
    at(obs::Event::supervisor_configured(pid(1), "one_for_one", 3, 5s,
                                         "child\ta\tpermanent\t100\tworker\t2\n"
                                         "child\tb\tpermanent\t100\tworker\t4\n"
                                         "child\tc\tpermanent\t100\tworker\t9"));
    const obs::SupervisorRecord* sup = s.supervisor(pid(1));
    QCOMPARE(sup->children[1].actor, pid(4));
    QCOMPARE(sup->children[2].actor, pid(9));
    QCOMPARE(s.actor(pid(9))->child_id, std::string("c"));
    QCOMPARE(s.actor(pid(4))->child_id, std::string("b"));
  }

  void supervisors_survive_a_keyframe_at_every_point_damage_is_refused_and_older_images_read_without_them() {
    const auto ev = supervised_script();
    obs::SystemState s;
    for (const auto& e : ev) {
      s.apply(e);
      const obs::SystemState back = obs::SystemState::deserialize(s.serialize());
      QVERIFY2(back == s,
               qPrintable(
                   QString("after event %1 (%2)").arg(e.seq).arg(QString::fromUtf8(obs::to_string(e.kind)))));
    }
    // Damaged: every prefix is refused, flipped bytes are refused or read, never a crash.
    const std::string good = s.serialize();
    for (std::size_t cut = 0; cut < good.size(); ++cut) {
      try {
        (void)obs::SystemState::deserialize(std::string_view(good).substr(0, cut));
        QFAIL(qPrintable(QString("a %1-byte prefix was accepted").arg(cut)));
      } catch (const obs::StateFormatError&) {
      }
    }
    std::mt19937 rng(5);
    for (int round = 0; round < 300; ++round) {
      std::string bad = good;
      bad[4 + rng() % (bad.size() - 4)] ^= static_cast<char>(1 + rng() % 255);
      try {
        (void)obs::SystemState::deserialize(bad);
      } catch (const obs::StateFormatError&) {
      }
    }
    // A format-6 image is the prefix before them: it reads, with no supervisors and the kinds that
    // format knew counted.
    const std::string v6 = as_format(s.serialize(), 6);
    QVERIFY(!v6.empty());
    const obs::SystemState old = obs::SystemState::deserialize(v6);
    QVERIFY(old.supervisors().empty());
    QCOMPARE(old.events_of(obs::EventKind::child_restarted), 0u);
    QCOMPARE(old.events_of(obs::EventKind::failed), s.events_of(obs::EventKind::failed));
    QCOMPARE(old.actor(pid(6))->restarts, 0u);
  }

  void a_real_supervisors_events_fold_into_what_it_says_of_itself() {
    using engine_test::kTimeout;
    engine_test::Probe probe;
    as::System sys{as::make_runtime("asio", {.threads = 2})};
    Capture capture;
    sys.attach(capture);
    std::atomic<int> starts{0};
    auto spec = [&](const std::string& id, std::atomic<int>* fragile = nullptr) {
      return as::child(id, Kid{.probe = &probe, .tag = id, .starts = fragile}, {.name = id});
    };
    auto sup = as::start_supervisor(sys, {.strategy = as::Strategy::one_for_all,
                                          .max_restarts = 3,
                                          .period = 1h,
                                          .children = {spec("a"), spec("b"), spec("c"), spec("d", &starts)}})
                   .value();
    QVERIFY(probe.wait_for(sys, "start d"));
    // b fails: one failure, four children restarted with it (one_for_all); d cannot start again, and
    // its retries count until the supervisor gives up.
    QVERIFY(sys.where_is<int>("b").value().cast(0));
    QVERIFY(sup.wait(kTimeout));
    sys.detach(capture);
    const obs::SystemState s = capture.fold();
    const obs::SupervisorRecord* rec = s.supervisor(sup.id());
    QVERIFY(rec != nullptr);
    QCOMPARE(rec->strategy, std::string("one_for_all"));
    QCOMPARE(rec->children.size(), 4u);
    QVERIFY(rec->gave_up.has_value());
    // As the Supervisor counts: the failure, then each failed try of d; the one that exceeded the
    // limit is in supervisor_gave_up's count, not in a restart.
    QCOMPARE(static_cast<std::uint32_t>(rec->recent_restarts.size()), rec->gave_up_restarts - 1);
    QVERIFY(s.actor(as::ActorId{}) == nullptr);  // a start that failed made no actor
    // Each child in its place, with its restart count: a, b, c restarted once, in spec order.
    const obs::ActorRecord* team = s.actor(sup.id());
    QCOMPARE(team->children.size(), 4u);
    for (std::size_t i = 0; i < 3; ++i) {
      const obs::ActorRecord* kid = s.actor(team->children[i]);
      QCOMPARE(kid->child_id, rec->children[i].id);
      QCOMPARE(kid->restarts, 1u);
      QCOMPARE(rec->children[i].actor, kid->id);
    }
    QCOMPARE(s.actor(team->children[3])->child_id, std::string("d"));  // its first actor: no restart started
    // The three tries of d that failed in pre_start are no rows of their own: out of the list, with
    // their supervisor (no roots either), child id and attempt.
    std::size_t attempts = 0;
    for (const auto& [id, a] : s.actors()) {
      if (a.child_id != "d" || a.restarts == 0) continue;
      ++attempts;
      QVERIFY(!a.alive());
      QCOMPARE(a.parent, sup.id());
      QVERIFY(std::find(team->children.begin(), team->children.end(), id) == team->children.end());
    }
    QCOMPARE(attempts, 3u);
    QCOMPARE(s.roots(), std::vector<as::ActorId>{sup.id()});
    QVERIFY(obs::SystemState::deserialize(s.serialize()) == s);
    QVERIFY(sys.shutdown(kTimeout));
  }

  void a_bounded_mailbox_folds_its_capacity_policy_and_losses_and_survives_a_keyframe() {
    obs::SystemState s;
    std::uint64_t seq = 0;
    auto at = [&](obs::Event e) {
      e.seq = ++seq;
      e.time = as::TimePoint{} + std::chrono::milliseconds(seq);
      return s.apply(e);
    };
    auto sample = [&](std::uint64_t actor, as::Duration end, std::uint64_t depth, std::uint64_t dropped,
                      std::uint64_t rejected) {
      obs::StatsSample x;
      x.actor = pid(actor);
      x.end = as::TimePoint{} + end;
      x.handled = 1;
      x.mailbox_depth = depth;
      x.mailbox_max = depth;
      x.dropped = dropped;
      x.rejected = rejected;
      return x;
    };
    at({.kind = obs::EventKind::spawned, .actor = pid(1), .text = "Open"});
    at({.kind = obs::EventKind::spawned, .actor = pid(2), .text = "Sensor"});
    const obs::Event bounded = obs::Event::mailbox_configured(pid(2), 8, "drop_oldest");
    QVERIFY(at(bounded));
    QCOMPARE(s.actor(pid(2))->mailbox_capacity, 8u);
    QCOMPARE(s.actor(pid(2))->overflow, as::Overflow::drop_oldest);
    QCOMPARE(s.actor(pid(1))->mailbox_capacity, 0u);  // no event: unbounded
    QCOMPARE(s.events_of(obs::EventKind::mailbox_configured), 1u);
    // An observer attaching later hears it again with the present: a repeat changes nothing.
    const obs::SystemState before = s;
    QVERIFY(!at(bounded));
    QVERIFY(s == before);

    s.apply(sample(2, 150ms, 8, 3, 0));
    s.apply(sample(2, 250ms, 8, 2, 1));
    s.apply(sample(2, 260ms, 5, 0, 4));  // the same history bucket as the one before
    const obs::ActorRecord* a = s.actor(pid(2));
    QCOMPARE(a->dropped, 5u);
    QCOMPARE(a->rejected, 5u);
    QCOMPARE(a->mailbox_depth, 5u);
    QCOMPARE(a->history.size(), 2u);
    QCOMPARE(a->history[0].dropped, 3u);
    QCOMPARE(a->history[1].dropped, 2u);
    QCOMPARE(a->history[1].rejected, 5u);

    // Undone exactly (a replay takes back the polls it showed past its place).
    const obs::SystemState folded = s;
    obs::SystemState::StatsUndo undo;
    s.apply(sample(2, 900ms, 1, 7, 7), undo);
    QCOMPARE(s.actor(pid(2))->dropped, 12u);
    s.undo(undo);
    QVERIFY(s == folded);

    // A keyframe keeps all of it; a format-7 image (before bounded mailboxes) reads as unbounded
    // with nothing lost.
    QVERIFY(obs::SystemState::deserialize(s.serialize()) == s);
    const std::string v7 = as_format(s.serialize(), 7);
    QVERIFY(!v7.empty());
    const obs::SystemState old = obs::SystemState::deserialize(v7);
    QCOMPARE(old.actor(pid(2))->mailbox_capacity, 0u);
    QCOMPARE(old.actor(pid(2))->dropped, 0u);
    QCOMPARE(old.actor(pid(2))->history[1].rejected, 0u);
    QCOMPARE(old.actor(pid(2))->handled, 3u);
    // A damaged one is refused, never misread: every prefix of the whole image.
    const std::string good = s.serialize();
    for (std::size_t cut = v7.size(); cut < good.size(); ++cut) {
      try {
        (void)obs::SystemState::deserialize(std::string_view(good).substr(0, cut));
        QFAIL(qPrintable(QString("a %1-byte prefix was accepted").arg(cut)));
      } catch (const obs::StateFormatError&) {
      }
    }
  }

  void the_bucketer_counts_drops_and_rejections_as_sums_between_polls() {
    as::ActorStats s;
    s.id = pid(3);
    s.mailbox_capacity = 4;
    s.dropped = 6;
    s.rejected = 2;
    obs::StatsBucketer bucketer;
    auto first = bucketer.update({s}, as::TimePoint{} + 1ms);
    QCOMPARE(first.size(), 1u);
    QCOMPARE(first[0].dropped, 6u);
    QCOMPARE(first[0].rejected, 2u);
    // Nothing moved: no sample.
    QVERIFY(bucketer.update({s}, as::TimePoint{} + 2ms).empty());
    // Only drops moved: a sample with just them.
    s.dropped = 9;
    auto third = bucketer.update({s}, as::TimePoint{} + 3ms);
    QCOMPARE(third.size(), 1u);
    QCOMPARE(third[0].dropped, 3u);
    QCOMPARE(third[0].rejected, 0u);
    QCOMPARE(third[0].handled, 0u);
  }

  void the_state_at_a_time_is_a_keyframe_plus_the_events_after_it() {
    const auto ev = script();
    for (std::size_t key : {std::size_t{0}, std::size_t{1}, ev.size() / 3, ev.size() / 2, ev.size() - 1}) {
      for (std::size_t at : {key, key + 5, key + 40, ev.size()}) {
        if (at > ev.size()) continue;
        obs::SystemState from_key = obs::SystemState::deserialize(fold(ev, key).serialize());
        for (std::size_t i = key; i < at; ++i) from_key.apply(ev[i]);
        QVERIFY2(from_key == fold(ev, at), qPrintable(QString("keyframe %1, time %2").arg(key).arg(at)));
      }
    }
  }

  void stopped_actors_beyond_the_limit_are_forgotten_oldest_first() {
    obs::SystemState::Limits limits;
    limits.stopped_actors = 5;
    const auto ev = script(60);
    const obs::SystemState s = fold(ev, ev.size(), limits);
    std::size_t stopped = 0;
    for (const auto& [id, a] : s.actors()) stopped += a.alive() ? 0 : 1;
    QCOMPARE(stopped, 5u);
    for (ActorIdCheck c{s}; const auto& kid : s.actor(pid(1))->children) QVERIFY(c(kid));
  }

  void a_damaged_or_foreign_image_is_refused_with_a_reason_and_never_crashes() {
    const std::string good = fold(script(6), 10'000).serialize();
    for (std::size_t cut = 0; cut < good.size(); ++cut) {
      try {
        (void)obs::SystemState::deserialize(std::string_view(good).substr(0, cut));
        QFAIL(qPrintable(QString("a %1-byte prefix was accepted").arg(cut)));
      } catch (const obs::StateFormatError&) {
      }
    }
    std::mt19937 rng(3);
    for (int round = 0; round < 300; ++round) {  // flipped bytes: refused or read, never a crash
      std::string bad = good;
      bad[4 + rng() % (bad.size() - 4)] ^= static_cast<char>(1 + rng() % 255);
      try {
        (void)obs::SystemState::deserialize(bad);
      } catch (const obs::StateFormatError&) {
      }
    }
    try {
      (void)obs::SystemState::deserialize("SQLite format 3");
      QFAIL("a foreign image was accepted");
    } catch (const obs::StateFormatError& e) {
      QVERIFY(std::string(e.what()).find("not a SystemState keyframe") != std::string::npos);
    }
    std::string future = good;
    future[4] = 0x7f;  // format 127
    try {
      (void)obs::SystemState::deserialize(future);
      QFAIL("a newer format was accepted");
    } catch (const obs::StateFormatError& e) {
      QVERIFY(std::string(e.what()).find("newer Actorscope") != std::string::npos);
    }
  }

  void the_histogram_keeps_exact_extremes_and_percentiles_within_its_precision() {
    obs::LogHistogram h;
    for (std::uint64_t v = 1; v <= 10000; ++v) h.record(v * 1000);
    QCOMPARE(h.count(), 10000u);
    QCOMPARE(h.min(), 1000u);
    QCOMPARE(h.max(), 10'000'000u);
    QCOMPARE(h.percentile(100), h.max());
    for (double p : {50.0, 90.0, 99.0}) {
      const double exact = p / 100 * 10'000'000;
      const double got = static_cast<double>(h.percentile(p));
      QVERIFY2(got >= exact && got <= exact * (1 + 1.0 / obs::LogHistogram::kSubBuckets) + 1,
               qPrintable(QString("p%1: %2 vs %3").arg(p).arg(got).arg(exact)));
    }
    std::mt19937_64 rng(1);
    for (int i = 0; i < 100000; ++i) {
      const std::uint64_t v = rng() >> (rng() % 64);
      const std::size_t idx = obs::LogHistogram::index_of(v);
      QVERIFY(obs::LogHistogram::lower_bound(idx) <= v && v <= obs::LogHistogram::upper_bound(idx));
    }
    obs::LogHistogram a, b, both;
    for (std::uint64_t v : {3u, 70u, 900u}) a.record(v), both.record(v);
    for (std::uint64_t v : {5u, 70000u}) b.record(v), both.record(v);
    a.merge(b);
    QVERIFY(a == both);
  }

  void the_collector_releases_causally_chained_events_in_order_while_draining_concurrently() {
    obs::EventCollector c({.per_thread_capacity = 1 << 16});
    std::atomic<std::uint64_t> seq{0};
    std::atomic<int> turn{0};
    constexpr int kRounds = 20000;
    // Two threads take turns: each event happens after the previous one on the other thread.
    auto player = [&](int me) {
      for (int r = 0; r < kRounds; ++r) {
        while (turn.load(std::memory_order_acquire) != me) std::this_thread::yield();
        obs::Event e;
        e.seq = seq.fetch_add(1) + 1;
        e.trace = e.seq;
        c.on_event(e);
        turn.store(1 - me, std::memory_order_release);
      }
    };
    std::thread a(player, 0), b(player, 1);
    std::vector<obs::Event> out;
    while (out.size() < 2 * kRounds) {
      const std::size_t before = out.size();
      c.drain(out);
      if (out.size() == before && seq.load() == 2 * kRounds) c.drain(out, true);
    }
    a.join();
    b.join();
    QCOMPARE(out.size(), std::size_t{2 * kRounds});
    for (std::size_t i = 0; i < out.size(); ++i) {
      QCOMPARE(out[i].trace, i + 1);  // the original order
      QCOMPARE(out[i].seq, i + 1);    // renumbered without gaps
    }
    QCOMPARE(c.dropped(), 0u);
  }

 private:
  struct ActorIdCheck {
    const obs::SystemState& s;
    bool operator()(as::ActorId id) const { return s.actor(id) != nullptr; }
  };
};

QTEST_GUILESS_MAIN(TestSystemState)
#include "tst_system_state.moc"
