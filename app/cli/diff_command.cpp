// `actorscope diff`: the per-actor difference between two recorded sessions (recording_diff.hpp),
// as an aligned table that reads at 100 columns, and every column in JSON with --json.
#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/recording_summary.hpp"

#include <actorscope/storage/recording_diff.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace actorscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: actorscope diff A.db B.db [--session N [--session M]] [--top N] [--json FILE [--force]]\n"
    "\n"
    "Compares two recorded sessions actor by actor: messages handled, queue and handling times\n"
    "(p50 and p99), peak mailbox, failures and restarts, each with side A, side B and the ratio B/A.\n"
    "Actors are matched by their path in the supervision tree (root/team-a/worker-3; siblings of\n"
    "one name are numbered in spawn order: worker#2), then by registered name; never by id. A\n"
    "restarted actor keeps its path. Rows are sorted by their largest difference. The sessions\n"
    "can be of different scenarios: the totals say how many actors matched. docs/USER-GUIDE.md,\n"
    "\"Comparing two recordings\", defines every column. Nothing is ever written to a recording.\n"
    "\n"
    "Options:\n"
    "  --session N     the session of A.db, and of B.db too unless a second --session M follows\n"
    "                  (default: each file's last session). A.db and B.db may be the same file.\n"
    "  --top N         rows of the table to print (default 30; 0 prints all)\n"
    "  --json FILE     also write every column of every actor as JSON; an existing file is refused\n"
    "                  unless --force, and the recordings themselves always are\n"
    "  --force         replace an existing --json file\n";

// -- the --json target: never a recording, and another file only with --force --

/// Whether `out` is `input` or one of the files SQLite keeps beside it, under any name.
bool is_recording_file(const std::filesystem::path& out, const std::filesystem::path& input) {
  std::error_code ec;
  const auto real_out = std::filesystem::weakly_canonical(std::filesystem::absolute(out), ec);
  const auto real_input = std::filesystem::weakly_canonical(std::filesystem::absolute(input), ec);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::path file = input;
    file += suffix;
    std::error_code e;
    if (std::filesystem::equivalent(out, file, e) && !e) return true;
    std::filesystem::path real_file = real_input;
    real_file += suffix;
    if (real_out == real_file) return true;
  }
  return false;
}

void check_json_target(const Args& a, const std::string& out, const std::vector<std::string>& inputs, bool force) {
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec))
    throw a.error("--json \"" + out + "\" is a folder; give a file name, e.g. " +
                  (std::filesystem::path(out) / "diff.json").string());
  for (const std::string& input : inputs)
    if (is_recording_file(out, input))
      throw a.error("--json \"" + out + "\" is the recording \"" + input +
                    "\" (or one of its SQLite files): writing there would destroy it, with or without --force; "
                    "choose another file name, e.g. diff.json");
  if (std::filesystem::exists(std::filesystem::symlink_status(out, ec)) && !force)
    throw a.error("\"" + out + "\" already exists; use --force to replace it or choose another --json file");
}

/// Writes `text` to `out` through a new file beside it, renamed into place: never a half file.
void write_file(const std::filesystem::path& out, const std::string& text) {
  std::filesystem::path tmp;
  for (int n = 1; n <= 100 && tmp.empty(); ++n) {
    std::filesystem::path candidate = out;
    candidate += n == 1 ? std::string(".partial") : ".partial-" + std::to_string(n);
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      tmp = candidate;
    } else if (errno != EEXIST) {
      throw std::runtime_error("cannot write \"" + candidate.string() + "\" (" + std::strerror(errno) +
                               "): check that its folder exists and is writable");
    }
  }
  if (tmp.empty())
    throw std::runtime_error("cannot write next to \"" + out.string() +
                             "\": its folder is full of old .partial files; remove them and try again");
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) {
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("writing \"" + tmp.string() + "\" failed: is the disk full?");
    }
  }
  std::filesystem::rename(tmp, out, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot move the JSON into place as \"" + out.string() + "\": " + ec.message());
  }
}

