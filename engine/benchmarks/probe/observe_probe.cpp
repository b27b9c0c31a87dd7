// The single-actor message loop alone in a process, for the cost of the detached observation hook.
// It is built twice from this file: against the engine with its hooks (nothing is ever attached
// here, so each hook is one predictable branch) and against the engine compiled with
// ACTORSCOPE_OBSERVE=0. The suite's "observe" benchmark runs both and reports the ratio.
//
//   usage: PROBE RUNTIME MESSAGES LOOPS
//
// Runs one untimed loop first, then LOOPS timed ones on a System with one worker thread. Prints
// "observe 0|1" and then one line "ns N" per timed loop: from the spawn to the actor's exit.
#include <actorscope/actorscope.hpp>
#include <actorscope/benchmarks/looper.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace as = actorscope;
using actorscope::bench::Looper;

namespace {

bool parse(const char* text, std::uint64_t& out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v == 0) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t messages = 0, loops = 0;
  if (argc != 4 || !parse(argv[2], messages) || !parse(argv[3], loops)) {
    std::fprintf(stderr, "usage: %s RUNTIME MESSAGES LOOPS\n", argc > 0 ? argv[0] : "observe_probe");
    return 2;
  }
  try {
    as::System system{as::make_runtime(argv[1], {.threads = 1})};
    std::printf("observe %d\n", as::detail::kObserve ? 1 : 0);
    for (std::uint64_t i = 0; i <= loops; ++i) {
      const auto start = std::chrono::steady_clock::now();
      auto looper = system.spawn<Looper>({}, messages);
      if (!looper) {
        std::fprintf(stderr, "the looper could not start: %s\n", looper.error().what());
        return 1;
      }
      if (!looper->wait(std::chrono::minutes(2))) {
        std::fprintf(stderr, "the message loop did not finish in 2 minutes\n");
        return 1;
      }
      const auto ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
      if (i > 0) std::printf("ns %lld\n", static_cast<long long>(ns.count()));  // loop 0 warms up
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
