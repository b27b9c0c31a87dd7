// The matching rule of `actorscope diff` (paths, numbered same-name siblings, restarts keeping
// their path, registered names, actors on one side only, ids never used) and its difference model
// (cells, ratios and their zeros, sorting, totals), on SystemStates built from scripted events.
#include <QTest>

#ifndef Q_MOC_RUN
#include "../views/scripted_state.hpp"

#include <actorscope/storage/actor_match.hpp>
#include <actorscope/storage/recording_diff.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#endif

namespace {

using namespace views_test;
using Cell = as::DiffCell;
using Col = as::DiffColumn;

std::vector<std::string> paths_of(const std::vector<as::ActorSlot>& ss) {
  std::vector<std::string> out;
  for (const auto& s : ss) out.push_back(s.path);
  return out;
}

const as::ActorSlot* slot(const std::vector<as::ActorSlot>& ss, const std::string& path) {
  for (const auto& s : ss)
    if (s.path == path) return &s;
  return nullptr;
}

as::DiffSide side_of(const ScriptedState& s, const char* label, as::Duration duration = 10s) {
  return as::make_diff_side(label, as::actor_infos(s.state), s.state, duration);
}

/// A small team: sup → team-a → three workers, one of them unnamed; pids start at `base`, so two
/// of these never share an id.
void team(ScriptedState& s, std::uint64_t base) {
  s.spawn(base + 1, 0, "sup", "demo::Supervisor");
  s.advance(1ms);
  s.spawn(base + 2, base + 1, "team-a", "demo::Team");
  s.advance(1ms);
  s.spawn(base + 3, base + 2, "worker-1");
  s.advance(1ms);
  s.spawn(base + 4, base + 2, "worker-2");
  s.advance(1ms);
  s.spawn(base + 5, base + 2, "", "demo::Logger");
  s.advance(1ms);
}

}  // namespace

class TestRecordingDiff : public QObject {
  Q_OBJECT

 private slots:
  void paths_follow_the_supervision_tree_with_type_names_for_unnamed_actors() {
    ScriptedState s;
    team(s, 0);
    const auto ss = as::actor_slots(as::actor_infos(s.state));
    QCOMPARE(paths_of(ss), (std::vector<std::string>{"sup", "sup/team-a", "sup/team-a/demo::Logger",
                                                        "sup/team-a/worker-1", "sup/team-a/worker-2"}));
    QCOMPARE(slot(ss, "sup/team-a/worker-1")->registered_name, std::string("worker-1"));
    QCOMPARE(slot(ss, "sup/team-a/demo::Logger")->registered_name, std::string());
  }

  void siblings_of_one_name_are_numbered_in_spawn_order_not_id_order() {
    ScriptedState s;
    s.spawn(1, 0, "sup", "demo::Supervisor");
    s.advance(1ms);
    // The higher id is spawned first: spawn order decides, not ids.
    s.spawn(30, 1, "", "demo::Worker");
    s.advance(1ms);
    s.spawn(20, 1, "", "demo::Worker");
    s.advance(1ms);
    s.spawn(10, 1, "", "demo::Worker");
    const auto ss = as::actor_slots(as::actor_infos(s.state));
    QCOMPARE(slot(ss, "sup/demo::Worker")->incarnations, (std::vector<as::ActorId>{id(30)}));
    QCOMPARE(slot(ss, "sup/demo::Worker#2")->incarnations, (std::vector<as::ActorId>{id(20)}));
    QCOMPARE(slot(ss, "sup/demo::Worker#3")->incarnations, (std::vector<as::ActorId>{id(10)}));
  }

