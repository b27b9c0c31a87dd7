// SearchField: the search box every view uses: a search icon, a clear button, and a short
// debounce so that filtering a large model does not run on every keystroke.
#pragma once

#include <QLineEdit>
#include <QTimer>

namespace actorscope::views {

class SearchField : public QLineEdit {
  Q_OBJECT
 public:
  explicit SearchField(const QString& placeholder, QWidget* parent = nullptr);

 signals:
  /// The text, once typing has paused (or at once on Enter or clear).
  void searchChanged(const QString& text);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  QTimer debounce_;
};

}  // namespace actorscope::views
