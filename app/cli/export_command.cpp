// `actorscope export`: a recorded session as Chrome trace-event JSON, for Perfetto and chrome://tracing.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/recording_summary.hpp"

#include <actorscope/storage/chrome_trace.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

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
    "  --out FILE.json         where to write; an existing file is refused unless --force, and the\n"
    "                          recording itself (under any name) always is\n"
    "  --session ID            which session (default: the only one, or the last one)\n"
    "  --force                 replace an existing --out file\n";

/// Whether `out` is the recording `input` or one of the files SQLite keeps beside it, under any name:
/// the same path spelled another way, a hard link or a symlink (existing files are compared by
/// device and inode, not by name). Says which, for the message.
std::optional<std::string> input_file_at(const std::filesystem::path& out, const std::filesystem::path& input) {
  static constexpr std::pair<const char*, const char*> kFiles[] = {
      {"", "the recording being exported"},
      {"-wal", "the write-ahead log of the recording being exported"},
      {"-shm", "the shared-memory index of the recording being exported"},
      {"-journal", "the rollback journal of the recording being exported"},
  };
  // Absolute first: weakly_canonical leaves a relative name relative when nothing of it exists yet.
  std::error_code out_ec, input_ec;
  const std::filesystem::path real_out = std::filesystem::weakly_canonical(std::filesystem::absolute(out), out_ec);
  const std::filesystem::path real_input =
      std::filesystem::weakly_canonical(std::filesystem::absolute(input), input_ec);
  for (const auto& [suffix, what] : kFiles) {
    std::filesystem::path file = input;
    file += suffix;
    std::error_code ec;
    bool same = std::filesystem::equivalent(out, file, ec) && !ec;
    // SQLite's files beside the recording are refused by name even before they exist: a trace
    // written as rec.db-wal would be taken for the recording's log.
    if (!same && *suffix != '\0' && !out_ec && !input_ec) {
      std::filesystem::path real_file = real_input;
      real_file += suffix;
      same = real_out == real_file;
    }
    if (!same) continue;
    std::string text = what;
    if (out.lexically_normal() != file.lexically_normal()) text += " (\"" + file.string() + "\" under another name)";
    return text;
  }
  return std::nullopt;
}

/// Creates a new, empty file next to `out` to write the trace into, then renamed into place. It never
/// reuses an existing file, which may be someone's: `out.partial`, else `out.partial-2`, ...
std::filesystem::path create_partial(const std::filesystem::path& out) {
  for (int n = 1; n <= 100; ++n) {
    std::filesystem::path tmp = out;
    tmp += n == 1 ? std::string(".partial") : ".partial-" + std::to_string(n);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp;
    }
    if (errno != EEXIST)
      throw std::runtime_error("cannot write \"" + tmp.string() + "\" (" + std::strerror(errno) +
                               "): check that its folder exists and is writable");
  }
  throw std::runtime_error("cannot write next to \"" + out.string() +
                           "\": its folder is full of old .partial files; remove them and try again");
}

int run(std::vector<std::string> args) {
  Args a("export", std::move(args));
  const std::string format = a.value_or("format", "chrome-trace");
  const auto out = a.value("out");
  const auto session = a.integer("session", 1, INT64_MAX);
  const bool force = a.flag("force");
  const auto files = a.positionals();
  a.finish(1, "one recording; export each recording with its own command");
  if (files.empty())
    throw a.error("which recording? give its file name: actorscope export FILE --out FILE.json");
  if (format != "chrome-trace") throw a.error("--format must be chrome-trace, not \"" + format + "\"");
  if (!out) throw a.error("--out is required: the JSON file to write, e.g. --out trace.json");

  // Nothing the user has is replaced by mistake: not a folder, not the recording itself (--force
  // or not), and another file only with --force.
  const std::filesystem::path input = files.front();
  std::filesystem::path suggestion = input.filename();
  suggestion.replace_extension(".json");
  if (suggestion == std::filesystem::path(*out).filename()) suggestion = "trace.json";
  std::error_code ec;
  if (std::filesystem::is_directory(*out, ec))
    throw a.error("--out \"" + *out + "\" is a folder; give the trace a file name, e.g. " +
                  (std::filesystem::path(*out) / suggestion).string());
  if (const auto what = input_file_at(*out, input))
    throw a.error("--out \"" + *out + "\" is " + *what +
                  ": writing the trace there would destroy it, with or without --force; choose another --out, "
                  "e.g. " +
                  (input.parent_path() / suggestion).string());
  if (std::filesystem::exists(std::filesystem::symlink_status(*out, ec)) && !force)
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
  const std::filesystem::path tmp = create_partial(*out);
  ChromeTraceSummary sum;
  {
    std::ofstream json(tmp, std::ios::binary | std::ios::trunc);
    if (!json) {
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("cannot write \"" + tmp.string() + "\": check that its folder is writable");
    }
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
  std::printf(
      "%s: session %lld as Chrome trace JSON (%s): %s actor tracks, %s message slices, %s flows, %s "
      "instants\n",
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