  void a_replacement_after_a_failure_keeps_the_path_and_counts_a_restart() {
    ScriptedState s;
    s.spawn(1, 0, "sup", "demo::Supervisor");
    s.advance(1ms);
    s.spawn(2, 1, "worker");
    s.advance(1ms);
    s.fail(2, "boom");
    s.advance(1ms);
    s.spawn(3, 1, "worker");  // the supervisor's replacement
    s.advance(1ms);
    s.fail(3, "boom again");
    s.advance(1ms);
    s.spawn(4, 1, "worker");
    s.advance(1ms);
    s.stop(4);
    s.advance(1ms);
    s.spawn(5, 1, "worker");  // after a clean stop: the same actor again, but not a restart
    s.advance(1ms);
    s.spawn(6, 1, "worker-b");
    const auto ss = as::actor_slots(as::actor_infos(s.state));
    QCOMPARE(paths_of(ss), (std::vector<std::string>{"sup", "sup/worker", "sup/worker-b"}));
    const as::ActorSlot* w = slot(ss, "sup/worker");
    QCOMPARE(w->incarnations, (std::vector<as::ActorId>{id(2), id(3), id(4), id(5)}));
    QCOMPARE(w->restarts, 2u);

    const as::DiffSide side = side_of(s, "A");
    const auto i = static_cast<std::size_t>(w - ss.data());
    QCOMPARE(side.figures[i].failures, 2u);
    QCOMPARE(side.figures[i].restarts, 2u);
    QCOMPARE(side.figures[i].incarnations, std::size_t{4});
  }

  void a_restarted_supervisor_keeps_its_childrens_paths() {
    ScriptedState s;
    s.spawn(1, 0, "sup", "demo::Supervisor");
    s.advance(1ms);
    s.spawn(2, 1, "team", "demo::Team");
    s.spawn(3, 2, "worker-1");
    s.advance(1ms);
    s.fail(2, "team down");
    s.stop(3);
    s.advance(1ms);
    s.spawn(4, 1, "team", "demo::Team");
    s.spawn(5, 4, "worker-1");
    const auto ss = as::actor_slots(as::actor_infos(s.state));
    QCOMPARE(paths_of(ss), (std::vector<std::string>{"sup", "sup/team", "sup/team/worker-1"}));
    QCOMPARE(slot(ss, "sup/team/worker-1")->incarnations, (std::vector<as::ActorId>{id(3), id(5)}));
    QCOMPARE(slot(ss, "sup/team")->restarts, 1u);
    QCOMPARE(slot(ss, "sup/team/worker-1")->restarts, 0u);  // it was stopped, not failed
  }

  void sessions_match_by_path_never_by_id() {
    ScriptedState a, b;
    team(a, 0);
    team(b, 1000);  // the same tree, other ids
    const auto sa = as::actor_slots(as::actor_infos(a.state));
    const auto sb = as::actor_slots(as::actor_infos(b.state));
    const as::ActorMatch m = as::match_actors(sa, sb);
    QCOMPARE(m.matched.size(), std::size_t{5});
    QVERIFY(m.only_a.empty() && m.only_b.empty());
    for (const auto& p : m.matched) {
      QCOMPARE(sa[p.a].path, sb[p.b].path);
      QVERIFY(p.by == as::ActorMatch::By::path);
    }
  }

  void an_actor_moved_to_another_supervisor_matches_by_its_registered_name() {
    ScriptedState a, b;
    a.spawn(1, 0, "sup-a", "demo::Supervisor");
    a.spawn(2, 1, "db", "demo::Db");
    a.spawn(3, 1, "", "demo::Cache");
    a.spawn(4, 0, "extra", "demo::Extra");
    b.spawn(11, 0, "sup-b", "demo::Supervisor");
    b.spawn(12, 11, "db", "demo::Db");
    b.spawn(13, 11, "", "demo::Cache");
    b.spawn(14, 0, "other", "demo::Other");
    const auto sa = as::actor_slots(as::actor_infos(a.state));
    const auto sb = as::actor_slots(as::actor_infos(b.state));
    const as::ActorMatch m = as::match_actors(sa, sb);
    QCOMPARE(m.matched.size(), std::size_t{1});
    QCOMPARE(sa[m.matched[0].a].path, std::string("sup-a/db"));
    QCOMPARE(sb[m.matched[0].b].path, std::string("sup-b/db"));
    QVERIFY(m.matched[0].by == as::ActorMatch::By::registered_name);
    // An unnamed actor under another supervisor has no name to match by: one side only.
    std::vector<std::string> only_a, only_b;
    for (auto i : m.only_a) only_a.push_back(sa[i].path);
    for (auto j : m.only_b) only_b.push_back(sb[j].path);
    QCOMPARE(only_a, (std::vector<std::string>{"extra", "sup-a", "sup-a/demo::Cache"}));
    QCOMPARE(only_b, (std::vector<std::string>{"other", "sup-b", "sup-b/demo::Cache"}));
  }

