// `actorscope bench`: runs the benchmark suite (engine/benchmarks) and prints one table per
// benchmark with the runtimes side by side, then a summary against ractor's figures. Progress goes
// to standard error; the results can also go to a JSON file and are appended to the SQLite history.
#include "cli/args.hpp"
#include "cli/bench_catalogue.hpp"
#include "cli/command.hpp"

#include <actorscope/benchmarks.hpp>
#include <actorscope/benchmarks/history_store.hpp>

#include "recording_suite.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace actorscope::cli {

namespace {

namespace bench = actorscope::bench;

// Three significant digits in the largest unit that keeps the number at or above 1.
std::string format_ns(double ns) {
  struct Scale {
    double factor;
    const char* unit;
  };
  static constexpr Scale scales[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
  const double a = std::fabs(ns);
  for (const Scale& s : scales) {
    if (a >= s.factor || s.factor == 1) {
      const double v = ns / s.factor;
      const int decimals = std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2;
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, s.unit);
      return buf;
    }
  }
  return {};
}

std::string format_value(double v, const std::string& unit) {
  if (unit == "ns") return format_ns(v);
  char buf[48];
  if (unit == "×") {
    std::snprintf(buf, sizeof buf, "%.3f×", v);  // a ratio: 1.027×
  } else {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, unit.c_str());
  }
  return buf;
}

std::string format_range(double lo, double hi, const std::string& unit) {
  if (lo == hi) return format_value(lo, unit);
  return format_value(lo, unit) + " – " + format_value(hi, unit);
}

// The display width of UTF-8 text (µ, ×, – and … count once).
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

std::string pad_left(const std::string& s, std::size_t w) {
  const std::size_t n = width(s);
  return n >= w ? s : std::string(w - n, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t w) {
  const std::size_t n = width(s);
  return n >= w ? s : s + std::string(w - n, ' ');
}

constexpr std::size_t kLabel = 16;
constexpr std::size_t kColumn = 22;

void print_row(const std::string& label, const std::vector<std::string>& cells) {
  std::string line = "  " + pad_right(label, kLabel);
  for (const auto& c : cells) line += pad_left(c, kColumn);
  std::printf("%s\n", line.c_str());
}

// One table: statistics down, runtimes across, and ractor's figure where there is one.
void print_table(const bench::Benchmark& b, const bench::RunReport& report) {
  const bench::BenchmarkInfo& info = b.info;
  std::vector<const bench::Result*> cols;
  for (const auto& rt : report.options.runtimes) cols.push_back(report.find(info.name, rt));
  if (std::all_of(cols.begin(), cols.end(), [](const bench::Result* r) { return r == nullptr; })) return;

  std::printf("\n%s\n", info.name.c_str());
  std::vector<std::string> head;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    std::string h = report.options.runtimes[i];
    if (cols[i] != nullptr && cols[i]->threads != 0)
      h += " (" + std::to_string(cols[i]->threads) + (cols[i]->threads == 1 ? " thread)" : " threads)");
    head.push_back(h);
  }
  const bool has_ref = info.reference.has_value();
  if (has_ref) head.push_back(info.reference->label);
  print_row("", head);

  auto row = [&](const std::string& label, auto&& cell, std::string ref = {}) {
    std::vector<std::string> cells;
    for (const bench::Result* r : cols) cells.push_back(r == nullptr ? "—" : !r->ok() ? "failed" : cell(*r));
    if (has_ref) cells.push_back(ref);
    print_row(label, cells);
  };
  const std::string& unit = info.unit;
  const bool latency = info.measure == bench::Measure::latency;
  const char* value_name = latency ? "mean of sample" : "median";
  std::string ref_median, ref_per;
  if (has_ref) {
    ref_median = format_range(info.reference->low, info.reference->high, unit);
    ref_per = format_range(info.reference->low / info.elements, info.reference->high / info.elements, unit);
  }
  row(
      latency ? "median sample" : value_name,
      [&](const bench::Result& r) { return format_value(r.statistics.median, unit); }, ref_median);
  if (info.elements > 1)
    row(
        "per " + info.element,
        [&](const bench::Result& r) { return format_value(r.median_per_element(), unit); }, ref_per);
  row("mean", [&](const bench::Result& r) { return format_value(r.statistics.mean, unit); });
  row("min … max", [&](const bench::Result& r) {
    return format_value(r.statistics.min, unit) + " … " + format_value(r.statistics.max, unit);
  });
  row("p95", [&](const bench::Result& r) { return format_value(r.statistics.p95, unit); });
  row("outliers", [&](const bench::Result& r) {
    return std::to_string(r.statistics.outliers()) + " (" + std::to_string(r.statistics.outliers_severe) +
           " severe) of " + std::to_string(r.statistics.count);
  });
  if (latency) {
    auto dist = [&](double bench::Statistics::*field) {
      return [field](const bench::Result& r) {
        return r.distribution ? format_ns((*r.distribution).*field) : std::string("—");
      };
    };
    row(info.element + " p50", dist(&bench::Statistics::median));
    row(info.element + " p99", dist(&bench::Statistics::p99));
    row(info.element + " max", dist(&bench::Statistics::max));
  }
  // Named parts of a sample (a tree's spawn and shutdown), by their medians.
  std::vector<std::string> phase_names;
  for (const bench::Result* r : cols)
    if (r != nullptr)
      for (const auto& p : r->phases)
        if (std::find(phase_names.begin(), phase_names.end(), p.name) == phase_names.end())
          phase_names.push_back(p.name);
  for (const auto& name : phase_names) {
    row(name, [&](const bench::Result& r) {
      for (const auto& p : r.phases)
        if (p.name == name) return format_ns(p.statistics.median);
      return std::string("—");
    });
  }
  for (const bench::Result* r : cols) {
    if (r == nullptr) continue;
    if (!r->ok()) std::printf("  %s failed: %s\n", r->runtime.c_str(), r->error.c_str());
    if (!r->note.empty()) std::printf("  %s: %s\n", r->runtime.c_str(), r->note.c_str());
  }
}

