// Chrome trace-event JSON: pid = runtime host + 1 (pid 0 holds sends from outside any actor),
// tid = actor pid, "M" events name them; X slices for handled messages (and zero-length ones for
// sends, which flow arrows need to start from), s/f flow pairs keyed by the message's trace id, and
// instants for the rest (a Supervisor's events with their fields as args, category "supervision").
#include <actorscope/storage/chrome_trace.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace actorscope {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // A multi-byte UTF-8 sequence: copied if well formed (no overlongs, no surrogates, <= U+10FFFF).
    std::size_t len = 0;
    std::uint32_t min = 0;
    std::uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    }
    bool ok = len != 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    ok = ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
    }
  }
  out += '"';
}

namespace {

using observe::Event;
using observe::EventKind;

/// Microseconds with nanosecond precision, as trace viewers expect: "1234.567".
void append_us(std::string& out, std::int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  out += std::to_string(ns / 1000);
  const auto frac = static_cast<int>(ns % 1000);
  out += '.';
  out += static_cast<char>('0' + frac / 100);
  out += static_cast<char>('0' + frac / 10 % 10);
  out += static_cast<char>('0' + frac % 10);
}

/// A type name without its namespaces, for slice labels: "ns::{anonymous}::Item" -> "Item",
/// "std::variant<app::Add, app::Get>" -> "variant<Add, Get>". The full name stays in the args.
std::string short_type_name(std::string_view full) {
  std::string out;
  out.reserve(full.size());
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i] == ':' && i + 1 < full.size() && full[i + 1] == ':') {
      const std::size_t cut = out.find_last_of("<>,( *&");
      out.erase(cut == std::string::npos ? 0 : cut + 1);
      ++i;
      continue;
    }
    out += full[i];
  }
  return out;
}

class TraceWriter {
 public:
  TraceWriter(std::ostream& out, std::int64_t t0) : out_(out), t0_(t0) { buf_ = "{\"traceEvents\":[\n"; }

  /// Starts one trace event object: {"ph":"X","pid":1,"tid":2,"ts":...
  void begin(char ph, std::uint64_t pid, std::uint64_t tid, std::optional<std::int64_t> t_ns) {
    if (!first_) buf_ += ",\n";
    first_ = false;
    buf_ += "{\"ph\":\"";
    buf_ += ph;
    buf_ += "\",\"pid\":";
    buf_ += std::to_string(pid);
    buf_ += ",\"tid\":";
    buf_ += std::to_string(tid);
    if (t_ns) {
      buf_ += ",\"ts\":";
      append_us(buf_, *t_ns - t0_);
    }
  }
  void field(std::string_view key, std::string_view text) {
    buf_ += ",\"";
    buf_ += key;
    buf_ += "\":";
    append_json_string(buf_, text);
  }
  void number(std::string_view key, std::int64_t v) {
    buf_ += ",\"";
    buf_ += key;
    buf_ += "\":";
    buf_ += std::to_string(v);
  }
  /// Opens "args":{ ... } ; fields inside are written with arg_*.
  void args_begin() {
    buf_ += ",\"args\":{";
    first_arg_ = true;
  }
  void arg(std::string_view key, std::string_view text) {
    arg_key(key);
    append_json_string(buf_, text);
  }
  void arg(std::string_view key, std::int64_t v) {
    arg_key(key);
    buf_ += std::to_string(v);
  }
  void args_end() { buf_ += '}'; }
  void end() {
    buf_ += '}';
    if (buf_.size() > (1u << 16)) flush();
  }

  void finish(std::string_view tail) {
    buf_ += "\n]";
    buf_ += tail;
    buf_ += "}\n";
    flush();
  }

  std::string& raw() { return buf_; }

 private:
  void arg_key(std::string_view key) {
    if (!first_arg_) buf_ += ',';
    first_arg_ = false;
    append_json_string(buf_, key);
    buf_ += ':';
  }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

  std::ostream& out_;
  std::int64_t t0_;
  std::string buf_;
  bool first_ = true;
  bool first_arg_ = true;
};

struct Track {
  std::uint64_t pid = 0;
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();
};

}  // namespace

