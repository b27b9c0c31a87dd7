// SupervisionGraphView: the supervision tree drawn as a graph, supervisors on the left and their
// children to the right. Nodes are coloured by status, carry a mailbox-depth badge and flash red
// for a few seconds after a failure; a supervisor with many children shows the first ones and one
// aggregate node for the rest, so 10,000 actors still draw as a readable picture.
#pragma once

#include "common/actor_selection.hpp"
#include "common/health.hpp"
#include "common/state_view.hpp"

#include <QAbstractScrollArea>
#include <QTimer>
#include <QWidget>

#include <vector>

class QLabel;
class QMenu;
class QToolButton;

namespace actorscope::views {

class SearchField;

/// The drawing itself (a scroll area with zoom); SupervisionGraphView adds its tool row.
class SupervisionGraphCanvas : public QAbstractScrollArea {
  Q_OBJECT
 public:
  struct Node {
    ActorId id{};
    QString label;
    QString detail;       ///< "0.42 · 1.2k/s"
    Health health = Health::running;
    std::uint64_t mailbox = 0;
    bool flashing = false;
    bool aggregate = false;  ///< stands for `hidden` more children
    bool exits = false;      ///< aggregate of children that exited lately
    std::size_t hidden = 0;
    std::size_t hiddenAlive = 0;
    std::size_t hiddenFailed = 0;
    int parent = -1;  ///< index into nodes
    int depth = 0;
    double y = 0;
    QString search;  ///< lower-case name, type and id
  };

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

  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// The node at a viewport position, or -1.
  int nodeAt(const QPoint& viewportPos) const;
  QMenu* contextMenuFor(int node);

  static constexpr int kMaxChildrenShown = 12;
  static constexpr double kNodeW = 156;
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

 private:
  void layout(const observe::SystemState& state);
  int addSubtree(const observe::SystemState& state, const observe::ActorRecord& a, int parent, int depth, double& nextY);
  QRectF nodeRect(const Node& n) const;
  QSizeF contentSize() const;
  void updateScrollBars();
  void ensureVisible(int node);
  QPointF toScene(const QPoint& viewportPos) const;
  /// Where the scene's origin is in the viewport: a tree smaller than the view is centred.
  QPointF origin() const;
  void autoFit();
  void paintLegend(QPainter& p);

  ActorSelection* selection_;
  ActorControl* control_;
  std::vector<Node> nodes_;
  int maxDepth_ = 0;
  double height_ = 0;
  bool showStopped_ = false;
  QString search_;
  double zoom_ = 1.0;
  bool userZoomed_ = false;
  QTimer flash_;
  int flashPhase_ = 0;
  QPoint dragFrom_;
  bool dragging_ = false;
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
