// Scenario: a built-in demo workload that `actorscope record` (and the observatory) can run. Each
// one spawns its actors on a System and lets them run until the System shuts down; every choice
// they make comes from a PRNG seeded with the given seed, so one seed replays the same decisions.
// (On a multi-threaded runtime the interleaving of threads still varies from run to run.)
#pragma once

#include <actorscope/system.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace actorscope::scenarios {

class Scenario {
 public:
  virtual ~Scenario() = default;
  /// The name `--scenario` takes: "supervision".
  virtual std::string_view name() const noexcept = 0;
  /// One line on what it shows.
  virtual std::string_view summary() const noexcept = 0;
  /// Spawns the scenario's actors on `system`; they keep working until it shuts down. Throws
  /// std::runtime_error if an actor cannot be spawned.
  virtual void start(System& system, std::uint64_t seed) const = 0;

  /// The observatory's "Send" action: the name of the message this scenario would send `actor`
  /// to show what it does ("" if it has none for that actor), and sending it (false if the actor
  /// does not take it, or is gone). Scenarios without a demo message keep these defaults.
  virtual std::string demo_message(const ActorCell& actor) const {
    (void)actor;
    return {};
  }
  virtual bool send_demo_message(const ActorCell& actor) const {
    (void)actor;
    return false;
  }
};

/// Every built-in scenario, in the order `actorscope scenarios` lists them.
std::span<const Scenario* const> all();
/// The scenario with that name, or nullptr.
const Scenario* find(std::string_view name);
/// "supervision, pipeline, groups, timers, storm, factory": for error messages.
std::string names();

// The built-in scenarios (each in its own file).
const Scenario& supervision();
const Scenario& pipeline();
const Scenario& groups();
const Scenario& timers();
const Scenario& storm();
const Scenario& factory();

}  // namespace actorscope::scenarios
