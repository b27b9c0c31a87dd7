// The observer hook: how events leave the engine. Nothing attached costs one predictable branch
// per hook site (a relaxed load); an attached observer says what it needs, and the engine reads
// the clock, names message types or builds message events only if some observer asked.
#pragma once

#include <actorscope/observe/event.hpp>

#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

namespace actorscope::detail {
class SystemCore;
}

namespace actorscope::observe {

/// What an observer wants. Lifecycle events (spawn, exit, links, supervision, groups, names,
/// timers) always flow to an attached observer; message events are the expensive part.
struct Interest {
  /// message_sent and message_handled events.
  bool messages = false;
  /// Queue and handling times: the clock is read around every message (also without message
  /// events, for the per-actor time sums in ActorStats).
  bool timing = false;
  /// Message type names on message events.
  bool type_names = false;
  /// With `messages`: one message in this many (per receiving actor) becomes a pair of events;
  /// 1 = every message. Counters and time sums stay exact whatever the sampling.
  std::uint32_t sample_every = 1;

  /// The union of two interests (the finer sampling wins).
  Interest merged(const Interest& o) const noexcept {
    return {messages || o.messages, timing || o.timing, type_names || o.type_names,
            sample_every < o.sample_every ? sample_every : o.sample_every};
  }
  friend bool operator==(const Interest&, const Interest&) = default;
};

/// Receives events on the thread where they happen. on_event must be thread-safe, must not block
/// and must not throw (it is noexcept): hand the event to another thread (EventCollector does) and
/// return. It must not call back into the System that emits it.
///
/// An observer may die before the Systems it observes: destroying it detaches it from them. A
/// derived class whose on_event uses its own members calls detach_all() first thing in its
/// destructor, so that no event arrives while those members are being destroyed.
class Observer {
 public:
  Observer() = default;
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;
  virtual ~Observer();
  /// Read once, at attach.
  virtual Interest interest() const noexcept = 0;
  virtual void on_event(const Event& event) noexcept = 0;

 protected:
  /// Detaches from every System this observer is attached to. Once it returns, on_event is not
  /// running and will not be called again.
  void detach_all() noexcept;

 private:
  friend class actorscope::detail::SystemCore;
  std::mutex systems_m_;
  std::vector<detail::SystemCore*> systems_;
};

/// A process-wide pool of strings that live until exit: message type names read back from a
/// recording become string_views as stable as the compiler's own. @thread any
std::string_view intern(std::string_view text);

}  // namespace actorscope::observe
