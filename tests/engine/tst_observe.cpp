// Observation, on every runtime: what an attached observer hears and in what order, what it costs
// nothing to know (exact counters), sampling, drops, detach, and the fold of a live stream.
#include "engine_test.hpp"

using namespace engine_test;
namespace obs = as::observe;

namespace {

struct Add {
  int n;
};
struct Crash {};
struct Total {
  as::Reply<int> reply;
};
using WorkerMsg = std::variant<Add, Crash, Total>;

struct Worker {
  using Message = WorkerMsg;
  using State = int;
  int pre_start(as::Context<Worker>&) { return 0; }
  void handle(as::Context<Worker>&, WorkerMsg m, int& total) {
    as::match(
        m, [&](Add& a) { total += a.n; }, [&](Crash&) { throw std::runtime_error("boom"); },
        [&](Total& t) { t.reply.send(total); });
  }
};

// Stops itself once it has handled `until` messages; reports "done".
struct Counter {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int until = 0;
  int pre_start(as::Context<Counter>&) { return 0; }
  void handle(as::Context<Counter>& ctx, int, int& seen) {
    if (++seen == until) {
      probe->record("done");
      ctx.stop("counted");
    }
  }
};

// Sends `n` messages to a target when told.
struct Sender {
  using Message = as::ActorRef<int>;
  int n = 0;
  void handle(as::Context<Sender>&, as::ActorRef<int> to, std::monostate&) {
    for (int i = 0; i < n; ++i) (void)to.cast(i);
  }
};

struct Gated {
  using Message = int;
  Probe* probe = nullptr;
  Gate* gate = nullptr;
  as::Task<> handle(as::Context<Gated>&, int m, std::monostate&) {
    probe->record("started " + std::to_string(m));
    if (m == 1) co_await gate->opened();
    probe->record("handled " + std::to_string(m));
  }
};

struct Napper {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Napper>&, int, std::monostate&) {
    co_await as::sleep(5ms);
    probe->record("napped");
  }
};

struct Refuses {
  using Message = int;
  using State = int;
  int pre_start(as::Context<Refuses>&) { throw std::runtime_error("no config file"); }
  void handle(as::Context<Refuses>&, int, int&) {}
};

struct Boss {
  using Message = int;
  void handle(as::Context<Boss>&, int, std::monostate&) {}
};

/// Counts every event, and every event that arrives after it was told it is detached.
class CountingObserver final : public obs::Observer {
 public:
  explicit CountingObserver(Probe* probe = nullptr, std::uint64_t report_at = 0) : probe_(probe), report_at_(report_at) {}
  obs::Interest interest() const noexcept override { return {.messages = true}; }
  void on_event(const obs::Event&) noexcept override {
    if (count.fetch_add(1, std::memory_order_relaxed) + 1 == report_at_ && probe_ != nullptr) {
      try {
        probe_->record("observed enough");
      } catch (...) {
      }
    }
    if (detached.load(std::memory_order_acquire)) late.fetch_add(1, std::memory_order_relaxed);
  }
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> late{0};
  std::atomic<bool> detached{false};

 private:
  Probe* probe_;
  std::uint64_t report_at_;
};

std::vector<obs::Event> drain_all(obs::EventCollector& c) {
  std::vector<obs::Event> out;
  c.drain(out, true);
  return out;
}

std::vector<obs::Event> of_actor(const std::vector<obs::Event>& ev, as::ActorId id) {
  std::vector<obs::Event> out;
  for (const auto& e : ev)
    if (e.actor == id) out.push_back(e);
  return out;
}

std::size_t count_kind(const std::vector<obs::Event>& ev, obs::EventKind k) {
  return static_cast<std::size_t>(std::count_if(ev.begin(), ev.end(), [&](const obs::Event& e) { return e.kind == k; }));
}

int index_of(const std::vector<obs::Event>& ev, obs::EventKind k, as::ActorId actor, int after = -1) {
  for (std::size_t i = static_cast<std::size_t>(after + 1); i < ev.size(); ++i)
    if (ev[i].kind == k && ev[i].actor == actor) return static_cast<int>(i);
  return -1;
}

}  // namespace

