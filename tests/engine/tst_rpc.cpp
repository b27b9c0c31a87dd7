// RPC on every runtime: call and its three outcomes, from outside (blocking) and from a coroutine
// handler (co_await), the reply port's deadline, multi_call and call_and_forward.
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

// Calls through its own Context, as API-SKETCH.md reads.
struct ContextClient {
  using Message = as::ActorRef<CounterMsg>;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<ContextClient>& ctx, as::ActorRef<CounterMsg> counter, std::monostate&) {
    as::CallResult<int> total = co_await ctx.call(counter, as::rpc<Get>, 5s);
    probe->record(total ? "total = " + std::to_string(*total) : "failed: " + total.error());
  }
};

using Counters = std::vector<as::ActorRef<CounterMsg>>;

// Asks several counters at once from a coroutine handler.
struct Poller {
  using Message = Counters;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Poller>&, Counters counters, std::monostate&) {
    std::vector<as::CallResult<int>> results = co_await as::multi_call(counters, as::rpc<Get>, 5s);
    std::string line = "polled";
    for (const auto& r : results) line += r ? " " + std::to_string(*r) : " error";
    probe->record(line);
  }
};

struct BlockingPoller {
  using Message = Counters;
  Probe* probe = nullptr;
  void handle(as::Context<BlockingPoller>&, Counters counters, std::monostate&) {
    try {
      (void)as::multi_call(counters, as::rpc<Get>, 1s).get();
      probe->record("blocked");
    } catch (const as::BlockingWaitError&) {
      probe->record("refused");
    }
  }
};

// Wraps a call (or a multi_call) in as::timeout from a coroutine handler: the way sleep.hpp says
// a call can be bounded. `slow` makes the counter wait on a gate before it answers.
struct TimedCall {
  as::ActorRef<CounterMsg> counter;
  as::Duration limit{};
  Gate* slow = nullptr;
  bool multi = false;
};
struct TimedCaller {
  using Message = TimedCall;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<TimedCaller>&, TimedCall m, std::monostate&) {
    if (m.multi) {
      const Counters twice{m.counter, m.counter};
      auto all = co_await as::timeout(m.limit, as::multi_call(twice, as::rpc<Get>));
      if (!all) {
        probe->record("timed out: " + all.error().what_text());
      } else {
        probe->record("in time: " + std::to_string(all->size()) + " results, first " +
                      std::to_string((*all)[0].value()) + ", second " + std::to_string((*all)[1].value()));
      }
      co_return;
    }
    as::Expected<as::CallResult<int>, as::TimedOut> r = as::unexpected(as::TimedOut{});
    if (m.slow == nullptr) {
      r = co_await as::timeout(m.limit, m.counter.call(as::rpc<Get>));
    } else {
      r = co_await as::timeout(m.limit, m.counter.call([gate = m.slow](as::Reply<int> reply) {
        return SlowGet{gate, std::move(reply)};
      }));
    }
    if (!r) {
      probe->record("timed out: " + r.error().what_text());
    } else if (r->is_success()) {
      probe->record("in time: " + std::to_string(**r));
    } else {
      probe->record("call failed: " + r->error());
    }
  }
};

struct Sink {
  using Message = std::string;
  Probe* probe = nullptr;
  void handle(as::Context<Sink>&, std::string s, std::monostate&) { probe->record(s); }
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

