// Worker: one of the qt runtime's worker threads, running its Host's event loop. Private to
// engine/runtime/qt.
#pragma once

#include <actorscope/qt_runtime.hpp>

#include <QThread>

#include <atomic>
#include <latch>

namespace actorscope::detail::qt {

class Host;

class Worker final : public QThread {
 public:
  Worker(const QtRuntime& rt, Host& host, std::latch& started, Duration spin,
         const std::atomic<bool>& stops_posted)
      : rt_(rt), host_(host), started_(started), spin_(spin), stops_posted_(stops_posted) {}

  /// QThread::wait() synchronises inside Qt, where ThreadSanitizer cannot see it; joining through
  /// this makes everything the thread did visibly happen before what the joiner does next.
  void join() {
    wait();
    (void)exited_.load(std::memory_order_acquire);
  }

 protected:
  void run() override;

 private:
  std::atomic<bool> exited_{false};
  const QtRuntime& rt_;
  Host& host_;
  std::latch& started_;
  const Duration spin_;
  const std::atomic<bool>& stops_posted_;
};

}  // namespace actorscope::detail::qt
