// Status colours and dots.
#include "common/health.hpp"

#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>

#include <QHash>
#include <QPainter>
#include <QPixmap>

namespace actorscope::views {

Health healthOf(const observe::ActorRecord& a) {
  if (a.status == ActorStatus::stopped) {
    if (a.exit_kind == ExitKind::failed) return Health::failed;
    if (a.exit_kind == ExitKind::killed) return Health::killed;
    return Health::stopped;
  }
  switch (a.status) {
    case ActorStatus::unstarted:
    case ActorStatus::starting: return Health::starting;
    case ActorStatus::running: return Health::running;
    case ActorStatus::draining: return Health::draining;
    case ActorStatus::stopping: return Health::stopping;
    case ActorStatus::stopped: break;
  }
  return Health::stopped;
}

QString healthText(Health h) {
  switch (h) {
    case Health::starting: return QStringLiteral("starting");
    case Health::running: return QStringLiteral("running");
    case Health::draining: return QStringLiteral("draining");
    case Health::stopping: return QStringLiteral("stopping");
    case Health::stopped: return QStringLiteral("stopped");
    case Health::failed: return QStringLiteral("failed");
    case Health::killed: return QStringLiteral("killed");
  }
  return {};
}

bool isDark(const QPalette& p) { return p.color(QPalette::Window).lightness() < 128; }

QColor tint(const QColor& c, const QPalette& p, qreal amount) {
  const QColor base = p.color(QPalette::Base);
  return QColor::fromRgbF(static_cast<float>(base.redF() + (c.redF() - base.redF()) * amount),
                          static_cast<float>(base.greenF() + (c.greenF() - base.greenF()) * amount),
                          static_cast<float>(base.blueF() + (c.blueF() - base.blueF()) * amount));
}

QColor healthColor(Health h, const QPalette& p) {
  const bool dark = isDark(p);
  switch (h) {
    case Health::starting: return dark ? QColor(0x6c, 0xa8, 0xff) : QColor(0x2f, 0x6f, 0xd6);
    case Health::running: return dark ? QColor(0x4c, 0xc3, 0x8a) : QColor(0x1f, 0x9d, 0x5a);
    case Health::draining:
    case Health::stopping: return dark ? QColor(0xf0, 0xb4, 0x29) : QColor(0xc7, 0x86, 0x00);
    case Health::stopped: return dark ? QColor(0x8a, 0x8f, 0x98) : QColor(0x8a, 0x90, 0x99);
    case Health::failed: return dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xd1, 0x3b, 0x3b);
    case Health::killed: return dark ? QColor(0xd9, 0x8c, 0xe6) : QColor(0x9b, 0x4d, 0xb0);
  }
  return p.color(QPalette::Text);
}

QIcon healthIcon(Health h, const QPalette& p) {
  // One pixmap per colour; the cache key carries the colour, so a palette switch makes new ones.
  static QHash<QRgb, QIcon> cache;
  const QColor c = healthColor(h, p);
  auto it = cache.find(c.rgb());
  if (it != cache.end()) return *it;
  QPixmap px(32, 32);
  px.fill(Qt::transparent);
  QPainter painter(&px);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(Qt::NoPen);
  painter.setBrush(c);
  painter.drawEllipse(QRectF(8, 8, 16, 16));
  painter.end();
  QIcon icon(px);
  cache.insert(c.rgb(), icon);
  return icon;
}

QColor warningColor(const QPalette& p) { return isDark(p) ? QColor(0xf0, 0xb4, 0x29) : QColor(0xb8, 0x7a, 0x00); }
QColor errorColor(const QPalette& p) { return healthColor(Health::failed, p); }

QColor mailboxColor(std::uint64_t depth, const QPalette& p) {
  if (depth == 0) return p.color(QPalette::PlaceholderText);
  if (depth < 16) return p.color(QPalette::Text);
  if (depth < 1000) return warningColor(p);
  return errorColor(p);
}

QVariant actorCellData(ActorCell cell, int role, const ActorCellFacts& f) {
  switch (role) {
    case Qt::DecorationRole:
      if (cell == ActorCell::name) return healthIcon(f.health, QGuiApplication::palette());
      break;
    case Qt::ForegroundRole: {
      const QPalette pal = QGuiApplication::palette();
      if (cell == ActorCell::status) return healthColor(f.health, pal);
      if (hasExited(f.health)) return pal.color(QPalette::PlaceholderText);
      if (cell == ActorCell::mailbox) return mailboxColor(f.mailbox, pal);
      if (cell == ActorCell::failures && f.failing) return errorColor(pal);
      if (cell == ActorCell::id || cell == ActorCell::type) return pal.color(QPalette::PlaceholderText);
      break;
    }
    case ActorIdRole: return QVariant::fromValue(f.id);
    case HealthRole: return static_cast<int>(f.health);
    case SearchRole:
      return QStringLiteral("%1 %2 %3").arg(QString::fromStdString(f.name), QString::fromStdString(f.type),
                                            formatActorId(f.id));
  }
  return {};
}

}  // namespace actorscope::views
