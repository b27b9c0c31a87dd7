// The replay measurements (issue 20) and their benchmarks in the suite, group "replay".
#include "replay_benchmarks.hpp"
#include "bench_files.hpp"

#include <actorscope/actorscope.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/recording_diff.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <malloc.h>
#include <time.h>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace actorscope::recording_benchmarks {

namespace {

using Clock = std::chrono::steady_clock;
namespace obs = observe;

std::int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

void remove_file(const std::filesystem::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::path p = file;
    p += suffix;
    std::filesystem::remove(p, ec);
  }
}

TimePoint fraction_of(const SessionInfo& s, double f) {
  return s.start_time + std::chrono::duration_cast<Duration>(s.duration() * f);
}

/// Lowers the calling thread to the lowest CPU priority, as the observatory's warnings scan of a
/// followed recording does (app/gui/warning_scan.cpp). Linux: a thread's nice value is its own.
void yield_to_other_programs() {
#if defined(__linux__)
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
#endif
}

/// This thread's CPU time so far, ns.
std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

/// What the replay window does to follow a file, poll by poll (ReplaySession::poll, TimelineDock):
/// it re-reads the session (its end moves); when it grew, the cursor at the tail moves the state
/// shown there, folding what came since onto it while that is cheaper than starting again from the
/// keyframe before the end (SessionReader::advance_is_cheaper, the window's own rule); and at most
/// once a second, the timeline reads its density over the whole span and its markers.
class WindowFollow {
 public:
  /// One poll; returns the events the session had when it was read (all of them folded by then).
  /// After a RecordingError, poll a new WindowFollow: the state may be part of the way.
  std::uint64_t poll(const SessionReader& r, std::int64_t id) {
    const SessionInfo s = r.session(id);
    if (!shown_ || s.end_time > end_) {
      if (shown_ && r.advance_is_cheaper(id, *shown_, shown_at_, s.end_time)) {
        r.advance(id, *shown_, shown_at_, s.end_time);
      } else {
        shown_ = std::make_unique<obs::SystemState>();
        r.prefix_at(id, s.end_time, *shown_, shown_at_);
      }
    }
    end_ = s.end_time;
    const auto now = Clock::now();
    if (!timeline_read_ || now - *timeline_read_ >= std::chrono::seconds(1)) {
      (void)r.density(id, s.start_time, s.end_time, 800);
      (void)r.markers(id, s.start_time, s.end_time);
      timeline_read_ = now;
    }
    return s.events_recorded;
  }

 private:
  std::unique_ptr<obs::SystemState> shown_;
  SessionReader::FoldPoint shown_at_;
  TimePoint end_{};
  std::optional<Clock::time_point> timeline_read_;
};

/// A reader thread that follows `file` (session `id`) every `every` until stopped, noting when each
/// poll was done and what it had seen, and beside it the window's warnings scan: a thread of its
/// own at the lowest priority that, once a second, folds everything recorded since onto a state of
/// its own (WarningScanJob on a followed file; the rules it judges at each step are views code, not
/// run here). Both wait for the file to become readable (the writer may not have made it yet). The
/// waits between polls are the poll intervals, not a synchronisation.
class Follower {
 public:
  Follower(std::filesystem::path file, std::int64_t id, std::chrono::milliseconds every)
      : file_(std::move(file)),
        id_(id),
        every_(every),
        thread_([this] { run(); }),
        scan_thread_([this] { scan(); }) {}
  ~Follower() { stop(); }
  Follower(const Follower&) = delete;
  Follower& operator=(const Follower&) = delete;

  void stop() {
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (scan_thread_.joinable()) scan_thread_.join();
  }
  /// After stop(): (when a poll was done, the events it had seen), in order.
  const std::vector<std::pair<Clock::time_point, std::uint64_t>>& seen() const { return seen_; }
  const std::optional<std::string>& error() const { return error_ ? error_ : scan_error_; }
  /// After stop(): the CPU time the polling thread used, and the scan's, ns.
  std::int64_t cpu_ns() const { return cpu_ns_; }
  std::int64_t scan_cpu_ns() const { return scan_cpu_ns_; }

