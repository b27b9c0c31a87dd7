// What only the qt runtime does: actors on the GUI thread, urgent events that overtake a flooded
// thread, nested event loops inside a handler, and the errors for using it wrongly.
#include "engine_test.hpp"

#include <QAbstractEventDispatcher>
#include <QApplication>
#include <QEventLoop>
#include <QLabel>
#include <QThread>

#ifndef Q_MOC_RUN
#include <actorscope/qt_runtime.hpp>

#include <map>
#include <semaphore>
#endif

using namespace engine_test;
namespace obs = as::observe;

namespace {

std::unique_ptr<as::System> make_qt_system(unsigned threads) {
  return std::make_unique<as::System>(as::make_runtime("qt", {.threads = threads}));
}

// Lives on the GUI thread and writes into a widget.
struct LabelWriter {
  using Message = std::string;
  QLabel* label = nullptr;
  Probe* probe = nullptr;
  void handle(as::Context<LabelWriter>&, std::string text, std::monostate&) {
    probe->record(QThread::currentThread() == qApp->thread() ? "on the GUI thread" : "on another thread");
    label->setText(QString::fromStdString(text));
    probe->record("label set");
  }
};

struct Reporter {
  using Message = int;
  Probe* probe = nullptr;
  std::string name;
  void post_start(as::Context<Reporter>&, std::monostate&) { probe->record(name + " ready"); }
  void handle(as::Context<Reporter>&, int, std::monostate&) { probe->record(name); }
};

// Blocks its thread until the test releases it (only to set up an exact interleaving).
struct Blocker {
  using Message = int;
  Probe* probe = nullptr;
  std::binary_semaphore* release = nullptr;
  void handle(as::Context<Blocker>&, int, std::monostate&) {
    probe->record("blocking");
    release->acquire();
  }
};

QEventLoop* nested_loop = nullptr;

// Its first message runs a nested event loop; its second must not start until that one returns.
struct Nester {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Nester>&, int m, std::monostate&) {
    if (m == 1) {
      QEventLoop loop;
      nested_loop = &loop;
      probe->record("A1 in nested loop");
      loop.exec();
      nested_loop = nullptr;
      probe->record("A1 left nested loop");
    } else {
      probe->record("A" + std::to_string(m));
    }
  }
};

struct LoopQuitter {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<LoopQuitter>&, int, std::monostate&) {
    probe->record("B ran inside the nested loop");
    if (nested_loop != nullptr) nested_loop->quit();
  }
};

}  // namespace

class TestQtRuntime : public QObject {
  Q_OBJECT

 private slots:
  void an_actor_on_the_gui_thread_updates_a_label() {
    QLabel label;
    Probe probe;
    auto sys = make_qt_system(2);
    auto writer = sys->spawn(LabelWriter{.label = &label, .probe = &probe}, {.placement = as::PlacementRequest::gui()});
    QVERIFY(writer.has_value());
    QVERIFY(writer->cast(std::string("hello from an actor")));
    // A blocking wait on the GUI thread processes its events, so the GUI actor runs meanwhile.
    QVERIFY(probe.wait_for(*sys, "label set"));
    QVERIFY(probe.contains("on the GUI thread"));
    QCOMPARE(label.text(), QStringLiteral("hello from an actor"));
  }

  void worker_actors_never_run_on_the_gui_thread_and_stay_on_their_host() {
    struct WhereAmI {
      using Message = int;
      std::mutex* m = nullptr;
      std::vector<QThread*>* seen = nullptr;
      void handle(as::Context<WhereAmI>&, int, std::monostate&) {
        std::lock_guard lk(*m);
        seen->push_back(QThread::currentThread());
      }
    };
    std::mutex m;
    std::vector<QThread*> seen;
    auto sys = make_qt_system(2);
    auto a = sys->spawn(WhereAmI{.m = &m, .seen = &seen}, {.placement = as::PlacementRequest::on_host(1)}).value();
    for (int i = 0; i < 200; ++i) QVERIFY(a.cast(i));
    QVERIFY(a.drain_and_wait(kTimeout));
    std::lock_guard lk(m);
    QCOMPARE(seen.size(), std::size_t{200});
    QVERIFY(seen.front() != qApp->thread());
    QVERIFY2(std::all_of(seen.begin(), seen.end(), [&](QThread* t) { return t == seen.front(); }),
             "an actor moved between threads: it is pinned to its host");
  }

