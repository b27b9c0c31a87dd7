// The timeline strip: ruler, stacked density, markers, cursor and selection.
#include "timeline/timeline_widget.hpp"

#include "common/format.hpp"
#include "common/health.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace actorscope::views {
namespace {

/// A "nice" ruler step (1, 2 or 5 times a power of ten) for about `target` of time.
double niceStep(double target) {
  if (target <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(target)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= target) return m * p;
  return 10 * p;
}

QString rulerLabel(double seconds, double step) {
  if (step >= 1) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 0);
  if (step >= 0.1) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
  if (step >= 0.01) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
  return QStringLiteral("%1 ms").arg(seconds * 1000, 0, 'f', step >= 0.001 ? 0 : 1);
}

QColor markerColor(TimelineWidget::Marker::Kind kind, const QPalette& palette) {
  switch (kind) {
    case TimelineWidget::Marker::Kind::failure:
      return errorColor(palette);
    case TimelineWidget::Marker::Kind::kill:
      return warningColor(palette);
    case TimelineWidget::Marker::Kind::restart:
      return palette.color(QPalette::Highlight);
    case TimelineWidget::Marker::Kind::warning:
      return warningColor(palette);
  }
  return palette.color(QPalette::Text);
}

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("timeline-strip"));
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setToolTip(
      QStringLiteral("Drag the cursor (or click) to scrub; drag on the strip, or Shift+drag, to select a "
                     "range the message flow zooms to"));
}

void TimelineWidget::setRange(TimePoint start, TimePoint end) {
  start_ = start;
  end_ = std::max(end, start);
  ++version_;
  update();
}

void TimelineWidget::setDensity(std::vector<Bucket> buckets) {
  buckets_ = std::move(buckets);
  ++version_;
  update();
}

void TimelineWidget::setMarkers(std::vector<Marker> markers) {
  markers_ = std::move(markers);
  ++version_;
  update();
}

void TimelineWidget::setCursor(TimePoint t) {
  if (t == cursor_) return;
  cursor_ = t;
  update();
}

void TimelineWidget::clearSelection() {
  if (!selection_) return;
  selection_.reset();
  ++version_;
  update();
}

QRectF TimelineWidget::stripRect() const {
  return QRectF(kMargin, kRulerH + kMarkerH, std::max(1, width() - 2 * kMargin),
                std::max(8, height() - kRulerH - kMarkerH - 4));
}

TimePoint TimelineWidget::timeAt(double x) const {
  const QRectF r = stripRect();
  const double f = std::clamp((x - r.left()) / r.width(), 0.0, 1.0);
  const auto span = static_cast<double>((end_ - start_).count());
  return start_ + Duration(static_cast<Duration::rep>(std::llround(f * span)));
}

double TimelineWidget::xAt(TimePoint t) const {
  const QRectF r = stripRect();
  const auto span = static_cast<double>((end_ - start_).count());
  if (span <= 0) return r.left();
  return r.left() + r.width() * static_cast<double>((t - start_).count()) / span;
}

std::size_t TimelineWidget::wantedBuckets() const {
  return static_cast<std::size_t>(std::max(10.0, stripRect().width() / 2));
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  // Everything but the cursor (the ruler, the density strip, hundreds of markers, the selection)
  // is drawn once into a pixmap and reused while it is the same: a scrub repaints at every step,
  // and only the cursor moves.
  const qreal dpr = devicePixelRatioF();
  const Backdrop key{size(), dpr, palette().cacheKey(), font().key(), version_};
  if (backdrop_.isNull() || key != backdropKey_) {
    backdrop_ = QPixmap((QSizeF(size()) * dpr).toSize());
    backdrop_.setDevicePixelRatio(dpr);
    QPainter bp(&backdrop_);
    paintBackdrop(bp);
    backdropKey_ = key;
  }
  QPainter p(this);
  p.drawPixmap(0, 0, backdrop_);
  const QPalette& pal = palette();

  // Cursor: a line with a handle on the ruler.
  p.setRenderHint(QPainter::Antialiasing, true);
  const double cx = xAt(cursor_);
  p.setPen(QPen(pal.color(QPalette::Text), 1.5));
  p.drawLine(QPointF(cx, 2), QPointF(cx, height() - 2));
  QPainterPath handle;
  handle.moveTo(cx - 6, 1);
  handle.lineTo(cx + 6, 1);
  handle.lineTo(cx, 9);
  handle.closeSubpath();
  p.fillPath(handle, pal.color(QPalette::Text));
  if (hasFocus()) {
    p.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DotLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(rect().adjusted(0, 0, -1, -1));
  }
}