 private:
  /// Runs `poll` every `interval` until stopped, with a SessionReader it opens (again) as needed; a
  /// RecordingError that says the file or session is not there yet is retried, any other ends the
  /// loop in `error`. `reset` is called whenever the reader is dropped.
  template <class Poll, class Reset>
  void poll_every(std::chrono::milliseconds interval, std::optional<std::string>& error, Poll&& poll,
                  Reset&& reset) {
    std::optional<SessionReader> reader;
    auto next = Clock::now();
    bool polled = false;
    for (;;) {
      try {
        if (!reader) reader.emplace(file_);
        poll(*reader);
        polled = true;
      } catch (const RecordingError& e) {
        // Not made yet, or its session not begun (or, before the file is in WAL mode, its making
        // holds a lock): the next poll tries again. Anything else is an error of the follower that
        // the measurement reports.
        using K = RecordingError::Kind;
        const bool not_yet = e.kind() == K::cannot_open || e.kind() == K::no_such_session ||
                             e.kind() == K::not_a_recording || (e.kind() == K::locked && !polled);
        if (!not_yet) {
          error = e.what();
          return;
        }
        reset();
        reader.reset();
      }
      next += interval;
      std::unique_lock lk(m_);
      if (cv_.wait_until(lk, next, [&] { return stop_; })) return;
    }
  }

  void run() {
    std::optional<WindowFollow> window;
    poll_every(
        every_, error_,
        [&](const SessionReader& r) {
          if (!window) window.emplace();
          seen_.emplace_back(Clock::now(), window->poll(r, id_));
        },
        [&] { window.reset(); });
    cpu_ns_ = thread_cpu_ns();
  }

  void scan() {
    yield_to_other_programs();
    std::unique_ptr<obs::SystemState> state;
    SessionReader::FoldPoint at;
    poll_every(
        std::chrono::seconds(1), scan_error_,
        [&](const SessionReader& r) {
          const SessionInfo s = r.session(id_);
          if (!state) {
            state = std::make_unique<obs::SystemState>();
            r.prefix_at(id_, s.start_time, *state, at);
          }
          if (s.end_time >= at.reach) r.advance(id_, *state, at, s.end_time);
        },
        [&] { state.reset(); });
    scan_cpu_ns_ = thread_cpu_ns();
  }

  std::filesystem::path file_;
  std::int64_t id_;
  std::chrono::milliseconds every_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<std::pair<Clock::time_point, std::uint64_t>> seen_;
  std::optional<std::string> error_, scan_error_;
  std::int64_t cpu_ns_ = 0, scan_cpu_ns_ = 0;
  std::thread thread_;       // last: they start once everything above is ready
  std::thread scan_thread_;
};

/// Linux's /proc/self/status field `name` ("VmHWM"), in bytes.
std::uint64_t status_bytes(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = std::string(name) + ":";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + key.size(), nullptr, 10) * 1024;
  throw MeasurementError(std::string("/proc/self/status has no ") + name +
                         ": resident memory cannot be measured here");
}

/// Makes the next VmHWM read the peak from now on: returns what the process freed before (making
/// files) to the system, then resets the high-water mark to the current resident size.
void reset_peak_resident() {
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";  // resets VmHWM to the current resident size (Linux 4.0 and later)
  clear.flush();
  if (!clear)
    throw MeasurementError(
        "cannot reset the resident high-water mark (/proc/self/clear_refs): the peak cannot be measured here");
}

}  // namespace

