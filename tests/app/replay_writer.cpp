// replay_writer: a program that records itself, for the follow-mode test. It runs a small system
// (a tolerant supervisor, workers fed by a timer, one of them crashing and replaced now and then)
// with an as::Recorder writing to the file named on its command line, prints "recording" once it
// runs, and keeps going until a line "stop" (or the end of input) on standard
// input; then it shuts down, which ends the session cleanly, and prints "stopped".
#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <variant>

namespace as = actorscope;
using namespace std::chrono_literals;

namespace {

struct Add {
  int n;
};
struct Crash {};
using WorkerMsg = std::variant<Add, Crash>;

struct Worker {
  using Message = WorkerMsg;
  using State = int;
  int pre_start(as::Context<Worker>&) { return 0; }
  void handle(as::Context<Worker>&, WorkerMsg m, int& total) {
    if (std::holds_alternative<Crash>(m)) throw std::runtime_error("crashed on purpose");
    total += std::get<Add>(m).n;
  }
};

struct Tolerant {
  using Message = int;
  void handle(as::Context<Tolerant>&, int, std::monostate&) {}
  void handle_supervisor_event(as::Context<Tolerant>&, const as::SupervisionEvent&, std::monostate&) {}
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: replay_writer FILE.db   (then \"stop\" on standard input)\n");
    return 2;
  }
  try {
    as::Recorder recorder(argv[1], {.detail = as::Detail::full, .stats_interval = 20ms, .keyframe_every = 500,
                                    .scenario = "replay-writer"});
    as::System system{as::make_runtime("asio", {.threads = 1})};
    system.attach(recorder);
    auto root = system.spawn<Tolerant>({.name = "root"}).value();
    auto steady = system.spawn_linked<Worker>(root, {.name = "steady"}).value();
    const as::TimerHandle feed = steady.send_interval(5ms, [] { return WorkerMsg{Add{1}}; });
    // The session's row is in the file from the recorder's start; its events follow within a flush.
    std::printf("recording\n");
    std::fflush(stdout);

    std::atomic<bool> stop{false};
    std::thread chaos([&] {
      // The workload's pace (not a wait on anything): every 150 ms a worker "flaky" crashes, and a
      // new one of that name takes its place.
      while (!stop.load()) {
        auto flaky = system.spawn_linked<Worker>(root, {.name = "flaky"}).value();
        for (int i = 0; i < 15 && !stop.load(); ++i) std::this_thread::sleep_for(10ms);
        (void)flaky.cast(Crash{});
        (void)flaky.wait(5s);
      }
    });
    std::string line;
    while (std::getline(std::cin, line) && line != "stop") {
    }
    stop.store(true);
    chaos.join();
    feed.cancel();
    system.shutdown(10s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay_writer: %s\n", e.what());
    return 1;
  }
  std::printf("stopped\n");
  std::fflush(stdout);
  return 0;
}
