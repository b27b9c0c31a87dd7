// The ratio chart, painted.
#include "bench/ratio_chart.hpp"

#include "common/health.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace actorscope::views {
namespace {

constexpr double kMargin = 8;
constexpr double kMaxRow = 30;
constexpr double kGap = 6;  // between a bar's end (or whisker) and its figure

QString ratioText(double r) {
  if (r >= 100) return QString::number(r, 'f', 0) + QStringLiteral("×");
  if (r >= 10) return QString::number(r, 'f', 1) + QStringLiteral("×");
  if (r >= 1) return QString::number(r, 'f', 2) + QStringLiteral("×");
  return QString::number(r, 'g', 3) + QStringLiteral("×");
}

/// An axis tick: "1×", "2×", "0.5×", "0.25×".
QString tickText(double r) { return QString::number(r, 'g', 4) + QStringLiteral("×"); }

}  // namespace

RatioChart::RatioChart(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setMouseTracking(true);
  message_ = QStringLiteral("No run yet");
}

void RatioChart::setBars(std::vector<Bar> bars, const QString& numerator, const QString& denominator) {
  bars_ = std::move(bars);
  denominator_ = denominator;
  title_ = QStringLiteral("%1 ÷ %2, median per element (1× is a tie)").arg(numerator, denominator);
  message_.clear();
  update();
}

void RatioChart::clear(const QString& message) {
  bars_.clear();
  title_.clear();
  message_ = message;
  update();
}

QString RatioChart::valueText(const Bar& b) const {
  return ratioText(b.ratio) + (b.busy ? QStringLiteral(" · busy") : QString());
}

double RatioChart::xOf(double ratio, const Geometry& g) const {
  const double v = std::log2(std::max(ratio, 1e-9));
  return g.plot.left() + (v - g.lo) / (g.hi - g.lo) * g.plot.width();
}

RatioChart::Geometry RatioChart::geometry() const {
  Geometry g;
  const QFontMetricsF fm(font());
  double widest = 0;
  for (const Bar& b : bars_) widest = std::max(widest, fm.horizontalAdvance(b.label));
  g.labelWidth = std::min(widest + 10, width() * 0.42);
  const double top = kMargin + fm.height() + 8;                 // the title
  const double bottom = height() - kMargin - 2 * fm.height() - 8;  // tick labels, the key
  const double rows = static_cast<double>(std::max<std::size_t>(1, bars_.size()));
  g.rowHeight = std::min(kMaxRow, std::max(1.0, (bottom - top) / rows));
  g.plot = QRectF(kMargin + g.labelWidth, top, std::max(40.0, width() - 2 * kMargin - g.labelWidth), g.rowHeight * rows);
  // The axis spans 0.5× to 2× at least, every bar and whisker, and room for every figure beside
  // its bar on one side or the other.
  double lo = std::log2(0.5), hi = std::log2(2.0);
  for (const Bar& b : bars_) {
    for (double v : {b.ratio, b.low, b.high}) {
      if (v <= 0) continue;
      lo = std::min(lo, std::log2(v));
      hi = std::max(hi, std::log2(v));
    }
  }
  g.lo = lo - 0.25;
  g.hi = hi + 0.25;
  for (int round = 0; round < 12; ++round) {
    bool fits = true;
    bool wantRight = false;
    for (std::size_t i = 0; i < bars_.size() && fits; ++i) {
      const QRectF r = valueRectIn(static_cast<int>(i), g);
      if (r.left() < g.plot.left() || r.right() > g.plot.right()) {
        fits = false;
        wantRight = r.right() > g.plot.right();
      }
    }
    if (fits) break;
    (wantRight ? g.hi : g.lo) += wantRight ? 0.5 : -0.5;
  }
  return g;
}

QRectF RatioChart::valueRectIn(int i, const Geometry& g) const {
  const Bar& b = bars_[static_cast<std::size_t>(i)];
  const QFontMetricsF fm(font());
  const double w = fm.horizontalAdvance(valueText(b)) + 2;
  const double h = fm.height();
  double right = std::max(xOf(b.ratio, g), xOf(1.0, g));
  double left = std::min(xOf(b.ratio, g), xOf(1.0, g));
  if (b.high > 0) right = std::max(right, xOf(b.high, g));
  if (b.low > 0) left = std::min(left, xOf(b.low, g));
  const double cy = g.plot.top() + (i + 0.5) * g.rowHeight;
  // Beside the bar, on the side it grows towards when there is room; otherwise on the other side.
  const bool slower = b.ratio >= 1;
  const QRectF after(right + kGap, cy - h / 2, w, h);
  const QRectF before(left - kGap - w, cy - h / 2, w, h);
  const bool afterFits = after.right() <= g.plot.right();
  const bool beforeFits = before.left() >= g.plot.left();
  if (slower) return afterFits || !beforeFits ? after : before;
  return beforeFits || !afterFits ? before : after;
}

QRectF RatioChart::plotRect() const { return geometry().plot; }

QRectF RatioChart::valueRect(int i) const { return valueRectIn(i, geometry()); }

QRectF RatioChart::barRect(int i) const {
  const Geometry g = geometry();
  const Bar& b = bars_[static_cast<std::size_t>(i)];
  double left = std::min(xOf(b.ratio, g), xOf(1.0, g));
  double right = std::max(xOf(b.ratio, g), xOf(1.0, g));
  if (b.low > 0) left = std::min(left, xOf(b.low, g));
  if (b.high > 0) right = std::max(right, xOf(b.high, g));
  return {left, g.plot.top() + i * g.rowHeight + g.rowHeight * 0.2, right - left, g.rowHeight * 0.6};
}

void RatioChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  const QFontMetricsF fm(font());
  const QColor text = pal.color(QPalette::Text);
  const QColor muted = pal.color(QPalette::PlaceholderText);
  if (bars_.empty()) {
    p.setPen(muted);
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message_);
    return;
  }
  const Geometry g = geometry();
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(text);
  p.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, fm.height() + 4), Qt::AlignHCenter | Qt::AlignVCenter,
             QFontMetricsF(bold).elidedText(title_, Qt::ElideRight, width() - 2 * kMargin));
  p.setFont(font());

  // Ticks on powers of two (every other one when there would be too many), and the tie.
  const int first = static_cast<int>(std::ceil(g.lo));
  const int last = static_cast<int>(std::floor(g.hi));
  const int step = std::max(1, (last - first + 1 + 7) / 8);
  QColor grid = pal.color(QPalette::Mid);
  grid.setAlphaF(0.45f);
  for (int e = first; e <= last; ++e) {
    if (e % step != 0) continue;
    const double x = xOf(std::exp2(e), g);
    p.setPen(QPen(e == 0 ? text : grid, e == 0 ? 1.4 : 1.0));
    p.drawLine(QPointF(x, g.plot.top() - 2), QPointF(x, g.plot.bottom() + 2));
    const QString t = tickText(std::exp2(e));
    const double tw = fm.horizontalAdvance(t);
    p.setPen(muted);
    p.drawText(QPointF(std::clamp(x - tw / 2, 0.0, width() - tw), g.plot.bottom() + 4 + fm.ascent()), t);
  }

  QColor barColor = pal.color(QPalette::Highlight);
  barColor.setAlphaF(0.8f);
  const QColor busy = warningColor(pal);
  for (std::size_t i = 0; i < bars_.size(); ++i) {
    const Bar& b = bars_[i];
    const double top = g.plot.top() + static_cast<double>(i) * g.rowHeight;
    const double cy = top + g.rowHeight / 2;
    if (i % 2 == 1) {
      QColor band = pal.color(QPalette::AlternateBase);
      p.setPen(Qt::NoPen);
      p.setBrush(band);
      p.drawRect(QRectF(kMargin, top, width() - 2 * kMargin, g.rowHeight));
    }
    p.setPen(text);
    p.drawText(QRectF(kMargin, top, g.labelWidth - 8, g.rowHeight), Qt::AlignRight | Qt::AlignVCenter,
               fm.elidedText(b.label, Qt::ElideRight, g.labelWidth - 8));
    // The bar, from the tie to the ratio.
    const double x1 = xOf(1.0, g), x2 = xOf(b.ratio, g);
    const double bh = std::max(4.0, g.rowHeight * 0.5);
    p.setPen(b.busy ? QPen(busy, 1.5, Qt::DashLine) : Qt::NoPen);
    p.setBrush(barColor);
    p.drawRect(QRectF(std::min(x1, x2), cy - bh / 2, std::max(1.5, std::abs(x2 - x1)), bh));
    // The whiskers: the middle half of the samples.
    if (b.low > 0 && b.high > 0) {
      const double wl = xOf(b.low, g), wr = xOf(b.high, g);
      const double cap = std::max(4.0, g.rowHeight * 0.32);
      p.setPen(QPen(text, 1.3));
      p.drawLine(QPointF(wl, cy), QPointF(wr, cy));
      p.drawLine(QPointF(wl, cy - cap / 2), QPointF(wl, cy + cap / 2));
      p.drawLine(QPointF(wr, cy - cap / 2), QPointF(wr, cy + cap / 2));
    }
    // The figure, beside the bar.
    const QRectF v = valueRectIn(static_cast<int>(i), g);
    const QString ratio = ratioText(b.ratio);
    p.setPen(text);
    p.drawText(v, Qt::AlignLeft | Qt::AlignVCenter, ratio);
    if (b.busy) {
      p.setPen(busy);
      p.drawText(v.adjusted(fm.horizontalAdvance(ratio), 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                 QStringLiteral(" · busy"));
    }
  }

  // The key: what the axis and the whiskers mean.
  p.setPen(muted);
  const bool anyBusy = std::any_of(bars_.begin(), bars_.end(), [](const Bar& b) { return b.busy; });
  const QString key = QStringLiteral("log scale, over %1 · whiskers: the middle half of each runtime's samples%2")
                          .arg(denominator_, anyBusy ? QStringLiteral(" · busy: other programs used the CPU meanwhile")
                                                     : QString());
  p.drawText(QRectF(kMargin, g.plot.bottom() + 8 + fm.height(), width() - 2 * kMargin, fm.height()),
             Qt::AlignHCenter | Qt::AlignVCenter, fm.elidedText(key, Qt::ElideRight, width() - 2 * kMargin));
}

bool RatioChart::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip && !bars_.empty()) {
    auto* help = static_cast<QHelpEvent*>(e);
    const Geometry g = geometry();
    const int i = static_cast<int>((help->pos().y() - g.plot.top()) / g.rowHeight);
    if (help->pos().y() >= g.plot.top() && i >= 0 && i < static_cast<int>(bars_.size())) {
      const Bar& b = bars_[static_cast<std::size_t>(i)];
      QString tip = QStringLiteral("<b>%1</b><br>%2 the median on %3").arg(b.name.toHtmlEscaped(), ratioText(b.ratio), denominator_);
      if (b.low > 0 && b.high > 0)
        tip += QStringLiteral("<br>from %1 to %2 within the middle half of the samples").arg(ratioText(b.low), ratioText(b.high));
      if (!b.busyNote.isEmpty()) tip += QStringLiteral("<br>") + b.busyNote.toHtmlEscaped();
      QToolTip::showText(help->globalPos(), tip, this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace actorscope::views
