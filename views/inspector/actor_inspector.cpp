// The actor inspector page.
#include "inspector/actor_inspector.hpp"

#include "common/actor_metrics.hpp"
#include "common/format.hpp"
#include "common/health.hpp"
#include "common/histogram_widget.hpp"
#include "common/sparkline.hpp"
#include "factories/factories_model.hpp"
#include "timers/timers_model.hpp"

#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <cctype>

namespace actorscope::views {
namespace {

QLabel* sectionTitle(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  QFont f = l->font();
  f.setBold(true);
  l->setFont(f);
  return l;
}

/// Lets a long name wrap inside its segments ("team-a/worker-2", "demo::Worker"): a zero-width
/// space after each separator, so that a narrow dock wraps it instead of cutting it off.
QString breakable(QString text) {
  static const QRegularExpression separators(QStringLiteral("(::|[/_.,-])"));
  return text.replace(separators, QStringLiteral("\\1") + QChar(0x200B));
}

/// A figure that never breaks between the number and its unit ("13.3 µs").
QString figure(const QString& text) {
  QString out = text;
  return out.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
}

QFrame* rule(QWidget* parent) {
  auto* f = new QFrame(parent);
  f->setFrameShape(QFrame::HLine);
  f->setFrameShadow(QFrame::Plain);
  f->setForegroundRole(QPalette::Mid);
  return f;
}

}  // namespace

ActorInspector::ActorInspector(ActorSelection* selection, ActorControl* control, QWidget* parent)
    : QWidget(parent), selection_(selection), control_(control) {
  (void)control_;
  stack_ = new QStackedWidget(this);
  empty_ = new QLabel(QStringLiteral("Select an actor in the tree, the graph, the table or the message flow to "
                                     "inspect it."),
                      this);
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setWordWrap(true);
  empty_->setForegroundRole(QPalette::PlaceholderText);
  empty_->setMargin(24);
  stack_->addWidget(empty_);

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* page = new QWidget(scroll);
  scroll->setWidget(page);
  stack_->addWidget(scroll);

  title_ = new QLabel(page);
  QFont tf = title_->font();
  tf.setPointSizeF(tf.pointSizeF() * 1.35);
  tf.setBold(true);
  title_->setFont(tf);
  title_->setWordWrap(true);  // a long name wraps at its separators (see breakable())
  subtitle_ = new QLabel(page);
  subtitle_->setForegroundRole(QPalette::PlaceholderText);
  subtitle_->setWordWrap(true);
  status_ = new QLabel(page);
  status_->setMargin(3);

  facts_ = new QLabel(page);
  facts_->setTextFormat(Qt::RichText);
  facts_->setWordWrap(true);
  facts_->setOpenExternalLinks(false);
  connect(facts_, &QLabel::linkActivated, this, [this](const QString& href) {
    selection_->select(parseActorId(href.mid(QStringLiteral("actor:").size())));
  });

  // The four figures side by side, or two by two when the dock is narrow (arrangeTiles()).
  tileGrid_ = new QGridLayout;
  tileGrid_->setHorizontalSpacing(12);
  tileGrid_->setVerticalSpacing(0);
  const char* captions[4] = {"messages/s", "handled", "in mailbox", "sent"};
  for (int i = 0; i < 4; ++i) {
    tiles_[i] = new QLabel(page);
    QFont f = tiles_[i]->font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    tiles_[i]->setFont(f);
    tileCaptions_[i] = new QLabel(QString::fromLatin1(captions[i]), page);
    tileCaptions_[i]->setForegroundRole(QPalette::PlaceholderText);
  }

  mailboxLine_ = new Sparkline(page);
  mailboxLine_->setTitle(QStringLiteral("Mailbox, last 12 s"));
  rateLine_ = new Sparkline(page);
  rateLine_->setTitle(QStringLiteral("Handled per second"));
  rateLine_->setToolTip(QStringLiteral("A trailing average over 0.5 s of the exact counters, for the last 12 s"));
  rateLine_->setFormatter(+[](double v) { return formatRate(v); });
  timingNote_ = new QLabel(page);
  timingNote_->setWordWrap(true);
  timingNote_->setForegroundRole(QPalette::PlaceholderText);
  timingNote_->hide();
  queueHist_ = new HistogramWidget(page);
  queueHist_->setTitle(QStringLiteral("Queue time (in the mailbox)"));
  queueHist_->setEmptyText(QStringLiteral("no timed messages yet"));
  handlingHist_ = new HistogramWidget(page);
  handlingHist_->setTitle(QStringLiteral("Handling time"));
  handlingHist_->setEmptyText(QStringLiteral("no timed messages yet"));

  failuresTitle_ = sectionTitle(QStringLiteral("Recent failures"), page);
  failures_ = new QLabel(page);
  explain_ = new QPushButton(QStringLiteral("Why did it fail?"), page);
  explain_->setToolTip(QStringLiteral("Follow the failure back through the messages that led to it"));
  explain_->setObjectName(QStringLiteral("explain"));
  explain_->setVisible(false);
  connect(explain_, &QPushButton::clicked, this, [this] {
    if (details_) emit explainRequested(details_->id);
  });
  failures_->setTextFormat(Qt::RichText);
  failures_->setWordWrap(true);
  failures_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  connect(failures_, &QLabel::linkActivated, this, [this](const QString& href) {
    selection_->select(parseActorId(href.mid(QStringLiteral("actor:").size())));
  });

  // The name has a line of its own; the status, the id, the type and the host go under it.
  auto* header = new QHBoxLayout;
  header->setSpacing(8);
  header->addWidget(status_, 0, Qt::AlignTop);
  header->addWidget(subtitle_, 1);

  auto* v = new QVBoxLayout(page);
  v->setContentsMargins(10, 8, 10, 10);
  v->setSpacing(6);
  v->addWidget(title_);
  v->addLayout(header);
  v->addWidget(rule(page));
  v->addLayout(tileGrid_);
  v->addWidget(rule(page));
  v->addWidget(facts_);
  v->addWidget(rule(page));
  v->addWidget(mailboxLine_);
  v->addWidget(rateLine_);
  v->addWidget(timingNote_);
  v->addWidget(queueHist_);
  v->addWidget(handlingHist_);
  v->addWidget(rule(page));
  v->addWidget(failuresTitle_);
  v->addWidget(failures_);
  v->addWidget(explain_, 0, Qt::AlignLeft);
  v->addStretch(1);

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(stack_);

  connect(selection_, &ActorSelection::changed, this, [this] { refresh(); });
  page_ = page;
  page->installEventFilter(this);
  arrangeTiles();
}

bool ActorInspector::eventFilter(QObject* watched, QEvent* event) {
  if (watched == page_ && event->type() == QEvent::Resize) arrangeTiles();
  return QWidget::eventFilter(watched, event);
}

void ActorInspector::arrangeTiles() {
  // One row of four when the page is wide enough for the widest figures, else two rows of two.
  int widest = 0;
  for (int i = 0; i < 4; ++i)
    widest = std::max({widest, tiles_[i]->fontMetrics().horizontalAdvance(QStringLiteral("888.8k/s")),
                       tileCaptions_[i]->sizeHint().width()});
  const int room = page_->width() - 20;
  const int columns = room >= 4 * widest + 3 * tileGrid_->horizontalSpacing() ? 4 : 2;
  if (columns == tileColumns_) return;
  tileColumns_ = columns;
  for (int i = 0; i < 4; ++i) {
    tileGrid_->removeWidget(tiles_[i]);
    tileGrid_->removeWidget(tileCaptions_[i]);
  }
  for (int i = 0; i < 4; ++i) {
    const int row = 2 * (i / columns);
    tileGrid_->addWidget(tiles_[i], row, i % columns);
    tileGrid_->addWidget(tileCaptions_[i], row + 1, i % columns);
  }
  tileGrid_->setVerticalSpacing(columns == 2 ? 2 : 0);
}

void ActorInspector::setTimingNote(const QString& note) {
  if (timingNote_->text() == note) return;
  timingNote_->setText(note);
  timingNote_->setVisible(!note.isEmpty());
}

void ActorInspector::setState(const observe::SystemState& state) {
  state_ = &state;
  refresh();
}

void ActorInspector::resetSession() {
  state_ = nullptr;
  details_.reset();
  stack_->setCurrentIndex(0);
}

void ActorInspector::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange && details_) render(*details_);
  QWidget::changeEvent(event);
}

