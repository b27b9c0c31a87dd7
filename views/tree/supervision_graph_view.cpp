// The supervision graph: a tidy left-to-right tree, custom painted (only what is visible).
#include "tree/supervision_graph_view.hpp"

#include "common/actor_metrics.hpp"
#include "common/format.hpp"
#include "common/icons.hpp"
#include "common/search_field.hpp"
#include "tree/supervision_tree_model.hpp"

#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QStringList>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace actorscope::views {
namespace {

constexpr double kMargin = 20;
constexpr double kHGap = 44;
constexpr double kVGap = 8;
constexpr double kMinAutoZoom = 0.8;
constexpr double kBadgeRoom = 48;  // a mailbox badge, right of the label

}  // namespace

SupervisionGraphCanvas::SupervisionGraphCanvas(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QAbstractScrollArea(parent), selection_(selection), control_(control) {
  setFrameShape(QFrame::NoFrame);
  viewport()->setMouseTracking(true);
  viewport()->setBackgroundRole(QPalette::Base);
  viewport()->setAutoFillBackground(true);
  flash_.setInterval(60);
  connect(&flash_, &QTimer::timeout, this, [this] {
    ++flashPhase_;
    viewport()->update();
  });
  connect(selection_, &ActorSelection::changed, this, [this](ActorId id) {
    if (const int i = layout_.indexOf(id); i >= 0) ensureVisible(i);
    viewport()->update();
  });
}

void SupervisionGraphCanvas::clear() {
  layout_ = {};  // a new session starts with no places
  columnWidth_.clear();
  columnX_.clear();
  userZoomed_ = false;
  zoom_ = 1.0;
  flash_.stop();
  updateScrollBars();
  viewport()->update();
}

QFont SupervisionGraphCanvas::labelFont() const {
  QFont bold = font();
  bold.setBold(true);
  return bold;
}

QFont SupervisionGraphCanvas::detailFont() const {
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.86);
  return small;
}

void SupervisionGraphCanvas::fitColumns() {
  const QFontMetricsF bold(labelFont());
  const QFontMetricsF small(detailFont());
  const int depth = layout_.nodes().empty() ? -1 : layout_.maxDepth();
  if (static_cast<int>(columnWidth_.size()) < depth + 1) columnWidth_.resize(static_cast<std::size_t>(depth + 1), kNodeMinW);
  for (const Node& n : layout_.nodes()) {
    // The bar on the left, the padding, the label (and a badge beside it), or the detail line.
    const double need = 22 + std::max(bold.horizontalAdvance(n.label) + (n.mailbox > 0 ? kBadgeRoom : 0),
                                      small.horizontalAdvance(n.detail));
    double& w = columnWidth_[static_cast<std::size_t>(n.depth)];
    w = std::max(w, std::min(kNodeMaxW, std::ceil(need)));
  }
  columnX_.assign(columnWidth_.size(), kMargin);
  for (std::size_t d = 1; d < columnWidth_.size(); ++d) columnX_[d] = columnX_[d - 1] + columnWidth_[d - 1] + kHGap;
}

void SupervisionGraphCanvas::changeEvent(QEvent* e) {
  QAbstractScrollArea::changeEvent(e);
  if (e->type() == QEvent::FontChange) {
    columnWidth_.clear();
    fitColumns();
    updateScrollBars();
  }
}

void SupervisionGraphCanvas::autoFit() {
  // Until the user zooms, the drawing shrinks to fit (down to a size that stays readable).
  if (userZoomed_) return;
  const QSizeF size = contentSize();
  if (size.isEmpty()) return;
  const double fit = std::clamp(std::min(viewport()->width() / size.width(), viewport()->height() / size.height()),
                                kMinAutoZoom, 1.0);
  if (std::abs(fit - zoom_) > 0.04) zoom_ = fit;
}

QPointF SupervisionGraphCanvas::origin() const {
  const QSizeF size = contentSize() * zoom_;
  return {std::max(0.0, (viewport()->width() - size.width()) / 2), std::max(0.0, (viewport()->height() - size.height()) / 2)};
}

