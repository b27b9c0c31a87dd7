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
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace actorscope::views {
namespace {

constexpr double kMargin = 20;
constexpr double kHGap = 44;
constexpr double kVGap = 8;
constexpr auto kFlashFor = std::chrono::milliseconds(2500);
constexpr double kMinAutoZoom = 0.8;

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
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].id == id && !nodes_[i].aggregate) ensureVisible(static_cast<int>(i));
    viewport()->update();
  });
}

void SupervisionGraphCanvas::clear() {
  nodes_.clear();
  maxDepth_ = 0;
  height_ = 0;
  userZoomed_ = false;
  zoom_ = 1.0;
  flash_.stop();
  updateScrollBars();
  viewport()->update();
}

int SupervisionGraphCanvas::addSubtree(const observe::SystemState& state, const observe::ActorRecord& a, int parent,
                                       int depth, double& nextY) {
  const TimePoint now = state.time();
  Node n;
  n.id = a.id;
  n.label = QString::fromStdString(nameUnder(a, a.parent.is_valid() ? state.actor(a.parent) : nullptr));
  n.health = healthOf(a);
  n.mailbox = a.alive() ? a.mailbox_depth : 0;
  n.flashing = failedRecently(a, now, kFlashFor) || recentChildFailures(a, now, std::chrono::seconds(1)) > 0;
  const double rate = messagesPerSecond(state, a);
  n.detail = formatActorId(a.id) + QStringLiteral("  ·  ") +
             (a.alive() ? formatRate(rate) : healthText(n.health));
  n.search = (QString::fromStdString(a.name) + QLatin1Char(' ') + QString::fromStdString(a.type_name) +
              QLatin1Char(' ') + formatActorId(a.id))
                 .toLower();
  n.parent = parent;
  n.depth = depth;
  maxDepth_ = std::max(maxDepth_, depth);
  const int self = static_cast<int>(nodes_.size());
  nodes_.push_back(n);

  // The drawing is about the live structure. Children that exited lately are folded into one node
  // per supervisor that flashes when they failed (a restarting supervisor would otherwise fill the
  // view with corpses); the tree and the table list them one by one. "Show stopped" draws them all.
  std::vector<const observe::ActorRecord*> kids;
  std::size_t exitedFailed = 0, exitedOther = 0;
  for (ActorId c : a.children) {
    const observe::ActorRecord* r = state.actor(c);
    if (r == nullptr || r->parent != a.id) continue;
    if (showStopped_ || r->alive()) {
      kids.push_back(r);
    } else if (now - r->stopped <= kFlashFor) {
      ++(r->exit_kind == ExitKind::failed ? exitedFailed : exitedOther);
    }
  }
  std::vector<const observe::ActorRecord*> chosen = kids;
  std::size_t hidden = 0, hiddenAlive = 0, hiddenFailed = 0;
  if (kids.size() > static_cast<std::size_t>(kMaxChildrenShown)) {
    // Keep the selected actor and the ones that are failing in view, then the first in link order.
    const std::size_t room = kMaxChildrenShown - 1;
    std::vector<bool> keep(kids.size(), false);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < kids.size() && kept < room; ++i)
      if (kids[i]->id == selection_->current() || failedRecently(*kids[i], now, kFlashFor)) keep[i] = true, ++kept;
    for (std::size_t i = 0; i < kids.size() && kept < room; ++i)
      if (!keep[i]) keep[i] = true, ++kept;
    chosen.clear();
    for (std::size_t i = 0; i < kids.size(); ++i) {
      if (keep[i]) {
        chosen.push_back(kids[i]);
      } else {
        ++hidden;
        if (kids[i]->alive()) ++hiddenAlive;
        if (kids[i]->exit_kind == ExitKind::failed) ++hiddenFailed;
      }
    }
  }
  const std::size_t exited = exitedFailed + exitedOther;
  if (chosen.empty() && hidden == 0 && exited == 0) {
    nodes_[static_cast<std::size_t>(self)].y = nextY;
    nextY += kNodeH + kVGap;
    return self;
  }
  double firstY = -1, lastY = 0;
  for (const observe::ActorRecord* c : chosen) {
    const int ci = addSubtree(state, *c, self, depth + 1, nextY);
    const double cy = nodes_[static_cast<std::size_t>(ci)].y;
    if (firstY < 0) firstY = cy;
    lastY = cy;
  }
  if (hidden > 0) {
    Node agg;
    agg.aggregate = true;
    agg.hidden = hidden;
    agg.hiddenAlive = hiddenAlive;
    agg.hiddenFailed = hiddenFailed;
    agg.label = QStringLiteral("+ %1 more").arg(hidden);
    agg.detail = QStringLiteral("%1 alive").arg(hiddenAlive) +
                 (hiddenFailed ? QStringLiteral(" · %1 failed").arg(hiddenFailed) : QString());
    agg.health = hiddenAlive > 0 ? Health::running : Health::stopped;
    agg.parent = self;
    agg.depth = depth + 1;
    agg.y = nextY;
    maxDepth_ = std::max(maxDepth_, depth + 1);
    nextY += kNodeH + kVGap;
    if (firstY < 0) firstY = agg.y;
    lastY = agg.y;
    nodes_.push_back(agg);
  }
  if (exited > 0) {
    Node gone;
    gone.aggregate = true;
    gone.exits = true;
    gone.hidden = exited;
    gone.hiddenFailed = exitedFailed;
    gone.label = exitedFailed > 0 ? QStringLiteral("%1 failed").arg(exitedFailed) : QStringLiteral("%1 stopped").arg(exited);
    if (exitedFailed > 0 && exitedOther > 0) gone.label += QStringLiteral(", %1 stopped").arg(exitedOther);
    gone.detail = QStringLiteral("in the last %1 s").arg(std::chrono::duration<double>(kFlashFor).count(), 0, 'f', 1);
    gone.health = exitedFailed > 0 ? Health::failed : Health::stopped;
    gone.flashing = exitedFailed > 0;
    gone.parent = self;
    gone.depth = depth + 1;
    gone.y = nextY;
    maxDepth_ = std::max(maxDepth_, depth + 1);
    nextY += kNodeH + kVGap;
    if (firstY < 0) firstY = gone.y;
    lastY = gone.y;
    nodes_.push_back(gone);
  }
  nodes_[static_cast<std::size_t>(self)].y = (firstY + lastY) / 2;
  return self;
}

