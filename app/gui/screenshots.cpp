// Headless screenshots of every view.
#include "gui/screenshots.hpp"

#include "gui/main_window.hpp"
#include "gui/timeline_dock.hpp"

#include "bench/benchmarks_view.hpp"
#include "common/actor_metrics.hpp"
#include "common/format.hpp"
#include "warnings/warning_rules.hpp"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileInfo>
#include <QIcon>
#include <QPixmap>
#include <QTabWidget>
#include <QTemporaryFile>
#include <QTimer>

#include <filesystem>
#include <system_error>

namespace actorscope::gui {
namespace {

// A few seconds' worth of the suite, one benchmark from each part of it.
constexpr const char* kScreenshotBenchmarks =
    "^(Creation of 100 actors|Waiting on 100 actors to process first message \\(quiescent\\)|"
    "Waiting on 100000 messages to be processed|Casting 100000 messages of (8|256) bytes from outside|"
    "Fan-out from one actor to 1000 actors|Spawn throughput: 1000 actors that stop immediately)$";

void settle(int ms) {
  QEventLoop loop;
  QTimer::singleShot(ms, &loop, &QEventLoop::quit);
  loop.exec();
}

/// The actor a reader would want to see first: one a warning is about, else a supervisor whose
/// children failed lately, else the deepest mailbox (100 or more), else the actor that handles the
/// most messages, else the first root.
ActorId interestingActor(const observe::SystemState& state) {
  for (const views::Warning& w : views::lint(state))
    if (w.actor.is_valid()) return w.actor;
  ActorId best{};
  std::size_t bestFailures = 0;
  for (const auto& [id, a] : state.actors()) {
    if (!a.alive()) continue;
    const std::size_t f = views::recentChildFailures(a, state.time(), std::chrono::seconds(30));
    if (f > bestFailures) {
      bestFailures = f;
      best = id;
    }
  }
  if (best.is_valid()) return best;
  // A backlog: the deepest mailbox, if it is deep.
  std::uint64_t deepest = 99;
  for (const auto& [id, a] : state.actors()) {
    if (a.alive() && a.mailbox_depth > deepest) {
      deepest = a.mailbox_depth;
      best = id;
    }
  }
  if (best.is_valid()) return best;
  double bestRate = 0;
  for (const auto& [id, a] : state.actors()) {
    const double r = views::messagesPerSecond(state, a);
    if (a.alive() && r > bestRate) {
      bestRate = r;
      best = id;
    }
  }
  if (best.is_valid()) return best;
  const auto roots = state.roots();
  return roots.empty() ? ActorId{} : roots.front();
}

/// The actor to show in the inspector: the one registered as `name` if given (a ScreenshotError
/// that lists the names there are, if there is none), otherwise the most interesting one.
ActorId chosenActor(const observe::SystemState& state, const QString& name) {
  if (name.isEmpty()) return interestingActor(state);
  const std::string wanted = name.toStdString();
  std::string names;
  for (const auto& [id, a] : state.actors()) {
    if (a.name.empty()) continue;
    if (a.name == wanted && a.alive()) return id;
    names += names.empty() ? "" : ", ";
    names += a.name;
  }
  throw ScreenshotError("--select " + wanted + ": no running actor is registered under that name; the named actors are: " +
                        (names.empty() ? std::string("none") : names));
}

}  // namespace

void prepareScreenshotDir(const QString& dir) {
  if (dir.isEmpty()) throw ScreenshotError("--screenshot needs a directory");
  const std::filesystem::path path(dir.toStdString());
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    // Say why it cannot be made: a file in the way (the path itself or a folder on it), or what
    // the system said.
    for (std::filesystem::path p = path; !p.empty(); p = p.parent_path()) {
      if (std::filesystem::exists(p, ec) && !std::filesystem::is_directory(p, ec)) {
        throw ScreenshotError("cannot create the screenshot directory \"" + dir.toStdString() + "\": " +
                              (p == path ? std::string("a file of that name is in the way")
                                         : "\"" + p.string() + "\" is a file, not a directory") +
                              "; choose another directory");
      }
      if (p == p.parent_path()) break;
    }
    std::filesystem::create_directories(path, ec);
    if (ec)
      throw ScreenshotError("cannot create the screenshot directory \"" + dir.toStdString() +
                            "\": " + ec.message());
  }
  const QDir d(dir);
  QTemporaryFile probe(d.filePath(QStringLiteral(".actorscope-write-test-XXXXXX")));
  if (!probe.open())
    throw ScreenshotError("cannot write into the screenshot directory \"" + dir.toStdString() +
                          "\": " + probe.errorString().toStdString());
}

