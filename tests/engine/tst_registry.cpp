// The name registry on every runtime: lookup (typed and untyped), duplicates, and when a name is freed.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

struct Named {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Named>&, int, std::monostate&) {}
  void post_stop(as::Context<Named>& ctx, std::monostate&) {
    if (probe == nullptr) return;
    // The name is freed as the actor begins stopping, before post_stop runs.
    probe->record(ctx.system().where_is(ctx.name()) ? "name still taken in post_stop" : "name free in post_stop");
  }
};

struct OtherType {
  using Message = std::string;
  void handle(as::Context<OtherType>&, std::string, std::monostate&) {}
};

struct Broken {
  using Message = int;
  std::monostate pre_start(as::Context<Broken>&) { throw std::runtime_error("broken on purpose"); }
  void handle(as::Context<Broken>&, int, std::monostate&) {}
};

}  // namespace

class TestRegistry : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_named_actor_is_found_and_the_typed_lookup_refuses_the_wrong_type() {
    auto sys = make_system();
    auto a = sys->spawn<Named>({.name = "alpha"}).value();
    auto found = sys->where_is("alpha");
    QVERIFY(found.has_value());
    QCOMPARE(*found, a);
    QCOMPARE(QString::fromStdString(found->name()), QStringLiteral("alpha"));
    QVERIFY(sys->where_is<int>("alpha").has_value());
    QVERIFY2(!sys->where_is<std::string>("alpha").has_value(), "a typed lookup must check the message type");
    QVERIFY(!sys->where_is("beta").has_value());
    QVERIFY(sys->where_is<int>("alpha")->cast(1));
  }

  void a_duplicate_name_is_refused_and_the_first_actor_keeps_it() {
    auto sys = make_system();
    auto first = sys->spawn<Named>({.name = "unique"}).value();
    auto second = sys->spawn<OtherType>({.name = "unique"});
    QVERIFY(!second);
    QCOMPARE(second.error().kind(), as::SpawnError::Kind::name_taken);
    const std::string what = second.error().what();
    QVERIFY2(what.find("\"unique\"") != std::string::npos, what.c_str());
    QVERIFY2(what.find(first.id().to_string()) != std::string::npos, what.c_str());
    QCOMPARE(*sys->where_is("unique"), first);
    QCOMPARE(sys->actor_count(), std::size_t{1});
  }

  void a_failed_spawn_does_not_keep_its_name() {
    auto sys = make_system();
    auto broken = sys->spawn<Broken>({.name = "service"});
    QVERIFY(!broken);
    QVERIFY(!sys->where_is("service"));
    auto good = sys->spawn<Named>({.name = "service"});
    QVERIFY2(good.has_value(), "the name should be free again after a failed spawn");
  }

  void the_name_is_freed_as_the_actor_begins_stopping_and_can_be_reused_after() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Named{.probe = &probe}, {.name = "worker"}).value();
    QVERIFY(a.stop_and_wait(kTimeout));
    QVERIFY(probe.contains("name free in post_stop"));
    QVERIFY(!sys->where_is("worker"));
    auto b = sys->spawn<Named>({.name = "worker"});
    QVERIFY(b.has_value());
    QVERIFY(*sys->where_is("worker") != a);
  }

  void a_killed_actor_frees_its_name_too() {
    auto sys = make_system();
    auto a = sys->spawn<Named>({.name = "doomed"}).value();
    QVERIFY(a.kill_and_wait(kTimeout));
    QVERIFY(!sys->where_is("doomed"));
    QVERIFY(sys->spawn<Named>({.name = "doomed"}).has_value());
  }

  void registered_lists_the_names_sorted() {
    auto sys = make_system();
    for (const char* n : {"charlie", "alpha", "bravo"}) QVERIFY(sys->spawn<Named>({.name = n}).has_value());
    QVERIFY(sys->spawn<Named>({}).has_value());  // unnamed actors are not listed
    QCOMPARE(sys->registered(), (std::vector<std::string>{"alpha", "bravo", "charlie"}));
  }

  void every_system_has_its_own_registry() {
    auto one = make_system();
    auto two = make_system();
    QVERIFY(one->spawn<Named>({.name = "same"}).has_value());
    QVERIFY2(two->spawn<Named>({.name = "same"}).has_value(), "registries must not be shared between Systems");
    QVERIFY(one->where_is("same") != two->where_is("same"));
  }
};

QTEST_GUILESS_MAIN(TestRegistry)
#include "tst_registry.moc"
