// The replay's "why" and "ask" docks over real recordings: the cause chain view lists a scripted
// failure three hops deep in order and says where the chain began, asks the cursor and the
// selection to follow a clicked hop, and has the flow chart emphasise the chain; for a recording
// from before causes were kept it says so. The Query dock runs SQL on a worker thread, shows
// SQLite's message for a bad query, refuses writes without changing the file, runs every example
// of docs/RECORDING-FORMAT.md from its menu, and a clicked row selects its actor and moves the
// cursor to its time.
#include "recording_test.hpp"
#include "relay_chain.hpp"
#include "sqlite_test.hpp"

#ifndef Q_MOC_RUN
#include "causes/cause_chain_view.hpp"
#include "flow/message_flow_model.hpp"
#include "flow/message_flow_view.hpp"
#include "query/query_view.hpp"

#include <actorscope/storage/query.hpp>
#endif

#include <QAction>
#include <QApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeWidget>

using namespace recording_test;
namespace v = actorscope::views;

#ifndef Q_MOC_RUN
namespace {

struct Recorded {
  std::filesystem::path file;
  as::ActorId first, middle, last;
};

/// outside -> first -> middle -> last, which throws; recorded at full detail on asio.
void record_chain(const std::filesystem::path& file, Recorded& out) {
  out.file = file;
  Probe probe;
  as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 5ms});
  as::System sys(as::make_runtime("asio", {.threads = 2}));
  sys.attach(rec);
  auto last = sys.spawn(Relay{std::nullopt, "last", &probe}, {.name = "last"}).value();
  auto middle = sys.spawn(Relay{last, "middle", &probe}, {.name = "middle"}).value();
  auto first = sys.spawn(Relay{middle, "first", &probe}, {.name = "first"}).value();
  // Unrelated traffic to the same actors: the chain must pick the right messages.
  for (int i = 0; i < 20; ++i) {
    (void)middle.cast(Step{1000 + i});
    (void)last.cast(Step{2000 + i});
  }
  (void)first.cast(Step{1});
  QVERIFY(last.wait(kTimeout));
  out.first = first.id();
  out.middle = middle.id();
  out.last = last.id();
}

QByteArray digest(const std::filesystem::path& file) {
  QFile f(QString::fromStdString(file.string()));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

std::int64_t only_session(const as::SessionReader& r) {
  const auto s = r.sessions();
  return s.empty() ? 0 : s.back().id;
}

}  // namespace
#endif

