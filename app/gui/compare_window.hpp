// CompareWindow: two recorded sessions side by side — compare mode's window, whether the two were
// just run by a CompareRun or opened from files (File → Compare Recordings…, `actorscope compare
// A.db B.db`). Everything it shows comes from two SessionReaders:
//   - a header per side: file, runtime×threads, scenario, detail, duration, ended cleanly, and its
//     timeline (events over time since start, the replay's TimelineWidget); and a
//     banner that says whether the two ran one after the other or shared the machine (from the
//     sessions' wall-clock spans, so a comparison opened again tomorrow still says it);
//   - each side's actors table (views::ActorsView) at the end of its run, or at a shared cursor in
//     time since start (dragged on either timeline), with a shared selection:
//     picking an actor on one side picks its match (actor_match.hpp: by path, never by id) on the
//     other, and a row of the difference table picks it on both;
//   - overlay charts in the two compare colours with one legend: messages handled per second over
//     time since start, queue-time and handling-time distributions, and the mailbox depth of the
//     selected actor over time;
//   - the per-actor difference table (views::DiffTableModel: storage's RecordingDiff), largest
//     difference first, and the warnings raised on one side only.
//
// "The end of its run": a recording ends with the System's shutdown, which stops every actor; a
// table of stopped actors would show no mailbox, no rate and no warning. So the tables and the
// warnings use the state just before the shutdown began (the first root that stopped for "system
// shutdown", System::shutdown's reason, or a child it killed as it exited), or the session's end when nothing
// was shut down. The difference table and the latency charts use each side's final state, whose counters and
// histograms are complete.
#pragma once

#include "common/actor_selection.hpp"
#include "compare/compare_series.hpp"

#include <actorscope/storage/recording_diff.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <QMainWindow>
#include <QString>

#include <array>
#include <map>
#include <memory>
#include <optional>

class QLabel;
class QTabWidget;
class QTableView;
class QTableWidget;
class QTemporaryDir;

namespace actorscope::views {
class ActorsView;
class CompareLegend;
class DiffTableModel;
class OverlayChart;
class TimelineWidget;
}  // namespace actorscope::views

namespace actorscope::gui {

/// One side to open: a recording and one of its sessions (nullopt: its last session, as
/// `actorscope diff` does).
struct CompareSource {
  QString file;
  std::optional<std::int64_t> session;
};

class CompareWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// Opens both recordings read-only. Throws RecordingError (it names the file) for a bad file or
  /// session.
  CompareWindow(const CompareSource& a, const CompareSource& b, QWidget* parent = nullptr);
  ~CompareWindow() override;

  /// Temporary recordings (a CompareRun's): kept until the window closes, then removed.
  void keepFiles(std::shared_ptr<QTemporaryDir> dir) { temporary_ = std::move(dir); }
  /// Whether side `side`'s recording is a temporary file (then "Save side … as…" keeps it).
  bool isTemporary(int side) const;
  /// Copies side `side`'s recording to `to` (not over an existing file). Returns "" or the error.
  QString saveSide(int side, const QString& to);

