// Names of RecordingError kinds, for messages and tests.
#include <actorscope/storage/recording_error.hpp>

namespace actorscope {

std::string_view to_string(RecordingError::Kind kind) noexcept {
  using Kind = RecordingError::Kind;
  switch (kind) {
    case Kind::cannot_open: return "cannot_open";
    case Kind::already_exists: return "already_exists";
    case Kind::not_sqlite: return "not_sqlite";
    case Kind::not_a_recording: return "not_a_recording";
    case Kind::too_new: return "too_new";
    case Kind::corrupt: return "corrupt";
    case Kind::locked: return "locked";
    case Kind::no_such_session: return "no_such_session";
    case Kind::write_failed: return "write_failed";
  }
  return "unknown";
}

}  // namespace actorscope
