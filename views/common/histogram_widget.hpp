// HistogramWidget: a log-bucketed latency histogram (queue or handling time) drawn as bars on a
// logarithmic time axis, with p50, p90, p99 and max marked and written out.
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
  void setTitle(const QString& title) { title_ = title; update(); }
  /// Shown when the histogram is empty (for example: timing was not recorded).
  void setEmptyText(const QString& text) { empty_ = text; update(); }

  QSize sizeHint() const override { return {280, 132}; }
  QSize minimumSizeHint() const override { return {180, 110}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  observe::LogHistogram histogram_;
  QString title_;
  QString empty_ = QStringLiteral("no samples yet");
};

}  // namespace actorscope::views
