// `actorscope compare`: reading and checking the request (compare_command.hpp).
#include "cli/compare_command.hpp"

#include "cli/args.hpp"
#include "cli/command.hpp"
#include "scenarios/scenario.hpp"

#include <charconv>
#include <cstdio>
#include <filesystem>

namespace actorscope::cli {

namespace {

int (*compare_handler)(const CompareRequest&) = nullptr;

constexpr const char* kUsage =
    "usage: actorscope compare --scenario NAME --runtime A,B [--threads N,M] [--seconds S] [--concurrent]\n"
    "                          [--record-a FILE] [--record-b FILE] [--theme system|light|dark]\n"
    "       actorscope compare A.db B.db [--session N [--session M]] [--theme ...]\n"
    "\n"
    "Compare mode: the same workload on two configurations side by side in the observatory. The first\n"
    "form runs the scenario twice with the same seed, side A then side B (each recorded at sampled\n"
    "detail, one message in 100 timed), and opens the comparison window on the two recordings; the\n"
    "second opens it on two recordings made before. The window shows each side's actors with a shared\n"
    "selection, overlay charts (rate, queue and handling times, the selected actor's mailbox), the\n"
    "per-actor difference table of 'actorscope diff', and the warnings raised on one side only.\n"
    "\n"
    "  --scenario NAME   the scenario to run ('actorscope scenarios' lists them)\n"
    "  --runtime A,B     side A's and side B's runtime: asio or qt (asio,asio with --threads 1,2\n"
    "                    compares thread counts)\n"
    "  --threads N,M     each side's threads, 1 to 64 (default 2,2; one number: both sides)\n"
    "  --seconds S       how long each side runs (default 5)\n"
    "  --concurrent      run both sides at the same time (they then share the machine, and the window\n"
    "                    says so); by default B starts when A has ended\n"
    "  --record-a FILE   keep side A's recording in FILE (default: a temporary file, removed when the\n"
    "  --record-b FILE   window closes; File > Save side A as... keeps it later)\n"
    "  --session N       with two recordings: the session of A.db, and of B.db unless a second\n"
    "                    --session M follows (default: each file's last session)\n";

std::vector<std::string> take_sessions(std::vector<std::string>& args) {
  std::vector<std::string> values, rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--session" && i + 1 < args.size() && !args[i + 1].starts_with("--")) {
      values.push_back(args[++i]);
    } else if (args[i].starts_with("--session=")) {
      values.push_back(args[i].substr(10));
    } else {
      rest.push_back(args[i]);
    }
  }
  args = std::move(rest);
  return values;
}

int run(std::vector<std::string> args) {
  const CompareRequest request = parse_compare(std::move(args));
  if (compare_handler == nullptr) {
    std::fprintf(stderr, "actorscope compare: this program has no observatory to show a comparison in\n");
    return 1;
  }
  return compare_handler(request);
}

}  // namespace

CompareRequest parse_compare(std::vector<std::string> args) {
  const std::vector<std::string> sessions = take_sessions(args);
  Args a("compare", std::move(args));
  (void)a.value("session");  // a --session without its value: "--session needs a value"
  CompareRequest r;
  const auto scenario = a.value("scenario");
  const auto runtimes = a.list("runtime");
  const auto threads = a.integer_pair("threads", 1, 64);
  const auto seconds = a.seconds("seconds", 3600);
  r.concurrent = a.flag("concurrent");
  r.record_a = a.value_or("record-a", "");
  r.record_b = a.value_or("record-b", "");
  r.theme = a.value("theme");
  r.files = a.positionals();
  a.finish(2, "two recordings: A.db B.db");

  if (r.theme && *r.theme != "system" && *r.theme != "light" && *r.theme != "dark")
    throw a.error("--theme must be system, light or dark, not \"" + *r.theme + "\"");

  if (!r.files.empty()) {
    if (r.files.size() != 2)
      throw a.error(
          "give two recordings to compare, A.db and B.db, not one; or run a comparison with "
          "--scenario and --runtime");
    if (scenario || !runtimes.empty() || threads || seconds || r.concurrent || !r.record_a.empty() ||
        !r.record_b.empty())
      throw a.error(
          "--scenario, --runtime, --threads, --seconds, --concurrent and --record-a/-b run a new "
          "comparison; two recordings are compared as they were recorded");
    if (sessions.size() > 2)
      throw a.error("--session is given " + std::to_string(sessions.size()) +
                    " times; give it once (both files) or twice (A's, then B's)");
    std::vector<std::int64_t> ids;
    for (const std::string& v : sessions) {
      std::int64_t n = 0;
      const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc{} || ptr != v.data() + v.size() || n < 1)
        throw a.error("--session must be a session number (1 or more), not \"" + v + "\"");
      ids.push_back(n);
    }
    if (!ids.empty()) {
      r.session_a = ids.front();
      r.session_b = ids.back();
    }
    // A missing or bad file is the window's to report (the replay's messages, naming the file).
    return r;
  }

  if (!sessions.empty())
    throw a.error("--session goes with two recordings: actorscope compare A.db B.db --session N");
  if (!scenario)
    throw a.error("--scenario is required to run a comparison (or give two recordings); the scenarios are: " +
                  scenarios::names());
  if (scenarios::find(*scenario) == nullptr)
    throw a.error("there is no scenario \"" + *scenario + "\"; the scenarios are: " + scenarios::names());
  r.scenario = *scenario;
  if (runtimes.size() != 2)
    throw a.error(
        "--runtime takes the two sides' runtimes, e.g. --runtime asio,qt (or asio,asio with --threads "
        "1,2), not " +
        std::to_string(runtimes.size()) + " of them");
  for (const std::string& rt : runtimes)
    if (rt != "asio" && rt != "qt") {
      std::string why = "--runtime must name asio or qt for each side, not \"" + rt + "\"";
      if (rt == "manual") why += " (the manual runtime only moves when a program steps it)";
      throw a.error(why);
    }
  r.runtime_a = runtimes[0];
  r.runtime_b = runtimes[1];
  if (threads) {
    r.threads_a = static_cast<unsigned>(threads->first);
    r.threads_b = static_cast<unsigned>(threads->second);
  }
  if (seconds) r.seconds = *seconds;
  for (const auto& [flag, file] :
       {std::pair{"--record-a", r.record_a}, std::pair{"--record-b", r.record_b}}) {
    if (file.empty()) continue;
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
      throw a.error(std::string(flag) + " \"" + file + "\" is a folder; give a file name, e.g. " +
                    (std::filesystem::path(file) / "side.db").string());
    if (std::filesystem::exists(file, ec))
      throw a.error(std::string(flag) + " \"" + file +
                    "\" already exists; a recording is never overwritten: choose another file");
  }
  if (!r.record_a.empty() && r.record_a == r.record_b)
    throw a.error("--record-a and --record-b name the same file \"" + r.record_a +
                  "\": give each side its own");
  return r;
}

void set_compare_handler(int (*run_it)(const CompareRequest&)) {
  compare_handler = run_it;
}

const Command& compare_command() {
  static const Command c{"compare", "run a scenario on two runtimes side by side, or compare two recordings",
                         kUsage, run};
  return c;
}

}  // namespace actorscope::cli
