// ProcessGroups: Erlang's pg for one System. Actors join named groups inside scopes; anyone can list
// members, groups and scopes; an actor can monitor one group or a whole scope and hears every join
// and leave as a ProcessGroupChanged supervision event. An actor leaves its groups when it stops.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/detail/sticky_flag.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorscope {

namespace detail {
class CellCore;
class SystemCore;
}  // namespace detail

/// The process groups of one System: `system.groups()`. Every method may be called from any thread.
///
/// Membership is a set per group: joining twice, or leaving a group one is not in, changes nothing
/// and notifies nobody. A ProcessGroupChanged lists exactly the actors whose membership changed, so
/// a monitor can keep exact counts. An actor that is stopping or stopped cannot join; one that starts
/// stopping leaves every group at that moment, and monitors see that leave.
class ProcessGroups {
 public:
  /// The scope used by the methods without `_scoped`.
  static constexpr std::string_view default_scope = "default";

  ProcessGroups(const ProcessGroups&) = delete;
  ProcessGroups& operator=(const ProcessGroups&) = delete;
  ~ProcessGroups();

  // -- membership: each returns how many actors actually joined or left --
  std::size_t join(std::string_view group, const ActorCell& actor);
  std::size_t join(std::string_view group, const std::vector<ActorCell>& actors);
  std::size_t join_scoped(std::string_view scope, std::string_view group, const ActorCell& actor);
  std::size_t join_scoped(std::string_view scope, std::string_view group, const std::vector<ActorCell>& actors);
  std::size_t leave(std::string_view group, const ActorCell& actor);
  std::size_t leave(std::string_view group, const std::vector<ActorCell>& actors);
  std::size_t leave_scoped(std::string_view scope, std::string_view group, const ActorCell& actor);
  std::size_t leave_scoped(std::string_view scope, std::string_view group, const std::vector<ActorCell>& actors);

  // -- snapshots --
  /// The members of a group, in the order they joined.
  std::vector<ActorCell> members(std::string_view group) const;
  std::vector<ActorCell> members_scoped(std::string_view scope, std::string_view group) const;
  /// The groups of a scope that have members, sorted.
  std::vector<std::string> groups(std::string_view scope = default_scope) const;
  /// The scopes that have a group with members, sorted.
  std::vector<std::string> scopes() const;
  /// Every (scope, group) the actor is a member of, sorted: the reverse index.
  std::vector<std::pair<std::string, std::string>> groups_of(const ActorCell& actor) const;

  // -- monitoring: `observer` gets a ProcessGroupChanged for every join and leave --
  /// Watches one group. False if it already did, or if the observer is stopping or stopped.
  bool monitor(std::string_view group, const ActorCell& observer);
  bool monitor_scoped(std::string_view scope, std::string_view group, const ActorCell& observer);
  /// Watches every group of a scope, present and future. An observer that watches a scope and one
  /// of its groups still gets one event per change.
  bool monitor_scope(std::string_view scope, const ActorCell& observer);
  /// False if the observer was not watching. A notification already queued is still delivered.
  bool demonitor(std::string_view group, const ActorCell& observer);
  bool demonitor_scoped(std::string_view scope, std::string_view group, const ActorCell& observer);
  bool demonitor_scope(std::string_view scope, const ActorCell& observer);

 private:
  friend class detail::SystemCore;
  struct State;

  explicit ProcessGroups(detail::SystemCore& system);

  /// The actor starts stopping: it leaves every group and stops watching any. Called once per
  /// actor by the System.
  void actor_stopping(detail::CellCore& cell) noexcept;

  detail::CellCore& check(const ActorCell& actor, std::string_view what) const;
  static void check_names(std::string_view scope, const std::string_view* group);
  std::size_t change(std::string_view scope, std::string_view group, const std::vector<ActorCell>& actors, bool join);
  bool watch(std::string_view scope, std::string_view group, const ActorCell& observer, bool on);
  /// Emits one group_joined or group_left per actor. Holds m_.
  void observe(observe::EventKind kind, const std::string& scope, const std::string& group,
               const std::vector<ActorCell>& actors) noexcept;
  // The one place a membership changes (joins and leaves, asked for or automatic). Holds m_.
  std::size_t join_locked(const std::string& scope, const std::string& group, const std::vector<detail::CellCore*>& cells);
  std::size_t leave_locked(const std::string& scope, const std::string& group, const std::vector<detail::CellCore*>& cells);

  detail::SystemCore& system_;
  detail::StickyFlag used_;
  // The one lock of all group state. It is taken with no other engine lock held, and while it is
  // held only a runtime's own queue locks are taken (by push_supervision).
  mutable std::mutex m_;
  std::unique_ptr<State> state_;
};

}  // namespace actorscope
