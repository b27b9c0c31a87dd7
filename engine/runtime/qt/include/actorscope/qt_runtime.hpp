// QtRuntime ("qt"): actors on Qt event loops. N worker threads each run a QEventLoop and host a
// fixed set of actors (no stealing); an actor may also live on the GUI thread so it can touch
// widgets. Link actorscope::runtime_qt and make_runtime("qt", ...) knows it. This header has no Qt
// includes, so it can be used from code that never sees Qt.
#pragma once

#include <actorscope/runtime.hpp>

#include <memory>
#include <stdexcept>

namespace actorscope {

/// A Qt runtime was created or used in a way that cannot work (no application object where one was
/// promised, the wrong thread, ...). The message says what to do instead.
class QtRuntimeError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

class QtRuntime final : public Runtime {
 public:
  /// Must be called on the thread that owns (or will own) the Q(Core)Application: that thread
  /// becomes the GUI host. See RuntimeOptions::qt_application for who provides the application.
  explicit QtRuntime(const RuntimeOptions& options);
  /// Must run on the thread that created the runtime.
  ~QtRuntime() override;

  std::string_view name() const noexcept override { return "qt"; }
  unsigned thread_count() const noexcept override;
  Placement place(const PlacementRequest& request) override;
  void vacate(Placement home) noexcept override;
  void schedule(Runnable& work, Placement where, Urgency urgency) noexcept override;
  TimePoint now() const noexcept override { return Clock::now(); }
  TimerToken arm(Runnable& work, TimePoint deadline, Placement where) noexcept override;
  void disarm(TimerToken token) noexcept override;
  void run_blocking(Runnable& work) noexcept override;
  bool on_runtime_thread() const noexcept override;
  bool drives_waits() const noexcept override;
  bool drive_until(const std::function<bool()>& done, TimePoint deadline) override;
  void wake_driver() noexcept override;
  Duration idle_spin() const noexcept override;
  Duration wait_spin() const noexcept override;
  void shutdown() noexcept override;

  /// The host index of the GUI thread (worker hosts are 0 .. thread_count()-1).
  std::uint32_t gui_host() const noexcept;
  /// Whether this runtime created the Q(Core)Application and will destroy it.
  bool owns_application() const noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorscope
