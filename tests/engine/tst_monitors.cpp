// Monitors on every runtime (Erlang-style, as ractor): any number of actors hear that another one
// exited, with how and why, in addition to its one supervisor; unmonitor silences them.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

std::string label(const as::ActorCell& a) { return a.name().empty() ? a.id().to_string() : a.name(); }

// Records what it hears. A message is a marker: once it is recorded, every supervision event pushed
// before it has been handled too (the supervision lane outranks messages).
struct Observer {
  using Message = int;
  Probe* probe = nullptr;
  std::string me;
  void handle(as::Context<Observer>&, int marker, std::monostate&) {
    probe->record(me + " marker " + std::to_string(marker));
  }
  void handle_supervisor_event(as::Context<Observer>&, const as::SupervisionEvent& e, std::monostate&) {
    if (auto* d = e.get<as::ActorDown>())
      probe->record(me + " saw " + label(d->actor) + " down: " + std::string(as::to_string(d->exit.kind)) + ": " +
                    d->exit.reason);
    if (auto* f = e.get<as::ActorFailed>()) probe->record(me + " supervised " + label(f->actor) + " failed: " + f->error);
  }
};

// Uses the default supervision policy, which must not stop it for a monitor notification.
struct Bystander {
  using Message = as::Reply<int>;
  void handle(as::Context<Bystander>&, as::Reply<int> r, std::monostate&) { r.send(1); }
};

struct Target {
  using Message = int;
  void handle(as::Context<Target>&, int m, std::monostate&) {
    if (m < 0) throw std::runtime_error("negative input");
  }
};

bool settle(as::System& sys, Probe& probe, const as::ActorRef<int>& observer, const std::string& me, int marker) {
  return observer.cast(marker) && probe.wait_for(sys, me + " marker " + std::to_string(marker));
}

}  // namespace

