// The sequence chart: custom painted, only the visible rows.
#include "flow/message_flow_view.hpp"

#include "common/actor_metrics.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "flow/message_flow_model.hpp"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace actorscope::views {

SequenceChart::SequenceChart(MessageFlowModel* model, ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QAbstractScrollArea(parent), model_(model), selection_(selection), control_(control) {
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  viewport()->setBackgroundRole(QPalette::Base);
  viewport()->setAutoFillBackground(true);
  viewport()->setMouseTracking(true);
  connect(model_, &QAbstractItemModel::rowsInserted, this, &SequenceChart::modelChanged);
  connect(model_, &QAbstractItemModel::rowsRemoved, this, &SequenceChart::modelChanged);
  connect(model_, &QAbstractItemModel::modelReset, this, &SequenceChart::modelChanged);
  connect(model_, &QAbstractItemModel::dataChanged, viewport(), qOverload<>(&QWidget::update));
  connect(model_, &MessageFlowModel::lanesChanged, viewport(), qOverload<>(&QWidget::update));
  connect(model_, &MessageFlowModel::highlightChanged, viewport(), qOverload<>(&QWidget::update));
  connect(selection_, &ActorSelection::changed, viewport(), qOverload<>(&QWidget::update));
}

void SequenceChart::modelChanged() {
  QScrollBar* bar = verticalScrollBar();
  const bool atBottom = bar->value() >= bar->maximum() - 4;
  updateScrollBar();
  if (atBottom || follow_) bar->setValue(bar->maximum());
  follow_ = false;
  viewport()->update();
}

void SequenceChart::updateScrollBar() {
  const int content = static_cast<int>(model_->rows().size()) * kRowH + 12;
  const int room = viewport()->height() - kHeaderH;
  verticalScrollBar()->setRange(0, std::max(0, content - room));
  verticalScrollBar()->setPageStep(room);
  verticalScrollBar()->setSingleStep(kRowH);
}

void SequenceChart::resizeEvent(QResizeEvent* e) {
  QAbstractScrollArea::resizeEvent(e);
  updateScrollBar();
}

void SequenceChart::scrollContentsBy(int, int) { viewport()->update(); }

double SequenceChart::laneX(int lane) const {
  const int lanes = std::max<int>(1, static_cast<int>(model_->lanes().size()));
  const double width = viewport()->width() - kGutter - 16;
  const double step = width / lanes;
  return kGutter + step * (lane + 0.5);
}

int SequenceChart::laneAt(const QPoint& pos) const {
  const int lanes = static_cast<int>(model_->lanes().size());
  if (lanes == 0) return -1;
  const double half = (viewport()->width() - kGutter - 16.0) / lanes / 2;
  for (int i = 0; i < lanes; ++i)
    if (std::abs(pos.x() - laneX(i)) < half) return i;
  return -1;
}

int SequenceChart::rowAt(const QPoint& pos) const {
  if (pos.y() < kHeaderH) return -1;
  const int row = (pos.y() - kHeaderH + verticalScrollBar()->value() - 6) / kRowH;
  return row >= 0 && row < static_cast<int>(model_->rows().size()) ? row : -1;
}

void SequenceChart::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  const auto& lanes = model_->lanes();
  const auto& rows = model_->rows();
  const int w = viewport()->width();
  const int h = viewport()->height();
  if (lanes.empty() || rows.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap,
               QStringLiteral("No messages in the last %1 s.\nMessages between actors show here as arrows, sender to "
                              "receiver (a sample of them: one in N per receiver).")
                   .arg(std::chrono::duration_cast<std::chrono::seconds>(model_->window()).count()));
    return;
  }
  const ActorId selected = selection_->current();
  const QColor line = pal.color(QPalette::Mid);
  const QColor text = pal.color(QPalette::Text);
  const QColor muted = pal.color(QPalette::PlaceholderText);
  const QColor accent = pal.color(QPalette::Highlight);
  const QColor bad = errorColor(pal);

  // Lifelines.
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const double x = laneX(static_cast<int>(i));
    QPen pen(line, lanes[i].id == selected && selected.is_valid() ? 2.0 : 1.0, Qt::DashLine);
    p.setPen(pen);
    p.drawLine(QPointF(x, kHeaderH), QPointF(x, h));
  }

  // Rows: only the visible ones.
  const int scroll = verticalScrollBar()->value();
  const int first = std::max(0, (scroll - 6) / kRowH - 1);
  const int last = std::min(static_cast<int>(rows.size()) - 1, (scroll + h) / kRowH + 1);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.9);
  const QFontMetricsF fm(small);
  p.setFont(small);
  p.setClipRect(QRect(0, kHeaderH, w, h - kHeaderH));
  for (int r = first; r <= last; ++r) {
    const FlowMessage& m = rows[static_cast<std::size_t>(r)];
    const double y = kHeaderH + 6 + r * kRowH - scroll + kRowH * 0.62;
    p.setPen(muted);
    p.drawText(QRectF(4, y - kRowH * 0.62, kGutter - 12, kRowH), Qt::AlignRight | Qt::AlignVCenter,
               formatSince(m.sent, model_->origin()));
    const double x1 = laneX(m.fromLane);
    const double x2 = laneX(m.toLane);
    const bool pending = !m.handled;
    const bool highlighted = model_->isHighlighted(m);
    const QColor c = m.failed ? bad
                     : highlighted || ((m.from == selected || m.to == selected) && selected.is_valid()) ? accent
                                                                                                      : text;
    if (highlighted) {
      // A chain of causes: a band across the row between its lanes, and a heavier arrow.
      p.setPen(Qt::NoPen);
      p.setBrush(tint(accent, pal, 0.22));
      const double left = std::min(x1, x2) - 12;
      const double right = std::max(x1, x2) + (m.fromLane == m.toLane ? 40 : 12);
      p.drawRoundedRect(QRectF(left, y - kRowH * 0.62, right - left, kRowH - 2), 4, 4);
    }
    QPen pen(c, highlighted ? 2.6 : 1.4, pending ? Qt::DashLine : Qt::SolidLine);
    p.setPen(pen);
    p.setBrush(c);
    const QString type = m.type.empty() ? QStringLiteral("message") : QString::fromStdString(shortTypeName(m.type));
    if (m.fromLane == m.toLane) {
      // A message to oneself: a small loop to the right of the lifeline.
      QPainterPath loop(QPointF(x1, y - 7));
      loop.cubicTo(QPointF(x1 + 30, y - 9), QPointF(x1 + 30, y + 5), QPointF(x1 + 3, y + 3));
      p.setBrush(Qt::NoBrush);
      p.drawPath(loop);
      p.setBrush(c);
      p.drawPolygon(QPolygonF({QPointF(x1 + 2, y + 3), QPointF(x1 + 9, y + 0), QPointF(x1 + 9, y + 6)}));
      p.setPen(c);
      p.drawText(QPointF(x1 + 34, y + fm.ascent() / 2 - 1), type);
      continue;
    }
    const double dir = x2 > x1 ? 1 : -1;
    p.drawLine(QPointF(x1, y), QPointF(x2 - dir * 7, y));
    p.setPen(Qt::NoPen);
    p.drawPolygon(QPolygonF({QPointF(x2, y), QPointF(x2 - dir * 8, y - 4), QPointF(x2 - dir * 8, y + 4)}));
    p.setPen(c);
    const double mid = (x1 + x2) / 2;
    const QString label = fm.elidedText(type, Qt::ElideRight, std::abs(x2 - x1) - 16);
    const double lw = fm.horizontalAdvance(label);
    p.drawText(QPointF(mid - lw / 2, y - 4), label);
    p.setBrush(pal.color(QPalette::Base));
    p.setPen(QPen(c, 1.2));
    p.drawEllipse(QPointF(x1, y), 2.5, 2.5);
  }
  p.setClipping(false);

  // Header: lane names on a band that stays put while the rows scroll.
  p.setPen(Qt::NoPen);
  p.setBrush(pal.color(QPalette::Window));
  p.drawRect(QRect(0, 0, w, kHeaderH));
  p.setPen(line);
  p.drawLine(0, kHeaderH, w, kHeaderH);
  QFont bold = font();
  bold.setBold(true);
  const QFontMetricsF fmb(bold);
  QFont tiny = font();
  tiny.setPointSizeF(font().pointSizeF() * 0.82);
  const QFontMetricsF fmt(tiny);
  const double laneW = lanes.size() > 0 ? (w - kGutter - 16.0) / static_cast<double>(lanes.size()) : w;
  using K = MessageFlowModel::Lane::Kind;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const auto& lane = lanes[i];
    const double x = laneX(static_cast<int>(i));
    const bool sel = lane.kind == K::actor && lane.id == selected && selected.is_valid();
    const QRectF box(x - laneW / 2 + 3, 4, laneW - 6, kHeaderH - 8);
    p.setPen(sel ? QPen(accent, 1.5) : QPen(line, 1, lane.kind == K::actor ? Qt::SolidLine : Qt::DashLine));
    p.setBrush(sel ? tint(accent, pal, 0.18) : pal.color(QPalette::Base));
    p.drawRoundedRect(box, 5, 5);
    // The name on the first line (cut at its end, never in the middle), what it is on the second:
    // the actor's id, how many actors a crowd holds.
    const QRectF inner = box.adjusted(4, 1, -4, -1);
    p.setFont(bold);
    p.setPen(lane.kind == K::actor ? text : muted);
    p.drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() * 0.55), Qt::AlignHCenter | Qt::AlignBottom,
               fmb.elidedText(QString::fromStdString(lane.name), Qt::ElideRight, inner.width()));
    QString second;
    switch (lane.kind) {
      case K::actor: second = formatActorId(lane.id); break;
      case K::crowd: second = QStringLiteral("%1 actors").arg(lane.members); break;
      case K::timers: second = QStringLiteral("as they fire"); break;
      case K::outside: second = QStringLiteral("not an actor"); break;
      case K::others: second = QStringLiteral("the rest"); break;
    }
    p.setFont(tiny);
    p.setPen(muted);
    p.drawText(QRectF(inner.left(), inner.top() + inner.height() * 0.55, inner.width(), inner.height() * 0.45),
               Qt::AlignHCenter | Qt::AlignTop, fmt.elidedText(second, Qt::ElideRight, inner.width()));
  }
  p.setFont(font());
}