// The medians of every benchmark in one table: each runtime, the ratio of the second runtime to
// the first, and how many times faster the first is than ractor.
void print_summary(const bench::Runner& runner, const bench::RunReport& report) {
  const auto& rts = report.options.runtimes;
  std::printf("\nSummary: medians per element%s\n",
              rts.size() >= 2 ? " (and the ratio of the second runtime to the first)" : "");
  std::string head = pad_right("", 60);
  for (const auto& rt : rts) head += pad_left(rt, 12);
  if (rts.size() >= 2) head += pad_left(rts[1] + "/" + rts[0], 10);
  head += pad_left("ractor/tokio", 20) + pad_left(rts[0] + " vs ractor", 22);
  std::printf("%s\n", head.c_str());
  for (const bench::Benchmark* b : runner.selected()) {
    const bench::BenchmarkInfo& info = b->info;
    std::string line = pad_right(info.name.size() > 58 ? info.name.substr(0, 57) + "…" : info.name, 60);
    std::vector<const bench::Result*> cols;
    for (const auto& rt : rts) cols.push_back(report.find(info.name, rt));
    for (const bench::Result* r : cols) {
      std::string cell = r == nullptr ? "—"
                         : !r->ok()   ? "failed"
                                      : format_value(r->median_per_element(), info.unit);
      line += pad_left(cell, 12);
    }
    if (rts.size() >= 2) {
      std::string ratio = "—";
      if (cols[0] != nullptr && cols[1] != nullptr && cols[0]->ok() && cols[1]->ok() &&
          cols[0]->statistics.median > 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f×", cols[1]->statistics.median / cols[0]->statistics.median);
        ratio = buf;
      }
      line += pad_left(ratio, 10);
    }
    if (info.reference) {
      line += pad_left(
          format_range(info.reference->low / info.elements, info.reference->high / info.elements, info.unit),
          20);
      const bench::Result* first = cols[0];
      if (first != nullptr && first->ok() && first->statistics.median > 0) {
        char buf[48];
        const double lo = info.reference->low / first->statistics.median;
        const double hi = info.reference->high / first->statistics.median;
        if (lo == hi) {
          std::snprintf(buf, sizeof buf, "%.1f× less", lo);
        } else {
          std::snprintf(buf, sizeof buf, "%.1f–%.1f× faster", lo, hi);
        }
        line += pad_left(buf, 22);
      }
    }
    std::printf("%s\n", line.c_str());
  }
}


