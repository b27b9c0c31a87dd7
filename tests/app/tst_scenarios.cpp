// The demo scenarios do what the user guide says they do, on every runtime: in `supervision`, a
// worker that is killed or stopped is restarted under its name like one that fails, so its team gets
// its four workers back and the name takes jobs again; each team is a Supervisor. Waits are for the
// condition, with a deadline.
#include "engine_test.hpp"

#ifndef Q_MOC_RUN
#include "scenarios/scenario.hpp"
#endif

using namespace engine_test;
namespace scenarios = actorscope::scenarios;

namespace {

/// Waits until `done()` holds: drives the manual runtime, polls the others (processing the test
/// thread's events, as QTRY_* does). False at the deadline.
bool eventually(as::System& sys, const std::function<bool()>& done, as::Duration timeout = kTimeout) {
  as::Runtime& rt = sys.runtime();
  if (rt.drives_waits()) return rt.drive_until(done, as::deadline_after(rt.now(), timeout));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    QTest::qWait(5);
  }
  return true;
}

std::size_t liveChildren(const as::ActorCell& actor) {
  const auto kids = actor.children();
  return static_cast<std::size_t>(
      std::count_if(kids.begin(), kids.end(), [](const as::ActorCell& c) { return c.is_alive(); }));
}

}  // namespace

class TestScenarios : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_killed_or_stopped_worker_of_supervision_is_replaced_and_its_slot_takes_jobs_again() {
    auto sys = make_system();
    scenarios::supervision().start(*sys, 7);
    std::optional<as::ActorCell> team;
    QVERIFY(eventually(*sys, [&] {
      team = sys->where_is("team-b");
      return team && liveChildren(*team) == 4;
    }));

    // Shift+Del in the observatory: the worker is killed. Then another is stopped (Del).
    for (const char* slot : {"team-b/worker-2", "team-b/worker-3"}) {
      std::optional<as::ActorCell> worker;
      QVERIFY(eventually(*sys, [&] { return (worker = sys->where_is(slot)).has_value(); }));
      const as::ActorId gone = worker->id();
      if (std::string_view(slot).ends_with("2")) {
        worker->kill();
      } else {
        worker->stop("stopped from the observatory");
      }
      QVERIFY(worker->wait(kTimeout));

      // The team has its four workers again: a new one holds the slot's name and takes jobs.
      QVERIFY2(eventually(*sys,
                          [&] {
                            const auto fresh = sys->where_is(slot);
                            return fresh && fresh->id() != gone && liveChildren(*team) == 4 &&
                                   fresh->stats().handled >= 3;
                          }),
               qPrintable(QStringLiteral("%1 was not replaced: team-b has %2 live workers")
                              .arg(QString::fromUtf8(slot))
                              .arg(liveChildren(*team))));
    }
    QVERIFY(team->is_alive());
    sys->shutdown();
  }

  void supervision_has_one_supervisor_team_per_strategy_under_a_root_supervisor() {
    auto sys = make_system();
    scenarios::supervision().start(*sys, 7);
    as::SupervisorRef root(sys->where_is<as::SupervisorMessage>("supervisor").value());
    const auto top = root.which_children(kTimeout).get().value();
    QCOMPARE(top.size(), std::size_t{5});  // four teams and the dispatcher
    for (std::size_t t = 0; t < 4; ++t) {
      QCOMPARE(top[t].kind, as::ChildKind::supervisor);
      QCOMPARE(top[t].shutdown, as::Shutdown::infinity());
    }
    QCOMPARE(top[4].id, std::string("dispatcher"));
    for (const char* name : {"team-a", "team-b", "team-c", "team-d"}) {
      auto team = sys->where_is<as::SupervisorMessage>(name);
      QVERIFY2(team.has_value(), name);
      const as::ChildCounts counts = as::SupervisorRef(*team).count_children(kTimeout).get().value();
      QCOMPARE(counts.specs, std::size_t{4});
      QCOMPARE(counts.workers, std::size_t{4});
    }
    sys->shutdown();
  }
};

QTEST_GUILESS_MAIN(TestScenarios)
#include "tst_scenarios.moc"
