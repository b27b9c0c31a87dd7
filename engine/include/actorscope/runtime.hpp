// The runtime seam: the small, backend-neutral interface that every scheduler implements
// ("asio", "qt", "manual"). The core owns mailboxes, lanes, timers' bookkeeping and supervision;
// a backend only runs work later, fires one-shot deadlines and says which thread is which.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;

/// A timeout that never expires.
inline constexpr Duration no_timeout = Duration::max();

/// `now + d`, saturating instead of overflowing (so `no_timeout` stays no_timeout).
constexpr TimePoint deadline_after(TimePoint now, Duration d) noexcept {
  if (d >= TimePoint::max() - now) return TimePoint::max();
  return now + d;
}

/// A backend's resolved home for an actor or a timer. Opaque to the core, except for `deferred()`:
/// a backend may leave an actor's home open at spawn and choose it when it first runs the actor's
/// work (see Runnable::settle).
struct Placement {
  static constexpr std::uint32_t deferred_host = UINT32_MAX;
  std::uint32_t host = 0;

  static constexpr Placement deferred() noexcept { return {deferred_host}; }
  constexpr bool is_deferred() const noexcept { return host == deferred_host; }
};

/// A unit of work owned by the core: an actor's mailbox drain, a timer expiry, a blocking job.
/// Contract: once handed to a runtime (schedule, arm, run_blocking), the runtime calls exactly one of
/// run() or discard(). discard() means the work will never run (disarmed, or the runtime stopped)
/// and must only release what the work holds.
class Runnable {
 public:
  virtual void run() noexcept = 0;
  virtual void discard() noexcept = 0;
  /// Only for work scheduled with Placement::deferred() (an actor's first drain): the backend
  /// calls it once, before run() and on no other thread at the same time, with the home it chose.
  /// From then on the work names that home when it schedules itself or arms a timer.
  virtual void settle(Placement home) noexcept { (void)home; }

  /// Belongs to the runtime the work was handed to, from schedule() until it calls run() or
  /// discard(): a link that lets a backend queue the work without allocating (asio and qt keep
  /// intrusive lock-free lists). The core never touches it; a Runnable is scheduled at most once at
  /// a time (a drain may schedule itself again from inside run(), once it has been unlinked).
  Runnable* runtime_link = nullptr;
  /// The runtime's too, over the same span: a note it keeps with the queued work (qt: "not
  /// settled yet"). The core never touches it.
  std::uint8_t runtime_mark = 0;

 protected:
  Runnable() = default;
  Runnable(const Runnable&) noexcept {}  // a copy is not queued anywhere
  Runnable& operator=(const Runnable&) noexcept { return *this; }
  ~Runnable() = default;
};

/// How urgent a scheduled drain is. `high` is used when a kill or stop is pending; a backend with
/// event priorities (Qt) posts it ahead of ordinary work, others may ignore it. `yielded` is a
/// continuation of what the current thread is doing, to run behind the work already queued: a drain
/// that used up its budget, a supervisor told of a child's exit by the exiting child's thread, a
/// child's first drain scheduled by the actor that spawned it. A backend may keep it on the current
/// thread rather than wake another one for it (asio does; others treat it as normal).
enum class Urgency : std::uint8_t { normal, high, yielded };

/// Where an actor asks to live. The backend turns it into a Placement at spawn (or, for a deferred
/// one, when the actor first runs).
struct PlacementRequest {
  enum class Kind : std::uint8_t {
    any,   ///< wherever the runtime likes (Asio: any pool thread; Qt: a worker, see RUNTIMES.md)
    gui,   ///< the GUI (main) thread, so the actor may touch widgets (Qt only)
    host,  ///< a specific worker host, by index (Qt pins to that thread; Asio ignores it)
  };
  Kind kind = Kind::any;
  std::uint32_t host = 0;

