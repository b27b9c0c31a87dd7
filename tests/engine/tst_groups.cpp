// Process groups on every runtime (Erlang pg, as ractor): joining and leaving in scopes, listing,
// the automatic leave of a stopping actor, and group and scope monitors.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

struct Member {
  using Message = int;
  void handle(as::Context<Member>&, int, std::monostate&) {}
};

// Monitors groups and keeps a running member count from the notifications it gets. A message is a
// marker: once it is recorded, every notification pushed before it has been handled too (the
// supervision lane outranks messages).
struct Watcher {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int pre_start(as::Context<Watcher>&) { return 0; }
  void handle(as::Context<Watcher>&, int marker, int&) { probe->record("marker " + std::to_string(marker)); }
  void handle_supervisor_event(as::Context<Watcher>&, const as::SupervisionEvent& e, int& count) {
    if (auto* c = e.get<as::ProcessGroupChanged>()) {
      const bool joined = c->change == as::ProcessGroupChanged::Change::joined;
      const int n = static_cast<int>(c->members.size());
      count += joined ? n : -n;
      probe->record(std::string(joined ? "joined " : "left ") + c->scope + "/" + c->group + " x" + std::to_string(n));
      probe->record("count " + std::to_string(count));
    }
  }
};

// Waits until the watcher has handled everything queued before `marker`.
bool settle(as::System& sys, Probe& probe, const as::ActorRef<int>& watcher, int marker) {
  return watcher.cast(marker) && probe.wait_for(sys, "marker " + std::to_string(marker));
}

std::size_t count_prefix(const std::vector<std::string>& events, std::string_view prefix) {
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
}

}  // namespace

class TestGroups : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void actors_join_and_leave_groups_in_the_default_scope_and_in_a_named_one() {
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto a = sys->spawn<Member>({}).value();
    auto b = sys->spawn<Member>({}).value();
    auto c = sys->spawn<Member>({}).value();

    QCOMPARE(pg.join("workers", {a, b}), std::size_t{2});
    QCOMPARE(pg.join_scoped("jobs", "workers", c), std::size_t{1});
    QCOMPARE(pg.join_scoped("jobs", "cleaners", {a, c}), std::size_t{2});

    QCOMPARE(pg.members("workers"), (std::vector<as::ActorCell>{a, b}));
    QCOMPARE(pg.members_scoped("jobs", "workers"), (std::vector<as::ActorCell>{c}));
    QCOMPARE(pg.members_scoped("jobs", "cleaners"), (std::vector<as::ActorCell>{a, c}));
    QCOMPARE(pg.groups(), (std::vector<std::string>{"workers"}));
    QCOMPARE(pg.groups("jobs"), (std::vector<std::string>{"cleaners", "workers"}));
    QCOMPARE(pg.scopes(), (std::vector<std::string>{"default", "jobs"}));
    QCOMPARE(pg.groups_of(a), (std::vector<std::pair<std::string, std::string>>{{"default", "workers"},
                                                                                 {"jobs", "cleaners"}}));

