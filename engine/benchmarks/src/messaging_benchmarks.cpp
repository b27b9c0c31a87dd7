// Messaging: casts of 8, 64 and 256 bytes from outside the actor, ping-pong between two actors,
// fan-out from one sender to 1,000 actors, and the call (RPC) round trip from outside and between
// actors.
#include "workload_support.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>

namespace actorscope::bench::detail {

namespace {

// ---------------------------------------------------------------------------------------------
// Messages cast from outside (ractor's small_messages / large_messages, with more messages).

template <std::size_t Bytes>
struct Payload {
  static_assert(Bytes % 8 == 0);
  std::array<std::uint64_t, Bytes / 8> words{};
};

template <std::size_t Bytes>
struct CountingActor {
  using Message = Payload<Bytes>;
  using State = std::uint64_t;
  std::uint64_t target = 0;
  State pre_start(as::Context<CountingActor>&) { return 0; }
  void handle(as::Context<CountingActor>& ctx, const Message&, State& handled) {
    if (++handled == target) ctx.stop();
  }
};

template <std::size_t Bytes>
class OutsideCasts final : public Workload {
 public:
  OutsideCasts(System& sys, std::uint64_t n) : sys_(sys), n_(n) {}
  Sample sample() override {
    using A = CountingActor<Bytes>;
    ActorRef<Payload<Bytes>> actor = spawned(sys_.spawn(A{.target = n_}, {}));
    Payload<Bytes> p;
    const TimePoint t0 = Clock::now();
    for (std::uint64_t i = 0; i < n_; ++i) {
      p.words[0] = i;
      if (!actor.cast(p)) throw WorkloadError("the counting actor refused a message");
    }
    const ActorRef<Payload<Bytes>> one[] = {actor};
    wait_all(std::span<const ActorRef<Payload<Bytes>>>(one));
    return measured(ns_between(t0, Clock::now()));
  }

 private:
  System& sys_;
  std::uint64_t n_;
};

template <std::size_t Bytes>
Benchmark outside_casts() {
  constexpr std::uint64_t n = 100000;
  BenchmarkInfo i;
  i.name = "Casting 100000 messages of " + std::to_string(Bytes) + " bytes from outside";
  i.group = "messaging";
  i.description = "A thread outside the runtime casts 100,000 messages of " + std::to_string(Bytes) +
                  " bytes to one actor, which stops after the last; timed from the first cast to its exit. "
                  "The actor is spawned untimed.";
  i.elements = static_cast<double>(n);
  i.element = "message";
  i.throughput = true;
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [n](System& s) { return std::make_unique<OutsideCasts<Bytes>>(s, n); }};
}

// ---------------------------------------------------------------------------------------------
// Ping-pong: a ball goes back and forth between two actors, pinned to different threads where the
// runtime pins (qt); the asio pool keeps them on one thread while their handlers are short.

struct PingShared {
  std::vector<double> round_trips;
  std::optional<Countdown> done;
};

struct Ball {
  TimePoint sent;
};
struct Serve {
  std::size_t rounds;
  PingShared* out;
};
using PongMsg = std::variant<Ball, ActorRef<std::variant<Serve, Ball>>>;
using PingMsg = std::variant<Serve, Ball>;

struct Ponger {
  using Message = PongMsg;
  using State = ActorRef<PingMsg>;  // the partner, once connected
  void handle(as::Context<Ponger>&, Message& m, State& partner) {
    if (auto* b = std::get_if<Ball>(&m)) {
      (void)partner.cast(*b);
    } else {
      partner = std::get<ActorRef<PingMsg>>(std::move(m));
    }
  }
};

struct Pinger {
  using Message = PingMsg;
  struct State {
    ActorRef<PongMsg> partner;
    PingShared* out = nullptr;
    std::size_t left = 0;
  };
  using Arguments = ActorRef<PongMsg>;
  State pre_start(as::Context<Pinger>&, ActorRef<PongMsg> partner) { return {std::move(partner), nullptr, 0}; }
  void handle(as::Context<Pinger>&, Message& m, State& s) {
    if (auto* serve = std::get_if<Serve>(&m)) {
      s.out = serve->out;
      s.left = serve->rounds;
      (void)s.partner.cast(Ball{Clock::now()});
      return;
    }
    const TimePoint now = Clock::now();
    s.out->round_trips.push_back(ns_between(std::get<Ball>(m).sent, now));
    if (--s.left == 0) {
      s.out->done->count_down();
    } else {
      (void)s.partner.cast(Ball{Clock::now()});
    }
  }
};

class PingPong final : public Workload {
 public:
  PingPong(System& sys, std::size_t rounds) : sys_(sys), rounds_(rounds) {
    const bool two_hosts = sys.runtime().thread_count() >= 2;
    ponger_ = spawned(sys.spawn<Ponger>({.placement = PlacementRequest::on_host(two_hosts ? 1 : 0)}));
    pinger_ = spawned(sys.spawn<Pinger>({.placement = PlacementRequest::on_host(0)}, ponger_));
    (void)ponger_.cast(pinger_);
  }
  ~PingPong() override {
    pinger_.stop();
    ponger_.stop();
    pinger_.wait(kQuiescenceDeadline);
    ponger_.wait(kQuiescenceDeadline);
  }
  Sample sample() override {
    PingShared shared;
    shared.round_trips.reserve(rounds_);
    shared.done.emplace(1);
    (void)pinger_.cast(Serve{rounds_, &shared});
    shared.done->wait(sys_.runtime(), "ping-pong");
    const double mean = mean_of(shared.round_trips);  // before the move below
    return measured(mean, std::move(shared.round_trips));
  }