FirstPictureSample first_picture(const ReplayFile& recording) {
  FirstPictureSample out;
  const auto t0 = Clock::now();
  const SessionReader reader(recording.file);
  const auto t1 = Clock::now();
  const std::vector<SessionInfo> sessions = reader.sessions();
  const auto t2 = Clock::now();
  if (sessions.empty()) throw MeasurementError("the recording has no session");
  const SessionInfo& s = sessions.back();
  const obs::SystemState state = reader.state_at(s.id, s.start_time);
  const auto t3 = Clock::now();
  const std::vector<DensityBucket> density = reader.density(s.id, s.start_time, s.end_time, 800);
  const auto t4 = Clock::now();
  const std::vector<TimelineMarker> markers = reader.markers(s.id, s.start_time, s.end_time);
  const auto t5 = Clock::now();
  out.open_ns = ns_between(t0, t1);
  out.sessions_ns = ns_between(t1, t2);
  out.state_ns = ns_between(t2, t3);
  out.density_ns = ns_between(t3, t4);
  out.markers_ns = ns_between(t4, t5);
  out.total_ns = ns_between(t0, t5);
  for (const DensityBucket& b : density) out.events_counted += b.total();
  (void)state;
  (void)markers;
  return out;
}

ReplayMemorySample replay_memory(const ReplayFile& recording) {
  ReplayMemorySample out;
  reset_peak_resident();
  out.baseline_rss = status_bytes("VmRSS");
  const auto start = Clock::now();
  {
    const SessionReader reader(recording.file);
    const SessionInfo s = reader.sessions().back();
    for (double f : {0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0}) {
      const TimePoint t = fraction_of(s, f);
      const obs::SystemState state = reader.state_at(s.id, t);
      if (state.events_applied() == 0) throw MeasurementError("the replay folded no event");
      (void)reader.adjacent_event(s.id, t, true);
    }
    (void)reader.density(s.id, s.start_time, s.end_time, 800);
    (void)reader.markers(s.id, s.start_time, s.end_time);
    (void)reader.density(s.id, fraction_of(s, 0.45), fraction_of(s, 0.55), 800);
    (void)reader.markers(s.id, fraction_of(s, 0.45), fraction_of(s, 0.55));
  }
  out.ns = ns_between(start, Clock::now());
  out.peak_rss = status_bytes("VmHWM");
  return out;
}

namespace {

struct Sink {
  using Message = std::uint64_t;
  void handle(Context<Sink>&, std::uint64_t, std::monostate&) {}
};

}  // namespace

FollowLatencySample follow_latency(const std::filesystem::path& file, std::chrono::milliseconds duration,
                                   std::uint64_t messages_per_second, std::chrono::milliseconds poll_every) {
  FollowLatencySample out;
  remove_file(file);
  std::vector<std::pair<Clock::time_point, std::uint64_t>> commits;  // (when seen done, committed count)
  std::vector<std::pair<Clock::time_point, std::uint64_t>> seen;
  std::optional<std::string> follower_error;
  {
    System system{make_runtime("asio", {.threads = 1})};
    Recorder recorder(file, {.detail = Detail::full});
    system.attach(recorder);
    auto sink = system.spawn<Sink>({.name = "sink"});
    if (!sink) throw MeasurementError(std::string("the sink could not start: ") + sink.error().what());
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (recorder.progress().events_recorded == 0) {  // the session's first commit
      if (Clock::now() > deadline) throw MeasurementError("the recorder did not start its session");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const std::int64_t id = recorder.progress().session;

    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      std::uint64_t last = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        const std::uint64_t now = recorder.progress().events_recorded;
        if (now != last) commits.emplace_back(Clock::now(), last = now);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the watcher's resolution
      }
    });
    Follower follower(file, id, poll_every);

    // The workload: a steady stream in slices of 10 ms.
    const std::uint64_t per_slice = std::max<std::uint64_t>(1, messages_per_second / 100);
    const auto start = Clock::now();
    auto next = start;
    std::uint64_t n = 0;
    while (Clock::now() - start < duration) {
      for (std::uint64_t i = 0; i < per_slice; ++i) (void)sink->cast(n++);
      next += std::chrono::milliseconds(10);
      std::this_thread::sleep_until(next);  // the pace of the workload
    }
    // Let the last commits reach the follower: two more of its polls.
    std::this_thread::sleep_for(2 * poll_every + std::chrono::milliseconds(50));
    follower.stop();
    stop.store(true);
    watcher.join();
    seen = follower.seen();
    follower_error = follower.error();
    out.follower_cpu_ns = follower.cpu_ns();
    out.scan_cpu_ns = follower.scan_cpu_ns();
    const Recorder::Progress p = recorder.progress();
    if (p.error) throw MeasurementError("the recorder failed: " + *p.error);
    out.dropped = p.events_dropped;
    out.events = p.events_recorded;
    system.detach(recorder);
  }
  remove_file(file);
  if (follower_error) throw MeasurementError("the follower failed: " + *follower_error);
  out.polls = seen.size();
  // Each commit's latency: from when it was seen done to the end of the first poll that had it.
  std::size_t p = 0;
  for (const auto& [committed_at, count] : commits) {
    while (p < seen.size() && seen[p].second < count) ++p;
    if (p == seen.size()) break;  // the follower stopped before it saw this one
    out.latencies.push_back(
        static_cast<double>(std::max<std::int64_t>(0, ns_between(committed_at, seen[p].first))));
  }
  if (out.latencies.empty()) throw MeasurementError("the follower saw no commit");
  return out;
}

