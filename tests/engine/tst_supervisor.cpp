// The Supervisor on every runtime: Erlang's strategies, restart types and intensity, backoff (exact
// on the manual runtime's virtual clock), ordered shutdown with per-child timeouts, dynamic
// children and simple_one_for_one, escalation, the events it emits, and a restart storm.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

/// A child that reports its starts (pre_start) and stops (post_stop) as "start <tag>" / "stop <tag>". Message
/// 0 makes it fail, 1 stop normally, 2 ignore a stop (its post_stop then waits an hour).
struct Kid {
  using Message = int;
  Probe* probe = nullptr;
  std::string tag;
  bool stubborn = false;
  // Recorded in pre_start, which runs in the supervisor's spawn: in start order on every runtime.
  std::monostate pre_start(as::Context<Kid>&) {
    probe->record("start " + tag);
    return {};
  }
  void handle(as::Context<Kid>& ctx, int m, std::monostate&) {
    if (m == 0) throw std::runtime_error("boom in " + tag);
    if (m == 1) ctx.stop("done");
  }
  as::Task<> post_stop(as::Context<Kid>&, std::monostate&) {
    probe->record("stop " + tag);
    if (stubborn) co_await as::sleep(1h);
  }
};

as::ChildSpec kid(Probe& probe, const std::string& id, as::Restart restart = as::Restart::permanent) {
  as::ChildSpec spec = as::child(id, Kid{.probe = &probe, .tag = id}, {.name = id});
  spec.restart = restart;
  return spec;
}

/// A child whose starts fail from the `fail_from`-th on (counted across restarts).
struct Fragile {
  using Message = int;
  std::atomic<int>* starts = nullptr;
  int fail_from = 2;
  std::monostate pre_start(as::Context<Fragile>&) {
    if (starts->fetch_add(1) + 1 >= fail_from) throw std::runtime_error("cannot open the database");
    return {};
  }
  void handle(as::Context<Fragile>&, int, std::monostate&) {
    throw std::runtime_error("lost the connection");
  }
};

/// Fails in post_start until it has started `calm_after` times, then reports "calm".
struct Storm {
  using Message = int;
  Probe* probe = nullptr;
  std::atomic<int>* starts = nullptr;
  int calm_after = 0;
  void post_start(as::Context<Storm>&, std::monostate&) {
    if (starts->fetch_add(1) + 1 < calm_after) throw std::runtime_error("storm");
    probe->record("calm");
  }
  void handle(as::Context<Storm>&, int, std::monostate&) {}
};

/// A parent that records what it hears about its children (and never stops because of it).
struct Listener {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Listener>&, int, std::monostate&) {}
  void handle_supervisor_event(as::Context<Listener>&, const as::SupervisionEvent& e, std::monostate&) {
    if (auto* f = e.get<as::ActorFailed>()) probe->record("failed: " + f->error);
  }
};

/// Reports "tick" after a delay: a way to wait for time to pass on a real runtime without sleeping.
struct Alarm {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Alarm>&, int, std::monostate&) { probe->record("tick"); }
};

/// A simple_one_for_one job: started with what it should do, it reports "job <what>"; any message makes it
/// fail.
struct PoolJob {
  using Message = int;
  using Arguments = std::string;
  using State = std::string;
  Probe* probe = nullptr;
  std::string pre_start(as::Context<PoolJob>&, std::string what) { return what; }
  void post_start(as::Context<PoolJob>&, std::string& what) { probe->record("job " + what); }
  void handle(as::Context<PoolJob>&, int, std::string&) { throw std::runtime_error("job failed"); }
};

/// Keeps every event the engine emits.
class Capture final : public as::observe::Observer {
 public:
  as::observe::Interest interest() const noexcept override { return {}; }
  void on_event(const as::observe::Event& e) noexcept override {
    std::lock_guard lk(m_);
    events_.push_back(e);
  }
  std::vector<as::observe::Event> of(as::observe::EventKind kind) const {
    std::lock_guard lk(m_);
    std::vector<as::observe::Event> out;
    for (const auto& e : events_)
      if (e.kind == kind) out.push_back(e);
    return out;
  }

 private:
  mutable std::mutex m_;
  std::vector<as::observe::Event> events_;
};