void SupervisionGraphCanvas::layout(const observe::SystemState& state) {
  nodes_.clear();
  maxDepth_ = 0;
  double nextY = 0;
  const TimePoint now = state.time();
  for (ActorId root : state.roots()) {
    const observe::ActorRecord* r = state.actor(root);
    bool anyShown = showStopped_ || r->alive() || now - r->stopped <= kFlashFor;
    for (ActorId c : r->children)
      if (const auto* cr = state.actor(c); cr && cr->alive()) anyShown = true;
    if (anyShown) addSubtree(state, *r, -1, 0, nextY);
  }
  height_ = nextY > 0 ? nextY - kVGap : 0;
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
  layout(state);
  autoFit();
  const bool anyFlash = std::any_of(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.flashing; });
  if (anyFlash && !flash_.isActive()) flash_.start();
  if (!anyFlash) flash_.stop();
  updateScrollBars();
  setSearch(search_);
  viewport()->update();
}

void SupervisionGraphCanvas::setSearch(const QString& text) {
  search_ = text.trimmed().toLower();
  int matches = 0;
  int first = -1;
  if (!search_.isEmpty())
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (!nodes_[i].aggregate && nodes_[i].search.contains(search_)) {
        if (first < 0) first = static_cast<int>(i);
        ++matches;
      }
  emit searchMatches(search_.isEmpty() ? -1 : matches);
  viewport()->update();
}

QRectF SupervisionGraphCanvas::nodeRect(const Node& n) const {
  return {kMargin + n.depth * (kNodeW + kHGap), kMargin + n.y, kNodeW, kNodeH};
}

QSizeF SupervisionGraphCanvas::contentSize() const {
  // Room at the bottom for the legend, so that it never hides the last node.
  return {2 * kMargin + (maxDepth_ + 1) * (kNodeW + kHGap) - kHGap, 2 * kMargin + height_ + 28};
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
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodeRect(nodes_[i]).contains(s)) return static_cast<int>(i);
  return -1;
}

