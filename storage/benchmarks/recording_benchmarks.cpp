// The recording measurements: synthetic streams fed straight into a Recorder (for its own
// capacity and for a large file), ractor's message loop with each detail level, and replay.
#include "recording_benchmarks.hpp"

#include <actorscope/actorscope.hpp>
#include <actorscope/benchmarks/looper.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <chrono>
#include <thread>

namespace actorscope::recording_benchmarks {

namespace {

using Clock = std::chrono::steady_clock;
namespace obs = observe;

std::int64_t ns_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

void remove_file(const std::filesystem::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::path p = file;
    p += suffix;
    std::filesystem::remove(p, ec);
  }
}

/// A full-detail stream: two actors exchanging timed, typed messages, and every 1,000 events a
/// short-lived third actor that is spawned and stops. Times advance 1 µs per event from `t0`.
class SyntheticStream {
 public:
  SyntheticStream(std::uint64_t first_seq, TimePoint t0) : seq_(first_seq), t_(t0) {}

  obs::Event next() {
    obs::Event e;
    e.seq = seq_++;
    t_ += std::chrono::microseconds(1);
    e.time = t_;
    const std::uint64_t i = n_++;
    if (i < 2) {
      e.kind = obs::EventKind::spawned;
      e.actor = {0, i + 1};
      e.name = i == 0 ? "ping" : "pong";
      e.text = "bench::Player";
      return e;
    }
    if (i % 1000 == 500) {
      e.kind = obs::EventKind::spawned;
      e.actor = {0, ++last_pid_};
      e.peer = {0, 1};
      e.text = "bench::Helper";
      return e;
    }
    if (i % 1000 == 501) {
      e.kind = obs::EventKind::stopped;
      e.actor = {0, last_pid_};
      e.text = "done";
      return e;
    }
    const bool forth = (i / 2) % 2 == 0;
    e.actor = {0, forth ? 1u : 2u};
    e.peer = {0, forth ? 2u : 1u};
    e.message_type = "bench::Ball";
    if (i % 2 == 0) {
      e.kind = obs::EventKind::message_sent;
      e.trace = ++trace_;
    } else {
      e.kind = obs::EventKind::message_handled;
      std::swap(e.actor, e.peer);
      e.trace = trace_;
      e.timed = true;
      e.queue = std::chrono::nanoseconds(300 + i % 97);
      e.handling = std::chrono::nanoseconds(150 + i % 53);
    }
    return e;
  }

