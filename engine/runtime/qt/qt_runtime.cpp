// The Qt backend: a Host QObject per thread receives drains and timer requests as events. This file
// is QtRuntime itself (placement, scheduling, timers, shutdown); the host is in qt_host.hpp/.cpp,
// its events in qt_handoff.hpp, the worker threads in qt_worker.hpp/.cpp and the settler in
// qt_settler.hpp.
#include <actorscope/qt_runtime.hpp>

#include "qt_handoff.hpp"
#include "qt_host.hpp"
#include "qt_settler.hpp"
#include "qt_worker.hpp"

#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <QRunnable>
#include <QThread>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <latch>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace actorscope {

namespace detail::qt {
namespace {
// The runtime whose actors the current thread runs (a worker's for its whole life, the GUI
// thread's inside its host's events), if any.
thread_local const QtRuntime* current_runtime = nullptr;
}  // namespace

const QtRuntime* mark_runtime_thread(const QtRuntime* rt) noexcept {
  return std::exchange(current_runtime, rt);
}
}  // namespace detail::qt

namespace {

using detail::qt::ArmEvent;
using detail::qt::DisarmEvent;
using detail::qt::Host;
using detail::qt::Settler;
using detail::qt::StopEvent;
using detail::qt::Worker;

// Timer tokens carry the host index in their low bits, so disarm knows which thread to ask.
constexpr unsigned kHostBits = 16;
constexpr TimerToken kHostMask = (TimerToken{1} << kHostBits) - 1;

class BlockingJob final : public QRunnable {
 public:
  explicit BlockingJob(Runnable* r) : work_(r) { published_.store(true, std::memory_order_release); }
  ~BlockingJob() override {
    if (work_ != nullptr) work_->discard();  // cleared from the pool before it ran
  }
  void run() override {
    (void)published_.load(std::memory_order_acquire);
    std::exchange(work_, nullptr)->run();
  }

 private:
  Runnable* work_;
  std::atomic<bool> published_{false};
};

}  // namespace

struct QtRuntime::Impl {
  std::unique_ptr<QCoreApplication> owned_app;
  QThread* gui_thread = nullptr;
  QAbstractEventDispatcher* gui_dispatcher = nullptr;
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::unique_ptr<Host>> hosts;  // workers first, then the GUI host
  std::vector<QThread*> host_threads;
  std::uint32_t worker_count = 0;
  std::unique_ptr<Settler> settler;
  std::atomic<TimerToken> next_timer{1};
  std::atomic<bool> accepting{true};
  std::atomic<bool> stops_posted{false};  // shutdown() has posted every worker its StopEvent
  Duration idle_spin{};
  Duration wait_spin{};  // for blocking waits off the GUI thread; workers use idle_spin
  QThreadPool blocking;
  // Round robin for spawns on runtime threads. On a line of its own: every such spawn writes it,
  // and the workers read `accepting` beside it all the time.
  alignas(64) std::atomic<std::uint32_t> next_host{0};

  Host& host(std::uint32_t i) const noexcept { return *hosts[std::min<std::size_t>(i, hosts.size() - 1)]; }
  bool on_host_thread(std::uint32_t i) const noexcept {
    return QThread::currentThread() == host_threads[std::min<std::size_t>(i, host_threads.size() - 1)];
  }
};

