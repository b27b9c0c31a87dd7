// The data behind the compare window's overlay charts and its list of one-sided warnings, as pure
// functions over what a recording gives (statistics samples, a final SystemState, lint()'s
// warnings), so that they can be tested on scripted input without a window or a recording.
#pragma once

#include "warnings/warning_rules.hpp"

#include <actorscope/observe/histogram.hpp>
#include <actorscope/observe/system_state.hpp>

#include <QPointF>
#include <QString>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace actorscope::views {

/// Messages handled per second over time since `start`: the samples' `handled` (each the count of
/// its own statistics bucket) added up into bins of `bin`, by the bin their `end` falls in. One
/// point per bin from the first to the last bin that holds a sample (empty bins in between are 0,
/// so a stall shows as a dip, not as a line drawn across it): x = the bin's end in seconds since
/// `start`, y = messages per second. Samples before `start` go to the first bin. `bin` <= 0: empty.
std::vector<QPointF> handledRateSeries(const std::vector<observe::StatsSample>& samples, TimePoint start,
                                       Duration bin);

/// The mailbox depth of one logical actor over time since `start`: for each sample of one of
/// `actors` (its incarnations), x = seconds since `start`, y = the highest depth of that bucket
/// (StatsSample::mailbox_max), in time order. Incarnations never overlap in time, so one point per
/// sample time suffices; two samples at one time (an incarnation ending as the next one begins)
/// keep the larger depth.
std::vector<QPointF> mailboxSeries(const std::vector<observe::StatsSample>& samples,
                                   const std::set<ActorId>& actors, TimePoint start);

enum class TimeKind { queue, handling };
/// The queue-time or handling-time histogram of a whole side: every actor's in `state`, merged.
observe::LogHistogram totalHistogram(const observe::SystemState& state, TimeKind kind);

/// A histogram as a curve for an overlay: one point per non-empty bucket (and the empty buckets
/// between them), x = the bucket's middle in microseconds, y = the share of the messages in that
/// bucket in percent. Two sides with different message counts then compare by shape.
std::vector<QPointF> histogramShares(const observe::LogHistogram& histogram);

/// A warning raised on one side and not on the other. Warnings are matched by kind and by the path
/// of the actor they are about (never by id, which differs from run to run); a system-wide warning
/// (no actor) by its kind alone.
struct OneSidedWarning {
  int side = 0;  ///< 0: A only, 1: B only
  Warning warning;
  std::string path;  ///< the actor's path on its side ("" for a system-wide warning)
};
/// `pathA`/`pathB` give an actor's path on its side ("" when it has none).
std::vector<OneSidedWarning> oneSidedWarnings(const std::vector<Warning>& a,
                                              const std::function<std::string(ActorId)>& pathA,
                                              const std::vector<Warning>& b,
                                              const std::function<std::string(ActorId)>& pathB);

}  // namespace actorscope::views
