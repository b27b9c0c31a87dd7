// The observer hook: how events leave the engine. Nothing attached costs one predictable branch
// per hook site (a relaxed load); an attached observer says what it needs, and the engine reads
// the clock, names message types or builds message events only if some observer asked.
#pragma once

#include <actorscope/observe/event.hpp>

#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

namespace actorscope {
class System;
namespace detail {
class SystemCore;
}
}  // namespace actorscope

namespace actorscope::observe {

/// What an observer wants. Lifecycle events (spawn, exit, links, supervision, groups, names,
/// timers) always flow to an attached observer; message events are the expensive part.
struct Interest {
  /// message_sent and message_handled events.
  bool messages = false;
  /// Queue and handling times: the clock is read around every message (also without message
  /// events, for the per-actor time sums in ActorStats), or only around the sampled ones (see
  /// time_sampled_only).
  bool timing = false;
  /// Message type names on message events.
  bool type_names = false;
  /// One message in this many (per receiving actor) is sampled: with `messages` it becomes a pair
  /// of events; 1 = every message. Message counts stay exact whatever the sampling.
  std::uint32_t sample_every = 1;
  /// With `timing`: read the clock only for the sampled messages, three reads for one message in
  /// `sample_every` instead of three for every message. The time sums in ActorStats then cover
  /// the timed messages only, and ActorStats::timed says how many they are.
  bool time_sampled_only = false;

  /// The union of two interests: the finer sampling wins, and every message is timed if either
  /// side wants every message timed.
  Interest merged(const Interest& o) const noexcept {
    Interest m;
    m.messages = messages || o.messages;
    m.timing = timing || o.timing;
    m.type_names = type_names || o.type_names;
    m.sample_every = sample_every < o.sample_every ? sample_every : o.sample_every;
    const bool every = (timing && !time_sampled_only) || (o.timing && !o.time_sampled_only);
    m.time_sampled_only = m.timing && !every;
    return m;
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

  /// Called by System::attach before any event reaches this observer, on the attaching thread; a
  /// throw cancels the attach. For an observer that also reads the System itself (a recorder polls
  /// its exact counters with a StatsPoller).
  virtual void on_attach(System& system) { (void)system; }
  /// Called once `system` has let this observer go (detach, or the System's destruction, which
  /// comes after its shutdown, so final counters are in), when on_event is no longer running for
  /// it. During the System's destruction only its runtime and its counters may still be read. Must
  /// not attach or detach observers.
  virtual void on_detach(System& system) noexcept { (void)system; }

 private:
  friend class actorscope::detail::SystemCore;
  std::mutex systems_m_;
  std::vector<detail::SystemCore*> systems_;
};

/// A process-wide pool of strings that live until exit: message type names read back from a
/// recording become string_views as stable as the compiler's own. @thread any
std::string_view intern(std::string_view text);

}  // namespace actorscope::observe
