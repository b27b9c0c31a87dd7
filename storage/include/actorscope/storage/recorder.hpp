// Recorder: the observer that records a System's event stream into an SQLite file. The engine
// never waits on the disk: events go into per-thread buffers (an EventCollector inside), and the
// recorder's own thread writes them every few milliseconds in batched WAL transactions, together
// with exact per-actor statistics polled every 100 ms and keyframes of the folded SystemState.
//
// ```cpp context=outside
// as::System system{as::make_runtime("asio", {.threads = 2})};
// as::Recorder recorder{"session.db", {.detail = as::Detail::sampled}};
// system.attach(recorder);  // a session starts; destroying either one ends it cleanly
// ```
#pragma once

#include <actorscope/observe/event_collector.hpp>
#include <actorscope/observe/state_feed.hpp>
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/observe/system_state.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/storage/recording_error.hpp>
#include <actorscope/storage/recording_format.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace actorscope {

namespace observe {
class StatsPoller;
}
namespace storage {
class Database;
struct RecorderWriter;
}  // namespace storage

struct RecorderOptions {
  /// What to do with a file that already exists.
  enum class IfExists {
    append,   ///< add this recorder's sessions to the recording in it; a file that is not a whole
              ///< recording (another program's, damaged, newer) is refused and left as it was
    replace,  ///< delete it first
    refuse,   ///< throw RecordingError (already_exists)
  };

  Detail detail = Detail::sampled;
  /// Detail::sampled: one message in this many (per receiving actor) becomes a sent/handled pair;
  /// only these are timed (actor_stats.timed counts them).
  std::uint32_t sample_every = 100;
  /// How often exact per-actor statistics are polled into actor_stats.
  Duration stats_interval = std::chrono::milliseconds(100);
  /// A keyframe (the serialized SystemState) every this many events, and one at the end.
  std::uint64_t keyframe_every = 10'000;
  /// How often the writer thread drains the buffers into one transaction: at most this much is
  /// lost when the recording process is killed.
  Duration flush_interval = std::chrono::milliseconds(5);
  /// Events each emitting thread may have waiting; beyond it they are dropped, and counted.
  std::size_t per_thread_capacity = 16384;
  /// How long a write waits for another program's lock on the file before the recording stops
  /// with an error (the engine never waits: meanwhile events pile up in the buffers, then drop).
  std::chrono::milliseconds busy_timeout{5000};
  /// Stored with each session (sessions.scenario and sessions.seed): what was run.
  std::string scenario{};
  std::optional<std::uint64_t> seed{};
  IfExists if_exists = IfExists::append;
  /// The limits of the folded state that keyframes hold.
  observe::SystemState::Limits limits{};
};

class Recorder final : public observe::Observer {
 public:
  using Options = RecorderOptions;

  /// Opens (or creates) the recording file, ready for System::attach. Throws RecordingError when
  /// the file cannot be used: not a recording, a newer format, locked, not writable, or existing
  /// with IfExists::refuse. An older recording is migrated to the current format.
  explicit Recorder(std::filesystem::path file, RecorderOptions options = {});
  /// Ends the session if one is open (detaching from its System), then closes the file.
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  observe::Interest interest() const noexcept override { return interest_; }
  /// @thread any emitting thread; never blocks (see EventCollector).
  void on_event(const observe::Event& event) noexcept override;

  struct Progress {
    /// The current (or last) session's id; 0 before the first attach.
    std::int64_t session = 0;
    bool recording = false;
    std::uint64_t events_recorded = 0;
    /// Lost because an engine thread's buffer was full, or because a write failed.
    std::uint64_t events_dropped = 0;
    std::uint64_t stats_polls = 0;
    /// The first write failure; once set, the rest of the session is counted as dropped.
    std::optional<std::string> error;
  };
  /// @thread any
  Progress progress() const;
  /// The live fold of what has been written so far (a copy): what a reader's state_at gives for
  /// the same point. @thread any
  observe::SystemState state() const;

  const std::filesystem::path& file() const noexcept { return file_; }
  const RecorderOptions& options() const noexcept { return options_; }

 private:
  friend struct storage::RecorderWriter;
  void on_attach(System& system) override;
  void on_detach(System& system) noexcept override;
  void run_writer() noexcept;

  const std::filesystem::path file_;
  const RecorderOptions options_;
  const observe::Interest interest_;

  // The hot path: replaced only while no System is attached (see on_attach).
  observe::EventCollector* collector_ = nullptr;
  std::unique_ptr<observe::EventCollector> collector_owner_;

  // Polling: the poller lives from on_attach to on_detach; the writer polls under poll_m_.
  std::mutex poll_m_;
  std::unique_ptr<observe::StatsPoller> poller_;
  observe::StatsBucketer bucketer_;
  observe::FactoryBucketer factory_bucketer_;
  Runtime* runtime_ = nullptr;

  // The live fold, written by the writer thread: the same feed (ordering, hold-back and drop rules)
  // as the observatory's, whose sink is the writer.
  mutable std::mutex state_m_;
  observe::StateFeed feed_;

  // Handshakes between attach/detach and the writer thread.
  mutable std::mutex m_;
  std::condition_variable wake_writer_;
  std::condition_variable writer_done_;
  std::unique_ptr<storage::RecorderWriter> writer_;  // the writer thread's own state
  std::thread thread_;

  std::atomic<std::int64_t> session_{0};
  std::atomic<bool> recording_{false};
  std::atomic<std::uint64_t> recorded_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> polls_{0};
};

}  // namespace actorscope