FollowedThroughputSample followed_throughput(const std::filesystem::path& file, std::uint64_t events,
                                             bool followed_first, std::chrono::milliseconds poll_every) {
  FollowedThroughputSample out;
  auto followed = [&] {
    // recorder_throughput replaces the file, so its one session is session 1.
    Follower follower(file, 1, poll_every);
    out.followed = recorder_throughput(file, events);
    follower.stop();
    if (follower.error()) throw MeasurementError("the follower failed: " + *follower.error());
    out.polls = follower.seen().size();
    out.follower_cpu_ns = follower.cpu_ns();
    out.scan_cpu_ns = follower.scan_cpu_ns();
  };
  if (followed_first) followed();
  out.alone = recorder_throughput(file, events);
  if (!followed_first) followed();
  return out;
}

DiffSample diff_recordings(const ReplayFile& a, const ReplayFile& b) {
  DiffSample out;
  reset_peak_resident();
  out.baseline_rss = status_bytes("VmRSS");
  const auto t0 = Clock::now();
  {
    const SessionReader reader_a(a.file);
    const SessionReader reader_b(b.file);
    const std::vector<SessionInfo> sessions_a = reader_a.sessions();
    const std::vector<SessionInfo> sessions_b = reader_b.sessions();
    if (sessions_a.empty() || sessions_b.empty()) throw MeasurementError("a recording has no session");
    const auto t1 = Clock::now();
    const DiffSide side_a = read_diff_side(reader_a, sessions_a.back().id);
    const DiffSide side_b = read_diff_side(reader_b, sessions_b.back().id);
    const auto t2 = Clock::now();
    const RecordingDiff diff = diff_sides(side_a, side_b);
    const auto t3 = Clock::now();
    out.open_ns = ns_between(t0, t1);
    out.read_ns = ns_between(t1, t2);
    out.diff_ns = ns_between(t2, t3);
    out.matched = diff.rows.size();
  }
  out.total_ns = ns_between(t0, Clock::now());
  out.peak_rss = status_bytes("VmHWM");
  return out;
}

// -- the suite -----------------------------------------------------------------------------------

namespace {

using bench::Benchmark;
using bench::BenchmarkInfo;
using bench::Measure;
using bench::Sample;
using bench::Workload;
using bench::WorkloadError;

/// "4.2 ms": CPU time per poll.
std::string per_poll(std::int64_t cpu_ns, std::uint64_t polls) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms",
                polls > 0 ? static_cast<double>(cpu_ns) / 1e6 / static_cast<double>(polls) : 0.0);
  return text;
}

