// Replaying a recording in the observatory: it opens read-only (the file's bytes are the same after
// as before, and no journal appears beside it), the window says plainly that it is a replay and
// disables the live-only controls, and every bad file (missing, a folder, not SQLite, not a
// recording, a newer format, truncated, locked) gets an error that names the file, in a dialog,
// while the window stays usable. The timeline's controls move the cursor: keys, Home/End, the step
// to the next failure, play. The command line opens recordings too, and takes pictures of a replay.
// Waits use QTRY_* with generous deadlines; no sleeps.
#include "recording_test.hpp"
#include "sqlite_test.hpp"

#include "gui/main_window.hpp"
#include "gui/observatory.hpp"
#include "gui/replay_session.hpp"
#include "gui/timeline_dock.hpp"

#include "causes/cause_chain_view.hpp"
#include "common/actor_selection.hpp"
#include "events/event_log_view.hpp"
#include "flow/message_flow_model.hpp"
#include "flow/message_flow_view.hpp"
#include "inspector/actor_inspector.hpp"
#include "timeline/timeline_widget.hpp"
#include "tree/supervision_tree_view.hpp"

#include <QAction>
#include <QApplication>
#include <QCryptographicHash>
#include <QDialog>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <QUrl>

#include <fstream>

using namespace recording_test;
namespace gui = actorscope::gui;
using Kind = as::RecordingError::Kind;

