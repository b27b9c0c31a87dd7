// LiveSession: a running System observed for the views. Engine threads only write events into an
// EventCollector; a QTimer on the UI thread drains it at most ~30 times a second (every event since
// the last drain, in one batch); a thread of its own polls the exact per-actor counters every
// 100 ms (StatsPoller + StatsBucketer); the UI thread pushes both into an observe::StateFeed (the
// same ordering, hold-back and drop rules as the recorder and replay), folds a few ms at a time,
// and emits updated() once per batch. It adapts the message sampling to the message rate,
// and carries out the views' actor actions (stop, kill, demo message) on the System.
#pragma once

#include "gui/session.hpp"
#include "gui/workload.hpp"

#include "common/actor_selection.hpp"

#include <actorscope/observe/event_collector.hpp>
#include <actorscope/observe/histogram.hpp>
#include <actorscope/observe/state_feed.hpp>
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/observe/system_state.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/system.hpp>

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace actorscope::gui {

/// A session could not start (unknown runtime, a workload that failed to spawn). what() is for users.
class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SessionConfig {
  std::string runtime = "asio";
  unsigned threads = 2;
  std::uint64_t seed = 1;
  /// One message in this many (per receiving actor) becomes a sent/handled event pair for the
  /// message flow and the latency histograms, to start with: sparse, so that a busy system does not
  /// flood the UI before the first adaptation (0.5 s in) has measured its rate. Counters stay
  /// exact whatever it is.
  std::uint32_t sampleEvery = 4096;
  /// Adapt the sampling so that the UI takes about `eventBudget` events a second: a quiet system
  /// shows every message, a system handling millions a second shows a steady sample of them.
  bool adaptiveSampling = true;
  double eventBudget = 12000;
  /// Queue and handling times (the histograms, the inspector's busy times). Only the sampled
  /// messages are timed (Interest::time_sampled_only): the clock reads follow the sampling, which
  /// the adaptive sampling keeps near `eventBudget`, so timing never has to pause however busy the
  /// system is.
  bool timing = true;
  /// How often the UI takes the collected events: 33 ms is at most ~30 updates a second.
  int drainIntervalMs = 33;
  int statsIntervalMs = 100;
  /// The most a pump folds for before it leaves the rest to the next one.
  int foldBudgetMs = 8;
};

class LiveSession : public Session, public views::ActorControl, private observe::StateFeed::Sink {
  Q_OBJECT
 public:
  explicit LiveSession(QObject* parent = nullptr);
  ~LiveSession() override;

  /// Stops any running session, then starts `workload` on a new System. Throws SessionError.
  void start(const Workload& workload, const SessionConfig& config);
  /// Shuts the System down (stopping every actor), folds the last events, and keeps the final
  /// picture on show. Does nothing when not running.
  void stop();
  bool running() const noexcept { return system_ != nullptr; }

  const observe::SystemState& state() const noexcept override { return feed_.state(); }
  const SessionConfig& config() const noexcept { return config_; }
  const Workload* workload() const noexcept { return running() ? &workload_ : nullptr; }
  /// The running System (nullptr when stopped), for the recorder.
  System* system() const noexcept { return system_.get(); }

  // Session (the window's side of it; the banner is for replays, so a live session shows none)
  bool isLive() const override { return true; }
  QString title() const override {
    return running() ? QStringLiteral("%1 on %2").arg(QString::fromStdString(workload_.name),
                                                       QString::fromStdString(config_.runtime))
                     : QString();
  }
  QString banner() const override { return {}; }
  views::ActorControl* control() override { return this; }

  // -- recording (the toolbar's record toggle) --
  /// Starts writing the running session to `file` through a Recorder (sampled detail, at the
  /// sampling the views use now). `replace`: overwrite an existing file (the user confirmed);
  /// otherwise an existing file is refused. Throws SessionError with the recorder's message.
  void startRecording(const std::string& file, bool replace);
  /// Ends the recording: the file is complete and closed. Stopping the session ends it too.
  void stopRecording();
  bool recording() const noexcept { return recorder_ != nullptr; }
  std::string recordingFile() const;
  /// Events written and dropped so far (nullopt when not recording).
  std::optional<Recorder::Progress> recordingProgress() const;

  struct Metrics {
    double messagesPerSecond = 0;  ///< handled, all actors, over the last second (exact counters)
    double eventsPerSecond = 0;    ///< observation events taken, over the last second
    std::uint64_t dropped = 0;     ///< events the engine could not hand over (full buffers)
    std::uint64_t events = 0;      ///< events folded in this session
    std::size_t alive = 0;
    std::uint64_t handled = 0;     ///< messages handled in this session
  };
  Metrics metrics() const;

  /// The message sampling in force now (see SessionConfig::sampleEvery).
  std::uint32_t sampleEvery() const noexcept { return sampleEvery_; }
  /// Whether the sampled messages' queue and handling times are measured (SessionConfig::timing).
  bool timingActive() const noexcept { return config_.timing; }
  /// How long each fold took (ns), and how old events were when folded (ns): the event lag.
  const observe::LogHistogram& foldTimes() const noexcept { return foldNs_; }
  const observe::LogHistogram& eventLag() const noexcept { return lagNs_; }
  void resetTimings();
  /// The last pump's wall time and the UI thread's CPU time for it (ns).
  std::uint64_t lastPumpNs() const noexcept { return lastPumpNs_; }
  std::uint64_t lastPumpCpuNs() const noexcept { return lastPumpCpuNs_; }

  /// Runs one drain-and-fold now (what the timer does). Returns whether anything changed. The fold
  /// works for at most `SessionConfig::foldBudgetMs`; what is left (a burst of events, a poll of
  /// 10,000 actors) waits for the next pump, so that no frame takes long.
  bool pump();

  // views::ActorControl
  bool canControl(ActorId id) const override;
  void stopActor(ActorId id) override;
  void killActor(ActorId id) override;
  QString demoMessageName(ActorId id) const override;
  void sendDemoMessage(ActorId id) override;

 signals:
  // updated() (Session's): a new batch was folded into state().
  void started();
  void stopped();
  /// Recording started or ended.
  void recordingChanged(bool recording);
  /// Something the user should know (a demo message that could not be delivered, ...).
  void message(const QString& text);

 private:
  std::optional<ActorCell> cellOf(ActorId id) const;
  /// Polls the exact counters now (on the calling thread) and queues their samples.
  void pollStats();
  void startStatsThread();
  void stopStatsThread();
  std::unique_ptr<observe::EventCollector> makeCollector(std::uint32_t sampleEvery) const;
  /// Hands the stats thread's polls to the feed (counting what they handled, for the rates).
  void takePolls();
  /// Every event the engine could not hand over so far, over all the collectors of the session
  /// (without a new collector's drops of its view of the present, which only repeated it).
  std::uint64_t droppedTotal() const;
  observe::StateFeed makeFeed() const;
  /// Replaces the collector by one that samples one message in `every` (with or without timing).
  void resample(std::uint32_t every);
  void adaptSampling();

  // observe::StateFeed::Sink: the lag of each folded event.
  void on_event(observe::Event& event) override;
  void on_poll(TimePoint, std::span<const observe::StatsSample>, std::uint64_t) override {}

  SessionConfig config_;
  Workload workload_;
  std::unique_ptr<System> system_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<observe::EventCollector> collector_;
  std::unique_ptr<observe::StatsPoller> poller_;
  observe::StatsBucketer bucketer_;  ///< used by the stats thread while it runs
  observe::FactoryBucketer factory_bucketer_;  ///< likewise, for the factories
  // The stats thread polls every statsIntervalMs (a poll of 10,000 actors costs a few ms: off the
  // UI thread) and hands the samples over; pump() folds them.
  std::thread statsThread_;
  std::mutex statsM_;
  std::condition_variable statsCv_;
  bool statsStop_ = false;
  struct Poll {
    TimePoint time{};
    std::vector<observe::StatsSample> samples;
    std::vector<observe::FactorySample> factories;
    std::uint64_t handled = 0;  ///< the sum of the samples' handled
  };
  std::vector<Poll> statsReady_;  ///< guarded by statsM_
  /// Everything drained and polled goes through the feed; a backlog it cannot fold in time sheds
  /// message events (counted as dropped), never lifecycle ones.
  observe::StateFeed feed_;
  std::vector<observe::Event> batch_;
  TimePoint foldNow_{};  ///< the pump's clock, for the lag of the events it folds
  QTimer timer_;
  bool busy_ = false;

  // Rates over the last second: (time, count) per drain or poll.
  std::deque<std::pair<TimePoint, std::uint64_t>> handledWindow_;
  std::deque<std::pair<TimePoint, std::uint64_t>> eventWindow_;
  std::uint64_t handledTotal_ = 0;
  observe::LogHistogram foldNs_;
  observe::LogHistogram lagNs_;

  std::uint64_t lastPumpNs_ = 0;
  std::uint64_t lastPumpCpuNs_ = 0;
  std::uint32_t sampleEvery_ = 1;
  bool adaptedOnce_ = false;
  std::uint64_t droppedBefore_ = 0; ///< drops counted by collectors replaced since the start
  std::uint64_t ignoredDrops_ = 0;  ///< drops of a new collector's view of the present (repeats)
  QElapsedTimer sinceAdapt_;
  TimePoint startedAt_{};
};

}  // namespace actorscope::gui
