// Search box with debounce.
#include "common/search_field.hpp"

#include "common/icons.hpp"

#include <QKeyEvent>

namespace actorscope::views {

SearchField::SearchField(const QString& placeholder, QWidget* parent) : QLineEdit(parent) {
  setPlaceholderText(placeholder);
  setClearButtonEnabled(true);
  addAction(icon(QStringLiteral("search")), QLineEdit::LeadingPosition);
  debounce_.setSingleShot(true);
  debounce_.setInterval(150);
  connect(&debounce_, &QTimer::timeout, this, [this] { emit searchChanged(text()); });
  connect(this, &QLineEdit::textChanged, this, [this](const QString& t) {
    if (t.isEmpty()) {
      debounce_.stop();
      emit searchChanged(t);
    } else {
      debounce_.start();
    }
  });
}

void SearchField::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
    debounce_.stop();
    emit searchChanged(text());
    return;
  }
  if (event->key() == Qt::Key_Escape && !text().isEmpty()) {
    clear();
    return;
  }
  QLineEdit::keyPressEvent(event);
}

}  // namespace actorscope::views
