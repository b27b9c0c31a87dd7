// Compare mode: a comparison runs both sides (asio against qt, asio×1 against asio×2, one after the
// other or at the same time), reports each side's start, progress and end in order, records each
// into a readable file, and can be cancelled; a configuration that cannot run is refused with the
// value and the choices. The compare window on two recordings lists the per-actor differences,
// maps a selection to the matching actor by path (never by id), lists the warnings raised on one
// side only, moves both tables to a shared time since start, names a bad file, and changes no
// byte of either recording. The main window offers both entry points, the launcher runs a
// comparison into temporary files that go with the window (Save side A as… keeps one), and the
// dialog gives what was chosen. `actorscope compare` refuses bad input with exit code 2 and a
// message that names it, and a bad recording with exit code 1.
// Waits use QSignalSpy/QTRY_* with generous deadlines; no sleeps.
#include "cli_run.hpp"
#include "recording_test.hpp"

#include "gui/builtin_workloads.hpp"
#include "gui/compare_dialogs.hpp"
#include "gui/compare_run.hpp"
#include "gui/compare_window.hpp"
#include "gui/main_window.hpp"

#include "cli/args.hpp"
#include "cli/compare_command.hpp"

#include "actors/actors_view.hpp"
#include "compare/diff_table_model.hpp"
#include "compare/overlay_chart.hpp"
#include "timeline/timeline_widget.hpp"
#include "warnings/warning_rules.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace recording_test;
using namespace cli_run;
namespace gui = actorscope::gui;

