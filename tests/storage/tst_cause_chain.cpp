// "Why did this actor fail?", on every runtime: a recording at full detail holds what each send was
// caused by (the message its sender was handling), and SessionReader::cause_chain follows a failure
// back through the messages to the one sent from outside. At sampled detail the chain says where it
// has gaps; at lifecycle detail, and in recordings from before causes were kept, it says that they
// were not recorded. A killed actor's chain starts at the last message it handled.
#include "recording_test.hpp"
#include "relay_chain.hpp"
#include "sqlite_test.hpp"

using namespace recording_test;
namespace obs = as::observe;

namespace {

struct Chain {
  as::ActorRef<Step> first, middle, last;
};

/// outside -> first -> middle -> last, which throws: three hops.
Chain run_chain(as::System& sys, Probe& probe) {
  Chain c;
  c.last = sys.spawn(Relay{std::nullopt, "last", &probe}, {.name = "last"}).value();
  c.middle = sys.spawn(Relay{c.last, "middle", &probe}, {.name = "middle"}).value();
  c.first = sys.spawn(Relay{c.middle, "first", &probe}, {.name = "first"}).value();
  // Unrelated traffic from outside to the same actors, so that the chain must pick the right messages.
  for (int i = 0; i < 50; ++i) {
    (void)c.middle.cast(Step{1000 + i});
    (void)c.last.cast(Step{2000 + i});
  }
  (void)c.first.cast(Step{1});
  return c;
}

std::int64_t only_session(const as::SessionReader& r) {
  const auto s = r.sessions();
  return s.empty() ? 0 : s.back().id;
}

}  // namespace