  void a_call_wrapped_in_timeout_gives_its_reply_when_it_comes_in_time() {
    Probe probe;
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 41).value();
    auto caller = sys->spawn(TimedCaller{.probe = &probe}, {}).value();
    QVERIFY(c.cast(Add{1}));
    QVERIFY(caller.cast(TimedCall{.counter = c, .limit = kTimeout}));
    QVERIFY(probe.wait_for(*sys, "in time: 42"));
    QVERIFY(caller.cast(TimedCall{.counter = c, .limit = kTimeout, .multi = true}));
    QVERIFY(probe.wait_for(*sys, "in time: 2 results, first 42, second 42"));
    QCOMPARE(probe.events().size(), std::size_t{2});
  }

  void a_call_wrapped_in_timeout_that_runs_out_gives_timed_out_and_closes_the_reply_port() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto c = sys->spawn(Counter{.probe = &probe}, {}, 7).value();
    auto caller = sys->spawn(TimedCaller{.probe = &probe}, {}).value();
    QVERIFY(caller.cast(TimedCall{.counter = c, .limit = 30ms, .slow = &gate}));
    QVERIFY(probe.wait_for(*sys, "timed out: timed out after 30 ms"));
    QVERIFY(!probe.contains("late reply refused"));  // the counter is still waiting on the gate
    // The caller gave up: the callee sees its port closed, and its late answer is refused.
    gate.open();
    QVERIFY(probe.wait_for(*sys, "late reply refused"));
    QVERIFY(probe.contains("port closed"));
    QVERIFY(!probe.contains("late reply delivered"));
    // Nothing of the abandoned call is left behind: both actors go on as before.
    QVERIFY(caller.cast(TimedCall{.counter = c, .limit = kTimeout}));
    QVERIFY(probe.wait_for(*sys, "in time: 7"));
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

  void a_handler_calls_through_its_context_and_awaits_the_reply() {
    Probe probe;
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 7).value();
    auto client = sys->spawn(ContextClient{.probe = &probe}, {}).value();
    QVERIFY(client.cast(c));
    QVERIFY(probe.wait_for(*sys, "total = 7"));
  }

  void multi_call_keeps_the_order_of_its_targets() {
    auto sys = make_system();
    Counters counters;
    for (int i = 0; i < 5; ++i) counters.push_back(sys->spawn<Counter>({}, 50 - 10 * i).value());
    std::vector<as::CallResult<int>> results = as::multi_call(counters, as::rpc<Get>, kTimeout).get();
    QCOMPARE(results.size(), std::size_t{5});
    for (int i = 0; i < 5; ++i) QCOMPARE(results[static_cast<std::size_t>(i)].value(), 50 - 10 * i);
    QVERIFY(as::multi_call(Counters{}, as::rpc<Get>).get().empty());
  }

  void multi_call_times_out_on_every_slow_target() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    Counters counters;
    for (int i = 0; i < 3; ++i) counters.push_back(sys->spawn(Counter{.probe = &probe}, {}, i).value());
    auto results =
        as::multi_call(counters, [&](as::Reply<int> reply) { return SlowGet{&gate, std::move(reply)}; }, 30ms).get();
    QCOMPARE(results.size(), std::size_t{3});
    for (const auto& r : results) QVERIFY2(r.is_timeout(), r.error().c_str());
    gate.open();
    QVERIFY(probe.wait_count(*sys, "late reply refused", 3));
  }

  void multi_call_gives_a_sender_error_for_a_stopped_member_only() {
    auto sys = make_system();
    Counters counters;
    for (int i = 0; i < 3; ++i) counters.push_back(sys->spawn<Counter>({}, i + 1).value());
    QVERIFY(counters[1].stop_and_wait(kTimeout));
    auto results = as::multi_call(counters, as::rpc<Get>, kTimeout).get();
    QCOMPARE(results[0].value(), 1);
    QVERIFY(results[1].is_sender_error());
    QVERIFY2(results[1].error().find("stopped") != std::string::npos, results[1].error().c_str());
    QCOMPARE(results[2].value(), 3);
    QVERIFY_THROWS_EXCEPTION(as::CallError, (void)as::multi_call(Counters{as::ActorRef<CounterMsg>()}, as::rpc<Get>));
  }

  void a_coroutine_handler_awaits_a_multi_call() {
    Probe probe;
    auto sys = make_system();
    Counters counters{sys->spawn<Counter>({}, 4).value(), sys->spawn<Counter>({}, 2).value()};
    QVERIFY(counters[1].stop_and_wait(kTimeout));
    counters.push_back(sys->spawn<Counter>({}, 9).value());
    auto poller = sys->spawn(Poller{.probe = &probe}, {}).value();
    QVERIFY(poller.cast(counters));
    QVERIFY(probe.wait_for(*sys, "polled 4 error 9"));
  }

  void a_blocking_multi_call_inside_an_actor_is_refused() {
    Probe probe;
    auto sys = make_system();
    auto poller = sys->spawn(BlockingPoller{.probe = &probe}, {}).value();
    QVERIFY(poller.cast(Counters{}));  // refused even when there is nothing to wait for
    QVERIFY(probe.wait_for(*sys, "refused"));
    QVERIFY(!probe.contains("blocked"));
  }

  void call_and_forward_delivers_the_mapped_reply() {
    Probe probe;
    auto sys = make_system();
    auto c = sys->spawn<Counter>({}, 10).value();
    auto sink = sys->spawn(Sink{.probe = &probe}, {}).value();
    QVERIFY(c.cast(Add{5}));
    as::JoinHandle<as::ForwardResult> h =
        as::call_and_forward(c, as::rpc<Get>, sink, [](int total) { return "total=" + std::to_string(total); }, kTimeout);
    QVERIFY(probe.wait_for(*sys, "total=15"));
    QVERIFY(h.wait(kTimeout));
    QCOMPARE(h.result()->status, as::ForwardStatus::forwarded);
    QVERIFY(static_cast<bool>(*h.result()));
  }

  void call_and_forward_forwards_nothing_when_the_call_fails() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto sink = sys->spawn(Sink{.probe = &probe}, {}).value();
    auto map = [](int total) { return "total=" + std::to_string(total); };

    auto dead = sys->spawn<Counter>({}, 1).value();
    QVERIFY(dead.stop_and_wait(kTimeout));
    auto h1 = as::call_and_forward(dead, as::rpc<Get>, sink, map, kTimeout);
    QVERIFY(h1.wait(kTimeout));
    QCOMPARE(h1.result()->status, as::ForwardStatus::sender_error);

    auto slow = sys->spawn(Counter{.probe = &probe}, {}, 2).value();
    auto h2 = as::call_and_forward(
        slow, [&](as::Reply<int> reply) { return SlowGet{&gate, std::move(reply)}; }, sink, map, 20ms);
    QVERIFY(h2.wait(kTimeout));
    QCOMPARE(h2.result()->status, as::ForwardStatus::timeout);
    gate.open();
    QVERIFY(probe.wait_for(*sys, "late reply refused"));

    QVERIFY(sink.cast(std::string("marker")));
    QVERIFY(probe.wait_for(*sys, "marker"));
    QCOMPARE(probe.count("total=1") + probe.count("total=2"), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestRpc)
#include "tst_rpc.moc"
