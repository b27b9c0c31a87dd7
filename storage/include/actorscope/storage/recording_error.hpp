// RecordingError: the one error type of storage. Whatever is wrong with a file — not SQLite, not a
// recording, too new, damaged, locked — comes back as a kind to branch on and a message that
// names the file, says what is wrong and what to do about it. Nothing in storage crashes on a bad file.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace actorscope {

class RecordingError : public std::runtime_error {
 public:
  enum class Kind {
    cannot_open,      ///< missing, unreadable, or a directory
    already_exists,   ///< the recorder was told not to touch an existing file
    not_sqlite,       ///< not an SQLite database at all
    not_a_recording,  ///< an SQLite database, but not an Actorscope recording
    too_new,          ///< a recording in a newer format than this build reads
    corrupt,          ///< truncated or damaged
    locked,           ///< another connection holds a lock for longer than the busy timeout
    no_such_session,  ///< the file has no session with that id
    write_failed,     ///< the disk refused a write (full, read-only, removed)
  };

  /// `message` is complete: it already names the file.
  RecordingError(Kind kind, std::filesystem::path file, const std::string& message)
      : std::runtime_error(message), kind_(kind), file_(std::move(file)) {}

  Kind kind() const noexcept { return kind_; }
  const std::filesystem::path& file() const noexcept { return file_; }

 private:
  Kind kind_;
  std::filesystem::path file_;
};

/// "not_sqlite", "corrupt", ...
std::string_view to_string(RecordingError::Kind kind) noexcept;

}  // namespace actorscope
