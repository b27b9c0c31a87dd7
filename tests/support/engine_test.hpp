// Shared helpers for the engine suites: one data row per runtime, a Probe that actors report to
// (its waits are event-driven and drive the manual runtime), and a Gate a coroutine handler can
// await until the test opens it. No sleeps: every wait is for an event, with a generous deadline.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTest>

// moc (Qt 6.4) follows includes into the standard library and cannot parse C++20 concepts; it only
// needs to see the test class, so everything else is hidden from it.
#ifndef Q_MOC_RUN

#include <actorscope/actorscope.hpp>

#include <atomic>
#include <thread>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace as = actorscope;
using namespace std::chrono_literals;

namespace engine_test {

/// Generous: a correct run takes milliseconds; a loaded CI machine may take far longer.
inline constexpr as::Duration kTimeout = std::chrono::seconds(20);

/// The runtimes every engine test runs on, one row each.
inline QStringList runtimes() { return {QStringLiteral("asio"), QStringLiteral("qt"), QStringLiteral("manual")}; }

/// For initTestCase_data(): a global "runtime" column, so every test function runs once per runtime.
inline void add_runtime_rows() {
  QTest::addColumn<QString>("runtime");
  for (const QString& r : runtimes()) QTest::newRow(qPrintable(r)) << r;
}

inline std::string current_runtime() {
  QFETCH_GLOBAL(QString, runtime);
  return runtime.toStdString();
}

inline std::unique_ptr<as::System> make_system(unsigned threads = 2) {
  return std::make_unique<as::System>(as::make_runtime(current_runtime(), {.threads = threads}));
}

inline bool is_manual(const as::System& s) { return s.runtime().name() == "manual"; }

/// Waits for `done()` on the System's runtime: drives it if it is the manual one, otherwise the
/// caller must make `done` change only together with a notify of `cv` under `m`.
inline bool wait_on(as::System& sys, std::mutex& m, std::condition_variable& cv, const std::function<bool()>& done,
                    as::Duration timeout) {
  as::Runtime& rt = sys.runtime();
  const as::TimePoint deadline = as::deadline_after(rt.now(), timeout);
  if (rt.drives_waits()) {
    return rt.drive_until(
        [&] {
          std::lock_guard lk(m);
          return done();
        },
        deadline);
  }
  std::unique_lock lk(m);
  return cv.wait_until(lk, deadline, done);
}

/// What actors report to the test. Thread-safe.
class Probe {
 public:
  void record(std::string event) {
    // Notified under the lock: a test that sees the event may destroy the Probe at once, so the
    // recording thread must be done with the condition variable by the time the lock is free.
    std::lock_guard lk(m_);
    events_.push_back(std::move(event));
    cv_.notify_all();
  }

  std::vector<std::string> events() const {
    std::lock_guard lk(m_);
    return events_;
  }
  std::size_t count(std::string_view event) const {
    std::lock_guard lk(m_);
    return static_cast<std::size_t>(std::count(events_.begin(), events_.end(), event));
  }
  bool contains(std::string_view event) const { return count(event) > 0; }
  /// Index of the first occurrence, or -1.
  int index_of(std::string_view event) const {
    std::lock_guard lk(m_);
    auto it = std::find(events_.begin(), events_.end(), event);
    return it == events_.end() ? -1 : static_cast<int>(it - events_.begin());
  }

  /// Waits until `pred(events)` holds; false on timeout.
  bool wait_until(as::System& sys, const std::function<bool(const std::vector<std::string>&)>& pred,
                  as::Duration timeout = kTimeout) {
    return wait_on(sys, m_, cv_, [&] { return pred(events_); }, timeout);
  }
  bool wait_for(as::System& sys, std::string_view event, as::Duration timeout = kTimeout) {
    return wait_count(sys, event, 1, timeout);
  }
  bool wait_count(as::System& sys, std::string_view event, std::size_t n, as::Duration timeout = kTimeout) {
    return wait_until(
        sys,
        [&](const std::vector<std::string>& ev) {
          return static_cast<std::size_t>(std::count(ev.begin(), ev.end(), event)) >= n;
        },
        timeout);
  }

 private:
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::string> events_;
};

/// A coroutine handler awaits `gate.opened()`; the test decides when it may go on.
class Gate {
 public:
  void open() { done_.complete(); }
  as::detail::CompletionAwaiter opened() { return as::detail::CompletionAwaiter(done_, as::no_timeout); }

 private:
  as::Completion done_;
};

/// Ping-pong partners: each message is forwarded to the other until `left` reaches 0, when the
/// pinger records "rally over" to its probe. The pinger learns its partner from its first message.
struct Pinger {
  using Message = std::variant<as::ActorRef<int>, int>;
  using State = as::ActorRef<int>;
  Probe* probe = nullptr;
  as::ActorRef<int> pre_start(as::Context<Pinger>&) { return {}; }
  void handle(as::Context<Pinger>&, Message m, as::ActorRef<int>& peer) {
    if (auto* ref = std::get_if<as::ActorRef<int>>(&m)) {
      peer = *ref;
      return;
    }
    const int left = std::get<int>(m);
    if (left == 0) {
      probe->record("rally over");
      return;
    }
    (void)peer.cast(left - 1);
  }
};
struct Ponger {
  using Message = int;
  using State = as::ActorRef<Pinger::Message>;
  using Arguments = as::ActorRef<Pinger::Message>;
  as::ActorRef<Pinger::Message> pre_start(as::Context<Ponger>&, as::ActorRef<Pinger::Message> back) {
    return back;
  }
  void handle(as::Context<Ponger>&, int left, as::ActorRef<Pinger::Message>& back) { (void)back.cast(left); }
};

}  // namespace engine_test

#endif  // Q_MOC_RUN