void SequenceChart::mousePressEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  if (e->button() == Qt::LeftButton) {
    if (pos.y() < kHeaderH) {
      const int lane = laneAt(pos);
      if (lane >= 0) {
        const auto& l = model_->lanes()[static_cast<std::size_t>(lane)];
        if (l.kind == MessageFlowModel::Lane::Kind::actor) selection_->select(l.id);
      }
    } else if (const int row = rowAt(pos); row >= 0) {
      const FlowMessage& m = model_->rows()[static_cast<std::size_t>(row)];
      // Clicking an arrow selects the partner of the selected actor (or the receiver).
      selection_->select(m.to == selection_->current() && m.from.is_valid() ? m.from : m.to);
    }
  }
  QAbstractScrollArea::mousePressEvent(e);
}

void SequenceChart::mouseMoveEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  viewport()->setCursor((pos.y() < kHeaderH && laneAt(pos) >= 0) || rowAt(pos) >= 0 ? Qt::PointingHandCursor
                                                                                    : Qt::ArrowCursor);
  QAbstractScrollArea::mouseMoveEvent(e);
}

void SequenceChart::contextMenuEvent(QContextMenuEvent* e) {
  const QPoint pos = viewport()->mapFrom(this, e->pos());
  if (pos.y() >= kHeaderH) return;
  const int lane = laneAt(pos);
  if (lane < 0) return;
  const auto& l = model_->lanes()[static_cast<std::size_t>(lane)];
  if (l.kind != MessageFlowModel::Lane::Kind::actor) return;
  makeActorMenu(this, l.id, QString::fromStdString(l.name), selection_, control_)->popup(e->globalPos());
}