void SupervisionGraphCanvas::setState(const observe::SystemState& state) {
  // The layout is a function of the state; the places it keeps come back in through the previous
  // layout, which this canvas only stores.
  layout_ = layOutSupervisionGraph(state, {.showStopped = showStopped_, .selected = selection_->current()},
                                   std::move(layout_));
  fitColumns();
  autoFit();
  const bool anyFlash = std::any_of(nodes().begin(), nodes().end(), [](const Node& n) { return n.flashing; });
  if (anyFlash && !flash_.isActive()) flash_.start();
  if (!anyFlash) flash_.stop();
  updateScrollBars();
  setSearch(search_);
  viewport()->update();
}

void SupervisionGraphCanvas::setSearch(const QString& text) {
  search_ = text.trimmed().toLower();
  int matches = 0;
  if (!search_.isEmpty())
    for (const Node& n : nodes())
      if (!n.aggregate && n.search.contains(search_)) ++matches;
  emit searchMatches(search_.isEmpty() ? -1 : matches);
  viewport()->update();
}

QRectF SupervisionGraphCanvas::nodeRect(const Node& n) const {
  const auto d = static_cast<std::size_t>(n.depth);
  const double x = d < columnX_.size() ? columnX_[d] : kMargin + n.depth * (kNodeMinW + kHGap);
  const double w = d < columnWidth_.size() ? columnWidth_[d] : kNodeMinW;
  return {x, kMargin + n.row * (kNodeH + kVGap), w, kNodeH};
}

QSizeF SupervisionGraphCanvas::contentSize() const {
  if (nodes().empty()) return {};
  const double width = columnX_.empty() ? 0 : columnX_.back() + columnWidth_.back() + kMargin;
  const double height = 2 * kMargin + layout_.rowCount() * (kNodeH + kVGap) - kVGap;
  return {width, height};
}

void SupervisionGraphCanvas::updateScrollBars() {
  const QSizeF size = contentSize() * zoom_;
  const QSize vp = viewport()->size();
  horizontalScrollBar()->setRange(0, std::max(0, static_cast<int>(size.width()) - vp.width()));
  verticalScrollBar()->setRange(0, std::max(0, static_cast<int>(size.height()) - vp.height()));
  horizontalScrollBar()->setPageStep(vp.width());
  verticalScrollBar()->setPageStep(vp.height());
  horizontalScrollBar()->setSingleStep(24);
  verticalScrollBar()->setSingleStep(24);
}

void SupervisionGraphCanvas::resizeEvent(QResizeEvent* e) {
  QAbstractScrollArea::resizeEvent(e);
  autoFit();
  updateScrollBars();
}

void SupervisionGraphCanvas::scrollContentsBy(int, int) { viewport()->update(); }

QPointF SupervisionGraphCanvas::toScene(const QPoint& p) const {
  const QPointF o = origin();
  return QPointF(p.x() - o.x() + horizontalScrollBar()->value(), p.y() - o.y() + verticalScrollBar()->value()) / zoom_;
}

int SupervisionGraphCanvas::nodeAt(const QPoint& viewportPos) const {
  const QPointF s = toScene(viewportPos);
  for (std::size_t i = 0; i < nodes().size(); ++i)
    if (nodeRect(nodes()[i]).contains(s)) return static_cast<int>(i);
  return -1;
}

void SupervisionGraphCanvas::ensureVisible(int node) {
  const QRectF r = nodeRect(nodes()[static_cast<std::size_t>(node)]);
  const QRectF vr(toScene(QPoint(0, 0)), QSizeF(viewport()->size()) / zoom_);
  if (vr.contains(r)) return;
  horizontalScrollBar()->setValue(static_cast<int>((r.center().x() - vr.width() / 2) * zoom_));
  verticalScrollBar()->setValue(static_cast<int>((r.center().y() - vr.height() / 2) * zoom_));
}

void SupervisionGraphCanvas::setZoom(double zoom) {
  userZoomed_ = true;  // from here on the user's zoom holds; auto-fit is off
  zoom_ = std::clamp(zoom, 0.2, 2.0);
  updateScrollBars();
  viewport()->update();
}

void SupervisionGraphCanvas::fitToView() {
  const QSizeF size = contentSize();
  if (size.isEmpty()) return;
  setZoom(std::min({1.0, viewport()->width() / size.width(), viewport()->height() / size.height()}));
}

