// Statistics over samples: percentiles by linear interpolation, outliers by Tukey's fences.
#include <actorscope/benchmarks/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace actorscope::bench {

double percentile_of_sorted(std::span<const double> sorted, double p) noexcept {
  const std::size_t n = sorted.size();
  if (n == 1) return sorted[0];
  const double rank = std::clamp(p, 0.0, 1.0) * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, n - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Statistics compute_statistics(std::span<const double> samples) {
  Statistics s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.q1 = percentile_of_sorted(v, 0.25);
  s.median = percentile_of_sorted(v, 0.50);
  s.q3 = percentile_of_sorted(v, 0.75);
  s.p95 = percentile_of_sorted(v, 0.95);
  s.p99 = percentile_of_sorted(v, 0.99);
  const double n = static_cast<double>(v.size());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  if (v.size() > 1) {
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(sq / (n - 1));
  }
  const double iqr = s.q3 - s.q1;
  const double mild_lo = s.q1 - 1.5 * iqr, mild_hi = s.q3 + 1.5 * iqr;
  const double severe_lo = s.q1 - 3 * iqr, severe_hi = s.q3 + 3 * iqr;
  for (double x : v) {
    if (x < severe_lo || x > severe_hi) {
      ++s.outliers_severe;
    } else if (x < mild_lo || x > mild_hi) {
      ++s.outliers_mild;
    }
  }
  return s;
}

}  // namespace actorscope::bench
