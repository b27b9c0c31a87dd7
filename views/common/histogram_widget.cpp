// Histogram painting: buckets are 1/8 octave wide, so equal-width bars give a log time axis.
#include "common/histogram_widget.hpp"

#include "common/format.hpp"
#include "common/health.hpp"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace actorscope::views {

namespace {
// The widest a mark gets ("max " and a figure such as "2 min 05 s"), and the gap after it.
QString widestMark() { return QStringLiteral("max 88 min 88 s  "); }
QString widestCount() { return QStringLiteral("888.8k samples"); }
}  // namespace

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  fitHeight();
}

int HistogramWidget::marksPerLine() const {
  const int mark = fontMetrics().horizontalAdvance(widestMark());
  return std::clamp(width() / std::max(1, mark), 1, 4);
}

bool HistogramWidget::countBesideTitle() const {
  return fontMetrics().horizontalAdvance(title_) + fontMetrics().horizontalAdvance(QStringLiteral("  ") + widestCount()) <=
         width();
}

void HistogramWidget::fitHeight() {
  const int lines = markLines() + (countBesideTitle() ? 0 : 1);
  const int h = 120 + (lines - 1) * (fontMetrics().height() + 2);
  if (minimumHeight() != h || maximumHeight() != h) setFixedHeight(h);
}

void HistogramWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  fitHeight();
}

void HistogramWidget::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange) fitHeight();
}

void HistogramWidget::setHistogram(const observe::LogHistogram& histogram) {
  if (histogram == histogram_) return;
  histogram_ = histogram;
  update();
}

void HistogramWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  const QFontMetrics fm(font());
  const int textH = fm.height();

  const bool countBeside = countBesideTitle();
  const int perLine = marksPerLine();
  const int statLines = markLines() + (countBeside ? 0 : 1);
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(0, 0, width(), textH), Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(title_, Qt::ElideRight, width()));
  const QString count = QStringLiteral("%1 samples").arg(formatCount(static_cast<double>(histogram_.count())));
  if (!histogram_.empty())
    p.drawText(QRect(0, countBeside ? 0 : (1 + markLines()) * (textH + 2), width(), textH),
               countBeside ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter, count);
  // Percentile lines under the title: p50 p90 p99 max, as many per line as fit.
  const QRectF area(1, (1 + statLines) * (textH + 2) + 4, width() - 2, height() - (2 + statLines) * (textH + 2) - 6);
  p.setPen(Qt::NoPen);
  p.setBrush(pal.color(QPalette::AlternateBase));
  p.drawRoundedRect(area, 3, 3);
  if (histogram_.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(area, Qt::AlignCenter, empty_);
    return;
  }
  struct Mark {
    const char* label;
    std::uint64_t value;
    QColor color;
  };
  const Mark marks[] = {
      {"p50", histogram_.percentile(50), healthColor(Health::running, pal)},
      {"p90", histogram_.percentile(90), healthColor(Health::starting, pal)},
      {"p99", histogram_.percentile(99), warningColor(pal)},
      {"max", histogram_.max(), errorColor(pal)},
  };
  const int markW = fm.horizontalAdvance(widestMark());
  for (int i = 0; i < 4; ++i) {
    const Mark& m = marks[i];
    const int line = i / perLine;
    int x = (i % perLine) * markW;
    const int y = (1 + line) * (textH + 2);
    const QString label = QString::fromLatin1(m.label) + QLatin1Char(' ');
    p.setPen(m.color);
    p.drawText(QRect(x, y, width() - x, textH), Qt::AlignLeft | Qt::AlignVCenter, label);
    x += fm.horizontalAdvance(label);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRect(x, y, width() - x, textH), Qt::AlignLeft | Qt::AlignVCenter, formatNanos(m.value));
  }
  // Bars: the occupied bucket range, padded, merged so that a bar is at least 3 px wide.
  const auto& buckets = histogram_.buckets();
  std::size_t first = observe::LogHistogram::index_of(histogram_.min());
  std::size_t last = std::min(buckets.size() - 1, observe::LogHistogram::index_of(histogram_.max()));
  first = first > 4 ? first - 4 : 0;
  last += 4;
  const std::size_t span = last - first + 1;
  const double inner = area.width() - 8;
  const std::size_t perBar = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(span * 3.0 / inner)));
  const std::size_t bars = (span + perBar - 1) / perBar;
  std::vector<std::uint64_t> counts(bars, 0);
  for (std::size_t i = first; i <= last && i < buckets.size(); ++i) counts[(i - first) / perBar] += buckets[i];
  const std::uint64_t peak = *std::max_element(counts.begin(), counts.end());
  const double barW = inner / static_cast<double>(bars);
  const double baseY = area.bottom() - 2;
  const double maxH = area.height() - 8;
  QColor barColor = pal.color(QPalette::Highlight);
  barColor.setAlphaF(0.75f);
  p.setPen(Qt::NoPen);
  p.setBrush(barColor);
  for (std::size_t b = 0; b < bars; ++b) {
    if (counts[b] == 0) continue;
    // Linear in the count, but never thinner than one pixel: a rare slow outlier stays visible.
    const double h = std::max(1.5, maxH * static_cast<double>(counts[b]) / static_cast<double>(peak));
    p.drawRect(QRectF(area.left() + 4 + b * barW, baseY - h, std::max(1.0, barW - 1), h));
  }

  // Where a value falls on the axis: bucket position, interpolated within its bucket.
  auto xOf = [&](std::uint64_t v) {
    const std::size_t idx = observe::LogHistogram::index_of(v);
    const double lo = static_cast<double>(observe::LogHistogram::lower_bound(idx));
    const double hi = static_cast<double>(observe::LogHistogram::upper_bound(idx));
    const double frac = hi > lo ? (static_cast<double>(v) - lo) / (hi - lo) : 0.5;
    const double pos = (static_cast<double>(idx) - static_cast<double>(first) + std::clamp(frac, 0.0, 1.0)) / perBar;
    return area.left() + 4 + pos * barW;
  };
  for (const Mark& m : marks) {
    const double mx = xOf(m.value);
    QPen pen(m.color, 1.2, Qt::DashLine);
    p.setPen(pen);
    p.drawLine(QPointF(mx, area.top() + 2), QPointF(mx, area.bottom() - 1));
  }

  // Axis: the time at the left and right edges and in the middle.
  p.setPen(pal.color(QPalette::PlaceholderText));
  const QRect axis(static_cast<int>(area.left()), static_cast<int>(area.bottom()) + 2, static_cast<int>(area.width()), textH);
  p.drawText(axis, Qt::AlignLeft | Qt::AlignVCenter, formatNanos(observe::LogHistogram::lower_bound(first)));
  p.drawText(axis, Qt::AlignRight | Qt::AlignVCenter, formatNanos(observe::LogHistogram::upper_bound(last)));
  p.drawText(axis, Qt::AlignHCenter | Qt::AlignVCenter,
             formatNanos(observe::LogHistogram::lower_bound((first + last) / 2)));
}

}  // namespace actorscope::views
