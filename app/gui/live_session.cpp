// The live session: System + EventCollector + StatsPoller, folded on the UI thread.
#include "gui/live_session.hpp"

#include <actorscope/runtime.hpp>

#include <QCoreApplication>

#include <cstdio>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>

namespace actorscope::gui {
namespace {

constexpr auto kRateWindow = std::chrono::seconds(1);

/// Events per second over the last second, or over the time since `since` when that is shorter
/// (a session that started half a second ago has half a second of counts).
double perSecond(const std::deque<std::pair<TimePoint, std::uint64_t>>& window, TimePoint now, TimePoint since) {
  std::uint64_t n = 0;
  for (const auto& [t, c] : window)
    if (now - t <= kRateWindow) n += c;
  const Duration span = std::clamp<Duration>(now - since, std::chrono::milliseconds(100), kRateWindow);
  return static_cast<double>(n) / std::chrono::duration<double>(span).count();
}

std::uint64_t threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

void trim(std::deque<std::pair<TimePoint, std::uint64_t>>& window, TimePoint now) {
  while (!window.empty() && now - window.front().first > kRateWindow) window.pop_front();
}

}  // namespace

LiveSession::LiveSession(QObject* parent) : Session(parent) {
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, [this] {
    if (pump()) emit updated();
  });
}

LiveSession::~LiveSession() { stop(); }

void LiveSession::start(const Workload& workload, const SessionConfig& config) {
  stop();
  std::unique_ptr<Runtime> runtime;
  try {
    RuntimeOptions options;
    options.threads = config.threads;
    // The observatory owns the QApplication; the qt runtime's actors share its event loops.
    options.qt_application = RuntimeOptions::QtApplication::existing;
    runtime = make_runtime(config.runtime, options);
  } catch (const UnknownRuntimeError& e) {
    std::string known;
    for (const auto& n : e.known()) {
      if (!known.empty()) known += ", ";
      known += n;
    }
    throw SessionError("there is no runtime \"" + config.runtime + "\"; this build has: " + known);
  } catch (const std::exception& e) {
    throw SessionError("the " + config.runtime + " runtime could not start: " + e.what());
  }

  config_ = config;
  workload_ = workload;
  feed_ = makeFeed();
  feed_.set_sink(this);
  bucketer_ = observe::StatsBucketer{};
  factory_bucketer_ = observe::FactoryBucketer{};
  handledWindow_.clear();
  eventWindow_.clear();
  handledTotal_ = 0;
  resetTimings();

  system_ = std::make_unique<System>(std::move(runtime));
  sampleEvery_ = std::max(1u, config.sampleEvery);
  adaptedOnce_ = false;
  droppedBefore_ = 0;
  ignoredDrops_ = 0;
  collector_ = makeCollector(sampleEvery_);
  poller_ = std::make_unique<observe::StatsPoller>(*system_);
  system_->attach(*collector_);
  try {
    workload_.start(*system_, config.seed);
  } catch (const std::exception& e) {
    const std::string why = e.what();
    stop();
    throw SessionError("the \"" + workload.name + "\" scenario could not start: " + why);
  }
  startedAt_ = Clock::now();
  startStatsThread();
  sinceAdapt_.start();
  timer_.start(config.drainIntervalMs);
  pump();
  emit started();
  emit updated();
}

void LiveSession::stop() {
  if (!system_) return;
  timer_.stop();
  busy_ = true;  // the qt runtime processes this thread's events while shutting down: no re-entry
  stopStatsThread();
  system_->shutdown(std::chrono::seconds(5));
  // The recording ends after the shutdown, so that it has the actors' exits too.
  const bool wasRecording = recorder_ != nullptr;
  recorder_.reset();
  // Everything the actors did is in the buffers now: take it all, and the final counters.
  batch_.clear();
  collector_->drain(batch_, true);
  feed_.push_events(batch_);
  pollStats();
  takePolls();
  feed_.finish();
  foldNow_ = Clock::now();
  feed_.fold();
  system_->detach(*collector_);
  poller_.reset();
  system_.reset();
  collector_.reset();
  busy_ = false;
  if (wasRecording) emit recordingChanged(false);
  emit updated();
  emit stopped();
}

void LiveSession::startRecording(const std::string& file, bool replace) {
  if (!system_) throw SessionError("there is no running session to record: start one first");
  if (recorder_) throw SessionError("the session is already being recorded to " + recordingFile());
  RecorderOptions options;
  options.detail = Detail::sampled;
  options.sample_every = sampleEvery_;
  options.scenario = workload_.name;
  options.seed = config_.seed;
  options.if_exists = replace ? RecorderOptions::IfExists::replace : RecorderOptions::IfExists::refuse;
  try {
    auto recorder = std::make_unique<Recorder>(file, options);
    system_->attach(*recorder);
    recorder_ = std::move(recorder);
  } catch (const RecordingError& e) {
    throw SessionError(e.what());
  } catch (const std::exception& e) {
    throw SessionError("cannot record to " + file + ": " + e.what());
  }
  emit recordingChanged(true);
}