void TimelineWidget::paintBackdrop(QPainter& p) const {
  p.setRenderHint(QPainter::Antialiasing, false);
  const QPalette& pal = palette();
  const QRectF strip = stripRect();
  p.fillRect(rect(), pal.color(QPalette::Base));

  // Ruler: times from the session's start.
  const double spanS = std::chrono::duration<double>(end_ - start_).count();
  p.setPen(pal.color(QPalette::PlaceholderText));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  p.setFont(small);
  if (spanS > 0) {
    const double step = niceStep(spanS / std::max(1.0, strip.width() / 90));
    for (double s = 0; s <= spanS + step * 1e-6; s += step) {
      const double x = strip.left() + strip.width() * s / spanS;
      p.drawLine(QPointF(x, kRulerH - 5), QPointF(x, kRulerH));
      p.drawText(QPointF(x + 3, kRulerH - 6), rulerLabel(s, step));
    }
  }
  p.drawLine(QPointF(strip.left(), kRulerH), QPointF(strip.right(), kRulerH));

  // Density: one bar per bucket, stacked failures (bottom), lifecycle, messages; heights on a
  // square-root scale so that a quiet stretch is still visible beside a busy one.
  std::uint32_t most = 1;
  for (const Bucket& b : buckets_) most = std::max(most, b.lifecycle + b.messages + b.failures);
  const double scale = strip.height() / std::sqrt(static_cast<double>(most));
  const QColor message = tint(pal.color(QPalette::Highlight), pal, 0.45);
  const QColor lifecycle = healthColor(Health::running, pal);
  const QColor failure = errorColor(pal);
  p.fillRect(strip, tint(pal.color(QPalette::Base), pal, 0.97));
  for (const Bucket& b : buckets_) {
    const double x0 = xAt(b.from), x1 = std::max(xAt(b.to), x0 + 1);
    const double total = b.lifecycle + b.messages + b.failures;
    if (total <= 0) continue;
    const double h = std::sqrt(total) * scale;
    double y = strip.bottom();
    for (auto [count, colour] : {std::pair{b.failures, failure}, std::pair{b.lifecycle, lifecycle},
                                 std::pair{b.messages, message}}) {
      if (count == 0) continue;
      const double part = h * count / total;
      p.fillRect(QRectF(x0, y - part, x1 - x0, part), colour);
      y -= part;
    }
  }

  // Selection.
  if (selection_) {
    const double a = xAt(selection_->first), b = xAt(selection_->second);
    QColor shade = pal.color(QPalette::Highlight);
    shade.setAlpha(60);
    p.fillRect(QRectF(a, kRulerH, std::max(1.0, b - a), height() - kRulerH), shade);
  }

  // Markers: a small triangle each, above the strip.
  p.setRenderHint(QPainter::Antialiasing, true);
  // Warnings first (hollow), then restarts, then kills, failures on top: a restart follows its
  // failure within a millisecond, and the failure is what the eye must find.
  std::vector<const Marker*> order;
  for (const Marker& m : markers_) order.push_back(&m);
  std::stable_sort(order.begin(), order.end(), [](const Marker* a, const Marker* b) {
    auto rank = [](Marker::Kind k) {
      switch (k) {
        case Marker::Kind::warning:
          return 0;
        case Marker::Kind::restart:
          return 1;
        case Marker::Kind::kill:
          return 2;
        case Marker::Kind::failure:
          return 3;
      }
      return 3;
    };
    return rank(a->kind) < rank(b->kind);
  });
  for (const Marker* mp : order) {
    const Marker& m = *mp;
    const double x = xAt(m.time);
    QPainterPath tri;
    tri.moveTo(x - 4, kRulerH + 2);
    tri.lineTo(x + 4, kRulerH + 2);
    tri.lineTo(x, kRulerH + kMarkerH - 2);
    tri.closeSubpath();
    if (m.kind == Marker::Kind::warning)
      p.strokePath(tri, QPen(markerColor(m.kind, pal), 1.5));
    else
      p.fillPath(tri, markerColor(m.kind, pal));
  }
}