as::ActorRef<int> named(as::System& sys, const std::string& name) {
  return sys.where_is<int>(name).value();
}

/// Fails the child registered as `name` and waits until a new actor holds the name.
bool fail_and_wait_for_restart(as::System& sys, Probe& probe, const std::string& name,
                               std::size_t starts_before) {
  if (!named(sys, name).cast(0)) return false;
  return probe.wait_count(sys, "start " + name, starts_before + 1);
}

/// Waits until every one of `events` has been recorded (children start on their own threads, in
/// any order, on the qt runtime).
bool wait_all(as::System& sys, Probe& probe, std::vector<std::string> events) {
  return probe.wait_until(sys, [&](const std::vector<std::string>& ev) {
    return std::all_of(events.begin(), events.end(),
                       [&](const std::string& e) { return std::find(ev.begin(), ev.end(), e) != ev.end(); });
  });
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : ", ") + l;
  return out;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class TestSupervisor : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void one_for_one_restarts_only_the_child_that_failed() {
    Probe probe;
    auto sys = make_system();
    auto sup =
        as::start_supervisor(*sys, {.children = {kid(probe, "a"), kid(probe, "b"), kid(probe, "c")}}).value();
    QVERIFY(probe.wait_for(*sys, "start c"));
    const as::ActorId a = named(*sys, "a").id(), b = named(*sys, "b").id(), c = named(*sys, "c").id();
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "b", 1));
    QCOMPARE(named(*sys, "a").id(), a);
    QCOMPARE(named(*sys, "c").id(), c);
    QVERIFY(named(*sys, "b").id() != b);
    QCOMPARE(probe.count("stop a") + probe.count("stop c"), std::size_t{0});
    const auto children = sup.which_children().get().value();
    QCOMPARE(children.size(), std::size_t{3});
    QCOMPARE(children[1].id, std::string("b"));
    QCOMPARE(children[1].restarts, std::uint32_t{1});
    QCOMPARE(children[1].actor.id(), named(*sys, "b").id());
    QCOMPARE(children[0].restarts, std::uint32_t{0});
  }

  void one_for_all_shuts_the_others_down_in_reverse_order_then_restarts_all_in_order() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.strategy = as::Strategy::one_for_all,
                                           .children = {kid(probe, "a"), kid(probe, "b"), kid(probe, "c")}})
                   .value();
    QVERIFY(wait_all(*sys, probe, {"start a", "start b", "start c"}));
    const as::ActorId a = named(*sys, "a").id(), c = named(*sys, "c").id();
    QVERIFY(named(*sys, "b").cast(0));
    QVERIFY(probe.wait_count(*sys, "start c", 2));
    const auto ev = probe.events();
    const std::vector<std::string> after(ev.begin() + 3, ev.end());
    const std::vector<std::string> expected{"stop c", "stop a", "start a", "start b", "start c"};
    QVERIFY2(after == expected, joined(after).c_str());
    QVERIFY(named(*sys, "a").id() != a);
    QVERIFY(named(*sys, "c").id() != c);
    const auto children = sup.which_children().get().value();
    for (const as::ChildInfo& child : children) QCOMPARE(child.status, as::ChildInfo::Status::running);
  }

  void rest_for_one_restarts_the_child_and_the_ones_started_after_it() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.strategy = as::Strategy::rest_for_one,
                                           .children = {kid(probe, "a"), kid(probe, "b"), kid(probe, "c")}})
                   .value();
    QVERIFY(wait_all(*sys, probe, {"start a", "start b", "start c"}));
    const as::ActorId a = named(*sys, "a").id();
    QVERIFY(named(*sys, "b").cast(0));
    QVERIFY(probe.wait_count(*sys, "start c", 2));
    const auto ev = probe.events();
    const std::vector<std::string> after(ev.begin() + 3, ev.end());
    const std::vector<std::string> expected{"stop c", "start b", "start c"};
    QVERIFY2(after == expected, joined(after).c_str());
    QCOMPARE(named(*sys, "a").id(), a);
    QVERIFY(sup.is_alive());
  }

  void a_transient_child_is_restarted_after_a_failure_but_not_after_a_normal_stop() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "t", as::Restart::transient)}}).value();
    QVERIFY(probe.wait_for(*sys, "start t"));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "t", 1));
    auto current = named(*sys, "t");
    QVERIFY(current.cast(1));
    QVERIFY(current.wait(kTimeout));
    const auto children = sup.which_children().get().value();  // queued after the child's exit event
    QCOMPARE(children.size(), std::size_t{1});
    QCOMPARE(children[0].status, as::ChildInfo::Status::terminated);
    QCOMPARE(probe.count("start t"), std::size_t{2});
    QVERIFY(!sys->where_is("t"));
  }

  void a_transient_child_that_is_killed_is_restarted() {
    // A kill is an abnormal exit. (The child sets its exit result just after it tells the
    // supervisor, so the supervisor reads how it ended from the event, not from the child.)
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "t", as::Restart::transient)}}).value();
    QVERIFY(probe.wait_for(*sys, "start t"));
    named(*sys, "t").kill();
    QVERIFY(probe.wait_count(*sys, "start t", 2));
    QVERIFY(sup.is_alive());
  }

  void a_temporary_child_is_never_restarted_and_its_spec_goes() {
    Probe probe;
    auto sys = make_system();
    auto sup =
        as::start_supervisor(*sys, {.children = {kid(probe, "p"), kid(probe, "tmp", as::Restart::temporary)}})
            .value();
    QVERIFY(probe.wait_for(*sys, "start tmp"));
    auto tmp = named(*sys, "tmp");
    QVERIFY(tmp.cast(0));
    QVERIFY(tmp.wait(kTimeout));
    const auto children = sup.which_children().get().value();
    QCOMPARE(children.size(), std::size_t{1});
    QCOMPARE(children[0].id, std::string("p"));
    QCOMPARE(probe.count("start tmp"), std::size_t{1});
  }

  void a_permanent_child_is_restarted_even_after_a_normal_stop() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "p")}}).value();
    QVERIFY(probe.wait_for(*sys, "start p"));
    QVERIFY(named(*sys, "p").cast(1));
    QVERIFY(probe.wait_count(*sys, "start p", 2));
    QVERIFY(sup.is_alive());
  }

  void a_restarted_child_keeps_its_id_and_name_and_the_old_reference_sees_it_stopped() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "db")}}).value();
    QVERIFY(probe.wait_for(*sys, "start db"));
    auto old = named(*sys, "db");
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "db", 1));
    QVERIFY(old.wait(kTimeout));
    QCOMPARE(old.status(), as::ActorStatus::stopped);
    QVERIFY(!old.cast(5));
    const auto children = sup.which_children().get().value();  // answered once the restart is done
    auto fresh = named(*sys, "db");
    QVERIFY(fresh.id() != old.id());
    QCOMPARE(fresh.supervisor(), as::ActorCell(sup));
    QCOMPARE(children[0].id, std::string("db"));
    QCOMPARE(children[0].actor, as::ActorCell(fresh));
  }

  void exceeding_the_intensity_shuts_the_children_down_and_escalates_with_the_reason() {
    Probe probe;
    auto sys = make_system();
    auto top = sys->spawn(Listener{.probe = &probe}, {}).value();
    auto sup =
        as::start_supervisor(
            *sys, top, {.max_restarts = 2, .period = 1h, .children = {kid(probe, "w"), kid(probe, "x")}},
            {.name = "team"})
            .value();
    QVERIFY(probe.wait_for(*sys, "start x"));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 1));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 2));
    QVERIFY(named(*sys, "w").cast(0));
    QVERIFY(sup.wait(kTimeout));
    QCOMPARE(sup.exit()->kind, as::ExitKind::failed);
    const std::string reason = sup.exit()->reason;
    QVERIFY2(contains(reason, "supervisor 'team' gave up: 3 restarts within 3600 s exceed its limit of 2") &&
                 contains(reason, "child 'w' failed: boom in w"),
             reason.c_str());
    QVERIFY(probe.wait_for(*sys, "failed: " + reason));
    QVERIFY(probe.contains("stop x"));  // shut down before the supervisor failed
    QVERIFY(!sys->where_is("x"));
    QCOMPARE(probe.count("start w"), std::size_t{3});
  }

  void a_quiet_period_resets_the_intensity() {
    Probe probe;
    auto sys = make_system();
    const as::Duration period = is_manual(*sys) ? as::Duration(1s) : as::Duration(300ms);
    auto sup =
        as::start_supervisor(*sys, {.max_restarts = 2, .period = period, .children = {kid(probe, "w")}})
            .value();
    QVERIFY(probe.wait_for(*sys, "start w"));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 1));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 2));
    // Let more than the period pass: an alarm set now rings after it.
    auto alarm = sys->spawn(Alarm{.probe = &probe}, {}).value();
    (void)alarm.send_after(period + period / 2, 1);
    QVERIFY(probe.wait_for(*sys, "tick"));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 3));
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 4));
    QVERIFY(sup.is_alive());
  }

  void a_failing_pre_start_during_a_restart_counts_against_the_intensity() {
    Probe probe;
    auto sys = make_system();
    std::atomic<int> starts{0};
    auto top = sys->spawn(Listener{.probe = &probe}, {}).value();
    auto sup =
        as::start_supervisor(*sys, top,
                             {.max_restarts = 3,
                              .period = 1h,
                              .children = {as::child("db", Fragile{.starts = &starts, .fail_from = 2}, {})}})
            .value();
    auto children = sup.which_children().get().value();
    QVERIFY(children[0].actor.as<int>()->cast(1));
    QVERIFY(sup.wait(kTimeout));
    const std::string reason = sup.exit()->reason;
    QVERIFY2(contains(reason, "4 restarts within 3600 s exceed its limit of 3") &&
                 contains(reason, "child 'db' could not start") &&
                 contains(reason, "cannot open the database"),
             reason.c_str());
    QCOMPARE(starts.load(), 4);  // the first start, then three restarts that failed; the fourth was refused
  }

  void a_supervisor_that_gave_up_is_restarted_by_its_own_supervisor() {
    Probe probe;
    auto sys = make_system();
    as::SupervisorSpec inner{.max_restarts = 0, .period = 1h, .children = {kid(probe, "leaf")}};
    auto outer =
        as::start_supervisor(*sys, {.children = {as::supervisor_child("inner", inner, {.name = "inner"})}})
            .value();
    QVERIFY(probe.wait_for(*sys, "start leaf"));
    auto first_inner = sys->where_is("inner").value();
    QVERIFY(fail_and_wait_for_restart(*sys, probe, "leaf", 1));
    QVERIFY(first_inner.wait(kTimeout));
    QCOMPARE(first_inner.exit()->kind, as::ExitKind::failed);
    auto children = outer.which_children().get().value();
    QCOMPARE(children[0].id, std::string("inner"));
    QCOMPARE(children[0].kind, as::ChildKind::supervisor);
    QCOMPARE(children[0].restarts, std::uint32_t{1});
    QCOMPARE(children[0].shutdown, as::Shutdown::infinity());
    QVERIFY(children[0].actor != first_inner);
  }

  void backoff_delays_double_up_to_the_maximum() {
    Probe probe;
    auto sys = make_system();
    const as::Backoff backoff{.min = 100ms, .max = 400ms, .reset_after = 1h, .jitter = 0};
    auto sup =
        as::start_supervisor(
            *sys, {.max_restarts = 100, .period = 1h, .backoff = backoff, .children = {kid(probe, "w")}})
            .value();
    QVERIFY(probe.wait_for(*sys, "start w"));
    const std::vector<as::Duration> expected{100ms, 200ms, 400ms, 400ms};
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const as::TimePoint failed_at = sys->runtime().now();
      QVERIFY(named(*sys, "w").cast(0));
      if (is_manual(*sys)) {
        auto& manual = static_cast<as::ManualRuntime&>(sys->runtime());
        manual.run_until_idle();
        // Waiting on its backoff, the supervisor still answers.
        const auto children = sup.which_children().get().value();
        QCOMPARE(children[0].status, as::ChildInfo::Status::restarting);
        manual.advance(expected[i] - 1ms);
        QCOMPARE(probe.count("start w"), i + 1);
        manual.advance(1ms);
        QCOMPARE(probe.count("start w"), i + 2);
      } else {
        QVERIFY(probe.wait_count(*sys, "start w", i + 2));
        QVERIFY2(sys->runtime().now() - failed_at >= expected[i], "restarted before its backoff delay");
      }
    }
  }

  void backoff_with_jitter_stays_between_its_bounds() {
    const as::Backoff b{.min = 10ms, .max = 1s, .jitter = 0.5};
    for (std::uint32_t attempt = 1; attempt < 40; ++attempt)
      for (double r : {0.0, 0.25, 0.5, 0.999}) {
        const as::Duration d = b.delay(attempt, r);
        QVERIFY(d >= b.min && d <= b.max);
      }
    QCOMPARE(b.delay(1, 0.0), as::Duration(10ms));
    QCOMPARE(b.delay(3, 0.0), as::Duration(40ms));
    QCOMPARE(b.delay(3, 0.5), as::Duration(30ms));  // a quarter of 40 ms taken off
    QCOMPARE(b.delay(30, 0.0), as::Duration(1s));
  }

  void shutdown_goes_in_reverse_start_order_and_kills_a_child_that_ignores_its_stop() {
    Probe probe;
    auto sys = make_system();
    as::ChildSpec stubborn =
        as::child("s", Kid{.probe = &probe, .tag = "s", .stubborn = true}, {.name = "s"});
    stubborn.shutdown = as::Shutdown::after(50ms);
    as::ChildSpec brutal = kid(probe, "k");
    brutal.shutdown = as::Shutdown::brutal_kill();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "a"), stubborn, brutal, kid(probe, "z")}})
                   .value();
    QVERIFY(wait_all(*sys, probe, {"start a", "start s", "start k", "start z"}));
    auto s = named(*sys, "s");
    QVERIFY(sup.stop_and_wait(kTimeout));
    const auto ev = probe.events();
    const std::vector<std::string> stops(ev.begin() + 4, ev.end());
    const std::vector<std::string> expected{"stop z", "stop s", "stop a"};  // k was killed: no post_stop
    QVERIFY2(stops == expected, joined(stops).c_str());
    QCOMPARE(s.exit()->kind, as::ExitKind::killed);
    QCOMPARE(sys->actor_count(), std::size_t{0});
  }

  void dynamic_children_can_be_started_terminated_restarted_and_deleted() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "a")}}).value();
    using K = as::SupervisorError::Kind;

    auto b = sup.start_child(kid(probe, "b")).get().value();
    QVERIFY(b.has_value());
    QVERIFY(probe.wait_for(*sys, "start b"));
    QCOMPARE(b->supervisor(), as::ActorCell(sup));
    QCOMPARE(sup.start_child(kid(probe, "b")).get().value().error().kind(), K::already_started);
    QCOMPARE(sup.delete_child("b").get().value().error().kind(), K::running);
    QCOMPARE(sup.restart_child("b").get().value().error().kind(), K::running);

    QVERIFY(sup.terminate_child("b").get().value().has_value());
    QVERIFY(probe.contains("stop b"));
    QVERIFY(!b->is_alive());
    auto counts = sup.count_children().get().value();
    QCOMPARE(counts.specs, std::size_t{2});
    QCOMPARE(counts.active, std::size_t{1});
    QCOMPARE(counts.workers, std::size_t{2});
    QCOMPARE(sup.start_child(kid(probe, "b")).get().value().error().kind(), K::already_present);

    auto again = sup.restart_child("b").get().value();
    QVERIFY(again.has_value());
    QVERIFY(*again != *b);
    QVERIFY(probe.wait_count(*sys, "start b", 2));
    QVERIFY(sup.terminate_child("b").get().value().has_value());
    QVERIFY(sup.delete_child("b").get().value().has_value());
    QCOMPARE(sup.which_children().get().value().size(), std::size_t{1});

    const auto unknown = sup.terminate_child("nobody").get().value();
    QCOMPARE(unknown.error().kind(), K::unknown_child);
    QVERIFY(contains(unknown.error().what(), "no child 'nobody'"));
    QCOMPARE(sup.start_child_with(1).get().value().error().kind(), K::bad_request);
  }

  void a_child_that_cannot_start_is_refused_with_the_reason() {
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "a")}}).value();
    const auto taken = sup.start_child(kid(probe, "a2")).get().value();  // fine
    QVERIFY(taken.has_value());
    as::ChildSpec clash = as::child("clash", Kid{.probe = &probe, .tag = "clash"}, {.name = "a"});
    const auto refused = sup.start_child(clash).get().value();
    QCOMPARE(refused.error().kind(), as::SupervisorError::Kind::start_failed);
    QVERIFY2(contains(refused.error().what(), "child 'clash' failed to start") &&
                 contains(refused.error().what(), "already registered"),
             refused.error().what());
    QCOMPARE(sup.which_children().get().value().size(), std::size_t{2});
  }

  void a_spawn_fails_when_an_initial_child_cannot_start_and_says_which() {
    Probe probe;
    auto sys = make_system();
    std::atomic<int> starts{0};
    auto refused = as::start_supervisor(
        *sys,
        {.children = {kid(probe, "a"), as::child("db", Fragile{.starts = &starts, .fail_from = 1}, {})}});
    QVERIFY(!refused);
    QVERIFY2(contains(refused.error().what(), "child 'db' failed to start") &&
                 contains(refused.error().what(), "cannot open the database"),
             refused.error().what());
    auto a = sys->where_is("a");
    QVERIFY(!a || a->wait(kTimeout));  // the child already started does not outlive the refusal
    auto bad = as::start_supervisor(*sys, {.children = {kid(probe, "x"), kid(probe, "x")}});
    QVERIFY(!bad);
    QVERIFY(contains(bad.error().what(), "two child specs have the id 'x'"));
  }

  void simple_one_for_one_starts_children_from_its_template_with_arguments() {
    Probe probe;
    auto sys = make_system();
    as::ChildSpec tmpl = as::child("job", PoolJob{.probe = &probe}, {}, std::string("default"));
    tmpl.restart = as::Restart::transient;
    auto pool = as::start_supervisor(*sys, {.strategy = as::Strategy::simple_one_for_one, .children = {tmpl}})
                    .value();
    QCOMPARE(pool.which_children().get().value().size(), std::size_t{0});
    auto one = pool.start_child_with(std::string("one")).get().value().value();
    auto two = pool.start_child_with(std::string("two")).get().value().value();
    // Each child's post_start runs on its own thread (qt places them on different hosts): wait for
    // both, in either order.
    QVERIFY(probe.wait_for(*sys, "job two"));
    QVERIFY(probe.wait_for(*sys, "job one"));
    auto children = pool.which_children().get().value();
    QCOMPARE(children.size(), std::size_t{2});
    QCOMPARE(children[0].id, std::string("job#1"));
    QCOMPARE(children[1].id, std::string("job#2"));

    const auto wrong = pool.start_child_with(42).get().value();
    QCOMPARE(wrong.error().kind(), as::SupervisorError::Kind::bad_request);
    QVERIFY2(contains(wrong.error().what(), "start_child_with"), wrong.error().what());
    QCOMPARE(pool.start_child(kid(probe, "x")).get().value().error().kind(),
             as::SupervisorError::Kind::bad_request);

    QVERIFY(one.as<int>()->cast(1));  // fails: a transient child is restarted with its own arguments
    QVERIFY(probe.wait_count(*sys, "job one", 2));
    QVERIFY(pool.terminate_child("job#2").get().value().has_value());
    children = pool.which_children().get().value();
    QCOMPARE(children.size(), std::size_t{1});
    QCOMPARE(children[0].id, std::string("job#1"));
    QCOMPARE(children[0].restarts, std::uint32_t{1});
    QVERIFY(!two.is_alive());
  }

  void a_supervisor_is_an_ordinary_actor_that_can_be_monitored_and_join_groups() {
    struct Watcher {
      using Message = int;
      Probe* probe = nullptr;
      void handle(as::Context<Watcher>&, int, std::monostate&) {}
      void handle_supervisor_event(as::Context<Watcher>&, const as::SupervisionEvent& e, std::monostate&) {
        if (auto* d = e.get<as::ActorDown>())
          probe->record("down " + d->actor.name() + ": " + d->exit.reason);
      }
    };
    Probe probe;
    auto sys = make_system();
    auto sup = as::start_supervisor(*sys, {.children = {kid(probe, "w")}}, {.name = "team"}).value();
    auto watcher = sys->spawn(Watcher{.probe = &probe}, {}).value();
    QVERIFY(watcher.monitor(sup));
    sys->groups().join("supervisors", sup);
    QCOMPARE(sys->groups().members("supervisors").size(), std::size_t{1});
    sup.stop("maintenance");
    QVERIFY(probe.wait_for(*sys, "down team: maintenance"));
    QVERIFY(probe.contains("stop w"));  // its child was shut down first
    QVERIFY(sys->groups().members("supervisors").empty());
  }

  void the_supervisor_is_observable_configured_restarts_and_giving_up() {
    namespace obs = as::observe;
    Probe probe;
    auto sys = make_system();
    auto top = sys->spawn(Listener{.probe = &probe}, {}).value();
    as::ChildSpec w = kid(probe, "w");
    w.shutdown = as::Shutdown::after(250ms);
    auto sup =
        as::start_supervisor(*sys, top, {.max_restarts = 1, .period = 1h, .children = {w}}, {.name = "team"})
            .value();
    QVERIFY(probe.wait_for(*sys, "start w"));
    Capture capture;
    sys->attach(capture);  // after the start: the configuration arrives with the present
    const auto configured = capture.of(obs::EventKind::supervisor_configured);
    QCOMPARE(configured.size(), std::size_t{1});
    QCOMPARE(configured[0].actor, sup.id());
    QCOMPARE(configured[0].name, std::string("one_for_one"));
    QCOMPARE(configured[0].thread, std::uint32_t{1});
    QCOMPARE(configured[0].period, as::Duration(1h));
    const as::ActorId old = named(*sys, "w").id();
    QCOMPARE(configured[0].text, "child\tw\tpermanent\t250\tworker\t" + std::to_string(old.pid));

    QVERIFY(fail_and_wait_for_restart(*sys, probe, "w", 1));
    {
      (void)sup.which_children().get();  // answered after the restart
      Capture late;                      // attached after the restart: hears the new actor's pid
      sys->attach(late);
      const auto now = late.of(obs::EventKind::supervisor_configured);
      sys->detach(late);
      QCOMPARE(now.size(), std::size_t{1});
      QCOMPARE(now[0].text, "child\tw\tpermanent\t250\tworker\t" + std::to_string(named(*sys, "w").id().pid));
    }
    QVERIFY(named(*sys, "w").cast(0));
    QVERIFY(sup.wait(kTimeout));
    sys->detach(capture);
    const auto restarted = capture.of(obs::EventKind::child_restarted);
    QCOMPARE(restarted.size(), std::size_t{1});
    QCOMPARE(restarted[0].name, std::string("w"));
    QCOMPARE(restarted[0].peer, old);
    QCOMPARE(restarted[0].thread, std::uint32_t{1});
    QVERIFY(!restarted[0].failed);
    QVERIFY2(contains(restarted[0].text, "child 'w' failed: boom in w"), restarted[0].text.c_str());
    const auto gave_up = capture.of(obs::EventKind::supervisor_gave_up);
    QCOMPARE(gave_up.size(), std::size_t{1});
    QCOMPARE(gave_up[0].actor, sup.id());
    QCOMPARE(gave_up[0].thread, std::uint32_t{2});
    QCOMPARE(gave_up[0].text, sup.exit()->reason);
  }

  void a_restart_storm_of_ten_thousand_restarts_ends_cleanly() {
    Probe probe;
    auto sys = make_system();
    std::atomic<int> starts{0};
    constexpr int kStarts = 10'001;  // 10,000 restarts
    auto sup =
        as::start_supervisor(
            *sys,
            {.max_restarts = 1'000'000,
             .period = 1h,
             .children = {as::child("storm", Storm{.probe = &probe, .starts = &starts, .calm_after = kStarts},
                                    {.name = "storm"})}})
            .value();
    QVERIFY(probe.wait_for(*sys, "calm", 120s));
    QCOMPARE(starts.load(), kStarts);
    QCOMPARE(sup.which_children().get().value()[0].restarts, std::uint32_t{10'000});
    QVERIFY(sup.stop_and_wait(kTimeout));
    QVERIFY(sys->shutdown(kTimeout));
    QCOMPARE(sys->actor_count(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestSupervisor)
#include "tst_supervisor.moc"