/// What a follower's threads used: "4.2 ms of CPU each (the warnings scan beside them, at the lowest
/// priority: 300.0 ms in all)".
std::string follower_cpu(std::int64_t poll_ns, std::uint64_t polls, std::int64_t scan_ns) {
  return per_poll(poll_ns, polls) + " of CPU each (the warnings scan beside them, at the lowest priority: " +
         per_poll(scan_ns, 1) + " in all)";
}

ReplayFile make_file(const TempDir& dir, const char* name, std::uint64_t events) {
  try {
    return make_replay_file(dir.file(name), events);
  } catch (const MeasurementError& e) {
    throw WorkloadError(e.what());
  }
}

std::string quick_note(std::uint64_t events, std::uint64_t full) {
  if (events == full) return {};
  return "quick run: a recording of " + with_commas(events) + " events instead of " + with_commas(full) + "; ";
}

// (a) the first picture

constexpr std::uint64_t kPictureEvents = 1'000'000;
constexpr std::uint64_t kQuickPictureEvents = 100'000;

class FirstPicture final : public Workload {
 public:
  explicit FirstPicture(std::uint64_t events)
      : events_(events), file_(make_file(dir_, "picture.db", events)) {}
  Sample sample() override {
    FirstPictureSample r;
    try {
      r = first_picture(file_);
    } catch (const std::exception& e) {
      throw WorkloadError(e.what());
    }
    if (r.events_counted != file_.events)
      throw WorkloadError("the density counted " + with_commas(r.events_counted) + " events of " +
                          with_commas(file_.events));
    Sample s;
    s.value = static_cast<double>(r.total_ns);
    s.phases = {{"open", static_cast<double>(r.open_ns)},
                {"sessions", static_cast<double>(r.sessions_ns)},
                {"state_at(start)", static_cast<double>(r.state_ns)},
                {"density(800)", static_cast<double>(r.density_ns)},
                {"markers", static_cast<double>(r.markers_ns)}};
    return s;
  }
  std::string note() const override {
    return quick_note(events_, kPictureEvents) + "the density counted all " + with_commas(file_.events) +
           " events";
  }

 private:
  std::uint64_t events_;
  TempDir dir_;
  ReplayFile file_;
};

Benchmark first_picture_benchmark() {
  BenchmarkInfo i;
  i.name = "Replay: first picture of a recording of 1000000 events";
  i.group = "replay";
  i.description =
      "A recording of 1,000,000 synthetic full-detail events (a Recorder's own file) is made in the untimed "
      "setup (100,000 in a quick run). Timed: what the replay window does on opening it: a SessionReader, "
      "sessions(), state_at(the start), density(start, end, 800 buckets) and markers(start, end). Runs once.";
  i.element = "opening";
  i.runs_once = true;
  i.samples = 20;
  i.quick_samples = 3;
  i.warm_up = std::chrono::milliseconds(1);
  i.quick_warm_up = std::chrono::milliseconds(1);
  Benchmark b{i, [](System&) { return std::make_unique<FirstPicture>(kPictureEvents); }};
  b.make_quick = [](System&) { return std::make_unique<FirstPicture>(kQuickPictureEvents); };
  return b;
}

// (b) memory

constexpr std::uint64_t kMemoryEvents = 10'000'000;
constexpr std::uint64_t kQuickMemoryEvents = 1'000'000;

