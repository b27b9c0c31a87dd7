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

/// The error for a recording newer than this build.
RecordingError too_new_error(const std::filesystem::path& file, int version);
/// The error for an SQLite database that is not a recording.
RecordingError not_a_recording_error(const std::filesystem::path& file, std::string_view why);

}  // namespace actorscope::storage