namespace {

void save(QWidget* w, const QDir& dir, const QString& name, QStringList& written) {
  QCoreApplication::processEvents();
  const QString path = dir.filePath(name + QStringLiteral(".png"));
  if (!w->grab().save(path)) throw ScreenshotError("cannot write \"" + path.toStdString() + "\"");
  written << path;
}

/// One picture per view the shown session offers (but the benchmarks), then the window's.
void pictureViews(MainWindow& window, ActorId selected, const QDir& dir, QStringList& written) {
  // Every picture shows the chosen actor: showing a view may move the shared selection (a table
  // that makes its first row current as it appears), so it is put back before each one.
  auto save = [&](QWidget* w, const QString& name) {
    if (selected.is_valid() && window.selection().current() != selected) {
      window.selection().select(selected);
      settle(60);
    }
    gui::save(w, dir, name, written);
  };
  // The bottom docks share a short strip of the window: a picture of one would show three rows. Such
  // a view is floated at a readable size for its picture, and the window's layout put back after.
  // The timeline is a strip by nature: it is pictured as it is docked, the window's width.
  const QByteArray layout = window.saveState();
  constexpr int kShortView = 320;
  constexpr QSize kFloatedSize{960, 420};
  for (const MainWindow::View& v : window.viewList()) {
    // The benchmarks have a picture of their own, after a run.
    if (v.id == QLatin1String("benchmarks") || !window.viewInMode(v)) continue;
    window.showView(v.id);
    settle(60);
    auto* dock = qobject_cast<QDockWidget*>(v.widget->parentWidget());
    if (dock != nullptr && v.widget->height() < kShortView && v.id != QLatin1String("timeline")) {
      dock->setFloating(true);
      dock->resize(kFloatedSize);
      settle(60);
      save(v.widget, v.id);
      dock->setFloating(false);
      window.restoreState(layout);
      settle(60);
    } else {
      save(v.widget, v.id);
    }
  }
  window.showView(QStringLiteral("supervision-graph"));
  window.showView(QStringLiteral("warnings"));
  settle(60);
  save(&window, QStringLiteral("window"));
}

QStringList takeReplayScreenshots(MainWindow& window, const ScreenshotOptions& options) {
  window.resize(MainWindow::kDefaultSize);
  window.show();
  const QString error = window.openRecording(options.recording, options.session, /*ask=*/false);
  if (!error.isEmpty()) throw ScreenshotError(error.toStdString());
  ReplaySession& replay = *window.replay();
  const Session::TimeRange range = *replay.timeRange();
  if (options.at && range.start + *options.at > range.end)
    throw ScreenshotError(
        QStringLiteral("--at %1 is past the end of session %2 of \"%3\", which lasts %4; give a "
                       "time within it")
            .arg(views::formatDuration(*options.at))
            .arg(replay.sessionId())
            .arg(options.recording, views::formatDuration(range.end - range.start))
            .toStdString());
  replay.setCursorNow(options.at ? range.start + *options.at : range.end);
  const ActorId selected = chosenActor(replay.state(), options.select);
  window.selection().select(selected);
  settle(120);  // the timeline's density and markers come on the event loop's next turns
  // The warning markers come from a scan of the whole recording: wait for it (a long recording's
  // scan may take a while; after 30 s the pictures show what it found by then, and the timeline
  // says how far it got).
  for (QDeadlineTimer deadline(30000); !window.timeline()->warningsScanned() && !deadline.hasExpired();)
    settle(20);
  QStringList written;
  pictureViews(window, selected, QDir(options.dir), written);
  return written;
}

}  // namespace

QStringList takeScreenshots(MainWindow& window, const ScreenshotOptions& options) {
  prepareScreenshotDir(options.dir);
  if (!options.recording.isEmpty()) return takeReplayScreenshots(window, options);
  window.resize(MainWindow::kDefaultSize);
  window.show();
  const QString error = window.startSession(options.scenario, options.runtime, options.threads);
  if (!error.isEmpty()) throw ScreenshotError(error.toStdString());
  settle(static_cast<int>(options.seconds * 1000));

  const ActorId selected = chosenActor(window.session().state(), options.select);
  window.selection().select(selected);
  window.holdViews(true);  // one consistent picture for every view; the status bar still says "live"
  QStringList written;
  const QDir dir(options.dir);
  auto save = [&](QWidget* w, const QString& name) { gui::save(w, dir, name, written); };
  pictureViews(window, selected, dir, written);
  window.holdViews(false);
  window.stopSession();

  // The Benchmarks tab after a short quick run of a few benchmarks on both runtimes (not stored in
  // the history): a picture of an empty table would show nothing.
  window.showView(QStringLiteral("benchmarks"));
  bench::RunOptions run;
  run.runtimes = {"asio", "qt"};
  run.quick = true;
  run.filter = kScreenshotBenchmarks;
  window.runBenchmarks(run, /*history=*/false);
  // The tab shares the window with the docks: its picture is taken on its own, at a readable size.
  QWidget* view = window.benchmarksView();
  auto* tabs = qobject_cast<QTabWidget*>(window.centralWidget());
  const int tab = tabs->indexOf(view);
  const QString title = tabs->tabText(tab);
  const QIcon icon = tabs->tabIcon(tab);
  tabs->removeTab(tab);
  view->setParent(nullptr);
  view->resize(1280, 900);
  view->show();
  settle(120);
  save(view, QStringLiteral("benchmarks"));
  view->hide();
  tabs->insertTab(tab, view, icon, title);
  return written;
}

}  // namespace actorscope::gui
