// SupervisionGraphView: the supervision tree drawn as a graph, supervisors on the left and their
// children to the right, each actor in a place it keeps while it lives (layOutSupervisionGraph).
// Nodes are coloured by status, carry a mailbox-depth badge and flash red for a few seconds after
// a failure; a supervisor with many children shows the first ones and one aggregate node for the
// rest, so 10,000 actors still draw as a readable picture.
#pragma once

#include "common/actor_selection.hpp"
#include "common/health.hpp"
#include "common/state_view.hpp"
#include "tree/supervision_graph_layout.hpp"

#include <QAbstractScrollArea>
#include <QTimer>
#include <QWidget>

#include <vector>

class QLabel;
class QMenu;
class QToolButton;

namespace actorscope::views {

class SearchField;

/// The drawing itself (a scroll area with zoom); SupervisionGraphView adds its tool row and legend.
class SupervisionGraphCanvas : public QAbstractScrollArea {
  Q_OBJECT
 public:
  using Node = SupervisionGraphLayout::Node;

  SupervisionGraphCanvas(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state);
  void clear();
  void setSearch(const QString& text);
  void setShowStopped(bool show) { showStopped_ = show; }
  /// Zooms so that the whole tree fits the view (never above 100%).
  void fitToView();
  /// A zoom the user chose: it holds (automatic fitting stops) until the next session.
  void setZoom(double zoom);
  double zoom() const noexcept { return zoom_; }

  const std::vector<Node>& nodes() const noexcept { return layout_.nodes(); }
  /// Where a node is drawn, in scene coordinates (before zoom and scrolling).
  QRectF nodeRect(const Node& n) const;
  /// The node at a viewport position, or -1.
  int nodeAt(const QPoint& viewportPos) const;
  QMenu* contextMenuFor(int node);

  static constexpr int kMaxChildrenShown = SupervisionGraphLayout::kMaxChildrenShown;
  static constexpr double kNodeMinW = 150;
  static constexpr double kNodeMaxW = 300;
  static constexpr double kNodeH = 36;

 signals:
  void searchMatches(int count);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void contextMenuEvent(QContextMenuEvent*) override;
  bool viewportEvent(QEvent*) override;
  void scrollContentsBy(int dx, int dy) override;
  void changeEvent(QEvent*) override;

 private:
  /// Widens the columns that a label no longer fits (they never narrow within a session, so that
  /// nodes do not move sideways).
  void fitColumns();
  QSizeF contentSize() const;
  void updateScrollBars();
  void ensureVisible(int node);
  QPointF toScene(const QPoint& viewportPos) const;
  /// Where the scene's origin is in the viewport: a tree smaller than the view is centred.
  QPointF origin() const;
  void autoFit();
  QFont labelFont() const;
  QFont detailFont() const;

  ActorSelection* selection_;
  ActorControl* control_;
  /// The latest layout: what is painted and hit-tested, and the previous layout of the next update.
  SupervisionGraphLayout layout_;
  std::vector<double> columnWidth_;  ///< per depth
  std::vector<double> columnX_;
  bool showStopped_ = false;
  QString search_;
  double zoom_ = 1.0;
  bool userZoomed_ = false;
  QTimer flash_;
  int flashPhase_ = 0;
  QPoint dragFrom_;
  bool dragging_ = false;
};

/// The key to the status colours, under the drawing (never over a node).
class StatusLegend : public QWidget {
  Q_OBJECT
 public:
  explicit StatusLegend(QWidget* parent = nullptr);
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;
};

class SupervisionGraphView : public QWidget, public StateView {
  Q_OBJECT
 public:
  SupervisionGraphView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;
  SupervisionGraphCanvas* canvas() const noexcept { return canvas_; }

 private:
  SupervisionGraphCanvas* canvas_;
  SearchField* search_;
  QToolButton* showStopped_;
  const observe::SystemState* state_ = nullptr;
};

}  // namespace actorscope::views
