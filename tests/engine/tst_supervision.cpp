// Supervision on every runtime: the events a supervisor receives, ractor's failure semantics,
// escalation, subtree termination, orderly shutdown, relinking and very deep trees.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

std::string label(const as::ActorCell& a) { return a.name().empty() ? a.id().to_string() : a.name(); }

// A supervisor that records every event and never stops because of one.
struct Recorder {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Recorder>&, int, std::monostate&) {}
  void handle_supervisor_event(as::Context<Recorder>&, const as::SupervisionEvent& e, std::monostate&) {
    if (auto* s = e.get<as::ActorStarted>()) probe->record("started " + label(s->actor));
    if (auto* t = e.get<as::ActorTerminated>()) {
      // How it ended, from the event itself: the child sets its exit result only after sending it.
      probe->record("kind " + label(t->actor) + ": " + std::string(as::to_string(t->kind)));
      std::string line = "terminated " + label(t->actor) + ": " + t->reason;
      if (t->state.has_value()) line += " (with state)";
      probe->record(line);
    }
    if (auto* f = e.get<as::ActorFailed>()) probe->record("failed " + label(f->actor) + ": " + f->error);
  }
};

enum class FailAt { nowhere, post_start, handle, post_stop };

struct Child {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  FailAt fail_at = FailAt::nowhere;
  int pre_start(as::Context<Child>&) { return 7; }
  void post_start(as::Context<Child>& ctx, int&) {
    if (fail_at == FailAt::post_start) throw std::runtime_error("boom in post_start");
    if (probe) probe->record("post_start " + ctx.name());
  }
  void handle(as::Context<Child>&, int, int&) {
    if (fail_at == FailAt::handle) throw std::runtime_error("boom in handle");
  }
  void post_stop(as::Context<Child>& ctx, int&) {
    if (probe) probe->record("post_stop " + ctx.name());
    if (fail_at == FailAt::post_stop) throw std::runtime_error("boom in post_stop");
  }
};

// A middle supervisor whose handling of a child's failure itself fails.
struct BrittleSupervisor {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<BrittleSupervisor>&, int, std::monostate&) {}
  void handle_supervisor_event(as::Context<BrittleSupervisor>&, const as::SupervisionEvent& e, std::monostate&) {
    if (auto* f = e.get<as::ActorFailed>()) throw std::runtime_error("cannot cope with: " + f->error);
  }
  void post_stop(as::Context<BrittleSupervisor>&, std::monostate&) { probe->record("brittle post_stop"); }
};

// Uses the default supervision policy.
struct Plain {
  using Message = int;
  void handle(as::Context<Plain>&, int, std::monostate&) {}
};

// Stops itself right after starting, leaving its final state to its supervisor.
struct Leaver {
  using Message = int;
  using State = std::string;
  std::string pre_start(as::Context<Leaver>&) { return "final words"; }
  void post_start(as::Context<Leaver>& ctx, std::string&) { ctx.stop("leaving"); }
  void handle(as::Context<Leaver>&, int, std::string&) {}
};

// A parent that shuts its subtree down in order from its own post_stop.
struct OrderlyParent {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<OrderlyParent>&, int, std::monostate&) {}
  void handle_supervisor_event(as::Context<OrderlyParent>&, const as::SupervisionEvent&, std::monostate&) {}
  as::Task<> post_stop(as::Context<OrderlyParent>& ctx, std::monostate&) {
    probe->record("parent post_stop begins");
    const bool all = co_await ctx.stop_children_and_wait(kTimeout, "parent shutting down");
    probe->record(all ? "children all stopped" : "children timed out");
  }
};

// Sleeps in its handler; the kill tests use it.
struct Busy {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int pre_start(as::Context<Busy>&) { return 99; }
  as::Task<> handle(as::Context<Busy>&, int, int&) {
    probe->record("busy");
    co_await as::sleep(1h);
  }
};

struct StuckInPostStop {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int pre_start(as::Context<StuckInPostStop>&) { return 5; }
  void handle(as::Context<StuckInPostStop>&, int, int&) {}
  as::Task<> post_stop(as::Context<StuckInPostStop>&, int&) {
    probe->record("stuck");
    co_await as::sleep(1h);
  }
};

}  // namespace

