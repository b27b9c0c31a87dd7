// RPC on every runtime: call and its three outcomes, from outside (blocking) and from a coroutine
// handler (co_await), and the reply port's deadline.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

struct Add {
  int n;
};
struct Get {
  as::Reply<int> reply;
};
struct SlowGet {
  Gate* gate;
  as::Reply<int> reply;
};
struct Deadline {
  as::Reply<std::string> reply;
};
struct Crash {
  as::Reply<int> reply;
};
using CounterMsg = std::variant<Add, Get, SlowGet, Deadline, Crash>;

struct Counter {
  using Message = CounterMsg;
  using State = int;
  using Arguments = int;
  Probe* probe = nullptr;
  int pre_start(as::Context<Counter>&, int start) { return start; }
  as::Task<> handle(as::Context<Counter>&, Message msg, int& total) {
    if (auto* a = std::get_if<Add>(&msg)) total += a->n;
    if (auto* g = std::get_if<Get>(&msg)) g->reply.send(total);
    if (auto* s = std::get_if<SlowGet>(&msg)) {
      co_await s->gate->opened();
      probe->record(s->reply.is_closed() ? "port closed" : "port open");  // the caller gave up
      const bool delivered = s->reply.send(total);
      probe->record(delivered ? "late reply delivered" : "late reply refused");
    }
    if (auto* d = std::get_if<Deadline>(&msg)) {
      const as::Duration left = d->reply.remaining();
      std::string what = d->reply.deadline() == as::TimePoint::max() ? "no deadline" : "has deadline";
      if (left != as::no_timeout && left > 0ms && left <= 5s) what += ", budget within 5s";
      d->reply.send(what);
    }
    if (std::holds_alternative<Crash>(msg)) throw std::runtime_error("counter crashed");
  }
};

// Calls the counter from a coroutine handler and reports what it got.
struct Client {
  using Message = as::ActorRef<CounterMsg>;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Client>&, as::ActorRef<CounterMsg> counter, std::monostate&) {
    as::CallResult<int> r = co_await counter.call(as::rpc<Get>, 5s);
    probe->record(r ? "client got " + std::to_string(*r) : "client failed: " + r.error());
  }
};

struct BlockingClient {
  using Message = as::ActorRef<CounterMsg>;
  Probe* probe = nullptr;
  void handle(as::Context<BlockingClient>&, as::ActorRef<CounterMsg> counter, std::monostate&) {
    try {
      (void)counter.call(as::rpc<Get>, 1s).get();
      probe->record("blocked");
    } catch (const as::BlockingWaitError&) {
      probe->record("refused");
    }
  }
};

}  // namespace

class TestRpc : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void call_gives_the_reply() {
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 10).value();
    QVERIFY(c.cast(Add{5}));
    as::CallResult<int> r = c.call(as::rpc<Get>, kTimeout).get();
    QVERIFY(r.is_success());
    QCOMPARE(*r, 15);
    QCOMPARE(r.value(), 15);
    QVERIFY(r.error().empty());
    // Without a timeout too.
    QCOMPARE(c.call(as::rpc<Get>).get().value(), 15);
  }

  void a_lambda_builds_requests_with_more_fields() {
    struct Scaled {
      int factor;
      as::Reply<int> reply;
    };
    struct Scaler {
      using Message = Scaled;
      void handle(as::Context<Scaler>&, Scaled s, std::monostate&) { s.reply.send(s.factor * 3); }
    };
    auto sys = make_system();
    auto s = sys->spawn<Scaler>({}).value();
    auto r = s.call([](as::Reply<int> reply) { return Scaled{7, std::move(reply)}; }, kTimeout).get();
    QCOMPARE(r.value(), 21);
  }

  void a_slow_handler_gives_timeout_and_its_late_reply_is_refused() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto c = sys->spawn(Counter{.probe = &probe}, {}, 0).value();
    as::CallResult<int> r = c.call([&](as::Reply<int> reply) { return SlowGet{&gate, std::move(reply)}; }, 30ms).get();
    QVERIFY(r.is_timeout());
    QVERIFY2(r.error().find("within 30 ms") != std::string::npos, r.error().c_str());
    QVERIFY_THROWS_EXCEPTION(as::CallError, (void)r.value());
    gate.open();
    QVERIFY(probe.wait_for(*sys, "late reply refused"));
    QVERIFY(probe.contains("port closed"));
  }

  void a_call_to_a_dead_actor_fails_at_once_and_never_hangs() {
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 0).value();
    QVERIFY(c.stop_and_wait(kTimeout));
    const auto t0 = std::chrono::steady_clock::now();
    as::CallResult<int> r = c.call(as::rpc<Get>).get();  // no timeout: it must not wait at all
    QVERIFY(std::chrono::steady_clock::now() - t0 < 5s);
    QVERIFY(r.is_sender_error());
    QVERIFY2(r.error().find("stopped") != std::string::npos, r.error().c_str());
  }

  void a_callee_that_fails_while_handling_fails_the_call() {
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 0).value();
    as::CallResult<int> r = c.call(as::rpc<Crash>, kTimeout).get();
    QVERIFY(r.is_sender_error());
    QVERIFY(c.wait(kTimeout));
    QCOMPARE(c.exit()->kind, as::ExitKind::failed);
  }

  void the_reply_port_carries_the_callers_deadline() {
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 0).value();
    QCOMPARE(QString::fromStdString(c.call(as::rpc<Deadline>, 5s).get().value()),
             QStringLiteral("has deadline, budget within 5s"));
    QCOMPARE(QString::fromStdString(c.call(as::rpc<Deadline>).get().value()), QStringLiteral("no deadline"));
  }

  void a_coroutine_handler_awaits_a_call_without_blocking() {
    Probe probe;
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 41).value();
    auto client = sys->spawn(Client{.probe = &probe}, {}).value();
    QVERIFY(c.cast(Add{1}));
    QVERIFY(client.cast(c));
    QVERIFY(probe.wait_for(*sys, "client got 42"));
    QVERIFY(c.stop_and_wait(kTimeout));
    QVERIFY(client.cast(c));
    QVERIFY(probe.wait_until(*sys, [](const auto& ev) { return ev.size() == 2; }));
    QVERIFY2(probe.events().back().rfind("client failed: ", 0) == 0, probe.events().back().c_str());
  }

  void a_blocking_get_inside_an_actor_is_refused() {
    Probe probe;
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 0).value();
    auto client = sys->spawn(BlockingClient{.probe = &probe}, {}).value();
    QVERIFY(client.cast(c));
    QVERIFY(probe.wait_for(*sys, "refused"));
    QVERIFY(!probe.contains("blocked"));
  }
};

QTEST_GUILESS_MAIN(TestRpc)
#include "tst_rpc.moc"