bool SequenceChart::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int row = help->pos().y() >= kHeaderH ? rowAt(help->pos()) : -1;
    if (row >= 0) {
      QToolTip::showText(help->globalPos(), model_->index(row, 0).data(Qt::ToolTipRole).toString(), viewport());
    } else if (help->pos().y() < kHeaderH && laneAt(help->pos()) >= 0) {
      const auto& l = model_->lanes()[static_cast<std::size_t>(laneAt(help->pos()))];
      using K = MessageFlowModel::Lane::Kind;
      QString tip;
      switch (l.kind) {
        case K::actor:
          tip = QStringLiteral("%1 %2 — click to select").arg(QString::fromStdString(l.name), formatActorId(l.id));
          break;
        case K::crowd:
          tip = QStringLiteral("%1 actors without a registered name and without a lane of their own, each exchanging "
                               "only a few messages: one lane for them all")
                    .arg(l.members);
          break;
        case K::timers: tip = QStringLiteral("Timers: each arrow is a message a timer delivered as it fired"); break;
        case K::outside: tip = QStringLiteral("Code outside any actor: a cast from main, the demo message"); break;
        case K::others: tip = QStringLiteral("Every actor without a lane of its own"); break;
      }
      QToolTip::showText(help->globalPos(), tip, viewport());
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QAbstractScrollArea::viewportEvent(e);
}

// -----------------------------------------------------------------------------------------------