QtRuntime::QtRuntime(const RuntimeOptions& options) : impl_(std::make_unique<Impl>()) {
  using QA = RuntimeOptions::QtApplication;
  QCoreApplication* app = QCoreApplication::instance();
  if (options.qt_application == QA::existing && app == nullptr)
    throw QtRuntimeError(
        "make_runtime(\"qt\") was told the program provides the Q(Core)Application "
        "(RuntimeOptions::QtApplication::existing), but none exists yet. Create the QApplication before the "
        "runtime, or use QtApplication::automatic to let the runtime make one.");
  if (options.qt_application == QA::owned && app != nullptr)
    throw QtRuntimeError(
        "make_runtime(\"qt\") was asked to make its own Q(Core)Application (RuntimeOptions::QtApplication::owned), "
        "but the program already has one. Use QtApplication::existing or automatic to run on it.");
  if (app != nullptr && QThread::currentThread() != app->thread())
    throw QtRuntimeError(
        "make_runtime(\"qt\") must be called on the thread that owns the Q(Core)Application (normally the main "
        "thread): that thread becomes the runtime's GUI host. It was called on another thread.");
  if (app == nullptr) {
    static int argc = 1;
    static char name[] = "actorscope";
    static char* argv[] = {name, nullptr};
    impl_->owned_app = std::make_unique<QCoreApplication>(argc, argv);
    app = impl_->owned_app.get();
  }
  impl_->gui_thread = app->thread();
  impl_->gui_dispatcher = QAbstractEventDispatcher::instance(impl_->gui_thread);

  const unsigned n = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (n > kHostMask) throw QtRuntimeError("the qt runtime supports at most 65535 worker threads");
  impl_->worker_count = n;
  impl_->settler = std::make_unique<Settler>(n);
  impl_->idle_spin = options.effective_idle_spin();
  impl_->wait_spin = options.effective_wait_spin();
  impl_->blocking.setMaxThreadCount(static_cast<int>(options.blocking_threads != 0 ? options.blocking_threads : 4));

  // Qt gives a thread the GLib dispatcher unless QT_NO_GLIB is set when the thread starts; making
  // a QEventDispatcherUNIX ourselves would take private API. So the variable is set while the
  // workers start (each has made its dispatcher by the time it counts down `started`) and removed
  // again. A program that sets QT_NO_GLIB itself is left alone.
  class NoGlibWhileStarting {
   public:
    explicit NoGlibWhileStarting(bool on) : on_(on) {
      if (on_) qputenv("QT_NO_GLIB", "1");
    }
    ~NoGlibWhileStarting() { end(); }
    void end() {
      if (std::exchange(on_, false)) qunsetenv("QT_NO_GLIB");
    }

   private:
    bool on_;
  };
  NoGlibWhileStarting no_glib(options.qt_worker_dispatcher == RuntimeOptions::QtDispatcher::own &&
                              !qEnvironmentVariableIsSet("QT_NO_GLIB"));
  std::latch started(static_cast<std::ptrdiff_t>(n));
  for (unsigned i = 0; i < n; ++i) {
    auto host = std::make_unique<Host>(*this, i, false, impl_->accepting, *impl_->settler, impl_->hosts);
    auto worker = std::make_unique<Worker>(*this, *host, started, impl_->idle_spin, impl_->stops_posted);
    worker->setObjectName(QStringLiteral("actorscope-qt-%1").arg(i));
    host->moveToThread(worker.get());
    impl_->host_threads.push_back(worker.get());
    impl_->hosts.push_back(std::move(host));
    worker->start();
    impl_->workers.push_back(std::move(worker));
  }
  impl_->hosts.push_back(std::make_unique<Host>(*this, n, true, impl_->accepting, *impl_->settler,
                                                impl_->hosts));  // the GUI host, on this thread
  impl_->host_threads.push_back(impl_->gui_thread);
  if (impl_->gui_dispatcher != nullptr) impl_->hosts.back()->keep_nested_loops_fed(impl_->gui_dispatcher, Duration::zero());
  started.wait();
  no_glib.end();
}

QtRuntime::~QtRuntime() {
  shutdown();
  if (QThread::currentThread() != impl_->gui_thread) {
    std::fprintf(stderr,
                 "actorscope: the qt runtime was destroyed on a thread other than the one that created it; "
                 "its GUI host is leaked rather than deleted from the wrong thread\n");
    (void)impl_->hosts.back().release();
    (void)impl_->owned_app.release();
    return;
  }
  impl_->hosts.clear();
  impl_->owned_app.reset();
}

unsigned QtRuntime::thread_count() const noexcept { return impl_->worker_count; }
void QtRuntime::vacate(Placement home) noexcept { impl_->settler->vacate(home.host); }
std::uint32_t QtRuntime::gui_host() const noexcept { return impl_->worker_count; }
bool QtRuntime::owns_application() const noexcept { return impl_->owned_app != nullptr; }

Placement QtRuntime::place(const PlacementRequest& request) {
  const std::uint32_t n = impl_->worker_count;
  switch (request.kind) {
    case PlacementRequest::Kind::any:
      // Spawned from outside: settled when it first runs (see Settler). On a runtime thread (an
      // actor spawning children): round robin.
      if (!on_runtime_thread() && n > 1) return Placement::deferred();
      return {impl_->next_host.fetch_add(1, std::memory_order_relaxed) % n};
    case PlacementRequest::Kind::gui:
      return {n};
    case PlacementRequest::Kind::host:
      if (request.host >= n)
        throw std::invalid_argument("worker host " + std::to_string(request.host) + " does not exist: this qt runtime has " +
                                    std::to_string(n) + " (0 to " + std::to_string(n - 1) +
                                    "); use PlacementRequest::gui() for the GUI thread");
      return {request.host};
  }
  return {0};
}

