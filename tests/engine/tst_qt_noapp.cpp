// The qt runtime in a plain program with no Q(Core)Application: it refuses to run on an application
// that was promised but does not exist, and otherwise makes and owns its own. A plain main, because
// a Qt Test executable always has an application object.
#include <actorscope/actorscope.hpp>
#include <actorscope/qt_runtime.hpp>

#include <QCoreApplication>

#include <cstdio>
#include <string>

namespace as = actorscope;
using namespace std::chrono_literals;

namespace {
int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

struct Get {
  as::Reply<int> reply;
};
struct Answerer {
  using Message = Get;
  void handle(as::Context<Answerer>&, Get g, std::monostate&) { g.reply.send(42); }
};
}  // namespace

int main() {
  // 1. "existing" without an application is a clear error, not a crash.
  as::RuntimeOptions existing;
  existing.qt_application = as::RuntimeOptions::QtApplication::existing;
  try {
    (void)as::make_runtime("qt", existing);
    check(false, "QtApplication::existing without an application is refused");
  } catch (const as::QtRuntimeError& e) {
    check(std::string(e.what()).find("none exists yet") != std::string::npos,
          "QtApplication::existing without an application is refused, saying what to do");
  }
  check(QCoreApplication::instance() == nullptr, "the refused runtime left no application behind");

  // 2. "automatic" makes its own application, runs actors, and tears it down again.
  {
    auto rt = as::make_runtime("qt", {.threads = 2});
    check(static_cast<as::QtRuntime&>(*rt).owns_application(), "the runtime owns the application it made");
    check(QCoreApplication::instance() != nullptr, "an application object exists while the runtime lives");
    as::System system{std::move(rt)};
    auto a = system.spawn<Answerer>().value();
    check(a.call(as::rpc<Get>, 10s).get().value_or(0) == 42, "an actor on the owned runtime answers a call");
    auto gui = system.spawn<Answerer>({.placement = as::PlacementRequest::gui()}).value();
    check(gui.call(as::rpc<Get>, 10s).get().value_or(0) == 42,
          "a GUI-thread actor answers while main is in a blocking wait (the wait processes events)");
  }
  check(QCoreApplication::instance() == nullptr, "destroying the runtime destroyed the application it owned");

  std::printf("%s\n", failures == 0 ? "all checks passed" : "some checks failed");
  return failures == 0 ? 0 : 1;
}