  static constexpr PlacementRequest any() noexcept { return {}; }
  static constexpr PlacementRequest gui() noexcept { return {Kind::gui, 0}; }
  static constexpr PlacementRequest on_host(std::uint32_t index) noexcept { return {Kind::host, index}; }
};

/// Identifies an armed timer to its runtime, for disarm. 0 is "no timer".
using TimerToken = std::uint64_t;

struct RuntimeOptions {
  /// Worker threads. 0 means the hardware concurrency. The manual runtime ignores it.
  unsigned threads = 0;
  /// Threads for run_blocking work. 0 means the backend's default.
  unsigned blocking_threads = 0;

  /// Qt only: whether the program provides the Q(Core)Application or the runtime makes its own.
  enum class QtApplication : std::uint8_t {
    automatic,  ///< use the existing one if there is one, otherwise make and own one
    existing,   ///< the program provides it; creating the runtime without one is an error
    owned,      ///< the runtime makes one; an existing one is an error
  };
  QtApplication qt_application = QtApplication::automatic;

  /// Qt only: the event dispatcher of the runtime's worker threads (the GUI thread keeps the
  /// application's). Qt's own dispatcher costs about a third of GLib's per posted event, and a
  /// drain is one posted event.
  enum class QtDispatcher : std::uint8_t {
    own,      ///< Qt's own, the one QT_NO_GLIB=1 selects
    inherit,  ///< whatever Qt gives a new thread: GLib's, unless QT_NO_GLIB is set
  };
  QtDispatcher qt_worker_dispatcher = QtDispatcher::own;

  /// How long an idle worker thread, or a thread blocked in a wait (JoinHandle::wait,
  /// call(...).get(), ...), keeps looking for work before it goes to sleep. Waking a sleeping
  /// thread costs 1 to 50 µs and more on virtual machines; spinning burns processor time while
  /// idle, and on a machine whose cores are all busy it slows everything down (PERFORMANCE.md has
  /// measurements both ways). Zero, the default, sleeps at once.
  Duration idle_spin = Duration::zero();

  /// How long a thread blocked in a wait outside the runtime (JoinHandle::wait, ActorCell::wait,
  /// call(...).get(), JoinSet::join_next) looks for its result before it sleeps; the larger of
  /// this and idle_spin applies. Unlike idle_spin, workers never spin for it. Many such waits end
  /// within microseconds while being woken costs 2 to 50 µs on a virtual machine: with 50 µs, a
  /// call from outside took 1-7 µs instead of 75-125 µs (PERFORMANCE.md). The price is up to this
  /// much processor time per longer wait, taken from the workers when the cores are all busy.
  /// Zero, the default, sleeps at once.
  Duration wait_spin = Duration::zero();

  /// idle_spin as a runtime applies it: a negative one is zero.
  Duration effective_idle_spin() const noexcept { return std::max(idle_spin, Duration::zero()); }
  /// wait_spin as a runtime applies it: the larger of wait_spin and the effective idle_spin.
  Duration effective_wait_spin() const noexcept { return std::max(wait_spin, effective_idle_spin()); }
};

class Runtime {
 public:
  virtual ~Runtime() = default;

  /// The name it was created by: "asio", "qt" or "manual".
  virtual std::string_view name() const noexcept = 0;
  /// Worker threads that run actors (1 for manual).
  virtual unsigned thread_count() const noexcept = 0;

  /// Resolves a spawn's placement request. Throws std::invalid_argument for a request this backend
  /// cannot honour (for example GUI placement where there is no GUI thread). May return
  /// Placement::deferred(): the actor's first drain then goes to schedule() with it, and the
  /// backend settles the actor (Runnable::settle) before that drain runs.
  virtual Placement place(const PlacementRequest& request) = 0;

  /// An actor this backend settled has exited (its last drain is ending). @thread the actor's
  virtual void vacate(Placement home) noexcept { (void)home; }

