// DiffTableModel on diffs of scripted states, checked by QAbstractItemModelTester through a series
// of diffs (more rows, fewer, none): its rows follow the diff's order, then the one-sided actors;
// each DiffColumn has A, B and B/A; ratios read as `actorscope diff` writes them; SortRole sorts.
#include <QAbstractItemModelTester>
#include <QTest>

#ifndef Q_MOC_RUN
#include "scripted_state.hpp"

#include <actorscope/storage/recording_diff.hpp>
#include <compare/diff_table_model.hpp>
#include <common/roles.hpp>

#include <cmath>
#endif

namespace {

using namespace views_test;
using Model = as::views::DiffTableModel;
using Part = Model::Part;
using Col = as::DiffColumn;

as::DiffSide side_of(const ScriptedState& s) {
  return as::make_diff_side("side", as::actor_infos(s.state), s.state, 10s);
}

/// sup → worker-1, worker-2 (ids from `base`); worker-2 handles `w2_handled`, fails `w2_failures`
/// times (replaced after each), and worker-1's messages wait `queue` each.
ScriptedState scripted(std::uint64_t base, std::uint64_t w2_handled, int w2_failures, as::Duration queue) {
  ScriptedState s;
  s.spawn(base + 1, 0, "sup", "demo::Supervisor");
  s.advance(1ms);
  s.spawn(base + 2, base + 1, "worker-1");
  s.advance(1ms);
  s.spawn(base + 3, base + 1, "worker-2");
  for (int i = 0; i < 10; ++i) s.message(0, base + 2, "Job", queue, 5us);
  s.stats(base + 2, 10, 1);
  s.stats(base + 3, w2_handled, 4);
  std::uint64_t w2 = base + 3;
  for (int f = 0; f < w2_failures; ++f) {
    s.advance(1ms);
    s.fail(w2, "boom");
    s.advance(1ms);
    w2 = base + 10 + static_cast<std::uint64_t>(f);
    s.spawn(w2, base + 1, "worker-2");
  }
  return s;
}

QString text(const Model& m, int row, int column) { return m.index(row, column).data().toString(); }

}  // namespace

class TestDiffTableModel : public QObject {
  Q_OBJECT

 private slots:
  void rows_columns_and_texts_follow_the_diff() {
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 1 + 11 * 3);  // dropped and rejected came with bounded mailboxes
    QVERIFY(model.headerData(Model::column(Col::dropped, Part::a), Qt::Horizontal).toString().contains(
        QStringLiteral("Dropped")));
    QVERIFY(model.headerData(Model::column(Col::rejected, Part::ratio), Qt::Horizontal).toString().contains(
        QStringLiteral("Rejected")));

    const ScriptedState a = scripted(0, 100, 0, 10us);
    ScriptedState b = scripted(100, 300, 2, 40us);
    b.spawn(200, 101, "auditor", "demo::Auditor");
    model.setDiff(as::diff_sides(side_of(a), side_of(b)));
    QCOMPARE(model.rowCount(), 4);  // sup, worker-1, worker-2 matched; auditor only in B
    QCOMPARE(model.matchedRows(), 3);
    // worker-2 failed in B only ("new"): first; worker-1 (queue 4x) next.
    QCOMPARE(text(model, 0, Model::kActorColumn), QString("sup/worker-2"));
    QCOMPARE(text(model, 1, Model::kActorColumn), QString("sup/worker-1"));
    QCOMPARE(text(model, 3, Model::kActorColumn), QString("sup/auditor"));
    QCOMPARE(model.onlyIn(3), QString("B"));
    QCOMPARE(model.onlyIn(0), QString());

    QCOMPARE(text(model, 0, Model::column(Col::handled, Part::a)), QString("100"));
    QCOMPARE(text(model, 0, Model::column(Col::handled, Part::b)), QString("300"));
    QCOMPARE(text(model, 0, Model::column(Col::handled, Part::ratio)), QString("3.00×"));
    QCOMPARE(text(model, 0, Model::column(Col::failures, Part::a)), QString("0"));
    QCOMPARE(text(model, 0, Model::column(Col::failures, Part::b)), QString("2"));
    QCOMPARE(text(model, 0, Model::column(Col::failures, Part::ratio)), QString("new"));
    QCOMPARE(text(model, 0, Model::column(Col::restarts, Part::ratio)), QString("new"));
    // No timed message for worker-2: not measured, nothing to compare.
    QCOMPARE(text(model, 0, Model::column(Col::queue_p99, Part::a)), QString("—"));
    QCOMPARE(text(model, 0, Model::column(Col::queue_p99, Part::ratio)), QString("—"));
    // worker-1: the same handled, its queue p99 about 4x (the histogram keeps 1/8).
    QCOMPARE(text(model, 1, Model::column(Col::handled, Part::ratio)), QString("1.00×"));
    const double r = model.index(1, Model::column(Col::queue_p99, Part::ratio)).data(as::views::SortRole).toDouble();
    QVERIFY2(r > std::log(3.0) && r < std::log(5.0), qPrintable(QString::number(r)));
    QVERIFY(std::isinf(model.index(0, Model::column(Col::failures, Part::ratio)).data(as::views::SortRole).toDouble()));
    // The one-sided row: B's figures, no A, no ratio.
    QCOMPARE(text(model, 3, Model::column(Col::handled, Part::a)), QString("—"));
    QCOMPARE(text(model, 3, Model::column(Col::handled, Part::b)), QString("0"));
    QCOMPARE(text(model, 3, Model::column(Col::handled, Part::ratio)), QString("—"));
    QVERIFY(model.index(3, 0).data(Qt::ToolTipRole).toString().contains("only in B"));
    QCOMPARE(model.headerData(Model::column(Col::queue_p99, Part::ratio), Qt::Horizontal).toString(),
             QString("Queue p99 B/A"));

    // Fewer rows, then the same state against itself (no difference), then nothing.
    ScriptedState small;
    small.spawn(1, 0, "sup", "demo::Supervisor");
    model.setDiff(as::diff_sides(side_of(small), side_of(a)));
    QCOMPARE(model.matchedRows(), 1);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.onlyIn(1), QString("B"));
    model.setDiff(as::diff_sides(side_of(a), side_of(a)));
    QCOMPARE(model.rowCount(), 3);
    for (int row = 0; row < model.rowCount(); ++row)
      for (int c = 0; c < 9; ++c) {
        const QString ratio = text(model, row, Model::column(static_cast<Col>(c), Part::ratio));
        QVERIFY2(ratio == "1.00×" || ratio == "—", qPrintable(ratio));
      }
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(TestDiffTableModel)
#include "tst_diff_table_model.moc"
