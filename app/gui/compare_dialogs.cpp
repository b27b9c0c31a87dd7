// Starting compare mode (compare_dialogs.hpp).
#include "gui/compare_dialogs.hpp"

#include "gui/theme.hpp"

#include <actorscope/runtime.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QVBoxLayout>

#include <cstdio>
#include <cstdlib>

namespace actorscope::gui {

namespace {

QStringList runnableRuntimes() {
  QStringList out;
  for (const std::string& r : runtime_names())
    if (r != "manual") out << QString::fromStdString(r);
  return out;
}

QString letter(int side) {
  return side == 0 ? QStringLiteral("A") : QStringLiteral("B");
}

}  // namespace

// -- Session → Compare… --

CompareDialog::CompareDialog(const Workloads& workloads, const QString& scenario, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(QStringLiteral("Compare two runtimes"));
  setObjectName(QStringLiteral("compare-dialog"));
  auto* layout = new QVBoxLayout(this);
  auto* intro =
      new QLabel(QStringLiteral("Runs one scenario twice with the same seed, once per side, each recorded "
                                "at sampled detail (one message in 100 timed; the counters are exact), then "
                                "shows the two side by side."),
                 this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  scenario_ = new QComboBox(this);
  scenario_->setObjectName(QStringLiteral("compare-scenario"));
  for (const Workload& w : workloads) scenario_->addItem(QString::fromStdString(w.name));
  if (const int i = scenario_->findText(scenario); i >= 0) scenario_->setCurrentIndex(i);
  form->addRow(QStringLiteral("Scenario:"), scenario_);
  const QStringList runtimes = runnableRuntimes();
  for (int side = 0; side < 2; ++side) {
    auto* row = new QHBoxLayout;
    runtime_[static_cast<std::size_t>(side)] = new QComboBox(this);
    runtime_[static_cast<std::size_t>(side)]->addItems(runtimes);
    runtime_[static_cast<std::size_t>(side)]->setObjectName(
        QStringLiteral("compare-runtime-%1").arg(letter(side).toLower()));
    // asio against qt by default: the comparison the product is chosen by.
    const int wanted = runtimes.indexOf(side == 0 ? QStringLiteral("asio") : QStringLiteral("qt"));
    if (wanted >= 0) runtime_[static_cast<std::size_t>(side)]->setCurrentIndex(wanted);
    threads_[static_cast<std::size_t>(side)] = new QSpinBox(this);
    threads_[static_cast<std::size_t>(side)]->setRange(1, 64);
    threads_[static_cast<std::size_t>(side)]->setValue(2);
    threads_[static_cast<std::size_t>(side)]->setSuffix(QStringLiteral(" threads"));
    threads_[static_cast<std::size_t>(side)]->setObjectName(
        QStringLiteral("compare-threads-%1").arg(letter(side).toLower()));
    row->addWidget(runtime_[static_cast<std::size_t>(side)]);
    row->addWidget(threads_[static_cast<std::size_t>(side)]);
    form->addRow(QStringLiteral("Side %1:").arg(letter(side)), row);
  }
  seconds_ = new QDoubleSpinBox(this);
  seconds_->setObjectName(QStringLiteral("compare-seconds"));
  seconds_->setRange(0.5, 3600);
  seconds_->setValue(5);
  seconds_->setSuffix(QStringLiteral(" s per side"));
  form->addRow(QStringLiteral("Run for:"), seconds_);
  concurrent_ =
      new QCheckBox(QStringLiteral("At the same time (both sides then share this machine's cores)"), this);
  concurrent_->setObjectName(QStringLiteral("compare-concurrent"));
  form->addRow(QString(), concurrent_);
  keep_ = new QCheckBox(QStringLiteral("Keep the recordings"), this);
  keep_->setObjectName(QStringLiteral("compare-keep"));
  form->addRow(QString(), keep_);
  for (int side = 0; side < 2; ++side) {
    auto* row = new QHBoxLayout;
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QStringLiteral("compare-keep-%1").arg(letter(side).toLower()));
    edit->setPlaceholderText(QStringLiteral("side-%1.db").arg(letter(side).toLower()));
    edit->setEnabled(false);
    auto* browse = new QPushButton(QStringLiteral("Choose…"), this);
    browse->setEnabled(false);
    connect(keep_, &QCheckBox::toggled, edit, &QWidget::setEnabled);
    connect(keep_, &QCheckBox::toggled, browse, &QWidget::setEnabled);
    connect(browse, &QPushButton::clicked, this, [this, edit, side] {
      const QString f =
          QFileDialog::getSaveFileName(this, QStringLiteral("Record side %1 into").arg(letter(side)),
                                       edit->text(), QStringLiteral("Recordings (*.db)"));
      if (!f.isEmpty()) edit->setText(f);
    });
    row->addWidget(edit, 1);
    row->addWidget(browse);
    files_[static_cast<std::size_t>(side)] = edit;
    form->addRow(QStringLiteral("Side %1's file:").arg(letter(side)), row);
  }
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Run both"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

CompareConfig CompareDialog::config() const {
  CompareConfig c;
  c.scenario = scenario_->currentText().toStdString();
  for (std::size_t i = 0; i < 2; ++i) {
    c.sides[i].runtime = runtime_[i]->currentText().toStdString();
    c.sides[i].threads = static_cast<unsigned>(threads_[i]->value());
    if (keep_->isChecked()) c.sides[i].recordTo = files_[i]->text().trimmed();
  }
  c.seconds = seconds_->value();
  c.concurrent = concurrent_->isChecked();
  return c;
}

void CompareDialog::accept() {
  if (keep_->isChecked()) {
    for (int side = 0; side < 2; ++side)
      if (files_[static_cast<std::size_t>(side)]->text().trimmed().isEmpty()) {
        QMessageBox::warning(
            this, QStringLiteral("Where should side %1 be kept?").arg(letter(side)),
            QStringLiteral("Choose a file for side %1's recording, or clear \"Keep the recordings\" "
                           "(then both go to temporary files, and the comparison window can still "
                           "save them).")
                .arg(letter(side)));
        return;
      }
  }
  QDialog::accept();
}

// -- File → Compare Recordings… --

CompareRecordingsDialog::CompareRecordingsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(QStringLiteral("Compare two recordings"));
  setObjectName(QStringLiteral("compare-recordings-dialog"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  for (int side = 0; side < 2; ++side) {
    auto* row = new QHBoxLayout;
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QStringLiteral("compare-file-%1").arg(letter(side).toLower()));
    auto* browse = new QPushButton(QStringLiteral("Choose…"), this);
    auto* sessions = new QComboBox(this);
    sessions->setObjectName(QStringLiteral("compare-session-%1").arg(letter(side).toLower()));
    sessions->setEnabled(false);
    sessions->setToolTip(QStringLiteral("The session to compare, when the file holds several"));
    files_[static_cast<std::size_t>(side)] = edit;
    sessions_[static_cast<std::size_t>(side)] = sessions;
    connect(browse, &QPushButton::clicked, this, [this, side] {
      const QString f = QFileDialog::getOpenFileName(
          this, QStringLiteral("Side %1's recording").arg(letter(side)),
          files_[static_cast<std::size_t>(side)]->text(), QStringLiteral("Recordings (*.db);;All files (*)"));
      if (!f.isEmpty()) setFile(side, f);
    });
    connect(edit, &QLineEdit::editingFinished, this,
            [this, side] { setFile(side, files_[static_cast<std::size_t>(side)]->text()); });
    row->addWidget(edit, 1);
    row->addWidget(browse);
    row->addWidget(sessions);
    form->addRow(QStringLiteral("Side %1:").arg(letter(side)), row);
  }
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Compare"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(640, sizeHint().height());
}

void CompareRecordingsDialog::setFile(int side, const QString& file) {
  files_[static_cast<std::size_t>(side)]->setText(file);
  QComboBox* sessions = sessions_[static_cast<std::size_t>(side)];
  sessions->clear();
  sessions->setEnabled(false);
  try {
    // Only the list of sessions here; a bad file is reported when the comparison opens.
    const auto all = SessionReader(std::filesystem::path(file.toStdString())).sessions();
    for (const SessionInfo& s : all)
      sessions->addItem(QStringLiteral("session %1 · %2×%3 · %4")
                            .arg(s.id)
                            .arg(QString::fromStdString(s.runtime))
                            .arg(s.threads)
                            .arg(QString::fromStdString(s.scenario)),
                        QVariant::fromValue<qint64>(s.id));
    sessions->setCurrentIndex(sessions->count() - 1);  // the last, as `actorscope diff` takes
    sessions->setEnabled(all.size() > 1);
  } catch (const std::exception&) {
  }
}

std::array<CompareSource, 2> CompareRecordingsDialog::sources() const {
  std::array<CompareSource, 2> out;
  for (std::size_t i = 0; i < 2; ++i) {
    out[i].file = files_[i]->text().trimmed();
    if (sessions_[i]->count() > 0) out[i].session = sessions_[i]->currentData().value<qint64>();
  }
  return out;
}

// -- opening and running --

CompareWindow* openCompareWindow(QWidget* parent, const CompareSource& a, const CompareSource& b,
                                 std::shared_ptr<QTemporaryDir> temporary, QString* error) {
  for (const CompareSource* s : {&a, &b})
    if (s->file.isEmpty()) {
      if (error) *error = QStringLiteral("Choose a recording for side %1.").arg(s == &a ? 'A' : 'B');
      return nullptr;
    }
  try {
    auto* window = new CompareWindow(a, b, parent);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->keepFiles(std::move(temporary));
    window->resize(1366, 768);
    window->show();
    return window;
  } catch (const RecordingError& e) {
    if (error) *error = QString::fromUtf8(e.what());  // it names the file, what is wrong and what to do
  } catch (const std::exception& e) {
    if (error)
      *error = QStringLiteral("Cannot compare \"%1\" with \"%2\": %3")
                   .arg(a.file, b.file, QString::fromUtf8(e.what()));
  }
  return nullptr;
}

CompareLauncher::CompareLauncher(CompareConfig config, const Workloads& workloads, QWidget* parent)
    : QObject(parent), parentWidget_(parent), run_(new CompareRun(std::move(config), workloads, this)) {}

void CompareLauncher::start() {
  const CompareConfig& c = run_->config();
  progress_ = new QProgressDialog(parentWidget_);
  progress_->setObjectName(QStringLiteral("compare-progress"));
  progress_->setWindowTitle(QStringLiteral("Comparing"));
  progress_->setRange(0, 1000);
  progress_->setMinimumDuration(0);
  progress_->setAutoClose(false);
  progress_->setAutoReset(false);
  progress_->setLabelText(
      QStringLiteral("Starting %1 on %2 and %3…")
          .arg(QString::fromStdString(c.scenario), CompareRun::sideName(c, 0), CompareRun::sideName(c, 1)));
  connect(progress_, &QProgressDialog::canceled, run_, &CompareRun::cancel);
  // One after the other: A fills the first half of the bar, B the second; at once: the slower.
  auto seen = std::make_shared<std::array<double, 2>>();
  connect(run_, &CompareRun::sideProgress, this, [this, seen](int side, double elapsed) {
    const CompareConfig& cfg = run_->config();
    (*seen)[static_cast<std::size_t>(side)] = elapsed;
    const double done = cfg.concurrent ? std::min((*seen)[0], (*seen)[1]) / cfg.seconds
                                       : ((*seen)[0] + (*seen)[1]) / (2 * cfg.seconds);
    if (!progress_) return;
    progress_->setValue(static_cast<int>(done * 1000));
    progress_->setLabelText(QStringLiteral("%1%2: %3 of %4 s")
                                .arg(cfg.concurrent ? QStringLiteral("Both sides at once · ") : QString(),
                                     CompareRun::sideName(cfg, side))
                                .arg(elapsed, 0, 'f', 1)
                                .arg(cfg.seconds, 0, 'f', 1));
  });
  connect(run_, &CompareRun::sideFailed, this, [this](int, const QString& message) {
    if (progress_) progress_->close();
    emit failed(message);
    QMessageBox::warning(parentWidget_, QStringLiteral("The comparison failed"), message);
    deleteLater();
  });
  connect(run_, &CompareRun::cancelled, this, [this] {
    if (progress_) progress_->close();
    emit failed(QString());
    deleteLater();
  });
  connect(run_, &CompareRun::finished, this, [this] {
    QString error;
    // The window first, then the progress dialog goes: closing the only window would end the app.
    CompareWindow* window = openCompareWindow(parentWidget_, {run_->file(0), std::nullopt},
                                              {run_->file(1), std::nullopt}, run_->temporaryDir(), &error);
    if (progress_) progress_->close();
    if (window)
      emit opened(window);
    else {
      emit failed(error);
      QMessageBox::warning(parentWidget_, QStringLiteral("Could not open the comparison"), error);
    }
    deleteLater();
  });
  progress_->show();
  run_->start();
}

int runCompareCommand(int argc, char** argv, const cli::CompareRequest& request, Workloads workloads) {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0';
  };
  if (!set("QT_QPA_PLATFORM") && !set("DISPLAY") && !set("WAYLAND_DISPLAY")) {
    std::fprintf(
        stderr,
        "actorscope compare: there is no display to show the comparison on (neither DISPLAY nor "
        "WAYLAND_DISPLAY is set).\n"
        "  - run it under a virtual display: xvfb-run -a actorscope compare ...\n"
        "  - or save its views as PNG: actorscope --screenshot DIR --compare asio,qt --scenario NAME\n"
        "  - or compare two recordings as text: actorscope diff A.db B.db\n");
    return 1;
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Actorscope"));
  QApplication::setApplicationName(QStringLiteral("actorscope"));
  QApplication::setApplicationDisplayName(QStringLiteral("Actorscope"));
  if (request.theme)
    if (auto t = themeFromName(QString::fromStdString(*request.theme))) applyTheme(*t);

  if (!request.files.empty()) {
    QString error;
    auto source = [](const std::string& f, std::int64_t s) {
      return CompareSource{QString::fromStdString(f), s == 0 ? std::nullopt : std::optional<std::int64_t>(s)};
    };
    CompareWindow* window = openCompareWindow(nullptr, source(request.files[0], request.session_a),
                                              source(request.files[1], request.session_b), nullptr, &error);
    if (!window) {
      std::fprintf(stderr, "actorscope compare: %s\n", error.toLocal8Bit().constData());
      return 1;
    }
    return app.exec();
  }

  CompareConfig config;
  config.scenario = request.scenario;
  config.sides[0] = {request.runtime_a, request.threads_a, QString::fromStdString(request.record_a), false};
  config.sides[1] = {request.runtime_b, request.threads_b, QString::fromStdString(request.record_b), false};
  config.seconds = request.seconds;
  config.concurrent = request.concurrent;
  try {
    auto* launcher = new CompareLauncher(config, workloads, nullptr);
    int code = 0;
    QObject::connect(launcher, &CompareLauncher::failed, &app, [&code](const QString& message) {
      if (!message.isEmpty())
        std::fprintf(stderr, "actorscope compare: %s\n", message.toLocal8Bit().constData());
      code = 1;
      QCoreApplication::exit(1);
    });
    launcher->start();
    const int result = app.exec();
    return code != 0 ? code : result;
  } catch (const CompareError& e) {
    std::fprintf(stderr, "actorscope compare: %s\n", e.what());
    return 2;
  }
}

}  // namespace actorscope::gui
