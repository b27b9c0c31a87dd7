// Texts of the typed errors: what went wrong, and what to do about it.
#include <actorscope/errors.hpp>

namespace actorscope {

BlockingWaitError::BlockingWaitError(std::string_view operation)
    : std::logic_error(
          "actorscope: " + std::string(operation) +
          " is a blocking wait and was called on a thread that runs actors. It would stall that thread "
          "(and deadlock a single-threaded event loop). Inside an actor, make the handler a coroutine "
          "(return as::Task<>) and co_await instead: co_await ref.call(...), co_await "
          "cell.join_handle().join(), co_await as::sleep(...).") {}

namespace {
std::string spawn_text(SpawnError::Kind kind, const std::string& type, const std::string& detail) {
  switch (kind) {
    case SpawnError::Kind::startup_failed: return "spawn of " + type + " failed in pre_start: " + detail;
    case SpawnError::Kind::name_taken:
      return "spawn of " + type + " refused: " + detail + "; pick another name or stop that actor first";
    case SpawnError::Kind::supervisor_stopping: return "spawn_linked of " + type + " refused: " + detail;
    case SpawnError::Kind::bad_placement: return "spawn of " + type + " refused: " + detail;
    case SpawnError::Kind::system_stopping: return "spawn of " + type + " refused: " + detail;
  }
  return "spawn of " + type + " failed: " + detail;
}
}  // namespace

SpawnError::SpawnError(Kind kind, std::string actor_type, std::string detail)
    : kind_(kind),
      actor_type_(std::move(actor_type)),
      detail_(std::move(detail)),
      text_(spawn_text(kind_, actor_type_, detail_)) {}

}  // namespace actorscope
