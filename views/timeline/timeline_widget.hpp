// TimelineWidget: a recording's whole time range in one strip. A ruler with times from the start;
// the event density per time bucket, stacked by kind (lifecycle, messages, failures); markers for
// failures, kills and restarts above it; the cursor, a line with a handle, that the user drags to
// scrub; and a selected range, shaded. It paints what it is given and reports what the user does
// with it (the cursor dragged, a range selected, a marker clicked); it reads no recording itself.
//
// Mouse: a press on the ruler or on the cursor's line grabs the cursor (drag to scrub); a click in
// the strip moves the cursor there; a drag in the strip, or any drag with Shift, selects a range.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/runtime.hpp>

#include <QPixmap>
#include <QSize>
#include <QString>
#include <QWidget>

#include <cstdint>

#include <optional>
#include <utility>
#include <vector>

namespace actorscope::views {

class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  struct Bucket {
    TimePoint from{}, to{};
    std::uint32_t lifecycle = 0, messages = 0, failures = 0;
  };
  struct Marker {
    /// warning: where a warning rule began to hold (drawn hollow, beneath the others).
    enum class Kind { failure, kill, restart, warning };
    Kind kind = Kind::failure;
    TimePoint time{};
    ActorId actor{};
    QString label;
  };

  explicit TimelineWidget(QWidget* parent = nullptr);

  void setRange(TimePoint start, TimePoint end);
  TimePoint start() const noexcept { return start_; }
  TimePoint end() const noexcept { return end_; }
  void setDensity(std::vector<Bucket> buckets);
  void setMarkers(std::vector<Marker> markers);
  const std::vector<Marker>& markers() const noexcept { return markers_; }
  void setCursor(TimePoint t);
  TimePoint cursor() const noexcept { return cursor_; }
  /// The selected range (nullopt: none).
  const std::optional<std::pair<TimePoint, TimePoint>>& selection() const noexcept { return selection_; }
  void clearSelection();

  /// The time under viewport x, and the x of a time (the strip spans the widget's inner width).
  TimePoint timeAt(double x) const;
  double xAt(TimePoint t) const;
  /// How many density buckets suit the widget's width now (one per 2 px).
  std::size_t wantedBuckets() const;

  QSize sizeHint() const override { return {800, 96}; }
  QSize minimumSizeHint() const override { return {200, 72}; }

  static constexpr int kRulerH = 18;
  static constexpr int kMarkerH = 14;
  static constexpr int kMargin = 8;

 signals:
  /// The user moved the cursor (drag or click).
  void cursorDragged(actorscope::TimePoint t);
  /// The user selected [from, to] (or cleared the selection: from == to).
  void rangeSelected(actorscope::TimePoint from, actorscope::TimePoint to);
  void markerClicked(int index);
  /// The width changed: the density wants recomputing at wantedBuckets().
  void widthChanged();

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  bool event(QEvent*) override;

 private:
  /// Draws everything but the cursor (see paintEvent).
  void paintBackdrop(QPainter& p) const;
  /// What the backdrop was drawn for: it is drawn again when any of it changes.
  struct Backdrop {
    QSize size;
    qreal dpr = 0;
    qint64 palette = 0;
    QString font;
    std::uint64_t version = 0;
    bool operator==(const Backdrop&) const = default;
  };
  QPixmap backdrop_;
  Backdrop backdropKey_;
  /// Bumped whenever the range, the density, the markers or the selection change.
  std::uint64_t version_ = 0;
  int markerAt(const QPoint& p) const;
  QRectF stripRect() const;

  TimePoint start_{}, end_{};
  TimePoint cursor_{};
  std::vector<Bucket> buckets_;
  std::vector<Marker> markers_;
  std::optional<std::pair<TimePoint, TimePoint>> selection_;
  enum class Drag { none, cursor, select } drag_ = Drag::none;
  QPoint pressAt_;
  TimePoint anchor_{};
  bool moved_ = false;
};

}  // namespace actorscope::views
