// Formatting shared by the views.
#include "common/format.hpp"

#include <actorscope/observe/event.hpp>

#include <QStringList>

#include <cmath>

namespace actorscope::views {

QString formatNanos(std::uint64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 1000) return QStringLiteral("%1 ns").arg(ns);
  if (ns < 1'000'000) return QStringLiteral("%1 µs").arg(v / 1e3, 0, 'f', v < 1e4 ? 2 : (v < 1e5 ? 1 : 0));
  if (ns < 1'000'000'000) return QStringLiteral("%1 ms").arg(v / 1e6, 0, 'f', v < 1e7 ? 2 : (v < 1e8 ? 1 : 0));
  if (ns < 120'000'000'000ull) return QStringLiteral("%1 s").arg(v / 1e9, 0, 'f', v < 1e10 ? 2 : 1);
  const std::uint64_t s = ns / 1'000'000'000ull;
  return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString formatDuration(Duration d) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  return formatNanos(ns < 0 ? 0 : static_cast<std::uint64_t>(ns));
}

QString formatSignedDuration(Duration d) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  if (ns < 0) return QStringLiteral("-") + formatNanos(static_cast<std::uint64_t>(-ns));
  return formatNanos(static_cast<std::uint64_t>(ns));
}

QString formatCount(double n) {
  const double a = std::fabs(n);
  if (a < 1000) return QString::number(static_cast<long long>(std::llround(n)));
  if (a < 1e6) return QStringLiteral("%1k").arg(n / 1e3, 0, 'f', a < 1e4 ? 2 : (a < 1e5 ? 1 : 0));
  if (a < 1e9) return QStringLiteral("%1M").arg(n / 1e6, 0, 'f', a < 1e7 ? 2 : (a < 1e8 ? 1 : 0));
  return QStringLiteral("%1G").arg(n / 1e9, 0, 'f', 2);
}

QString formatRate(double perSecond) {
  if (perSecond > 0 && perSecond < 10) return QStringLiteral("%1/s").arg(perSecond, 0, 'f', 1);
  return formatCount(perSecond) + QStringLiteral("/s");
}

QString formatSince(TimePoint t, TimePoint origin) {
  const double s = std::chrono::duration<double>(t - origin).count();
  return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
}

QString formatActorId(ActorId id) { return QStringLiteral("%1.%2").arg(id.node).arg(id.pid); }

QString formatHost(std::uint32_t thread) {
  return thread == observe::no_thread ? QStringLiteral("—") : QString::number(thread);
}

ActorId parseActorId(const QString& text) {
  const QString t = text.trimmed();
  bool ok = false;
  if (const auto dot = t.indexOf(QLatin1Char('.')); dot >= 0) {
    const uint node = t.left(dot).toUInt(&ok);
    if (!ok) return {};
    const qulonglong pid = t.mid(dot + 1).toULongLong(&ok);
    return ok ? ActorId{node, pid} : ActorId{};
  }
  const qulonglong pid = t.toULongLong(&ok);
  return ok ? ActorId{0, pid} : ActorId{};
}

}  // namespace actorscope::views