ChromeTraceSummary write_chrome_trace(const SessionReader& reader, std::int64_t session, std::ostream& out,
                                      const ChromeTraceOptions& options) {
  const SessionInfo info = reader.session(session);
  const std::vector<ActorInfo> actors = reader.actors(session);
  const std::int64_t t0 = observe::to_ns(info.start_time);
  ChromeTraceSummary sum;
  TraceWriter w(out, t0);

  // An actor that never ran on the qt runtime may have no host: it gets a process of its own.
  const std::uint64_t no_host_pid = std::uint64_t{observe::no_thread} + 1;
  auto process_name = [&](std::uint64_t pid) {
    if (pid == 0) return std::string("outside actors");
    if (pid == no_host_pid) return std::string("actors that never ran (no host chosen)");
    std::string name = info.runtime;
    if (info.runtime == "asio") {
      name += " pool (";
      name += std::to_string(info.threads);
      name += info.threads == 1 ? " thread)" : " threads)";
    } else {
      name += " thread ";
      name += std::to_string(pid - 1);
    }
    return name;
  };

  // Metadata: a process per runtime host that has actors, a named track per actor.
  std::unordered_map<std::uint64_t, Track> tracks;
  std::map<std::uint64_t, bool> pids{{0, true}};
  for (const ActorInfo& a : actors) {
    const std::uint64_t pid = std::uint64_t{a.thread} + 1;
    tracks[a.id.pid] = Track{pid};
    pids[pid] = true;
  }
  for (const auto& [pid, unused] : pids) {
    (void)unused;
    w.begin('M', pid, 0, std::nullopt);
    w.field("name", "process_name");
    w.args_begin();
    w.arg("name", process_name(pid));
    w.args_end();
    w.end();
    w.begin('M', pid, 0, std::nullopt);
    w.field("name", "process_sort_index");
    w.args_begin();
    w.arg("sort_index", static_cast<std::int64_t>(pid));
    w.args_end();
    w.end();
  }
  w.begin('M', 0, 0, std::nullopt);
  w.field("name", "thread_name");
  w.args_begin();
  w.arg("name", "sends from outside actors");
  w.args_end();
  w.end();
  for (const ActorInfo& a : actors) {
    std::string name = a.name.empty() ? a.type_name : a.name;
    name += " (";
    name += a.id.to_string();
    name += ')';
    w.begin('M', tracks[a.id.pid].pid, a.id.pid, std::nullopt);
    w.field("name", "thread_name");
    w.args_begin();
    w.arg("name", name);
    w.args_end();
    w.end();
    w.begin('M', tracks[a.id.pid].pid, a.id.pid, std::nullopt);
    w.field("name", "thread_sort_index");
    w.args_begin();
    w.arg("sort_index", static_cast<std::int64_t>(a.id.pid));
    w.args_end();
    w.end();
    ++sum.tracks;
  }

  auto track_of = [&](ActorId id) -> Track& {
    auto [it, inserted] = tracks.try_emplace(id.pid, Track{id.is_valid() ? 1u : 0u});
    (void)inserted;
    return it->second;
  };

  struct Sent {
    std::uint64_t pid, tid;
    std::int64_t t;
  };
  std::unordered_map<std::uint64_t, Sent> sends;  // by trace id, until handled

  EventFilter filter;
  filter.from = options.from;
  filter.to = options.to;
  reader.for_each_event(session, filter, [&](const Event& e) {
    const std::int64_t t = observe::to_ns(e.time);
    switch (e.kind) {
      case EventKind::message_sent: {
        Track& tr = track_of(e.actor);
        std::string name = "send ";
        name += e.message_type.empty() ? std::string("message") : short_type_name(e.message_type);
        w.begin('X', tr.pid, e.actor.pid, t);
        w.field("name", name);
        w.field("cat", "send");
        w.number("dur", 0);
        w.args_begin();
        if (!e.message_type.empty()) w.arg("type", e.message_type);
        w.arg("to", e.peer.to_string());
        w.arg("trace", static_cast<std::int64_t>(e.trace));
        w.args_end();
        w.end();
        ++sum.sends;
        if (e.trace != 0) sends[e.trace] = Sent{tr.pid, e.actor.pid, t};
        break;
      }
      case EventKind::message_handled: {
        Track& tr = track_of(e.actor);
        std::int64_t start = t - observe::to_ns(e.handling);
        // One handler at a time per actor: keep slices from overlapping where clock reads of
        // different threads put them a hair apart.
        if (start < tr.last_end) start = std::min(tr.last_end, t);
        tr.last_end = t;
        w.begin('X', tr.pid, e.actor.pid, start);
        w.field("name", e.message_type.empty() ? std::string("message") : short_type_name(e.message_type));
        w.field("cat", "message");
        w.raw() += ",\"dur\":";
        append_us(w.raw(), t - start);
        w.args_begin();
        if (!e.message_type.empty()) w.arg("type", e.message_type);
        w.arg("from", e.peer.to_string());
        if (e.timed) {
          w.arg("queue_ns", observe::to_ns(e.queue));
          w.arg("handle_ns", observe::to_ns(e.handling));
        }
        w.arg("outcome", e.failed ? "failed" : "ok");
        w.arg("trace", static_cast<std::int64_t>(e.trace));
        w.args_end();
        w.end();
        ++sum.slices;
        if (auto it = sends.find(e.trace); e.trace != 0 && it != sends.end()) {
          // The send and the handling were timed on two threads, whose clock reads can disagree by
          // a hair (on a virtual machine, by a fraction of a microsecond): the arrow ends inside
          // the handling slice and never points back in time.
          const std::int64_t arrives = std::max(start, std::min(it->second.t, t));
          const std::int64_t leaves = std::min(it->second.t, arrives);
          w.begin('s', it->second.pid, it->second.tid, leaves);
          w.field("name", "message");
          w.field("cat", "flow");
          w.number("id", static_cast<std::int64_t>(e.trace));
          w.end();
          w.begin('f', tr.pid, e.actor.pid, arrives);
          w.field("name", "message");
          w.field("cat", "flow");
          w.field("bp", "e");
          w.number("id", static_cast<std::int64_t>(e.trace));
          w.end();
          ++sum.flows;
          sends.erase(it);
        }
        break;
      }
      case EventKind::supervisor_configured:
      case EventKind::child_restarted:
      case EventKind::supervisor_gave_up: {
        // On the track of the actor it is about: the new child for a restart (its first mark; the
        // child it replaces when the start failed and there is none), the supervisor for the
        // others. Each field under its own name.
        const ActorId on = e.kind == EventKind::child_restarted && !e.actor.is_valid() ? e.peer : e.actor;
        Track& tr = track_of(on);
        w.begin('i', tr.pid, on.pid, t);
        std::string name(observe::to_string(e.kind));
        if (e.kind == EventKind::child_restarted) {
          name += ' ';
          name += e.name;
        }
        w.field("name", name);
        w.field("cat", "supervision");
        w.field("s", "t");
        w.args_begin();
        if (e.kind == EventKind::supervisor_configured) {
          w.arg("strategy", e.name);
          w.arg("max_restarts", static_cast<std::int64_t>(e.thread));
          w.arg("period_ns", observe::to_ns(e.period));
          w.arg("specs", e.text);
        } else if (e.kind == EventKind::child_restarted) {
          w.arg("child_id", e.name);
          w.arg("reason", e.text);
          if (e.peer.is_valid()) w.arg("replaces", e.peer.to_string());
          w.arg("attempt", static_cast<std::int64_t>(e.thread));
          w.arg("delay_ns", observe::to_ns(e.period));
          w.arg("start_failed", e.failed ? "yes" : "no");
        } else {
          w.arg("reason", e.text);
          w.arg("restarts", static_cast<std::int64_t>(e.thread));
          w.arg("period_ns", observe::to_ns(e.period));
        }
        w.args_end();
        w.end();
        ++sum.instants;
        break;
      }
      default: {
        const bool global = e.kind == EventKind::runtime_info;
        Track& tr = global ? track_of({}) : track_of(e.actor);
        w.begin('i', tr.pid, global ? 0 : e.actor.pid, t);
        std::string name(observe::to_string(e.kind));
        if (!e.name.empty() && e.kind != EventKind::spawned) {
          name += ' ';
          name += e.name;
        }
        w.field("name", name);
        w.field("cat", "lifecycle");
        w.field("s", global ? "g" : "t");
        w.args_begin();
        if (!e.name.empty()) w.arg("name", e.name);
        if (!e.text.empty()) w.arg("detail", e.text);
        if (e.peer.is_valid()) w.arg("peer", e.peer.to_string());
        if (e.kind == EventKind::timer_fired) w.arg("late_ns", observe::to_ns(e.time - e.scheduled));
        if (global) w.arg("threads", static_cast<std::int64_t>(e.thread));
        if (e.kind == EventKind::mailbox_configured) w.arg("capacity", static_cast<std::int64_t>(e.thread));
        w.args_end();
        w.end();
        ++sum.instants;
        break;
      }
    }
    return true;
  });

  std::string tail = ",\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
  tail += "\"session\":";
  tail += std::to_string(info.id);
  tail += ",\"runtime\":";
  append_json_string(tail, info.runtime);
  tail += ",\"threads\":";
  tail += std::to_string(info.threads);
  tail += ",\"scenario\":";
  append_json_string(tail, info.scenario);
  tail += ",\"detail\":";
  append_json_string(tail, to_string(info.detail));
  tail += ",\"recorder\":";
  append_json_string(tail, info.recorder);
  tail += ",\"ended_cleanly\":";
  tail += info.ended_cleanly() ? "true" : "false";
  tail += '}';
  w.finish(tail);
  return sum;
}

}  // namespace actorscope