class ReplayMemory final : public Workload {
 public:
  explicit ReplayMemory(std::uint64_t events) : events_(events) {
    const auto start = Clock::now();
    file_ = make_file(dir_, "memory.db", events);
    make_s_ = static_cast<double>(ns_between(start, Clock::now())) / 1e9;
    std::error_code ec;
    size_ = std::filesystem::file_size(file_.file, ec);
  }
  Sample sample() override {
    ReplayMemorySample r;
    try {
      r = replay_memory(file_);
    } catch (const MeasurementError& e) {
      throw WorkloadError(e.what());
    }
    baseline_ = std::max(baseline_, r.baseline_rss);
    growth_ = std::max(growth_, r.peak_rss - std::min(r.peak_rss, r.baseline_rss));
    Sample s;
    s.value = static_cast<double>(r.peak_rss);
    s.phases = {{"replay", static_cast<double>(r.ns)}};  // phases are times; the sizes are in the note
    return s;
  }
  std::string note() const override {
    char made[64];
    std::snprintf(made, sizeof made, "%.0f s", make_s_);
    return quick_note(events_, kMemoryEvents) + "the file: " + with_commas(file_.events) + " events, " +
           with_commas(size_ / 1'000'000) + " MB, made in " + made +
           "; the value is the whole process's peak resident size (VmHWM, reset before the replay): at "
           "most " +
           with_commas(baseline_ / 1'000'000) + " MB resident before a replay, and at most " +
           with_commas(growth_ / 1'000'000) + " MB more during one";
  }

 private:
  std::uint64_t events_;
  TempDir dir_;
  ReplayFile file_;
  double make_s_ = 0;
  std::uintmax_t size_ = 0;
  std::uint64_t baseline_ = 0, growth_ = 0;
};

Benchmark memory_benchmark() {
  BenchmarkInfo i;
  i.name = "Replay: peak resident memory replaying a recording of 10000000 events";
  i.group = "replay";
  i.description =
      "A recording of 10,000,000 synthetic full-detail events is made by a Recorder in the untimed setup "
      "(about 1 GB; 1,000,000 events in a quick run). A sample replays it as a scrubbing user would: "
      "state_at at the start, 10, 30, 50, 70, 90 % and the end, a step to the next event at each, "
      "density(800) and markers of the whole span and of its middle tenth. The value is the process's peak "
      "resident size during that (Linux's VmHWM, reset first through /proc/self/clear_refs), which includes "
      "what the process held before: the note gives that baseline and the growth.";
  i.measure = Measure::memory;
  i.unit = std::string("B");
  i.element = "replay";
  i.runs_once = true;
  i.samples = 5;
  i.quick_samples = 1;
  i.warm_up = std::chrono::milliseconds(0);
  i.quick_warm_up = std::chrono::milliseconds(0);
  Benchmark b{i, [](System&) { return std::make_unique<ReplayMemory>(kMemoryEvents); }};
  b.make_quick = [](System&) { return std::make_unique<ReplayMemory>(kQuickMemoryEvents); };
  return b;
}

// (c) follow latency

class FollowLatency final : public Workload {
 public:
  explicit FollowLatency(std::chrono::milliseconds duration) : duration_(duration) {}
  Sample sample() override {
    FollowLatencySample r;
    try {
      r = follow_latency(dir_.file("follow.db"), duration_);
    } catch (const MeasurementError& e) {
      throw WorkloadError(e.what());
    }
    if (r.dropped != 0) throw WorkloadError("the recorder dropped " + with_commas(r.dropped) + " events");
    events_ += r.events;
    polls_ += r.polls;
    cpu_ns_ += r.follower_cpu_ns;
    scan_cpu_ns_ += r.scan_cpu_ns;
    std::vector<double> sorted = r.latencies;
    std::sort(sorted.begin(), sorted.end());
    Sample s;
    s.value = sorted[sorted.size() / 2];
    s.observations = std::move(r.latencies);
    return s;
  }
  std::string note() const override {
    return with_commas(events_) + " events committed in all, " + with_commas(polls_) + " polls using " +
           follower_cpu(cpu_ns_, polls_, scan_cpu_ns_) + "; one latency per commit of the writer";
  }

