// Sparkline painting.
#include "common/sparkline.hpp"

#include "common/format.hpp"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace actorscope::views {
namespace {
QString plainCount(double v) { return formatCount(v); }
}  // namespace

Sparkline::Sparkline(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setMinimumHeight(56);
}

void Sparkline::setValues(QVector<double> values, int slotCount) {
  values_ = std::move(values);
  slots_ = std::max(slotCount, static_cast<int>(values_.size()));
  update();
}

void Sparkline::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  const QColor line = color_.isValid() ? color_ : pal.color(QPalette::Highlight);
  QString (*fmt)(double) = format_ ? format_ : &plainCount;

  const QFontMetrics fm(font());
  const int textH = fm.height();
  const double last = values_.isEmpty() ? 0.0 : values_.back();
  const double top = values_.isEmpty() ? 0.0 : *std::max_element(values_.begin(), values_.end());

  // Header: latest value (bold) and peak on the right, the title in what room is left.
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics fmBold(bold);
  const QString lastText = fmt(last);
  const QString peakText = QStringLiteral("  peak %1").arg(fmt(top));
  const int peakW = fm.horizontalAdvance(peakText);
  const int lastW = fmBold.horizontalAdvance(lastText);
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(0, 0, width(), textH), Qt::AlignRight | Qt::AlignVCenter, peakText);
  p.drawText(QRect(0, 0, width() - peakW - lastW - 8, textH), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(title_, Qt::ElideRight, width() - peakW - lastW - 8));
  p.setFont(bold);
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRect(0, 0, width() - peakW, textH), Qt::AlignRight | Qt::AlignVCenter, lastText);
  p.setFont(font());

  const QRectF area(1, textH + 4, width() - 2, height() - textH - 6);
  p.setPen(Qt::NoPen);
  p.setBrush(pal.color(QPalette::AlternateBase));
  p.drawRoundedRect(area, 3, 3);
  if (values_.isEmpty() || slots_ <= 1) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(area, Qt::AlignCenter, QStringLiteral("no data yet"));
    return;
  }
  const double scale = top > 0 ? top : 1.0;
  const double step = area.width() / (slots_ - 1);
  const int offset = slots_ - static_cast<int>(values_.size());
  QPainterPath path;
  QPainterPath fill;
  for (int i = 0; i < values_.size(); ++i) {
    const double x = area.left() + (offset + i) * step;
    const double y = area.bottom() - 2 - (values_[i] / scale) * (area.height() - 6);
    if (i == 0) {
      path.moveTo(x, y);
      fill.moveTo(x, area.bottom());
    } else {
      path.lineTo(x, y);
    }
    fill.lineTo(x, y);
  }
  fill.lineTo(area.left() + (slots_ - 1) * step, area.bottom());
  fill.closeSubpath();
  QColor soft = line;
  soft.setAlphaF(0.18f);
  p.setBrush(soft);
  p.drawPath(fill);
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(line, 1.6));
  p.drawPath(path);
}

}  // namespace actorscope::views
