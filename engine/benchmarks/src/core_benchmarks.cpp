// ractor's five core benchmarks (ractor/benches/actor.rs), with its exact names and semantics, and
// a fully quiescent variant of each that times everything from the first spawn to the last exit.
#include "workload_support.hpp"

#include <cstdint>
#include <variant>

namespace actorscope::bench::detail {

namespace {

struct Go {};

// ractor's BenchActor: pre_start casts one message to itself; the actor stops when it handles it.
struct BenchActor {
  using Message = Go;
  std::monostate pre_start(as::Context<BenchActor>& ctx) {
    (void)ctx.self().cast(Go{});
    return {};
  }
  void handle(as::Context<BenchActor>& ctx, Go, std::monostate&) { ctx.stop(); }
};

// ractor's MessagingActor: counts self-sent messages and stops at num_msgs.
struct MessagingActor {
  using Message = Go;
  using State = std::uint64_t;
  std::uint64_t num_msgs = 0;
  State pre_start(as::Context<MessagingActor>& ctx) {
    (void)ctx.self().cast(Go{});
    return 0;
  }
  void handle(as::Context<MessagingActor>& ctx, Go, State& handled) {
    if (++handled >= num_msgs) {
      ctx.stop();
    } else {
      (void)ctx.self().cast(Go{});
    }
  }
};

// "Creation of N actors": N sequential spawns, each returning after pre_start (and its self-cast).
// ractor times only the spawn loop; the quiescent variant also waits for every actor's exit. Both
// wait for the exits before the next sample, so that samples do not overlap.
class Creation final : public Workload {
 public:
  Creation(System& sys, std::size_t n, bool quiescent) : sys_(sys), n_(n), quiescent_(quiescent) {}
  Sample sample() override {
    std::vector<ActorRef<Go>> refs;
    refs.reserve(n_);
    const TimePoint t0 = Clock::now();
    for (std::size_t i = 0; i < n_; ++i) refs.push_back(spawned(sys_.spawn<BenchActor>()));
    const TimePoint spawned_at = Clock::now();
    wait_all(refs);
    const TimePoint quiet_at = Clock::now();
    return measured(ns_between(t0, quiescent_ ? quiet_at : spawned_at));
  }

 private:
  System& sys_;
  std::size_t n_;
  bool quiescent_;
};

// "Waiting on N actors to process first message": ractor spawns the N actors in the untimed setup
// and times only the wait for their exits; the quiescent variant times the spawns too.
class Waiting final : public Workload {
 public:
  Waiting(System& sys, std::size_t n, bool quiescent) : sys_(sys), n_(n), quiescent_(quiescent) {}
  Sample sample() override {
    std::vector<ActorRef<Go>> refs;
    refs.reserve(n_);
    const TimePoint t0 = Clock::now();
    for (std::size_t i = 0; i < n_; ++i) refs.push_back(spawned(sys_.spawn<BenchActor>()));
    const TimePoint setup_done = Clock::now();
    wait_all(refs);
    const TimePoint quiet_at = Clock::now();
    return measured(ns_between(quiescent_ ? t0 : setup_done, quiet_at));
  }

 private:
  System& sys_;
  std::size_t n_;
  bool quiescent_;
};

// "Waiting on 100000 messages to be processed": one actor sends itself messages until it has handled
// 100,000. ractor spawns it in the untimed setup (its first self-message is already queued); the
// quiescent variant times the spawn too.
class SelfMessages final : public Workload {
 public:
  SelfMessages(System& sys, std::uint64_t n, bool quiescent) : sys_(sys), n_(n), quiescent_(quiescent) {}
  Sample sample() override {
    const TimePoint t0 = Clock::now();
    ActorRef<Go> actor = spawned(sys_.spawn(MessagingActor{.num_msgs = n_}, {}));
    const TimePoint setup_done = Clock::now();
    const ActorRef<Go> one[] = {actor};
    wait_all(std::span<const ActorRef<Go>>(one));
    const TimePoint quiet_at = Clock::now();
    return measured(ns_between(quiescent_ ? t0 : setup_done, quiet_at));
  }

