// Worker: a worker thread's life, from marking it an actor thread to leaving its event loop.
#include "qt_worker.hpp"

#include "qt_host.hpp"

namespace actorscope::detail::qt {

void Worker::run() {
  mark_runtime_thread(&rt_);
  detail::RuntimeThreadScope scope;
  host_.keep_nested_loops_fed(eventDispatcher(), spin_);
  started_.count_down();
  exec();
  mark_runtime_thread(nullptr);
  // QCoreApplication::postEvent wakes the receiving thread's dispatcher after it has queued the
  // event, so the thread that posted our StopEvent may still be inside wakeUp() when we leave
  // exec(). Qt deletes this thread's dispatcher as soon as run() returns: wait until shutdown()
  // has finished posting (ThreadSanitizer saw the eventfd written and closed at once).
  stops_posted_.wait(false, std::memory_order_acquire);
  exited_.store(true, std::memory_order_release);
}

}  // namespace actorscope::detail::qt