 private:
  std::chrono::milliseconds duration_;
  TempDir dir_;
  std::uint64_t events_ = 0, polls_ = 0;
  std::int64_t cpu_ns_ = 0, scan_cpu_ns_ = 0;
};

Benchmark follow_latency_benchmark() {
  BenchmarkInfo i;
  i.name = "Replay: follow latency, a writer's commit to a reader polling every 100 ms";
  i.group = "replay";
  i.description =
      "A Recorder at full detail records an asio System whose actor is sent 10,000 messages a second (20,000 "
      "events) for 3 s a sample (1 s in a quick run); a reader thread polls the file every 100 ms as the "
      "replay window does (the session; the state shown moved to the end, folding what came since or from "
      "the keyframe before it, whichever is cheaper; density(800) and markers at most once a second), with "
      "the window's warnings scan beside it (a thread at the lowest priority folding everything once a "
      "second). Each commit's latency is "
      "from when the recorder had committed it (looked at every ms) to the end of the first poll that saw "
      "it; the value is a sample's median, the distribution pools every commit.";
  i.measure = Measure::latency;
  i.element = "commit";
  i.runs_once = true;
  i.samples = 5;
  i.quick_samples = 1;
  i.warm_up = std::chrono::milliseconds(0);
  i.quick_warm_up = std::chrono::milliseconds(0);
  Benchmark b{i, [](System&) { return std::make_unique<FollowLatency>(std::chrono::seconds(3)); }};
  b.make_quick = [](System&) { return std::make_unique<FollowLatency>(std::chrono::seconds(1)); };
  return b;
}

// (d) the writer's throughput while followed

constexpr std::uint64_t kFollowedEvents = 500'000;
constexpr std::uint64_t kQuickFollowedEvents = 100'000;

class FollowedThroughput final : public Workload {
 public:
  explicit FollowedThroughput(std::uint64_t events) : events_(events) {}
  Sample sample() override {
    FollowedThroughputSample r;
    try {
      // Alone and followed back to back, in alternating order, so that a change in the machine's
      // load touches both sides of the ratio alike.
      r = followed_throughput(dir_.file("followed.db"), events_, (samples_++ % 2) == 0);
    } catch (const MeasurementError& e) {
      throw WorkloadError(e.what());
    }
    if (r.alone.dropped != 0 || r.followed.dropped != 0) throw WorkloadError("the recorder dropped events");
    polls_ += r.polls;
    cpu_ns_ += r.follower_cpu_ns;
    scan_cpu_ns_ += r.scan_cpu_ns;
    Sample s;
    s.value = r.ratio();
    s.phases = {{"alone", static_cast<double>(r.alone.ns)}, {"followed", static_cast<double>(r.followed.ns)}};
    return s;
  }
  std::string note() const override {
    return quick_note(events_, kFollowedEvents) + with_commas(polls_) + " polls by the follower in all, using " +
           follower_cpu(cpu_ns_, polls_, scan_cpu_ns_) +
           "; the value is followed throughput over alone (1 = no loss)";
  }

 private:
  std::uint64_t events_;
  TempDir dir_;
  std::uint64_t samples_ = 0, polls_ = 0;
  std::int64_t cpu_ns_ = 0, scan_cpu_ns_ = 0;
};

Benchmark followed_throughput_benchmark() {
  BenchmarkInfo i;
  i.name = "Replay: recorder throughput while a reader follows every 50 ms (ratio)";
  i.group = "replay";
  i.description =
      "Recorder throughput at full detail (500,000 synthetic events, zero drops; 100,000 in a quick run) "
      "once alone and once while a reader thread follows the file every 50 ms as the replay window does "
      "(every 100 ms in the window; the session, the state shown moved to the end, density(800) and markers "
      "at most once a second, and the warnings scan beside it at the lowest priority), back to back in "
      "alternating order. The value is "
      "the followed throughput over the throughput alone: 0.95 is a 5 % drop. The phases are the two times.";
  i.measure = Measure::ratio;
  i.unit = std::string("×");
  i.element = "pair";
  i.runs_once = true;
  i.samples = 6;
  i.quick_samples = 1;
  i.warm_up = std::chrono::milliseconds(0);
  i.quick_warm_up = std::chrono::milliseconds(0);
  Benchmark b{i, [](System&) { return std::make_unique<FollowedThroughput>(kFollowedEvents); }};
  b.make_quick = [](System&) { return std::make_unique<FollowedThroughput>(kQuickFollowedEvents); };
  return b;
}

