// The chain of causes as a list: one row per hop, newest (the failure) first.
#include "causes/cause_chain_view.hpp"

#include "common/actor_metrics.hpp"
#include "common/format.hpp"
#include "common/health.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace actorscope::views {

CauseChainView::CauseChainView(ActorSelection* selection, QWidget* parent)
    : QWidget(parent),
      selection_(selection),
      headline_(new QLabel(this)),
      explainSelected_(new QPushButton(tr("Why did the selected actor fail?"), this)),
      list_(new QTreeWidget(this)),
      explanation_(new QLabel(this)) {
  headline_->setObjectName(QStringLiteral("cause-headline"));
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  explainSelected_->setObjectName(QStringLiteral("cause-explain-selected"));
  list_->setObjectName(QStringLiteral("cause-hops"));
  list_->setRootIsDecorated(false);
  list_->setAlternatingRowColors(true);
  list_->setUniformRowHeights(true);
  list_->setColumnCount(ColumnCount);
  list_->setHeaderLabels({tr("Hop"), tr("Handled at"), tr("Handler"), tr("Message"), tr("Sent by"), tr("")});
  list_->header()->setStretchLastSection(true);
  list_->setToolTip(tr("Each row is a message: the first one's handling failed; each next one is the message "
                       "its sender was handling when it sent the row above. Click a row to go there."));
  explanation_->setObjectName(QStringLiteral("cause-explanation"));
  explanation_->setWordWrap(true);
  explanation_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  top->addWidget(headline_, 1);
  top->addWidget(explainSelected_, 0, Qt::AlignTop);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(list_, 1);
  layout->addWidget(explanation_);

  connect(explainSelected_, &QPushButton::clicked, this, &CauseChainView::showSelectedActor);
  connect(list_, &QTreeWidget::itemClicked, this,
          [this](QTreeWidgetItem* item, int) { activateHop(list_->indexOfTopLevelItem(item)); });
  connect(list_, &QTreeWidget::itemActivated, this,
          [this](QTreeWidgetItem* item, int) { activateHop(list_->indexOfTopLevelItem(item)); });
  setReader(nullptr, 0);
}

void CauseChainView::setReader(const SessionReader* reader, std::int64_t session) {
  reader_ = reader;
  session_ = session;
  actors_.clear();
  start_ = {};
  clear();
  if (reader_ == nullptr) {
    headline_->setText(tr("No recording is open. Open one, then pick a failed actor to see why it failed."));
    explainSelected_->setEnabled(false);
    return;
  }
  try {
    start_ = reader_->session(session_).start_time;
    for (ActorInfo& a : reader_->actors(session_)) actors_.emplace(a.id, std::move(a));
  } catch (const RecordingError& e) {
    headline_->setText(QString::fromUtf8(e.what()));
    return;
  }
  explainSelected_->setEnabled(selection_ != nullptr);
  headline_->setText(tr("Pick a failed or killed actor (in the inspector, or select it and press the button) to "
                        "follow its failure back through the messages."));
}

void CauseChainView::clear() {
  chain_.reset();
  list_->clear();
  explanation_->clear();
  emit highlightRequested({});
}

QString CauseChainView::actorText(ActorId id) const {
  if (!id.is_valid()) return tr("outside");
  const auto it = actors_.find(id);
  if (it == actors_.end()) return formatActorId(id);
  const ActorInfo& a = it->second;
  const QString name =
      a.name.empty() ? QString::fromStdString(shortTypeName(a.type_name)) : QString::fromStdString(a.name);
  return QStringLiteral("%1 (%2)").arg(name, formatActorId(id));
}

void CauseChainView::showSelectedActor() {
  if (selection_ != nullptr && selection_->current().is_valid()) showActor(selection_->current());
}

void CauseChainView::showActor(ActorId actor) {
  clear();
  if (reader_ == nullptr) return;
  try {
    chain_ = reader_->cause_chain(session_, actor, maxHops_);
  } catch (const RecordingError& e) {
    headline_->setText(QString::fromUtf8(e.what()));
    return;
  }
  const CauseChain& c = *chain_;
  if (c.exit) {
    const QString how = c.exit->kind == observe::EventKind::killed ? tr("was killed") : tr("failed");
    QString text = tr("%1 %2 at %3").arg(actorText(actor), how, formatSince(c.exit->time, start_));
    if (!c.exit->text.empty()) text += QStringLiteral(": ") + QString::fromStdString(c.exit->text);
    headline_->setText(text);
  } else {
    headline_->setText(tr("%1 did not fail and was not killed in this session.").arg(actorText(actor)));
  }

  const QColor bad = errorColor(palette());
  for (std::size_t i = 0; i < c.hops.size(); ++i) {
    const CauseHop& hop = c.hops[i];
    const observe::Event& h = hop.handled;
    auto* item = new QTreeWidgetItem(list_);
    item->setText(HopColumn, QString::number(i + 1));
    item->setText(TimeColumn, formatSince(h.time, start_));
    item->setText(HandlerColumn, actorText(h.actor));
    item->setText(TypeColumn, h.message_type.empty() ? tr("(type not recorded)")
                                                     : QString::fromStdString(shortTypeName(h.message_type)));
    item->setToolTip(TypeColumn, QString::fromUtf8(h.message_type.data(), static_cast<qsizetype>(h.message_type.size())));
    item->setText(SenderColumn, actorText(h.peer));
    QString note;
    if (h.failed) {
      note = tr("threw");
      if (i == 0 && c.exit && !c.exit->text.empty()) note += QStringLiteral(": ") + QString::fromStdString(c.exit->text);
      for (int col = 0; col < ColumnCount; ++col) item->setForeground(col, bad);
    } else if (i == 0 && c.exit && c.exit->kind == observe::EventKind::killed) {
      note = tr("the last message it handled before it was killed");
    } else if (i > 0) {
      note = tr("while handling this, it sent hop %1").arg(i);
    }
    if (!hop.sent && i + 1 == c.hops.size() && h.peer.is_valid()) note += tr(" (its send was not recorded)");
    item->setText(NoteColumn, note);
    item->setToolTip(NoteColumn, note);
  }
  for (int col = 0; col + 1 < ColumnCount; ++col) list_->resizeColumnToContents(col);
  explanation_->setText(QString::fromStdString(c.explanation));
  if (!c.hops.empty()) emit highlightRequested(traces());
}

std::vector<std::uint64_t> CauseChainView::traces() const {
  std::vector<std::uint64_t> out;
  if (!chain_) return out;
  for (const CauseHop& hop : chain_->hops)
    if (hop.handled.trace != 0) out.push_back(hop.handled.trace);
  return out;
}

QString CauseChainView::headline() const { return headline_->text(); }
QString CauseChainView::explanation() const { return explanation_->text(); }

void CauseChainView::activateHop(int hop) {
  if (!chain_ || hop < 0 || static_cast<std::size_t>(hop) >= chain_->hops.size()) return;
  const observe::Event& h = chain_->hops[static_cast<std::size_t>(hop)].handled;
  emit timeRequested(h.time);
  if (h.actor.is_valid()) emit actorRequested(h.actor);
}

}  // namespace actorscope::views