void LiveSession::stopRecording() {
  if (!recorder_) return;
  recorder_.reset();  // detaches: the writer flushes and ends the session
  emit recordingChanged(false);
}

std::string LiveSession::recordingFile() const { return recorder_ ? recorder_->file().string() : std::string(); }

std::optional<Recorder::Progress> LiveSession::recordingProgress() const {
  if (!recorder_) return std::nullopt;
  return recorder_->progress();
}

void LiveSession::startStatsThread() {
  statsStop_ = false;
  statsReady_.clear();
  statsThread_ = std::thread([this] {
    std::unique_lock lk(statsM_);
    while (!statsCv_.wait_for(lk, std::chrono::milliseconds(config_.statsIntervalMs), [this] { return statsStop_; })) {
      lk.unlock();
      pollStats();
      lk.lock();
    }
  });
}

void LiveSession::stopStatsThread() {
  if (!statsThread_.joinable()) return;
  {
    std::lock_guard lk(statsM_);
    statsStop_ = true;
  }
  statsCv_.notify_all();
  statsThread_.join();
}

void LiveSession::pollStats() {
  Poll poll;
  poll.time = system_->runtime().now();
  poll.samples = bucketer_.update(poller_->poll(), poll.time);
  poll.factories = factory_bucketer_.update(poller_->poll_factories(), poll.time);
  for (const auto& s : poll.samples) poll.handled += s.handled;
  std::lock_guard lk(statsM_);
  statsReady_.push_back(std::move(poll));
}

void LiveSession::takePolls() {
  std::vector<Poll> ready;
  {
    std::lock_guard lk(statsM_);
    ready.swap(statsReady_);
  }
  for (Poll& p : ready) {
    // Rates count at once, whenever the samples get folded.
    handledTotal_ += p.handled;
    handledWindow_.emplace_back(p.time, p.handled);
    trim(handledWindow_, p.time);
    feed_.push_poll(p.time, std::move(p.samples), droppedTotal(), std::move(p.factories));
  }
}

std::uint64_t LiveSession::droppedTotal() const {
  return droppedBefore_ + (collector_ ? collector_->dropped() : 0) - ignoredDrops_;
}

observe::StateFeed LiveSession::makeFeed() const {
  observe::StateFeed::Rules rules = observe::StateFeed::live_rules();
  // A backlog that keeps growing means the fold cannot keep up: shed message events beyond this.
  rules.max_backlog = 200000;
  return observe::StateFeed(rules);
}

void LiveSession::on_event(observe::Event& e) {
  // The lag is the age of the live events (runtime clocks are steady_clock on the real runtimes).
  if (e.time <= foldNow_ && e.time != TimePoint{})
    lagNs_.record(static_cast<std::uint64_t>(observe::to_ns(foldNow_ - e.time)));
}

bool LiveSession::pump() {
  if (!system_ || busy_) return false;
  busy_ = true;
  const auto t0 = Clock::now();
  const std::uint64_t cpu0 = threadCpuNs();
  batch_.clear();
  collector_->drain(batch_);
  const std::size_t drained = batch_.size();
  feed_.push_events(batch_);
  takePolls();
  const TimePoint now = Clock::now();
  eventWindow_.emplace_back(now, drained);
  trim(eventWindow_, now);
  foldNow_ = now;
  const bool changed = feed_.fold(t0 + std::chrono::milliseconds(config_.foldBudgetMs));
  // The first look comes soon after the start (the rate is known after a few polls), the next
  // ones every 2 s: a swap repeats the present to the new collector, a frame's worth of work.
  if (config_.adaptiveSampling && sinceAdapt_.elapsed() >= (adaptedOnce_ ? 2000 : 500)) {
    adaptedOnce_ = true;
    adaptSampling();
  }
  lastPumpNs_ = static_cast<std::uint64_t>(observe::to_ns(Clock::now() - t0));
  lastPumpCpuNs_ = threadCpuNs() - cpu0;
  foldNs_.record(lastPumpNs_);
  static const bool trace = qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_PUMP");
  if (trace && lastPumpNs_ > 20'000'000)
    std::fprintf(stderr, "pump %.1f ms: %zu drained, backlog %zu events, %zu polls\n", lastPumpNs_ / 1e6, drained,
                 feed_.backlog(), feed_.polls_waiting());
  busy_ = false;
  return changed;
}

std::unique_ptr<observe::EventCollector> LiveSession::makeCollector(std::uint32_t every) const {
  observe::EventCollector::Options options;
  options.interest = {
      .messages = true, .timing = config_.timing, .type_names = true, .sample_every = every, .time_sampled_only = true};
  options.per_thread_capacity = 16384;
  return std::make_unique<observe::EventCollector>(options);
}