// -- text formatting --

/// Display width of UTF-8 text (code points: the table uses "—" and "…", one column each).
std::size_t width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(std::string s, std::size_t w, bool right) {
  const std::size_t have = width(s);
  if (have >= w) return s;
  const std::string fill(w - have, ' ');
  return right ? fill + s : s + fill;
}

/// A path as the table shows it: a type name by its last part ("storm/cloud-1/Drop#3" for
/// "storm/cloud-1/demo::{anonymous}::Drop#3"), and when still longer than `w`, its last segments
/// after "…/" (the actor's own name is the part worth keeping). The JSON has the whole path.
std::string fit_path(const std::string& path, std::size_t w) {
  std::vector<std::string> segments;
  for (std::size_t start = 0;;) {
    const std::size_t slash = path.find('/', start);
    std::string seg = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (const std::size_t colons = seg.rfind("::"); colons != std::string::npos && seg.find('<') == std::string::npos)
      seg = seg.substr(colons + 2);
    segments.push_back(std::move(seg));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string shown;
  for (const std::string& seg : segments) shown += (shown.empty() ? "" : "/") + seg;
  if (width(shown) <= w) return shown;
  std::string tail;
  for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
    const std::string longer = tail.empty() ? *it : *it + "/" + tail;
    if (width(longer) + 2 > w) break;
    tail = longer;
  }
  if (!tail.empty()) return "…/" + tail;
  // One segment too long by itself: its end.
  const std::string& last = segments.back();
  std::size_t keep = w - 1, start = last.size();
  while (keep > 0 && start > 0) {
    --start;
    if ((static_cast<unsigned char>(last[start]) & 0xC0) != 0x80) --keep;
  }
  while (start < last.size() && (static_cast<unsigned char>(last[start]) & 0xC0) == 0x80) ++start;
  return "…" + last.substr(start);
}

