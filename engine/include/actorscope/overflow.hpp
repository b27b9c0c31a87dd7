// Overflow: what a bounded mailbox does with a message that finds it full.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace actorscope {

/// What happens to a message sent to a bounded mailbox (SpawnOptions::mailbox_capacity > 0) that
/// already holds `capacity` messages waiting to be handled. Only the message lane is bounded: stop,
/// kill, supervision events and timers' exits always get through.
enum class Overflow : std::uint8_t {
  /// The send fails at once: cast and try_cast return a SendError (kind full) that hands the message
  /// back. Counted in ActorStats::rejected.
  reject = 0,
  /// The new message is dropped; the send reports success. Counted in ActorStats::dropped.
  drop_newest = 1,
  /// The oldest waiting message is dropped to make room for the new one. Counted in
  /// ActorStats::dropped.
  drop_oldest = 2,
  /// The sender waits for room: co_await ref.send(m) in a coroutine handler, ref.send(m, timeout)
  /// .get() or a plain cast outside actors. Waiting senders get in strictly in the order they began
  /// to wait. A plain handler cannot wait (it would block its thread): its cast fails with a
  /// SendError of kind would_block.
  backpressure = 3,
};

constexpr std::string_view to_string(Overflow o) noexcept {
  switch (o) {
    case Overflow::reject: return "reject";
    case Overflow::drop_newest: return "drop_newest";
    case Overflow::drop_oldest: return "drop_oldest";
    case Overflow::backpressure: return "backpressure";
  }
  return "unknown";
}

/// The policy named `name` (as to_string writes it), or nothing.
constexpr std::optional<Overflow> overflow_from_string(std::string_view name) noexcept {
  for (Overflow o : {Overflow::reject, Overflow::drop_newest, Overflow::drop_oldest, Overflow::backpressure})
    if (to_string(o) == name) return o;
  return std::nullopt;
}

inline std::ostream& operator<<(std::ostream& os, Overflow o) { return os << to_string(o); }

}  // namespace actorscope