void LiveSession::adaptSampling() {
  // The sampling follows the exact message rate (from the counters, not from the sampled events:
  // sampling is per receiver, so at one in N an actor's first sample only comes after N
  // messages, and the sampled stream is bursty). A message gives two events (sent, handled):
  // one in N keeps 2 * rate / N near the budget. Powers of two, changed only when off by 4x,
  // and not more often than every 2 s (a swap repeats the present to the new collector).
  sinceAdapt_.restart();
  const double rate = perSecond(handledWindow_, Clock::now(), startedAt_);
  double wanted = 2.0 * rate / std::max(1.0, config_.eventBudget);
  std::uint32_t target = 1;
  while (target < (1u << 20) && target < wanted) target *= 2;
  target = std::max(target, 1u);
  const bool far = target >= sampleEvery_ * 4 || target * 4 <= sampleEvery_;
  if (qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_SAMPLING"))
    std::fprintf(stderr, "sampling: %.0f msgs/s at 1 in %u, wanted 1 in %u\n", rate, sampleEvery_, target);
  if (far) resample(target);
}

void LiveSession::resample(std::uint32_t every) {
  QElapsedTimer traceTimer;
  traceTimer.start();
  // The new collector hears about the present when it is attached (a spawned event for every live
  // actor, from the attaching thread): attach it from a helper thread while this thread drains
  // it, so that the present never overflows a ring. Then the old one is detached and emptied,
  // and the new one's first events are folded, without what the state already knows.
  std::unique_ptr<observe::EventCollector> next = makeCollector(every);
  std::vector<observe::Event> held;
  std::atomic<bool> attached{false};
  std::thread helper([&] {
    system_->attach(*next);
    attached.store(true, std::memory_order_release);
  });
  while (!attached.load(std::memory_order_acquire)) next->drain(held);
  helper.join();
  next->drain(held);
  // What the new collector dropped so far was the present (the helper thread emits nothing else):
  // repeats of what the state knows, not lost events.
  ignoredDrops_ += next->dropped();
  system_->detach(*collector_);
  batch_.clear();
  collector_->drain(batch_, true);
  feed_.push_events(batch_);
  droppedBefore_ += collector_->dropped();
  collector_ = std::move(next);
  const auto attachMs = traceTimer.elapsed();
  // The new collector's first events (its view of the present, then live ones) go after what the
  // old one saw. Most of them repeat what the state knows: the fold ignores those (SystemState's
  // apply is idempotent for repeats).
  feed_.push_events(held);
  sampleEvery_ = every;
  if (qEnvironmentVariableIsSet("ACTORSCOPE_TRACE_SAMPLING"))
    std::fprintf(stderr, "resample: %lld ms (attach + old flush %lld ms), %zu held events\n",
                 static_cast<long long>(traceTimer.elapsed()), static_cast<long long>(attachMs), held.size());
}

void LiveSession::resetTimings() {
  foldNs_.clear();
  lagNs_.clear();
}

LiveSession::Metrics LiveSession::metrics() const {
  Metrics m;
  const TimePoint now = Clock::now();
  m.messagesPerSecond = running() ? perSecond(handledWindow_, now, startedAt_) : 0.0;
  m.eventsPerSecond = running() ? perSecond(eventWindow_, now, startedAt_) : 0.0;
  m.dropped = state().dropped();
  m.events = state().events_applied();
  m.alive = state().alive_count();
  m.handled = handledTotal_;
  return m;
}

std::optional<ActorCell> LiveSession::cellOf(ActorId id) const {
  if (!system_) return std::nullopt;
  for (ActorCell& c : system_->actors())
    if (c.id() == id) return c;
  return std::nullopt;
}

bool LiveSession::canControl(ActorId id) const {
  if (!system_) return false;
  const observe::ActorRecord* a = state().actor(id);
  return a != nullptr && a->alive();
}

void LiveSession::stopActor(ActorId id) {
  if (auto c = cellOf(id)) c->stop("stopped from the observatory");
}

void LiveSession::killActor(ActorId id) {
  if (auto c = cellOf(id)) c->kill();
}

QString LiveSession::demoMessageName(ActorId id) const {
  if (!workload_.demoMessage) return {};
  auto c = cellOf(id);
  return c ? QString::fromStdString(workload_.demoMessage(*c)) : QString();
}

void LiveSession::sendDemoMessage(ActorId id) {
  auto c = cellOf(id);
  if (!c || !workload_.sendDemoMessage || !workload_.sendDemoMessage(*c))
    emit message(QStringLiteral("Actor %1 did not take the demo message (it may have stopped).")
                     .arg(QString::fromStdString(id.to_string())));
}

}  // namespace actorscope::gui