  // Spawned from outside the runtime, an actor's home is chosen when it first runs. Actors that end
  // in their first drain leave no load behind, so a burst of them stays on one worker instead of
  // waking every worker for a drain or two each.
  void a_burst_of_short_lived_actors_spawned_from_outside_runs_on_one_worker() {
    struct Brief {
      using Message = int;
      Probe* probe = nullptr;
      void post_start(as::Context<Brief>& ctx, std::monostate&) {
        probe->record(QThread::currentThread()->objectName().toStdString());
        ctx.stop();
      }
      void handle(as::Context<Brief>&, int, std::monostate&) {}
    };
    Probe probe;
    auto sys = make_qt_system(2);
    std::vector<as::ActorRef<int>> refs;
    for (int i = 0; i < 200; ++i) refs.push_back(sys->spawn(Brief{.probe = &probe}, {}).value());
    for (auto& r : refs) QVERIFY(r.wait(kTimeout));
    const std::vector<std::string> homes = probe.events();
    QCOMPARE(homes.size(), std::size_t{200});
    QVERIFY2(homes.front().starts_with("actorscope-qt-"), homes.front().c_str());
    QVERIFY2(std::all_of(homes.begin(), homes.end(), [&](const std::string& h) { return h == homes.front(); }),
             "a burst of actors that end in their first drain was spread over the workers");
  }

  // ...while actors that stay alive spread over the workers, and the recorded thread of each is the
  // worker it runs on (unknown at spawn, told by its `started` event).
  void long_lived_actors_spawned_from_outside_spread_over_the_workers_and_report_their_thread() {
    struct Resident {
      using Message = int;
      Probe* probe = nullptr;
      void post_start(as::Context<Resident>& ctx, std::monostate&) {
        probe->record(std::to_string(ctx.self().id().pid) + " " + QThread::currentThread()->objectName().toStdString());
      }
      void handle(as::Context<Resident>&, int, std::monostate&) {}
    };
    constexpr std::size_t kActors = 16;
    Probe probe;
    auto sys = make_qt_system(2);
    obs::EventCollector collector;
    sys->attach(collector);
    for (std::size_t i = 0; i < kActors; ++i) QVERIFY(sys->spawn(Resident{.probe = &probe}, {}).has_value());
    QVERIFY(probe.wait_until(*sys, [&](const std::vector<std::string>& ev) { return ev.size() == kActors; }));
    sys->shutdown();

    std::vector<obs::Event> events;
    collector.drain(events, true);
    obs::SystemState state;
    for (const obs::Event& e : events) {
      if (e.kind == obs::EventKind::spawned)
        QCOMPARE(e.thread, obs::no_thread);  // not chosen yet
      state.apply(e);
    }
    std::map<std::uint32_t, std::size_t> per_worker;
    for (const std::string& line : probe.events()) {
      const auto space = line.find(' ');
      const std::uint64_t pid = std::stoull(line.substr(0, space));
      const std::string thread = line.substr(space + 1);
      QVERIFY2(thread.starts_with("actorscope-qt-"), thread.c_str());
      const auto worker = static_cast<std::uint32_t>(std::stoul(thread.substr(std::string("actorscope-qt-").size())));
      const obs::ActorRecord* a = state.actor(as::ActorId{0, pid});
      QVERIFY(a != nullptr);
      QCOMPARE(a->thread, worker);
      ++per_worker[worker];
    }
    QCOMPARE(per_worker.size(), std::size_t{2});
    for (const auto& [worker, n] : per_worker)
      QVERIFY2(n >= kActors / 4, qPrintable(QString("worker %1 got only %2 of %3 long-lived actors").arg(worker).arg(n).arg(kActors)));
  }

  void worker_threads_use_qts_own_dispatcher_unless_told_to_inherit_and_the_environment_is_restored() {
    struct DispatcherName {
      using Message = as::Reply<std::string>;
      void handle(as::Context<DispatcherName>&, as::Reply<std::string> r, std::monostate&) {
        r.send(QAbstractEventDispatcher::instance()->metaObject()->className());
      }
    };
    const bool preset = qEnvironmentVariableIsSet("QT_NO_GLIB");
    auto name_on_worker = [](as::RuntimeOptions::QtDispatcher d) {
      as::System sys(as::make_runtime("qt", {.threads = 1, .qt_worker_dispatcher = d}));
      auto a = sys.spawn<DispatcherName>().value();
      return a.call([](as::Reply<std::string> r) { return r; }, kTimeout).get().value();
    };
    QCOMPARE(name_on_worker(as::RuntimeOptions::QtDispatcher::own), std::string("QEventDispatcherUNIX"));
    QCOMPARE(qEnvironmentVariableIsSet("QT_NO_GLIB"), preset);  // only set while the workers start
    if (!preset && QAbstractEventDispatcher::instance()->inherits("QEventDispatcherGlib"))
      QCOMPARE(name_on_worker(as::RuntimeOptions::QtDispatcher::inherit), std::string("QEventDispatcherGlib"));
  }

