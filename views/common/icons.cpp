// SVG icons tinted with the palette at paint time.
#include "common/icons.hpp"

#include <QApplication>
#include <QFile>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QSvgRenderer>

#include <memory>

static void initIconResources() { Q_INIT_RESOURCE(actorscope); }

namespace actorscope::views {
namespace {

class TintedSvgEngine final : public QIconEngine {
 public:
  TintedSvgEngine(std::shared_ptr<QSvgRenderer> renderer, bool tinted)
      : renderer_(std::move(renderer)), tinted_(tinted) {}

  void paint(QPainter* painter, const QRect& rect, QIcon::Mode mode, QIcon::State) override {
    const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    painter->drawPixmap(rect, render(rect.size() * dpr, mode));
  }
  QPixmap pixmap(const QSize& size, QIcon::Mode mode, QIcon::State) override { return render(size, mode); }
  QIconEngine* clone() const override { return new TintedSvgEngine(renderer_, tinted_); }
  QString key() const override { return QStringLiteral("actorscope-tinted-svg"); }

 private:
  QPixmap render(const QSize& size, QIcon::Mode mode) const {
    QPixmap px(size);
    px.fill(Qt::transparent);
    if (size.isEmpty()) return px;
    {
      QPainter p(&px);
      p.setRenderHint(QPainter::Antialiasing);
      renderer_->render(&p, QRectF(QPointF(0, 0), QSizeF(size)));
      if (tinted_ || mode == QIcon::Disabled) {
        const QPalette pal = QApplication::palette();
        QColor c = tinted_ ? pal.color(QPalette::Active, QPalette::ButtonText) : pal.color(QPalette::Disabled, QPalette::ButtonText);
        if (mode == QIcon::Disabled) c = pal.color(QPalette::Disabled, QPalette::ButtonText);
        if (mode == QIcon::Selected) c = pal.color(QPalette::HighlightedText);
        p.setCompositionMode(QPainter::CompositionMode_SourceIn);
        p.fillRect(px.rect(), c);
      }
    }
    return px;
  }

  std::shared_ptr<QSvgRenderer> renderer_;
  bool tinted_;
};

}  // namespace

QIcon icon(const QString& name) {
  static bool initialised = false;
  if (!initialised) {
    initIconResources();
    initialised = true;
  }
  static QHash<QString, QIcon> cache;
  if (auto it = cache.find(name); it != cache.end()) return *it;
  const QString path = QStringLiteral(":/icons/%1.svg").arg(name);
  QIcon result;
  if (QFile::exists(path)) {
    auto renderer = std::make_shared<QSvgRenderer>(path);
    result = QIcon(new TintedSvgEngine(std::move(renderer), !name.startsWith(QStringLiteral("c-"))));
  }
  cache.insert(name, result);
  return result;
}

}  // namespace actorscope::views
