// RatioChart: one runtime against another, benchmark by benchmark: a bar from 1× (a tie) to the
// ratio of their medians on a logarithmic axis (so 0.5× and 2× are as far from a tie), whiskers
// over how far the ratio moves within the middle half of each runtime's samples, the figure
// beside each bar (never inside it, so a short bar's figure is whole), and "busy" beside a
// benchmark that ran while other programs kept the machine busy. Custom painted.
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

namespace actorscope::views {

class RatioChart : public QWidget {
  Q_OBJECT
 public:
  struct Bar {
    QString name;   ///< the benchmark (tooltip)
    QString label;  ///< what the row says (a short name)
    double ratio = 0;
    double low = 0;   ///< the spread's ends; 0 when unknown
    double high = 0;
    bool busy = false;
    QString busyNote;  ///< what other programs did meanwhile (tooltip)
  };

  explicit RatioChart(QWidget* parent = nullptr);

  /// `numerator` ÷ `denominator` for every bar, first bar at the top.
  void setBars(std::vector<Bar> bars, const QString& numerator, const QString& denominator);
  /// No bars; `message` says why.
  void clear(const QString& message);
  const std::vector<Bar>& bars() const noexcept { return bars_; }
  QString title() const { return title_; }
  /// Where bar `i`'s figure is drawn, and its whole bar (the bar and its whiskers), in widget
  /// coordinates: for tests, and for tooltips.
  QRectF valueRect(int i) const;
  QRectF barRect(int i) const;
  /// The area bars are drawn in.
  QRectF plotRect() const;

  QSize sizeHint() const override { return {420, 260}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent*) override;

 private:
  struct Geometry {
    QRectF plot;
    double labelWidth = 0;
    double rowHeight = 0;
    double lo = 0;  ///< log2 of the axis' ends
    double hi = 0;
  };
  Geometry geometry() const;
  double xOf(double ratio, const Geometry& g) const;
  QString valueText(const Bar& b) const;
  QRectF valueRectIn(int i, const Geometry& g) const;

  std::vector<Bar> bars_;
  QString title_;
  QString message_;
  QString denominator_;
};

}  // namespace actorscope::views
