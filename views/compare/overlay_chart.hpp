// OverlayChart: two series of one quantity drawn over each other, side A and side B of a
// comparison, in the two compare colours (compareSideColor) on labelled axes: a rate over time,
// a latency distribution on a logarithmic time axis, a mailbox depth over time. Hand-painted, as the
// sparkline and the histogram are, so that it follows the palette (light and dark themes) without a
// chart library's theme of its own. The legend is not repeated in every chart: CompareLegend says
// once which colour is which side.
#pragma once

#include <QColor>
#include <QPointF>
#include <QString>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

class QPalette;

namespace actorscope::views {

/// The colour of side 0 (A) or 1 (B): the palette's highlight for A, and an orange that stands
/// apart from it for B, lighter on a dark background than on a light one so that both read.
QColor compareSideColor(const QPalette& palette, int side);

class OverlayChart : public QWidget {
  Q_OBJECT
 public:
  explicit OverlayChart(QWidget* parent = nullptr);

  void setTitle(const QString& title);
  /// Axis titles with their units: "time since start (s)", "messages/s".
  void setAxisTitles(const QString& x, const QString& y);
  /// A logarithmic x axis (decades), for latency distributions; x values must then be > 0.
  void setLogX(bool log);
  /// Side 0 (A) or 1 (B); an empty series draws nothing for that side.
  void setSeries(int side, std::vector<QPointF> points);
  const std::vector<QPointF>& series(int side) const { return series_.at(static_cast<std::size_t>(side)); }
  /// Shown when both series are empty.
  void setEmptyText(const QString& text);
  /// A vertical line at this x (the compare window's time cursor); nullopt: none.
  void setCursor(std::optional<double> x);
  std::optional<double> cursor() const noexcept { return cursor_; }

  QSize sizeHint() const override { return {320, 200}; }
  QSize minimumSizeHint() const override { return {180, 140}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  QString title_, xTitle_, yTitle_;
  QString empty_ = QStringLiteral("no data");
  bool logX_ = false;
  std::optional<double> cursor_;
  std::array<std::vector<QPointF>, 2> series_;
};

/// "■ A: asio×2 · scenario pipeline   ■ B: qt×2": the one legend of the compare window's charts.
class CompareLegend : public QWidget {
  Q_OBJECT
 public:
  explicit CompareLegend(QWidget* parent = nullptr);
  void setNames(const QString& a, const QString& b);
  QString name(int side) const { return names_.at(static_cast<std::size_t>(side)); }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::array<QString, 2> names_;
};

}  // namespace actorscope::views
