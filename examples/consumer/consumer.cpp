// The consumer: a program built against an installed Actorscope. On each runtime named on its command
// line (default: asio and qt), a producer actor sends a counter a batch of numbers and asks it for
// the total; the System is recorded into one SQLite file, a session per runtime. Then it reads the
// file back and checks it. Exits 0 when every check held, 1 (saying which failed) otherwise.
//
//   consumer [--out FILE.db] [RUNTIME...]
#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace as = actorscope;
using namespace std::chrono_literals;

namespace {

struct Add {
  int n;
};
struct Get {
  as::Reply<int> reply;
};
using CounterMsg = std::variant<Add, Get>;

struct Counter : as::Actor<Counter> {
  using Message = CounterMsg;
  using State = int;

  State pre_start(as::Context<Counter>&) { return 0; }
  void handle(as::Context<Counter>&, Message msg, State& total) {
    as::match(msg, [&](Add& a) { total += a.n; }, [&](Get& g) { g.reply.send(total); });
  }
};

/// Sends the counter 1..up_to, then asks it for the total (one sender: the adds arrive first).
struct Produce {
  int up_to;
  as::Reply<int> reply;
};

struct Producer : as::Actor<Producer> {
  using Message = Produce;
  using State = as::ActorRef<CounterMsg>;
  using Arguments = as::ActorRef<CounterMsg>;

  State pre_start(as::Context<Producer>&, as::ActorRef<CounterMsg> counter) { return counter; }
  as::Task<> handle(as::Context<Producer>&, Produce p, State& counter) {
    for (int i = 1; i <= p.up_to; ++i) counter.cast(Add{i});
    as::CallResult<int> total = co_await counter.call(as::rpc<Get>, 5s);
    p.reply.send(total ? *total : -1);
  }
};

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok:    " : "FAILED:", what.c_str());
  if (!ok) ++failures;
}

/// One session on `runtime`: returns the total the producer reported.
void run_on(const std::string& runtime, const std::filesystem::path& file) {
  constexpr int kUpTo = 1000;
  as::System system{as::make_runtime(runtime, {.threads = 2})};
  as::Recorder recorder{file, {.detail = as::Detail::full, .scenario = "consumer"}};
  system.attach(recorder);

  auto counter = system.spawn<Counter>({.name = "counter"}).value();
  auto producer = system.spawn<Producer>({.name = "producer"}, counter).value();
  const int total =
      producer.call([](as::Reply<int> r) { return Produce{kUpTo, std::move(r)}; }, 10s).get().value();
  check(total == kUpTo * (kUpTo + 1) / 2,
        runtime + ": the counter's total is " + std::to_string(total) + " (expected 500500)");
  check(producer.stop_and_wait(5s), runtime + ": the producer stopped");
  check(counter.stop_and_wait(5s), runtime + ": the counter stopped");
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path file = "consumer.db";
  std::vector<std::string> runtimes;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      file = argv[++i];
    } else if (arg.starts_with("-")) {
      std::fprintf(stderr, "usage: consumer [--out FILE.db] [RUNTIME...]\n");
      return 2;
    } else {
      runtimes.emplace_back(arg);
    }
  }
  if (runtimes.empty()) runtimes = {"asio", "qt"};
  std::filesystem::remove(file);

  const std::vector<std::string> known = as::runtime_names();
  for (const std::string& r : runtimes) {
    check(std::ranges::find(known, r) != known.end(), "the runtime \"" + r + "\" is linked in");
    if (failures > 0) return 1;
    run_on(r, file);
  }

  // The recording: one cleanly ended session per runtime, each with both actors.
  const as::SessionReader reader(file);
  const std::vector<as::SessionInfo> sessions = reader.sessions();
  check(sessions.size() == runtimes.size(), std::to_string(sessions.size()) + " sessions recorded in " +
                                                file.string() + " (expected " +
                                                std::to_string(runtimes.size()) + ")");
  for (std::size_t i = 0; i < sessions.size() && i < runtimes.size(); ++i) {
    const as::SessionInfo& s = sessions[i];
    check(s.runtime == runtimes[i], "session " + std::to_string(s.id) + " ran on " + s.runtime);
    check(s.ended_cleanly(), "session " + std::to_string(s.id) + " ended cleanly");
    check(s.events_dropped == 0, "session " + std::to_string(s.id) + " dropped no events");
    std::vector<std::string> names;
    for (const as::ActorInfo& a : reader.actors(s.id)) names.push_back(a.name);
    for (const char* name : {"counter", "producer"})
      check(std::ranges::find(names, name) != names.end(),
            "session " + std::to_string(s.id) + " recorded the actor \"" + name + "\"");
  }
  std::printf("%s\n", failures == 0 ? "consumer: all checks passed" : "consumer: some checks FAILED");
  return failures == 0 ? 0 : 1;
}
