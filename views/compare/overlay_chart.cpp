// The compare window's overlay charts (overlay_chart.hpp).
#include "compare/overlay_chart.hpp"

#include <QPainter>
#include <QPainterPath>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace actorscope::views {

QColor compareSideColor(const QPalette& palette, int side) {
  const bool dark = palette.color(QPalette::Base).lightness() < 128;
  if (side == 0) {
    // The highlight is the theme's own accent; some styles make it grey, which would not read as
    // a series: fall back to a blue that does.
    QColor h = palette.color(QPalette::Highlight);
    if (h.hsvSaturation() < 60) h = dark ? QColor(0x5c, 0xa8, 0xff) : QColor(0x1f, 0x63, 0xc6);
    if (dark && h.lightness() < 110) h = h.lighter(150);
    return h;
  }
  return dark ? QColor(0xff, 0xa6, 0x3d) : QColor(0xd0, 0x5a, 0x00);
}

namespace {

/// A round step for about `wanted` ticks over `span`: 1, 2 or 5 times a power of ten.
double niceStep(double span, int wanted) {
  if (span <= 0 || wanted <= 0) return 1;
  const double raw = span / wanted;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

/// 950, 1.5k, 12k, 3.2M: short enough for an axis.
QString compact(double v) {
  const double a = std::abs(v);
  auto fmt = [](double x, const char* unit) {
    const int decimals = std::abs(x) < 10 && x != std::floor(x) ? 1 : 0;
    return QString::number(x, 'f', decimals) + QLatin1String(unit);
  };
  if (a >= 1e9) return fmt(v / 1e9, "G");
  if (a >= 1e6) return fmt(v / 1e6, "M");
  if (a >= 1e3) return fmt(v / 1e3, "k");
  if (a > 0 && a < 1) return QString::number(v, 'g', 2);
  return QString::number(v, 'f', v == std::floor(v) ? 0 : 1);
}

}  // namespace

OverlayChart::OverlayChart(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void OverlayChart::setTitle(const QString& title) {
  title_ = title;
  update();
}

void OverlayChart::setAxisTitles(const QString& x, const QString& y) {
  xTitle_ = x;
  yTitle_ = y;
  update();
}

void OverlayChart::setLogX(bool log) {
  logX_ = log;
  update();
}

void OverlayChart::setSeries(int side, std::vector<QPointF> points) {
  if (logX_) std::erase_if(points, [](const QPointF& p) { return p.x() <= 0; });
  series_.at(static_cast<std::size_t>(side)) = std::move(points);
  update();
}

void OverlayChart::setEmptyText(const QString& text) {
  empty_ = text;
  update();
}

void OverlayChart::setCursor(std::optional<double> x) {
  cursor_ = x;
  update();
}

void OverlayChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  const QColor text = pal.color(QPalette::Text);
  QColor muted = pal.color(QPalette::PlaceholderText);
  QColor grid = pal.color(QPalette::Mid);
  grid.setAlpha(90);
  const QFontMetrics fm = fontMetrics();
  const int line = fm.height();

  // Title on top, the x title at the bottom, the y title above the y axis labels.
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(text);
  p.drawText(QRect(6, 2, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter, title_);
  p.setFont(font());
  p.setPen(muted);
  p.drawText(QRect(6, 2 + line, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter, yTitle_);
  p.drawText(QRect(0, height() - line - 2, width(), line), Qt::AlignHCenter | Qt::AlignVCenter, xTitle_);

  const bool empty = series_[0].empty() && series_[1].empty();
  // Ranges over both series, so that the two share one scale.
  double xMin = 0, xMax = 1, yMax = 1;
  if (!empty) {
    xMin = std::numeric_limits<double>::max();
    xMax = std::numeric_limits<double>::lowest();
    yMax = 0;
    for (const auto& s : series_)
      for (const QPointF& pt : s) {
        xMin = std::min(xMin, pt.x());
        xMax = std::max(xMax, pt.x());
        yMax = std::max(yMax, pt.y());
      }
    if (!logX_) xMin = std::min(0.0, xMin);  // time since start: the axis starts at 0
    if (yMax <= 0) yMax = 1;
  }
  double lx0 = 0, lx1 = 1;
  if (logX_ && !empty) {
    lx0 = std::floor(std::log10(xMin));
    lx1 = std::max(lx0 + 1, std::ceil(std::log10(xMax)));
  }
  const double yStep = niceStep(yMax, 4);
  const double yTop = std::ceil(yMax / yStep) * yStep;

  int labelWidth = 0;
  for (double v = 0; v <= yTop + yStep / 2; v += yStep)
    labelWidth = std::max(labelWidth, fm.horizontalAdvance(compact(v)));
  // Half a line below the y title, so that the top tick's label (centred on its line) stays clear of it.
  const int top = 2 + 2 * line + line / 2 + 2;
  const QRect plot(labelWidth + 12, top, width() - labelWidth - 12 - 10, height() - top - 2 * line - 6);
  if (plot.width() < 20 || plot.height() < 20) return;

  auto xPos = [&](double x) {
    if (logX_) return plot.left() + (std::log10(x) - lx0) / (lx1 - lx0) * plot.width();
    return plot.left() + (xMax > xMin ? (x - xMin) / (xMax - xMin) : 0.5) * plot.width();
  };
  auto yPos = [&](double y) { return plot.bottom() - y / yTop * plot.height(); };

  // Grid and tick labels.
  p.setPen(QPen(grid, 1));
  for (double v = 0; v <= yTop + yStep / 2; v += yStep) {
    const double y = yPos(v);
    p.setPen(QPen(grid, 1));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(muted);
    p.drawText(QRectF(0, y - line / 2.0, labelWidth + 6, line), Qt::AlignRight | Qt::AlignVCenter,
               compact(v));
  }
  const double tickTop = plot.bottom() + 2;
  // A tick label centred under its tick, moved inwards where it would leave the widget.
  auto labelRect = [&](double x) {
    const double w = 64;
    return QRectF(std::clamp(x - w / 2, 0.0, width() - w), tickTop, w, line);
  };
  if (logX_) {
    // Decades in µs: 0.1 µs, 1 µs, 10 µs, 100 µs, 1 ms, ... A grid line at each; a label at every
    // one, every second or every third, so that labels never run into each other.
    const double decadeWidth = plot.width() / (lx1 - lx0);
    const int every = decadeWidth >= 60 ? 1 : decadeWidth >= 30 ? 2 : 3;
    int n = 0;
    for (double d = lx0; d <= lx1 + 0.01; d += 1, ++n) {
      const double x = xPos(std::pow(10.0, d));
      p.setPen(QPen(grid, 1));
      p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
      if (n % every != 0) continue;
      const double us = std::pow(10.0, d);
      const QString label = us >= 1e6   ? compact(us / 1e6) + QStringLiteral(" s")
                            : us >= 1e3 ? compact(us / 1e3) + QStringLiteral(" ms")
                                        : compact(us) + QStringLiteral(" µs");
      p.setPen(muted);
      p.drawText(labelRect(x), Qt::AlignHCenter | Qt::AlignTop, label);
    }
  } else if (!empty) {
    const double xStep = niceStep(xMax - xMin, std::max(2, plot.width() / 70));
    for (double v = std::ceil(xMin / xStep) * xStep; v <= xMax + xStep / 1000; v += xStep) {
      const double x = xPos(v);
      p.setPen(QPen(grid, 1));
      p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
      p.setPen(muted);
      p.drawText(labelRect(x), Qt::AlignHCenter | Qt::AlignTop, compact(v));
    }
  }
  p.setPen(QPen(pal.color(QPalette::Mid), 1));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.bottomLeft(), plot.topLeft());

  if (empty) {
    p.setPen(muted);
    p.drawText(plot, Qt::AlignCenter | Qt::TextWordWrap, empty_);
    return;
  }
  if (cursor_ && !logX_ && *cursor_ >= xMin && *cursor_ <= xMax) {
    const double x = xPos(*cursor_);
    p.setPen(QPen(text, 1, Qt::DotLine));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  // A under B would hide A where they agree: B is drawn dashed, so A shows through its gaps.
  for (int side = 0; side < 2; ++side) {
    const auto& s = series_[static_cast<std::size_t>(side)];
    if (s.empty()) continue;
    const QColor c = compareSideColor(pal, side);
    QPainterPath path;
    path.moveTo(xPos(s.front().x()), yPos(s.front().y()));
    for (std::size_t i = 1; i < s.size(); ++i) path.lineTo(xPos(s[i].x()), yPos(s[i].y()));
    QPen pen(c, 2.2);
    if (side == 1) pen.setDashPattern({4, 2});
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    if (s.size() == 1) {
      p.setBrush(c);
      p.drawEllipse(QPointF(xPos(s.front().x()), yPos(s.front().y())), 3, 3);
    } else {
      p.drawPath(path);
    }
  }
}

CompareLegend::CompareLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void CompareLegend::setNames(const QString& a, const QString& b) {
  names_ = {a, b};
  updateGeometry();
  update();
}

QSize CompareLegend::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.horizontalAdvance(names_[0] + names_[1]) + 120, fm.height() + 8};
}

void CompareLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QFontMetrics fm = fontMetrics();
  int x = 6;
  const int mid = height() / 2;
  for (int side = 0; side < 2; ++side) {
    const QColor c = compareSideColor(palette(), side);
    QPen pen(c, 3);
    if (side == 1) pen.setDashPattern({3, 1.5});
    p.setPen(pen);
    p.drawLine(x, mid, x + 26, mid);
    x += 32;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::WindowText));
    const QString label = names_[static_cast<std::size_t>(side)];
    p.drawText(QRect(x, 0, fm.horizontalAdvance(label) + 20, height()), Qt::AlignLeft | Qt::AlignVCenter,
               label);
    x += QFontMetrics(bold).horizontalAdvance(label) + 28;
  }
}

}  // namespace actorscope::views