int TimelineWidget::markerAt(const QPoint& pos) const {
  if (pos.y() < kRulerH || pos.y() > kRulerH + kMarkerH) return -1;
  int best = -1;
  double bestD = 6;
  for (std::size_t i = 0; i < markers_.size(); ++i) {
    const double d = std::abs(xAt(markers_[i].time) - pos.x());
    if (d <= bestD) {
      bestD = d;
      best = static_cast<int>(i);
    }
  }
  return best;
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
  setFocus(Qt::MouseFocusReason);
  pressAt_ = e->position().toPoint();
  moved_ = false;
  if (const int m = markerAt(pressAt_); m >= 0 && !(e->modifiers() & Qt::ShiftModifier)) {
    drag_ = Drag::none;
    emit markerClicked(m);
    return;
  }
  const bool onCursor = std::abs(xAt(cursor_) - e->position().x()) <= 5 || e->position().y() < kRulerH;
  if (onCursor && !(e->modifiers() & Qt::ShiftModifier)) {
    drag_ = Drag::cursor;
    cursor_ = timeAt(e->position().x());
    update();
    emit cursorDragged(cursor_);
  } else {
    drag_ = Drag::select;  // a click without a drag moves the cursor (on release)
    anchor_ = timeAt(e->position().x());
  }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
  if (drag_ == Drag::none) {
    const int m = markerAt(e->position().toPoint());
    QWidget::setCursor(m >= 0 || std::abs(xAt(cursor_) - e->position().x()) <= 5 ? Qt::PointingHandCursor
                                                                                 : Qt::ArrowCursor);
    return;
  }
  if ((e->position().toPoint() - pressAt_).manhattanLength() >= 4) moved_ = true;
  const TimePoint t = timeAt(e->position().x());
  if (drag_ == Drag::cursor) {
    cursor_ = t;
    update();
    emit cursorDragged(t);  // the owner coalesces: it computes the state for the latest one only
  } else if (moved_) {
    selection_ = std::pair(std::min(anchor_, t), std::max(anchor_, t));
    ++version_;
    update();
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return QWidget::mouseReleaseEvent(e);
  const Drag drag = std::exchange(drag_, Drag::none);
  if (drag != Drag::select) return;
  if (moved_ && selection_) {
    emit rangeSelected(selection_->first, selection_->second);
  } else {
    // A click: the cursor goes there, and a selection there was is dropped.
    if (selection_) {
      selection_.reset();
      ++version_;
      emit rangeSelected(anchor_, anchor_);
    }
    cursor_ = anchor_;
    update();
    emit cursorDragged(cursor_);
  }
}

void TimelineWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  emit widthChanged();
}

bool TimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    if (const int m = markerAt(help->pos()); m >= 0) {
      const Marker& mk = markers_[static_cast<std::size_t>(m)];
      QToolTip::showText(
          help->globalPos(),
          QStringLiteral("%1\nat %2 — click to go there").arg(mk.label, formatSince(mk.time, start_)), this);
      return true;
    }
    // Over the strip: the bucket's counts.
    const TimePoint t = timeAt(help->pos().x());
    for (const Bucket& b : buckets_) {
      if (t >= b.from && t < b.to) {
        QToolTip::showText(help->globalPos(),
                           QStringLiteral("%1 – %2\n%3 messages, %4 lifecycle, %5 failures")
                               .arg(formatSince(b.from, start_), formatSince(b.to, start_))
                               .arg(b.messages)
                               .arg(b.lifecycle)
                               .arg(b.failures),
                           this);
        return true;
      }
    }
  }
  return QWidget::event(e);
}

}  // namespace actorscope::views
