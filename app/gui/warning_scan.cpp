// Where a recording's warnings begin (warning_scan.hpp).
#include "gui/warning_scan.hpp"

#include <actorscope/storage/recording_error.hpp>

#include <QMetaObject>

#include <algorithm>
#include <chrono>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace actorscope::gui {
namespace {

/// Gives the calling thread the lowest CPU priority: it runs on what other threads leave, and is
/// not starved outright (CFS still gives it a small share). On Linux a thread's nice value is its
/// own; elsewhere this does nothing.
void yieldToOtherPrograms() {
#if defined(__linux__)
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);
#endif
}

}  // namespace

std::string WarningMark::label() const {
  std::string who = actorName.empty() ? std::string() : ": " + actorName;
  return std::string(views::warningTitle(warning.kind)) + who + " — " + warning.summary;
}

Duration WarningScan::stepFor(Duration span) {
  constexpr Duration kFinest = std::chrono::milliseconds(100);
  constexpr std::int64_t kMostSteps = 2000;
  return std::max<Duration>(kFinest, span / kMostSteps);
}

WarningScan::WarningScan(const SessionReader& reader, std::int64_t session, Duration step,
                         views::WarningThresholds thresholds)
    : reader_(reader),
      session_(session),
      step_(std::max<Duration>(step, std::chrono::milliseconds(1))),
      thresholds_(std::move(thresholds)) {}

bool WarningScan::scanTo(TimePoint to, const std::atomic<bool>& cancel,
                         const std::function<void(TimePoint)>& progress) {
  TimePoint t;
  if (!reached_) {
    const SessionInfo info = reader_.session(session_);
    t = info.start_time;
    reader_.prefix_at(session_, t, state_, point_);
    judge(t);
    t += step_;
  } else {
    t = *reached_ + step_;
  }
  // Every step, and `to` itself: a span shorter than a step is still judged at its end.
  while (*reached_ < to) {
    if (cancel.load(std::memory_order_relaxed)) return false;
    t = std::min(t, to);
    // And at each failure within the step (the first few): a restart storm can begin and end
    // between two steps (its supervisor stopped), and it begins at a failure.
    std::vector<TimePoint> failures;
    for (const TimelineMarker& m : reader_.markers(session_, *reached_, t, kMaxFailuresPerStep))
      if (m.kind == TimelineMarker::Kind::failure && m.time > *reached_ && m.time < t)
        failures.push_back(m.time);
    std::sort(failures.begin(), failures.end());
    failures.erase(std::unique(failures.begin(), failures.end()), failures.end());
    for (TimePoint f : failures) {
      reader_.advance(session_, state_, point_, f);
      judge(f);
    }
    reader_.advance(session_, state_, point_, t);
    judge(t);
    if (progress) progress(t);
    t += step_;
  }
  return true;
}

void WarningScan::judge(TimePoint t) {
  reached_ = t;
  std::set<std::tuple<views::WarningKind, ActorId, std::uint64_t>> now;
  for (views::Warning& w : views::lint(state_, thresholds_)) {
    const auto key = w.key();
    now.insert(key);
    if (holding_.count(key) != 0) continue;  // it began before: marked then
    if (marks_.size() >= kMaxMarks) {
      truncated_ = true;
      continue;
    }
    WarningMark mark{t, std::move(w), {}};
    if (const observe::ActorRecord* a = state_.actor(mark.warning.actor)) mark.actorName = a->name;
    marks_.push_back(std::move(mark));
  }
  holding_ = std::move(now);
}

WarningScanJob::WarningScanJob(QString file, std::int64_t session, Duration step, QObject* parent)
    : QObject(parent), file_(std::move(file)), session_(session), step_(step) {}

WarningScanJob::~WarningScanJob() {
  cancel_.store(true);
  if (thread_.joinable()) thread_.join();
}

void WarningScanJob::scanTo(TimePoint to, bool yielding) {
  if (running_ || failed_) return;
  if (reached_ && to <= *reached_) {  // nothing new to judge
    emit done();
    return;
  }
  if (thread_.joinable()) thread_.join();  // the last run has posted its end, and is ending
  running_ = true;
  thread_ = std::thread([this, to, yielding] { run(to, yielding); });
}

void WarningScanJob::run(TimePoint to, bool yielding) {
  if (yielding) yieldToOtherPrograms();
  // Everything below runs on the scan's thread; what the GUI sees is posted to the owner's thread
  // (a functor queued on `this`, dropped if the job is destroyed first).
  const auto post = [this](auto&& f) {
    QMetaObject::invokeMethod(this, std::forward<decltype(f)>(f), Qt::QueuedConnection);
  };
  try {
    if (!reader_) {
      reader_ = std::make_unique<SessionReader>(file_.toStdString());
      scan_ = std::make_unique<WarningScan>(*reader_, session_, step_);
    }
    std::size_t sent = scan_->marks().size();
    auto lastReport = std::chrono::steady_clock::now();
    const auto flush = [&](TimePoint reached) {
      std::vector<WarningMark> fresh(scan_->marks().begin() + static_cast<std::ptrdiff_t>(sent),
                                     scan_->marks().end());
      sent = scan_->marks().size();
      post([this, fresh = std::move(fresh), reached] {
        if (!fresh.empty()) emit found(fresh);
        emit progress(reached);
      });
    };
    const bool finished = scan_->scanTo(to, cancel_, [&](TimePoint reached) {
      // A batch about four times a second: marks appear while the scan goes on.
      if (const auto now = std::chrono::steady_clock::now();
          now - lastReport >= std::chrono::milliseconds(250)) {
        lastReport = now;
        flush(reached);
      }
    });
    if (!finished) return;  // cancelled: the job is being destroyed
    flush(*scan_->reached());
    post([this, reached = *scan_->reached(), truncated = scan_->truncated()] {
      running_ = false;
      reached_ = reached;
      truncated_ = truncated;
      emit done();
    });
  } catch (const std::exception& e) {
    // A damaged, removed or locked file: the other views say so too; the marks found so far stay.
    post([this, why = QString::fromUtf8(e.what())] {
      running_ = false;
      failed_ = true;
      emit failed(why);
    });
  }
}

}  // namespace actorscope::gui