namespace {

constexpr int kRunDeadline = 120000;  // ms: two short sides on a loaded 2-core machine, generously

/// "root" with four named workers; worker-1 does the most work, then fails `crashes` times, replaced
/// under root after each failure. With `pad`, an unrelated actor is spawned first, so that every
/// actor of the team has another id than in a recording without it.
void record_team(const std::filesystem::path& file, int crashes, bool pad = false, bool append = false) {
  as::RecorderOptions options{.detail = as::Detail::full, .stats_interval = 5ms, .keyframe_every = 200};
  if (append) options.if_exists = as::RecorderOptions::IfExists::append;
  as::Recorder rec(file, options);
  as::System sys{as::make_runtime("asio", {.threads = 2})};
  sys.attach(rec);
  std::optional<as::ActorRef<int>> padding;
  if (pad) padding = sys.spawn<Tolerant>({.name = "pad"}).value();
  auto root = sys.spawn<Tolerant>({.name = "root"}).value();
  std::vector<as::ActorRef<WorkerMsg>> ws;
  for (int i = 0; i < 4; ++i)
    ws.push_back(sys.spawn_linked<Worker>(root, {.name = "worker-" + std::to_string(i)}).value());
  for (int i = 0; i < 4; ++i)
    for (int n = 0; n < (i == 1 ? 200 : 20); ++n) (void)ws[static_cast<std::size_t>(i)].cast(Add{1});
  for (auto& w : ws) QCOMPARE_GE(w.call(as::rpc<Total>, kTimeout).get().value_or(-1), 0);
  for (int c = 0; c < crashes; ++c) {
    (void)ws[1].cast(Crash{});
    QVERIFY(ws[1].wait(kTimeout));
    if (c + 1 < crashes) ws[1] = sys.spawn_linked<Worker>(root, {.name = "worker-1"}).value();
  }
}

QByteArray hashOf(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

gui::CompareConfig pipeline(const std::string& a, unsigned ta, const std::string& b, unsigned tb,
                            bool concurrent) {
  gui::CompareConfig c;
  c.scenario = "pipeline";
  c.sides[0].runtime = a;
  c.sides[0].threads = ta;
  c.sides[1].runtime = b;
  c.sides[1].threads = tb;
  c.seconds = 1;
  c.concurrent = concurrent;
  return c;
}

}  // namespace

class TestCompare : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString once_, storm_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    once_ = dir_.filePath("once.db");
    storm_ = dir_.filePath("storm.db");
    record_team(once_.toStdString(), 1);
    QVERIFY(!QTest::currentTestFailed());
    // Six failures of worker-1, five replacements: a restart storm at root on this side only.
    record_team(storm_.toStdString(), 6, /*pad=*/true);
    QVERIFY(!QTest::currentTestFailed());
  }

  void a_configuration_that_cannot_run_is_refused_naming_the_value_and_the_choices() {
    const gui::Workloads workloads = gui::builtinWorkloads();
    auto refusal = [&](const gui::CompareConfig& c) -> QString {
      try {
        gui::validateCompareConfig(c, workloads);
      } catch (const gui::CompareError& e) {
        return QString::fromUtf8(e.what());
      }
      return {};
    };
    auto c = pipeline("tokio", 2, "qt", 2, false);
    QString why = refusal(c);
    QVERIFY2(
        why.contains("\"tokio\"") && why.contains("asio") && why.contains("qt") && why.contains("side A"),
        qPrintable(why));
    c = pipeline("asio", 2, "manual", 2, false);
    why = refusal(c);
    QVERIFY2(why.contains("side B") && why.contains("manual") && why.contains("steps it"), qPrintable(why));
    c = pipeline("asio", 0, "qt", 2, false);
    why = refusal(c);
    QVERIFY2(why.contains("1 to 64") && why.contains("not 0"), qPrintable(why));
    c = pipeline("asio", 2, "qt", 2, false);
    c.scenario = "nope";
    why = refusal(c);
    QVERIFY2(why.contains("\"nope\"") && why.contains("pipeline") && why.contains("supervision"),
             qPrintable(why));
    c = pipeline("asio", 2, "qt", 2, false);
    c.sides[0].recordTo = once_;  // exists
    why = refusal(c);
    QVERIFY2(why.contains(once_) && why.contains("already exists"), qPrintable(why));
    c.sides[0].recordTo = c.sides[1].recordTo = dir_.filePath("same.db");
    why = refusal(c);
    QVERIFY2(why.contains("same file"), qPrintable(why));
    c = pipeline("asio", 2, "qt", 2, false);
    c.seconds = 0;
    QVERIFY(!refusal(c).isEmpty());
    // The constructor refuses it too, before anything runs.
    c = pipeline("tokio", 2, "qt", 2, false);
    QVERIFY_THROWS_EXCEPTION(gui::CompareError, gui::CompareRun(c, workloads));
  }

  void both_sides_run_and_finish_in_order_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<int>("ta");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("tb");
    QTest::addColumn<bool>("concurrent");
    QTest::newRow("asio×2 then qt×2") << "asio" << 2 << "qt" << 2 << false;
    QTest::newRow("asio×1 then asio×2") << "asio" << 1 << "asio" << 2 << false;
    QTest::newRow("qt×1 and asio×1 at once") << "qt" << 1 << "asio" << 1 << true;
  }
  void both_sides_run_and_finish_in_order() {
    QFETCH(QString, a);
    QFETCH(int, ta);
    QFETCH(QString, b);
    QFETCH(int, tb);
    QFETCH(bool, concurrent);
    const gui::Workloads workloads = gui::builtinWorkloads();
    gui::CompareConfig config = pipeline(a.toStdString(), static_cast<unsigned>(ta), b.toStdString(),
                                         static_cast<unsigned>(tb), concurrent);
    // Side A is kept where the user asked; side B goes to a temporary file.
    const QString keptA = dir_.filePath(
        QStringLiteral("kept-%1.db").arg(QTest::currentDataTag()).replace("×", "x").replace(' ', '-'));
    config.sides[0].recordTo = keptA;
    gui::CompareRun run(config, workloads);
    QStringList order;
    connect(&run, &gui::CompareRun::sideStarted, this,
            [&](int s) { order << QStringLiteral("start %1").arg(s); });
    connect(&run, &gui::CompareRun::sideFinished, this,
            [&](int s) { order << QStringLiteral("end %1").arg(s); });
    QSignalSpy progress(&run, &gui::CompareRun::sideProgress);
    QSignalSpy failed(&run, &gui::CompareRun::sideFailed);
    QSignalSpy finished(&run, &gui::CompareRun::finished);
    run.start();
    QVERIFY(run.running());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1 || failed.count() > 0, kRunDeadline);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
    QVERIFY(!run.running());
    QCOMPARE(order.size(), 4);
    if (concurrent) {
      QCOMPARE(order.mid(0, 2), QStringList({"start 0", "start 1"}));
    } else {
      // B starts only when A has ended: neither takes the other's cores.
      QCOMPARE(order, QStringList({"start 0", "end 0", "start 1", "end 1"}));
    }
    // Progress reached each side's full time.
    std::array<double, 2> last{};
    for (const auto& p : progress) last[static_cast<std::size_t>(p.at(0).toInt())] = p.at(1).toDouble();
    QCOMPARE(last[0], 1.0);
    QCOMPARE(last[1], 1.0);

    QCOMPARE(run.file(0), QFileInfo(keptA).absoluteFilePath());
    QVERIFY(run.temporaryDir() && run.file(1).startsWith(run.temporaryDir()->path()));
    for (int side = 0; side < 2; ++side) {
      as::SessionReader reader(run.file(side).toStdString());
      const auto sessions = reader.sessions();
      QCOMPARE(sessions.size(), std::size_t(1));
      const as::SessionInfo& info = sessions.front();
      QCOMPARE(QString::fromStdString(info.runtime), side == 0 ? a : b);
      QCOMPARE(static_cast<int>(info.threads), side == 0 ? ta : tb);
      QCOMPARE(info.scenario, std::string("pipeline"));
      QCOMPARE(info.seed, std::optional<std::uint64_t>(1));
      QVERIFY(info.ended_cleanly());
      QCOMPARE(info.detail, as::Detail::sampled);
    }

    // The window on the two: the same actors on both sides, and it says how they ran.
    gui::CompareWindow window({run.file(0), std::nullopt}, {run.file(1), std::nullopt});
    window.keepFiles(run.temporaryDir());
    QVERIFY(window.diffModel()->matchedRows() > 0);
    QCOMPARE(window.diffModel()->rowCount(), window.diffModel()->matchedRows());  // one scenario: all match
    QCOMPARE(window.ranConcurrently(), concurrent);
    const QString banner = window.findChild<QLabel*>("compare-banner")->text();
    QVERIFY2(banner.contains(concurrent ? "at the same time" : "one after the other"), qPrintable(banner));
    QVERIFY(!window.chart(gui::CompareWindow::RateChart)->series(0).empty());
    QVERIFY(!window.chart(gui::CompareWindow::RateChart)->series(1).empty());
    QVERIFY(!window.chart(gui::CompareWindow::QueueChart)->series(0).empty());
    QVERIFY(!window.chart(gui::CompareWindow::HandlingChart)->series(1).empty());
    // The mailbox chart follows the selection, with a line for each side.
    window.selection(1)->select(window.actorAt(1, "pipeline/enrich"));
    QCOMPARE(window.selection(0)->current(), window.actorAt(0, "pipeline/enrich"));
    QCOMPARE(window.chart(gui::CompareWindow::MailboxChart)->toolTip(), QStringLiteral("pipeline/enrich"));
    QVERIFY(!window.chart(gui::CompareWindow::MailboxChart)->series(0).empty());
    QVERIFY(!window.chart(gui::CompareWindow::MailboxChart)->series(1).empty());
    QFile::remove(keptA);
  }

  void the_main_window_offers_compare_and_a_run_opens_the_window_on_temporary_files() {
    gui::MainWindow main(gui::builtinWorkloads(), {.useSettings = false});
    QVERIFY(main.findChild<QAction*>("compare") != nullptr);             // Session → Compare…
    QVERIFY(main.findChild<QAction*>("compare-recordings") != nullptr);  // File → Compare Recordings…
    auto* launcher =
        new gui::CompareLauncher(pipeline("asio", 1, "qt", 1, false), gui::builtinWorkloads(), &main);
    QSignalSpy opened(launcher, &gui::CompareLauncher::opened);
    QSignalSpy failed(launcher, &gui::CompareLauncher::failed);
    launcher->start();
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1 || failed.count() > 0, kRunDeadline);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(0).toString()));
    QPointer<gui::CompareWindow> window = main.findChild<gui::CompareWindow*>();
    QVERIFY(window);
    QVERIFY(window->isVisible());
    QVERIFY(window->isTemporary(0) && window->isTemporary(1));
    const QString a = window->file(0);
    QVERIFY(QFileInfo::exists(a));
    QVERIFY(window->diffModel()->rowCount() > 0);
    // Saving a side keeps a copy; the temporary files go with the window.
    const QString kept = dir_.filePath("saved-side-a.db");
    QCOMPARE(window->saveSide(0, kept), QString());
    QVERIFY(window->saveSide(0, kept).contains("already exists"));  // never over a file
    window->close();
    QTRY_VERIFY_WITH_TIMEOUT(window.isNull(), 20000);
    QVERIFY(!QFileInfo::exists(a));
    QCOMPARE(as::SessionReader(kept.toStdString()).sessions().size(), std::size_t(1));
  }

  void the_compare_dialog_gives_what_was_chosen() {
    gui::CompareDialog dialog(gui::builtinWorkloads(), "storm");
    gui::CompareConfig c = dialog.config();
    QCOMPARE(c.scenario, std::string("storm"));  // the toolbar's scenario to start with
    QCOMPARE(c.sides[0].runtime, std::string("asio"));
    QCOMPARE(c.sides[1].runtime, std::string("qt"));
    QVERIFY(!c.concurrent);
    QVERIFY(c.sides[0].recordTo.isEmpty() && c.sides[1].recordTo.isEmpty());
    dialog.findChild<QComboBox*>("compare-runtime-b")->setCurrentText("asio");
    dialog.findChild<QSpinBox*>("compare-threads-b")->setValue(1);
    dialog.findChild<QDoubleSpinBox*>("compare-seconds")->setValue(2.5);
    dialog.findChild<QCheckBox*>("compare-concurrent")->setChecked(true);
    dialog.findChild<QCheckBox*>("compare-keep")->setChecked(true);
    dialog.findChild<QLineEdit*>("compare-keep-a")->setText(dir_.filePath("a.db"));
    dialog.findChild<QLineEdit*>("compare-keep-b")->setText(dir_.filePath("b.db"));
    c = dialog.config();
    QCOMPARE(c.sides[1].runtime, std::string("asio"));
    QCOMPARE(c.sides[1].threads, 1u);
    QCOMPARE(c.seconds, 2.5);
    QVERIFY(c.concurrent);
    QCOMPARE(c.sides[0].recordTo, dir_.filePath("a.db"));
    QCOMPARE(c.sides[1].recordTo, dir_.filePath("b.db"));
  }

  void compare_recordings_offers_the_sessions_of_a_file_that_holds_several() {
    const QString both = dir_.filePath("both.db");
    QVERIFY(QFile::copy(once_, both));
    record_team(both.toStdString(), 3, false, /*append=*/true);  // session 2
    QVERIFY(!QTest::currentTestFailed());
    gui::CompareRecordingsDialog dialog;
    dialog.setFile(0, both);
    dialog.setFile(1, once_);
    auto* sessionsA = dialog.findChild<QComboBox*>("compare-session-a");
    auto* sessionsB = dialog.findChild<QComboBox*>("compare-session-b");
    QCOMPARE(sessionsA->count(), 2);
    QVERIFY(sessionsA->isEnabled());  // a choice to make
    QCOMPARE(sessionsB->count(), 1);
    QVERIFY(!sessionsB->isEnabled());  // nothing to choose
    auto sources = dialog.sources();
    QCOMPARE(sources[0].session, std::optional<std::int64_t>(2));  // the last, as `actorscope diff` takes
    sessionsA->setCurrentIndex(0);
    sources = dialog.sources();
    QCOMPARE(sources[0].file, both);
    QCOMPARE(sources[0].session, std::optional<std::int64_t>(1));
    // Session 1 of both.db is once.db's session: compared with once.db, no differences.
    gui::CompareWindow window(sources[0], sources[1]);
    QCOMPARE(window.diffModel()->diff().differing(), std::size_t(0));
  }

  void a_cancelled_comparison_closes_its_recording_and_starts_no_more() {
    gui::CompareConfig config = pipeline("asio", 2, "qt", 2, false);
    config.seconds = 600;  // cancelled long before
    gui::CompareRun run(config, gui::builtinWorkloads());
    QSignalSpy started(&run, &gui::CompareRun::sideStarted);
    QSignalSpy cancelled(&run, &gui::CompareRun::cancelled);
    QSignalSpy finished(&run, &gui::CompareRun::finished);
    run.start();
    QVERIFY(started.wait(kRunDeadline));
    run.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kRunDeadline);
    QCOMPARE(started.count(), 1);  // side B never started
    QCOMPARE(finished.count(), 0);
    as::SessionReader reader(run.file(0).toStdString());
    QVERIFY(reader.sessions().front().ended_cleanly());
  }

  void the_window_lists_differences_maps_the_selection_by_path_and_one_sided_warnings() {
    const QByteArray beforeA = hashOf(once_), beforeB = hashOf(storm_);
    {
      gui::CompareWindow window({once_, std::nullopt}, {storm_, std::nullopt});
      // The worker that failed more is the first row; "pad" is on B only.
      QVERIFY(window.diffModel()->rowCount() > 0);
      QCOMPARE(window.diffModel()->diff().rows.front().path, std::string("root/worker-1"));
      QCOMPARE(window.diffModel()->onlyIn(window.diffModel()->rowCount() - 1), QStringLiteral("B"));

      // Picking worker-2 on A picks worker-2 on B: another id (B spawned "pad" first), same path.
      const as::ActorId a2 = window.actorAt(0, "root/worker-2");
      const as::ActorId b2 = window.actorAt(1, "root/worker-2");
      QVERIFY(a2.is_valid() && b2.is_valid());
      QVERIFY(a2 != b2);
      window.selection(0)->select(a2);
      QCOMPARE(window.selection(1)->current(), b2);
      // And back the other way, for the root.
      window.selection(1)->select(window.actorAt(1, "root"));
      QCOMPARE(window.selection(0)->current(), window.actorAt(0, "root"));
      QCOMPARE(window.pathOf(0, window.selection(0)->current()), std::string("root"));
      // An actor that exists on one side only clears the other side's selection.
      window.selection(1)->select(window.actorAt(1, "pad"));
      QVERIFY(!window.selection(0)->current().is_valid());
      // A row of the difference table picks its actor on both sides; a one-sided row on its side.
      auto* diffView = window.diffTable();
      diffView->setCurrentIndex(diffView->model()->index(0, 0));
      QCOMPARE(window.selection(0)->current(), window.actorAt(0, "root/worker-1"));
      QCOMPARE(window.selection(1)->current(), window.actorAt(1, "root/worker-1"));
      diffView->setCurrentIndex(diffView->model()->index(diffView->model()->rowCount() - 1, 0));
      QCOMPARE(window.selection(1)->current(), window.actorAt(1, "pad"));
      QVERIFY(!window.selection(0)->current().is_valid());
      // The mailbox chart follows the selection.
      window.selection(0)->select(window.actorAt(0, "root/worker-2"));
      QCOMPARE(window.chart(gui::CompareWindow::MailboxChart)->toolTip(), QStringLiteral("root/worker-2"));

      // The restart storm at root happened on B only, and is listed as such.
      bool storm = false;
      for (const auto& w : window.oneSided())
        if (w.warning.kind == as::views::WarningKind::restart_storm) {
          QCOMPARE(w.side, 1);
          QCOMPARE(w.path, std::string("root"));
          storm = true;
        }
      QVERIFY(storm);
      // Both tables show the run before its shutdown: the team alive, worker-1's last incarnation gone.
      for (int side = 0; side < 2; ++side) {
        const auto* root = window.shownState(side).actor(window.actorAt(side, "root"));
        QVERIFY(root != nullptr && root->alive());
        QVERIFY(window.shownState(side).actor(window.actorAt(side, "root/worker-2"))->alive());
      }
      QCOMPARE(window.warningsTable()->rowCount(), static_cast<int>(window.oneSided().size()));
      QVERIFY(window.warningsTable()->item(0, 0)->text().startsWith("B"));

      // The shared time cursor: both tables go back to the same time since start, then to the end.
      QCOMPARE(window.time(), window.span());
      const as::Duration early = window.span() / 10;
      window.setTimeNow(early);
      for (int side = 0; side < 2; ++side) {
        QVERIFY(window.shownState(side).time() <= window.info(side).start_time + early);
        QVERIFY(window.shownState(side).actor(window.actorAt(side, "root/worker-1")) == nullptr ||
                window.shownState(side).actor(window.actorAt(side, "root/worker-1"))->alive());
      }
      QCOMPARE(window.chart(gui::CompareWindow::RateChart)->cursor(),
               std::optional<double>(std::chrono::duration<double>(early).count()));
      // Each side's timeline shows the cursor at that time since its own start, and a drag on
      // either moves both.
      for (int side = 0; side < 2; ++side)
        QCOMPARE(window.timeline(side)->cursor(), window.info(side).start_time + early);
      QVERIFY(!window.timeline(1)->markers().empty());  // B's failures and restarts are marked
      emit window.timeline(1)->cursorDragged(window.info(1).start_time + early * 2);
      QTRY_COMPARE_WITH_TIMEOUT(window.timeline(0)->cursor(), window.info(0).start_time + early * 2, 20000);
      QCOMPARE(window.time(), early * 2);
      window.setTime(window.span());  // coalesced: the state follows on the next turn
      QTRY_VERIFY_WITH_TIMEOUT(window.shownState(1).actor(window.actorAt(1, "root")) != nullptr &&
                                   window.shownState(1).actor(window.actorAt(1, "root"))->child_failures == 6,
                               20000);
      QVERIFY(!window.chart(gui::CompareWindow::RateChart)->cursor().has_value());

      // A recording compared with itself: no differences, no one-sided warnings.
      gui::CompareWindow self({once_, std::nullopt}, {once_, std::nullopt});
      QCOMPARE(self.diffModel()->diff().differing(), std::size_t(0));
      QVERIFY(self.oneSided().empty());
    }
    QCOMPARE(hashOf(once_), beforeA);  // a recording is user data: comparing it never changes a byte
    QCOMPARE(hashOf(storm_), beforeB);
  }

  void a_bad_file_on_either_side_is_named() {
    const QString missing = dir_.filePath("missing.db");
    const QString text = dir_.filePath("notes.db");
    { std::ofstream(text.toStdString()) << "not a database, just notes\n"; }
    for (const auto& [a, b, named] : {std::tuple{missing, once_, missing}, std::tuple{once_, text, text}}) {
      const auto error = error_of([&] { gui::CompareWindow w({a, std::nullopt}, {b, std::nullopt}); });
      QVERIFY(error.has_value());
      QVERIFY2(QString::fromUtf8(error->what()).contains(named), error->what());
    }
    const auto noSession = error_of([&] { gui::CompareWindow w({once_, 7}, {once_, std::nullopt}); });
    QVERIFY(noSession.has_value());
    QCOMPARE(noSession->kind(), as::RecordingError::Kind::no_such_session);
  }

  void the_command_line_refuses_bad_input_naming_it() {
    namespace cli = actorscope::cli;
    auto refusal = [](std::vector<std::string> args) -> QString {
      try {
        cli::parse_compare(std::move(args));
      } catch (const cli::ArgError& e) {
        return QString::fromUtf8(e.what());
      }
      return {};
    };
    QString why = refusal({"--scenario", "nope", "--runtime", "asio,qt"});
    QVERIFY2(why.contains("\"nope\"") && why.contains("pipeline"), qPrintable(why));
    why = refusal({"--scenario", "pipeline", "--runtime", "asio,tokio"});
    QVERIFY2(why.contains("\"tokio\"") && why.contains("asio or qt"), qPrintable(why));
    why = refusal({"--scenario", "pipeline", "--runtime", "asio"});
    QVERIFY2(why.contains("asio,qt") && why.contains("not 1"), qPrintable(why));
    why = refusal({"--scenario", "pipeline", "--runtime", "asio,qt", "--threads", "2,0"});
    QVERIFY2(why.contains("1 to 64") && why.contains("\"0\""), qPrintable(why));
    why = refusal({"--scenario", "pipeline", "--runtime", "asio,qt", "--record-a", once_.toStdString()});
    QVERIFY2(why.contains(once_) && why.contains("already exists"), qPrintable(why));
    why = refusal({"--runtime", "asio,qt"});
    QVERIFY2(why.contains("--scenario is required"), qPrintable(why));
    why = refusal({once_.toStdString()});
    QVERIFY2(why.contains("two recordings"), qPrintable(why));
    why = refusal({once_.toStdString(), storm_.toStdString(), "--runtime", "asio,qt"});
    QVERIFY2(why.contains("as they were recorded"), qPrintable(why));
    why = refusal({"--scenario", "pipeline", "--runtime", "asio,qt", "--session", "2"});
    QVERIFY2(why.contains("--session goes with two recordings"), qPrintable(why));

    // What parses: both forms.
    const auto run = cli::parse_compare({"--scenario", "pipeline", "--runtime", "asio,asio", "--threads",
                                         "1,2", "--seconds", "1.5", "--concurrent"});
    QCOMPARE(run.runtime_a, std::string("asio"));
    QCOMPARE(run.threads_a, 1u);
    QCOMPARE(run.threads_b, 2u);
    QCOMPARE(run.seconds, 1.5);
    QVERIFY(run.concurrent);
    const auto files =
        cli::parse_compare({once_.toStdString(), storm_.toStdString(), "--session", "1", "--session", "1"});
    QCOMPARE(files.files.size(), std::size_t(2));
    QCOMPARE(files.session_b, std::int64_t(1));

    // Through the real executable: a usage mistake is exit code 2, and the message names it.
    const Run r = run_actorscope({"compare", "--scenario", "pipeline", "--runtime", "asio,tokio"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("tokio"), qPrintable(describe(r)));
    // A bad recording: exit code 1, and the message names the file.
    const QString missing = dir_.filePath("no-such.db");
    const Run bad = run_actorscope({"compare", once_, missing});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.err.contains(missing), qPrintable(describe(bad)));
    const Run shot = run_actorscope({"--screenshot", dir_.filePath("shots"), "--compare", "asio"});
    QCOMPARE(shot.code, 2);
    QVERIFY2(shot.err.contains("--compare asio,qt"), qPrintable(describe(shot)));
    const Run help = run_actorscope({"help", "compare"});
    QVERIFY2(help.code == 0 && help.out.contains("--concurrent"), qPrintable(describe(help)));
  }
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
