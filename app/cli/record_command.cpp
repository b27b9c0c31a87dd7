// `actorscope record`: runs a demo scenario on a runtime and records it into an SQLite file,
// with progress on standard error and a summary of the session at the end.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/recording_summary.hpp"
#include "scenarios/scenario.hpp"

#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>
#include <actorscope/system.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

namespace actorscope::cli {

namespace {

volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_record_interrupt(int) {
  interrupted = 1;
}

constexpr const char* kUsage =
    "usage: actorscope record --scenario NAME --out FILE [options]\n"
    "\n"
    "Runs a built-in demo scenario and records everything it does into FILE, an SQLite recording\n"
    "(docs/RECORDING-FORMAT.md describes its tables). Progress goes to standard error; a summary of\n"
    "the session is printed at the end. Ctrl-C stops early and still closes the session cleanly.\n"
    "\n"
    "Options:\n"
    "  --scenario NAME     the scenario to run ('actorscope scenarios' lists them)\n"
    "  --out FILE          the recording to write\n"
    "  --runtime NAME      asio (default) or qt\n"
    "  --threads N         the runtime's worker threads, 1 to 64 (default 2)\n"
    "  --seconds S         how long to run, decimals allowed (default 5)\n"
    "  --detail LEVEL      lifecycle: no message events; sampled (default): one message in N, and\n"
    "                      only those are timed; full: every message. Exact per-actor counts are\n"
    "                      kept at every level.\n"
    "  --sample-every N    with --detail sampled, one message in N is recorded (default 100)\n"
    "  --seed N            the scenario's random seed (default 1)\n"
    "  --append            add this session to the recording already in FILE; a file that is not\n"
    "                      a whole recording (another program's, damaged, newer) is refused and\n"
    "                      left byte for byte as it was\n"
    "  --force             replace FILE if it exists\n"
    "\n"
    "An existing FILE is refused unless --append or --force is given, so that a recording is never\n"
    "overwritten by accident.\n"
    "\n"
    "Example:\n"
    "  actorscope record --scenario pipeline --runtime qt --seconds 10 --detail full --out pipeline.db\n";

struct Choice {
  const scenarios::Scenario* scenario = nullptr;
  std::string runtime;
  unsigned threads = 2;
  double seconds = 5;
  Detail detail = Detail::sampled;
  std::uint32_t sample_every = 100;
  std::uint64_t seed = 1;
  std::filesystem::path out;
  RecorderOptions::IfExists if_exists = RecorderOptions::IfExists::refuse;
};

Choice parse(std::vector<std::string> args) {
  Args a("record", std::move(args));
  Choice c;
  const auto scenario = a.value("scenario");
  const auto out = a.value("out");
  c.runtime = a.value_or("runtime", "asio");
  c.threads = static_cast<unsigned>(a.integer("threads", 1, 64).value_or(2));
  c.seconds = a.seconds("seconds", 24 * 3600).value_or(5);
  const std::string detail = a.value_or("detail", "sampled");
  const auto every = a.integer("sample-every", 1, 1'000'000);
  c.seed = static_cast<std::uint64_t>(a.integer("seed", 0, INT64_MAX).value_or(1));
  const bool append = a.flag("append");
  const bool force = a.flag("force");
  a.finish();

  if (!scenario) throw a.error("--scenario is required; the scenarios are: " + scenarios::names());
  c.scenario = scenarios::find(*scenario);
  if (c.scenario == nullptr)
    throw a.error("there is no scenario \"" + *scenario + "\"; the scenarios are: " + scenarios::names());
  if (!out) throw a.error("--out is required: the file to record into, e.g. --out session.db");
  c.out = *out;
  if (c.runtime != "asio" && c.runtime != "qt") {
    std::string why = "--runtime must be asio or qt, not \"" + c.runtime + "\"";
    if (c.runtime == "manual") why += " (the manual runtime only runs when a program steps it)";
    throw a.error(why);
  }
  const auto d = detail_from_string(detail);
  if (!d) throw a.error("--detail must be lifecycle, sampled or full, not \"" + detail + "\"");
  c.detail = *d;
  if (every) {
    if (c.detail != Detail::sampled) throw a.error("--sample-every only applies to --detail sampled");
    c.sample_every = static_cast<std::uint32_t>(*every);
  }
  if (append && force) throw a.error("--append and --force contradict each other: choose one");
  std::error_code ec;
  if (std::filesystem::exists(c.out, ec)) {
    if (std::filesystem::is_directory(c.out, ec))
      throw a.error("--out \"" + c.out.string() + "\" is a folder; give a file name, e.g. " +
                    (c.out / "session.db").string());
    if (!append && !force)
      throw a.error(
          "\"" + c.out.string() +
          "\" already exists; use --force to replace it, --append to add this session to it, or choose "
          "another --out");
  }
  c.if_exists = append  ? RecorderOptions::IfExists::append
                : force ? RecorderOptions::IfExists::replace
                        : RecorderOptions::IfExists::refuse;
  return c;
}

void show_progress(bool tty, double elapsed, double total, const Recorder::Progress& p, bool last) {
  char line[200];
  std::snprintf(line, sizeof line, "recording: %5.1f of %.1f s, %s events, %s dropped", elapsed, total,
                with_commas(p.events_recorded).c_str(), with_commas(p.events_dropped).c_str());
  if (tty) {
    std::fprintf(stderr, "\r%-78s%s", line, last ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

int run(std::vector<std::string> args) {
  const Choice c = parse(std::move(args));
  const bool tty = isatty(fileno(stderr)) != 0;

  RecorderOptions options;
  options.detail = c.detail;
  options.sample_every = c.sample_every;
  options.scenario = std::string(c.scenario->name());
  options.seed = c.seed;
  options.if_exists = c.if_exists;

  std::optional<std::string> failure;
  Recorder::Progress p;
  {
    Recorder recorder(c.out, options);  // RecordingError: printed by the dispatcher, exit 1
    std::fprintf(stderr, "recording scenario %s on %s (%u thread%s) at detail %s into %s\n",
                 std::string(c.scenario->name()).c_str(), c.runtime.c_str(), c.threads,
                 c.threads == 1 ? "" : "s", std::string(to_string(c.detail)).c_str(), c.out.string().c_str());
    interrupted = 0;
    auto previous = std::signal(SIGINT, on_record_interrupt);
    {
      System system{make_runtime(c.runtime, {.threads = c.threads})};
      system.attach(recorder);
      c.scenario->start(system, c.seed);

      using clock = std::chrono::steady_clock;
      const auto start = clock::now();
      const auto end =
          start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(c.seconds));
      const auto every =
          tty ? clock::duration(std::chrono::milliseconds(200)) : clock::duration(std::chrono::seconds(1));
      auto next_report = start + every;
      // Recording for a while is the point of this command: wake a few times a second to report.
      for (auto now = clock::now(); now < end; now = clock::now()) {
        const auto progress = recorder.progress();
        if (progress.error) {
          failure = progress.error;
          break;
        }
        if (interrupted != 0) {
          std::fprintf(stderr, "%sinterrupted: stopping and closing the session\n", tty ? "\n" : "");
          break;
        }
        if (now >= next_report) {
          show_progress(tty, std::chrono::duration<double>(now - start).count(), c.seconds, progress, false);
          next_report += every;
        }
        std::this_thread::sleep_for(std::min<clock::duration>(end - now, std::chrono::milliseconds(50)));
      }
      system.shutdown();
      system.detach(recorder);  // the final statistics, the last keyframe, ended_at
      const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
      show_progress(tty, std::min(elapsed, c.seconds), c.seconds, recorder.progress(), true);
    }
    std::signal(SIGINT, previous);
    p = recorder.progress();
    if (!failure) failure = p.error;
  }  // the recorder closes the file: one self-contained .db again

  SessionReader reader(c.out);
  std::printf("%s: %s\n", c.out.string().c_str(), file_size_text(recording_size(c.out)).c_str());
  print_session_summary(stdout, reader, reader.session(p.session));
  if (failure) {
    std::fprintf(stderr, "actorscope record: %s\n", failure->c_str());
    return 1;
  }
  return 0;
}

}  // namespace

const Command& record_command() {
  static const Command c{"record", "run a demo scenario and record it into an SQLite file", kUsage, run};
  return c;
}

}  // namespace actorscope::cli