  /// Runs `work` soon on a thread allowed by `where`. Never runs it inline. @thread any
  virtual void schedule(Runnable& work, Placement where, Urgency urgency) noexcept = 0;

  /// The runtime's clock. Real runtimes read steady_clock; the manual runtime has a virtual clock.
  virtual TimePoint now() const noexcept = 0;

  /// Runs `work` once at or after `deadline` (never early) on a thread allowed by `where`.
  /// @thread any
  virtual TimerToken arm(Runnable& work, TimePoint deadline, Placement where) noexcept = 0;

  /// Best effort: if the timer has not fired yet, it will not; its work is discarded instead.
  /// The race with a firing timer is decided by the core, never by this call. @thread any
  virtual void disarm(TimerToken token) noexcept = 0;

  /// Runs `work` on a thread meant for blocking calls, away from the actor threads. @thread any
  virtual void run_blocking(Runnable& work) noexcept = 0;

  /// True on a thread that runs actors for this runtime, where a blocking wait would deadlock.
  virtual bool on_runtime_thread() const noexcept = 0;

  /// Whether a blocking wait on the calling thread must drive this runtime instead of sleeping:
  /// always for the manual runtime (nothing else would run its work), and on the Qt GUI thread
  /// (whose actors only run while that thread processes events). Otherwise waits block on a
  /// condition variable.
  virtual bool drives_waits() const noexcept { return false; }
  /// Only when drives_waits(): run this thread's work until `done()` holds or `deadline` passes.
  virtual bool drive_until(const std::function<bool()>& done, TimePoint deadline) {
    (void)deadline;
    return done();
  }
  /// Wakes a drive_until in progress so that it looks at its condition again. @thread any
  virtual void wake_driver() noexcept {}

  /// RuntimeOptions::idle_spin as this runtime applies it (zero for the manual runtime).
  virtual Duration idle_spin() const noexcept { return Duration::zero(); }
  /// How long a blocking wait outside the runtime spins before it sleeps: the larger of
  /// RuntimeOptions::wait_spin and idle_spin (zero for the manual runtime, whose waits drive it).
  virtual Duration wait_spin() const noexcept { return idle_spin(); }

  /// Stops the threads. Work that has not run is discarded. Idempotent. The System calls it
  /// after every actor has stopped.
  virtual void shutdown() noexcept = 0;
};

/// make_runtime was given a name that no linked backend provides.
class UnknownRuntimeError : public std::invalid_argument {
 public:
  UnknownRuntimeError(std::string requested, std::vector<std::string> known);
  const std::string& requested() const noexcept { return requested_; }
  const std::vector<std::string>& known() const noexcept { return known_; }

 private:
  std::string requested_;
  std::vector<std::string> known_;
};

using RuntimeFactory = std::unique_ptr<Runtime> (*)(const RuntimeOptions&);

/// Makes `name` available to make_runtime. Backends in their own targets (qt) call this from a
/// static registrar; "asio" and "manual" are always known.
void register_runtime(std::string_view name, RuntimeFactory factory);

/// The names make_runtime accepts, sorted.
std::vector<std::string> runtime_names();

/// Creates a runtime by name, chosen at run time. Throws UnknownRuntimeError for an unknown name.
std::unique_ptr<Runtime> make_runtime(std::string_view name, const RuntimeOptions& options = {});

namespace detail {
/// Marks the current thread as one that runs actors for as long as the scope lives. Backends
/// use it on their worker threads; blocking waits refuse to run on such a thread.
class RuntimeThreadScope {
 public:
  RuntimeThreadScope() noexcept;
  ~RuntimeThreadScope();
  RuntimeThreadScope(const RuntimeThreadScope&) = delete;
  RuntimeThreadScope& operator=(const RuntimeThreadScope&) = delete;
};
/// True while the current thread is inside a RuntimeThreadScope of any runtime.
bool this_thread_runs_actors() noexcept;
}  // namespace detail

}  // namespace actorscope
