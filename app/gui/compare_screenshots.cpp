// Compare mode's pictures: `actorscope --screenshot DIR --compare asio,qt --scenario S`.
#include "gui/compare_run.hpp"
#include "gui/compare_window.hpp"
#include "gui/screenshots.hpp"

#include "compare/overlay_chart.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>

namespace actorscope::gui {

namespace {

void saveWidget(QWidget* w, const QDir& dir, const QString& name, QStringList& written) {
  QCoreApplication::processEvents();
  const QString path = dir.filePath(name + QStringLiteral(".png"));
  if (!w->grab().save(path)) throw ScreenshotError("cannot write \"" + path.toStdString() + "\"");
  written << path;
}

}  // namespace

QStringList takeCompareScreenshots(const CompareScreenshotOptions& options, const Workloads& workloads) {
  CompareConfig config;
  config.scenario = options.scenario.toStdString();
  for (std::size_t i = 0; i < 2; ++i) {
    config.sides[i].runtime = options.runtimes[i].toStdString();
    config.sides[i].threads = options.threads[i];
  }
  config.seconds = options.seconds;
  std::unique_ptr<CompareRun> run;
  try {
    run = std::make_unique<CompareRun>(config, workloads);
  } catch (const CompareError& e) {
    throw ScreenshotError(e.what());
  }
  // Wait for the run's end (or its failure); the deadline is only there so that a run that hangs
  // ends this program with a message instead of never.
  QEventLoop loop;
  QString failure;
  bool done = false;
  QObject::connect(run.get(), &CompareRun::finished, &loop, [&] {
    done = true;
    loop.quit();
  });
  QObject::connect(run.get(), &CompareRun::sideFailed, &loop, [&](int, const QString& message) {
    failure = message;
    loop.quit();
  });
  QTimer deadline;
  deadline.setSingleShot(true);
  QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
  deadline.start(static_cast<int>((2 * options.seconds + 120) * 1000));
  run->start();
  loop.exec();
  if (!failure.isEmpty()) throw ScreenshotError(failure.toStdString());
  if (!done)
    throw ScreenshotError("the comparison did not finish within " +
                          std::to_string(deadline.interval() / 1000) + " s");

  QStringList written;
  const QDir dir(options.dir);
  try {
    CompareWindow window({run->file(0), std::nullopt}, {run->file(1), std::nullopt});
    window.keepFiles(run->temporaryDir());
    window.resize(1366, 768);
    window.show();
    // Let the layout settle (the window's first show lays out its splitters and tables).
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    saveWidget(&window, dir, QStringLiteral("compare-window"), written);
    saveWidget(window.actorsPanel(), dir, QStringLiteral("compare-actors"), written);
    saveWidget(window.chartsPanel(), dir, QStringLiteral("compare-charts"), written);
    window.tabs()->setCurrentWidget(window.diffTable());
    saveWidget(window.tabs(), dir, QStringLiteral("compare-diff"), written);
    window.tabs()->setCurrentWidget(window.warningsTable());
    saveWidget(window.tabs(), dir, QStringLiteral("compare-warnings"), written);
  } catch (const RecordingError& e) {
    throw ScreenshotError(e.what());
  }
  return written;
}

}  // namespace actorscope::gui