std::atomic<bool> interrupted{false};
extern "C" void on_bench_interrupt(int) {
  interrupted.store(true);
}

const char* phase_text(bench::Progress::Phase p) {
  switch (p) {
    case bench::Progress::Phase::starting:
      return "starting";
    case bench::Progress::Phase::warming_up:
      return "warming up";
    case bench::Progress::Phase::sampling:
      return "sampling";
    case bench::Progress::Phase::finished:
      return "done";
  }
  return "";
}

}  // namespace

/// --json replaces an earlier report and nothing else: a recording, a history or any other file
/// named by mistake is refused before the run (the report's file is opened when the run starts).
void check_json_target(const Args& a, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw a.error("--json \"" + path + "\" is a folder; give a file name, e.g. " +
                  (std::filesystem::path(path) / "bench.json").string());
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec)) || std::filesystem::is_empty(path, ec))
    return;
  std::ifstream in(path, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::string_view format = bench::kJsonFormat;  // "actorscope-bench/N": any N
  if (head.find("\"format\": \"" + std::string(format.substr(0, format.find('/') + 1))) != std::string::npos)
    return;
  throw a.error("--json \"" + path +
                "\" exists and is not a report of 'actorscope bench', so it is not replaced; choose another "
                "file name, or remove it first");
}

int run_bench(std::vector<std::string> args) {
  Args a("bench", std::move(args));
  bench::RunOptions options;
  if (auto rts = a.list("runtime"); !rts.empty()) options.runtimes = std::move(rts);
  if (auto t = a.integer("threads", 1, 256)) options.threads = static_cast<unsigned>(*t);
  options.filter = a.value_or("filter", "");
  options.quick = a.flag("quick");
  if (auto s = a.integer("samples", 1, 10000)) options.samples = static_cast<unsigned>(*s);
  if (auto w = a.integer("warm-up-ms", 0, 600000)) options.warm_up = std::chrono::milliseconds(*w);
  if (auto sp = a.integer("idle-spin-us", 0, 1000000)) options.idle_spin = std::chrono::microseconds(*sp);
  if (auto sp = a.integer("wait-spin-us", 0, 1000000)) options.wait_spin = std::chrono::microseconds(*sp);
  const std::optional<std::string> json_path = a.value("json");
  const std::optional<std::string> history_path = a.value("history");
  const bool no_history = a.flag("no-history");
  const bool list = a.flag("list");
  a.finish();
  if (no_history && history_path) throw a.error("--history and --no-history contradict each other; give one");

  // Every mistake is caught here, before anything runs.
  std::optional<bench::Runner> runner;
  try {
    runner.emplace(options, bench_catalogue());
  } catch (const bench::RunOptionsError& e) {
    throw a.error(e.what());
  } catch (const UnknownRuntimeError& e) {
    throw a.error(e.what());
  }

  if (list) {
    for (const bench::Benchmark* b : runner->selected())
      std::printf("%-72s %s\n", b->info.name.c_str(), b->info.group.c_str());
    return 0;
  }

  std::optional<bench::JsonReport> json;
  if (json_path) {
    check_json_target(a, *json_path);
    json.emplace(*json_path);  // fails now, not after the run
  }
  std::optional<bench::HistoryStore> history;
  if (!no_history) history.emplace(history_path ? *history_path : bench::default_history_path());

  const bool tty = isatty(STDERR_FILENO) != 0;
  runner->on_progress([tty](const bench::Progress& p) {
    if (tty) {
      std::fprintf(stderr, "\r\x1b[K[%zu/%zu] %s · %s · %s", p.case_index, p.case_count, p.benchmark.c_str(),
                   p.runtime.c_str(), phase_text(p.phase));
      if (p.phase == bench::Progress::Phase::sampling) std::fprintf(stderr, " %zu/%zu", p.sample, p.samples);
      std::fflush(stderr);
    } else if (p.phase == bench::Progress::Phase::starting) {
      std::fprintf(stderr, "[%zu/%zu] %s · %s\n", p.case_index, p.case_count, p.benchmark.c_str(),
                   p.runtime.c_str());
    }
  });
  interrupted.store(false);
  runner->set_cancel_flag(&interrupted);
  auto previous = std::signal(SIGINT, on_bench_interrupt);
  bench::RunReport report = runner->run();
  std::signal(SIGINT, previous);
  if (tty) std::fprintf(stderr, "\r\x1b[K");

  std::printf("actorscope bench: %zu benchmark(s) × %zu runtime(s), %s, revision %s, %s (%u cores), %.0f s\n",
              runner->selected().size(), options.runtimes.size(), options.quick ? "quick" : "full",
              report.git_revision.c_str(), report.machine.cpu_model.c_str(), report.machine.cores,
              report.seconds);
  for (const bench::Benchmark* b : runner->selected()) print_table(*b, report);
  print_summary(*runner, report);
  if (report.cancelled) std::printf("\nInterrupted: the results above are the cases that finished.\n");

  if (json) {
    json->write(report);
    std::fprintf(stderr, "JSON written to %s\n", json->path().c_str());
  }
  if (history) {
    const auto id = history->record(report);
    std::fprintf(stderr, "Run %lld appended to the history %s\n", static_cast<long long>(id),
                 history->path().c_str());
  }
  const bool failed = std::any_of(report.results.begin(), report.results.end(),
                                  [](const bench::Result& r) { return !r.ok(); });
  return report.cancelled ? 130 : failed ? 1 : 0;
}