 private:
  std::uint64_t seq_;
  TimePoint t_;
  std::uint64_t n_ = 0;
  std::uint64_t trace_ = 0;
  std::uint64_t last_pid_ = 2;
};

/// Offers `events` events to `rec`, never more than one buffer ahead of what it has committed,
/// so none is dropped; returns once all are committed (generous deadline).
void feed(Recorder& rec, SyntheticStream& stream, std::uint64_t events, std::size_t capacity) {
  const std::uint64_t base = rec.progress().events_recorded;
  const std::uint64_t step = 1024;
  const auto deadline = Clock::now() + std::chrono::minutes(10);
  for (std::uint64_t sent = 0; sent < events;) {
    const Recorder::Progress p = rec.progress();
    if (p.error) throw MeasurementError("the recorder failed: " + *p.error);
    const std::uint64_t committed = p.events_recorded - base;
    if (sent + step - committed > capacity - step) {  // a step of margin: never a full buffer
      if (Clock::now() > deadline) throw MeasurementError("the recorder stopped taking events");
      // Waiting for the writer: let it have the core (spinning here would slow what is measured).
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      continue;
    }
    for (std::uint64_t k = 0; k < step && sent < events; ++k, ++sent) rec.on_event(stream.next());
  }
  while (rec.progress().events_recorded - base < events) {
    if (Clock::now() > deadline) throw MeasurementError("the recorder did not commit every event in time");
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

/// A recorder attached to an empty manual System, ready to be fed synthetic events (the System's
/// attach-time present is one runtime_info event: seq 1).
const std::filesystem::path& fresh(const std::filesystem::path& file) {
  remove_file(file);
  return file;
}

struct FedRecorder {
  explicit FedRecorder(const std::filesystem::path& file, RecorderOptions options)
      : system(make_runtime("manual")), recorder(fresh(file), std::move(options)) {
    system.attach(recorder);
    // The attach-time present (one runtime_info) is committed before anything is fed, so that
    // feed's count of what is committed is its own.
    const auto deadline = Clock::now() + std::chrono::minutes(1);
    while (recorder.progress().events_recorded == 0) {
      if (Clock::now() > deadline) throw MeasurementError("the recorder did not start its session");
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  System system;
  Recorder recorder;
};

constexpr std::size_t kCapacity = 16384;

}  // namespace

ThroughputSample recorder_throughput(const std::filesystem::path& file, std::uint64_t events) {
  ThroughputSample out;
  {
    FedRecorder fed(file, {.detail = Detail::full, .per_thread_capacity = kCapacity});
    SyntheticStream stream(2, fed.system.runtime().now());
    const auto start = Clock::now();
    feed(fed.recorder, stream, events, kCapacity);
    out.ns = ns_since(start);
    out.events = events;
    out.dropped = fed.recorder.progress().events_dropped;
  }
  remove_file(file);
  return out;
}

MessageLoopSample message_loop(System& system, std::optional<Detail> detail,
                               const std::filesystem::path& file, std::uint64_t messages) {
  MessageLoopSample out;
  out.messages = messages;
  std::optional<Recorder> rec;
  if (detail) {
    remove_file(file);
    rec.emplace(file, RecorderOptions{.detail = *detail});
    system.attach(*rec);
  }
  const auto start = Clock::now();
  auto looper = system.spawn<bench::Looper>({}, messages);
  if (!looper) throw MeasurementError(std::string("the looper could not start: ") + looper.error().what());
  if (!looper->wait(std::chrono::minutes(2)))
    throw MeasurementError("the message loop did not finish in 2 minutes");
  out.ns = ns_since(start);
  if (rec) {
    system.detach(*rec);  // the last poll, then the writer flushes and ends the session
    const Recorder::Progress p = rec->progress();
    out.events_recorded = p.events_recorded;
    out.events_dropped = p.events_dropped;
    if (p.error) throw MeasurementError("the recorder failed: " + *p.error);
    rec.reset();
    remove_file(file);
  }
  return out;
}

MessageLoopSample message_loop(const std::string& runtime, std::optional<Detail> detail,
                               const std::filesystem::path& file, std::uint64_t messages) {
  System system{make_runtime(runtime, {.threads = 1})};
  return message_loop(system, detail, file, messages);
}

ReplayFile make_replay_file(const std::filesystem::path& file, std::uint64_t events) {
  ReplayFile out;
  out.file = file;
  {
    FedRecorder fed(file,
                    {.detail = Detail::full, .keyframe_every = 10'000, .per_thread_capacity = kCapacity});
    const TimePoint t0 = fed.system.runtime().now();
    SyntheticStream stream(2, t0);
    feed(fed.recorder, stream, events, kCapacity);
    const Recorder::Progress p = fed.recorder.progress();
    if (p.events_dropped != 0) throw MeasurementError("the recorder dropped events while the file was made");
    out.session = p.session;
    out.events = p.events_recorded;
    // The middle, placed just before a keyframe: the worst case, 9,999 events to fold after one.
    // Event seq s (s >= 2; seq 1 is the runtime_info) happened at t0 + (s - 1) us.
    const std::uint64_t last_seq = (events / 2 / 10'000 + 1) * 10'000 - 1;
    out.middle_ns = obs::to_ns(t0 + std::chrono::microseconds(last_seq - 1)) + 500;  // between two events
  }
  return out;
}

ReplaySample replay_state_at_middle(const ReplayFile& recording) {
  ReplaySample out;
  const auto start = Clock::now();
  const SessionReader reader(recording.file);
  out.open_ns = ns_since(start);
  const auto mid = Clock::now();
  const obs::SystemState state = reader.state_at(recording.session, obs::time_from_ns(recording.middle_ns));
  out.state_at_ns = ns_since(mid);
  out.total_ns = ns_since(start);
  out.events_applied = state.events_applied();
  out.actors = state.actors().size();
  return out;
}

}  // namespace actorscope::recording_benchmarks
