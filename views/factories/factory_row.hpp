// FactoryRow: what the observatory says about one factory (factory.hpp), derived once from the
// fold's FactoryRecord: the Factories table shows one per factory, the inspector one for a factory
// actor. Plain data, so the inspector's details stay testable without widgets.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <cstdint>
#include <string>

namespace actorscope::views {

struct FactoryRow {
  ActorId id{};
  std::string name;
  std::string routing;
  bool alive = true;
  bool draining = false;
  std::uint64_t workers = 0;
  std::uint64_t busy = 0;
  std::uint64_t queue = 0;
  std::uint64_t queueLimit = 0;
  std::uint64_t dispatched = 0;
  std::uint64_t completed = 0;
  std::uint64_t discarded = 0;
  std::uint64_t latencyP50 = 0;  ///< ns (0 with no job timed)
  std::uint64_t latencyP99 = 0;
  std::uint64_t stuck = 0;
  std::uint64_t retried = 0;
  ActorId key() const noexcept { return id; }
  bool operator==(const FactoryRow&) const = default;
};

/// Factory `id`'s row, from its record `f` in `state`.
FactoryRow factoryRow(const observe::SystemState& state, ActorId id, const observe::FactoryRecord& f);

}  // namespace actorscope::views
