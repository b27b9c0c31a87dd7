// Derived per-actor figures shared by the views.
#include "common/actor_metrics.hpp"

#include <algorithm>

namespace actorscope::views {

double messagesPerSecond(const observe::ActorRecord& actor, TimePoint now, Duration historyBucket,
                         Duration window) {
  const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(historyBucket));
  const std::int64_t nowBucket = observe::to_ns(now) / bucketNs;
  const std::int64_t buckets = std::max<std::int64_t>(1, observe::to_ns(window) / bucketNs);
  std::uint64_t handled = 0;
  for (auto it = actor.history.rbegin(); it != actor.history.rend(); ++it) {
    if (it->bucket <= nowBucket - buckets) break;
    handled += it->handled;
  }
  const double seconds = static_cast<double>(buckets * bucketNs) / 1e9;
  return static_cast<double>(handled) / seconds;
}

std::string shortTypeName(std::string_view type) {
  // Drop template arguments (the outermost <...>), then everything up to the last "::".
  std::string_view base = type;
  if (const auto lt = base.find('<'); lt != std::string_view::npos) base = base.substr(0, lt);
  while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
  if (const auto colon = base.rfind("::"); colon != std::string_view::npos) base = base.substr(colon + 2);
  return base.empty() ? std::string(type) : std::string(base);
}

std::string displayName(const observe::ActorRecord& actor) {
  if (!actor.name.empty()) return actor.name;
  if (!actor.type_name.empty()) return shortTypeName(actor.type_name);
  return "actor " + actor.id.to_string();
}

std::string nameUnder(const observe::ActorRecord& actor, const observe::ActorRecord* parent) {
  if (parent != nullptr && !parent->name.empty() && actor.name.size() > parent->name.size() + 1 &&
      actor.name.compare(0, parent->name.size(), parent->name) == 0 && actor.name[parent->name.size()] == '/')
    return actor.name.substr(parent->name.size() + 1);
  return displayName(actor);
}

std::string restartBadge(std::uint32_t restarts) {
  return restarts == 0 ? std::string() : "\u21bb " + std::to_string(restarts);
}

std::string periodText(Duration period) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(period).count();
  if (ms < 1000) return std::to_string(ms) + " ms";
  std::string s = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string frac = std::to_string(1000 + ms % 1000).substr(1);  // three digits
    while (frac.back() == '0') frac.pop_back();
    s += '.' + frac;
  }
  return s + " s";
}

std::string intensityText(const observe::SupervisorRecord& supervisor, TimePoint now) {
  return std::to_string(supervisor.restarts_within_period(now)) + " of " +
         std::to_string(supervisor.max_restarts) + " in " + periodText(supervisor.period);
}

ChildChurn childChurn(const observe::ActorRecord& actor, TimePoint now, Duration window) {
  ChildChurn churn;
  for (auto it = actor.child_tally.rbegin(); it != actor.child_tally.rend(); ++it) {
    if (it->bucket <= now - window) break;
    churn.failed += it->failed;
    churn.replacements += it->replacements;
  }
  return churn;
}

std::size_t recentChildFailures(const observe::ActorRecord& actor, TimePoint now, Duration window) {
  return static_cast<std::size_t>(childChurn(actor, now, window).failed);
}

bool failedRecently(const observe::ActorRecord& actor, TimePoint now, Duration window) {
  return actor.exit_kind == ExitKind::failed && now - actor.stopped <= window;
}

}  // namespace actorscope::views
