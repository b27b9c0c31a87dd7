// The shared selection and the actor context menu.
#include "common/actor_selection.hpp"

#include "common/format.hpp"
#include "common/icons.hpp"

#include <QApplication>
#include <QClipboard>
#include <QMenu>

namespace actorscope::views {

ActorSelection::ActorSelection(QObject* parent) : QObject(parent) {
  qRegisterMetaType<actorscope::ActorId>();
}

void ActorSelection::select(ActorId id) {
  if (id == current_) return;
  current_ = id;
  emit changed(id);
}

QMenu* makeActorMenu(QWidget* parent, ActorId id, const QString& label, ActorSelection* selection,
                     ActorControl* control) {
  auto* menu = new QMenu(parent);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->setTitle(label);
  menu->addSection(QStringLiteral("%1  ·  %2").arg(label, formatActorId(id)));

  QAction* inspect = menu->addAction(icon(QStringLiteral("inspect")), QStringLiteral("Inspect"));
  inspect->setObjectName(QStringLiteral("inspect"));
  QObject::connect(inspect, &QAction::triggered, menu, [selection, id] {
    if (selection) selection->select(id);
  });
  menu->addSeparator();

  const bool live = control != nullptr && control->canControl(id);
  QAction* stop = menu->addAction(icon(QStringLiteral("actor-stop")), QStringLiteral("Stop"));
  stop->setObjectName(QStringLiteral("stop"));
  stop->setToolTip(QStringLiteral("Graceful stop: the current handler finishes and post_stop runs"));
  stop->setEnabled(live);
  QAction* kill = menu->addAction(icon(QStringLiteral("actor-kill")), QStringLiteral("Kill"));
  kill->setObjectName(QStringLiteral("kill"));
  kill->setToolTip(QStringLiteral("Immediate kill: post_stop is skipped; the supervisor decides what happens next"));
  kill->setEnabled(live);
  QObject::connect(stop, &QAction::triggered, menu, [control, id] {
    if (control) control->stopActor(id);
  });
  QObject::connect(kill, &QAction::triggered, menu, [control, id] {
    if (control) control->killActor(id);
  });

  const QString demo = live ? control->demoMessageName(id) : QString();
  QAction* send = menu->addAction(icon(QStringLiteral("send")),
                                  demo.isEmpty() ? QStringLiteral("Send demo message")
                                                 : QStringLiteral("Send %1").arg(demo));
  send->setObjectName(QStringLiteral("send"));
  send->setEnabled(live && !demo.isEmpty());
  if (live && demo.isEmpty()) send->setToolTip(QStringLiteral("This scenario has no demo message for this actor"));
  QObject::connect(send, &QAction::triggered, menu, [control, id] {
    if (control) control->sendDemoMessage(id);
  });
  menu->setToolTipsVisible(true);

  menu->addSeparator();
  QAction* copy = menu->addAction(icon(QStringLiteral("copy")), QStringLiteral("Copy id"));
  copy->setObjectName(QStringLiteral("copy-id"));
  QObject::connect(copy, &QAction::triggered, menu,
                   [id] { QApplication::clipboard()->setText(formatActorId(id)); });
  return menu;
}

}  // namespace actorscope::views