std::string fmt(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// 1234 → "1,234"; a million and more → "1.23M", "45.6M", "1.23G".
std::string count_text(double v) {
  if (v < 1e6) return with_commas(static_cast<std::uint64_t>(v));
  if (v < 1e9) return fmt("%.3gM", v / 1e6);
  return fmt("%.3gG", v / 1e9);
}

std::string ns_text(double ns) {
  if (ns < 1e3) return fmt("%.0fns", ns);
  if (ns < 1e6) return fmt("%.3gus", ns / 1e3);
  if (ns < 1e9) return fmt("%.3gms", ns / 1e6);
  return fmt("%.3gs", ns / 1e9);
}

std::string ratio_text(const DiffCell& c) {
  switch (c.kind) {
    case DiffCell::Ratio::none: return "—";
    case DiffCell::Ratio::fresh: return "new";
    case DiffCell::Ratio::gone: return "gone";
    case DiffCell::Ratio::value: break;
  }
  if (c.ratio >= 999.5) return ">999";
  if (c.ratio >= 9.995) return fmt("%.0f", c.ratio);
  return fmt("%.2f", c.ratio);
}

std::string value_text(const std::optional<double>& v, bool time) {
  if (!v) return "—";
  return time ? ns_text(*v) : count_text(*v);
}

// -- the table --

constexpr std::size_t kPathWidth = 20;

struct Group {
  const char* title;
  DiffColumn column;
  std::size_t value_width;
  bool time;
  bool arrow;  // "A→B" in one column instead of A, B and B/A
};
constexpr Group kGroups[] = {
    {"handled", DiffColumn::handled, 7, false, false},
    {"queue p99", DiffColumn::queue_p99, 6, true, false},
    {"handling p99", DiffColumn::handling_p99, 6, true, false},
    {"failed", DiffColumn::failures, 6, false, true},
    {"restarts", DiffColumn::restarts, 8, false, true},
};
constexpr std::size_t kRatioWidth = 4;

std::size_t group_width(const Group& g) { return g.arrow ? g.value_width : 2 * g.value_width + kRatioWidth + 2; }

void print_table(const RecordingDiff& d, std::size_t top) {
  std::string line1 = pad("", kPathWidth, false), line2 = pad("actor", kPathWidth, false);
  for (const Group& g : kGroups) {
    line1 += "  " + pad(g.title, group_width(g), true);
    line2 += "  " + (g.arrow ? pad("A→B", g.value_width, true)
                             : pad("A", g.value_width, true) + " " + pad("B", g.value_width, true) + " " +
                                   pad("B/A", kRatioWidth, true));
  }
  std::printf("%s\n%s\n", line1.c_str(), line2.c_str());
  const std::size_t shown = top == 0 ? d.rows.size() : std::min(top, d.rows.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const DiffRow& r = d.rows[i];
    std::string line = pad(fit_path(r.path, kPathWidth), kPathWidth, false);
    for (const Group& g : kGroups) {
      const DiffCell& c = r.cell(g.column);
      if (g.arrow) {
        line += "  " + pad(value_text(c.a, false) + "→" + value_text(c.b, false), g.value_width, true);
      } else {
        line += "  " + pad(value_text(c.a, g.time), g.value_width, true) + " " +
                pad(value_text(c.b, g.time), g.value_width, true) + " " + pad(ratio_text(c), kRatioWidth, true);
      }
    }
    std::printf("%s\n", line.c_str());
  }
  if (shown < d.rows.size())
    std::printf("... %zu more matched actors (--top 0 prints them all; --json writes every column)\n",
                d.rows.size() - shown);
}

void print_one_sided(const char* which, const std::vector<OneSidedActor>& actors, std::size_t top) {
  if (actors.empty()) return;
  std::printf("\nOnly in %s (%zu):\n", which, actors.size());
  const std::size_t shown = top == 0 ? actors.size() : std::min(top, actors.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const ActorFigures& f = actors[i].figures;
    std::printf("  %s  handled %s, failed %s, restarts %s\n", fit_path(actors[i].path, 60).c_str(),
                count_text(static_cast<double>(f.handled)).c_str(), with_commas(f.failures).c_str(),
                with_commas(f.restarts).c_str());
  }
  if (shown < actors.size()) std::printf("  ... %zu more\n", actors.size() - shown);
}

std::string describe(const DiffSide& s) {
  std::string text = s.label + ": ";
  text += s.scenario.empty() ? std::string("no scenario") : s.scenario;
  text += " on " + s.runtime + " x" + std::to_string(s.threads) + ", " + s.detail + " detail, ";
  text += fmt("%.2f s", std::chrono::duration<double>(s.duration).count()) + ", ";
  text += with_commas(s.actors.size()) + (s.actors.size() == 1 ? " actor" : " actors");
  return text;
}

std::string ratio_of(std::uint64_t a, std::uint64_t b) {
  return ratio_text(diff_cell(static_cast<double>(a), static_cast<double>(b)));
}

void print_report(const DiffSide& a, const DiffSide& b, const RecordingDiff& d, std::size_t top) {
  std::printf("A  %s\nB  %s\n\n", describe(a).c_str(), describe(b).c_str());
  if (!d.rows.empty()) {
    print_table(d, top);
    std::printf(
        "\nB/A: the ratio; new: 0 in A; gone: 0 in B; —: nothing to compare (both 0, or not measured).\n"
        "Sorted by each actor's largest difference over all columns (--json has rate, p50s, peak mailbox, dropped,\n"
        "rejected).\n");
  }
  print_one_sided("A", d.only_a, top);
  print_one_sided("B", d.only_b, top);
  std::printf("\n%s actors matched, %s only in A, %s only in B", with_commas(d.rows.size()).c_str(),
              with_commas(d.only_a.size()).c_str(), with_commas(d.only_b.size()).c_str());
  const std::size_t differing = d.differing();
  if (d.rows.empty())
    std::printf(": nothing to compare (different scenarios?)\n");
  else if (differing == 0)
    std::printf("; no differences: every matched actor has the same figures on both sides\n");
  else
    std::printf("; %s of them differ\n", with_commas(differing).c_str());
  std::printf("totals: handled %s → %s (%s), failed %s → %s, restarts %s → %s\n",
              with_commas(d.total_a.handled).c_str(), with_commas(d.total_b.handled).c_str(),
              ratio_of(d.total_a.handled, d.total_b.handled).c_str(), with_commas(d.total_a.failures).c_str(),
              with_commas(d.total_b.failures).c_str(), with_commas(d.total_a.restarts).c_str(),
              with_commas(d.total_b.restarts).c_str());
  for (const DiffSide* s : {&a, &b})
    if (s->pruned > 0)
      std::printf(
          "note: %s: %zu stopped actors were no longer in the final state; their handled and peak mailbox\n"
          "      come from the statistics table, their times are not counted\n",
          s->label.c_str(), s->pruned);
}

// -- JSON --

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (std::isinf(v)) return "\"infinite\"";
  if (v == std::floor(v) && std::abs(v) < 9e15) return std::to_string(static_cast<long long>(v));
  return fmt("%.6g", v);
}