 private:
  System& sys_;
  std::size_t rounds_;
  ActorRef<PongMsg> ponger_;
  ActorRef<PingMsg> pinger_;
};

Benchmark ping_pong() {
  BenchmarkInfo i;
  i.name = "Ping-pong between two actors on different threads";
  i.group = "messaging";
  i.description = "Two actors pass a ball back and forth 2,000 times per sample; each round trip is timed by "
                  "the actor that serves. On qt they are pinned to two worker threads; the asio pool keeps "
                  "them on one thread while their handlers are short (docs/RUNTIMES.md, \"Where work runs\"). "
                  "The sample value is the mean round trip.";
  i.measure = Measure::latency;
  i.elements = 1;
  i.element = "round trip";
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [](System& s) { return std::make_unique<PingPong>(s, 2000); }};
}

// ---------------------------------------------------------------------------------------------
// Fan-out: one sender actor casts to each of 1,000 receivers, 10 rounds per sample.

struct Tick {
  Countdown* last_round = nullptr;  // set on the last round's tick: the receiver then counts down
};

struct Receiver {
  using Message = Tick;
  using State = std::uint64_t;
  State pre_start(as::Context<Receiver>&) { return 0; }
  void handle(as::Context<Receiver>&, Tick t, State& received) {
    ++received;
    if (t.last_round != nullptr) t.last_round->count_down();
  }
};

struct Broadcast {
  std::size_t rounds;
  Countdown* done;
};

struct Sender {
  using Message = Broadcast;
  using State = std::vector<ActorRef<Tick>>;
  using Arguments = std::vector<ActorRef<Tick>>;
  State pre_start(as::Context<Sender>&, Arguments receivers) { return receivers; }
  void handle(as::Context<Sender>&, Broadcast b, State& receivers) {
    for (std::size_t r = 1; r <= b.rounds; ++r) {
      Tick t{r == b.rounds ? b.done : nullptr};
      for (const auto& to : receivers) (void)to.cast(t);
    }
  }
};

class FanOut final : public Workload {
 public:
  FanOut(System& sys, std::size_t receivers, std::size_t rounds) : sys_(sys), rounds_(rounds) {
    receivers_.reserve(receivers);
    for (std::size_t i = 0; i < receivers; ++i) receivers_.push_back(spawned(sys.spawn<Receiver>()));
    sender_ = spawned(sys.spawn<Sender>({}, receivers_));
  }
  ~FanOut() override {
    sender_.stop();
    for (auto& r : receivers_) r.stop();
    sender_.wait(kQuiescenceDeadline);
    for (auto& r : receivers_) r.wait(kQuiescenceDeadline);
  }
  Sample sample() override {
    Countdown done(receivers_.size());
    const TimePoint t0 = Clock::now();
    (void)sender_.cast(Broadcast{rounds_, &done});
    done.wait(sys_.runtime(), "fan-out");
    return measured(ns_between(t0, Clock::now()));
  }

 private:
  System& sys_;
  std::size_t rounds_;
  std::vector<ActorRef<Tick>> receivers_;
  ActorRef<Broadcast> sender_;
};

Benchmark fan_out() {
  constexpr std::size_t receivers = 1000, rounds = 10;
  BenchmarkInfo i;
  i.name = "Fan-out from one actor to 1000 actors";
  i.group = "messaging";
  i.description = "One sender actor casts a message to each of 1,000 idle receiver actors, 10 rounds "
                  "(10,000 messages); timed from the cast that starts it until every receiver has handled its "
                  "last message. The actors live across samples.";
  i.elements = static_cast<double>(receivers * rounds);
  i.element = "message";
  i.throughput = true;
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [receivers, rounds](System& s) { return std::make_unique<FanOut>(s, receivers, rounds); }};
}

