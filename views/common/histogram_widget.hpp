// HistogramWidget: a log-bucketed latency histogram (queue or handling time) drawn as bars on a
// logarithmic time axis, with p50, p90, p99 and max marked and written out (on two lines when
// the widget is too narrow for one: nothing is cut off).
#pragma once

#include <actorscope/observe/histogram.hpp>

#include <QString>
#include <QWidget>

namespace actorscope::views {

class HistogramWidget : public QWidget {
  Q_OBJECT
 public:
  explicit HistogramWidget(QWidget* parent = nullptr);

  void setHistogram(const observe::LogHistogram& histogram);
  void setTitle(const QString& title) {
    title_ = title;
    fitHeight();
    update();
  }
  /// Shown when the histogram is empty (for example: timing was not recorded).
  void setEmptyText(const QString& text) { empty_ = text; update(); }

  QSize sizeHint() const override { return {280, 132}; }
  QSize minimumSizeHint() const override { return {120, 110}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void changeEvent(QEvent*) override;

 private:
  /// How many marks ("p50 12.3 µs") fit on a line, and how many lines they take.
  int marksPerLine() const;
  int markLines() const { return (4 + marksPerLine() - 1) / marksPerLine(); }
  /// Whether "N samples" fits beside the title (otherwise it goes on a line after the marks).
  bool countBesideTitle() const;
  void fitHeight();

  observe::LogHistogram histogram_;
  QString title_;
  QString empty_ = QStringLiteral("no samples yet");
};

}  // namespace actorscope::views
