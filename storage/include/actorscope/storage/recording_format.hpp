// What a recording is, as far as both of its ends agree: the file format's version and the detail
// levels a session can be recorded at. docs/RECORDING-FORMAT.md is the contract behind these names.
#pragma once

#include <optional>
#include <string_view>

namespace actorscope {

/// The format this build writes (meta.format_version). Readers accept every format up to it;
/// a writer that opens an older file migrates it first.
inline constexpr int kRecordingFormatVersion = 8;

/// How much of the event stream a session keeps. Lifecycle events (spawns, exits, links,
/// supervision, groups, names, timers) and the exact per-actor statistics are always recorded.
enum class Detail {
  lifecycle,  ///< no message events and no timing: the cheapest
  sampled,    ///< one message in N becomes a sent/handled pair, with type names; only those are timed
  full,       ///< every message, with queue and handling times and type names
};

/// "lifecycle", "sampled" or "full": the values of sessions.detail.
std::string_view to_string(Detail detail) noexcept;
std::optional<Detail> detail_from_string(std::string_view name) noexcept;

}  // namespace actorscope
