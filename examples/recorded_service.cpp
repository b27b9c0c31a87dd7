// Watch your own program: a small order service that records itself with as::Recorder, so that the
// observatory can open the file — while the service still runs (it follows the recording's tail),
// or afterwards.
//
// The service: a gateway takes an order every few milliseconds (a timer stands for the network) and
// hands it to a dispatcher, which supervises a pool of workers and gives each order to the next one.
// Now and then an order is bad and its worker throws; the dispatcher restarts the worker in its
// slot. So every failure has a chain of causes: timer -> gateway -> dispatcher -> worker.
//
//   example_recorded_service [--seconds N] [--detail full|sampled] [--runtime asio|qt]
//                            [--orders-per-second N] [--bad-every N] FILE.db
//
// It runs until Ctrl+C (or SIGTERM), or for N seconds, then ends the session cleanly (a file that
// is already a recording gets another session). Then:
//   actorscope FILE.db
#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace as = actorscope;
using namespace std::chrono_literals;

namespace {

// -- messages ---------------------------------------------------------------------------------------

struct Order {
  int id = 0;
  int quantity = 0;
};
struct NextOrder {};  // the gateway's timer: time to take the next order

// -- the worker: prices an order; a bad one (negative quantity) makes it throw -----------------------

struct Worker : as::Actor<Worker> {
  using Message = Order;
  struct State {
    long revenue = 0;
  };
  void handle(as::Context<Worker>&, Order o, State& s) {
    if (o.quantity < 0)
      throw std::invalid_argument("order " + std::to_string(o.id) + " has a negative quantity (" +
                                  std::to_string(o.quantity) + ")");
    s.revenue += 7L * o.quantity;
  }
};

// -- the dispatcher: supervises the workers, one-for-one ---------------------------------------------

struct Dispatcher : as::Actor<Dispatcher> {
  using Message = Order;
  using Arguments = int;  // the pool's size
  struct State {
    std::vector<as::ActorRef<Order>> workers;
    std::size_t next = 0;
    int restarts = 0;
  };

  State pre_start(as::Context<Dispatcher>&, int workers) {
    State s;
    s.workers.resize(static_cast<std::size_t>(workers));
    return s;
  }
  void post_start(as::Context<Dispatcher>& ctx, State& s) {
    for (std::size_t i = 0; i < s.workers.size(); ++i) s.workers[i] = start_worker(ctx, i);
  }
  void handle(as::Context<Dispatcher>&, Order o, State& s) {
    (void)s.workers[s.next++ % s.workers.size()].cast(o);
  }
  void handle_supervisor_event(as::Context<Dispatcher>& ctx, const as::SupervisionEvent& event, State& s) {
    const auto* failed = event.get<as::ActorFailed>();
    if (failed == nullptr) return;
    for (std::size_t i = 0; i < s.workers.size(); ++i) {
      if (s.workers[i] == failed->actor) {
        s.workers[i] = start_worker(ctx, i);
        ++s.restarts;
      }
    }
  }

 private:
  static as::ActorRef<Order> start_worker(as::Context<Dispatcher>& ctx, std::size_t slot) {
    return ctx.spawn_linked<Worker>({.name = "worker-" + std::to_string(slot)}).value();
  }
};

// -- the gateway: takes an order at every tick of its timer ----------------------------------------

struct GatewaySetup {
  as::ActorRef<Order> dispatcher;
  as::Duration period{};
  int bad_every = 0;
};

struct Gateway : as::Actor<Gateway> {
  using Message = NextOrder;
  using Arguments = GatewaySetup;
  struct State {
    GatewaySetup setup;
    int taken = 0;
  };

