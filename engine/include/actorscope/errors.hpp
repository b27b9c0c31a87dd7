// Typed errors for mistakes a user can make. Each message says what went wrong and what to do.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/actor_status.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace actorscope {

/// A blocking wait (wait, stop_and_wait, a synchronous call(...).get(), ...) was called on a thread
/// that runs actors. It would deadlock that thread's actors, so the engine refuses it.
class BlockingWaitError : public std::logic_error {
 public:
  explicit BlockingWaitError(std::string_view operation);
};

/// Why a spawn did not produce a running actor.
class SpawnError {
 public:
  enum class Kind : std::uint8_t {
    startup_failed,       ///< pre_start threw or returned an error; the actor never ran
    name_taken,           ///< another live actor already has the requested name
    supervisor_stopping,  ///< spawn_linked under a supervisor that is draining or stopping
    bad_placement,        ///< the runtime cannot place the actor where it was asked to go
    system_stopping,      ///< the System is shutting down
  };

  SpawnError(Kind kind, std::string actor_type, std::string detail);

  Kind kind() const noexcept { return kind_; }
  /// The error's own text: the exception message from pre_start, the contested name, ...
  const std::string& detail() const noexcept { return detail_; }
  const std::string& actor_type() const noexcept { return actor_type_; }
  /// A full sentence for logs and for BadExpectedAccess.
  const char* what() const noexcept { return text_.c_str(); }

 private:
  Kind kind_;
  std::string actor_type_;
  std::string detail_;
  std::string text_;
};

/// Why a send failed.
enum class SendFailure : std::uint8_t {
  stopped,      ///< the actor no longer accepts messages: it is draining, stopping or stopped
  full,         ///< its bounded mailbox is full (Overflow::reject, or try_cast under any policy)
  would_block,  ///< its mailbox is full (Overflow::backpressure) and waiting for room would block an
                ///< actor's thread (a plain handler's cast, or an actor waiting on its own mailbox)
  timed_out,    ///< its mailbox stayed full for the whole timeout of send(message, timeout)
};

std::string_view to_string(SendFailure f) noexcept;

namespace detail {
/// The sentence a SendError says.
std::string send_error_text(ActorId target, ActorStatus status, SendFailure kind, std::uint64_t capacity);
}  // namespace detail

/// A message could not be delivered. The message itself is handed back to the caller.
template <class M>
class SendError {
 public:
  /// The actor no longer accepts messages (SendFailure::stopped).
  SendError(M message, ActorId target, ActorStatus status)
      : SendError(std::move(message), target, status, SendFailure::stopped, 0) {}
  /// `capacity`: the bounded mailbox's, for the text of the other kinds.
  SendError(M message, ActorId target, ActorStatus status, SendFailure kind, std::uint64_t capacity)
      : message_(std::move(message)),
        target_(target),
        status_(status),
        kind_(kind),
        text_(detail::send_error_text(target, status, kind, capacity)) {}
  /// The same failure, handing back `message` instead (a derived reference's own message type).
  template <class N>
  SendError(M message, const SendError<N>& failure)
      : message_(std::move(message)),
        target_(failure.target()),
        status_(failure.status()),
        kind_(failure.kind()),
        text_(failure.what()) {}

  /// The undelivered message.
  M& message() & noexcept { return message_; }
  M&& message() && noexcept { return std::move(message_); }
  ActorId target() const noexcept { return target_; }
  /// The target's status when the send failed.
  ActorStatus status() const noexcept { return status_; }
  SendFailure kind() const noexcept { return kind_; }
  /// A full sentence: what went wrong and what to do.
  const char* what() const noexcept { return text_.c_str(); }

 private:
  M message_;
  ActorId target_;
  ActorStatus status_;
  SendFailure kind_;
  std::string text_;
};

/// A link between a child and a supervisor was refused.
class LinkError {
 public:
  enum class Kind : std::uint8_t {
    self_link,            ///< an actor cannot supervise itself
    would_cycle,          ///< the supervisor is a descendant of the child
    child_stopping,       ///< the child is draining, stopping or stopped
    supervisor_stopping,  ///< the supervisor is draining, stopping or stopped
    different_system,     ///< the two actors belong to different Systems
  };
  LinkError(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}
  Kind kind() const noexcept { return kind_; }
  const char* what() const noexcept { return text_.c_str(); }

 private:
  Kind kind_;
  std::string text_;
};

}  // namespace actorscope

// -- the actor toolbox: process groups, timers, monitors, output ports --

namespace actorscope {

/// A process-group call got something it cannot use: an empty actor handle, an actor of another
/// System, or an empty group or scope name.
class ProcessGroupError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A timer was asked for something it cannot do: an empty target handle, or a period that is not
/// positive.
class TimerError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A monitor was asked for with an empty handle, for the actor itself, or across Systems.
class MonitorError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An output port was given an empty subscriber handle.
class OutputPortError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace actorscope