void SupervisionGraphCanvas::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  if (nodes().empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter, QStringLiteral("No actors yet"));
    return;
  }
  p.translate(origin() - QPointF(horizontalScrollBar()->value(), verticalScrollBar()->value()));
  p.scale(zoom_, zoom_);
  const QRectF visible = QRectF(toScene(QPoint(0, 0)), QSizeF(viewport()->size()) / zoom_).adjusted(-kNodeMaxW, -kNodeH, 0, 0);

  // Edges first, under the nodes.
  QColor edge = pal.color(QPalette::Text);
  edge.setAlphaF(0.28f);
  p.setPen(QPen(edge, 1.2));
  p.setBrush(Qt::NoBrush);
  for (const Node& n : nodes()) {
    if (n.parent < 0) continue;
    const QRectF c = nodeRect(n);
    const QRectF pr = nodeRect(nodes()[static_cast<std::size_t>(n.parent)]);
    if (!visible.intersects(c.united(pr))) continue;
    const QPointF a(pr.right(), pr.center().y());
    const QPointF b(c.left(), c.center().y());
    QPainterPath path(a);
    path.cubicTo(a + QPointF(kHGap / 2, 0), b - QPointF(kHGap / 2, 0), b);
    p.drawPath(path);
  }

  const bool searching = !search_.isEmpty();
  const ActorId selected = selection_->current();
  const QFont bold = labelFont();
  const QFont small = detailFont();
  const QFontMetricsF fmBold(bold);
  const QFontMetricsF fmSmall(small);
  const double pulse = 0.5 + 0.5 * std::sin(flashPhase_ * 0.45);

  for (const Node& n : nodes()) {
    const QRectF r = nodeRect(n);
    if (!visible.intersects(r)) continue;
    const bool match = searching && !n.aggregate && n.search.contains(search_);
    p.setOpacity(searching && !match ? 0.3 : 1.0);
    const QColor c = healthColor(n.health, pal);
    if (n.flashing) {
      // A pulsing red ring for a few seconds after a failure (the actor's own, or a child's).
      QColor glow = errorColor(pal);
      glow.setAlphaF(static_cast<float>(0.15 + 0.55 * pulse));
      p.setPen(QPen(glow, 3));
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(r.adjusted(-3, -3, 3, 3), 8, 8);
    }
    p.setPen(n.aggregate ? QPen(c, 1.2, Qt::DashLine) : QPen(c, 1.3));
    p.setBrush(tint(c, pal, n.aggregate ? 0.06 : 0.14));
    p.drawRoundedRect(r, 6, 6);
    if (!n.aggregate) {
      p.setPen(Qt::NoPen);
      p.setBrush(c);
      QPainterPath bar;
      bar.addRoundedRect(QRectF(r.left(), r.top(), 8, r.height()), 6, 6);
      bar.addRect(QRectF(r.left() + 4, r.top(), 4, r.height()));
      p.drawPath(bar.simplified());
    }
    if (n.id == selected && n.id.is_valid() && !n.aggregate) {
      p.setPen(QPen(pal.color(QPalette::Highlight), 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(r.adjusted(-2, -2, 2, 2), 8, 8);
    } else if (match) {
      p.setPen(QPen(pal.color(QPalette::Highlight), 2, Qt::DashLine));
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(r.adjusted(-2, -2, 2, 2), 8, 8);
    }
    const QRectF text = r.adjusted(14, 3, -8, -3);
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    const double badgeRoom = n.mailbox > 0 ? kBadgeRoom : 0;
    p.drawText(QRectF(text.left(), text.top(), text.width() - badgeRoom, text.height() / 2),
               Qt::AlignLeft | Qt::AlignVCenter, fmBold.elidedText(n.label, Qt::ElideRight, text.width() - badgeRoom));
    p.setFont(small);
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(text.left(), text.center().y(), text.width(), text.height() / 2), Qt::AlignLeft | Qt::AlignVCenter,
               fmSmall.elidedText(n.detail, Qt::ElideRight, text.width()));
    if (n.mailbox > 0) {
      // Mailbox badge: a pill whose colour moves from neutral to amber to red with the depth.
      const QString t = formatCount(static_cast<double>(n.mailbox));
      const double w = std::max(22.0, fmSmall.horizontalAdvance(t) + 12);
      const QRectF badge(r.right() - w - 6, r.top() + 5, w, fmSmall.height() + 2);
      const QColor bc = n.mailbox < 16 ? pal.color(QPalette::Mid) : mailboxColor(n.mailbox, pal);
      p.setPen(Qt::NoPen);
      p.setBrush(bc);
      p.drawRoundedRect(badge, badge.height() / 2, badge.height() / 2);
      p.setPen(n.mailbox < 16 ? pal.color(QPalette::Text) : QColor(Qt::white));
      p.drawText(badge, Qt::AlignCenter, t);
    }
  }
}

