// Shared by the suites that run the actorscope executable (ACTORSCOPE_BINARY): one run with a
// generous deadline, its exit code and output, and the checksum of a file to compare before and
// after a command.
#pragma once

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace cli_run {

struct Run {
  int code = -1;
  QString out;
  QString err;
};

/// Runs `actorscope ARGS...` (in `cwd`, if given) with a generous deadline.
inline Run run_actorscope(const QStringList& args, const QString& cwd = {}) {
  QProcess p;
  if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
  p.start(QStringLiteral(ACTORSCOPE_BINARY), args);
  Run r;
  if (!p.waitForStarted(30000) || !p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
    r.err = "did not finish: actorscope " + args.join(' ');
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

/// A run, for a failure message.
inline QString describe(const Run& r) {
  return QString("exit %1\n--- stdout\n%2\n--- stderr\n%3").arg(r.code).arg(r.out, r.err);
}

/// The SHA-256 of a file's bytes (empty if it cannot be read).
inline QByteArray checksum(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

}  // namespace cli_run
