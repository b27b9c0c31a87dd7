// The data behind the compare window's overlay charts and its one-sided warnings, on scripted
// samples and states: the rate series bins the samples' handled counts by time since start and
// keeps empty bins as zeros; the mailbox series follows one logical actor's incarnations only; the
// whole-side histograms add every actor's up; their shares add up to 100 %; and warnings are
// matched across sides by kind and path, never by id.
#include "scripted_state.hpp"

#include "compare/compare_series.hpp"
#include "compare/overlay_chart.hpp"

#include <QApplication>
#include <QImage>
#include <QPalette>
#include <QTest>

#include <numeric>

using namespace views_test;
namespace views = actorscope::views;

namespace {

obs::StatsSample sample(as::TimePoint end, std::uint64_t pid, std::uint64_t handled,
                        std::uint64_t mailboxMax = 0) {
  obs::StatsSample s;
  s.end = end;
  s.actor = id(pid);
  s.handled = handled;
  s.mailbox_max = mailboxMax;
  return s;
}

views::Warning warning(views::WarningKind kind, as::ActorId actor, std::string summary = "x") {
  views::Warning w;
  w.kind = kind;
  w.actor = actor;
  w.summary = std::move(summary);
  return w;
}

}  // namespace

class TestCompareSeries : public QObject {
  Q_OBJECT
 private slots:
  void the_rate_series_adds_up_each_bin_and_keeps_empty_bins_as_zero() {
    const as::TimePoint start(std::chrono::seconds(50));
    // Two actors polled every 100 ms; nothing polled in the third bin (a stall).
    const std::vector<obs::StatsSample> samples{
        sample(start + 100ms, 1, 30), sample(start + 100ms, 2, 20),  // bin 1: 50 in 0.1 s
        sample(start + 200ms, 1, 10),                                // bin 2: 10
        sample(start + 400ms, 2, 5),  sample(start + 350ms, 1, 5),   // bin 4: 10 (any order)
    };
    const auto points = views::handledRateSeries(samples, start, 100ms);
    QCOMPARE(points.size(), std::size_t(4));
    QCOMPARE(points[0], QPointF(0.1, 500));
    QCOMPARE(points[1], QPointF(0.2, 100));
    QCOMPARE(points[2], QPointF(0.3, 0));  // the stall shows as a dip
    QCOMPARE(points[3], QPointF(0.4, 100));
    // A wider bin adds them up further: 0..200 ms holds 60, 200..400 ms holds 10.
    const auto wide = views::handledRateSeries(samples, start, 200ms);
    QCOMPARE(wide.size(), std::size_t(2));
    QCOMPARE(wide[0], QPointF(0.2, 300));
    QCOMPARE(wide[1], QPointF(0.4, 50));
    QVERIFY(views::handledRateSeries({}, start, 100ms).empty());
    QVERIFY(views::handledRateSeries(samples, start, as::Duration::zero()).empty());
  }

  void the_mailbox_series_follows_one_logical_actors_incarnations_only() {
    const as::TimePoint start(std::chrono::seconds(50));
    const std::vector<obs::StatsSample> samples{
        sample(start + 100ms, 1, 0, 7),  sample(start + 100ms, 2, 0, 99),  // 2 is another actor
        sample(start + 200ms, 1, 0, 12), sample(start + 200ms, 3, 0, 4),   // 3: 1's replacement
        sample(start + 300ms, 3, 0, 2),
    };
    const auto points = views::mailboxSeries(samples, {id(1), id(3)}, start);
    QCOMPARE(points.size(), std::size_t(3));
    QCOMPARE(points[0], QPointF(0.1, 7));
    QCOMPARE(points[1], QPointF(0.2, 12));  // two incarnations at one time: the larger depth
    QCOMPARE(points[2], QPointF(0.3, 2));
    QVERIFY(views::mailboxSeries(samples, {id(9)}, start).empty());
  }