namespace {

constexpr int kDeadline = 20000;

QByteArray hashOf(const std::filesystem::path& file) {
  QFile f(QString::fromStdString(file.string()));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

/// The file and whatever SQLite could have left beside it.
QByteArray hashWithSidecars(const std::filesystem::path& file) {
  QByteArray all = hashOf(file);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::filesystem::path side = file.string() + suffix;
    all += std::filesystem::exists(side) ? QByteArray(suffix) + hashOf(side) : QByteArray("no") + suffix;
  }
  return all;
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

QString qs(const std::filesystem::path& p) {
  return QString::fromStdString(p.string());
}

}  // namespace

class TestReplay : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path good_;
  WorkloadResult work_;
  as::TimePoint failedAt_{};

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    good_ = path_in(dir_, "good.db");
    {
      as::Recorder rec(good_, {.detail = as::Detail::full,
                               .stats_interval = 2ms,
                               .keyframe_every = 100,
                               .scenario = "replay-test"});
      as::System sys{as::make_runtime("asio", {.threads = 2})};
      sys.attach(rec);
      run_workload(sys, work_);
    }
    if (QTest::currentTestFailed()) return;
    as::SessionReader r(good_);
    const auto failures = r.events(1, {.kinds = {as::observe::EventKind::failed}});
    QCOMPARE(failures.size(), 1u);  // the one crash of the workload
    failedAt_ = failures.front().time;
  }

  void opening_a_recording_replays_it_read_only_and_never_changes_a_byte() {
    const QByteArray before = hashWithSidecars(good_);
    {
      gui::MainWindow window({}, {.useSettings = false});
      window.show();
      QCOMPARE(window.openRecording(qs(good_)), QString());
      gui::ReplaySession* replay = window.replay();
      QVERIFY(replay != nullptr);
      QCOMPARE(&window.current(), static_cast<gui::Session*>(replay));
      // The banner says plainly what is shown.
      const QString banner = window.banner()->text();
      QVERIFY(window.banner()->isVisible());
      for (const char* words :
           {"REPLAY", "good.db", "session 1", "replay-test", "asio", "2 threads", "full", "ended cleanly"})
        QVERIFY2(banner.contains(QLatin1String(words)), qPrintable(banner + " lacks " + words));
      // Live-only controls are off; the timeline is on.
      for (const char* name : {"start", "pause", "stop", "record"})
        QVERIFY2(!window.findChild<QAction*>(QLatin1String(name))->isEnabled(), name);
      window.selection().select(work_.workers[2]);
      QVERIFY(!window.current().control());
      QVERIFY(window.timeline() != nullptr && window.timeline()->isVisible());
      // Scrubbing shows the recorded state at the cursor: the crashed worker is alive before its
      // crash and not after.
      replay->setCursorNow(failedAt_ - 1ns);
      QVERIFY(replay->state().actor(work_.crashed) && replay->state().actor(work_.crashed)->alive());
      replay->setCursorNow(failedAt_);
      QVERIFY(replay->state().actor(work_.crashed) && !replay->state().actor(work_.crashed)->alive());
      QCOMPARE(&window.shownState(), &replay->state());
      replay->setCursorNow(replay->timeRange()->end);
      window.closeRecording();
      QVERIFY(window.replay() == nullptr);
      QVERIFY(window.findChild<QAction*>(QStringLiteral("open-recording"))->isEnabled());
      QCOMPARE(window.recentRecordings().value(0), QFileInfo(qs(good_)).absoluteFilePath());
    }
    QCOMPARE(hashWithSidecars(good_), before);
  }

  void a_file_with_several_sessions_opens_the_one_named_or_is_refused_without_asking() {
    const auto two = path_in(dir_, "two.db");
    std::filesystem::copy_file(good_, two);
    {
      as::Recorder rec(two, {.detail = as::Detail::lifecycle, .scenario = "second"});
      as::System sys{as::make_runtime("asio", {.threads = 1})};
      sys.attach(rec);
      WorkloadResult w;
      run_workload(sys, w, 2, 5, 10);
    }
    gui::MainWindow window({}, {.useSettings = false});
    const QString refused = window.openRecording(qs(two), std::nullopt, /*ask=*/false);
    QVERIFY2(refused.contains(QLatin1String("2 sessions")) && refused.contains(QLatin1String("--session")),
             qPrintable(refused));
    QVERIFY(window.replay() == nullptr);
    QCOMPARE(window.openRecording(qs(two), 2), QString());
    QCOMPARE(window.replay()->sessionId(), 2);
    QVERIFY(window.banner()->text().contains(QLatin1String("second")));
    const QString none = window.openRecording(qs(two), 7);
    QVERIFY2(none.contains(QLatin1String("7")), qPrintable(none));
    QCOMPARE(window.replay()->sessionId(), 2);  // what was shown stays
  }

  void a_dropped_file_opens_and_joins_the_recent_list_which_opens_it_again() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(qs(good_))});
    QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QTRY_VERIFY_WITH_TIMEOUT(window.replay() != nullptr, kDeadline);
    QCOMPARE(window.replay()->file(), qs(good_));
    // File → Open Recent lists it; choosing it opens it again.
    window.closeRecording();
    auto* recent = window.findChild<QMenu*>(QStringLiteral("recent-recordings"));
    QVERIFY(recent != nullptr);
    QAction* entry = nullptr;
    for (QAction* a : recent->actions())
      if (a->data().toString() == QFileInfo(qs(good_)).absoluteFilePath()) entry = a;
    QVERIFY(entry != nullptr);
    entry->trigger();
    QVERIFY(window.replay() != nullptr);
  }

  void the_recent_list_survives_a_restart_and_forgets_what_was_cleared() {
    // The list lives in the user's settings (QSettings; test mode keeps them apart from the
    // user's own): a window made later, as after a restart, lists what an earlier one opened.
    QCoreApplication::setOrganizationName(QStringLiteral("ActorscopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_replay"));
    QSettings().clear();
    const auto other = path_in(dir_, "recent-other.db");
    std::filesystem::copy_file(good_, other, std::filesystem::copy_options::overwrite_existing);
    {
      gui::MainWindow first({}, {.useSettings = true});
      QCOMPARE(first.openRecording(qs(good_)), QString());
      QCOMPARE(first.openRecording(qs(other)), QString());
    }
    gui::MainWindow second({}, {.useSettings = true});
    const QStringList expected{QFileInfo(qs(other)).absoluteFilePath(),
                               QFileInfo(qs(good_)).absoluteFilePath()};
    QCOMPARE(second.recentRecordings(), expected);  // the latest first
    auto* recent = second.findChild<QMenu*>(QStringLiteral("recent-recordings"));
    QVERIFY(recent != nullptr);
    QAction* entry = nullptr;
    for (QAction* a : recent->actions())
      if (a->data().toString() == expected.back()) entry = a;
    QVERIFY(entry != nullptr);
    entry->trigger();
    QVERIFY(second.replay() != nullptr);
    QCOMPARE(QFileInfo(second.replay()->file()).absoluteFilePath(), expected.back());
    // Clear the List is remembered too.
    QAction* clear = nullptr;
    for (QAction* a : recent->actions())
      if (a->text() == QLatin1String("Clear the List")) clear = a;
    QVERIFY(clear != nullptr);
    clear->trigger();
    gui::MainWindow third({}, {.useSettings = true});
    QVERIFY(third.recentRecordings().isEmpty());
  }

  void a_replay_fits_the_default_1366x768_screen() {
    // The replay adds a banner and the timeline over the live layout; the window must still fit
    // a 1366x768 screen with room for a title bar and a panel (48 px).
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    window.showView(QStringLiteral("causes"));
    window.showView(QStringLiteral("query"));
    QString parts;
    for (auto* dock : window.findChildren<QDockWidget*>())
      if (dock->isVisible())
        parts += QStringLiteral(" %1=%2").arg(dock->objectName()).arg(dock->minimumSizeHint().height());
    parts += QStringLiteral(" central=%1").arg(window.centralWidget()->minimumSizeHint().height());
    for (QWidget* w : window.centralWidget()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
      parts += QStringLiteral(" [%1 %2]=%3")
                   .arg(w->metaObject()->className(), w->objectName())
                   .arg(w->minimumSizeHint().height());
    if (auto* tabs = qobject_cast<QTabWidget*>(window.centralWidget()))
      for (int i = 0; i < tabs->count(); ++i)
        parts += QStringLiteral(" tab %1=%2")
                     .arg(tabs->tabText(i))
                     .arg(tabs->widget(i)->minimumSizeHint().height());
    const int height = window.minimumSizeHint().height();
    QVERIFY2(height <= 768 - 48, qPrintable(QStringLiteral("minimum height %1:%2").arg(height).arg(parts)));
  }

  void a_file_with_several_sessions_asks_which_one_in_a_dialog() {
    const auto two = path_in(dir_, "ask.db");
    std::filesystem::copy_file(good_, two);
    {
      as::Recorder rec(two, {.detail = as::Detail::lifecycle, .scenario = "asked-for"});
      as::System sys{as::make_runtime("asio", {.threads = 1})};
      sys.attach(rec);
      WorkloadResult w;
      run_workload(sys, w, 2, 5, 10);
    }
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    int listed = -1;
    // The dialog is modal: answer it from the event loop it runs.
    QTimer::singleShot(0, &window, [&] {
      auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
      QVERIFY(dialog != nullptr);
      auto* list = dialog->findChild<QTreeWidget*>(QStringLiteral("sessions"));
      QVERIFY(list != nullptr);
      listed = list->topLevelItemCount();
      QCOMPARE(list->currentItem()->text(0), QStringLiteral("2"));  // the newest is offered first
      dialog->accept();
    });
    QCOMPARE(window.openRecording(qs(two)), QString());
    QCOMPARE(listed, 2);
    QCOMPARE(window.replay()->sessionId(), 2);
    QVERIFY(window.banner()->text().contains(QLatin1String("asked-for")));
    // Cancelled: nothing changes, and it is no error.
    QTimer::singleShot(0, &window, [] { QApplication::activeModalWidget()->close(); });
    gui::ReplaySession* shown = window.replay();
    QCOMPARE(window.openRecording(qs(two)), QString());
    QCOMPARE(window.replay(), shown);
  }

  void every_bad_file_gets_an_error_naming_it_and_the_window_stays_usable_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("words");
    QTest::newRow("missing") << "missing"
                             << "no such file";
    QTest::newRow("a folder") << "folder"
                              << "folder";
    QTest::newRow("not sqlite") << "text"
                                << "not an SQLite database";
    QTest::newRow("not a recording") << "foreign"
                                     << "not an Actorscope recording";
    QTest::newRow("a newer format") << "newer"
                                    << "newer Actorscope";
    QTest::newRow("truncated") << "truncated"
                               << "shorter than its header says";
    QTest::newRow("locked") << "locked"
                            << "locked by another program";
  }

  void every_bad_file_gets_an_error_naming_it_and_the_window_stays_usable() {
    QFETCH(QString, kind);
    QFETCH(QString, words);
    std::filesystem::path file = path_in(dir_, (kind.toStdString() + ".db").c_str());
    std::filesystem::remove_all(file);
    std::optional<Sqlite> holder;
    if (kind == QLatin1String("folder")) {
      std::filesystem::create_directory(file);
    } else if (kind == QLatin1String("text")) {
      write_bytes(file, "name,phone\nAda,1\n");
    } else if (kind == QLatin1String("foreign")) {
      Sqlite db(file);
      QVERIFY(
          db.exec("CREATE TABLE contacts(name TEXT, phone TEXT); INSERT INTO contacts VALUES ('Ada', '1');"));
    } else if (kind == QLatin1String("newer")) {
      std::filesystem::copy_file(good_, file);
      Sqlite db(file);
      QVERIFY(db.exec("UPDATE meta SET value = '99' WHERE key = 'format_version'"));
    } else if (kind == QLatin1String("truncated")) {
      const std::string bytes = read_bytes(good_);
      write_bytes(file, bytes.substr(0, bytes.size() / 2));
    } else if (kind == QLatin1String("locked")) {
      std::filesystem::copy_file(good_, file);
      holder.emplace(file);
      QVERIFY(holder->exec("BEGIN EXCLUSIVE"));  // another program holds it
    }
    const bool isFile = std::filesystem::is_regular_file(file);
    const QByteArray before = isFile ? hashOf(file) : QByteArray();

    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    // A good replay first: a bad file must leave it on show.
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* shown = window.replay();
    const QString error = window.openRecordingFromUser(qs(file));
    QVERIFY2(error.contains(qs(file)), qPrintable(error));
    QVERIFY2(error.contains(words), qPrintable(error));
    auto* box = qobject_cast<QMessageBox*>(window.lastErrorDialog());
    QVERIFY(box != nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(box->isVisible(), kDeadline);
    QCOMPARE(box->text(), error);
    QCOMPARE(window.replay(), shown);
    box->accept();
    QTRY_VERIFY_WITH_TIMEOUT(window.lastErrorDialog() == nullptr, kDeadline);
    // Still usable: the replay scrubs, another file opens.
    shown->setCursorNow(failedAt_);
    QVERIFY(!shown->state().actors().empty());
    QCOMPARE(window.openRecording(qs(good_)), QString());
    if (holder) QVERIFY(holder->exec("COMMIT"));
    if (isFile)
      QCOMPARE(hashOf(file), before);
    else
      QCOMPARE(std::filesystem::exists(file), kind == QLatin1String("folder"));
  }

  void a_file_locked_while_it_is_replayed_is_said_and_what_is_shown_stays() {
    const auto file = path_in(dir_, "held-later.db");
    std::filesystem::copy_file(good_, file);
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(file)), QString());
    gui::ReplaySession* replay = window.replay();
    replay->setCursorNow(failedAt_);
    const as::observe::SystemState* shown = &replay->state();
    const std::size_t actors = shown->actors().size();
    QSignalSpy failures(replay, &gui::ReplaySession::readFailed);
    Sqlite other(file);
    QVERIFY(other.exec("BEGIN EXCLUSIVE"));  // another program takes the file
    replay->setCursorNow(replay->timeRange()->end);
    QCOMPARE(failures.count(), 1);
    QVERIFY(failures.front().front().toString().contains(QLatin1String("locked")));
    QCOMPARE(&replay->state(), shown);
    QCOMPARE(replay->state().actors().size(), actors);
    QVERIFY(!window.timeline()->stepToFailure(false));  // said in the status bar, no crash
    QVERIFY(other.exec("COMMIT"));
    replay->setCursorNow(replay->timeRange()->end);  // free again
    QVERIFY(&replay->state() != shown);
  }

  // -- the timeline --

  void the_keyboard_moves_the_cursor_and_home_end_jump() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* replay = window.replay();
    gui::TimelineDock* timeline = window.timeline();
    QVERIFY(timeline != nullptr);
    const auto range = *replay->timeRange();
    const as::Duration span = range.end - range.start;
    QWidget* strip = timeline->strip();
    QCOMPARE(replay->cursor(), range.start);
    QTest::keyClick(strip, Qt::Key_Right);
    QCOMPARE(replay->cursor(), range.start + span / 100);
    QTest::keyClick(strip, Qt::Key_Right, Qt::ShiftModifier);
    QCOMPARE(replay->cursor(), range.start + span / 100 + span / 10);
    QTest::keyClick(strip, Qt::Key_Left);
    QCOMPARE(replay->cursor(), range.start + span / 10);
    QTest::keyClick(strip, Qt::Key_End);
    QCOMPARE(replay->cursor(), range.end);
    QTest::keyClick(strip, Qt::Key_Right);  // clamped at the end
    QCOMPARE(replay->cursor(), range.end);
    QTest::keyClick(strip, Qt::Key_Home);
    QCOMPARE(replay->cursor(), range.start);
    // The state follows the cursor on the event loop's next turn: the views show the start.
    QTRY_VERIFY_WITH_TIMEOUT(!replay->pending(), kDeadline);
    QCOMPARE(window.shownState().time() <= range.start + span / 100, true);
  }

  void stepping_to_the_next_failure_lands_on_its_time_and_selects_who_failed() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* replay = window.replay();
    gui::TimelineDock* timeline = window.timeline();
    QVERIFY(timeline->stepToFailure(true));
    QCOMPARE(replay->cursor(), failedAt_);
    QCOMPARE(window.selection().current(), work_.crashed);
    QTRY_VERIFY_WITH_TIMEOUT(!replay->pending(), kDeadline);
    QVERIFY(!replay->state().actor(work_.crashed)->alive());
    // There is no second one, and the way back leads to none before it.
    QVERIFY(!timeline->stepToFailure(true));
    QVERIFY(timeline->note().contains(QLatin1String("No later failure")));
    QCOMPARE(replay->cursor(), failedAt_);
    QVERIFY(!timeline->stepToFailure(false));
    // The failure's marker is on the strip.
    QTRY_VERIFY_WITH_TIMEOUT(!timeline->strip()->markers().empty(), kDeadline);
    bool marked = false;
    for (const auto& m : timeline->strip()->markers())
      marked = marked || (m.kind == as::views::TimelineWidget::Marker::Kind::failure && m.time == failedAt_);
    QVERIFY(marked);
    // Events of the selected actor: the previous one is its own, before the failure.
    QVERIFY(timeline->stepToEvent(false));
    QVERIFY(replay->cursor() < failedAt_);
    const auto before = replay->adjacentEvent(failedAt_, false, work_.crashed);
    QVERIFY(before);
    QCOMPARE(replay->cursor(), before->time);
  }

  void a_restart_storm_is_marked_on_the_timeline_where_it_began() {
    // A supervisor whose child keeps failing and being replaced: six failures, five replacements.
    const auto file = path_in(dir_, "storm.db");
    as::ActorId root;
    std::vector<as::TimePoint> failures;
    {
      as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 2ms, .scenario = "storm-test"});
      as::System sys{as::make_runtime("asio", {.threads = 2})};
      sys.attach(rec);
      auto sup = sys.spawn<Tolerant>({.name = "root"}).value();
      root = sup.id();
      for (int i = 0; i < 6; ++i) {
        auto flaky = sys.spawn_linked<Worker>(sup, {.name = "flaky"}).value();
        (void)flaky.cast(Crash{});
        QVERIFY(flaky.wait(kTimeout));
      }
    }
    as::SessionReader r(file);
    for (const auto& e : r.events(1, {.kinds = {as::observe::EventKind::failed}})) failures.push_back(e.time);
    QCOMPARE(failures.size(), 6u);

    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(file)), QString());
    gui::TimelineDock* timeline = window.timeline();
    QTRY_VERIFY_WITH_TIMEOUT(timeline->warningsScanned(), kDeadline);
    // One storm, about the supervisor, marked at the first judged time after the fifth failure
    // (the rule's threshold): the scan judges every 100 ms of a short recording.
    std::vector<gui::WarningMark> storms;
    for (const auto& w : timeline->warnings())
      if (w.warning.kind == as::views::WarningKind::restart_storm) storms.push_back(w);
    QCOMPARE(storms.size(), 1u);
    QCOMPARE(storms.front().warning.actor, root);
    QCOMPARE(storms.front().actorName, std::string("root"));
    QVERIFY(storms.front().time >= failures[4]);
    QVERIFY(storms.front().time <= failures[4] + 100ms);
    // It is on the strip, hollow beneath the failures, and a click on it selects the supervisor.
    const auto& marks = timeline->strip()->markers();
    const auto it = std::find_if(marks.begin(), marks.end(), [](const auto& m) {
      return m.kind == as::views::TimelineWidget::Marker::Kind::warning;
    });
    QVERIFY(it != marks.end());
    QCOMPARE(it->actor, root);
    QVERIFY(it->label.contains(QLatin1String("restart storm: root")));
    emit timeline->strip()->markerClicked(static_cast<int>(it - marks.begin()));
    QCOMPARE(window.selection().current(), root);
    QTRY_COMPARE_WITH_TIMEOUT(window.replay()->cursor(), storms.front().time, kDeadline);
  }

  void a_recording_without_a_storm_has_no_storm_marker() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->warningsScanned(), kDeadline);
    for (const auto& w : window.timeline()->warnings())
      QVERIFY2(w.warning.kind != as::views::WarningKind::restart_storm, w.label().c_str());
  }

  void the_inspector_asks_why_a_failed_actor_failed_and_the_chain_opens_on_it() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    QVERIFY(window.timeline()->stepToFailure(true));  // selects who failed, at its failure
    QTRY_VERIFY_WITH_TIMEOUT(!window.replay()->pending(), kDeadline);
    auto* inspector =
        qobject_cast<as::views::ActorInspector*>(window.findView(QStringLiteral("inspector"))->widget);
    QVERIFY(inspector != nullptr);
    auto* why = inspector->findChild<QPushButton*>(QStringLiteral("explain"));
    QVERIFY(why != nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(why->isVisibleTo(inspector), kDeadline);
    QCOMPARE(why->text(), QStringLiteral("Why did it fail?"));
    why->click();
    auto* causes =
        qobject_cast<as::views::CauseChainView*>(window.findView(QStringLiteral("causes"))->widget);
    QVERIFY(causes != nullptr);
    QVERIFY(causes->chain().has_value());
    QCOMPARE(causes->chain()->actor, work_.crashed);
    QVERIFY(!causes->chain()->hops.empty());
    QVERIFY(causes->chain()->hops.front().handled.failed);  // the message whose handling threw
    // A live actor has nothing to explain, and a live session offers nothing.
    window.selection().select(work_.root);
    QTRY_VERIFY_WITH_TIMEOUT(!why->isVisibleTo(inspector), kDeadline);
  }

  void play_advances_the_cursor_and_space_pauses() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* replay = window.replay();
    gui::TimelineDock* timeline = window.timeline();
    const auto start = replay->timeRange()->start;
    timeline->setSpeed(0.1);
    QTest::keyClick(timeline->strip(), Qt::Key_Space);
    QVERIFY(timeline->playing());
    QTRY_VERIFY_WITH_TIMEOUT(replay->cursor() > start, kDeadline);
    QTRY_VERIFY_WITH_TIMEOUT(window.shownState().time() > start, kDeadline);  // the views follow it
    QTest::keyClick(timeline->strip(), Qt::Key_Space);
    QVERIFY(!timeline->playing());
    const auto paused = replay->cursor();
    QTest::qWait(0);  // one turn of the event loop: a stopped player moves nothing
    QCOMPARE(replay->cursor(), paused);
    // At 100× a short recording plays to its end and stops there.
    timeline->setSpeed(100);
    timeline->setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(!timeline->playing(), kDeadline);
    QCOMPARE(replay->cursor(), replay->timeRange()->end);
  }

  void cursor_moves_are_coalesced_into_one_state_computation() {
    gui::MainWindow window({}, {.useSettings = false});
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* replay = window.replay();
    QTRY_VERIFY_WITH_TIMEOUT(!replay->pending(), kDeadline);
    QSignalSpy updates(replay, &gui::Session::updated);
    const auto range = *replay->timeRange();
    for (int i = 1; i <= 100; ++i) replay->setCursor(range.start + (range.end - range.start) * i / 200);
    QVERIFY(replay->pending());
    QTRY_VERIFY_WITH_TIMEOUT(!replay->pending(), kDeadline);
    QCOMPARE(updates.count(), 1);
    QCOMPARE(replay->state().time() <= replay->cursor(), true);
    QCOMPARE(replay->cursor(), range.start + (range.end - range.start) / 2);
  }

  void scrubbing_back_and_forth_gives_every_view_a_whole_new_state() {
    // A replay's state is replaced at each step, not folded forward: views that cache what they
    // found in the last one (the tree's record pointers) must see a new state each time, even
    // between two moments with the same actors.
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* replay = window.replay();
    window.showView(QStringLiteral("supervision-tree"));
    window.treeView()->treeView()->expandAll();
    const as::TimePoint a = failedAt_ - 1ns, b = failedAt_ - 2ns;
    const as::observe::SystemState* last = &replay->state();
    for (int i = 0; i < 20; ++i) {
      replay->setCursorNow(i % 2 == 0 ? a : b);
      QVERIFY(&replay->state() != last);
      last = &replay->state();
      for (const auto& v : window.viewList())
        if (v.shown != nullptr) QCOMPARE(v.shown, last);  // no view keeps an older state
    }
    QVERIFY(window.treeView()->treeView()->model()->rowCount() > 0);
  }

  void the_event_log_and_the_message_flow_centre_on_the_cursor() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    gui::ReplaySession* replay = window.replay();
    // The cursor in the middle of the messages (not of the time range: on a loaded machine the
    // workload's phases spread out, and the range's middle can fall seconds away from any message).
    const auto sends = replay->reader().events(1, {.kinds = {as::observe::EventKind::message_sent}});
    QVERIFY(sends.size() > 100);
    const as::TimePoint middle = sends[sends.size() / 2].time;
    // The event log: the events after the cursor are there too, and the cursor's row is the last
    // event at or before it.
    window.showView(QStringLiteral("event-log"));
    replay->setCursorNow(middle);
    auto* log = qobject_cast<as::views::EventLogView*>(window.findView(QStringLiteral("event-log"))->widget);
    QVERIFY(log != nullptr);
    const int row = log->focusRow();
    QVERIFY(row >= 0);
    QVERIFY(row + 1 < log->visibleRows());  // something after the cursor is listed
    const as::TimePoint cursor = replay->cursor();
    QCOMPARE(window.findView(QStringLiteral("event-log"))->shown, &replay->aheadState());
    QVERIFY(replay->aheadState().time() > cursor);
    QVERIFY(replay->state().time() <= cursor);
    // The message flow: the messages around the cursor, as many before it as after it (at most
    // half of what the chart draws on each side).
    window.showView(QStringLiteral("message-flow"));
    auto* flow =
        qobject_cast<as::views::MessageFlowView*>(window.findView(QStringLiteral("message-flow"))->widget);
    const auto shown = flow->model()->range();
    QVERIFY(shown.has_value());
    QVERIFY(shown->first <= cursor && cursor <= shown->second);
    int before = 0, after = 0;
    for (const auto& m : flow->model()->rows()) (m.sent > cursor ? after : before) += 1;
    QVERIFY2(before > 0 && after > 0,
             qPrintable(QStringLiteral("%1 before, %2 after").arg(before).arg(after)));
    QVERIFY(before + after <= flow->model()->maxMessages());
  }

  void selecting_a_range_zooms_the_message_flow_to_it() {
    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(good_)), QString());
    auto* strip = window.timeline()->strip();
    strip->resize(800, 100);
    const auto range = *window.replay()->timeRange();
    // Shift+drag from a quarter to three quarters of the strip.
    const int y = strip->height() - 10;
    const int x0 = static_cast<int>(strip->xAt(range.start + (range.end - range.start) / 4));
    const int x1 = static_cast<int>(strip->xAt(range.start + (range.end - range.start) * 3 / 4));
    QTest::mousePress(strip, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
    QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), strip->mapToGlobal(QPointF(x1, y)), Qt::NoButton,
                     Qt::LeftButton, Qt::ShiftModifier);
    QCoreApplication::sendEvent(strip, &move);
    QTest::mouseRelease(strip, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
    QVERIFY(strip->selection().has_value());
    const auto* flow = window.findView(QStringLiteral("message-flow"));
    QVERIFY(flow != nullptr);
    auto* view = qobject_cast<as::views::MessageFlowView*>(flow->widget);
    QVERIFY(view->model()->range().has_value());
    QCOMPARE(view->model()->range()->first, strip->selection()->first);
    QCOMPARE(window.replay()->cursor(), strip->selection()->second);
  }

  // -- following a recording that is still being written --

  void a_recording_still_being_written_is_followed_and_its_end_is_noticed() {
    const auto file = path_in(dir_, "growing.db");
    QProcess writer;
    writer.start(QStringLiteral(REPLAY_WRITER), {qs(file)});
    QVERIFY(writer.waitForStarted(kDeadline));
    QByteArray said;
    QTRY_VERIFY_WITH_TIMEOUT((said += writer.readAllStandardOutput()).contains("recording"), kDeadline);
    // Its first events are in the file (read as any reader would).
    auto hasEvents = [&] {
      try {
        as::SessionReader r(file);
        const auto sessions = r.sessions();
        return !sessions.empty() && sessions.front().events_recorded > 20;
      } catch (const as::RecordingError&) {
        return false;
      }
    };
    QTRY_VERIFY_WITH_TIMEOUT(hasEvents(), kDeadline);

    gui::MainWindow window({}, {.useSettings = false});
    window.show();
    QCOMPARE(window.openRecording(qs(file)), QString());
    gui::ReplaySession* replay = window.replay();
    QVERIFY(replay->following());
    QVERIFY(replay->atTail());
    QVERIFY2(window.banner()->text().contains(QLatin1String("still being written")),
             qPrintable(window.banner()->text()));
    QCOMPARE(replay->cursor(), replay->timeRange()->end);
    // The right edge moves, and the views follow the tail.
    const as::TimePoint end0 = replay->timeRange()->end;
    QTRY_VERIFY_WITH_TIMEOUT(replay->timeRange()->end > end0, kDeadline);
    QTRY_VERIFY_WITH_TIMEOUT(window.shownState().time() > end0, kDeadline);
    QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->strip()->end() > end0, kDeadline);
    // Scrubbed back, the cursor stays where it was put while the recording goes on.
    const as::TimePoint back = replay->timeRange()->start + (end0 - replay->timeRange()->start) / 2;
    replay->setCursor(back);
    QVERIFY(!replay->atTail());
    const as::TimePoint end1 = replay->timeRange()->end;
    QTRY_VERIFY_WITH_TIMEOUT(replay->timeRange()->end > end1, kDeadline);
    QCOMPARE(replay->cursor(), back);
    QTRY_VERIFY_WITH_TIMEOUT(!replay->pending(), kDeadline);
    QVERIFY(window.shownState().time() <= back);
    // End goes live again: the cursor follows the tail.
    QTest::keyClick(window.timeline()->strip(), Qt::Key_End);
    QVERIFY(replay->atTail());
    const as::TimePoint end2 = replay->timeRange()->end;
    QTRY_VERIFY_WITH_TIMEOUT(replay->cursor() > end2, kDeadline);
    // So does the Go live button, shown while the file is followed.
    auto* goLive = window.timeline()->findChild<QToolButton*>(QStringLiteral("go-live"));
    QVERIFY(goLive != nullptr);
    QVERIFY(goLive->isVisible());
    replay->setCursor(back);
    QVERIFY(!replay->atTail());
    QTest::mouseClick(goLive, Qt::LeftButton);
    QVERIFY(replay->atTail());
    const as::TimePoint end3 = replay->timeRange()->end;
    QTRY_VERIFY_WITH_TIMEOUT(replay->cursor() > end3, kDeadline);
    // The writer ends its session: the window says so, and the recording stays on show.
    writer.write("stop\n");
    QVERIFY(writer.waitForFinished(60000));
    QCOMPARE(writer.exitCode(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!replay->following(), kDeadline);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains(QLatin1String("ended cleanly")), kDeadline);
    QVERIFY(replay->info().ended_cleanly());
    QCOMPARE(window.replay(), replay);
    // Nothing is written any more: there is no tail to go back to.
    QTRY_VERIFY_WITH_TIMEOUT(!goLive->isVisible(), kDeadline);
  }

  // -- the command line --

  void the_command_line_takes_pictures_of_a_replay_and_refuses_bad_files() {
    const QString shots = dir_.filePath(QStringLiteral("shots"));
    const QByteArray before = hashWithSidecars(good_);
    QProcess p;
    p.start(QStringLiteral(ACTORSCOPE_BINARY),
            {QStringLiteral("--screenshot"), shots, QStringLiteral("--open"), qs(good_),
             QStringLiteral("--at"), QStringLiteral("1ms")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const QStringList files =
        QString::fromLocal8Bit(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    QVERIFY2(files.size() >= 10, qPrintable(files.join(' ')));
    for (const char* name : {"timeline.png", "window.png", "supervision-tree.png", "message-flow.png"})
      QVERIFY2(files.filter(QLatin1String(name)).size() == 1, name);
    for (const QString& f : files) {
      const QImage image(f);
      QVERIFY2(!image.isNull() && image.width() > 50 && image.height() > 50, qPrintable(f));
    }
    QCOMPARE(hashWithSidecars(good_), before);

    // A bad file, without a GUI: the message on standard error, a non-zero exit.
    const auto bad = path_in(dir_, "notes.db");
    write_bytes(bad, "not a recording at all");
    p.start(QStringLiteral(ACTORSCOPE_BINARY),
            {QStringLiteral("--screenshot"), shots, QStringLiteral("--open"), qs(bad)});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    const QString err = QString::fromLocal8Bit(p.readAllStandardError());
    QVERIFY2(err.contains(qs(bad)) && err.contains(QLatin1String("not an SQLite database")), qPrintable(err));
    // Usage mistakes: exit code 2.
    for (const QStringList& args :
         {QStringList{QStringLiteral("open")},
          QStringList{QStringLiteral("--screenshot"), shots, QStringLiteral("--open"), qs(good_),
                      QStringLiteral("--at"), QStringLiteral("soon")},
          QStringList{qs(good_), QStringLiteral("--scenario"), QStringLiteral("office")},
          QStringList{QStringLiteral("--session"), QStringLiteral("2")}}) {
      p.start(QStringLiteral(ACTORSCOPE_BINARY), args);
      QVERIFY(p.waitForFinished(60000));
      QVERIFY2(p.exitCode() == 2,
               qPrintable(args.join(' ') + ": " + QString::fromLocal8Bit(p.readAllStandardError())));
    }
    // Past the end: said so, exit 1.
    p.start(QStringLiteral(ACTORSCOPE_BINARY),
            {QStringLiteral("--screenshot"), shots, QStringLiteral("--open"), qs(good_),
             QStringLiteral("--at"), QStringLiteral("1000s")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(QString::fromLocal8Bit(p.readAllStandardError()).contains(QLatin1String("past the end")));
  }

  void at_takes_seconds_or_a_unit() {
    using namespace std::chrono;
    QCOMPARE(gui::parseOffset("1.5"), std::optional<as::Duration>(duration_cast<as::Duration>(1500ms)));
    QCOMPARE(gui::parseOffset("1.5s"), std::optional<as::Duration>(duration_cast<as::Duration>(1500ms)));
    QCOMPARE(gui::parseOffset("250ms"), std::optional<as::Duration>(duration_cast<as::Duration>(250ms)));
    QCOMPARE(gui::parseOffset("2m"), std::optional<as::Duration>(duration_cast<as::Duration>(120s)));
    QCOMPARE(gui::parseOffset("0"), std::optional<as::Duration>(as::Duration(0)));
    QVERIFY(!gui::parseOffset("-1"));
    QVERIFY(!gui::parseOffset("1.5 s"));
    QVERIFY(!gui::parseOffset("soon"));
    QVERIFY(!gui::parseOffset(""));
  }
};

QTEST_MAIN(TestReplay)
#include "tst_replay.moc"
