// The JSON document of a run, written by hand: a few objects of strings and numbers need no library.
#include <actorscope/benchmarks/json_report.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

namespace actorscope::bench {

namespace {

class Writer {
 public:
  std::string take() { return std::move(out_); }

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(std::string_view k) {
    separator();
    string_literal(k);
    out_ += ": ";
    after_key_ = true;
  }
  void value(std::string_view s) {
    separator();
    string_literal(s);
  }
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b) {
    separator();
    out_ += b ? "true" : "false";
  }
  void value(double d) {
    separator();
    if (!std::isfinite(d)) {
      out_ += "null";
      return;
    }
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back exactly
    out_.append(buf, ec == std::errc{} ? end : buf);
  }
  void value(std::size_t n) { value(static_cast<double>(n)); }
  void value(unsigned n) { value(static_cast<double>(n)); }
  void null() {
    separator();
    out_ += "null";
  }

  template <class T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void open(char c) {
    separator();
    out_ += c;
    ++depth_;
    first_ = true;
  }
  void close(char c) {
    --depth_;
    if (!first_) newline();
    out_ += c;
    first_ = false;
  }
  void separator() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0) return;
    if (!first_) out_ += ',';
    newline();
    first_ = false;
  }
  void newline() {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
  }
  void string_literal(std::string_view s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);  // UTF-8 passes through unchanged
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  int depth_ = 0;
  bool first_ = true;
  bool after_key_ = false;
};

void write_statistics(Writer& w, const Statistics& s) {
  w.begin_object();
  w.field("count", s.count);
  w.field("min", s.min);
  w.field("q1", s.q1);
  w.field("median", s.median);
  w.field("q3", s.q3);
  w.field("p95", s.p95);
  w.field("p99", s.p99);
  w.field("max", s.max);
  w.field("mean", s.mean);
  w.field("stddev", s.stddev);
  w.field("outliers_mild", s.outliers_mild);
  w.field("outliers_severe", s.outliers_severe);
  w.end_object();
}

}  // namespace

std::string to_json(const RunReport& report) {
  Writer w;
  w.begin_object();
  w.field("format", kJsonFormat);
  w.field("started_at", report.started_at);
  w.field("seconds", report.seconds);
  w.field("git_revision", report.git_revision);
  w.field("cancelled", report.cancelled);

  w.key("machine");
  w.begin_object();
  w.field("cpu_model", report.machine.cpu_model);
  w.field("cores", report.machine.cores);
  w.field("os", report.machine.os);
  w.field("compiler", report.machine.compiler);
  w.field("build_type", report.machine.build_type);
  w.field("hostname", report.machine.hostname);
  w.end_object();

  w.key("options");
  w.begin_object();
  w.key("runtimes");
  w.begin_array();
  for (const auto& r : report.options.runtimes) w.value(r);
  w.end_array();
  w.field("threads", report.options.threads);
  w.field("filter", report.options.filter);
  w.field("quick", report.options.quick);
  w.field("samples", report.options.samples);
  w.field("idle_spin_us", static_cast<double>(report.options.idle_spin.count()));
  w.field("wait_spin_us", static_cast<double>(report.options.wait_spin.count()));
  w.key("warm_up_ms");
  if (report.options.warm_up) {
    w.value(static_cast<double>(report.options.warm_up->count()));
  } else {
    w.null();
  }
  w.end_object();

  w.key("results");
  w.begin_array();
  for (const Result& r : report.results) {
    w.begin_object();
    w.field("benchmark", r.benchmark);
    w.field("group", r.group);
    w.field("runtime", r.runtime);
    w.field("threads", r.threads);
    w.field("measure", measure_name(r.measure));
    w.field("unit", r.unit);
    w.field("elements", r.elements);
    w.field("element", r.element);
    w.key("error");
    if (r.ok()) {
      w.null();
    } else {
      w.value(r.error);
    }
    w.key("note");
    if (r.note.empty()) {
      w.null();
    } else {
      w.value(r.note);
    }
    w.field("warm_up_iterations", r.warm_up_iterations);
    w.key("samples");
    w.begin_array();
    for (double s : r.samples) w.value(s);
    w.end_array();
    w.key("statistics");
    write_statistics(w, r.statistics);
    w.key("per_element");
    w.begin_object();
    if (r.has_per_element()) {
      w.field("median", r.ok() && r.elements > 0 ? r.median_per_element() : 0.0);
      w.field("unit", r.unit + "/" + r.element);
    } else {  // a rate or a ratio is already the figure: no division by elements
      w.field("median", r.ok() ? r.statistics.median : 0.0);
      w.field("unit", r.unit);
    }
    w.end_object();
    w.key("distribution");
    if (r.distribution) {
      write_statistics(w, *r.distribution);
    } else {
      w.null();
    }
    w.key("phases");
    w.begin_array();
    for (const auto& p : r.phases) {
      w.begin_object();
      w.field("name", p.name);
      w.key("statistics");
      write_statistics(w, p.statistics);
      w.end_object();
    }
    w.end_array();
    w.key("reference");
    if (r.reference) {
      w.begin_object();
      w.field("label", r.reference->label);
      w.field("low", r.reference->low);
      w.field("high", r.reference->high);
      w.end_object();
    } else {
      w.null();
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::string out = w.take();
  out += '\n';
  return out;
}

JsonReport::JsonReport(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "w");
  if (file_ == nullptr)
    throw ReportWriteError("cannot write the JSON report to \"" + path_ + "\": " + std::strerror(errno));
}

JsonReport::~JsonReport() {
  if (file_ != nullptr) std::fclose(file_);
}

void JsonReport::write(const RunReport& report) {
  const std::string text = to_json(report);
  if (file_ == nullptr) throw ReportWriteError("the JSON report \"" + path_ + "\" was already written");
  const bool ok = std::fwrite(text.data(), 1, text.size(), file_) == text.size();
  const int write_errno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed)
    throw ReportWriteError("writing the JSON report \"" + path_ + "\" failed: " + std::strerror(ok ? errno : write_errno));
}

}  // namespace actorscope::bench