class TestReplayViews : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  Recorded rec_;

  /// Runs the view's statement and waits for its outcome.
  static bool runAndWait(v::QueryView& view, const QString& sql) {
    view.editor()->setPlainText(sql);
    QSignalSpy done(&view, &v::QueryView::finished);
    view.run();
    return done.wait(30'000);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    record_chain(path_in(dir_, "chain.db"), rec_);
  }

  void the_chain_lists_three_hops_in_order_and_says_it_began_outside() {
    const as::SessionReader reader(rec_.file);
    v::ActorSelection selection;
    v::CauseChainView view(&selection);
    view.resize(900, 400);
    view.setReader(&reader, only_session(reader));
    QSignalSpy highlight(&view, &v::CauseChainView::highlightRequested);
    view.showActor(rec_.last);

    QVERIFY(view.chain().has_value());
    QTreeWidget* list = view.list();
    QCOMPARE(list->topLevelItemCount(), 3);
    using C = v::CauseChainView;
    // The failing message first: handled by `last`, sent by `middle`, with the failure text.
    QVERIFY(list->topLevelItem(0)->text(C::HandlerColumn).startsWith(QStringLiteral("last (")));
    QVERIFY(list->topLevelItem(0)->text(C::SenderColumn).startsWith(QStringLiteral("middle (")));
    QVERIFY(list->topLevelItem(0)->text(C::NoteColumn).contains(QStringLiteral("last cannot take step 3")));
    QVERIFY(list->topLevelItem(1)->text(C::HandlerColumn).startsWith(QStringLiteral("middle (")));
    QVERIFY(list->topLevelItem(1)->text(C::SenderColumn).startsWith(QStringLiteral("first (")));
    QVERIFY(list->topLevelItem(2)->text(C::HandlerColumn).startsWith(QStringLiteral("first (")));
    QCOMPARE(list->topLevelItem(2)->text(C::SenderColumn), QStringLiteral("outside"));
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(list->topLevelItem(i)->text(C::HopColumn), QString::number(i + 1));
      QCOMPARE(list->topLevelItem(i)->text(C::TypeColumn), QStringLiteral("Step"));
    }
    QVERIFY2(view.explanation().contains(QStringLiteral("outside")), qPrintable(view.explanation()));
    QVERIFY2(view.headline().contains(QStringLiteral("failed")) &&
                 view.headline().contains(QStringLiteral("last cannot take step 3")),
             qPrintable(view.headline()));

    // The flow chart is offered the chain's three messages.
    QVERIFY(!highlight.isEmpty());
    const auto traces = highlight.last().at(0).value<std::vector<std::uint64_t>>();
    QCOMPARE(traces.size(), std::size_t{3});
    QCOMPARE(traces, view.traces());
    QCOMPARE(traces[0], view.chain()->hops[0].handled.trace);

    // Clicking a hop moves the cursor to its handling and selects its handler.
    QSignalSpy time(&view, &v::CauseChainView::timeRequested);
    QSignalSpy actor(&view, &v::CauseChainView::actorRequested);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QRect rect = list->visualItemRect(list->topLevelItem(1));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(time.count(), 1);
    QCOMPARE(time.at(0).at(0).value<as::TimePoint>(), view.chain()->hops[1].handled.time);
    QCOMPARE(actor.count(), 1);
    QCOMPARE(actor.at(0).at(0).value<as::ActorId>(), rec_.middle);

    // The button explains the selected actor; an actor that did not fail says so.
    selection.select(rec_.first);
    view.showSelectedActor();
    QCOMPARE(list->topLevelItemCount(), 0);
    QVERIFY2(view.headline().contains(QStringLiteral("did not fail")), qPrintable(view.headline()));
    QVERIFY(view.traces().empty());
    QVERIFY(highlight.last().at(0).value<std::vector<std::uint64_t>>().empty());
  }

  void the_flow_chart_emphasises_the_chain() {
    const as::SessionReader reader(rec_.file);
    const std::int64_t session = only_session(reader);
    const as::CauseChain chain = reader.cause_chain(session, rec_.last);
    QCOMPARE(chain.hops.size(), std::size_t{3});
    // The state just after the failure: the chain's messages are in the chart's window.
    const as::observe::SystemState state = reader.state_at(session, chain.exit->time);
    v::ActorSelection selection;
    v::MessageFlowView view(&selection, nullptr);
    view.resize(900, 700);
    view.setState(state);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage plain = view.chart()->viewport()->grab().toImage();

    std::vector<std::uint64_t> traces;
    for (const as::CauseHop& hop : chain.hops) traces.push_back(hop.handled.trace);
    view.setHighlightedTraces(traces);
    const auto& rows = view.model()->rows();
    const auto highlighted = std::count_if(rows.begin(), rows.end(),
                                           [&](const v::FlowMessage& m) { return view.model()->isHighlighted(m); });
    QCOMPARE(highlighted, 3);
    // Emphasised rows are bold in the model, and the chart draws them differently.
    for (int r = 0; r < view.model()->rowCount(); ++r) {
      const bool bold = view.model()->index(r, 0).data(Qt::FontRole).value<QFont>().bold();
      QCOMPARE(bold, view.model()->isHighlighted(rows[static_cast<std::size_t>(r)]));
    }
    const QImage emphasised = view.chart()->viewport()->grab().toImage();
    QVERIFY(emphasised != plain);

    view.setHighlightedTraces({});
    QVERIFY(view.model()->highlightedTraces().empty());
    QCOMPARE(view.chart()->viewport()->grab().toImage(), plain);
    // A new session forgets the highlight.
    view.setHighlightedTraces(traces);
    view.resetSession();
    QVERIFY(view.model()->highlightedTraces().empty());
  }

  void a_recording_without_causes_says_so() {
    const auto old = path_in(dir_, "format3.db");
    Recorded rec;
    record_chain(old, rec);
    {
      Sqlite db(old);
      QVERIFY(db.exec("ALTER TABLE events DROP COLUMN cause; UPDATE meta SET value = '3' WHERE key = 'format_version'"));
    }
    const as::SessionReader reader(old);
    v::CauseChainView view(nullptr);
    view.setReader(&reader, only_session(reader));
    view.showActor(rec.last);
    QCOMPARE(view.list()->topLevelItemCount(), 1);  // the failing message is still known
    QVERIFY2(view.explanation().contains(QStringLiteral("format 3")), qPrintable(view.explanation()));
  }

  void the_query_dock_runs_sql_and_follows_a_clicked_row() {
    const QByteArray before = digest(rec_.file);
    {
      const as::SessionReader reader(rec_.file);
      const std::int64_t session = only_session(reader);
      const as::CauseChain chain = reader.cause_chain(session, rec_.last);
      v::ActorSelection selection;
      v::QueryView view(&selection);
      view.resize(900, 600);
      QVERIFY(!view.hasRecording());
      view.setRecording(reader, session);
      QVERIFY(view.hasRecording());

      QVERIFY(runAndWait(view, QStringLiteral("SELECT seq, t_ns, actor_id, kind, detail FROM events "
                                              "WHERE kind = 'failed'")));
      QVERIFY2(view.lastError().isEmpty(), qPrintable(view.lastError()));
      QCOMPARE(view.model()->rowCount(), 1);
      QCOMPARE(view.model()->columnCount(), 5);
      QCOMPARE(view.model()->headerData(2, Qt::Horizontal).toString(), QStringLiteral("actor_id"));
      QVERIFY2(view.statusText().startsWith(QStringLiteral("1 row")), qPrintable(view.statusText()));

      // A click on the row selects its actor and moves the cursor to its time.
      QSignalSpy time(&view, &v::QueryView::timeRequested);
      view.show();
      QVERIFY(QTest::qWaitForWindowExposed(&view));
      const QRect cell = view.table()->visualRect(view.model()->index(0, 3));
      QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, {}, cell.center());
      QCOMPARE(selection.current(), rec_.last);
      QCOMPARE(time.count(), 1);
      QCOMPARE(time.at(0).at(0).value<as::TimePoint>(), chain.exit->time);

      // A bad query gets SQLite's message; the last result stays.
      QVERIFY(runAndWait(view, QStringLiteral("SELEC kind FROM events")));
      QVERIFY2(view.lastError().contains(QStringLiteral("syntax error")), qPrintable(view.lastError()));
      QVERIFY(view.statusText().contains(QStringLiteral("syntax error")));
      QCOMPARE(view.model()->rowCount(), 1);
      // A write is refused, and says what to do.
      QVERIFY(runAndWait(view, QStringLiteral("DELETE FROM events")));
      QVERIFY2(view.lastError().contains(QStringLiteral("read-only")), qPrintable(view.lastError()));

      // Ctrl+Enter runs the editor's statement.
      view.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&view));
      view.editor()->setFocus();
      view.editor()->setPlainText(QStringLiteral("SELECT actor_id, name FROM actors ORDER BY actor_id"));
      QSignalSpy done(&view, &v::QueryView::finished);
      QTest::keyClick(view.editor(), Qt::Key_Return, Qt::ControlModifier);
      QVERIFY(done.wait(30'000));
      QVERIFY2(view.lastError().isEmpty(), qPrintable(view.lastError()));
      QCOMPARE(view.model()->rowCount(), 3);
      QCOMPARE(view.editor()->toPlainText().count(QLatin1Char('\n')), 0);  // the key did not type a line

      // The row limit: the status says the result stopped there.
      view.setMaxRows(5);
      QVERIFY(runAndWait(view, QStringLiteral("SELECT seq FROM events")));
      QCOMPARE(view.model()->rowCount(), 5);
      QVERIFY2(view.statusText().contains(QStringLiteral("limit")), qPrintable(view.statusText()));
      view.setMaxRows(10'000);

      // Cancel stops a statement that would run for ever; the window says so and runs the next.
      view.editor()->setPlainText(
          QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"));
      QSignalSpy cancelled(&view, &v::QueryView::finished);
      view.run();
      QVERIFY(view.isRunning());
      view.cancel();
      QVERIFY(cancelled.wait(30'000));
      QVERIFY2(view.lastError().contains(QStringLiteral("cancelled")), qPrintable(view.lastError()));
      QVERIFY(!view.isRunning());
      QVERIFY(runAndWait(view, QStringLiteral("SELECT 1")));
      QVERIFY(view.lastError().isEmpty());
    }
    QCOMPARE(digest(rec_.file), before);
  }

  void every_example_of_the_format_page_is_in_the_menu_and_runs() {
    const as::SessionReader reader(rec_.file);
    const std::int64_t session = only_session(reader);
    v::ActorSelection selection;
    v::QueryView view(&selection);
    view.setRecording(reader, session);
    const auto& examples = as::example_queries();
    const QList<QAction*> actions = view.examplesMenu()->actions();
    QCOMPARE(actions.size(), static_cast<qsizetype>(examples.size()));
    QVERIFY(actions.size() >= 8);
    for (qsizetype i = 0; i < actions.size(); ++i) {
      QCOMPARE(actions[i]->text(), QString::fromStdString(examples[static_cast<std::size_t>(i)].title));
      QSignalSpy done(&view, &v::QueryView::finished);
      actions[i]->trigger();
      QVERIFY(done.wait(30'000));
      QVERIFY2(view.lastError().isEmpty(),
               qPrintable(actions[i]->text() + QStringLiteral(": ") + view.lastError()));
      QVERIFY(view.model()->columnCount() > 0);
    }
    // The failures example: one row; its at_s (seconds into the session) moves the cursor.
    const auto failures = std::find_if(actions.begin(), actions.end(),
                                       [](QAction* a) { return a->text().startsWith(QStringLiteral("Failures")); });
    QVERIFY(failures != actions.end());
    QSignalSpy done(&view, &v::QueryView::finished);
    (*failures)->trigger();
    QVERIFY(done.wait(30'000));
    QCOMPARE(view.model()->rowCount(), 1);
    QSignalSpy time(&view, &v::QueryView::timeRequested);
    view.activateRow(0);
    QCOMPARE(selection.current(), rec_.last);
    QCOMPARE(time.count(), 1);
    const as::CauseChain chain = reader.cause_chain(session, rec_.last);
    const auto off = time.at(0).at(0).value<as::TimePoint>() - chain.exit->time;
    QVERIFY(off < 1ms && off > -1ms);  // at_s is a double: close, not exact
  }

  void a_file_that_is_not_a_recording_shows_why() {
    const auto text = path_in(dir_, "notes.txt");
    {
      std::ofstream out(text);
      out << "these are notes, not a recording; long enough to be read as a would-be database header.\n";
    }
    v::QueryView view(nullptr);
    view.setRecording(text, 1, {});
    QVERIFY(!view.hasRecording());
    QVERIFY2(view.statusText().contains(QStringLiteral("notes.txt")), qPrintable(view.statusText()));
    view.run();  // nothing to run: ignored
    QVERIFY(!view.isRunning());
  }
};

QTEST_MAIN(TestReplayViews)
#include "tst_replay_views.moc"
