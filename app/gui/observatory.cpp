// The observatory's entry point.
#include "gui/observatory.hpp"

#include "gui/main_window.hpp"
#include "gui/screenshots.hpp"
#include "gui/theme.hpp"

#include "cli/args.hpp"

#include <actorscope/runtime.hpp>

#include <QApplication>
#include <QtGlobal>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <optional>

namespace actorscope::gui {

const char* const kObservatoryUsage =
    "usage: actorscope [--scenario NAME] [--runtime asio|qt] [--threads N] [--theme system|light|dark]\n"
    "       actorscope FILE.db [--session N] [--at T]        (also: actorscope open FILE.db ...)\n"
    "       actorscope --screenshot DIR [--scenario NAME] [--runtime R] [--threads N] [--seconds S] [--theme "
    "T]\n"
    "                  [--select NAME]\n"
    "       actorscope --screenshot DIR --open FILE.db [--session N] [--at T] [--theme T] [--select NAME]\n"
    "       actorscope --screenshot DIR --compare asio,qt [--scenario NAME] [--threads N] [--seconds S]\n"
    "\n"
    "Without a command, actorscope opens the observatory: the scenario (default: supervision) runs live\n"
    "on the runtime (default: asio, 2 threads) and every view follows it. Given a recording, it replays\n"
    "it instead (read-only); a recording that is still being written is followed as it grows.\n"
    "\n"
    "  --open FILE       replay this recording (the same as giving FILE alone)\n"
    "  --session N       which session of the file (asked in a dialog when the file has several)\n"
    "  --at T            put the cursor at T from the session's start: seconds (1.5), or with a unit\n"
    "                    (1.5s, 250ms, 2m)\n"
    "  --screenshot DIR  run the scenario offscreen for S seconds (default 3), or replay the recording at\n"
    "                    T, save one PNG per view (and timeline.png for a replay) and window.png into\n"
    "                    DIR, and exit\n"
    "  --select NAME     with --screenshot: the inspector shows the actor registered as NAME (by default\n"
    "                    the one the first warning names)\n"
    "  --compare A,B     with --screenshot: run the scenario on runtime A, then on B, for S seconds each\n"
    "                    (default 2), and save compare mode's window and views as compare-*.png\n";

namespace {

struct Choices {
  std::string scenario;
  std::string runtime = "asio";
  unsigned threads = 2;
  std::optional<Theme> theme;
  std::optional<std::string> screenshotDir;
  double seconds = 3.0;
  std::optional<std::string> open;       ///< a recording to replay
  std::optional<std::int64_t> session;   ///< which of its sessions
  std::optional<Duration> at;            ///< the cursor, from the session's start
  std::vector<std::string> compare;      ///< --compare A,B: compare mode's pictures
  std::optional<std::string> select;     ///< --select NAME: the actor the pictures' inspector shows
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

/// Args names its command in messages; the observatory has none, so tidy the spacing it leaves.
std::string tidy(std::string message) {
  for (const char* from : {"actorscope : ", "'actorscope  --help'"}) {
    const std::string f = from;
    const std::string to = f == "actorscope : " ? "actorscope: " : "'actorscope --help'";
    for (auto at = message.find(f); at != std::string::npos; at = message.find(f))
      message.replace(at, f.size(), to);
  }
  return message;
}

}  // namespace

std::optional<Duration> parseOffset(const std::string& text) {
  // A number, then an optional unit: "1.5", "1.5s", "250ms", "2m", "800us".
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || !std::isfinite(value) || value < 0) return std::nullopt;
  const std::string unit(ptr, end);
  double seconds = 0;
  if (unit.empty() || unit == "s") seconds = value;
  else if (unit == "ms") seconds = value / 1e3;
  else if (unit == "us") seconds = value / 1e6;
  else if (unit == "m" || unit == "min") seconds = value * 60;
  else return std::nullopt;
  if (seconds > 1e7) return std::nullopt;
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

namespace {

Choices parse(std::vector<std::string> args, const Workloads& workloads, bool needRecording) {
  cli::Args a("", std::move(args));
  Choices c;
  std::vector<std::string> scenarioNames;
  for (const Workload& w : workloads) scenarioNames.push_back(w.name);
  const std::string fallback =
      std::find(scenarioNames.begin(), scenarioNames.end(), "supervision") != scenarioNames.end()
          ? "supervision"
          : (scenarioNames.empty() ? std::string() : scenarioNames.front());
  const auto scenario = a.value("scenario");
  const auto runtime = a.value("runtime");
  const auto threads = a.integer("threads", 1, 64);
  c.scenario = scenario.value_or(fallback);
  c.runtime = runtime.value_or("asio");
  c.threads = static_cast<unsigned>(threads.value_or(2));
  if (auto t = a.value("theme")) {
    c.theme = themeFromName(QString::fromStdString(*t));
    if (!c.theme) throw a.error("--theme must be system, light or dark, not \"" + *t + "\"");
  }
  c.screenshotDir = a.value("screenshot");
  c.compare = a.list("compare");
  c.select = a.value("select");
  const auto seconds = a.seconds("seconds", 600);
  c.open = a.value("open");
  c.session = a.integer("session", 1, std::numeric_limits<std::int64_t>::max());
  if (auto at = a.value("at")) {
    c.at = parseOffset(*at);
    if (!c.at)
      throw a.error("--at must be a time from the session's start, in seconds (1.5) or with a unit (1.5s, 250ms, "
                    "2m), not \"" + *at + "\"");
  }
  const auto files = a.positionals();
  if (!files.empty()) {
    if (c.open) throw a.error("give the recording once: \"" + files.front() + "\" and --open " + *c.open);
    c.open = files.front();
  }
  a.finish(1, "one recording");
  if (needRecording && !c.open) throw a.error("open needs a recording: actorscope open FILE.db");
  if (seconds && !c.screenshotDir) throw a.error("--seconds goes with --screenshot DIR");
  if (c.select && (!c.screenshotDir || !c.compare.empty()))
    throw a.error("--select chooses the actor in the pictures of --screenshot DIR (not with --compare); in the "
                  "window, click the actor");
  if (seconds && c.open) throw a.error("--seconds is how long a live scenario runs; a replay's picture is taken --at T");
  if ((c.session || c.at) && !c.open) throw a.error("--session and --at go with a recording (FILE.db or --open FILE)");
  if (c.open && (scenario || runtime || threads))
    throw a.error("--scenario, --runtime and --threads choose a live session; a recording replays what it recorded");
  if (!c.compare.empty()) {
    if (!c.screenshotDir)
      throw a.error("--compare goes with --screenshot DIR (to run a comparison in a window: actorscope compare "
                    "--scenario S --runtime asio,qt)");
    if (c.compare.size() != 2)
      throw a.error("--compare takes the two sides' runtimes, e.g. --compare asio,qt, not " +
                    std::to_string(c.compare.size()) + " of them");
    if (c.open) throw a.error("--compare runs a new comparison; it does not go with a recording");
    if (runtime) throw a.error("--compare names both sides' runtimes (--compare asio,qt); --runtime is for a live session");
  }
  if (seconds) c.seconds = *seconds;
  else if (!c.compare.empty()) c.seconds = 2;  // per side: a short comparison
  if (scenarioNames.empty()) throw a.error("this build has no demo scenarios to run");
  if (std::find(scenarioNames.begin(), scenarioNames.end(), c.scenario) == scenarioNames.end())
    throw a.error("there is no scenario \"" + c.scenario + "\"; the scenarios are: " + joined(scenarioNames));
  std::vector<std::string> runtimes;
  for (const auto& r : runtime_names())
    if (r != "manual") runtimes.push_back(r);
  if (std::find(runtimes.begin(), runtimes.end(), c.runtime) == runtimes.end()) {
    std::string list;
    for (std::size_t i = 0; i < runtimes.size(); ++i)
      list += (i == 0 ? "" : i + 1 == runtimes.size() ? " or " : ", ") + runtimes[i];
    std::string why = "the observatory runs actors on " + list + ", not \"" + c.runtime + "\"";
    if (c.runtime == "manual") why += " (the manual runtime only moves when a test steps it)";
    throw a.error(why);
  }
  return c;
}

bool haveDisplay() {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
  };
  return set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY");
}

/// The offscreen platform warns about every window-manager request it ignores (floating a dock,
/// raising a window), and Qt about a missing XDG_RUNTIME_DIR. None of it matters for a picture;
/// everything else still reaches standard error.
void quietOffscreenNoise(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type == QtWarningMsg && (message.startsWith(QLatin1String("This plugin does not support")) ||
                               message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"))))
    return;
  std::fprintf(stderr, "%s\n", qFormatLogMessage(type, context, message).toLocal8Bit().constData());
}

}  // namespace

int runObservatory(int argc, char** argv, std::vector<std::string> args, Workloads workloads, bool needRecording) {
  Choices choices;
  try {
    choices = parse(std::move(args), workloads, needRecording);
  } catch (const cli::ArgError& e) {
    std::fprintf(stderr, "%s\n", tidy(e.what()).c_str());
    return 2;
  }
  if (choices.screenshotDir) {
    try {
      prepareScreenshotDir(QString::fromStdString(*choices.screenshotDir));
    } catch (const ScreenshotError& e) {
      std::fprintf(stderr, "actorscope: %s\n", e.what());
      return 2;
    }
    // Screenshots need no display: draw offscreen unless the caller chose a platform.
    if (!std::getenv("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(quietOffscreenNoise);
  } else if (!haveDisplay()) {
    std::fprintf(
        stderr,
        "actorscope: there is no display to open the observatory on (neither DISPLAY nor WAYLAND_DISPLAY "
        "is set).\n"
        "  - on a desktop, run it from a terminal inside the desktop session;\n"
        "  - on a server, run it under a virtual display: xvfb-run -a actorscope\n"
        "  - or save every view as PNG without a display: actorscope --screenshot DIR\n"
        "    (of a recording: actorscope --screenshot DIR --open FILE.db --at 2s)\n"
        "  - the command-line tools need no display: actorscope help\n");
    return 1;
  }

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Actorscope"));
  QApplication::setApplicationName(QStringLiteral("actorscope"));
  QApplication::setApplicationDisplayName(QStringLiteral("Actorscope"));

  if (choices.screenshotDir && !choices.compare.empty()) {
    try {
      if (choices.theme) applyTheme(*choices.theme);
      CompareScreenshotOptions options;
      options.dir = QString::fromStdString(*choices.screenshotDir);
      options.scenario = QString::fromStdString(choices.scenario);
      for (std::size_t i = 0; i < 2; ++i) {
        options.runtimes[i] = QString::fromStdString(choices.compare[i]);
        options.threads[i] = choices.threads;
      }
      options.seconds = choices.seconds;
      const QStringList files = takeCompareScreenshots(options, workloads);
      for (const QString& f : files) std::printf("%s\n", f.toLocal8Bit().constData());
      return 0;
    } catch (const ScreenshotError& e) {
      std::fprintf(stderr, "actorscope: %s\n", e.what());
      return 1;
    }
  }
  if (choices.screenshotDir) {
    try {
      MainWindow window(std::move(workloads), {.useSettings = false});
      if (choices.theme) window.setTheme(*choices.theme);
      ScreenshotOptions options;
      options.dir = QString::fromStdString(*choices.screenshotDir);
      options.scenario = QString::fromStdString(choices.scenario);
      options.runtime = QString::fromStdString(choices.runtime);
      options.threads = choices.threads;
      options.seconds = choices.seconds;
      if (choices.open) options.recording = QString::fromStdString(*choices.open);
      options.session = choices.session;
      options.at = choices.at;
      if (choices.select) options.select = QString::fromStdString(*choices.select);
      const QStringList files = takeScreenshots(window, options);
      for (const QString& f : files) std::printf("%s\n", f.toLocal8Bit().constData());
      return 0;
    } catch (const ScreenshotError& e) {
      std::fprintf(stderr, "actorscope: %s\n", e.what());
      return 1;
    }
  }

  MainWindow window(std::move(workloads), {.useSettings = true});
  if (choices.theme) window.setTheme(*choices.theme);
  window.show();
  if (choices.open) {
    // A bad file gets its dialog in the window, which stays open and usable, and a line here.
    const QString error = window.openRecordingFromUser(QString::fromStdString(*choices.open), choices.session);
    if (!error.isEmpty()) std::fprintf(stderr, "actorscope: %s\n", error.toLocal8Bit().constData());
    if (ReplaySession* replay = window.replay(); replay != nullptr && choices.at)
      replay->setCursorNow(replay->timeRange()->start + *choices.at);
    return app.exec();
  }
  const QString error = window.startSession(QString::fromStdString(choices.scenario),
                                            QString::fromStdString(choices.runtime), choices.threads);
  if (!error.isEmpty()) std::fprintf(stderr, "actorscope: %s\n", error.toLocal8Bit().constData());
  return app.exec();
}

}  // namespace actorscope::gui
