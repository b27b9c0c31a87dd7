// The replay measurements of issue 20, as plain functions that each take one sample (times in ns,
// sizes in bytes), and the same as benchmarks of the suite (group "replay", after "recording"):
//
//   - the first picture of a 1,000,000-event recording: open, sessions(), state_at(start),
//     density(800 buckets), markers;
//   - peak resident memory while replaying a 10,000,000-event recording;
//   - follow latency: from the writer's commit to a reader polling every 100 ms having seen it;
//   - the writer's throughput while a reader follows the file every 50 ms, over its throughput alone;
//   - the diff of two 1,000,000-event recordings (issue 21): its time and the memory it takes.
//
// The files are made by a real Recorder (recording_benchmarks::make_replay_file), never by writing
// rows another way. These functions never judge a time.
#pragma once

#include "recording_benchmarks.hpp"

#include <actorscope/benchmarks/benchmark.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace actorscope::recording_benchmarks {

// -- 1. the first picture ------------------------------------------------------------------------

struct FirstPictureSample {
  std::int64_t open_ns = 0;      ///< SessionReader construction
  std::int64_t sessions_ns = 0;  ///< sessions()
  std::int64_t state_ns = 0;     ///< state_at(the session's start)
  std::int64_t density_ns = 0;   ///< density(start, end, 800)
  std::int64_t markers_ns = 0;   ///< markers(start, end)
  std::int64_t total_ns = 0;
  std::uint64_t events_counted = 0;  ///< the density's total: every event of the file
};

/// What the replay window does first on opening `recording`: open it, list its sessions, and for
/// the last one the state at its start, the 800-bucket density of its whole span, and its markers.
FirstPictureSample first_picture(const ReplayFile& recording);

// -- 2. memory -----------------------------------------------------------------------------------

struct ReplayMemorySample {
  std::uint64_t baseline_rss = 0;  ///< resident bytes of the process before (after the peak was reset)
  std::uint64_t peak_rss = 0;      ///< the process's peak resident bytes while replaying (VmHWM)
  std::int64_t ns = 0;             ///< how long the replay took
};

/// Replays `recording` as a user scrubbing through it would: opens it, gets the state at the start,
/// at 10 %, 30 %, 50 %, 70 %, 90 % of its span and at its end, the 800-bucket density and markers
/// of the whole span and of its middle tenth, and steps to the next event at each of those times.
/// The peak resident size is measured honestly for the whole process: Linux's high-water mark
/// (VmHWM) is reset just before (/proc/self/clear_refs), so the peak is the most this process held
/// resident at once during the replay, including everything it held before (the baseline).
/// Throws MeasurementError where /proc cannot do that.
ReplayMemorySample replay_memory(const ReplayFile& recording);

// -- 3. follow latency ---------------------------------------------------------------------------

struct FollowLatencySample {
  /// One per commit of the writer: from when its commit was seen to be done to when a reader's
  /// poll had shown it (the state shown had folded it), ns.
  std::vector<double> latencies;
  std::uint64_t events = 0;   ///< events the writer committed during the sample
  std::uint64_t dropped = 0;  ///< events the recorder dropped (0 unless it could not keep up)
  std::uint64_t polls = 0;
  std::int64_t follower_cpu_ns = 0;  ///< the CPU time the reader's thread used
  std::int64_t scan_cpu_ns = 0;      ///< the CPU time the warnings scan's thread used (lowest priority)
};

/// A System on asio with a Recorder at full detail writing `file` (replaced); a driver thread sends
/// `messages_per_second` messages a second (two events each) to an actor, for `duration`. A reader
/// thread polls the file every `poll_every` as the replay window does (session(id); the state
/// shown moved to the end, by advance or from a keyframe as SessionReader::advance_is_cheaper
/// says; density(800) and markers of the whole span at most once a second), with the window's
/// warnings scan beside it (a lowest-priority thread folding everything once a second), and a
/// watcher thread notes
/// when each commit is done (the recorder's committed count, looked at every millisecond: a
/// commit's time is known to within about 1 ms, late, which shortens the latencies by as much).
FollowLatencySample follow_latency(const std::filesystem::path& file, std::chrono::milliseconds duration,
                                   std::uint64_t messages_per_second = 10'000,
                                   std::chrono::milliseconds poll_every = std::chrono::milliseconds(100));

// -- 4. the writer's throughput while followed ---------------------------------------------------

struct FollowedThroughputSample {
  ThroughputSample alone;
  ThroughputSample followed;
  std::uint64_t polls = 0;           ///< the follower's polls during the followed run
  std::int64_t follower_cpu_ns = 0;  ///< the CPU time the follower's thread used
  std::int64_t scan_cpu_ns = 0;      ///< the CPU time the warnings scan's thread used (lowest priority)
  double ratio() const noexcept {
    return alone.events_per_second() > 0 ? followed.events_per_second() / alone.events_per_second() : 0;
  }
};

/// recorder_throughput of `events`, once alone and once with a reader thread following the file
/// every `poll_every` as the replay window does (see follow_latency); `followed_first` says which
/// runs first.
FollowedThroughputSample followed_throughput(
    const std::filesystem::path& file, std::uint64_t events, bool followed_first,
    std::chrono::milliseconds poll_every = std::chrono::milliseconds(50));

// -- 5. the diff of two recordings ---------------------------------------------------------------

struct DiffSample {
  std::int64_t open_ns = 0;  ///< both SessionReaders and their sessions()
  std::int64_t read_ns = 0;  ///< read_diff_side of each (actors, final state, pruned statistics)
  std::int64_t diff_ns = 0;  ///< diff_sides: matching and the rows
  std::int64_t total_ns = 0;
  std::uint64_t baseline_rss = 0;  ///< resident bytes before (VmHWM reset just before)
  std::uint64_t peak_rss = 0;      ///< the process's peak resident bytes during the diff
  std::size_t matched = 0;         ///< rows of the diff: actors matched on both sides
};

/// What `actorscope diff A B` does before it prints: opens both files, reads the last session of
/// each as a DiffSide and diffs them. Throws MeasurementError where /proc cannot measure memory.
DiffSample diff_recordings(const ReplayFile& a, const ReplayFile& b);

// -- the suite -----------------------------------------------------------------------------------

/// The five as benchmarks of group "replay" (recording_benchmarks::suite() includes them).
std::vector<bench::Benchmark> replay_suite();

}  // namespace actorscope::recording_benchmarks