const Command& bench_command() {
  static const Command c{
      "bench", "run the benchmark suite on each runtime, side by side",
      "usage: actorscope bench [--runtime asio,qt] [--threads N] [--filter REGEX] [--quick] [--samples N]\n"
      "                        [--warm-up-ms N] [--idle-spin-us N] [--wait-spin-us N] [--json FILE]\n"
      "                        [--history FILE | --no-history] [--list]\n"
      "\n"
      "Runs the benchmark suite (ractor's five core benchmarks, their fully quiescent variants, messaging,\n"
      "lifecycle, timers, memory, the observation hook, and the recording measurements) on each runtime,\n"
      "and prints one table per benchmark with the runtimes side by side, then a summary against ractor's\n"
      "figures. A benchmark that does not use a runtime runs once. Progress goes to standard error. Each\n"
      "run is appended to the benchmark history (SQLite; see docs/RECORDING-FORMAT.md). Ctrl-C stops after\n"
      "the current sample and reports what has finished. Benchmarks never fail on a time.\n"
      "\n"
      "  --runtime LIST   comma-separated runtimes to run on (default: asio,qt)\n"
      "  --threads N      worker threads of each runtime (default: one per core)\n"
      "  --filter REGEX   only the benchmarks whose name contains a match (ECMAScript syntax)\n"
      "  --quick          fewer samples, a short warm-up, smaller files where a result says so: a run of\n"
      "                   everything stays under 2 minutes\n"
      "  --samples N      samples per benchmark (default: each benchmark's own, 3 to 30)\n"
      "  --warm-up-ms N   warm-up time per benchmark in ms; 0 skips it (default: each benchmark's own)\n"
      "  --idle-spin-us N let idle runtime threads and blocked waits spin N us before sleeping\n"
      "                   (RuntimeOptions::idle_spin; default 0)\n"
      "  --wait-spin-us N let blocked waits alone spin N us before sleeping; idle runtime threads do\n"
      "                   not (RuntimeOptions::wait_spin; default 0)\n"
      "  --json FILE      also write the results as a JSON document (format in docs/PERFORMANCE.md);\n"
      "                   an existing FILE is replaced only if it is an earlier report\n"
      "  --history FILE   the history file to append to\n"
      "                   (default: $XDG_DATA_HOME/actorscope/bench-history.db,\n"
      "                   or ~/.local/share/actorscope/bench-history.db)\n"
      "  --no-history     do not append this run to the history\n"
      "  --list           print the names of the (selected) benchmarks and exit\n"
      "\n"
      "Exit status: 0 when every benchmark ran, 1 when one could not run, 2 for a usage mistake,\n"
      "130 when interrupted.\n",
      run_bench};
  return c;
}

std::span<const bench::Benchmark> bench_catalogue() {
  static const std::vector<bench::Benchmark> all = [] {
    const auto built_in = bench::benchmarks();
    std::vector<bench::Benchmark> v(built_in.begin(), built_in.end());
    for (bench::Benchmark& b : actorscope::recording_benchmarks::suite()) v.push_back(std::move(b));
    return v;
  }();
  return all;
}

}  // namespace actorscope::cli
