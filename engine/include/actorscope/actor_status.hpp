// ActorStatus: where an actor is in its life. It only ever moves forward.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

namespace actorscope {

enum class ActorStatus : std::uint8_t {
  unstarted = 0,  ///< the cell exists, pre_start has not run
  starting = 1,   ///< pre_start and post_start are running
  running = 2,    ///< handling messages
  draining = 3,   ///< new messages are refused, queued ones are still handled
  stopping = 4,   ///< exit in progress (post_stop may be running); the name is already free
  stopped = 5,    ///< fully dead; waiters have been woken
};

constexpr std::string_view to_string(ActorStatus s) noexcept {
  switch (s) {
    case ActorStatus::unstarted: return "unstarted";
    case ActorStatus::starting: return "starting";
    case ActorStatus::running: return "running";
    case ActorStatus::draining: return "draining";
    case ActorStatus::stopping: return "stopping";
    case ActorStatus::stopped: return "stopped";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& os, ActorStatus s) { return os << to_string(s); }

/// How an actor ended.
enum class ExitKind : std::uint8_t {
  stopped,  ///< a stop, a drain, or a clean exit: post_stop ran
  failed,   ///< a hook or handler threw; the supervisor got ActorFailed
  killed,   ///< killed (directly, or because its supervisor exited): post_stop was skipped
};

constexpr std::string_view to_string(ExitKind k) noexcept {
  switch (k) {
    case ExitKind::stopped: return "stopped";
    case ExitKind::failed: return "failed";
    case ExitKind::killed: return "killed";
  }
  return "unknown";
}

}  // namespace actorscope
