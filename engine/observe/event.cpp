// Names of event kinds and lanes (the recording format's words), and the string pool.
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/observe/observer.hpp>

#include <mutex>
#include <string>
#include <unordered_set>

namespace actorscope::observe {

namespace {
constexpr std::array<std::string_view, kEventKindCount> kKindNames = {
    "spawned",         "started",      "stopped",      "failed",          "killed",
    "message_sent",    "message_handled", "linked",    "unlinked",        "supervision_delivered",
    "group_joined",    "group_left",   "name_registered", "name_unregistered", "timer_started",
    "timer_fired",     "timer_cancelled", "runtime_info",
};
constexpr std::array<std::string_view, 4> kLaneNames = {"signal", "stop", "supervision", "message"};
}  // namespace

std::string_view to_string(EventKind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view("unknown");
}

std::optional<EventKind> event_kind_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<EventKind>(i);
  return std::nullopt;
}

std::string_view to_string(Lane lane) noexcept {
  const auto i = static_cast<std::size_t>(lane);
  return i < kLaneNames.size() ? kLaneNames[i] : std::string_view("unknown");
}

std::optional<Lane> lane_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kLaneNames.size(); ++i)
    if (kLaneNames[i] == name) return static_cast<Lane>(i);
  return std::nullopt;
}

Observer::~Observer() { detach_all(); }

void Observer::detach_all() noexcept {
  std::vector<detail::SystemCore*> systems;
  {
    std::lock_guard lk(systems_m_);
    systems = systems_;
  }
  // SystemCore::detach takes its own lock first and then ours (to forget the link), so ours must
  // not be held here.
  for (detail::SystemCore* s : systems) s->detach(*this);
}

std::string_view intern(std::string_view text) {
  if (text.empty()) return {};
  // Never destroyed: the views it hands out must outlive every static that holds one.
  static std::mutex* m = new std::mutex;
  static auto* pool = new std::unordered_set<std::string>;
  std::lock_guard lk(*m);
  return *pool->emplace(text).first;
}

}  // namespace actorscope::observe