void ActorInspector::refresh() {
  details_.reset();
  if (state_ != nullptr && selection_->current().is_valid()) details_ = inspect(*state_, selection_->current());
  if (!details_) {
    empty_->setText(selection_->current().is_valid()
                        ? QStringLiteral("Actor %1 is not in the picture any more (stopped actors are forgotten "
                                         "oldest first).")
                              .arg(formatActorId(selection_->current()))
                        : QStringLiteral("Select an actor in the tree, the graph, the table or the message flow to "
                                         "inspect it."));
    stack_->setCurrentIndex(0);
    return;
  }
  render(*details_);
  stack_->setCurrentIndex(1);
}

QString ActorInspector::link(const ActorDetails::Link& l) const {
  return QStringLiteral("<span style='color:%1'>●</span> <a href='actor:%2'>%3</a> <span style='color:%4'>%2</span>")
      .arg(healthColor(l.health, palette()).name(), formatActorId(l.id),
           breakable(QString::fromStdString(l.name).toHtmlEscaped()), palette().color(QPalette::PlaceholderText).name());
}

void ActorInspector::render(const ActorDetails& d) {
  const QPalette pal = palette();
  title_->setText(breakable(QString::fromStdString(d.name)));
  title_->setToolTip(QString::fromStdString(d.name));
  subtitle_->setText(QStringLiteral("%1  ·  %2  ·  host\u00a0%3")
                         .arg(formatActorId(d.id), QString::fromStdString(shortTypeName(d.type)))
                         .arg(formatHost(d.thread)));
  subtitle_->setToolTip(QStringLiteral("id %1, type %2, runtime host %3")
                            .arg(formatActorId(d.id), QString::fromStdString(d.type), formatHost(d.thread)));
  const QColor sc = healthColor(d.health, pal);
  status_->setText(healthText(d.health));
  const QString sheet = QStringLiteral("QLabel { color: %1; background: %2; border: 1px solid %1; border-radius: 4px; "
                                        "padding: 1px 6px; }")
                             .arg(sc.name(), tint(sc, pal, 0.15).name());
  // A style sheet restyles the label on every call: only when the status changes.
  if (status_->styleSheet() != sheet) status_->setStyleSheet(sheet);

  tiles_[0]->setText(formatRate(d.rate));
  tiles_[1]->setText(formatCount(static_cast<double>(d.handled)));
  // A bounded mailbox's fill against its capacity: "8 / 8".
  tiles_[2]->setText(QStringLiteral("%1 <span style='font-weight:normal; font-size:small; color:%2'>max %3</span>")
                         .arg(d.capacity == 0 ? QString::number(d.mailbox)
                                              : QStringLiteral("%1 / %2").arg(d.mailbox).arg(d.capacity))
                         .arg(pal.color(QPalette::PlaceholderText).name())
                         .arg(d.mailboxMax));
  tiles_[3]->setText(formatCount(static_cast<double>(d.sent)));

  const QString muted = pal.color(QPalette::PlaceholderText).name();
  QString html = QStringLiteral("<table cellspacing='0' cellpadding='2'>");
  auto row = [&](const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td style='color:%1; padding-right:10px' valign='top'>%2</td><td>%3</td></tr>")
                .arg(muted, key, value);
  };
  if (!d.exitReason.empty() || hasExited(d.health)) {
    const QColor c = healthColor(d.health, pal);
    row(QStringLiteral("Exit"), QStringLiteral("<span style='color:%1'>%2</span> at %3%4")
                                    .arg(c.name(), healthText(d.health), formatSince(d.stopped, d.origin),
                                         d.exitReason.empty() ? QString()
                                                              : QStringLiteral(": ") +
                                                                    QString::fromStdString(d.exitReason).toHtmlEscaped()));
  }
  row(QStringLiteral("Supervisor"), d.parent ? link(*d.parent) : QStringLiteral("none (a root actor)"));
  if (!d.childId.empty() || d.restarts > 0) {
    QString spec = d.childId.empty()
                       ? QStringLiteral("<span style='color:%1'>unknown</span>").arg(muted)
                       : QStringLiteral("\"%1\"").arg(QString::fromStdString(d.childId).toHtmlEscaped());
    if (d.restarts > 0) spec += QStringLiteral(", restarted %1\u00d7").arg(d.restarts);
    row(QStringLiteral("Child spec"), spec);
  }
  if (d.supervision) {
    const ActorDetails::Supervision& s = *d.supervision;
    row(QStringLiteral("Strategy"), QString::fromStdString(s.strategy).toHtmlEscaped());
    const bool near = s.recentRestarts > 0 && s.recentRestarts + 1 >= s.maxRestarts;
    QString intensity = QString::fromStdString(s.intensity);
    if (near && !s.gaveUp)
      intensity = QStringLiteral("<span style='color:%1'>%2</span>").arg(warningColor(pal).name(), intensity);
    row(QStringLiteral("Intensity"),
        intensity + QStringLiteral(" <span style='color:%1'>(%2 restarts in all)</span>")
                        .arg(muted)
                        .arg(s.totalRestarts));
    row(QStringLiteral("Backoff"),
        s.backoff ? QStringLiteral("%1 to %2, reset after %3 quiet")
                        .arg(figure(formatDuration(s.backoff->min)), figure(formatDuration(s.backoff->max)),
                             figure(formatDuration(s.backoff->reset)))
                  : QStringLiteral("<span style='color:%1'>none</span>").arg(muted));
    if (s.gaveUp)
      row(QStringLiteral("Gave up"),
          QStringLiteral("<span style='color:%1'>at %2</span>: %3")
              .arg(healthColor(Health::failed, pal).name(), formatSince(*s.gaveUp, d.origin),
                   QString::fromStdString(s.gaveUpReason).toHtmlEscaped()));
    QStringList specs;
    for (const auto& c : s.children) {
      QString shutdown = QString::fromStdString(c.shutdown).toHtmlEscaped();
      if (!c.shutdown.empty() && std::isdigit(static_cast<unsigned char>(c.shutdown.front())))
        shutdown += QStringLiteral(" ms");
      specs << QStringLiteral("<b>%1</b> %2, shutdown %3, %4: %5%6")
                   .arg(QString::fromStdString(c.id).toHtmlEscaped(),
                        QString::fromStdString(c.restart).toHtmlEscaped(), shutdown,
                        c.supervisor ? QStringLiteral("supervisor") : QStringLiteral("worker"),
                        c.actor ? link(*c.actor)
                                : QStringLiteral("<span style='color:%1'>not running</span>").arg(muted),
                        c.restarts > 0
                            ? QStringLiteral(" ") + QString::fromStdString(restartBadge(c.restarts))
                            : QString());
    }
    row(QStringLiteral("Child specs"), specs.isEmpty()
                                           ? QStringLiteral("<span style='color:%1'>none</span>").arg(muted)
                                           : specs.join(QStringLiteral("<br>")));
  }
  if (d.workerOf) row(QStringLiteral("Worker of"), link(*d.workerOf) + QStringLiteral(" (a factory)"));
  if (d.factory) {
    const FactoryRow& f = *d.factory;
    const QString warn = warningColor(pal).name();
    const auto count = [&](std::uint64_t n, const char* what, bool bad) {
      const QString text = QStringLiteral("%1 %2").arg(n).arg(QLatin1String(what));
      return bad && n != 0 ? QStringLiteral("<span style='color:%1'>%2</span>").arg(warn, text) : text;
    };
    row(QStringLiteral("Factory"),
        QStringLiteral("%1 routing; %2 of %3 workers busy; %4 waiting%5")
            .arg(routingText(f.routing).toHtmlEscaped())
            .arg(f.busy)
            .arg(f.workers)
            .arg(f.queue)
            .arg(f.queueLimit != 0 ? QStringLiteral(" (limit %1)").arg(f.queueLimit) : QString()));
    row(QStringLiteral("Jobs"), QStringList{count(f.dispatched, "dispatched", false), count(f.completed, "done", false),
                                            count(f.discarded, "discarded", true), count(f.retried, "retried", false),
                                            count(f.stuck, "stuck", true)}
                                    .join(QStringLiteral(" · ")));
  }
  if (d.children.empty()) {
    row(QStringLiteral("Children"), QStringLiteral("none"));
  } else {
    QString kids = QStringLiteral("%1 alive of %2<br>").arg(d.aliveChildren).arg(d.children.size());
    const std::size_t shown = std::min<std::size_t>(d.children.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) kids += link(d.children[i]) + QStringLiteral("<br>");
    if (d.children.size() > shown)
      kids += QStringLiteral("<span style='color:%1'>and %2 more</span>").arg(muted).arg(d.children.size() - shown);
    row(QStringLiteral("Children"), kids);
  }
  row(QStringLiteral("Registered"), d.registered.empty() ? QStringLiteral("<span style='color:%1'>no name</span>").arg(muted)
                                                         : QStringLiteral("\"%1\"").arg(QString::fromStdString(d.registered).toHtmlEscaped()));
  if (d.groups.empty()) {
    row(QStringLiteral("Groups"), QStringLiteral("<span style='color:%1'>none</span>").arg(muted));
  } else {
    QStringList g;
    for (const auto& [scope, group] : d.groups)
      g << QStringLiteral("%1 / <b>%2</b>").arg(QString::fromStdString(scope).toHtmlEscaped(),
                                                QString::fromStdString(group).toHtmlEscaped());
    row(QStringLiteral("Groups"), g.join(QStringLiteral("<br>")));
  }
  if (d.timers.empty()) {
    row(QStringLiteral("Timers"), QStringLiteral("<span style='color:%1'>none</span>").arg(muted));
  } else {
    QStringList t;
    for (const auto& tl : d.timers)
      t << QStringLiteral("%1 #%2%3, fired %4%5")
               .arg(timerKindText(tl.kind))
               .arg(tl.id)
               .arg(tl.period > Duration::zero() ? QStringLiteral(" every ") + figure(formatDuration(tl.period)) : QString())
               .arg(tl.fired)
               .arg(tl.owned ? QStringLiteral(" (started here)") : QString());
    row(QStringLiteral("Timers"), t.join(QStringLiteral("<br>")));
  }
  if (d.capacity == 0) {
    row(QStringLiteral("Mailbox"), QStringLiteral("<span style='color:%1'>unbounded</span>").arg(muted));
  } else {
    // What a bounded mailbox is, and what it lost: every figure that says whether it keeps up.
    auto lost = [&](std::uint64_t n, const char* what) {
      const QString text = QStringLiteral("%1 %2").arg(n).arg(QString::fromLatin1(what));
      return n == 0 ? text : QStringLiteral("<span style='color:%1'>%2</span>").arg(errorColor(pal).name(), text);
    };
    row(QStringLiteral("Mailbox"),
        QStringLiteral("capacity %1, %2 when full<br>%3 waiting, %4, %5")
            .arg(d.capacity)
            .arg(QString::fromLatin1(to_string(d.overflow)))
            .arg(d.mailbox)
            .arg(lost(d.dropped, "dropped"), lost(d.rejected, "rejected")));
  }
  row(QStringLiteral("Spawned"), formatSince(d.spawned, d.origin));
  if (d.timed > 0) {
    // Per message: a sum of queue times over thousands of messages reads as a span of time, and
    // is none. The mean is exact (the sums over their count); p99 comes from the histogram.
    auto perMessage = [](Duration mean, const observe::LogHistogram& h) {
      QString text = QStringLiteral("mean %1").arg(figure(formatDuration(mean)));
      if (!h.empty()) text += QStringLiteral(", p99 %1").arg(figure(formatNanos(h.percentile(99))));
      return text;
    };
    row(QStringLiteral("Queued"), perMessage(d.queueMean, d.queue));
    row(QStringLiteral("Handling"), perMessage(d.handlingMean, d.handling) +
                                        QStringLiteral("<br><span style='color:%1'>%2 in all</span>")
                                            .arg(muted, figure(formatDuration(d.handlingTotal))));
    row(QStringLiteral("Timed"), d.timed >= d.handled
                                     ? QStringLiteral("every message (%1)").arg(d.timed)
                                     : QStringLiteral("%1 of %2 messages (a sample)").arg(d.timed).arg(d.handled));
  }
  html += QStringLiteral("</table>");
  facts_->setText(html);

  mailboxLine_->setColor(warningColor(pal));
  mailboxLine_->setValues(QVector<double>(d.mailboxHistory.begin(), d.mailboxHistory.end()), d.historySlots);
  rateLine_->setColor(healthColor(Health::running, pal));
  rateLine_->setValues(QVector<double>(d.rateHistory.begin(), d.rateHistory.end()), d.historySlots);
  queueHist_->setHistogram(d.queue);
  handlingHist_->setHistogram(d.handling);

  if (d.failures.empty()) {
    failures_->setText(QStringLiteral("<span style='color:%1'>none</span>").arg(muted));
  } else {
    QString f;
    for (const auto& fr : d.failures) {
      f += QStringLiteral("<p style='margin:0 0 4px 0'><span style='color:%1'>%2</span> %3<br>"
                          "<span style='color:%4'>%5</span></p>")
               .arg(muted, formatSince(fr.time, d.origin),
                    fr.who.id == d.id ? QStringLiteral("this actor") : link(fr.who), errorColor(pal).name(),
                    QString::fromStdString(fr.error).toHtmlEscaped());
    }
    failures_->setText(f);
  }
  const bool ended = d.health == Health::failed || d.health == Health::killed;
  explain_->setText(d.health == Health::killed ? QStringLiteral("Why was it killed?") : QStringLiteral("Why did it fail?"));
  explain_->setVisible(explainable_ && ended);
}

void ActorInspector::setExplainable(bool on) {
  explainable_ = on;
  if (details_) render(*details_);
}

}  // namespace actorscope::views
