// A supervision tree at work: a supervisor hands jobs to a pool of workers, some jobs are poisoned
// and crash their worker, the supervisor restarts the crashed worker and carries on. At the end the
// tree is shut down in order (every worker's post_stop runs) and a summary is printed.
//
//   example_supervision [--runtime asio|qt|manual] [--workers N] [--jobs N]
#include <actorscope/actorscope.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

namespace as = actorscope;
using namespace std::chrono_literals;

// -- the worker -----------------------------------------------------------------------------------

struct Work {
  int job;
  as::Reply<long> reply;
};

struct Worker : as::Actor<Worker> {
  using Message = Work;
  using Arguments = int;  // the worker's slot in the pool
  struct State {
    int slot = 0;
    int done = 0;
  };

  State pre_start(as::Context<Worker>&, int slot) { return State{slot, 0}; }

  // A coroutine handler: the sleep stands for real work; the thread is free meanwhile.
  as::Task<> handle(as::Context<Worker>&, Work w, State& s) {
    co_await as::sleep(std::chrono::milliseconds(2 + w.job % 5));
    if (w.job % 7 == 0) throw std::runtime_error("job " + std::to_string(w.job) + " is poisoned");
    ++s.done;
    w.reply.send(static_cast<long>(w.job) * w.job);
  }

  void post_stop(as::Context<Worker>& ctx, State& s) { ctx.log("worker {} stopping after {} job(s)", s.slot, s.done); }
};

// -- the supervisor -------------------------------------------------------------------------------

struct Summary {
  int done = 0;
  int lost = 0;
  int restarts = 0;
  long sum = 0;
};

struct Submit {
  int job;
};
struct Report {
  as::Reply<Summary> reply;
};

struct Supervisor : as::Actor<Supervisor> {
  using Message = std::variant<Submit, Report>;
  using Arguments = int;  // how many workers
  struct State {
    std::vector<as::ActorRef<Work>> workers;
    std::size_t next = 0;
    Summary summary;
  };

  State pre_start(as::Context<Supervisor>&, int workers) {
    State s;
    s.workers.resize(static_cast<std::size_t>(workers));
    return s;
  }

  void post_start(as::Context<Supervisor>& ctx, State& s) {
    for (std::size_t i = 0; i < s.workers.size(); ++i) s.workers[i] = start_worker(ctx, i);
  }

  as::Task<> handle(as::Context<Supervisor>& ctx, Message msg, State& s) {
    if (auto* submit = std::get_if<Submit>(&msg)) {
      const int job = submit->job;
      as::ActorRef<Work> worker = s.workers[s.next++ % s.workers.size()];
      as::CallResult<long> result =
          co_await worker.call([job](as::Reply<long> r) { return Work{job, std::move(r)}; }, 2s);
      if (result) {
        ++s.summary.done;
        s.summary.sum += *result;
        ctx.log("job {} done by actor {}: {}", job, worker.id(), *result);
      } else {
        ++s.summary.lost;
        ctx.log("job {} lost: {}", job, result.error());
      }
    } else {
      std::get<Report>(msg).reply.send(s.summary);
    }
  }

  // One-for-one restart: a failed worker is replaced in its slot; anything else is only logged.
  void handle_supervisor_event(as::Context<Supervisor>& ctx, const as::SupervisionEvent& event, State& s) {
    if (const auto* failed = event.get<as::ActorFailed>()) {
      for (std::size_t i = 0; i < s.workers.size(); ++i) {
        if (s.workers[i] == failed->actor) {
          ctx.log("{}; restarting slot {}", event.describe(), i);
          s.workers[i] = start_worker(ctx, i);
          ++s.summary.restarts;
        }
      }
    } else {
      ctx.log("{}", event.describe());
    }
  }

  // An orderly shutdown: stop the workers and wait for them, so their post_stop runs.
  as::Task<> post_stop(as::Context<Supervisor>& ctx, State&) {
    const bool all = co_await ctx.stop_children_and_wait(5s, "supervisor stopping");
    ctx.log("all workers stopped: {}", all ? "yes" : "no (timed out)");
  }

 private:
  static as::ActorRef<Work> start_worker(as::Context<Supervisor>& ctx, std::size_t slot) {
    return ctx.spawn_linked<Worker>({.name = "worker-" + std::to_string(slot)}, static_cast<int>(slot)).value();
  }
};

// -- main -----------------------------------------------------------------------------------------

int main(int argc, char** argv) {
  std::string runtime = "asio";
  int workers = 3;
  int jobs = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "example_supervision: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--runtime") {
      runtime = value();
    } else if (arg == "--workers") {
      workers = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--jobs") {
      jobs = std::max(0, std::atoi(value().c_str()));
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "usage: example_supervision [--runtime asio|qt|manual] [--workers N] [--jobs N]\n";
      return 0;
    } else {
      std::cerr << "example_supervision: unknown option " << arg << " (try --help)\n";
      return 2;
    }
  }

  std::unique_ptr<as::Runtime> rt;
  try {
    rt = as::make_runtime(runtime, {.threads = 2});
  } catch (const as::UnknownRuntimeError& e) {
    std::cerr << "example_supervision: " << e.what() << '\n';
    return 2;
  }
  as::System system{std::move(rt)};

  const auto t0 = std::chrono::steady_clock::now();
  std::mutex out;
  system.set_log_sink([&](const as::LogRecord& r) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard lk(out);
    std::printf("[%8.1f ms] %-5s %-12s %.*s\n", ms, r.actor.to_string().c_str(), std::string(r.name).c_str(),
                static_cast<int>(r.text.size()), r.text.data());
  });

  std::printf("Supervision tree on the \"%s\" runtime: 1 supervisor, %d workers, %d jobs (every 7th is poisoned)\n\n",
              runtime.c_str(), workers, jobs);
  auto supervisor = system.spawn<Supervisor>({.name = "supervisor"}, workers).value();
  for (int job = 1; job <= jobs; ++job) (void)supervisor.cast(Submit{job});

  const as::CallResult<Summary> summary = supervisor.call(as::rpc<Report>, 30s).get();
  if (!summary) {
    std::fprintf(stderr, "no summary: %s\n", summary.error().c_str());
    return 1;
  }
  supervisor.stop_and_wait(10s, "example finished");

  std::printf("\nSummary: %d job(s) done, %d lost to crashes, %d worker restart(s), sum of results %ld\n",
              summary->done, summary->lost, summary->restarts, summary->sum);
  std::printf("Supervisor exit: %s (%s)\n", std::string(as::to_string(supervisor.exit()->kind)).c_str(),
              supervisor.exit()->reason.c_str());
  return summary->done + summary->lost == jobs ? 0 : 1;
}