  void a_registered_name_carried_by_two_unmatched_actors_is_not_guessed() {
    ScriptedState a, b;
    a.spawn(1, 0, "x", "demo::X");
    a.spawn(2, 1, "db", "demo::Db");
    a.spawn(3, 0, "y", "demo::Y");
    a.spawn(4, 3, "db2", "demo::Db");
    a.stop(2);
    a.advance(1ms);
    a.spawn(5, 3, "db", "demo::Db");  // "db" again, elsewhere: two unmatched "db" ss in A
    b.spawn(11, 0, "z", "demo::Z");
    b.spawn(12, 11, "db", "demo::Db");
    const auto sa = as::actor_slots(as::actor_infos(a.state));
    const auto sb = as::actor_slots(as::actor_infos(b.state));
    const as::ActorMatch m = as::match_actors(sa, sb);
    QVERIFY(m.matched.empty());
    QCOMPARE(m.only_a.size(), sa.size());
    QCOMPARE(m.only_b.size(), sb.size());
  }

  void a_cell_says_new_gone_or_nothing_for_its_zeros() {
    QVERIFY(as::diff_cell(0.0, 0.0).kind == Cell::Ratio::none);
    QCOMPARE(as::diff_cell(0.0, 0.0).difference(), 0.0);
    QVERIFY(as::diff_cell(0.0, 3.0).kind == Cell::Ratio::fresh);
    QVERIFY(std::isinf(as::diff_cell(0.0, 3.0).difference()));
    QVERIFY(as::diff_cell(2.0, 0.0).kind == Cell::Ratio::gone);
    QVERIFY(as::diff_cell(std::nullopt, 4.0).kind == Cell::Ratio::none);  // not measured on A
    const Cell c = as::diff_cell(4.0, 1.0);
    QVERIFY(c.kind == Cell::Ratio::value);
    QCOMPARE(c.ratio, 0.25);
    QCOMPARE(c.difference(), std::log(4.0));
    QCOMPARE(as::diff_cell(7.0, 7.0).difference(), 0.0);
  }