// -----------------------------------------------------------------------------------------------

namespace {
constexpr Health kLegend[] = {Health::running, Health::starting, Health::draining,
                              Health::stopped, Health::failed,   Health::killed};
}

StatusLegend::StatusLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  setToolTip(QStringLiteral("Node colours: where each actor is in its life, or how it ended"));
}

QSize StatusLegend::sizeHint() const {
  const QFontMetrics fm(font());
  int w = 0;
  for (Health h : kLegend) w += 16 + fm.horizontalAdvance(healthText(h)) + 10;
  return {w, fm.height() + 6};
}

QSize StatusLegend::minimumSizeHint() const { return {0, sizeHint().height()}; }

void StatusLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  const QFontMetricsF fm(font());
  double x = 4;
  const double cy = height() / 2.0;
  for (Health h : kLegend) {
    p.setPen(Qt::NoPen);
    p.setBrush(healthColor(h, pal));
    p.drawEllipse(QPointF(x + 4, cy), 4, 4);
    p.setPen(pal.color(QPalette::Text));
    const QString t = healthText(h);
    p.drawText(QPointF(x + 12, cy + fm.ascent() / 2 - 1), t);
    x += 16 + fm.horizontalAdvance(t) + 10;
  }
}

void SupervisionGraphCanvas::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    const int i = nodeAt(e->position().toPoint());
    if (i >= 0 && !nodes()[static_cast<std::size_t>(i)].aggregate) {
      selection_->select(nodes()[static_cast<std::size_t>(i)].id);
    } else {
      dragging_ = true;
      dragFrom_ = e->position().toPoint();
      viewport()->setCursor(Qt::ClosedHandCursor);
    }
  }
  QAbstractScrollArea::mousePressEvent(e);
}

void SupervisionGraphCanvas::mouseMoveEvent(QMouseEvent* e) {
  if (dragging_) {
    const QPoint d = e->position().toPoint() - dragFrom_;
    dragFrom_ = e->position().toPoint();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
  } else {
    const int i = nodeAt(e->position().toPoint());
    viewport()->setCursor(i >= 0 && !nodes()[static_cast<std::size_t>(i)].aggregate ? Qt::PointingHandCursor
                                                                                   : Qt::ArrowCursor);
  }
  QAbstractScrollArea::mouseMoveEvent(e);
}

void SupervisionGraphCanvas::mouseReleaseEvent(QMouseEvent* e) {
  dragging_ = false;
  viewport()->unsetCursor();
  QAbstractScrollArea::mouseReleaseEvent(e);
}

void SupervisionGraphCanvas::wheelEvent(QWheelEvent* e) {
  if (e->modifiers() & Qt::ControlModifier) {
    const QPointF anchor = toScene(e->position().toPoint());
    setZoom(zoom_ * std::pow(1.0015, e->angleDelta().y()));
    horizontalScrollBar()->setValue(static_cast<int>(anchor.x() * zoom_ - e->position().x()));
    verticalScrollBar()->setValue(static_cast<int>(anchor.y() * zoom_ - e->position().y()));
    e->accept();
    return;
  }
  QAbstractScrollArea::wheelEvent(e);
}

QMenu* SupervisionGraphCanvas::contextMenuFor(int node) {
  if (node < 0 || node >= static_cast<int>(nodes().size())) return nullptr;
  const Node& n = nodes()[static_cast<std::size_t>(node)];
  if (n.aggregate) return nullptr;
  return makeActorMenu(this, n.id, n.label, selection_, control_);
}

void SupervisionGraphCanvas::contextMenuEvent(QContextMenuEvent* e) {
  if (QMenu* menu = contextMenuFor(nodeAt(viewport()->mapFrom(this, e->pos())))) menu->popup(e->globalPos());
}

