// Light and dark palettes.
#include "gui/theme.hpp"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace actorscope::gui {
namespace {

struct Original {
  QString style;
  QPalette palette;
};

Original& original() {
  static Original o{QApplication::style()->name(), QApplication::palette()};
  return o;
}

QPalette lightPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0xf3, 0xf4, 0xf6));
  p.setColor(QPalette::WindowText, QColor(0x1f, 0x23, 0x28));
  p.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
  p.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf7, 0xf9));
  p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xff));
  p.setColor(QPalette::ToolTipText, QColor(0x1f, 0x23, 0x28));
  p.setColor(QPalette::PlaceholderText, QColor(0x6a, 0x73, 0x7d));
  p.setColor(QPalette::Text, QColor(0x1f, 0x23, 0x28));
  p.setColor(QPalette::Button, QColor(0xf3, 0xf4, 0xf6));
  p.setColor(QPalette::ButtonText, QColor(0x1f, 0x23, 0x28));
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Light, QColor(0xff, 0xff, 0xff));
  p.setColor(QPalette::Midlight, QColor(0xe4, 0xe7, 0xeb));
  p.setColor(QPalette::Mid, QColor(0xc9, 0xce, 0xd4));
  p.setColor(QPalette::Dark, QColor(0x9a, 0xa1, 0xa9));
  p.setColor(QPalette::Shadow, QColor(0x6a, 0x73, 0x7d));
  p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xd6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x1f, 0x5f, 0xc4));
  p.setColor(QPalette::LinkVisited, QColor(0x6f, 0x42, 0xc1));
  for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor(0xa0, 0xa6, 0xad));
  return p;
}

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x1e, 0x21, 0x27));
  p.setColor(QPalette::WindowText, QColor(0xdc, 0xdf, 0xe4));
  p.setColor(QPalette::Base, QColor(0x17, 0x19, 0x1e));
  p.setColor(QPalette::AlternateBase, QColor(0x1c, 0x1f, 0x25));
  p.setColor(QPalette::ToolTipBase, QColor(0x2a, 0x2e, 0x36));
  p.setColor(QPalette::ToolTipText, QColor(0xdc, 0xdf, 0xe4));
  p.setColor(QPalette::PlaceholderText, QColor(0x8b, 0x93, 0xa0));
  p.setColor(QPalette::Text, QColor(0xdc, 0xdf, 0xe4));
  p.setColor(QPalette::Button, QColor(0x26, 0x2a, 0x31));
  p.setColor(QPalette::ButtonText, QColor(0xdc, 0xdf, 0xe4));
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Light, QColor(0x3a, 0x3f, 0x48));
  p.setColor(QPalette::Midlight, QColor(0x30, 0x34, 0x3c));
  p.setColor(QPalette::Mid, QColor(0x40, 0x46, 0x50));
  p.setColor(QPalette::Dark, QColor(0x12, 0x14, 0x18));
  p.setColor(QPalette::Shadow, QColor(0x0a, 0x0b, 0x0d));
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xe8));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x7a, 0xb2, 0xff));
  p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x92, 0xf0));
  for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor(0x6b, 0x72, 0x7d));
  p.setColor(QPalette::Disabled, QPalette::Base, QColor(0x1b, 0x1d, 0x22));
  return p;
}

}  // namespace

QString themeName(Theme theme) {
  switch (theme) {
    case Theme::system: return QStringLiteral("system");
    case Theme::light: return QStringLiteral("light");
    case Theme::dark: return QStringLiteral("dark");
  }
  return {};
}

std::optional<Theme> themeFromName(const QString& name) {
  if (name == QLatin1String("system")) return Theme::system;
  if (name == QLatin1String("light")) return Theme::light;
  if (name == QLatin1String("dark")) return Theme::dark;
  return std::nullopt;
}

void applyTheme(Theme theme) {
  const Original& o = original();
  switch (theme) {
    case Theme::system:
      QApplication::setStyle(QStyleFactory::create(o.style));
      QApplication::setPalette(o.palette);
      break;
    case Theme::light:
      QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(lightPalette());
      break;
    case Theme::dark:
      QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(darkPalette());
      break;
  }
}

}  // namespace actorscope::gui
