// Sparkline painting.
#include "common/sparkline.hpp"

#include "common/format.hpp"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace actorscope::views {
namespace {
QString plainCount(double v) { return formatCount(v); }
}  // namespace

Sparkline::Sparkline(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  fitHeight();
}

bool Sparkline::figuresBelow() const {
  // Room for the title and the widest figures it will show ("999.9k/s  peak 999.9k/s"), so that the
  // header does not jump between one and two lines as the figures change.
  QFont bold = font();
  bold.setBold(true);
  const QString widest = QStringLiteral("999.9k/s");
  const int figures = QFontMetrics(bold).horizontalAdvance(widest) +
                      fontMetrics().horizontalAdvance(QStringLiteral("  peak ") + widest) + 8;
  return fontMetrics().horizontalAdvance(title_) + figures > width();
}

void Sparkline::fitHeight() {
  const int h = 56 + (figuresBelow() ? fontMetrics().height() : 0);
  if (minimumHeight() != h || maximumHeight() != h) setFixedHeight(h);
}

void Sparkline::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitHeight();
}

void Sparkline::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange) fitHeight();
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
  const bool below = figuresBelow();
  const int figuresY = below ? textH : 0;
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(0, figuresY, width(), textH), Qt::AlignRight | Qt::AlignVCenter, peakText);
  const int titleW = below ? width() : width() - peakW - lastW - 8;
  p.drawText(QRect(0, 0, titleW, textH), Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(title_, Qt::ElideRight, titleW));
  p.setFont(bold);
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRect(0, figuresY, width() - peakW, textH), Qt::AlignRight | Qt::AlignVCenter, lastText);
  p.setFont(font());
  const int headerH = figuresY + textH;
  const QRectF area(1, headerH + 4, width() - 2, height() - headerH - 6);
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
