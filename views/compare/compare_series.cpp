// The compare window's chart data and one-sided warnings (compare_series.hpp).
#include "compare/compare_series.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <tuple>

namespace actorscope::views {

namespace {

double secondsSince(TimePoint t, TimePoint start) {
  return std::chrono::duration<double>(t - start).count();
}

}  // namespace

std::vector<QPointF> handledRateSeries(const std::vector<observe::StatsSample>& samples, TimePoint start,
                                       Duration bin) {
  if (bin <= Duration::zero() || samples.empty()) return {};
  std::map<std::int64_t, std::uint64_t> handled;  // bin index -> messages
  for (const observe::StatsSample& s : samples) {
    // A sample ending exactly on a bin's end belongs to that bin: (end - start - 1ns) / bin.
    const auto since = s.end - start;
    const std::int64_t index = since <= Duration::zero() ? 0 : (since - Duration(1)) / bin;
    handled[index] += s.handled;
  }
  const double binSeconds = std::chrono::duration<double>(bin).count();
  std::vector<QPointF> points;
  const std::int64_t first = handled.begin()->first;
  const std::int64_t last = handled.rbegin()->first;
  points.reserve(static_cast<std::size_t>(last - first + 1));
  for (std::int64_t i = first; i <= last; ++i) {
    const auto it = handled.find(i);
    const double count = it == handled.end() ? 0.0 : static_cast<double>(it->second);
    points.emplace_back(static_cast<double>(i + 1) * binSeconds, count / binSeconds);
  }
  return points;
}

std::vector<QPointF> mailboxSeries(const std::vector<observe::StatsSample>& samples,
                                   const std::set<ActorId>& actors, TimePoint start) {
  std::map<TimePoint, std::uint64_t> depth;
  for (const observe::StatsSample& s : samples) {
    if (!actors.contains(s.actor)) continue;
    auto [it, fresh] = depth.try_emplace(s.end, s.mailbox_max);
    if (!fresh) it->second = std::max(it->second, s.mailbox_max);
  }
  std::vector<QPointF> points;
  points.reserve(depth.size());
  for (const auto& [t, d] : depth) points.emplace_back(secondsSince(t, start), static_cast<double>(d));
  return points;
}

observe::LogHistogram totalHistogram(const observe::SystemState& state, TimeKind kind) {
  observe::LogHistogram total;
  for (const auto& [id, a] : state.actors())
    total.merge(kind == TimeKind::queue ? a.queue_ns : a.handling_ns);
  return total;
}

std::vector<QPointF> histogramShares(const observe::LogHistogram& histogram) {
  if (histogram.empty()) return {};
  // The histogram's buckets are 1/8 of a power of two wide: too fine for two curves to be told
  // apart at a glance, so they are added up by power of two (octave) first.
  std::map<int, std::uint64_t> octaves;
  const auto& buckets = histogram.buckets();
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] == 0) continue;
    const std::uint64_t lower = observe::LogHistogram::lower_bound(i);
    const int octave = lower == 0 ? 0 : static_cast<int>(std::bit_width(lower)) - 1;
    octaves[octave] += buckets[i];
  }
  const double total = static_cast<double>(histogram.count());
  std::vector<QPointF> points;
  for (int o = octaves.begin()->first; o <= octaves.rbegin()->first; ++o) {
    const auto it = octaves.find(o);
    // The octave [2^o, 2^(o+1)) ns; its geometric middle, in µs.
    const double middleUs = std::ldexp(std::sqrt(2.0), o) / 1000.0;
    points.emplace_back(middleUs,
                        it == octaves.end() ? 0.0 : 100.0 * static_cast<double>(it->second) / total);
  }
  return points;
}

std::vector<OneSidedWarning> oneSidedWarnings(const std::vector<Warning>& a,
                                              const std::function<std::string(ActorId)>& pathA,
                                              const std::vector<Warning>& b,
                                              const std::function<std::string(ActorId)>& pathB) {
  using Key = std::tuple<WarningKind, std::string>;
  auto keyed = [](const std::vector<Warning>& warnings, const std::function<std::string(ActorId)>& path) {
    std::vector<std::pair<Key, const Warning*>> out;
    for (const Warning& w : warnings)
      out.emplace_back(Key{w.kind, w.actor.is_valid() ? path(w.actor) : std::string()}, &w);
    return out;
  };
  const auto ka = keyed(a, pathA);
  const auto kb = keyed(b, pathB);
  std::set<Key> inA, inB;
  for (const auto& [k, w] : ka) inA.insert(k);
  for (const auto& [k, w] : kb) inB.insert(k);
  std::vector<OneSidedWarning> out;
  // One entry per key: two late timers of one actor on side A and none on B is one difference.
  std::set<std::pair<int, Key>> listed;
  for (const auto& [k, w] : ka)
    if (!inB.contains(k) && listed.emplace(0, k).second) out.push_back({0, *w, std::get<1>(k)});
  for (const auto& [k, w] : kb)
    if (!inA.contains(k) && listed.emplace(1, k).second) out.push_back({1, *w, std::get<1>(k)});
  return out;
}

}  // namespace actorscope::views