namespace {
/// A System's live stream folded into a SystemState as the observatory folds it: the events so
/// far, then a stats poll in buckets. Call it to bring `state` up to date.
struct LiveFold {
  obs::EventCollector collector;
  obs::StatsPoller poller;
  obs::StatsBucketer bucketer;
  obs::SystemState state;
  std::vector<obs::Event> batch;
  as::System& sys;

  explicit LiveFold(as::System& s, obs::EventCollector::Options options = {})
      : collector(std::move(options)), poller(s), sys(s) {
    s.attach(collector);
  }
  void operator()() {
    batch.clear();
    collector.drain(batch);
    for (const auto& e : batch) state.apply(e);
    for (const auto& b : bucketer.update(poller.poll(), sys.runtime().now())) state.apply(b);
  }
};
}  // namespace

class TestObserve : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void an_observer_sees_an_actors_whole_life_in_causal_order() {
    auto sys = make_system();
    obs::EventCollector collector({.interest = {.messages = true, .timing = true, .type_names = true}});
    sys->attach(collector);

    auto boss = sys->spawn<Boss>({.name = "boss"}).value();
    auto worker = sys->spawn_linked<Worker>(boss, {.name = "worker"}).value();
    for (int i = 1; i <= 3; ++i) QVERIFY(worker.cast(Add{i}));
    QVERIFY(worker.cast(Crash{}));
    QVERIFY(boss.wait(kTimeout));  // the worker fails, so (by default) the boss stops
    sys->shutdown();

    const auto ev = drain_all(collector);
    for (std::size_t i = 0; i < ev.size(); ++i) QCOMPARE(ev[i].seq, i + 1);  // renumbered, no gaps
    QCOMPARE(ev.front().kind, obs::EventKind::runtime_info);
    QCOMPARE(ev.front().name, sys->runtime().name());

    const auto w = of_actor(ev, worker.id());
    QVERIFY(!w.empty());
    QCOMPARE(w.front().kind, obs::EventKind::spawned);
    QCOMPARE(w.front().peer, boss.id());
    QCOMPARE(w.front().name, std::string("worker"));
    QVERIFY2(std::string_view(w.front().text).ends_with("Worker"), w.front().text.c_str());

    const int spawned = index_of(ev, obs::EventKind::spawned, worker.id());
    const int started = index_of(ev, obs::EventKind::started, worker.id());
    const int failed = index_of(ev, obs::EventKind::failed, worker.id());
    QVERIFY(spawned >= 0 && started > spawned && failed > started);
    QCOMPARE(ev[static_cast<std::size_t>(failed)].text, std::string("boom"));

    // Every send comes before its handling, and they carry the same trace; the crash is the last.
    std::vector<obs::Event> sent, handled;
    for (const auto& e : ev) {
      if (e.kind == obs::EventKind::message_sent && e.peer == worker.id()) sent.push_back(e);
      if (e.kind == obs::EventKind::message_handled && e.actor == worker.id()) handled.push_back(e);
    }
    QCOMPARE(sent.size(), 4u);
    QCOMPARE(handled.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      QVERIFY(sent[i].trace != 0);
      QCOMPARE(handled[i].trace, sent[i].trace);
      QVERIFY(sent[i].seq < handled[i].seq);
      QVERIFY(!sent[i].actor.is_valid());  // sent from the test thread, not from an actor
      QVERIFY(handled[i].timed);
      QVERIFY(handled[i].queue >= as::Duration::zero() && handled[i].handling >= as::Duration::zero());
      QVERIFY(handled[i].seq < static_cast<std::uint64_t>(failed + 1));
    }
    QVERIFY(sent[0].message_type.ends_with("Add"));
    QVERIFY(sent[3].message_type.ends_with("Crash"));
    QVERIFY(!handled[2].failed);
    QVERIFY(handled[3].failed);