    QCOMPARE(pg.leave("workers", a), std::size_t{1});
    QCOMPARE(pg.members("workers"), (std::vector<as::ActorCell>{b}));
    QCOMPARE(pg.leave_scoped("jobs", "cleaners", {a, c}), std::size_t{2});
    QCOMPARE(pg.groups("jobs"), (std::vector<std::string>{"workers"}));
    QCOMPARE(pg.leave("workers", b), std::size_t{1});
    QCOMPARE(pg.scopes(), (std::vector<std::string>{"jobs"}));
    QVERIFY(pg.members("workers").empty());
    QVERIFY(pg.members_scoped("nowhere", "nothing").empty());
  }

  void an_actor_that_stops_disappears_from_all_its_groups() {
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto a = sys->spawn<Member>({}).value();
    auto b = sys->spawn<Member>({}).value();
    pg.join("g1", {a, b});
    pg.join("g2", a);
    pg.join_scoped("other", "g3", a);

    QVERIFY(a.stop_and_wait(kTimeout));
    QCOMPARE(pg.members("g1"), (std::vector<as::ActorCell>{b}));  // only its own memberships go
    QVERIFY(pg.members("g2").empty());
    QVERIFY(pg.members_scoped("other", "g3").empty());
    QVERIFY(pg.groups_of(a).empty());
    QCOMPARE(pg.groups(), (std::vector<std::string>{"g1"}));
    QCOMPARE(pg.scopes(), (std::vector<std::string>{"default"}));

    QVERIFY(b.kill_and_wait(kTimeout));  // a kill is an exit too
    QVERIFY(pg.scopes().empty());
  }

  void a_group_monitor_counts_plus_one_on_join_and_minus_one_on_the_automatic_leave() {
    Probe probe;
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto watcher = sys->spawn(Watcher{.probe = &probe}, {}).value();
    QVERIFY(pg.monitor("g", watcher));
    auto a = sys->spawn<Member>({}).value();
    auto b = sys->spawn<Member>({}).value();

    pg.join("g", a);
    QVERIFY(probe.wait_for(*sys, "count 1"));
    pg.join("g", b);
    QVERIFY(probe.wait_for(*sys, "count 2"));
    QVERIFY(a.stop_and_wait(kTimeout));
    QVERIFY(probe.wait_for(*sys, "left default/g x1"));
    QVERIFY(probe.wait_for(*sys, "count 1"));
    QVERIFY(settle(*sys, probe, watcher, 1));
    const auto events = probe.events();
    QCOMPARE(count_prefix(events, "joined "), std::size_t{2});
    QCOMPARE(count_prefix(events, "left "), std::size_t{1});
    QCOMPARE(events[events.size() - 2], std::string("count 1"));
    QVERIFY(watcher.is_alive());  // the default policy does not stop on group changes
  }

  void a_scope_monitor_sends_no_duplicate_notifications_and_none_after_demonitor() {
    Probe probe;
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto watcher = sys->spawn(Watcher{.probe = &probe}, {}).value();
    auto a = sys->spawn<Member>({}).value();
    // Watching the whole scope and one of its groups as well: still one event per change.
    QVERIFY(pg.monitor_scope("s", watcher));
    QVERIFY(pg.monitor_scoped("s", "g1", watcher));
    QVERIFY(!pg.monitor_scope("s", watcher));  // already watching

    pg.join_scoped("s", "g1", a);
    pg.join_scoped("s", "g2", a);
    pg.join_scoped("elsewhere", "g1", a);  // another scope: not watched
    pg.leave_scoped("s", "g2", a);
    QVERIFY(settle(*sys, probe, watcher, 1));
    QCOMPARE(probe.count("joined s/g1 x1"), std::size_t{1});
    QCOMPARE(probe.count("joined s/g2 x1"), std::size_t{1});
    QCOMPARE(probe.count("left s/g2 x1"), std::size_t{1});
    QCOMPARE(count_prefix(probe.events(), "joined elsewhere"), std::size_t{0});

    QVERIFY(pg.demonitor_scope("s", watcher));
    QVERIFY(pg.demonitor_scoped("s", "g1", watcher));
    QVERIFY(!pg.demonitor_scope("s", watcher));
    const std::size_t before = probe.events().size();
    pg.join_scoped("s", "g3", a);
    pg.leave_scoped("s", "g1", a);
    QVERIFY(a.stop_and_wait(kTimeout));  // the automatic leaves are not reported either
    QVERIFY(settle(*sys, probe, watcher, 2));
    QCOMPARE(probe.events().size(), before + 1);  // just the marker
  }

  void duplicate_joins_and_leaves_are_idempotent() {
    Probe probe;
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto watcher = sys->spawn(Watcher{.probe = &probe}, {}).value();
    auto a = sys->spawn<Member>({}).value();
    pg.monitor("g", watcher);

    QCOMPARE(pg.join("g", a), std::size_t{1});
    QCOMPARE(pg.join("g", a), std::size_t{0});
    QCOMPARE(pg.join("g", {a, a}), std::size_t{0});
    QCOMPARE(pg.members("g").size(), std::size_t{1});
    QCOMPARE(pg.leave("g", a), std::size_t{1});
    QCOMPARE(pg.leave("g", a), std::size_t{0});
    QCOMPARE(pg.leave("never-joined", a), std::size_t{0});
    QVERIFY(pg.members("g").empty());

    QVERIFY(settle(*sys, probe, watcher, 1));
    QCOMPARE(count_prefix(probe.events(), "joined "), std::size_t{1});  // only real changes are reported
    QCOMPARE(count_prefix(probe.events(), "left "), std::size_t{1});
  }

  void joining_an_actor_that_already_stopped_does_nothing() {
    Probe probe;
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto watcher = sys->spawn(Watcher{.probe = &probe}, {}).value();
    auto a = sys->spawn<Member>({}).value();
    auto b = sys->spawn<Member>({}).value();
    pg.monitor("g", watcher);
    QVERIFY(a.stop_and_wait(kTimeout));

    QCOMPARE(pg.join("g", a), std::size_t{0});
    QCOMPARE(pg.join("g", {a, b}), std::size_t{1});
    QCOMPARE(pg.members("g"), (std::vector<as::ActorCell>{b}));
    QVERIFY(pg.groups_of(a).empty());
    QVERIFY(settle(*sys, probe, watcher, 1));
    QCOMPARE(probe.count("joined default/g x1"), std::size_t{1});
    QCOMPARE(count_prefix(probe.events(), "joined "), std::size_t{1});
  }

  void a_monitor_that_stops_is_forgotten_by_its_groups() {
    Probe probe;
    auto sys = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto watcher = sys->spawn(Watcher{.probe = &probe}, {}).value();
    auto a = sys->spawn<Member>({}).value();
    QVERIFY(pg.monitor("g", watcher));
    QVERIFY(pg.monitor_scope("s", watcher));
    QVERIFY(watcher.stop_and_wait(kTimeout));
    QVERIFY(!pg.demonitor("g", watcher));  // already gone
    QVERIFY(!pg.demonitor_scope("s", watcher));
    QVERIFY(!pg.monitor("g", watcher));  // a stopped actor cannot watch
    QCOMPARE(pg.join("g", a), std::size_t{1});
    QVERIFY(pg.scopes() == std::vector<std::string>{"default"});
  }

  void group_calls_with_an_empty_handle_or_an_empty_name_throw_process_group_error() {
    auto sys = make_system();
    auto other = make_system();
    as::ProcessGroups& pg = sys->groups();
    auto a = sys->spawn<Member>({}).value();
    auto foreign = other->spawn<Member>({}).value();
    QVERIFY_THROWS_EXCEPTION(as::ProcessGroupError, pg.join("g", as::ActorCell()));
    QVERIFY_THROWS_EXCEPTION(as::ProcessGroupError, pg.join("", a));
    QVERIFY_THROWS_EXCEPTION(as::ProcessGroupError, pg.join_scoped("", "g", a));
    QVERIFY_THROWS_EXCEPTION(as::ProcessGroupError, pg.join("g", foreign));
    QVERIFY_THROWS_EXCEPTION(as::ProcessGroupError, pg.monitor_scope("", a));
    try {
      pg.join("g", foreign);
    } catch (const as::ProcessGroupError& e) {
      QVERIFY2(std::string(e.what()).find("another System") != std::string::npos, e.what());
    }
    QVERIFY(pg.members("g").empty());
  }
};

QTEST_GUILESS_MAIN(TestGroups)
#include "tst_groups.moc"
