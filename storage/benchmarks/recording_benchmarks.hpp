// The recording measurements of issue 5, as plain functions that each take one sample and return
// what they measured (times in ns, counts). The benchmark suite (`actorscope bench`) decides how
// many samples to take, summarises them and writes JSON; these functions never judge a time.
//
//   - recorder throughput: events per second the recorder writes at full detail with no drops;
//   - the single-actor message loop (ractor's "Waiting on 100000 messages to be processed") with
//     nothing attached and with a recorder at each detail level, for the slowdown;
//   - opening a recording of 1,000,000 events and getting the state in the middle of it.
#pragma once

#include <actorscope/storage/recording_format.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace actorscope {
class System;
}

namespace actorscope::recording_benchmarks {

/// Thrown when a measurement cannot do its work (a spawn failed, a deadline passed, the recorder
/// reported a write error). It marks the sample as failed; it is never a verdict on a time.
class MeasurementError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// -- 1. recorder throughput ----------------------------------------------------------------------

struct ThroughputSample {
  std::uint64_t events = 0;   ///< events offered and recorded
  std::uint64_t dropped = 0;  ///< 0 unless the recorder could not keep up (then the sample is invalid)
  std::int64_t ns = 0;        ///< from the first event offered to the last one committed
  double events_per_second() const noexcept {
    return ns > 0 ? static_cast<double>(events) * 1e9 / static_cast<double>(ns) : 0;
  }
};

/// Feeds `events` full-detail events (message sent/handled pairs with type names and timing, and a
/// spawn and exit every 1,000) straight into a Recorder writing `file`, as fast as the recorder
/// takes them without dropping any: the producer never gets more than one buffer ahead of what is
/// committed. So the figure is the recorder's own capacity (collector, fold, keyframes, SQLite),
/// not the engine's. `file` is replaced.
ThroughputSample recorder_throughput(const std::filesystem::path& file, std::uint64_t events = 500'000);

// -- 2. the message loop, with and without a recorder --------------------------------------------

struct MessageLoopSample {
  std::uint64_t messages = 0;
  std::int64_t ns = 0;  ///< from the spawn (whose pre_start casts the first message) to the actor's exit
  std::uint64_t events_recorded = 0;
  std::uint64_t events_dropped = 0;
};

/// One actor casts a message to itself in pre_start; each handled message casts the next, until
/// `messages`; then it stops. On `runtime` ("asio" or "qt") with one worker thread; with a recorder
/// at `detail` attached (writing `file`, replaced) or, for nullopt, nothing attached. The slowdown
/// of a level is its time divided by the time with nothing attached.
MessageLoopSample message_loop(const std::string& runtime, std::optional<Detail> detail,
                               const std::filesystem::path& file, std::uint64_t messages = 100'000);

/// The same on an existing System (nothing else may be attached to it): the recorder, if any, is
/// attached before the spawn and detached after the actor's exit. The benchmark suite uses this
/// one, because it makes each case's System on the thread that owns the Qt application.
MessageLoopSample message_loop(System& system, std::optional<Detail> detail,
                               const std::filesystem::path& file, std::uint64_t messages = 100'000);

// -- 3. replay ------------------------------------------------------------------------------------

/// A recording made for the replay measurement.
struct ReplayFile {
  std::filesystem::path file;
  std::int64_t session = 0;
  std::uint64_t events = 0;
  /// A time in the middle of the session (runtime clock), just before a keyframe, so that the
  /// most events there can be (9,999) are folded after the keyframe before it.
  std::int64_t middle_ns = 0;
};

/// Records `events` synthetic full-detail events (as recorder_throughput does, with keyframes
/// every 10,000) into `file` (replaced). Untimed setup for replay_state_at_middle.
ReplayFile make_replay_file(const std::filesystem::path& file, std::uint64_t events = 1'000'000);

struct ReplaySample {
  std::int64_t open_ns = 0;          ///< SessionReader construction (checks the file, reads the format)
  std::int64_t state_at_ns = 0;      ///< state_at(middle): the nearest keyframe plus the events after it
  std::int64_t total_ns = 0;         ///< both
  std::uint64_t events_applied = 0;  ///< events in the resulting state (about half of the file)
  std::size_t actors = 0;
};

ReplaySample replay_state_at_middle(const ReplayFile& recording);

}  // namespace actorscope::recording_benchmarks