  State pre_start(as::Context<Gateway>&, GatewaySetup setup) { return State{std::move(setup), 0}; }
  // The timer runs until the gateway stops. A late tick is skipped, not made up in a burst.
  void post_start(as::Context<Gateway>& ctx, State& s) {
    (void)ctx.send_interval(s.setup.period, [] { return NextOrder{}; }, as::MissedTick::skip);
  }
  void handle(as::Context<Gateway>&, NextOrder, State& s) {
    const int id = ++s.taken;
    // The 7th order is bad, then every bad_every-th after it: the first failure comes early.
    const bool bad = s.setup.bad_every > 0 && id % s.setup.bad_every == 7 % s.setup.bad_every;
    (void)s.setup.dispatcher.cast(Order{id, bad ? -id : 1 + id % 5});
  }
};

// -- the service: the root of the tree -------------------------------------------------------------

struct ServiceSetup {
  int workers = 4;
  as::Duration period{};
  int bad_every = 0;
};

struct Service : as::Actor<Service> {
  using Message = std::monostate;
  using Arguments = ServiceSetup;
  using State = ServiceSetup;
  ServiceSetup pre_start(as::Context<Service>&, ServiceSetup setup) { return setup; }
  void post_start(as::Context<Service>& ctx, ServiceSetup& setup) {
    auto dispatcher = ctx.spawn_linked<Dispatcher>({.name = "dispatcher"}, setup.workers).value();
    (void)ctx.spawn_linked<Gateway>({.name = "gateway"}, GatewaySetup{dispatcher, setup.period, setup.bad_every});
  }
  void handle(as::Context<Service>&, std::monostate, ServiceSetup&) {}
  // Supervision events of its children (the dispatcher restarts workers itself) need no action.
  void handle_supervisor_event(as::Context<Service>&, const as::SupervisionEvent&, ServiceSetup&) {}
  // An orderly shutdown: every actor's post_stop runs before the session ends.
  as::Task<> post_stop(as::Context<Service>& ctx, ServiceSetup&) { co_await ctx.stop_children_and_wait(5s, "service stopping"); }
};

// -- command line ------------------------------------------------------------------------------------

struct Options {
  std::string file;
  std::optional<int> seconds;
  as::Detail detail = as::Detail::full;
  std::string runtime = "asio";
  int orders_per_second = 50;
  int bad_every = 40;
};

constexpr const char* kUsage =
    "usage: example_recorded_service [--seconds N] [--detail full|sampled] [--runtime asio|qt]\n"
    "                                [--orders-per-second N] [--bad-every N] FILE.db\n"
    "Runs a small order service (a gateway, a dispatcher supervising workers, a bad order now and then)\n"
    "and records it into FILE.db until Ctrl+C, or for N seconds (an existing recording gets another\n"
    "session). Open the file with: actorscope FILE.db\n";

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) {
        std::cerr << "example_recorded_service: " << arg << " needs a value (try --help)\n";
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    auto positive = [&](int& out) {
      const auto v = value();
      if (!v) return false;
      char* end = nullptr;
      const long n = std::strtol(v->c_str(), &end, 10);
      if (end == v->c_str() || *end != '\0' || n <= 0 || n > 1'000'000) {
        std::cerr << "example_recorded_service: " << arg << " takes a positive whole number, not \"" << *v << "\"\n";
        return false;
      }
      out = static_cast<int>(n);
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--seconds") {
      int n = 0;
      if (!positive(n)) return std::nullopt;
      o.seconds = n;
    } else if (arg == "--detail") {
      const auto v = value();
      if (!v) return std::nullopt;
      const auto d = as::detail_from_string(*v);
      if (!d || *d == as::Detail::lifecycle) {
        std::cerr << "example_recorded_service: --detail is full or sampled, not \"" << *v << "\"\n";
        return std::nullopt;
      }
      o.detail = *d;
    } else if (arg == "--runtime") {
      const auto v = value();
      if (!v) return std::nullopt;
      // Not `manual`: its time only moves when a test drives it, and a service must run by itself.
      if (*v != "asio" && *v != "qt") {
        std::cerr << "example_recorded_service: --runtime is asio or qt, not \"" << *v << "\"\n";
        return std::nullopt;
      }
      o.runtime = *v;
    } else if (arg == "--orders-per-second") {
      if (!positive(o.orders_per_second)) return std::nullopt;
    } else if (arg == "--bad-every") {
      if (!positive(o.bad_every)) return std::nullopt;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "example_recorded_service: unknown option " << arg << " (try --help)\n";
      return std::nullopt;
    } else if (o.file.empty()) {
      o.file = arg;
    } else {
      std::cerr << "example_recorded_service: one recording file only (got \"" << o.file << "\" and \"" << arg
                << "\")\n";
      return std::nullopt;
    }
  }
  if (o.file.empty()) {
    std::cerr << "example_recorded_service: name the file to record to\n" << kUsage;
    return std::nullopt;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Options> options = parse(argc, argv);
  if (!options) return 2;

  // Ctrl+C and SIGTERM end the run cleanly. They are blocked here, before any thread starts (every
  // thread inherits the mask), and taken by one thread with sigwait: no handler runs at a random
  // point of the engine's threads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::unique_ptr<as::Runtime> runtime;
  try {
    runtime = as::make_runtime(options->runtime, {.threads = 2});
  } catch (const as::UnknownRuntimeError& e) {
    std::cerr << "example_recorded_service: " << e.what() << '\n';
    return 2;
  }

  std::optional<as::Recorder> recorder;
  try {
    recorder.emplace(options->file, as::RecorderOptions{.detail = options->detail, .scenario = "recorded_service"});
  } catch (const as::RecordingError& e) {
    std::cerr << "example_recorded_service: " << e.what() << '\n';
    return 1;
  }

  std::mutex m;
  std::condition_variable cv;
  int signal_taken = 0;
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::lock_guard lk(m);
    signal_taken = sig;
    cv.notify_all();
  });

  {
    as::System system{std::move(runtime)};
    system.attach(*recorder);
    const ServiceSetup setup{.workers = 4,
                             .period = std::chrono::microseconds(1'000'000 / options->orders_per_second),
                             .bad_every = options->bad_every};
    auto service = system.spawn<Service>({.name = "service"}, setup).value();

    std::printf("Recording the order service (%s detail, %s runtime) into %s\n",
                std::string(as::to_string(options->detail)).c_str(), options->runtime.c_str(), options->file.c_str());
    std::printf("Open it in the observatory, now or later:\n  actorscope %s\n", options->file.c_str());
    if (options->seconds)
      std::printf("Running for %d s (Ctrl+C ends it sooner).\n", *options->seconds);
    else
      std::printf("Running until Ctrl+C.\n");
    std::fflush(stdout);

    {
      std::unique_lock lk(m);
      if (options->seconds)
        cv.wait_for(lk, std::chrono::seconds(*options->seconds), [&] { return signal_taken != 0; });
      else
        cv.wait(lk, [&] { return signal_taken != 0; });
    }
    const bool stopped = service.stop_and_wait(10s, "the service is shutting down");
    const as::Recorder::Progress progress = recorder->progress();
    std::printf("\n%s. Recorded session %lld: %llu events (%llu dropped)%s.\n",
                signal_taken != 0 ? "Stopped by a signal" : "Time is up", static_cast<long long>(progress.session),
                static_cast<unsigned long long>(progress.events_recorded),
                static_cast<unsigned long long>(progress.events_dropped),
                stopped ? "" : "; the service did not stop within 10 s");
    if (progress.error) std::fprintf(stderr, "example_recorded_service: %s\n", progress.error->c_str());
  }  // the System ends, and with it the session
  recorder.reset();  // closes the file: one self-contained .db
  std::printf("Open it: actorscope %s\n", options->file.c_str());

  // Let the signal thread go if no signal came.
  {
    std::lock_guard lk(m);
    if (signal_taken == 0) pthread_kill(signal_thread.native_handle(), SIGTERM);
  }
  signal_thread.join();
  return 0;
}