class TestSupervision : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_started_child_reports_actor_started_after_post_start() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Recorder{.probe = &probe}, {}).value();
    auto child = sys->spawn_linked(sup, Child{.probe = &probe}, {.name = "kid"}).value();
    QVERIFY(probe.wait_for(*sys, "started kid"));
    QVERIFY(probe.index_of("post_start kid") < probe.index_of("started kid"));
    QCOMPARE(child.supervisor(), sup);
    QCOMPARE(sup.children().size(), std::size_t{1});
  }

  void a_child_failing_in_post_start_gives_actor_failed_and_leaves_no_children() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Recorder{.probe = &probe}, {}).value();
    auto child = sys->spawn_linked(sup, Child{.fail_at = FailAt::post_start}, {.name = "kid"}).value();
    QVERIFY(probe.wait_for(*sys, "failed kid: boom in post_start"));
    QVERIFY(child.wait(kTimeout));
    QCOMPARE(child.exit()->kind, as::ExitKind::failed);
    QVERIFY(sup.children().empty());
    QVERIFY(!probe.contains("started kid"));
    QVERIFY(sup.is_alive());
  }

  void a_child_failing_in_handle_gives_actor_failed_with_the_message_and_is_unlinked() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Recorder{.probe = &probe}, {}).value();
    auto child = sys->spawn_linked(sup, Child{.probe = &probe, .fail_at = FailAt::handle}, {.name = "kid"}).value();
    QVERIFY(child.cast(1));
    QVERIFY(probe.wait_for(*sys, "failed kid: boom in handle"));
    QVERIFY(child.wait(kTimeout));
    QVERIFY(!child.supervisor());
    QVERIFY(sup.children().empty());
    QVERIFY2(!probe.contains("post_stop kid"), "a failed actor does not run post_stop");
  }

  void a_child_failing_in_post_stop_is_reported_as_failed_not_terminated() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Recorder{.probe = &probe}, {}).value();
    auto child = sys->spawn_linked(sup, Child{.probe = &probe, .fail_at = FailAt::post_stop}, {.name = "kid"}).value();
    child.stop("bye");
    QVERIFY(probe.wait_for(*sys, "failed kid: boom in post_stop"));
    QVERIFY(!probe.contains("terminated kid: bye"));
    QVERIFY(child.wait(kTimeout));  // the supervisor is told before the child's exit is published
    QCOMPARE(child.exit()->kind, as::ExitKind::failed);
  }

  void a_failure_while_handling_a_childs_failure_escalates_to_the_next_supervisor() {
    Probe probe;
    auto sys = make_system();
    auto top = sys->spawn(Recorder{.probe = &probe}, {.name = "top"}).value();
    auto mid = sys->spawn_linked(top, BrittleSupervisor{.probe = &probe}, {.name = "mid"}).value();
    auto leaf = sys->spawn_linked(mid, Child{.fail_at = FailAt::handle}, {.name = "leaf"}).value();
    QVERIFY(probe.wait_for(*sys, "started mid"));
    QVERIFY(leaf.cast(1));
    QVERIFY(probe.wait_for(*sys, "failed mid: cannot cope with: boom in handle"));
    QVERIFY(mid.wait(kTimeout));
    QVERIFY(leaf.wait(kTimeout));
    QCOMPARE(mid.exit()->kind, as::ExitKind::failed);
    QVERIFY(!probe.contains("brittle post_stop"));
    QVERIFY2(!probe.contains("failed leaf: boom in handle"), "the top supervisor only hears about its own child");
    QVERIFY(top.is_alive());
  }

  void by_default_a_supervisor_stops_when_a_child_exits_so_failures_travel_up() {
    Probe probe;
    auto sys = make_system();
    auto top = sys->spawn(Recorder{.probe = &probe}, {.name = "top"}).value();
    auto upper = sys->spawn_linked<Plain>(top, {.name = "upper"}).value();
    auto lower = sys->spawn_linked<Plain>(upper, {.name = "lower"}).value();
    auto leaf = sys->spawn_linked(lower, Child{.fail_at = FailAt::handle}, {.name = "leaf"}).value();
    QVERIFY(leaf.cast(1));
    QVERIFY(probe.wait_until(*sys, [](const auto& ev) {
      return std::any_of(ev.begin(), ev.end(), [](const std::string& e) { return e.rfind("terminated upper", 0) == 0; });
    }));
    QVERIFY(upper.wait(kTimeout));
    QVERIFY(lower.wait(kTimeout));
    QCOMPARE(lower.exit()->kind, as::ExitKind::stopped);
    const std::string reason = lower.exit()->reason;
    QVERIFY2(reason.find("leaf") != std::string::npos && reason.find("boom in handle") != std::string::npos,
             reason.c_str());
    QVERIFY(upper.exit()->reason.find("lower") != std::string::npos);
  }

  void a_supervisors_exit_kills_its_children_without_running_their_post_stop() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn<Plain>({.name = "sup"}).value();
    std::vector<as::ActorRef<int>> kids;
    for (int i = 0; i < 3; ++i)
      kids.push_back(sys->spawn_linked(sup, Child{.probe = &probe}, {.name = "kid" + std::to_string(i)}).value());
    QVERIFY(probe.wait_count(*sys, "post_start kid2", 1));
    QVERIFY(sup.stop_and_wait(kTimeout));
    for (auto& k : kids) {
      QVERIFY(k.wait(kTimeout));
      QCOMPARE(k.exit()->kind, as::ExitKind::killed);
    }
    for (int i = 0; i < 3; ++i) QVERIFY(!probe.contains("post_stop kid" + std::to_string(i)));
  }

  void a_failing_supervisor_also_kills_its_children() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Child{.fail_at = FailAt::handle}, {.name = "sup"}).value();
    auto kid = sys->spawn_linked(sup, Child{.probe = &probe}, {.name = "kid"}).value();
    QVERIFY(probe.wait_for(*sys, "post_start kid"));
    QVERIFY(sup.cast(1));
    QVERIFY(kid.wait(kTimeout));
    QCOMPARE(kid.exit()->kind, as::ExitKind::killed);
    QVERIFY(!probe.contains("post_stop kid"));
  }

  void a_clean_child_exit_hands_its_state_to_the_supervisor_as_its_own_type_only() {
    struct StateKeeper {
      using Message = int;
      Probe* probe = nullptr;
      void handle(as::Context<StateKeeper>&, int, std::monostate&) {}
      void handle_supervisor_event(as::Context<StateKeeper>&, as::SupervisionEvent& e, std::monostate&) {
        if (auto* t = e.get<as::ActorTerminated>()) {
          probe->record(t->state.get<int>() == nullptr ? "int refused" : "int accepted");
          probe->record("type " + std::string(t->state.type_name()));
          if (auto s = t->state.take<std::string>()) probe->record("state: " + *s);
          probe->record("kind: " + std::string(as::to_string(t->kind)));
          probe->record("reason: " + t->reason);
        }
      }
    };
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(StateKeeper{.probe = &probe}, {}).value();
    auto kid = sys->spawn_linked<Leaver>(sup, {}).value();
    QVERIFY(probe.wait_for(*sys, "reason: leaving"));
    QVERIFY(probe.contains("kind: stopped"));
    QVERIFY(probe.contains("int refused"));
    QVERIFY(probe.contains("state: final words"));
    const auto ev = probe.events();
    QVERIFY2(std::any_of(ev.begin(), ev.end(),
                         [](const std::string& e) { return e.rfind("type ", 0) == 0 && e.find("string") != std::string::npos; }),
             "the box names the state's type");
  }

  void a_kill_while_handling_hands_over_the_state_and_a_kill_in_post_stop_does_not() {
    Probe probe;
    auto sys = make_system();
    auto sup = sys->spawn(Recorder{.probe = &probe}, {}).value();
    auto busy = sys->spawn_linked(sup, Busy{.probe = &probe}, {.name = "busy"}).value();
    QVERIFY(busy.cast(1));
    QVERIFY(probe.wait_for(*sys, "busy"));
    busy.kill();
    QVERIFY(probe.wait_for(*sys, "terminated busy: killed (with state)"));
    QVERIFY(probe.contains("kind busy: killed"));

    auto stuck = sys->spawn_linked(sup, StuckInPostStop{.probe = &probe}, {.name = "stuck"}).value();
    stuck.stop();
    QVERIFY(probe.wait_for(*sys, "stuck"));
    stuck.kill();
    QVERIFY(probe.wait_for(*sys, "terminated stuck: killed"));
    QVERIFY(probe.contains("kind stuck: killed"));
    QVERIFY(!probe.contains("terminated stuck: killed (with state)"));
  }

  void stop_children_and_wait_in_post_stop_gives_an_orderly_subtree_shutdown() {
    Probe probe;
    auto sys = make_system();
    auto parent = sys->spawn(OrderlyParent{.probe = &probe}, {.name = "parent"}).value();
    for (int i = 0; i < 3; ++i)
      (void)sys->spawn_linked(parent, Child{.probe = &probe}, {.name = "kid" + std::to_string(i)}).value();
    QVERIFY(probe.wait_for(*sys, "post_start kid2"));
    QVERIFY(parent.stop_and_wait(kTimeout));
    const int begins = probe.index_of("parent post_stop begins");
    const int ends = probe.index_of("children all stopped");
    QVERIFY(begins >= 0 && ends > begins);
    for (int i = 0; i < 3; ++i) {
      const int k = probe.index_of("post_stop kid" + std::to_string(i));
      QVERIFY2(k > begins && k < ends, "every child's post_stop runs inside the parent's");
    }
  }

  void stop_children_and_wait_from_outside_waits_for_every_child() {
    Probe probe;
    auto sys = make_system();
    auto parent = sys->spawn(Recorder{.probe = &probe}, {}).value();
    for (int i = 0; i < 3; ++i)
      (void)sys->spawn_linked(parent, Child{.probe = &probe}, {.name = "kid" + std::to_string(i)}).value();
    QVERIFY(probe.wait_for(*sys, "post_start kid2"));
    QVERIFY(parent.stop_children_and_wait(kTimeout, "tidy up"));
    for (int i = 0; i < 3; ++i) QVERIFY(probe.contains("post_stop kid" + std::to_string(i)));
    QVERIFY(parent.children().empty());
    QVERIFY(parent.is_alive());
  }

  void relinking_moves_a_child_to_the_new_supervisor() {
    Probe a_probe, b_probe;
    auto sys = make_system();
    auto a = sys->spawn(Recorder{.probe = &a_probe}, {.name = "a"}).value();
    auto b = sys->spawn(Recorder{.probe = &b_probe}, {.name = "b"}).value();
    auto kid = sys->spawn_linked(a, Child{.fail_at = FailAt::handle}, {.name = "kid"}).value();
    QVERIFY(a_probe.wait_for(*sys, "started kid"));
    QVERIFY(kid.link(b));
    QVERIFY(kid.link(b));  // linking to the same supervisor again changes nothing
    QCOMPARE(kid.supervisor(), b);
    QVERIFY(a.children().empty());
    QCOMPARE(b.children().size(), std::size_t{1});
    QVERIFY(kid.cast(1));
    QVERIFY(b_probe.wait_for(*sys, "failed kid: boom in handle"));
    QVERIFY(!a_probe.contains("failed kid: boom in handle"));
  }

  void links_that_make_no_sense_are_refused_with_a_reason() {
    auto sys = make_system();
    auto root = sys->spawn<Plain>({}).value();
    auto kid = sys->spawn_linked<Plain>(root, {}).value();
    auto self = root.link(root);
    QVERIFY(!self);
    QCOMPARE(self.error().kind(), as::LinkError::Kind::self_link);
    auto cycle = root.link(kid);
    QVERIFY(!cycle);
    QCOMPARE(cycle.error().kind(), as::LinkError::Kind::would_cycle);
    QVERIFY(std::string(cycle.error().what()).find("cycle") != std::string::npos);
    QVERIFY(kid.unlink(root));
    QVERIFY(!kid.unlink(root));
    QVERIFY(!kid.supervisor());
  }

  void spawn_linked_under_a_draining_supervisor_is_refused() {
    Probe probe;
    Gate gate;
    struct Holder {
      using Message = int;
      Gate* gate = nullptr;
      as::Task<> handle(as::Context<Holder>&, int, std::monostate&) { co_await gate->opened(); }
    };
    auto sys = make_system();
    auto sup = sys->spawn(Holder{.gate = &gate}, {}).value();
    QVERIFY(sup.cast(1));
    QVERIFY(sup.drain());
    auto r = sys->spawn_linked(sup, Child{.probe = &probe}, {.name = "late"});
    QVERIFY(!r);
    QCOMPARE(r.error().kind(), as::SpawnError::Kind::supervisor_stopping);
    QVERIFY(std::string(r.error().what()).find("shutting down") != std::string::npos);
    QVERIFY(!sys->where_is("late"));
    QVERIFY(!probe.contains("post_start late"));
    gate.open();
    QVERIFY(sup.wait(kTimeout));
  }

  void children_are_listed_in_spawn_order() {
    auto sys = make_system();
    auto root = sys->spawn<Plain>({}).value();
    std::vector<as::ActorId> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(sys->spawn_linked<Plain>(root, {}).value().id());
    std::vector<as::ActorId> listed;
    for (const auto& c : root.children()) listed.push_back(c.id());
    QCOMPARE(listed, ids);
  }

  void terminating_a_chain_ten_thousand_deep_does_not_overflow_the_stack() {
    auto sys = make_system();
    auto root = sys->spawn<Plain>({}).value();
    as::ActorCell last = root;
    for (int i = 0; i < 10'000; ++i) last = sys->spawn_linked<Plain>(last, {}).value();
    QCOMPARE(sys->actor_count(), std::size_t{10'001});
    QVERIFY(root.stop_and_wait(kTimeout));
    QVERIFY(last.wait(std::chrono::seconds(60)));
    QCOMPARE(last.exit()->kind, as::ExitKind::killed);
    QVERIFY(sys->shutdown(std::chrono::seconds(60)));
    QCOMPARE(sys->actor_count(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestSupervision)
#include "tst_supervision.moc"
