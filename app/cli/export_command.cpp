// `actorscope export`: a recorded session as Chrome trace-event JSON, for Perfetto and chrome://tracing.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/recording_summary.hpp"

#include <actorscope/storage/chrome_trace.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <cstdio>
#include <fstream>
#include <system_error>

namespace actorscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: actorscope export FILE --format chrome-trace --out FILE.json [--session ID] [--force]\n"
    "\n"
    "Writes a recorded session as Chrome trace-event JSON, which https://ui.perfetto.dev and\n"
    "chrome://tracing open: one track per actor, grouped by runtime thread; a slice per handled\n"
    "message (its handling time, named after the message type); an arrow from each send to its\n"
    "handling; and instant events for spawns, exits, links, supervision, names, groups and timers.\n"
    "Message slices need a recording made with --detail sampled or full.\n"
    "\n"
    "Options:\n"
    "  --format chrome-trace   the output format (the only one so far, and the default)\n"
    "  --out FILE.json         where to write; an existing file is refused unless --force\n"
    "  --session ID            which session (default: the only one, or the last one)\n"
    "  --force                 replace an existing --out file\n";

int run(std::vector<std::string> args) {
  Args a("export", std::move(args));
  const std::string format = a.value_or("format", "chrome-trace");
  const auto out = a.value("out");
  const auto session = a.integer("session", 1, INT64_MAX);
  const bool force = a.flag("force");
  const auto files = a.positionals();
  a.finish(1);
  if (files.empty()) throw a.error("which recording? give its file name: actorscope export FILE --out FILE.json");
  if (format != "chrome-trace") throw a.error("--format must be chrome-trace, not \"" + format + "\"");
  if (!out) throw a.error("--out is required: the JSON file to write, e.g. --out trace.json");
  std::error_code ec;
  if (std::filesystem::exists(*out, ec) && !force)
    throw a.error("\"" + *out + "\" already exists; use --force to replace it or choose another --out");

  const SessionReader reader(files.front());
  std::int64_t id = 0;
  if (session) {
    id = reader.session(*session).id;
  } else {
    const auto all = reader.sessions();
    if (all.empty()) throw a.error("\"" + files.front() + "\" has no sessions to export");
    id = all.back().id;
    if (all.size() > 1)
      std::fprintf(stderr, "exporting session %lld, the last of %zu (choose another with --session ID)\n",
                   static_cast<long long>(id), all.size());
  }

  // Written next to the target and renamed into place, so a failed export leaves no half file.
  std::filesystem::path tmp = *out;
  tmp += ".partial";
  ChromeTraceSummary sum;
  {
    std::ofstream json(tmp, std::ios::binary | std::ios::trunc);
    if (!json) throw std::runtime_error("cannot write \"" + tmp.string() + "\": check that its folder exists and is writable");
    try {
      sum = write_chrome_trace(reader, id, json);
    } catch (...) {
      json.close();
      std::filesystem::remove(tmp, ec);
      throw;
    }
    json.flush();
    if (!json) {
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("writing \"" + tmp.string() + "\" failed: is the disk full?");
    }
  }
  std::filesystem::rename(tmp, *out, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot move the trace into place as \"" + *out + "\": " + ec.message());
  }
  std::printf("%s: session %lld as Chrome trace JSON (%s): %s actor tracks, %s message slices, %s flows, %s instants\n",
              out->c_str(), static_cast<long long>(id), file_size_text(std::filesystem::file_size(*out, ec)).c_str(),
              with_commas(sum.tracks).c_str(), with_commas(sum.slices).c_str(), with_commas(sum.flows).c_str(),
              with_commas(sum.instants).c_str());
  std::printf("open it in https://ui.perfetto.dev or chrome://tracing\n");
  return 0;
}

}  // namespace

const Command& export_command() {
  static const Command c{"export", "write a recorded session as Chrome trace JSON (Perfetto)", kUsage, run};
  return c;
}

}  // namespace actorscope::cli