  void the_model_gives_each_column_for_both_sides_and_sorts_by_the_largest_difference() {
    ScriptedState a, b;
    team(a, 0);
    team(b, 1000);
    // worker-1: the same work on both sides, but B's queue times are 4x longer.
    for (int i = 0; i < 20; ++i) {
      a.message(0, 3, "Job", 10us, 5us);
      b.message(0, 1003, "Job", 40us, 5us);
    }
    a.stats(3, 20, 2);
    b.stats(1003, 20, 2);
    // worker-2: handles twice as much in B, and fails there (its replacement is a restart).
    a.stats(4, 100, 5);
    b.stats(1004, 150, 9);
    b.advance(1ms);
    b.fail(1004, "boom");
    b.advance(1ms);
    b.spawn(1006, 1002, "worker-2");
    b.stats(1006, 50, 1);
    // team-a: exactly the same.
    a.stats(2, 7, 1);
    b.stats(1002, 7, 1);

    const as::DiffSide sa = side_of(a, "A", 10s);
    const as::DiffSide sb = side_of(b, "B", 10s);
    const as::RecordingDiff d = as::diff_sides(sa, sb);
    QCOMPARE(d.rows.size(), std::size_t{5});
    QVERIFY(d.only_a.empty() && d.only_b.empty());

    // Failures 0 → 1 ("new") outweighs any finite ratio: worker-2 first; then worker-1 (queue x4).
    QCOMPARE(d.rows[0].path, std::string("sup/team-a/worker-2"));
    QCOMPARE(d.rows[1].path, std::string("sup/team-a/worker-1"));
    // Then no difference: ties by handled (the larger side), then by path.
    QCOMPARE(d.rows[2].path, std::string("sup/team-a"));
    QCOMPARE(d.rows[2].difference, 0.0);

    const as::DiffRow& w2 = d.rows[0];
    QCOMPARE(*w2.cell(Col::handled).a, 100.0);
    QCOMPARE(*w2.cell(Col::handled).b, 200.0);
    QCOMPARE(w2.cell(Col::handled).ratio, 2.0);
    QCOMPARE(*w2.cell(Col::rate).a, 10.0);  // per second of the session (10 s)
    QCOMPARE(*w2.cell(Col::rate).b, 20.0);
    QCOMPARE(*w2.cell(Col::peak_mailbox).b, 9.0);
    QVERIFY(w2.cell(Col::failures).kind == Cell::Ratio::fresh);
    QVERIFY(w2.cell(Col::restarts).kind == Cell::Ratio::fresh);
    QVERIFY(std::isinf(w2.difference));
    // No timed message for worker-2 on either side: its times are not measured.
    QVERIFY(!w2.cell(Col::queue_p99).a && !w2.cell(Col::queue_p99).b);
    QVERIFY(w2.cell(Col::queue_p99).kind == Cell::Ratio::none);

    const as::DiffRow& w1 = d.rows[1];
    QCOMPARE(w1.cell(Col::handled).ratio, 1.0);
    // The histogram keeps values to 1/8: the percentiles are within that of 10 us and 40 us.
    QVERIFY(std::abs(*w1.cell(Col::queue_p50).a - 10'000.0) <= 10'000.0 / 8);
    QVERIFY(std::abs(*w1.cell(Col::queue_p99).b - 40'000.0) <= 40'000.0 / 8);
    QVERIFY(w1.cell(Col::queue_p99).ratio > 3.0 && w1.cell(Col::queue_p99).ratio < 5.0);
    QCOMPARE(w1.cell(Col::handling_p99).ratio, 1.0);
    QCOMPARE(w1.difference, std::abs(std::log(w1.cell(Col::queue_p99).ratio)));

    QCOMPARE(d.differing(), std::size_t{2});
    QCOMPARE(d.total_a.handled, 127u);
    QCOMPARE(d.total_b.handled, 227u);
    QCOMPARE(d.total_a.failures, 0u);
    QCOMPARE(d.total_b.failures, 1u);
    QCOMPARE(d.total_b.restarts, 1u);
    QCOMPARE(d.total_b.incarnations, std::size_t{6});
  }

  void what_bounded_mailboxes_lost_is_compared_per_actor_over_its_incarnations() {
    ScriptedState a, b;
    team(a, 0);
    team(b, 1000);
    for (ScriptedState* s : {&a, &b}) {
      const std::uint64_t base = s == &a ? 0 : 1000;
      s->bounded(base + 3, 8, as::Overflow::drop_oldest);
      s->bounded(base + 4, 4, as::Overflow::reject);
    }
    a.advance(100ms);
    a.losses(3, 8, 10, 0);
    a.losses(4, 4, 0, 5);
    b.advance(100ms);
    b.losses(1003, 8, 30, 0);
    // worker-2 fails on B, and its replacement loses more: the incarnations add up.
    b.losses(1004, 4, 0, 5);
    b.fail(1004, "boom");
    b.advance(1ms);
    b.spawn(1006, 1002, "worker-2");
    b.bounded(1006, 4, as::Overflow::reject);
    b.losses(1006, 4, 0, 15);

    const as::RecordingDiff d = as::diff_sides(side_of(a, "A"), side_of(b, "B"));
    const auto row = [&](const char* path) {
      return *std::find_if(d.rows.begin(), d.rows.end(), [&](const as::DiffRow& r) { return r.path == path; });
    };
    const as::DiffRow w1 = row("sup/team-a/worker-1");
    QCOMPARE(*w1.cell(Col::dropped).a, 10.0);
    QCOMPARE(*w1.cell(Col::dropped).b, 30.0);
    QCOMPARE(w1.cell(Col::dropped).ratio, 3.0);
    QVERIFY(w1.cell(Col::rejected).kind == Cell::Ratio::none);  // 0 and 0
    QCOMPARE(w1.difference, std::log(3.0));
    const as::DiffRow w2 = row("sup/team-a/worker-2");
    QCOMPARE(*w2.cell(Col::rejected).a, 5.0);
    QCOMPARE(*w2.cell(Col::rejected).b, 20.0);
    QCOMPARE(as::to_string(Col::dropped), std::string_view("dropped"));
    QCOMPARE(as::to_string(Col::rejected), std::string_view("rejected"));
  }

  void a_state_compared_with_itself_shows_no_difference() {
    ScriptedState a;
    team(a, 0);
    for (int i = 0; i < 10; ++i) a.message(3, 4, "Job", 10us * (i + 1), 3us);
    a.stats(4, 10, 3);
    a.fail(3, "boom");
    a.advance(1ms);
    a.spawn(9, 2, "worker-1");
    const as::DiffSide side = side_of(a, "A");
    const as::RecordingDiff d = as::diff_sides(side, side);
    QCOMPARE(d.rows.size(), std::size_t{5});
    QCOMPARE(d.differing(), std::size_t{0});
    for (const auto& r : d.rows) {
      QCOMPARE(r.difference, 0.0);
      for (const auto& c : r.cells) QVERIFY(c.kind == Cell::Ratio::none || c.ratio == 1.0);
    }
  }

  void actors_on_one_side_only_are_listed_with_their_figures() {
    ScriptedState a, b;
    team(a, 0);
    team(b, 1000);
    b.spawn(1010, 1002, "worker-3");
    b.stats(1010, 42, 0);
    a.spawn(10, 1, "auditor", "demo::Auditor");
    const as::RecordingDiff d = as::diff_sides(side_of(a, "A"), side_of(b, "B"));
    QCOMPARE(d.rows.size(), std::size_t{5});
    QCOMPARE(d.only_a.size(), std::size_t{1});
    QCOMPARE(d.only_a[0].path, std::string("sup/auditor"));
    QCOMPARE(d.only_b.size(), std::size_t{1});
    QCOMPARE(d.only_b[0].path, std::string("sup/team-a/worker-3"));
    QCOMPARE(d.only_b[0].figures.handled, 42u);
    QCOMPARE(d.total_a.actors, std::size_t{6});
    QCOMPARE(d.total_b.actors, std::size_t{6});
  }

  void an_actor_the_state_has_pruned_keeps_its_identity_and_failures() {
    // A state that keeps one stopped actor: the first worker's record is forgotten.
    ScriptedState s(obs::SystemState::Limits{.stopped_actors = 1});
    s.spawn(1, 0, "sup", "demo::Supervisor");
    s.spawn(2, 1, "w");
    s.stats(2, 5, 1);
    s.advance(1ms);
    s.fail(2, "boom");
    s.advance(1ms);
    s.spawn(3, 1, "w");
    s.advance(1ms);
    s.stop(3);
    QVERIFY(s.state.actor(id(2)) == nullptr);
    // The recording's actors table still has it, and so does the side.
    auto infos = as::actor_infos(s.state);
    as::ActorInfo pruned;
    pruned.id = id(2);
    pruned.name = "w";
    pruned.parent = id(1);
    pruned.spawned = s.now - 3ms;
    pruned.stopped = s.now - 2ms;
    pruned.exit_kind = as::ExitKind::failed;
    infos.push_back(pruned);
    const as::DiffSide side = as::make_diff_side("A", infos, s.state, 1s);
    QCOMPARE(side.pruned, std::size_t{1});
    const auto it = std::find_if(side.actors.begin(), side.actors.end(), [](const auto& x) { return x.path == "sup/w"; });
    QVERIFY(it != side.actors.end());
    const auto& f = side.figures[static_cast<std::size_t>(it - side.actors.begin())];
    QCOMPARE(f.incarnations, std::size_t{2});
    QCOMPARE(f.failures, 1u);
    QCOMPARE(f.restarts, 1u);
  }
};

QTEST_GUILESS_MAIN(TestRecordingDiff)
#include "tst_recording_diff.moc"
