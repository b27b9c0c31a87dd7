// Chrome trace-event JSON from a recorded session, for Perfetto (ui.perfetto.dev) and
// chrome://tracing: one track per actor, grouped into one process per runtime thread (host); a
// slice per handled message, a flow arrow from each send to its handling, instants for lifecycle.
#pragma once

#include <actorscope/storage/session_reader.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace actorscope {

struct ChromeTraceOptions {
  /// The part of the session to export (runtime clock).
  TimePoint from = TimePoint::min();
  TimePoint to = TimePoint::max();
};

/// What an export wrote.
struct ChromeTraceSummary {
  std::uint64_t tracks = 0;     ///< actor tracks (thread_name metadata)
  std::uint64_t slices = 0;     ///< "X" slices of handled messages
  std::uint64_t sends = 0;      ///< zero-length "X" slices where messages were sent
  std::uint64_t flows = 0;      ///< send-to-handle arrows ("s" + "f" pairs)
  std::uint64_t instants = 0;   ///< "i" events: lifecycle, supervision, names, groups, timers
};

/// Writes the session as {"traceEvents": [...], ...}. Timestamps are microseconds from the
/// session's start. Throws RecordingError if the file cannot be read; stream errors are the
/// caller's to check.
ChromeTraceSummary write_chrome_trace(const SessionReader& reader, std::int64_t session, std::ostream& out,
                                      const ChromeTraceOptions& options = {});

/// Appends `text` as a JSON string literal (quotes included): escapes quotes, backslashes and
/// control characters, and replaces bytes that are not valid UTF-8 with U+FFFD, so the output is
/// always valid JSON whatever an error message contained.
void append_json_string(std::string& out, std::string_view text);

}  // namespace actorscope