  enum Chart { RateChart, QueueChart, HandlingChart, MailboxChart, ChartCount };
  views::OverlayChart* chart(Chart c) const { return charts_.at(static_cast<std::size_t>(c)); }
  views::ActorsView* actorsView(int side) const { return sides_.at(static_cast<std::size_t>(side)).view; }
  views::ActorSelection* selection(int side) const {
    return sides_.at(static_cast<std::size_t>(side)).selection;
  }
  views::DiffTableModel* diffModel() const noexcept { return diffModel_; }
  QTableView* diffTable() const noexcept { return diffTable_; }
  QTableWidget* warningsTable() const noexcept { return warnings_; }
  QTabWidget* tabs() const noexcept { return tabs_; }
  QWidget* chartsPanel() const noexcept { return chartsPanel_; }
  QWidget* actorsPanel() const noexcept { return actorsPanel_; }
  /// Side `side`'s timeline: its events over the longer run's span, and the shared cursor.
  views::TimelineWidget* timeline(int side) const {
    return sides_.at(static_cast<std::size_t>(side)).timeline;
  }
  const std::vector<views::OneSidedWarning>& oneSided() const noexcept { return oneSided_; }
  /// The state the side's table shows (see the header comment), and its session.
  const observe::SystemState& shownState(int side) const {
    return *sides_.at(static_cast<std::size_t>(side)).shown;
  }
  const SessionInfo& info(int side) const { return sides_.at(static_cast<std::size_t>(side)).info; }
  const QString& file(int side) const { return sides_.at(static_cast<std::size_t>(side)).file; }
  /// The actor's path on its side ("" when the session never saw it).
  std::string pathOf(int side, ActorId id) const;
  /// An actor of the side with that path (its latest incarnation in the shown state), or invalid.
  ActorId actorAt(int side, const std::string& path) const;
  /// The two sessions' wall-clock spans overlap: they shared the machine.
  bool ranConcurrently() const noexcept { return concurrent_; }

  /// The shared cursor, in time since each side's start: both actors tables show their side's state
  /// then (a side whose run ended earlier shows its end). Starts at the end of the longer run.
  /// The states follow on the event loop's next turn (moves are coalesced); setTimeNow computes
  /// them at once (tests, screenshots).
  void setTime(Duration sinceStart);
  void setTimeNow(Duration sinceStart);
  Duration time() const noexcept { return time_; }
  /// The longer of the two runs, from start to the shutdown: the cursor's range.
  Duration span() const noexcept { return span_; }

 private:
  struct Side {
    QString file;
    std::unique_ptr<SessionReader> reader;
    SessionInfo info;
    DiffSide diff;  ///< its actors (slots by path) and figures
    std::map<ActorId, std::size_t> slotOf;
    std::unique_ptr<observe::SystemState> final;  ///< at the session's end: every timed message
    std::unique_ptr<observe::SystemState> shown;
    /// The state shown before: kept one step longer, so that the next one is never made at its
    /// address (views key their caches on the state's address).
    std::unique_ptr<observe::SystemState> previous;
    TimePoint runEnd{};  ///< just before the shutdown began
    std::vector<observe::StatsSample> samples;
    views::ActorSelection* selection = nullptr;
    views::ActorsView* view = nullptr;
    QLabel* header = nullptr;
    views::TimelineWidget* timeline = nullptr;
  };

  void openSide(int side, const CompareSource& source);
  QWidget* buildHeader(int side);
  void buildCharts();
  void buildMenus();
  void fillWarnings();
  void onSelected(int side, ActorId id);
  void showMailbox(std::optional<std::size_t> slotA, std::optional<std::size_t> slotB);
  void saveSideFromUser(int side);
  views::TimelineWidget* buildTimeline(int side);
  void applyTime();
  QString sideTitle(int side) const;

  std::array<Side, 2> sides_;
  ActorMatch match_;
  RecordingDiff diff_;
  std::vector<views::OneSidedWarning> oneSided_;
  bool concurrent_ = false;
  bool syncing_ = false;
  Duration time_{};
  Duration span_{};
  Duration computedFor_{-1};
  bool timePending_ = false;
  QLabel* timeLabel_ = nullptr;
  std::shared_ptr<QTemporaryDir> temporary_;

  QLabel* banner_ = nullptr;
  QWidget* actorsPanel_ = nullptr;
  QWidget* chartsPanel_ = nullptr;
  views::CompareLegend* legend_ = nullptr;
  std::array<views::OverlayChart*, ChartCount> charts_{};
  QTabWidget* tabs_ = nullptr;
  views::DiffTableModel* diffModel_ = nullptr;
  QTableView* diffTable_ = nullptr;
  QTableWidget* warnings_ = nullptr;
};

}  // namespace actorscope::gui
