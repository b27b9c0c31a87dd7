// ActorId: the identity of an actor, node-aware so that a cluster can be added later.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace actorscope {

struct ActorId {
  std::uint32_t node = 0;  ///< 0 is the local node
  std::uint64_t pid = 0;   ///< unique within its node and System; 0 means "no actor"

  constexpr bool is_local() const noexcept { return node == 0; }
  constexpr bool is_valid() const noexcept { return pid != 0; }
  /// "node.pid", as Erlang and ractor print it: "0.42".
  std::string to_string() const { return std::to_string(node) + "." + std::to_string(pid); }

  friend constexpr auto operator<=>(const ActorId&, const ActorId&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const ActorId& id) { return os << id.node << '.' << id.pid; }

}  // namespace actorscope

template <>
struct std::hash<actorscope::ActorId> {
  std::size_t operator()(const actorscope::ActorId& id) const noexcept {
    return std::hash<std::uint64_t>{}(id.pid * 0x9E3779B97F4A7C15ull ^ id.node);
  }
};
