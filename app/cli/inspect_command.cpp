// `actorscope inspect`: what a recording holds, session by session.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/recording_summary.hpp"

#include <actorscope/storage/session_reader.hpp>

#include <cstdio>

namespace actorscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: actorscope inspect FILE [--session ID] [--no-check]\n"
    "\n"
    "Summarises a recording: for each session the scenario, runtime and detail, when it ran and\n"
    "whether it ended cleanly (a session whose recording process was killed did not), its time\n"
    "range, its actors and how they ended, its events by kind, the events dropped, and the totals\n"
    "of its exact per-actor statistics.\n"
    "\n"
    "A file that is not a readable recording (not SQLite, another program's database, a newer\n"
    "format, truncated or damaged, locked by another program) is reported with what to do, and the\n"
    "exit code is 1.\n"
    "\n"
    "Options:\n"
    "  --session ID   only this session\n"
    "  --no-check     skip SQLite's integrity check of the whole file (faster on very large files)\n";

int run(std::vector<std::string> args) {
  Args a("inspect", std::move(args));
  const auto session = a.integer("session", 1, INT64_MAX);
  const bool no_check = a.flag("no-check");
  const auto files = a.positionals();
  a.finish(1);
  if (files.empty()) throw a.error("which recording? give its file name: actorscope inspect FILE");

  const SessionReader reader(files.front());  // RecordingError: printed by the dispatcher, exit 1
  if (!no_check) reader.verify();
  const std::vector<SessionInfo> sessions = session ? std::vector<SessionInfo>{reader.session(*session)}
                                                    : reader.sessions();
  std::printf("%s: Actorscope recording, format %d, %zu session%s, %s\n", files.front().c_str(),
              reader.format_version(), reader.sessions().size(), reader.sessions().size() == 1 ? "" : "s",
              file_size_text(recording_size(files.front())).c_str());
  for (const SessionInfo& s : sessions) {
    std::printf("\n");
    print_session_summary(stdout, reader, s);
  }
  return 0;
}

}  // namespace

const Command& inspect_command() {
  static const Command c{"inspect", "summarise a recording: sessions, actors, events, drops", kUsage, run};
  return c;
}

}  // namespace actorscope::cli