class TestCauseChain : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_failure_three_hops_deep_is_followed_back_to_the_message_from_outside() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "chain.db");
    Probe probe;
    as::ActorId first, middle, last;
    {
      as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 5ms});
      auto sys = make_system();
      sys->attach(rec);
      Chain c = run_chain(*sys, probe);
      first = c.first.id();
      middle = c.middle.id();
      last = c.last.id();
      QVERIFY(c.last.wait(kTimeout));
      QCOMPARE(c.last.exit()->kind, as::ExitKind::failed);
    }
    const as::SessionReader r(file);
    const as::CauseChain chain = r.cause_chain(only_session(r), last);
    QVERIFY(chain.exit.has_value());
    QCOMPARE(chain.exit->kind, obs::EventKind::failed);
    QVERIFY2(chain.hops.size() == 3, chain.explanation.c_str());
    QCOMPARE(chain.end, as::CauseChain::End::outside);
    // The message whose handling threw, sent by `middle`...
    QCOMPARE(chain.hops[0].handled.actor, last);
    QCOMPARE(chain.hops[0].handled.peer, middle);
    QVERIFY(chain.hops[0].handled.failed);
    QVERIFY(chain.hops[0].handled.message_type.find("Step") != std::string_view::npos);
    QVERIFY(chain.hops[0].sent.has_value());
    // ... while handling the Step from `first` (not one of the 50 from outside) ...
    QCOMPARE(chain.hops[1].handled.actor, middle);
    QCOMPARE(chain.hops[1].handled.peer, first);
    QCOMPARE(chain.hops[1].handled.trace, chain.hops[0].sent->cause);
    // ... which `first` sent while handling the message from outside.
    QCOMPARE(chain.hops[2].handled.actor, first);
    QCOMPARE(chain.hops[2].handled.peer, as::ActorId{});
    QCOMPARE(chain.hops[2].handled.trace, chain.hops[1].sent->cause);
    QVERIFY(chain.hops[2].sent.has_value());
    QCOMPARE(chain.hops[2].sent->cause, std::uint64_t{0});
    QVERIFY2(chain.explanation.find("outside") != std::string::npos, chain.explanation.c_str());
    QVERIFY(chain.exit->text.find("last cannot take step 3") != std::string::npos);

    // A cap on hops says the chain goes on.
    const as::CauseChain short_chain = r.cause_chain(only_session(r), last, 2);
    QCOMPARE(short_chain.hops.size(), std::size_t{2});
    QCOMPARE(short_chain.end, as::CauseChain::End::limit);
    // An actor that did not fail has no chain, and says why.
    const as::CauseChain none = r.cause_chain(only_session(r), first);
    QVERIFY(none.hops.empty());
    QCOMPARE(none.end, as::CauseChain::End::not_ended);
    QVERIFY(!none.explanation.empty());
  }

  void a_killed_actors_chain_starts_at_the_last_message_it_handled() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "killed.db");
    Probe probe;
    as::ActorId victim;
    {
      as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 5ms});
      auto sys = make_system();
      sys->attach(rec);
      auto sink = sys->spawn(Relay{std::nullopt, "sink", &probe}, {}).value();
      auto forwarder = sys->spawn(Relay{sink, "fwd", &probe}, {}).value();
      (void)forwarder.cast(Step{7});
      QVERIFY(probe.wait_for(*sys, "sink got 8"));
      victim = forwarder.id();
      QVERIFY(forwarder.kill_and_wait(kTimeout));
    }
    const as::SessionReader r(file);
    const as::CauseChain chain = r.cause_chain(only_session(r), victim);
    QVERIFY(chain.exit.has_value());
    QCOMPARE(chain.exit->kind, obs::EventKind::killed);
    QCOMPARE(chain.hops.size(), std::size_t{1});
    QCOMPARE(chain.hops[0].handled.actor, victim);
    QCOMPARE(chain.end, as::CauseChain::End::outside);
  }

  void at_sampled_detail_the_chain_says_where_it_has_gaps() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "sampled.db");
    Probe probe;
    as::ActorId last;
    {
      // One message in 1,000: the chain's messages are almost surely not sampled.
      as::Recorder rec(file, {.detail = as::Detail::sampled, .sample_every = 1000, .stats_interval = 5ms});
      auto sys = make_system();
      sys->attach(rec);
      Chain c = run_chain(*sys, probe);
      last = c.last.id();
      QVERIFY(c.last.wait(kTimeout));
    }
    const as::SessionReader r(file);
    const as::CauseChain chain = r.cause_chain(only_session(r), last);
    QVERIFY(chain.exit.has_value());
    QVERIFY(chain.end == as::CauseChain::End::not_sampled || chain.end == as::CauseChain::End::other_hook);
    QVERIFY2(chain.explanation.find("sampl") != std::string::npos, chain.explanation.c_str());
  }

  void without_message_events_or_causes_the_chain_says_they_were_not_recorded() {
    QTemporaryDir dir;
    Probe probe;
    // lifecycle detail: no message events at all
    const auto lifecycle = path_in(dir, "lifecycle.db");
    as::ActorId last;
    {
      as::Recorder rec(lifecycle, {.detail = as::Detail::lifecycle, .stats_interval = 5ms});
      auto sys = make_system();
      sys->attach(rec);
      Chain c = run_chain(*sys, probe);
      last = c.last.id();
      QVERIFY(c.last.wait(kTimeout));
    }
    {
      const as::SessionReader r(lifecycle);
      const as::CauseChain chain = r.cause_chain(only_session(r), last);
      QCOMPARE(chain.end, as::CauseChain::End::not_recorded);
      QVERIFY(chain.hops.empty());
      QVERIFY2(chain.explanation.find("full detail") != std::string::npos, chain.explanation.c_str());
    }
    // A format-3 recording: the messages are there, their causes are not.
    const auto old = path_in(dir, "format3.db");
    {
      as::Recorder rec(old, {.detail = as::Detail::full, .stats_interval = 5ms});
      auto sys = make_system();
      sys->attach(rec);
      Chain c = run_chain(*sys, probe);
      last = c.last.id();
      QVERIFY(c.last.wait(kTimeout));
    }
    {
      Sqlite db(old);
      QVERIFY(db.exec("ALTER TABLE events DROP COLUMN cause; UPDATE meta SET value = '3' WHERE key = 'format_version'"));
    }
    const as::SessionReader r(old);
    QCOMPARE(r.format_version(), 3);
    const as::CauseChain chain = r.cause_chain(only_session(r), last);
    QCOMPARE(chain.hops.size(), std::size_t{1});  // the failing message is still known
    QCOMPARE(chain.end, as::CauseChain::End::not_recorded);
    QVERIFY2(chain.explanation.find("format 3") != std::string::npos, chain.explanation.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCauseChain)
#include "tst_cause_chain.moc"