 private:
  System& sys_;
  std::uint64_t n_;
  bool quiescent_;
};

constexpr double kMs = 1e6;  // ns per ms

ReferenceRange tokio(double low_ms, double high_ms) { return {"ractor 0.9.3 / tokio", low_ms * kMs, high_ms * kMs}; }

Benchmark creation(std::size_t n, bool quiescent, ReferenceRange ref) {
  BenchmarkInfo i;
  i.name = "Creation of " + std::to_string(n) + " actors" + (quiescent ? " (quiescent)" : "");
  i.group = quiescent ? "core-quiescent" : "core";
  i.description = quiescent ? "Spawns " + std::to_string(n) +
                                  " actors one after another (each casts itself one message in pre_start and stops on "
                                  "it); timed from the first spawn until every actor has exited."
                            : "ractor's benchmark: " + std::to_string(n) +
                                  " sequential spawns, each returning after pre_start, in which the actor casts itself "
                                  "one message (it stops on it). Only the spawn loop is timed.";
  i.elements = static_cast<double>(n);
  i.element = "actor";
  i.throughput = true;
  i.reference = ref;
  if (n >= 10000) {
    i.samples = 20;
    i.quick_samples = 8;
  }
  return {i, [n, quiescent](System& s) { return std::make_unique<Creation>(s, n, quiescent); }};
}

Benchmark waiting(std::size_t n, bool quiescent, ReferenceRange ref) {
  BenchmarkInfo i;
  i.name = "Waiting on " + std::to_string(n) + " actors to process first message" + (quiescent ? " (quiescent)" : "");
  i.group = quiescent ? "core-quiescent" : "core";
  i.description = quiescent ? "Spawns " + std::to_string(n) +
                                  " actors as in the creation benchmark and waits for all of them to exit; timed from "
                                  "the first spawn to the last exit (the same work as the quiescent creation benchmark)."
                            : "ractor's benchmark: " + std::to_string(n) +
                                  " actors are spawned in the untimed setup (and start on their message at once); "
                                  "only the wait for every exit is timed, so it measures the residual work.";
  i.elements = static_cast<double>(n);
  i.element = "actor";
  i.throughput = true;
  i.reference = ref;
  return {i, [n, quiescent](System& s) { return std::make_unique<Waiting>(s, n, quiescent); }};
}

Benchmark self_messages(bool quiescent) {
  constexpr std::uint64_t n = 100000;
  BenchmarkInfo i;
  i.name = std::string("Waiting on 100000 messages to be processed") + (quiescent ? " (quiescent)" : "");
  i.group = quiescent ? "core-quiescent" : "core";
  i.description = quiescent ? "One actor casts itself a message in pre_start and another on each one it handles, "
                              "until 100,000; timed from the spawn to its exit."
                            : "ractor's benchmark: one actor casts itself a message on each one it handles until "
                              "100,000. The spawn is untimed setup; the wait for its exit is timed.";
  i.elements = static_cast<double>(n);
  i.element = "message";
  i.throughput = true;
  i.reference = tokio(44, 51);
  i.samples = 20;
  i.quick_samples = 8;
  return {i, [n, quiescent](System& s) { return std::make_unique<SelfMessages>(s, n, quiescent); }};
}

}  // namespace

void add_core_benchmarks(std::vector<Benchmark>& out) {
  // ractor's five, with its timing; then the same five timed to full quiescence.
  for (bool quiescent : {false, true}) {
    out.push_back(creation(100, quiescent, tokio(0.89, 1.55)));
    out.push_back(creation(10000, quiescent, tokio(115, 168)));
    out.push_back(waiting(100, quiescent, tokio(0.65, 1.24)));
    out.push_back(waiting(1000, quiescent, tokio(4.6, 6.4)));
    out.push_back(self_messages(quiescent));
  }
}

}  // namespace actorscope::bench::detail
