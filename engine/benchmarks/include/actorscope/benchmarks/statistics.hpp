// Statistics: the criterion-style summary of a benchmark's samples (min, median, mean, p95, p99,
// max, standard deviation) and its outliers by Tukey's fences.
#pragma once

#include <cstddef>
#include <span>

namespace actorscope::bench {

struct Statistics {
  std::size_t count = 0;
  double min = 0;
  double q1 = 0;      ///< first quartile (25th percentile)
  double median = 0;  ///< 50th percentile
  double q3 = 0;      ///< third quartile (75th percentile)
  double p95 = 0;
  double p99 = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation (n - 1); 0 for fewer than two samples
  /// Tukey's fences: a sample beyond 1.5 interquartile ranges from the nearer quartile is an
  /// outlier; beyond 3 ranges it is severe. `outliers_mild` counts only those between the fences.
  std::size_t outliers_mild = 0;
  std::size_t outliers_severe = 0;

  std::size_t outliers() const noexcept { return outliers_mild + outliers_severe; }
};

/// The value below which `p` (0 to 1) of the sorted samples lie, interpolating linearly between the
/// two nearest ranks (rank = p · (n − 1), as criterion and NumPy's default do). Precondition:
/// `sorted` is non-empty and ascending.
double percentile_of_sorted(std::span<const double> sorted, double p) noexcept;

/// Summarises `samples` (in any order). An empty span gives a Statistics with count 0.
Statistics compute_statistics(std::span<const double> samples);

}  // namespace actorscope::bench