MessageFlowView::MessageFlowView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection) {
  model_ = new MessageFlowModel(this);
  chart_ = new SequenceChart(model_, selection, control, this);
  mode_ = new QComboBox(this);
  mode_->addItem(QStringLiteral("Selected actor and its partners"));
  mode_->addItem(QStringLiteral("Top talkers"));
  mode_->setToolTip(QStringLiteral("Whose messages to draw"));
  window_ = new QComboBox(this);
  for (int s : {2, 5, 10, 30}) window_->addItem(QStringLiteral("last %1 s").arg(s), s);
  window_->setCurrentIndex(1);
  window_->setToolTip(QStringLiteral("How far back to look"));
  summary_ = new QLabel(this);
  summary_->setForegroundRole(QPalette::PlaceholderText);
  summary_->setWordWrap(true);  // a long note wraps; it never widens the view
  summary_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  top->addWidget(mode_);
  top->addWidget(window_);
  top->addWidget(summary_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(top);
  layout->addWidget(chart_, 1);

  connect(mode_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(window_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(selection_, &ActorSelection::changed, this, [this] {
    if (mode_->currentIndex() == 0) refresh();
  });
}

void MessageFlowView::refresh() {
  if (state_) setState(*state_);
}

void MessageFlowView::setState(const observe::SystemState& state) {
  state_ = &state;
  // As many lanes as fit at a readable width (one more for "others").
  model_->setMaxLanes(std::clamp((chart_->viewport()->width() - SequenceChart::kGutter - 16) / kMinLaneWidth - 1, 2, 12));
  const ActorId focus = mode_->currentIndex() == 0 ? selection_->current() : ActorId{};
  model_->setFocus(focus);
  model_->setWindow(std::chrono::seconds(window_->currentData().toInt()));
  // A replay's cursor sits in the middle of the window (the state runs on past it); a range the
  // user selected wins over both. The chart draws at most so many messages, the newest of its window:
  // around a cursor the window is cut to as many messages before the cursor as after it.
  if (userRange_) {
    model_->setRange(userRange_);
  } else if (focusTime_) {
    const TimePoint c = *focusTime_;
    const Duration half = model_->window() / 2;
    std::vector<TimePoint> before, after;
    for (const observe::MessageRecord& m : state.recent_messages()) {
      if (m.sent < c - half || m.sent > c + half) continue;
      (m.sent <= c ? before : after).push_back(m.sent);
    }
    const std::size_t each = static_cast<std::size_t>(std::max(2, model_->maxMessages())) / 2;
    TimePoint from = c - half, to = c + half;
    if (before.size() > each) {
      std::nth_element(before.begin(), before.end() - static_cast<std::ptrdiff_t>(each), before.end());
      from = *(before.end() - static_cast<std::ptrdiff_t>(each));
    }
    if (after.size() > each) {
      std::nth_element(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(each - 1), after.end());
      to = after[each - 1];
    }
    model_->setRange(std::pair(from, to));
  } else {
    model_->setRange(std::nullopt);
  }
  model_->update(state);
  // A selected actor that exchanged nothing lately (a quiet supervisor): the top talkers instead,
  // and the line above the chart says so.
  const bool quiet = focus.is_valid() && model_->rows().empty();
  if (quiet) {
    model_->setFocus({});
    model_->update(state);
  }
  const std::size_t shown = model_->rows().size();
  QString summary = model_->matched() > shown
                        ? QStringLiteral("newest %1 of %2 sampled messages").arg(shown).arg(model_->matched())
                        : QStringLiteral("%1 sampled messages").arg(shown);
  if (quiet) {
    const observe::ActorRecord* a = state.actor(focus);
    summary = QStringLiteral("%1 sent and received nothing in the last %2 s: the top talkers · %3")
                  .arg(a ? QString::fromStdString(displayName(*a)) : formatActorId(focus))
                  .arg(window_->currentData().toInt())
                  .arg(summary);
  }
  if (userRange_)
    summary = QStringLiteral("zoomed to %1 – %2 · %3")
                  .arg(formatSince(userRange_->first, state.first_time()), formatSince(userRange_->second, state.first_time()),
                       summary);
  else if (focusTime_)
    summary = QStringLiteral("around the cursor, %1 · %2").arg(formatSince(*focusTime_, state.first_time()), summary);
  summary_->setText(summary);
  if (focusTime_ && !userRange_) {
    // Scrolled so that the cursor's place (the first message after it) is in the middle.
    const auto& rows = model_->rows();
    const auto after = std::find_if(rows.begin(), rows.end(), [&](const FlowMessage& m) { return m.sent > *focusTime_; });
    const int row = static_cast<int>(after - rows.begin());
    QScrollBar* bar = chart_->verticalScrollBar();
    bar->setValue(std::clamp(row * SequenceChart::kRowH - (chart_->viewport()->height() - SequenceChart::kHeaderH) / 2, 0,
                             bar->maximum()));
  }
}

void MessageFlowView::setTimeRange(std::optional<std::pair<TimePoint, TimePoint>> range) {
  userRange_ = range;
  model_->setRange(range);
  window_->setEnabled(!range.has_value());  // a range replaces the window
  if (state_ != nullptr) setState(*state_);
}

void MessageFlowView::resetSession() {
  state_ = nullptr;
  model_->reset();
  // A range the user selected stays: the window (the timeline) drops it when another session comes.
  summary_->clear();
}

void MessageFlowView::setHighlightedTraces(std::vector<std::uint64_t> traces) {
  model_->setHighlightedTraces(std::move(traces));
}

}  // namespace actorscope::views