// ---------------------------------------------------------------------------------------------
// call(): from a thread outside the runtime (blocking get) and from another actor (co_await).

struct Get {
  as::Reply<std::uint64_t> reply;
};

struct Server {
  using Message = Get;
  using State = std::uint64_t;
  State pre_start(as::Context<Server>&) { return 0; }
  void handle(as::Context<Server>&, Get g, State& served) { g.reply.send(++served); }
};

class OutsideCalls final : public Workload {
 public:
  OutsideCalls(System& sys, std::size_t calls) : calls_(calls), server_(spawned(sys.spawn<Server>())) {}
  ~OutsideCalls() override { server_.stop_and_wait(kQuiescenceDeadline); }
  Sample sample() override {
    std::vector<double> rtts;
    rtts.reserve(calls_);
    for (std::size_t i = 0; i < calls_; ++i) {
      const TimePoint t0 = Clock::now();
      auto r = server_.call(as::rpc<Get>, kQuiescenceDeadline).get();
      const double rtt = ns_between(t0, Clock::now());
      if (!r) throw WorkloadError("call failed: " + r.error());
      rtts.push_back(rtt);
    }
    const double mean = mean_of(rtts);  // before the move below
    return measured(mean, std::move(rtts));
  }

 private:
  std::size_t calls_;
  ActorRef<Get> server_;
};

struct CallShared {
  std::vector<double> round_trips;
  std::optional<Countdown> done;
  std::string error;
};

struct StartCalls {
  std::size_t calls;
  CallShared* out;
};

struct Caller {
  using Message = StartCalls;
  using State = ActorRef<Get>;
  using Arguments = ActorRef<Get>;
  State pre_start(as::Context<Caller>&, ActorRef<Get> server) { return server; }
  as::Task<> handle(as::Context<Caller>&, StartCalls s, State& server) {
    for (std::size_t i = 0; i < s.calls; ++i) {
      const TimePoint t0 = Clock::now();
      auto r = co_await server.call(as::rpc<Get>, kQuiescenceDeadline);
      if (!r) {
        s.out->error = r.error();
        break;
      }
      s.out->round_trips.push_back(ns_between(t0, Clock::now()));
    }
    s.out->done->count_down();
  }
};

class ActorCalls final : public Workload {
 public:
  ActorCalls(System& sys, std::size_t calls) : sys_(sys), calls_(calls) {
    const bool two_hosts = sys.runtime().thread_count() >= 2;
    server_ = spawned(sys.spawn<Server>({.placement = PlacementRequest::on_host(two_hosts ? 1 : 0)}));
    caller_ = spawned(sys.spawn<Caller>({.placement = PlacementRequest::on_host(0)}, server_));
  }
  ~ActorCalls() override {
    caller_.stop_and_wait(kQuiescenceDeadline);
    server_.stop_and_wait(kQuiescenceDeadline);
  }
  Sample sample() override {
    CallShared shared;
    shared.round_trips.reserve(calls_);
    shared.done.emplace(1);
    (void)caller_.cast(StartCalls{calls_, &shared});
    shared.done->wait(sys_.runtime(), "calls between actors");
    if (!shared.error.empty()) throw WorkloadError("call failed: " + shared.error);
    const double mean = mean_of(shared.round_trips);  // before the move below
    return measured(mean, std::move(shared.round_trips));
  }

 private:
  System& sys_;
  std::size_t calls_;
  ActorRef<Get> server_;
  ActorRef<StartCalls> caller_;
};

Benchmark outside_calls() {
  BenchmarkInfo i;
  i.name = "Call round trip from outside";
  i.group = "messaging";
  i.description = "A thread outside the runtime makes 1,000 sequential calls (call(...).get(), blocking) to an "
                  "actor that replies with a counter; each round trip is timed. The sample value is the mean.";
  i.measure = Measure::latency;
  i.element = "call";
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [](System& s) { return std::make_unique<OutsideCalls>(s, 1000); }};
}

Benchmark actor_calls() {
  BenchmarkInfo i;
  i.name = "Call round trip between actors";
  i.group = "messaging";
  i.description = "An actor's coroutine handler makes 1,000 sequential calls (co_await) to another actor, on a "
                  "different thread where the runtime pins (qt); each round trip is timed. The sample value is "
                  "the mean.";
  i.measure = Measure::latency;
  i.element = "call";
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [](System& s) { return std::make_unique<ActorCalls>(s, 1000); }};
}

}  // namespace

void add_messaging_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(outside_casts<8>());
  out.push_back(outside_casts<64>());
  out.push_back(outside_casts<256>());
  out.push_back(ping_pong());
  out.push_back(fan_out());
  out.push_back(outside_calls());
  out.push_back(actor_calls());
}

}  // namespace actorscope::bench::detail
