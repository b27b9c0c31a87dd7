// LogHistogram: a log-bucketed histogram of non-negative integers (nanoseconds, usually), in the
// spirit of HdrHistogram: constant relative precision (1/8 of a power of two, about 12%) over the
// whole range, exact count, min, max and sum, and buckets allocated only as far as values reach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace actorscope::observe {

class LogHistogram {
 public:
  /// Sub-buckets per power of two: values are kept to within 1/kSubBuckets of themselves.
  static constexpr unsigned kSubBits = 3;
  static constexpr unsigned kSubBuckets = 1u << kSubBits;

  void record(std::uint64_t value, std::uint64_t times = 1);
  void merge(const LogHistogram& other);
  void clear() noexcept { *this = LogHistogram{}; }

  std::uint64_t count() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  /// Exact extremes and sum (0 when empty).
  std::uint64_t min() const noexcept { return count_ == 0 ? 0 : min_; }
  std::uint64_t max() const noexcept { return max_; }
  std::uint64_t sum() const noexcept { return sum_; }
  double mean() const noexcept { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_); }
  /// The value at percentile `p` (0..100): the upper bound of the bucket that holds it, clamped to
  /// the exact max, so p100 is the max and no percentile overstates it.
  std::uint64_t percentile(double p) const noexcept;

  /// The bucket an index covers: [lower, upper].
  static std::size_t index_of(std::uint64_t value) noexcept;
  static std::uint64_t lower_bound(std::size_t index) noexcept;
  static std::uint64_t upper_bound(std::size_t index) noexcept;
  /// Counts by bucket index (trailing empty buckets are not stored).
  const std::vector<std::uint64_t>& buckets() const noexcept { return buckets_; }
  /// Rebuilds a histogram from stored parts (what buckets(), min(), max() and sum() returned).
  static LogHistogram from_parts(std::vector<std::uint64_t> buckets, std::uint64_t min, std::uint64_t max,
                                 std::uint64_t sum);

  friend bool operator==(const LogHistogram&, const LogHistogram&) = default;

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t sum_ = 0;
};

}  // namespace actorscope::observe
