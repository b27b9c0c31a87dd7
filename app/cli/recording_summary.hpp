// How `actorscope record` and `actorscope inspect` describe a recorded session: one block of
// aligned lines per session (what ran, when, how it ended, actors, events by kind, statistics).
#pragma once

#include <actorscope/detail/format.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace actorscope::cli {

/// 1234567 -> "1,234,567".
using actorscope::detail::with_commas;
/// A byte count as "812 bytes", "14.2 KB", "3.1 MB".
std::string file_size_text(std::uintmax_t bytes);
/// The size of a recording on disk, counting its write-ahead log if it has one.
std::uintmax_t recording_size(const std::filesystem::path& file);

/// Prints the summary of one session to `to`. Throws RecordingError if the file cannot be read.
void print_session_summary(std::FILE* to, const SessionReader& reader, const SessionInfo& session);

}  // namespace actorscope::cli