// (e) the diff of two recordings

constexpr std::uint64_t kDiffEvents = 1'000'000;
constexpr std::uint64_t kQuickDiffEvents = 100'000;

class DiffTwo final : public Workload {
 public:
  explicit DiffTwo(std::uint64_t events)
      : events_(events), a_(make_file(dir_, "a.db", events)), b_(make_file(dir_, "b.db", events)) {}
  Sample sample() override {
    DiffSample r;
    try {
      r = diff_recordings(a_, b_);
    } catch (const std::exception& e) {
      throw WorkloadError(e.what());
    }
    if (r.matched == 0) throw WorkloadError("the diff matched no actor of two recordings of one workload");
    matched_ = r.matched;
    peak_ = std::max(peak_, r.peak_rss);
    growth_ = std::max(growth_, r.peak_rss - std::min(r.peak_rss, r.baseline_rss));
    Sample s;
    s.value = static_cast<double>(r.total_ns);
    s.phases = {{"open", static_cast<double>(r.open_ns)},
                {"read sides", static_cast<double>(r.read_ns)},
                {"diff", static_cast<double>(r.diff_ns)}};
    return s;
  }
  std::string note() const override {
    return quick_note(events_, kDiffEvents) + with_commas(matched_) +
           " actors matched; the whole process's peak resident size during a diff was at most " +
           with_commas(peak_ / 1'000'000) + " MB, of which at most " + with_commas(growth_ / 1'000'000) +
           " MB were taken by the diff (VmHWM, reset before it)";
  }

 private:
  std::uint64_t events_;
  TempDir dir_;
  ReplayFile a_, b_;
  std::size_t matched_ = 0;
  std::uint64_t peak_ = 0, growth_ = 0;
};

Benchmark diff_benchmark() {
  BenchmarkInfo i;
  i.name = "Replay: diff of two recordings of 1000000 events";
  i.group = "replay";
  i.description =
      "Two recordings of 1,000,000 synthetic full-detail events each (two actors that exchange messages and "
      "a short-lived helper every 1,000 events: three logical actors, about 1,000 incarnations) are made by a Recorder in the untimed setup "
      "(100,000 in a quick run). Timed: what `actorscope diff A B` does before printing: both SessionReaders "
      "and their sessions, read_diff_side of each last session, and diff_sides. Runs once. The note gives "
      "the process's peak resident size during a diff and how much of it the diff took.";
  i.element = "diff";
  i.runs_once = true;
  i.samples = 10;
  i.quick_samples = 2;
  i.warm_up = std::chrono::milliseconds(1);
  i.quick_warm_up = std::chrono::milliseconds(1);
  Benchmark b{i, [](System&) { return std::make_unique<DiffTwo>(kDiffEvents); }};
  b.make_quick = [](System&) { return std::make_unique<DiffTwo>(kQuickDiffEvents); };
  return b;
}

}  // namespace

std::vector<bench::Benchmark> replay_suite() {
  std::vector<Benchmark> v;
  v.push_back(first_picture_benchmark());
  v.push_back(memory_benchmark());
  v.push_back(follow_latency_benchmark());
  v.push_back(followed_throughput_benchmark());
  v.push_back(diff_benchmark());
  return v;
}

}  // namespace actorscope::recording_benchmarks