bool SupervisionGraphCanvas::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int i = nodeAt(help->pos());
    if (i < 0) {
      QToolTip::hideText();
      return true;
    }
    const Node& n = nodes()[static_cast<std::size_t>(i)];
    QString tip;
    auto howTheyEnded = [&n] {
      QStringList parts;
      if (n.failed > 0) parts << QStringLiteral("%1 failed").arg(n.failed);
      if (n.killed > 0) parts << QStringLiteral("%1 killed").arg(n.killed);
      if (n.stopped > 0) parts << QStringLiteral("%1 stopped").arg(n.stopped);
      return parts.join(QStringLiteral(", "));
    };
    if (n.exits) {
      tip = QStringLiteral("%1 children exited in the last %2 s: %3.<br>The tree and the event log list them.")
                .arg(n.hidden)
                .arg(std::chrono::duration<double>(SupervisionGraphLayout::kExitsShownFor).count(), 0, 'f', 1)
                .arg(howTheyEnded());
    } else if (n.aggregate) {
      const QString ended = howTheyEnded();
      tip = QStringLiteral("%1 more children: %2 alive%3.<br>The tree and the Actors table list them all.")
                .arg(n.hidden)
                .arg(n.hiddenAlive)
                .arg(ended.isEmpty() ? QString() : QStringLiteral(", ") + ended);
    } else {
      tip = QStringLiteral("<b>%1</b> %2<br>%3<br>mailbox %4")
                .arg(n.label.toHtmlEscaped(), formatActorId(n.id), healthText(n.health))
                .arg(n.mailbox);
      if (n.flashing) tip += QStringLiteral("<br><span style='color:%1'>failed recently</span>").arg(errorColor(palette()).name());
    }
    QToolTip::showText(help->globalPos(), tip, viewport());
    return true;
  }
  return QAbstractScrollArea::viewportEvent(e);
}

// -----------------------------------------------------------------------------------------------

SupervisionGraphView::SupervisionGraphView(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent) {
  canvas_ = new SupervisionGraphCanvas(selection, control, this);
  search_ = new SearchField(QStringLiteral("Highlight name, id or type"), this);
  search_->setMaximumWidth(280);
  showStopped_ = new QToolButton(this);
  showStopped_->setIcon(icon(QStringLiteral("show-stopped")));
  showStopped_->setCheckable(true);
  showStopped_->setAutoRaise(true);
  showStopped_->setToolTip(QStringLiteral("Keep stopped actors in the drawing"));
  auto* fit = new QToolButton(this);
  fit->setIcon(icon(QStringLiteral("zoom-fit")));
  fit->setAutoRaise(true);
  fit->setToolTip(QStringLiteral("Fit the whole tree in view (Ctrl+wheel zooms)"));
  auto* actual = new QToolButton(this);
  actual->setIcon(icon(QStringLiteral("zoom-reset")));
  actual->setAutoRaise(true);
  actual->setToolTip(QStringLiteral("Zoom to 100%"));

  auto* matches = new QLabel(this);
  matches->setForegroundRole(QPalette::PlaceholderText);

  auto* tools = new QHBoxLayout;
  tools->setContentsMargins(0, 0, 0, 0);
  tools->addWidget(search_);
  tools->addWidget(matches);
  tools->addStretch(1);
  tools->addWidget(showStopped_);
  tools->addWidget(fit);
  tools->addWidget(actual);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(tools);
  layout->addWidget(canvas_, 1);
  layout->addWidget(new StatusLegend(this));

  connect(search_, &SearchField::searchChanged, canvas_, &SupervisionGraphCanvas::setSearch);
  connect(canvas_, &SupervisionGraphCanvas::searchMatches, matches, [matches](int n) {
    matches->setText(n < 0 ? QString() : QStringLiteral("%1 match%2").arg(n).arg(n == 1 ? "" : "es"));
  });
  connect(showStopped_, &QToolButton::toggled, this, [this](bool on) {
    canvas_->setShowStopped(on);
    if (state_) canvas_->setState(*state_);
  });
  connect(fit, &QToolButton::clicked, canvas_, &SupervisionGraphCanvas::fitToView);
  connect(actual, &QToolButton::clicked, canvas_, [this] { canvas_->setZoom(1.0); });
  search_->setMaximumWidth(320);
}

void SupervisionGraphView::setState(const observe::SystemState& state) {
  state_ = &state;
  canvas_->setState(state);
}

void SupervisionGraphView::resetSession() {
  state_ = nullptr;
  canvas_->clear();
  search_->clear();  // a highlight for the last session's actors means nothing in the next one
}

}  // namespace actorscope::views