    // The boss heard of the failure before it stopped.
    int told = failed;
    do {
      told = index_of(ev, obs::EventKind::supervision_delivered, boss.id(), told);
    } while (told >= 0 && ev[static_cast<std::size_t>(told)].text.find("boom") == std::string::npos);
    QVERIFY(told > failed);
    QCOMPARE(ev[static_cast<std::size_t>(told)].peer, worker.id());
    QVERIFY(index_of(ev, obs::EventKind::stopped, boss.id()) > told);
    // Names come and go with the actors.
    QVERIFY(index_of(ev, obs::EventKind::name_registered, worker.id()) > spawned);
    QVERIFY(index_of(ev, obs::EventKind::name_unregistered, worker.id()) <= failed);
    QCOMPARE(collector.dropped(), 0u);
  }

  void nothing_reaches_an_observer_once_detach_has_returned() {
    auto sys = make_system();
    Probe probe;
    CountingObserver counter(&probe, 200);
    sys->attach(counter);
    auto pinger = sys->spawn<Pinger>(Pinger{.probe = &probe}, {}).value();
    auto ponger = sys->spawn<Ponger>({}, pinger).value();
    QVERIFY(pinger.cast(ponger));
    QVERIFY(pinger.cast(20000));
    // Detach while the rally is in full swing on the runtime's threads.
    QVERIFY(probe.wait_for(*sys, "observed enough"));
    QVERIFY(sys->detach(counter));
    counter.detached.store(true, std::memory_order_release);
    QVERIFY(probe.wait_for(*sys, "rally over"));
    QCOMPARE(counter.late.load(), 0u);
    QVERIFY(!sys->detach(counter));  // not attached any more
    QVERIFY(pinger.stats().handled > 0);
  }

  void an_observer_destroyed_before_its_system_is_detached_and_never_called_again() {
    auto sys = make_system();
    Probe probe;
    auto pinger = sys->spawn<Pinger>(Pinger{.probe = &probe}, {}).value();
    auto ponger = sys->spawn<Ponger>({}, pinger).value();
    {
      obs::EventCollector collector({.interest = {.messages = true}});
      sys->attach(collector);
      QVERIFY(pinger.cast(ponger));
      QVERIFY(pinger.cast(5000));
    }  // destroyed mid-rally: it detaches itself (ASan would catch a late call)
    QVERIFY(probe.wait_for(*sys, "rally over"));
    obs::EventCollector outlives;
    sys->attach(outlives);
    sys.reset();  // and a System that dies first lets its observers go
    std::vector<obs::Event> rest;
    outlives.drain(rest, true);
    QVERIFY(!rest.empty());
  }

  void attaching_to_a_running_system_first_tells_the_present() {
    auto sys = make_system();
    auto boss = sys->spawn<Worker>({.name = "boss"}).value();
    auto a = sys->spawn_linked<Worker>(boss, {}).value();
    auto b = sys->spawn_linked<Worker>(boss, {.name = "b"}).value();
    // A call is handled only after post_start, so once each has answered, all three are running.
    for (auto* w : {&boss, &a, &b}) QVERIFY(w->call(as::rpc<Total>, kTimeout).get());
    obs::EventCollector collector;
    sys->attach(collector);
    sys->shutdown();
    const auto ev = drain_all(collector);

    QCOMPARE(ev.front().kind, obs::EventKind::runtime_info);
    QCOMPARE(ev.front().thread, sys->runtime().thread_count());
    const int sb = index_of(ev, obs::EventKind::spawned, boss.id());
    const int sa = index_of(ev, obs::EventKind::spawned, a.id());
    QVERIFY(sb > 0 && sa > sb);
    QCOMPARE(ev[static_cast<std::size_t>(sa)].peer, boss.id());
    QVERIFY(index_of(ev, obs::EventKind::started, b.id()) > 0);
    QVERIFY(index_of(ev, obs::EventKind::name_registered, b.id()) > 0);
    // ...and then the shutdown as it happened.
    QVERIFY(index_of(ev, obs::EventKind::stopped, boss.id()) > sa);
    QVERIFY(index_of(ev, obs::EventKind::killed, a.id()) > sa);

    obs::SystemState state;
    for (const auto& e : ev) state.apply(e);
    QCOMPARE(state.actor(boss.id())->children.size(), 2u);
    QCOMPARE(state.alive_count(), 0u);
  }

  void sampling_makes_one_message_in_n_an_event_pair_while_counters_stay_exact() {
    auto sys = make_system();
    obs::EventCollector collector({.interest = {.messages = true, .sample_every = 10}});
    sys->attach(collector);
    Probe probe;
    auto counter = sys->spawn<Counter>(Counter{.probe = &probe, .until = 1000}, {}).value();
    for (int i = 0; i < 1000; ++i) QVERIFY(counter.cast(i));
    QVERIFY(counter.wait(kTimeout));
    const as::ActorStats st = counter.stats();
    QCOMPARE(st.received, 1000u);
    QCOMPARE(st.handled, 1000u);
    sys->shutdown();
    const auto ev = drain_all(collector);
    QCOMPARE(count_kind(ev, obs::EventKind::message_sent), 100u);
    QCOMPARE(count_kind(ev, obs::EventKind::message_handled), 100u);
  }

  void sampled_timing_times_only_the_sampled_messages_and_says_how_many() {
    auto sys = make_system();
    obs::EventCollector collector(
        {.interest = {.messages = true, .timing = true, .sample_every = 10, .time_sampled_only = true}});
    sys->attach(collector);
    Probe probe;
    auto counter = sys->spawn<Counter>(Counter{.probe = &probe, .until = 1000}, {}).value();
    for (int i = 0; i < 1000; ++i) QVERIFY(counter.cast(i));
    QVERIFY(counter.wait(kTimeout));
    const as::ActorStats st = counter.stats();
    QCOMPARE(st.handled, 1000u);  // counts stay exact
    QCOMPARE(st.timed, 100u);     // times only for the one message in ten that is sampled
    sys->shutdown();
    const auto ev = drain_all(collector);
    std::uint64_t handled_events = 0;
    as::Duration queue{}, handling{};
    for (const auto& e : ev) {
      if (e.kind != obs::EventKind::message_handled || e.actor != counter.id()) continue;
      QVERIFY(e.timed);
      ++handled_events;
      queue += e.queue;
      handling += e.handling;
    }
    QCOMPARE(handled_events, 100u);
    // The sums are exactly the times of the sampled messages, the ones their events carry.
    QCOMPARE(st.queue_time, queue);
    QCOMPARE(st.handling_time, handling);
  }

  void an_observer_that_times_every_message_outranks_sampled_timing() {
    const obs::Interest sampled{
        .messages = true, .timing = true, .sample_every = 10, .time_sampled_only = true};
    const obs::Interest every{.timing = true, .sample_every = 10};
    QVERIFY(sampled.merged(obs::Interest{}).time_sampled_only);  // nothing attached alongside wants more
    QVERIFY(!sampled.merged(every).time_sampled_only);
    QVERIFY(!every.merged(sampled).time_sampled_only);
    QVERIFY(sampled.merged(every).timing);

    auto sys = make_system();
    obs::EventCollector events({.interest = sampled});
    obs::EventCollector times({.interest = every});
    sys->attach(events);
    sys->attach(times);
    Probe probe;
    auto counter = sys->spawn<Counter>(Counter{.probe = &probe, .until = 200}, {}).value();
    for (int i = 0; i < 200; ++i) QVERIFY(counter.cast(i));
    QVERIFY(counter.wait(kTimeout));
    QCOMPARE(counter.stats().timed, 200u);
    sys->detach(times);
    sys->detach(events);
  }

  void actor_stats_count_exactly_and_see_a_mailbox_grow_behind_a_slow_handler() {
    auto sys = make_system();
    Probe probe;
    Gate gate;
    auto slow = sys->spawn<Gated>(Gated{.probe = &probe, .gate = &gate}, {}).value();
    // The first message is in its handler before the other nine are sent, so that they all wait
    // behind it: the drain takes them in one go once it returns (a depth of 9 noted then), however
    // the threads interleave. (Cast all ten at once, the drain could take the first two together.)
    QVERIFY(slow.cast(1));
    QVERIFY(probe.wait_for(*sys, "started 1"));
    for (int i = 2; i <= 10; ++i) QVERIFY(slow.cast(i));
    as::ActorStats st = slow.stats();
    QCOMPARE(st.received, 10u);
    QCOMPARE(st.handled, 0u);
    QCOMPARE(st.mailbox_depth, 10u);  // the one in the handler counts until it is done
    gate.open();
    QVERIFY(probe.wait_for(*sys, "handled 10"));
    QVERIFY(slow.stop_and_wait(kTimeout));  // the last handler is counted as it returns
    st = slow.stats();
    QCOMPARE(st.handled, 10u);
    QCOMPARE(st.mailbox_depth, 0u);
    QVERIFY2(st.mailbox_max >= 9, std::to_string(st.mailbox_max).c_str());
    QCOMPARE(st.queue_time, as::Duration::zero());  // nobody asked for timing
    QCOMPARE(st.timed, 0u);

    auto target = sys->spawn<Counter>(Counter{.probe = &probe, .until = 5}, {}).value();
    auto sender = sys->spawn<Sender>(Sender{.n = 5}, {}).value();
    QVERIFY(sender.cast(target));
    QVERIFY(target.wait(kTimeout));
    QVERIFY(sender.stop_and_wait(kTimeout));
    QCOMPARE(sender.stats().handled, 1u);
    QCOMPARE(sender.stats().sent, 5u);
    QCOMPARE(target.stats().received, 5u);
  }

  void a_stats_poller_keeps_the_final_counts_of_an_actor_that_exited_between_polls() {
    auto sys = make_system();
    obs::StatsPoller poller(*sys);
    Probe probe;
    auto keeper = sys->spawn<Boss>({}).value();
    auto brief = sys->spawn<Counter>(Counter{.probe = &probe, .until = 5}, {}).value();
    (void)poller.poll();
    for (int i = 0; i < 5; ++i) QVERIFY(brief.cast(i));
    QVERIFY(brief.wait(kTimeout));
    auto polled = poller.poll();
    auto it = std::find_if(polled.begin(), polled.end(), [&](const as::ActorStats& s) { return s.id == brief.id(); });
    QVERIFY(it != polled.end());
    QCOMPARE(it->handled, 5u);
    QCOMPARE(it->status, as::ActorStatus::stopped);
    polled = poller.poll();
    QVERIFY(std::none_of(polled.begin(), polled.end(), [&](const as::ActorStats& s) { return s.id == brief.id(); }));
    QVERIFY(std::any_of(polled.begin(), polled.end(), [&](const as::ActorStats& s) { return s.id == keeper.id(); }));

    const auto handled = [&](std::uint64_t n) {
      as::ActorStats s;
      s.id = brief.id();
      s.handled = n;
      return s;
    };
    obs::StatsBucketer bucketer;
    const auto first = bucketer.update({handled(2)}, as::TimePoint{});
    QCOMPARE(first.size(), 1u);
    // Alive at one read and final at the next in the same poll: each delta is counted once.
    const auto second = bucketer.update({handled(3), handled(5)}, {});
    QCOMPARE(second.size(), 2u);
    QCOMPARE(second[0].handled + second[1].handled, 3u);
  }

  void handling_and_queue_times_are_measured_and_exact_on_the_virtual_clock() {
    auto sys = make_system();
    obs::EventCollector collector({.interest = {.messages = true, .timing = true}});
    sys->attach(collector);
    Probe probe;
    auto napper = sys->spawn<Napper>(Napper{.probe = &probe}, {}).value();
    QVERIFY(napper.cast(1));
    QVERIFY(probe.wait_for(*sys, "napped"));
    QVERIFY(napper.stop_and_wait(kTimeout));
    const as::ActorStats st = napper.stats();
    QCOMPARE(st.handled, 1u);
    sys->shutdown();
    const auto ev = drain_all(collector);
    const int h = index_of(ev, obs::EventKind::message_handled, napper.id());
    QVERIFY(h >= 0);
    const auto& e = ev[static_cast<std::size_t>(h)];
    QVERIFY(e.timed);
    if (is_manual(*sys)) {
      // The virtual clock moves only when the runtime waits for a timer: exact to the nanosecond.
      QCOMPARE(e.handling, as::Duration(5ms));
      QCOMPARE(e.queue, as::Duration::zero());
    } else {
      QVERIFY(e.handling >= 5ms);  // a sleep never wakes early
      QVERIFY(e.queue >= as::Duration::zero());
    }
    QCOMPARE(st.handling_time, e.handling);
    QCOMPARE(st.queue_time, e.queue);
    QCOMPARE(st.timed, 1u);
  }

  void a_full_buffer_drops_events_and_counts_every_one() {
    auto sys = make_system();
    obs::EventCollector small({.interest = {.messages = true}, .per_thread_capacity = 16});
    CountingObserver all;
    sys->attach(small);
    sys->attach(all);
    Probe probe;
    auto counter = sys->spawn<Counter>(Counter{.probe = &probe, .until = 300}, {}).value();
    for (int i = 0; i < 300; ++i) QVERIFY(counter.cast(i));  // nobody drains meanwhile
    QVERIFY(counter.wait(kTimeout));
    sys->shutdown();
    std::vector<obs::Event> ev;
    small.drain(ev, true);
    QVERIFY(small.dropped() > 0);
    // Everything was either delivered or counted. (Each observer got its own present: a
    // runtime_info, as no actor was alive yet.)
    QCOMPARE(ev.size() + small.dropped(), all.count.load());
  }

  void a_failed_spawn_is_observed_as_spawned_then_failed_with_the_text() {
    auto sys = make_system();
    obs::EventCollector collector;
    sys->attach(collector);
    auto r = sys->spawn<Refuses>({.name = "refuser"});
    QVERIFY(!r);
    sys->shutdown();
    const auto ev = drain_all(collector);
    auto spawned = std::find_if(ev.begin(), ev.end(), [](const obs::Event& e) { return e.kind == obs::EventKind::spawned; });
    QVERIFY(spawned != ev.end());
    QCOMPARE(spawned->name, std::string("refuser"));
    const int failed = index_of(ev, obs::EventKind::failed, spawned->actor);
    QVERIFY(failed > static_cast<int>(spawned - ev.begin()));
    QCOMPARE(ev[static_cast<std::size_t>(failed)].text, std::string("no config file"));
    obs::SystemState state;
    for (const auto& e : ev) state.apply(e);
    QVERIFY(state.registry().empty());
    QCOMPARE(state.actor(spawned->actor)->exit_kind, std::optional<as::ExitKind>(as::ExitKind::failed));
  }

  void groups_and_timers_are_observed_as_they_change_and_in_the_present() {
    auto sys = make_system();
    Probe probe;
    auto member = sys->spawn<Counter>(Counter{.probe = &probe, .until = 3}, {}).value();
    auto other = sys->spawn<Boss>({}).value();
    sys->groups().join("workers", {member, other});
    as::TimerHandle idle = other.send_after(1h, [] { return 0; });
    obs::EventCollector collector;  // attached now: the membership and the timer are the present
    sys->attach(collector);
    QVERIFY(sys->groups().join_scoped("web", "front", member) == 1);
    as::TimerHandle ticks = member.send_interval(10ms, [] { return 1; });
    QVERIFY(member.wait(kTimeout));  // three ticks, then it stops (and leaves its groups)
    QVERIFY(idle.cancel());
    sys->shutdown();
    const auto ev = drain_all(collector);

    auto count = [&](obs::EventKind k, as::ActorId a, std::string_view name) {
      return std::count_if(ev.begin(), ev.end(), [&](const obs::Event& e) {
        return e.kind == k && e.actor == a && (name.empty() || e.name == name);
      });
    };
    QCOMPARE(count(obs::EventKind::group_joined, member.id(), "workers"), 1);  // from the present
    QCOMPARE(count(obs::EventKind::group_joined, member.id(), "front"), 1);
    QCOMPARE(count(obs::EventKind::group_left, member.id(), ""), 2);  // both, when it stopped
    QCOMPARE(count(obs::EventKind::timer_started, other.id(), "after"), 1);
    QCOMPARE(count(obs::EventKind::timer_cancelled, other.id(), "after"), 1);
    QCOMPARE(count(obs::EventKind::timer_started, member.id(), "interval"), 1);
    QVERIFY(count(obs::EventKind::timer_fired, member.id(), "interval") >= 3);
    for (const auto& e : ev) {
      if (e.kind == obs::EventKind::timer_fired) {
        QVERIFY(e.time >= e.scheduled);  // never early
        if (is_manual(*sys)) QCOMPARE(e.time, e.scheduled);  // and exact on the virtual clock
      }
      if (e.kind == obs::EventKind::timer_started && e.actor == member.id()) QCOMPARE(e.period, as::Duration(10ms));
    }
    // The interval ended with its target.
    QCOMPARE(count(obs::EventKind::timer_cancelled, member.id(), "interval"), 1);

    obs::SystemState state;
    for (const auto& e : ev) state.apply(e);
    QVERIFY(state.timers().empty());
    QVERIFY(state.groups_of(member.id()).empty());
    QCOMPARE(state.groups_of(other.id()).size(), 0u);  // the system shut down: everyone left
    (void)ticks;
  }

  void a_bounded_mailbox_is_observed_with_its_capacity_policy_and_every_loss() {
    // Declared before the System, so that they outlive the handlers waiting on them if a check fails.
    Probe probe;
    Gate gate, gate2;
    auto sys = make_system();
    LiveFold fold(*sys);
    obs::SystemState& state = fold.state;
    auto bounded = [](std::uint32_t capacity, as::Overflow overflow) {
      as::SpawnOptions o;
      o.mailbox_capacity = capacity;
      o.overflow = overflow;
      return o;
    };
    // Each holds its first message (1) in the handler until its gate opens; what comes meanwhile waits.
    auto dropper = sys->spawn<Gated>(Gated{.probe = &probe, .gate = &gate}, bounded(2, as::Overflow::drop_newest))
                       .value();
    auto refuser = sys->spawn<Gated>(Gated{.probe = &probe, .gate = &gate2}, bounded(1, as::Overflow::reject)).value();
    auto open = sys->spawn<Boss>({}).value();
    QVERIFY(dropper.cast(1));
    QVERIFY(refuser.cast(1));
    QVERIFY(probe.wait_count(*sys, "started 1", 2));
    for (int i = 2; i <= 5; ++i) QVERIFY(dropper.cast(i));  // 2 and 3 wait; 4 and 5 are dropped
    QVERIFY(refuser.cast(2));
    QVERIFY(!refuser.cast(3));
    QVERIFY(!refuser.cast(4));
    fold();
    fold();

    const obs::ActorRecord* d = state.actor(dropper.id());
    QVERIFY(d != nullptr);
    QCOMPARE(d->mailbox_capacity, 2u);
    QCOMPARE(d->overflow, as::Overflow::drop_newest);
    QCOMPARE(d->mailbox_depth, 2u);
    QCOMPARE(d->dropped, 2u);
    QCOMPARE(d->rejected, 0u);
    const obs::ActorRecord* r = state.actor(refuser.id());
    QCOMPARE(r->mailbox_capacity, 1u);
    QCOMPARE(r->overflow, as::Overflow::reject);
    QCOMPARE(r->rejected, 2u);
    QCOMPARE(r->dropped, 0u);
    QCOMPARE(state.actor(open.id())->mailbox_capacity, 0u);

    // An observer attaching now hears the bounded mailboxes with the present, right after each
    // one's spawn, and nothing for the unbounded one.
    obs::EventCollector late;
    sys->attach(late);
    sys->detach(late);
    const auto present = drain_all(late);
    const int sd = index_of(present, obs::EventKind::spawned, dropper.id());
    const int md = index_of(present, obs::EventKind::mailbox_configured, dropper.id());
    QVERIFY(sd >= 0 && md == sd + 1);
    QCOMPARE(present[static_cast<std::size_t>(md)].thread, 2u);
    QCOMPARE(present[static_cast<std::size_t>(md)].name, std::string("drop_newest"));
    QCOMPARE(present[static_cast<std::size_t>(index_of(present, obs::EventKind::mailbox_configured, refuser.id()))].name,
             std::string("reject"));
    QCOMPARE(index_of(present, obs::EventKind::mailbox_configured, open.id()), -1);
    obs::SystemState replayed;
    for (const auto& e : present) replayed.apply(e);
    QCOMPARE(replayed.actor(dropper.id())->mailbox_capacity, 2u);
    QCOMPARE(replayed.actor(refuser.id())->overflow, as::Overflow::reject);

    gate.open();
    gate2.open();
    QVERIFY(probe.wait_for(*sys, "handled 3"));
    sys->shutdown();
  }

  void folding_a_live_stream_rebuilds_the_tree_statuses_names_failures_and_counters() {
    auto sys = make_system();
    LiveFold fold(*sys, {.interest = {.messages = true}});
    obs::SystemState& state = fold.state;

    // A supervisor that does not stop when a child fails: Boss has no handle_supervisor_event,
    // so use a tolerant one.
    struct Tolerant {
      using Message = int;
      void handle(as::Context<Tolerant>&, int, std::monostate&) {}
      void handle_supervisor_event(as::Context<Tolerant>&, const as::SupervisionEvent&, std::monostate&) {}
    };
    auto root = sys->spawn<Tolerant>({.name = "root"}).value();
    auto ok1 = sys->spawn_linked<Worker>(root, {.name = "ok1"}).value();
    auto ok2 = sys->spawn_linked<Worker>(root, {}).value();
    auto bad = sys->spawn_linked<Worker>(root, {.name = "bad"}).value();
    fold();
    for (int i = 0; i < 7; ++i) QVERIFY(ok1.cast(Add{1}));
    QVERIFY(bad.cast(Crash{}));
    QVERIFY(bad.wait(kTimeout));
    // A call is handled after the casts before it, so its reply means all seven were handled;
    // stopping it then makes its counters final.
    QCOMPARE(ok1.call(as::rpc<Total>, kTimeout).get().value(), 7);
    QVERIFY(ok1.stop_and_wait(kTimeout, "enough"));
    // Nothing else waits for ok2 to start (on qt its post_start runs on another thread whenever
    // that thread gets to it); a call is handled only after post_start, so its reply means ok2's
    // `started` has been emitted.
    QCOMPARE(ok2.call(as::rpc<Total>, kTimeout).get().value(), 0);
    fold();
    fold();  // a second pass releases what the first one held back

    const obs::ActorRecord* r = state.actor(root.id());
    QVERIFY(r != nullptr);
    QCOMPARE(r->name, std::string("root"));
    QCOMPARE(r->children, (std::vector<as::ActorId>{ok1.id(), ok2.id(), bad.id()}));
    QCOMPARE(r->child_failures, 1u);
    QCOMPARE(r->recent_failures.size(), 1u);
    QCOMPARE(r->recent_failures.front().error, std::string("boom"));
    QCOMPARE(state.actor(bad.id())->status, as::ActorStatus::stopped);
    QCOMPARE(state.actor(bad.id())->exit_kind, std::optional<as::ExitKind>(as::ExitKind::failed));
    QCOMPARE(state.actor(ok2.id())->status, as::ActorStatus::running);
    QCOMPARE(state.actor(ok1.id())->handled, 8u);  // seven adds and the call
    QCOMPARE(state.actor(ok1.id())->exit_reason, std::string("enough"));
    QCOMPARE(state.alive_count(), 2u);
    QCOMPARE(state.registry().size(), 1u);  // "ok1" and "bad" left with their actors
    QCOMPARE(state.registry().at("root"), root.id());
    QCOMPARE(state.roots(), std::vector<as::ActorId>{root.id()});
    QCOMPARE(state.dropped(), 0u);
  }
};

QTEST_GUILESS_MAIN(TestObserve)
#include "tst_observe.moc"
