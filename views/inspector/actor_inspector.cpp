// The actor inspector page.
#include "inspector/actor_inspector.hpp"

#include "common/format.hpp"
#include "common/health.hpp"
#include "common/histogram_widget.hpp"
#include "common/sparkline.hpp"
#include "timers/timers_model.hpp"

#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace actorscope::views {
namespace {

QLabel* sectionTitle(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  QFont f = l->font();
  f.setBold(true);
  l->setFont(f);
  return l;
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
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  subtitle_ = new QLabel(page);
  subtitle_->setForegroundRole(QPalette::PlaceholderText);
  subtitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);
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

  auto* tileRow = new QGridLayout;
  tileRow->setHorizontalSpacing(12);
  tileRow->setVerticalSpacing(0);
  const char* captions[4] = {"messages/s", "handled", "in mailbox", "sent"};
  for (int i = 0; i < 4; ++i) {
    tiles_[i] = new QLabel(page);
    QFont f = tiles_[i]->font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    tiles_[i]->setFont(f);
    tileCaptions_[i] = new QLabel(QString::fromLatin1(captions[i]), page);
    tileCaptions_[i]->setForegroundRole(QPalette::PlaceholderText);
    tileRow->addWidget(tiles_[i], 0, i);
    tileRow->addWidget(tileCaptions_[i], 1, i);
  }

  mailboxLine_ = new Sparkline(page);
  mailboxLine_->setTitle(QStringLiteral("Mailbox depth, last 12 s"));
  rateLine_ = new Sparkline(page);
  rateLine_->setTitle(QStringLiteral("Messages handled per second"));
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
  failures_->setTextFormat(Qt::RichText);
  failures_->setWordWrap(true);
  failures_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  connect(failures_, &QLabel::linkActivated, this, [this](const QString& href) {
    selection_->select(parseActorId(href.mid(QStringLiteral("actor:").size())));
  });

  auto* header = new QHBoxLayout;
  header->addWidget(title_, 1);
  header->addWidget(status_, 0, Qt::AlignTop);

  auto* v = new QVBoxLayout(page);
  v->setContentsMargins(10, 8, 10, 10);
  v->setSpacing(6);
  v->addLayout(header);
  v->addWidget(subtitle_);
  v->addWidget(rule(page));
  v->addLayout(tileRow);
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
  v->addStretch(1);

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(stack_);

  connect(selection_, &ActorSelection::changed, this, [this] { refresh(); });
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
      .arg(healthColor(l.health, palette()).name(), formatActorId(l.id), QString::fromStdString(l.name).toHtmlEscaped(),
           palette().color(QPalette::PlaceholderText).name());
}

void ActorInspector::render(const ActorDetails& d) {
  const QPalette pal = palette();
  title_->setText(QString::fromStdString(d.name));
  subtitle_->setText(QStringLiteral("%1  ·  %2  ·  host %3")
                         .arg(formatActorId(d.id), QString::fromStdString(d.type))
                         .arg(formatHost(d.thread)));
  const QColor sc = healthColor(d.health, pal);
  status_->setText(healthText(d.health));
  const QString sheet = QStringLiteral("QLabel { color: %1; background: %2; border: 1px solid %1; border-radius: 4px; "
                                        "padding: 1px 6px; }")
                             .arg(sc.name(), tint(sc, pal, 0.15).name());
  // A style sheet restyles the label on every call: only when the status changes.
  if (status_->styleSheet() != sheet) status_->setStyleSheet(sheet);

  tiles_[0]->setText(formatRate(d.rate));
  tiles_[1]->setText(formatCount(static_cast<double>(d.handled)));
  tiles_[2]->setText(QStringLiteral("%1 <span style='font-weight:normal; font-size:small; color:%2'>max %3</span>")
                         .arg(d.mailbox)
                         .arg(pal.color(QPalette::PlaceholderText).name())
                         .arg(d.mailboxMax));
  tiles_[3]->setText(formatCount(static_cast<double>(d.sent)));

  const QString muted = pal.color(QPalette::PlaceholderText).name();
  QString html = QStringLiteral("<table cellspacing='0' cellpadding='2'>");
  auto row = [&](const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td style='color:%1; padding-right:10px' valign='top'>%2</td><td>%3</td></tr>")
                .arg(muted, key, value);
  };
  if (!d.exitReason.empty() || d.health == Health::stopped || d.health == Health::failed || d.health == Health::killed) {
    const QColor c = healthColor(d.health, pal);
    row(QStringLiteral("Exit"), QStringLiteral("<span style='color:%1'>%2</span> at %3%4")
                                    .arg(c.name(), healthText(d.health), formatSince(d.stopped, d.origin),
                                         d.exitReason.empty() ? QString()
                                                              : QStringLiteral(": ") +
                                                                    QString::fromStdString(d.exitReason).toHtmlEscaped()));
  }
  row(QStringLiteral("Supervisor"), d.parent ? link(*d.parent) : QStringLiteral("none (a root actor)"));
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
               .arg(tl.period > Duration::zero() ? QStringLiteral(" every ") + formatDuration(tl.period) : QString())
               .arg(tl.fired)
               .arg(tl.owned ? QStringLiteral(" (started here)") : QString());
    row(QStringLiteral("Timers"), t.join(QStringLiteral("<br>")));
  }
  row(QStringLiteral("Spawned"), formatSince(d.spawned, d.origin));
  if (d.handled > 0 && d.handlingTotal > Duration::zero()) {
    if (d.timed >= d.handled) {
      row(QStringLiteral("Busy"), QStringLiteral("%1 handling, %2 queued in total")
                                      .arg(formatDuration(d.handlingTotal), formatDuration(d.queueTotal)));
    } else {  // only sampled messages were timed: the totals are theirs, not the actor's
      row(QStringLiteral("Busy"), QStringLiteral("%1 handling, %2 queued over the %3 timed messages of %4")
                                      .arg(formatDuration(d.handlingTotal), formatDuration(d.queueTotal))
                                      .arg(d.timed)
                                      .arg(d.handled));
    }
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
}

}  // namespace actorscope::views