void SupervisionGraphCanvas::ensureVisible(int node) {
  const QRectF r = nodeRect(nodes_[static_cast<std::size_t>(node)]);
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
  if (nodes_.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter, QStringLiteral("No actors yet"));
    return;
  }
  p.save();
  p.translate(origin() - QPointF(horizontalScrollBar()->value(), verticalScrollBar()->value()));
  p.scale(zoom_, zoom_);
  const QRectF visible = QRectF(toScene(QPoint(0, 0)), QSizeF(viewport()->size()) / zoom_).adjusted(-kNodeW, -kNodeH, 0, 0);

  // Edges first, under the nodes.
  QColor edge = pal.color(QPalette::Text);
  edge.setAlphaF(0.28f);
  p.setPen(QPen(edge, 1.2));
  p.setBrush(Qt::NoBrush);
  for (const Node& n : nodes_) {
    if (n.parent < 0) continue;
    const QRectF c = nodeRect(n);
    const QRectF pr = nodeRect(nodes_[static_cast<std::size_t>(n.parent)]);
    if (!visible.intersects(c.united(pr))) continue;
    const QPointF a(pr.right(), pr.center().y());
    const QPointF b(c.left(), c.center().y());
    QPainterPath path(a);
    path.cubicTo(a + QPointF(kHGap / 2, 0), b - QPointF(kHGap / 2, 0), b);
    p.drawPath(path);
  }

  const bool searching = !search_.isEmpty();
  const ActorId selected = selection_->current();
  QFont bold = font();
  bold.setBold(true);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.86);
  const QFontMetricsF fmBold(bold);
  const double pulse = 0.5 + 0.5 * std::sin(flashPhase_ * 0.45);

  for (const Node& n : nodes_) {
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
    const double badgeRoom = n.mailbox > 0 ? 44 : 0;
    p.drawText(QRectF(text.left(), text.top(), text.width() - badgeRoom, text.height() / 2),
               Qt::AlignLeft | Qt::AlignVCenter, fmBold.elidedText(n.label, Qt::ElideRight, text.width() - badgeRoom));
    p.setFont(small);
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(text.left(), text.center().y(), text.width(), text.height() / 2), Qt::AlignLeft | Qt::AlignVCenter,
               n.detail);
    if (n.mailbox > 0) {
      // Mailbox badge: a pill whose colour moves from neutral to amber to red with the depth.
      const QString t = formatCount(static_cast<double>(n.mailbox));
      const QFontMetricsF fm(small);
      const double w = std::max(22.0, fm.horizontalAdvance(t) + 12);
      const QRectF badge(r.right() - w - 6, r.top() + 5, w, fm.height() + 2);
      const QColor bc = n.mailbox < 16 ? pal.color(QPalette::Mid) : mailboxColor(n.mailbox, pal);
      p.setPen(Qt::NoPen);
      p.setBrush(bc);
      p.drawRoundedRect(badge, badge.height() / 2, badge.height() / 2);
      p.setPen(n.mailbox < 16 ? pal.color(QPalette::Text) : QColor(Qt::white));
      p.drawText(badge, Qt::AlignCenter, t);
    }
  }
  p.setOpacity(1.0);
  p.restore();
  paintLegend(p);
}

void SupervisionGraphCanvas::paintLegend(QPainter& p) {
  // The status colours, in a small key at the bottom left that stays put while the tree scrolls.
  const QPalette& pal = palette();
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.86);
  p.setFont(small);
  const QFontMetricsF fm(small);
  const Health shown[] = {Health::running, Health::starting, Health::draining, Health::stopped, Health::failed, Health::killed};
  double w = 10;
  for (Health h : shown) w += 16 + fm.horizontalAdvance(healthText(h)) + 10;
  const QRectF box(8, viewport()->height() - fm.height() - 18, w, fm.height() + 10);
  QColor bg = pal.color(QPalette::Window);
  bg.setAlphaF(0.88f);
  p.setPen(QPen(pal.color(QPalette::Mid), 1));
  p.setBrush(bg);
  p.drawRoundedRect(box, 5, 5);
  double x = box.left() + 10;
  for (Health h : shown) {
    p.setPen(Qt::NoPen);
    p.setBrush(healthColor(h, pal));
    p.drawEllipse(QPointF(x + 4, box.center().y()), 4, 4);
    p.setPen(pal.color(QPalette::Text));
    const QString t = healthText(h);
    p.drawText(QPointF(x + 12, box.center().y() + fm.ascent() / 2 - 1), t);
    x += 16 + fm.horizontalAdvance(t) + 10;
  }
}

void SupervisionGraphCanvas::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton) {
    const int i = nodeAt(e->position().toPoint());
    if (i >= 0 && !nodes_[static_cast<std::size_t>(i)].aggregate) {
      selection_->select(nodes_[static_cast<std::size_t>(i)].id);
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
    viewport()->setCursor(i >= 0 && !nodes_[static_cast<std::size_t>(i)].aggregate ? Qt::PointingHandCursor
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
  if (node < 0 || node >= static_cast<int>(nodes_.size())) return nullptr;
  const Node& n = nodes_[static_cast<std::size_t>(node)];
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
    const Node& n = nodes_[static_cast<std::size_t>(i)];
    QString tip;
    if (n.exits) {
      tip = QStringLiteral("%1 children exited in the last %2 s (%3 failed).<br>The tree and the event log list them.")
                .arg(n.hidden)
                .arg(std::chrono::duration<double>(kFlashFor).count(), 0, 'f', 1)
                .arg(n.hiddenFailed);
    } else if (n.aggregate) {
      tip = QStringLiteral("%1 more children: %2 alive, %3 failed.<br>The tree and the Actors table list them all.")
                .arg(n.hidden)
                .arg(n.hiddenAlive)
                .arg(n.hiddenFailed);
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
}

}  // namespace actorscope::views
