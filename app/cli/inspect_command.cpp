// `actorscope inspect`: what a recording holds, session by session.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/recording_summary.hpp"

#include <actorscope/storage/session_reader.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace actorscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: actorscope inspect FILE... [--session ID] [--no-check]\n"
    "\n"
    "Summarises each recording given: for each session the scenario, runtime and detail, when it ran\n"
    "and whether it ended cleanly (a session whose recording process was killed did not), its time\n"
    "range, its actors and how they ended, its events by kind, the events dropped, and the totals\n"
    "of its exact per-actor statistics. Nothing is ever written to a recording.\n"
    "\n"
    "A file that is not a readable recording (missing, not SQLite, another program's database, a\n"
    "newer format, truncated or damaged, locked by another program) is reported with what to do; the\n"
    "other files are still summarised, and the exit code is 1.\n"
    "\n"
    "Options:\n"
    "  --session ID   only this session (with one FILE)\n"
    "  --no-check     skip SQLite's integrity check of the whole file (faster on very large files)\n";

/// Prints one recording's summary; throws RecordingError when it cannot be read.
void inspect(const std::string& file, std::optional<std::int64_t> session, bool check) {
  const SessionReader reader(file);
  if (check) reader.verify();
  const std::vector<SessionInfo> sessions =
      session ? std::vector<SessionInfo>{reader.session(*session)} : reader.sessions();
  const std::size_t all = session ? reader.sessions().size() : sessions.size();
  std::printf("%s: Actorscope recording, format %d, %zu session%s, %s\n", file.c_str(), reader.format_version(),
              all, all == 1 ? "" : "s", file_size_text(recording_size(file)).c_str());
  for (const SessionInfo& s : sessions) {
    std::printf("\n");
    print_session_summary(stdout, reader, s);
  }
}

int run(std::vector<std::string> args) {
  Args a("inspect", std::move(args));
  const auto session = a.integer("session", 1, INT64_MAX);
  const bool no_check = a.flag("no-check");
  const auto files = a.positionals();
  a.finish(files.size());
  if (files.empty()) throw a.error("which recording? give its file name: actorscope inspect FILE");
  if (session && files.size() > 1)
    throw a.error("--session picks a session of one recording, but " + std::to_string(files.size()) +
                  " files are given; inspect them one at a time to choose a session");

  // Each file on its own: one that cannot be read is reported, and the others are still shown.
  int failed = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (i > static_cast<std::size_t>(failed)) std::printf("\n");  // after the last summary shown
    std::fflush(stdout);
    try {
      inspect(files[i], session, !no_check);
    } catch (const std::exception& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "actorscope inspect: %s\n", e.what());
      ++failed;
    }
  }
  std::fflush(stdout);
  if (failed > 0 && files.size() > 1)
    std::fprintf(stderr, "actorscope inspect: %d of %zu files could not be read\n", failed, files.size());
  return failed > 0 ? 1 : 0;
}

}  // namespace

const Command& inspect_command() {
  static const Command c{"inspect", "summarise a recording: sessions, actors, events, drops", kUsage, run};
  return c;
}

}  // namespace actorscope::cli