  void an_urgent_kill_overtakes_a_thread_flooded_with_other_work() {
    Probe probe;
    std::binary_semaphore release(0);
    auto sys = make_qt_system(1);
    auto target = sys->spawn(Reporter{.probe = &probe, .name = "target"}, {}).value();
    QVERIFY(probe.wait_for(*sys, "target ready"));
    target.join_handle().on_finished([&](const auto&) { probe.record("target died"); });
    auto blocker = sys->spawn(Blocker{.probe = &probe, .release = &release}, {}).value();
    QVERIFY(blocker.cast(1));
    QVERIFY(probe.wait_for(*sys, "blocking"));  // the only worker thread is now busy
    // Flood its queue: 300 actors, each with a start and a message waiting at normal priority.
    std::vector<as::ActorRef<int>> flood;
    for (int i = 0; i < 300; ++i) {
      flood.push_back(sys->spawn(Reporter{.probe = &probe, .name = "flood"}, {}).value());
      QVERIFY(flood.back().cast(i));
    }
    target.kill();  // posted at high priority, behind all of that
    release.release();
    QVERIFY(target.wait(kTimeout));
    QVERIFY(probe.wait_count(*sys, "flood", 300));
    const int died = probe.index_of("target died");
    const int first_flood = std::min(probe.index_of("flood ready"), probe.index_of("flood"));
    QVERIFY(died >= 0 && first_flood >= 0);
    QVERIFY2(died < first_flood, "the kill waited behind the flood instead of overtaking it");
  }

  void a_nested_event_loop_in_a_handler_does_not_re_enter_its_actor() {
    Probe probe;
    auto sys = make_qt_system(1);
    auto a = sys->spawn(Nester{.probe = &probe}, {}).value();
    auto b = sys->spawn(LoopQuitter{.probe = &probe}, {}).value();
    QVERIFY(a.cast(1));
    QVERIFY(probe.wait_for(*sys, "A1 in nested loop"));
    QVERIFY(a.cast(2));  // queued behind the running handler: must wait for it
    QVERIFY(b.cast(0));  // the same thread, reached through the nested loop
    QVERIFY(probe.wait_for(*sys, "A2"));
    const auto at = [&](const char* e) { return probe.index_of(e); };
    QVERIFY(at("A1 in nested loop") < at("B ran inside the nested loop"));
    QVERIFY(at("B ran inside the nested loop") < at("A1 left nested loop"));
    QVERIFY2(at("A1 left nested loop") < at("A2"), "the actor was re-entered from its own nested loop");
  }

  void creating_the_runtime_off_the_application_thread_is_refused() {
    std::string error;
    std::thread other([&] {
      try {
        (void)as::make_runtime("qt");
      } catch (const as::QtRuntimeError& e) {
        error = e.what();
      }
    });
    other.join();
    QVERIFY2(error.find("thread that owns the Q(Core)Application") != std::string::npos, error.c_str());
  }

  void asking_to_own_the_application_when_one_exists_is_refused() {
    as::RuntimeOptions o;
    o.qt_application = as::RuntimeOptions::QtApplication::owned;
    QVERIFY_THROWS_EXCEPTION(as::QtRuntimeError, (void)as::make_runtime("qt", o));
    o.qt_application = as::RuntimeOptions::QtApplication::existing;
    auto rt = as::make_runtime("qt", o);
    QVERIFY(!static_cast<as::QtRuntime&>(*rt).owns_application());
  }

  void a_blocking_wait_inside_a_gui_thread_actor_is_refused() {
    struct Impatient {
      using Message = as::ActorCell;
      Probe* probe = nullptr;
      void handle(as::Context<Impatient>&, as::ActorCell other, std::monostate&) {
        try {
          (void)other.wait(1s);
          probe->record("waited");
        } catch (const as::BlockingWaitError&) {
          probe->record("refused");
        }
      }
    };
    Probe probe;
    auto sys = make_qt_system(1);
    auto other = sys->spawn(Reporter{.probe = &probe, .name = "other"}, {}).value();
    auto gui = sys->spawn(Impatient{.probe = &probe}, {.placement = as::PlacementRequest::gui()}).value();
    QVERIFY(gui.cast(other));
    QVERIFY(probe.wait_for(*sys, "refused"));
  }
};

QTEST_MAIN(TestQtRuntime)
#include "tst_qt_runtime.moc"
