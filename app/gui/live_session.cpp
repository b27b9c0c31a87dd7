// The live session: System + EventCollector + StatsPoller, folded on the UI thread.
#include "gui/live_session.hpp"

#include <actorscope/runtime.hpp>

#include <QCoreApplication>

#include <algorithm>
#include <chrono>

namespace actorscope::gui {
namespace {

constexpr auto kRateWindow = std::chrono::seconds(1);

double perSecond(const std::deque<std::pair<TimePoint, std::uint64_t>>& window, TimePoint now) {
  std::uint64_t n = 0;
  for (const auto& [t, c] : window)
    if (now - t <= kRateWindow) n += c;
  return static_cast<double>(n) / std::chrono::duration<double>(kRateWindow).count();
}

void trim(std::deque<std::pair<TimePoint, std::uint64_t>>& window, TimePoint now) {
  while (!window.empty() && now - window.front().first > kRateWindow) window.pop_front();
}

}  // namespace

LiveSession::LiveSession(QObject* parent) : QObject(parent) {
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
  state_ = observe::SystemState{};
  bucketer_ = observe::StatsBucketer{};
  handledWindow_.clear();
  eventWindow_.clear();
  handledTotal_ = 0;
  resetTimings();

  system_ = std::make_unique<System>(std::move(runtime));
  observe::EventCollector::Options options;
  options.interest = {.messages = true, .timing = true, .type_names = true, .sample_every = std::max(1u, config.sampleEvery)};
  options.per_thread_capacity = 16384;
  collector_ = std::make_unique<observe::EventCollector>(options);
  poller_ = std::make_unique<observe::StatsPoller>(*system_);
  system_->attach(*collector_);
  try {
    workload_.start(*system_, config.seed);
  } catch (const std::exception& e) {
    const std::string why = e.what();
    stop();
    throw SessionError("the \"" + workload.name + "\" scenario could not start: " + why);
  }
  sinceStats_.start();
  timer_.start(config.drainIntervalMs);
  pump();
  emit started();
  emit updated();
}

void LiveSession::stop() {
  if (!system_) return;
  timer_.stop();
  busy_ = true;  // the qt runtime processes this thread's events while shutting down: no re-entry
  system_->shutdown(std::chrono::seconds(5));
  // Everything the actors did is in the buffers now: take it all, and the final counters.
  batch_.clear();
  collector_->drain(batch_, true);
  for (const auto& e : batch_) state_.apply(e);
  pollStats();
  state_.add_dropped(collector_->dropped() - state_.dropped());
  system_->detach(*collector_);
  poller_.reset();
  system_.reset();
  collector_.reset();
  busy_ = false;
  emit updated();
  emit stopped();
}

void LiveSession::pollStats() {
  const TimePoint now = system_->runtime().now();
  std::uint64_t handled = 0;
  for (const observe::StatsSample& s : bucketer_.update(poller_->poll(), now)) {
    handled += s.handled;
    state_.apply(s);
  }
  // A sample for no actor moves the state's clock to `now` even when nothing else moved, so that
  // rates decay and stopped actors age while the system is quiet.
  observe::StatsSample heartbeat;
  heartbeat.end = now;
  state_.apply(heartbeat);
  handledTotal_ += handled;
  handledWindow_.emplace_back(now, handled);
  trim(handledWindow_, now);
}

bool LiveSession::pump() {
  if (!system_ || busy_) return false;
  busy_ = true;
  const auto t0 = Clock::now();
  batch_.clear();
  collector_->drain(batch_);
  const TimePoint now = Clock::now();
  for (const auto& e : batch_) {
    state_.apply(e);
    // Runtime clocks are steady_clock on the real runtimes: the age of the event when folded.
    if (e.time <= now) lagNs_.record(static_cast<std::uint64_t>(observe::to_ns(now - e.time)));
  }
  if (const std::uint64_t dropped = collector_->dropped(); dropped > state_.dropped())
    state_.add_dropped(dropped - state_.dropped());
  eventWindow_.emplace_back(now, batch_.size());
  trim(eventWindow_, now);
  bool changed = !batch_.empty();
  if (sinceStats_.elapsed() >= config_.statsIntervalMs) {
    sinceStats_.restart();
    pollStats();
    changed = true;
  }
  foldNs_.record(static_cast<std::uint64_t>(observe::to_ns(Clock::now() - t0)));
  busy_ = false;
  return changed;
}

void LiveSession::resetTimings() {
  foldNs_.clear();
  lagNs_.clear();
}

LiveSession::Metrics LiveSession::metrics() const {
  Metrics m;
  const TimePoint now = Clock::now();
  m.messagesPerSecond = running() ? perSecond(handledWindow_, now) : 0.0;
  m.eventsPerSecond = running() ? perSecond(eventWindow_, now) : 0.0;
  m.dropped = state_.dropped();
  m.events = state_.events_applied();
  m.alive = state_.alive_count();
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
  const observe::ActorRecord* a = state_.actor(id);
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