void QtRuntime::schedule(Runnable& work, Placement where, Urgency urgency) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return;
  }
  if (where.is_deferred()) [[unlikely]] {
    // Only an actor's first drain is scheduled unsettled (launched at normal urgency: nothing can
    // be pending yet): to the target worker's run list, settled when it runs.
    work.runtime_mark = 1;
    impl_->host(impl_->settler->target()).enqueue(work);
    return;
  }
  Host& host = impl_->host(where.host);
  if (urgency == Urgency::high) {
    host.enqueue_urgent(work);  // overtakes the run list
  } else {
    host.enqueue(work);
  }
}

TimerToken QtRuntime::arm(Runnable& work, TimePoint deadline, Placement where) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return 0;
  }
  // A timer for an actor not settled yet only wakes it: any worker will do.
  const std::uint32_t h = where.is_deferred() ? impl_->settler->target() : std::min(where.host, impl_->worker_count);
  const TimerToken token = (impl_->next_timer.fetch_add(1, std::memory_order_relaxed) << kHostBits) | h;
  if (impl_->on_host_thread(h)) {
    impl_->host(h).arm_here(token, &work, deadline);
  } else {
    // Timers belong to their host's thread (see ArmEvent).
    impl_->host(h).post(new ArmEvent(token, &work, deadline));
  }
  return token;
}

void QtRuntime::disarm(TimerToken token) noexcept {
  if (token == 0 || !impl_->accepting.load(std::memory_order_acquire)) return;
  const auto h = static_cast<std::uint32_t>(token & kHostMask);
  if (impl_->on_host_thread(h)) {
    impl_->host(h).disarm_here(token);
  } else {
    impl_->host(h).post(new DisarmEvent(token));
  }
}

void QtRuntime::run_blocking(Runnable& work) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return;
  }
  impl_->blocking.start(new BlockingJob(&work));
}

bool QtRuntime::on_runtime_thread() const noexcept { return detail::qt::current_runtime == this; }

Duration QtRuntime::idle_spin() const noexcept { return impl_->idle_spin; }
Duration QtRuntime::wait_spin() const noexcept { return impl_->wait_spin; }

bool QtRuntime::drives_waits() const noexcept { return QThread::currentThread() == impl_->gui_thread; }

bool QtRuntime::drive_until(const std::function<bool()>& done, TimePoint deadline) {
  // The GUI thread's actors run only while it processes events, so a wait there processes them.
  // Engine completions wake the loop at once (wake_driver); the tick bounds how long any other
  // condition, and the deadline, can go unnoticed.
  QTimer tick;
  tick.start(5);
  while (!done()) {
    if (Clock::now() >= deadline) return done();
    impl_->gui_dispatcher->processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
  }
  return true;
}

void QtRuntime::wake_driver() noexcept {
  if (impl_->gui_dispatcher != nullptr) impl_->gui_dispatcher->wakeUp();
}

void QtRuntime::shutdown() noexcept {
  if (!impl_->accepting.exchange(false)) return;
  impl_->blocking.clear();  // queued jobs are discarded
  impl_->blocking.waitForDone();
  // Each worker drops its timers and leaves its event loop; then the threads are joined.
  for (std::uint32_t i = 0; i < impl_->worker_count; ++i)
    impl_->hosts[i]->post(new StopEvent);
  impl_->stops_posted.store(true, std::memory_order_release);
  impl_->stops_posted.notify_all();
  for (auto& w : impl_->workers) w->join();
  // With their threads gone, deleting the worker hosts deletes (and so discards) what was still queued.
  for (std::uint32_t i = 0; i < impl_->worker_count; ++i) impl_->hosts[i].reset();
  impl_->workers.clear();
  if (QThread::currentThread() == impl_->gui_thread) {
    Host& gui = *impl_->hosts.back();
    gui.drop_timers();
    QCoreApplication::removePostedEvents(&gui);
    gui.discard_run_list();
  }
}

namespace {
const bool registered_qt = [] {
  register_runtime("qt", [](const RuntimeOptions& o) -> std::unique_ptr<Runtime> { return std::make_unique<QtRuntime>(o); });
  return true;
}();
}  // namespace

}  // namespace actorscope
