// Texts of the typed errors: what went wrong, and what to do about it.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/errors.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <typeinfo>

namespace actorscope {

BlockingWaitError::BlockingWaitError(std::string_view operation)
    : std::logic_error(
          "actorscope: " + std::string(operation) +
          " is a blocking wait and was called on a thread that runs actors. It would stall that thread "
          "(and deadlock a single-threaded event loop). Inside an actor, make the handler a coroutine "
          "(return as::Task<>) and co_await instead: co_await ref.call(...), co_await "
          "cell.join_handle().join(), co_await as::sleep(...).") {}

std::string_view to_string(SendFailure f) noexcept {
  switch (f) {
    case SendFailure::stopped: return "stopped";
    case SendFailure::full: return "full";
    case SendFailure::would_block: return "would_block";
    case SendFailure::timed_out: return "timed_out";
  }
  return "unknown";
}

std::string detail::send_error_text(ActorId target, ActorStatus status, SendFailure kind, std::uint64_t capacity) {
  const std::string head = "cannot send to actor " + target.to_string() + ": ";
  const std::string limit = "(capacity " + std::to_string(capacity) + ")";
  switch (kind) {
    case SendFailure::stopped: break;
    case SendFailure::full:
      return head + "its mailbox is full " + limit +
             "; the message is handed back. Try again later, raise SpawnOptions::mailbox_capacity, or spawn it "
             "with Overflow::backpressure to wait for room";
    case SendFailure::would_block:
      return head + "its mailbox is full " + limit +
             " and waiting for room would block a thread that runs actors. In a handler, make it a coroutine and "
             "co_await ref.send(message); an actor cannot wait for room in its own mailbox. Or use try_cast and "
             "handle a full mailbox";
    case SendFailure::timed_out:
      return head + "its mailbox stayed full " + limit +
             " for the whole timeout; the message is handed back. Give it longer, or find out why the actor is slow "
             "(its queue and handling times are in its statistics)";
  }
  return head + "it is " + std::string(to_string(status)) + " and accepts no new messages";
}

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

// What a failed hook's exception says: the engine's one place that turns an exception into text
// (declared in detail/cell_core.hpp, which the typed cells use).
namespace actorscope::detail {

namespace {
// The demangled type of the exception being handled, for one that is not a std::exception.
std::string demangled_current_type() {
  const std::type_info* t = abi::__cxa_current_exception_type();
  if (t == nullptr) return "unknown exception";
  int status = 0;
  char* name = abi::__cxa_demangle(t->name(), nullptr, nullptr, &status);
  std::string out = (status == 0 && name != nullptr) ? name : t->name();
  std::free(name);
  return out;
}
}  // namespace

std::string describe_current_exception() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (const std::string& s) {
    return s;
  } catch (const char* s) {
    return s;
  } catch (...) {
    return "exception of type " + demangled_current_type();
  }
}

std::string describe_exception(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (...) {
    return describe_current_exception();
  }
}

}  // namespace actorscope::detail