class TestMonitors : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_monitor_gets_a_stopped_actors_reason() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Observer{.probe = &probe, .me = "w"}, {}).value();
    auto target = sys->spawn<Target>({.name = "t"}).value();
    QVERIFY(watcher.monitor(target));
    QVERIFY(target.stop_and_wait(kTimeout, "work is done"));
    QVERIFY(probe.wait_for(*sys, "w saw t down: stopped: work is done"));
    QVERIFY(watcher.is_alive());
    QVERIFY(target.monitors().empty());  // a fired monitor is gone
  }

  void many_monitors_hear_a_failure_in_addition_to_the_supervisor() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Observer{.probe = &probe, .me = "sup"}, {}).value();
    auto w1 = sys->spawn(Observer{.probe = &probe, .me = "w1"}, {}).value();
    auto w2 = sys->spawn(Observer{.probe = &probe, .me = "w2"}, {}).value();
    auto target = sys->spawn_linked<Target>(sup, {.name = "t"}).value();
    QVERIFY(w1.monitor(target));
    QVERIFY(w2.monitor(target));
    QCOMPARE(target.monitors(), (std::vector<as::ActorCell>{w1, w2}));
    QVERIFY(target.cast(-1));
    QVERIFY(probe.wait_for(*sys, "sup supervised t failed: negative input"));
    QVERIFY(probe.wait_for(*sys, "w1 saw t down: failed: negative input"));
    QVERIFY(probe.wait_for(*sys, "w2 saw t down: failed: negative input"));
    QVERIFY(settle(*sys, probe, sup, "sup", 1));
    QVERIFY(!probe.contains("sup saw t down: failed: negative input"));  // a supervisor is not a monitor
  }

  void a_monitor_of_a_killed_actor_hears_it_was_killed() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Observer{.probe = &probe, .me = "w"}, {}).value();
    auto target = sys->spawn<Target>({.name = "t"}).value();
    QVERIFY(watcher.monitor(target));
    QVERIFY(target.kill_and_wait(kTimeout));
    QVERIFY(probe.wait_for(*sys, "w saw t down: killed: killed"));
  }

  void a_monitor_gets_nothing_after_unmonitor() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Observer{.probe = &probe, .me = "w"}, {}).value();
    auto target = sys->spawn<Target>({.name = "t"}).value();
    QVERIFY(watcher.monitor(target));
    QVERIFY(watcher.unmonitor(target));
    QVERIFY(!watcher.unmonitor(target));
    QVERIFY(target.monitors().empty());
    QVERIFY(target.stop_and_wait(kTimeout));
    // The exit was reported (if at all) before stop_and_wait returned: anything sent is ahead of this.
    QVERIFY(settle(*sys, probe, watcher, "w", 1));
    QCOMPARE(probe.events(), (std::vector<std::string>{"w marker 1"}));
  }

  void a_monitor_notification_does_not_stop_a_monitor_with_the_default_policy() {
    auto sys = make_system();
    auto bystander = sys->spawn<Bystander>({}).value();
    auto target = sys->spawn<Target>({}).value();
    QVERIFY(bystander.monitor(target));
    QVERIFY(target.stop_and_wait(kTimeout));
    // Its ActorDown is ahead of this call (the supervision lane comes first), so once the call is
    // answered the event has been handled by the default policy.
    QCOMPARE(bystander.call([](as::Reply<int> r) { return r; }, kTimeout).get().value(), 1);
    QVERIFY(bystander.is_alive());
    QCOMPARE(bystander.status(), as::ActorStatus::running);
  }

  void monitoring_an_actor_that_already_stopped_reports_it_down_at_once() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Observer{.probe = &probe, .me = "w"}, {}).value();
    auto target = sys->spawn<Target>({.name = "t"}).value();
    QVERIFY(target.stop_and_wait(kTimeout, "long gone"));
    QVERIFY(watcher.monitor(target));
    QVERIFY(probe.wait_for(*sys, "w saw t down: stopped: long gone"));
  }

  void monitoring_twice_is_monitoring_once() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Observer{.probe = &probe, .me = "w"}, {}).value();
    auto target = sys->spawn<Target>({.name = "t"}).value();
    QVERIFY(watcher.monitor(target));
    QVERIFY(!watcher.monitor(target));
    QCOMPARE(target.monitors(), (std::vector<as::ActorCell>{watcher}));
    QVERIFY(target.stop_and_wait(kTimeout));
    QVERIFY(probe.wait_for(*sys, "w saw t down: stopped: "));
    QVERIFY(settle(*sys, probe, watcher, "w", 1));
    QCOMPARE(probe.count("w saw t down: stopped: "), std::size_t{1});
  }

  void a_monitor_that_stops_is_forgotten() {
    Probe probe;
    auto sys = make_system();
    auto watcher = sys->spawn(Observer{.probe = &probe, .me = "w"}, {}).value();
    auto target = sys->spawn<Target>({}).value();
    QVERIFY(watcher.monitor(target));
    QVERIFY(watcher.stop_and_wait(kTimeout));
    QVERIFY(target.monitors().empty());
    QVERIFY(!watcher.monitor(target));  // a stopped actor hears nothing
    QVERIFY(target.stop_and_wait(kTimeout));
  }

  void a_handler_monitors_through_its_context() {
    struct Spy {
      using Message = as::ActorCell;
      Probe* probe = nullptr;
      void handle(as::Context<Spy>& ctx, as::ActorCell target, std::monostate&) {
        probe->record(ctx.monitor(target) ? "watching" : "not watching");
      }
      void handle_supervisor_event(as::Context<Spy>& ctx, const as::SupervisionEvent& e, std::monostate&) {
        if (e.is<as::ActorDown>()) probe->record(e.describe());
        (void)ctx;
      }
    };
    Probe probe;
    auto sys = make_system();
    auto spy = sys->spawn(Spy{.probe = &probe}, {}).value();
    auto target = sys->spawn<Target>({.name = "t"}).value();
    QVERIFY(spy.cast(as::ActorCell(target)));
    QVERIFY(probe.wait_for(*sys, "watching"));
    target.stop("bye");
    QVERIFY(probe.wait_until(*sys, [&](const auto& ev) {
      return std::find(ev.begin(), ev.end(), "actor " + target.id().to_string() + " (t) is down (stopped): bye") != ev.end();
    }));
  }

  void monitor_misuse_throws_monitor_error() {
    auto sys = make_system();
    auto other = make_system();
    auto a = sys->spawn<Target>({}).value();
    auto foreign = other->spawn<Target>({}).value();
    QVERIFY_THROWS_EXCEPTION(as::MonitorError, a.monitor(a));
    QVERIFY_THROWS_EXCEPTION(as::MonitorError, a.monitor(as::ActorCell()));
    QVERIFY_THROWS_EXCEPTION(as::MonitorError, as::ActorCell().monitor(a));
    QVERIFY_THROWS_EXCEPTION(as::MonitorError, a.monitor(foreign));
    QVERIFY_THROWS_EXCEPTION(as::MonitorError, a.unmonitor(a));
  }
};

QTEST_GUILESS_MAIN(TestMonitors)
#include "tst_monitors.moc"