std::string json_optional(const std::optional<double>& v) { return v ? json_number(*v) : "null"; }

std::string json_ratio(const DiffCell& c) {
  switch (c.kind) {
    case DiffCell::Ratio::none: return "null";
    case DiffCell::Ratio::fresh: return "\"new\"";
    case DiffCell::Ratio::gone: return "\"gone\"";
    case DiffCell::Ratio::value: break;
  }
  return json_number(c.ratio);
}

std::string json_side(const DiffSide& s, const std::string& file, std::int64_t session,
                      const RecordingDiff::Totals& t) {
  std::string o = "{";
  o += "\"file\": " + json_string(file) + ", \"session\": " + std::to_string(session);
  o += ", \"scenario\": " + json_string(s.scenario) + ", \"runtime\": " + json_string(s.runtime);
  o += ", \"threads\": " + std::to_string(s.threads) + ", \"detail\": " + json_string(s.detail);
  o += ", \"duration_s\": " + json_number(std::chrono::duration<double>(s.duration).count());
  o += ", \"actors\": " + std::to_string(t.actors) + ", \"incarnations\": " + std::to_string(t.incarnations);
  o += ", \"pruned\": " + std::to_string(s.pruned) + ", \"handled\": " + std::to_string(t.handled);
  o += ", \"failures\": " + std::to_string(t.failures) + ", \"restarts\": " + std::to_string(t.restarts) + "}";
  return o;
}

std::string json_figures(const ActorFigures& f) {
  std::string o;
  for (std::size_t c = 0; c < kDiffColumnCount; ++c) {
    const auto column = static_cast<DiffColumn>(c);
    o += std::string(c == 0 ? "" : ", ") + json_string(to_string(column)) + ": " + json_optional(f.value(column));
  }
  return o + ", \"incarnations\": " + std::to_string(f.incarnations);
}

