// The live session: System + EventCollector + StatsPoller, folded on the UI thread.
#include "gui/live_session.hpp"

#include <actorscope/runtime.hpp>

#include <QCoreApplication>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

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
  sampleEvery_ = std::max(1u, config.sampleEvery);
  seq_ = 0;
  droppedBefore_ = 0;
  offeredAtAdapt_ = 0;
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
  sinceStats_.start();
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
  system_->shutdown(std::chrono::seconds(5));
  // Everything the actors did is in the buffers now: take it all, and the final counters.
  batch_.clear();
  collector_->drain(batch_, true);
  fold(batch_, false);
  pollStats();
  state_.add_dropped(droppedBefore_ + collector_->dropped() - state_.dropped());
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
  for (const auto& e : batch_)  // runtime clocks are steady_clock on the real runtimes: the event's age
    if (e.time <= now && e.time != TimePoint{}) lagNs_.record(static_cast<std::uint64_t>(observe::to_ns(now - e.time)));
  fold(batch_, false);
  if (const std::uint64_t dropped = droppedBefore_ + collector_->dropped(); dropped > state_.dropped())
    state_.add_dropped(dropped - state_.dropped());
  eventWindow_.emplace_back(now, batch_.size());
  trim(eventWindow_, now);
  bool changed = !batch_.empty();
  if (sinceStats_.elapsed() >= config_.statsIntervalMs) {
    sinceStats_.restart();
    pollStats();
    changed = true;
  }
  if (config_.adaptiveSampling && sinceAdapt_.elapsed() >= 250) adaptSampling();
  foldNs_.record(static_cast<std::uint64_t>(observe::to_ns(Clock::now() - t0)));
  busy_ = false;
  return changed;
}

std::unique_ptr<observe::EventCollector> LiveSession::makeCollector(std::uint32_t every) const {
  observe::EventCollector::Options options;
  options.interest = {.messages = true, .timing = config_.timing, .type_names = true, .sample_every = every};
  options.per_thread_capacity = 16384;
  return std::make_unique<observe::EventCollector>(options);
}

void LiveSession::fold(std::vector<observe::Event>& batch, bool dedupe) {
  for (observe::Event& e : batch) {
    if (dedupe && redundant(e)) continue;
    e.seq = ++seq_;
    state_.apply(e);
  }
}

bool LiveSession::redundant(const observe::Event& e) const {
  using K = observe::EventKind;
  const observe::ActorRecord* a = e.actor.is_valid() ? state_.actor(e.actor) : nullptr;
  switch (e.kind) {
    case K::runtime_info: return e.name == state_.runtime() && e.thread == state_.threads();
    case K::spawned: return a != nullptr;
    case K::started: return a != nullptr && a->status >= ActorStatus::running;
    case K::stopped:
    case K::failed:
    case K::killed: return a != nullptr && !a->alive();
    case K::linked: return a != nullptr && a->parent == e.peer;
    case K::name_registered: {
      auto it = state_.registry().find(e.name);
      return it != state_.registry().end() && it->second == e.actor;
    }
    case K::group_joined: {
      for (const auto& [scope, group] : state_.groups_of(e.actor))
        if (scope == e.text && group == e.name) return true;
      return false;
    }
    case K::timer_started: return state_.timers().count(e.trace) != 0;
    default: return false;
  }
}

void LiveSession::adaptSampling() {
  // Message events the engine offered since the last look (taken plus dropped): sampling only
  // changes those; a burst of spawns must not make it sparser.
  using K = observe::EventKind;
  const std::uint64_t offered = state_.events_of(K::message_sent) + state_.events_of(K::message_handled) + state_.dropped();
  const double seconds = static_cast<double>(sinceAdapt_.restart()) / 1000.0;
  const double rate = static_cast<double>(offered - offeredAtAdapt_) / std::max(seconds, 0.001);
  offeredAtAdapt_ = offered;
  std::uint32_t next = sampleEvery_;
  if (rate > config_.eventBudget) {
    // Jump straight to a sampling that fits, in powers of two (rates are steady enough for that).
    while (next < (1u << 20) && rate * sampleEvery_ / next > config_.eventBudget * 0.6) next *= 2;
  } else if (rate < config_.eventBudget / 8 && next > 1) {
    next = std::max(1u, next / 4);
  }
  if (next != sampleEvery_) resample(next);
}

void LiveSession::resample(std::uint32_t every) {
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
  system_->detach(*collector_);
  batch_.clear();
  collector_->drain(batch_, true);
  fold(batch_, false);
  droppedBefore_ += collector_->dropped();
  collector_ = std::move(next);
  fold(held, true);
  sampleEvery_ = every;
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
