// The recording schema and its migrations, keyed by meta.format_version. The DDL here is the
// reference for docs/RECORDING-FORMAT.md; a change to it is a new format version and a migration.
#pragma once

#include "database.hpp"

#include <filesystem>
#include <optional>

namespace actorscope::storage {

/// PRAGMA application_id of every recording: "ASCP" (so `file` and other tools can tell).
inline constexpr int kApplicationId = 0x41534350;

/// meta.format_version, or nullopt when the database has no meta table or no format_version in it
/// (it is not a recording). Throws RecordingError (corrupt) when the value is not a number.
std::optional<int> read_format_version(Database& db, const std::filesystem::path& file);

/// Makes `db` a recording of the current format: creates the schema in an empty database, or
/// migrates an older recording in one transaction. Throws RecordingError when the database holds
/// something else (not_a_recording) or a newer format (too_new).
void create_or_migrate(Database& db, const std::filesystem::path& file);

/// Looks at `file` before SQLite does, reading its first bytes only: a missing file, a folder,
/// something that is not SQLite, and a file shorter than its own header says (truncated) get their
/// own RecordingError. Returns false for an empty file (SQLite reads it as an empty database; whether
/// that is acceptable is the caller's call), true for a file that starts like an SQLite database.
bool check_file_header(const std::filesystem::path& file);

/// Throws RecordingError (corrupt) when the recording in `db`, of format `version`, lacks a table or
/// a column that format has: a damaged file (a dropped table, a copy of only part of its schema).
/// Reads only.
void check_structure(Database& db, const std::filesystem::path& file, int version);

/// Whether the existing `file` can take another session: it is empty, an empty SQLite database, or a
/// whole recording of this build's format or an older one. Found by reading only, through a
/// read-only connection: nothing in the file changes and no journal, WAL or shared-memory file is
/// left beside it. Throws RecordingError (not_sqlite, not_a_recording, too_new, corrupt, locked,
/// cannot_open) when it cannot.
void check_appendable(const std::filesystem::path& file, int busy_timeout_ms);

/// The error for a recording newer than this build.
RecordingError too_new_error(const std::filesystem::path& file, int version);
/// The error for an SQLite database that is not a recording.
RecordingError not_a_recording_error(const std::filesystem::path& file, std::string_view why);
/// The error for a damaged recording: "<file> is damaged: <what>; record the session again or ...".
RecordingError damaged_error(const std::filesystem::path& file, std::string_view what);

}  // namespace actorscope::storage