  void a_sides_histograms_add_up_every_actor_and_their_shares_make_100_percent() {
    ScriptedState s;
    s.spawn(1, 0, "a");
    s.spawn(2, 0, "b");
    s.message(0, 1, "m", 20us, 3us);
    s.message(0, 1, "m", 20us, 3us);
    s.message(0, 2, "m", 5ms, 300us);
    const auto queue = views::totalHistogram(s.state, views::TimeKind::queue);
    const auto handling = views::totalHistogram(s.state, views::TimeKind::handling);
    QCOMPARE(queue.count(), std::uint64_t(3));
    QCOMPARE(handling.count(), std::uint64_t(3));
    QVERIFY(queue.max() >= 5'000'000 && queue.min() <= 20'000 + 20'000 / 8);
    const auto shares = views::histogramShares(queue);
    QVERIFY(!shares.empty());
    const double total = std::accumulate(shares.begin(), shares.end(), 0.0,
                                         [](double sum, const QPointF& p) { return sum + p.y(); });
    QVERIFY2(std::abs(total - 100.0) < 1e-9, qPrintable(QString::number(total)));
    // Two thirds of the messages waited about 20 µs, one third about 5 ms; the empty octaves
    // between are there as zeros, so the curve drops between the two peaks.
    auto shareNear = [&](double us) {
      for (const QPointF& p : shares)
        if (p.x() > us / 1.5 && p.x() < us * 1.5) return p.y();
      return -1.0;
    };
    QVERIFY2(std::abs(shareNear(20 * 1.06) - 200.0 / 3) < 1e-9 ||
                 std::abs(shareNear(20 / 1.06) - 200.0 / 3) < 1e-9,
             "two thirds near 20 µs");
    QCOMPARE(std::count_if(shares.begin(), shares.end(), [](const QPointF& p) { return p.y() == 0; }),
             std::ptrdiff_t(shares.size() - 2));
    QVERIFY(std::is_sorted(shares.begin(), shares.end(),
                           [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); }));
    QVERIFY(views::histogramShares({}).empty());
  }

  void warnings_are_one_sided_by_kind_and_path_never_by_id() {
    // The same actor has id 5 on A and id 8 on B; id 5 on B is another actor.
    auto pathA = [](as::ActorId a) -> std::string {
      return a == id(5) ? "root/worker" : a == id(6) ? "root" : "";
    };
    auto pathB = [](as::ActorId a) -> std::string {
      return a == id(8) ? "root/worker" : a == id(5) ? "root/other" : "";
    };
    const std::vector<views::Warning> a{
        warning(views::WarningKind::growing_mailbox, id(5)),  // also on B (id 8): not listed
        warning(views::WarningKind::restart_storm, id(6)),    // A only
        warning(views::WarningKind::dropped_events, {}),      // system-wide, A only
    };
    const std::vector<views::Warning> b{
        warning(views::WarningKind::growing_mailbox, id(8)),
        warning(views::WarningKind::growing_mailbox, id(5)),  // same id as A's, another actor: B only
        warning(views::WarningKind::blocked_event_loop, id(8)),
    };
    const auto one = views::oneSidedWarnings(a, pathA, b, pathB);
    QCOMPARE(one.size(), std::size_t(4));
    QCOMPARE(one[0].side, 0);
    QCOMPARE(one[0].warning.kind, views::WarningKind::restart_storm);
    QCOMPARE(one[0].path, std::string("root"));
    QCOMPARE(one[1].side, 0);
    QCOMPARE(one[1].warning.kind, views::WarningKind::dropped_events);
    QCOMPARE(one[1].path, std::string());
    QCOMPARE(one[2].side, 1);
    QCOMPARE(one[2].path, std::string("root/other"));
    QCOMPARE(one[3].side, 1);
    QCOMPARE(one[3].warning.kind, views::WarningKind::blocked_event_loop);
    QVERIFY(views::oneSidedWarnings(a, pathA, a, pathA).empty());  // a side against itself
  }

  void the_two_side_colours_stand_apart_on_the_light_and_dark_palettes() {
    for (const bool dark : {false, true}) {
      QPalette pal;
      pal.setColor(QPalette::Base, dark ? QColor(30, 30, 30) : QColor(255, 255, 255));
      pal.setColor(QPalette::Highlight, dark ? QColor(42, 130, 218) : QColor(48, 140, 198));
      const QColor a = views::compareSideColor(pal, 0);
      const QColor b = views::compareSideColor(pal, 1);
      QVERIFY2(std::abs(a.hueF() - b.hueF()) > 0.25, dark ? "dark" : "light");
      // Each reads against the chart's background.
      const int base = pal.color(QPalette::Base).lightness();
      QVERIFY(std::abs(a.lightness() - base) > 60);
      QVERIFY(std::abs(b.lightness() - base) > 60);
    }
  }

  void the_chart_draws_both_sides_in_their_colours() {
    views::OverlayChart chart;
    chart.resize(320, 200);
    chart.setSeries(0, {{0, 0}, {1, 10}, {2, 10}});
    chart.setSeries(1, {{0, 0}, {1, 5}, {2, 5}});
    const QImage image = chart.grab().toImage();
    auto has = [&](const QColor& c) {
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
          if (image.pixelColor(x, y) == c) return true;
      return false;
    };
    QVERIFY(has(views::compareSideColor(chart.palette(), 0)));
    QVERIFY(has(views::compareSideColor(chart.palette(), 1)));
  }
};

QTEST_MAIN(TestCompareSeries)
#include "tst_compare_series.moc"
