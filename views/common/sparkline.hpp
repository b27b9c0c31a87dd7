// Sparkline: a small filled line chart of recent values (mailbox depth, messages per second),
// newest on the right, with the latest and the highest value written beside its title (under it
// when the widget is too narrow for both: nothing is cut off).
#pragma once

#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

namespace actorscope::views {

class Sparkline : public QWidget {
  Q_OBJECT
 public:
  explicit Sparkline(QWidget* parent = nullptr);

  /// `values` oldest first; the chart always spans `slotCount` points, so it scrolls as time passes.
  void setValues(QVector<double> values, int slotCount);
  void setTitle(const QString& title) {
    title_ = title;
    fitHeight();
    update();
  }
  /// How the latest and highest values are written (a count, a rate, ...).
  void setFormatter(QString (*format)(double)) { format_ = format; update(); }
  /// Empty means the palette's highlight colour.
  void setColor(const QColor& color) { color_ = color; update(); }

  QSize sizeHint() const override { return {240, 64}; }
  QSize minimumSizeHint() const override { return {120, 48}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void changeEvent(QEvent*) override;

 private:
  /// Whether the figures go on a line of their own, under the title.
  bool figuresBelow() const;
  void fitHeight();

  QVector<double> values_;
  int slots_ = 0;
  QString title_;
  QColor color_;
  QString (*format_)(double) = nullptr;
};

}  // namespace actorscope::views