std::string json_report(const DiffSide& a, const DiffSide& b, const RecordingDiff& d,
                        const std::pair<std::string, std::int64_t>& fa, const std::pair<std::string, std::int64_t>& fb) {
  std::string o = "{\n  \"format\": \"actorscope-diff/1\",\n";
  o += "  \"a\": " + json_side(a, fa.first, fa.second, d.total_a) + ",\n";
  o += "  \"b\": " + json_side(b, fb.first, fb.second, d.total_b) + ",\n";
  o += "  \"matched\": " + std::to_string(d.rows.size()) + ", \"only_in_a\": " + std::to_string(d.only_a.size()) +
       ", \"only_in_b\": " + std::to_string(d.only_b.size()) + ", \"differing\": " + std::to_string(d.differing()) +
       ",\n";
  o += "  \"rows\": [";
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const DiffRow& r = d.rows[i];
    o += i == 0 ? "\n" : ",\n";
    o += "    {\"path\": " + json_string(r.path) + ", \"path_b\": " + json_string(r.path_b);
    o += ", \"matched_by\": " + json_string(r.by == ActorMatch::By::path ? "path" : "registered_name");
    o += ", \"difference\": " + json_number(r.difference) + ", \"columns\": {";
    for (std::size_t c = 0; c < kDiffColumnCount; ++c) {
      const DiffCell& cell = r.cells[c];
      o += std::string(c == 0 ? "" : ", ") + json_string(to_string(static_cast<DiffColumn>(c))) +
           ": {\"a\": " + json_optional(cell.a) + ", \"b\": " + json_optional(cell.b) +
           ", \"ratio\": " + json_ratio(cell) + "}";
    }
    o += "}}";
  }
  o += d.rows.empty() ? "],\n" : "\n  ],\n";
  for (const auto& [key, list] : {std::pair{"only_in_a_actors", &d.only_a}, std::pair{"only_in_b_actors", &d.only_b}}) {
    o += std::string("  \"") + key + "\": [";
    for (std::size_t i = 0; i < list->size(); ++i)
      o += std::string(i == 0 ? "\n" : ",\n") + "    {\"path\": " + json_string((*list)[i].path) + ", " +
           json_figures((*list)[i].figures) + "}";
    o += list->empty() ? "]" : "\n  ]";
    o += key == std::string_view("only_in_a_actors") ? ",\n" : "\n";
  }
  return o + "}\n";
}

// -- the command --

/// Takes every `--session N` out of `args` (Args refuses an option given twice; diff takes two).
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

/// The session to compare in `reader`: `wanted`, or the last one when it is 0.
std::int64_t pick_session(const SessionReader& reader, std::int64_t wanted) {
  if (wanted != 0) return reader.session(wanted).id;  // RecordingError naming the file when absent
  const auto all = reader.sessions();
  if (all.empty())
    throw std::runtime_error("\"" + reader.file().string() +
                             "\" has no sessions to compare: record one first (actorscope record)");
  return all.back().id;
}

int run(std::vector<std::string> args) {
  const std::vector<std::string> session_args = take_sessions(args);
  Args a("diff", std::move(args));
  (void)a.value("session");  // a --session left without its value: "--session needs a value"
  const auto json = a.value("json");
  const bool force = a.flag("force");
  const auto top = a.integer("top", 0, 1'000'000);
  const auto files = a.positionals();
  a.finish(2, "two recordings: A.db B.db");
  if (files.size() < 2) throw a.error("give two recordings to compare: actorscope diff A.db B.db");
  if (session_args.size() > 2)
    throw a.error("--session is given " + std::to_string(session_args.size()) +
                  " times; give it once (both files) or twice (A's, then B's)");
  std::vector<std::int64_t> sessions;
  for (const std::string& v : session_args) {
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || ptr != v.data() + v.size() || n < 1)
      throw a.error("--session must be a session number (1 or more), not \"" + v + "\"");
    sessions.push_back(n);
  }
  if (json) check_json_target(a, *json, files, force);

  // 0: the file's last session.
  const std::int64_t wanted_a = sessions.empty() ? 0 : sessions.front();
  const std::int64_t wanted_b = sessions.empty() ? 0 : sessions.back();
  const SessionReader reader_a(files[0]);
  const SessionReader reader_b(files[1]);
  const std::int64_t session_a = pick_session(reader_a, wanted_a);
  const std::int64_t session_b = pick_session(reader_b, wanted_b);
  const DiffSide side_a = read_diff_side(reader_a, session_a);
  const DiffSide side_b = read_diff_side(reader_b, session_b);
  const RecordingDiff d = diff_sides(side_a, side_b);

  print_report(side_a, side_b, d, top ? static_cast<std::size_t>(*top) : 30);
  if (json) {
    write_file(*json, json_report(side_a, side_b, d, {files[0], session_a}, {files[1], session_b}));
    std::fflush(stdout);
    std::fprintf(stderr, "JSON written to %s\n", json->c_str());
  }
  return 0;
}

}  // namespace

const Command& diff_command() {
  static const Command c{"diff", "compare two recorded sessions actor by actor", kUsage, run};
  return c;
}

}  // namespace actorscope::cli
