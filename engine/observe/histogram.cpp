// LogHistogram: bucket arithmetic and percentiles.
#include <actorscope/observe/histogram.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace actorscope::observe {

// Values below kSubBuckets get a bucket each; above, each power of two [2^e, 2^(e+1)) is split
// into kSubBuckets equal parts.
std::size_t LogHistogram::index_of(std::uint64_t v) noexcept {
  if (v < kSubBuckets) return static_cast<std::size_t>(v);
  const unsigned e = static_cast<unsigned>(std::bit_width(v)) - 1;  // v in [2^e, 2^(e+1)), e >= kSubBits
  const std::uint64_t sub = (v >> (e - kSubBits)) & (kSubBuckets - 1);
  return static_cast<std::size_t>((e - kSubBits + 1) * kSubBuckets + sub);
}

std::uint64_t LogHistogram::lower_bound(std::size_t index) noexcept {
  if (index < kSubBuckets) return index;
  const std::size_t e = index / kSubBuckets + kSubBits - 1;
  const std::uint64_t sub = index % kSubBuckets;
  return (std::uint64_t{1} << e) + (sub << (e - kSubBits));
}

std::uint64_t LogHistogram::upper_bound(std::size_t index) noexcept {
  if (index < kSubBuckets) return index;
  const std::size_t e = index / kSubBuckets + kSubBits - 1;
  const std::uint64_t width = std::uint64_t{1} << (e - kSubBits);
  const std::uint64_t lower = lower_bound(index);
  return lower > std::numeric_limits<std::uint64_t>::max() - (width - 1) ? std::numeric_limits<std::uint64_t>::max()
                                                                        : lower + (width - 1);
}

void LogHistogram::record(std::uint64_t value, std::uint64_t times) {
  if (times == 0) return;
  const std::size_t i = index_of(value);
  if (i >= buckets_.size()) buckets_.resize(i + 1, 0);
  buckets_[i] += times;
  if (count_ == 0 || value < min_) min_ = value;
  if (value > max_) max_ = value;
  count_ += times;
  sum_ += value * times;
}

void LogHistogram::merge(const LogHistogram& o) {
  if (o.count_ == 0) return;
  if (o.buckets_.size() > buckets_.size()) buckets_.resize(o.buckets_.size(), 0);
  for (std::size_t i = 0; i < o.buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
  if (count_ == 0 || o.min_ < min_) min_ = o.min_;
  max_ = std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
}

std::uint64_t LogHistogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  if (!(p > 0)) return min_;
  if (p >= 100) return max_;
  // The rank of the value at p: the smallest value with at least p% of the values at or below it.
  const auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::clamp(upper_bound(i), min_, max_);
  }
  return max_;
}

LogHistogram LogHistogram::from_parts(std::vector<std::uint64_t> buckets, std::uint64_t min, std::uint64_t max,
                                      std::uint64_t sum) {
  LogHistogram h;
  while (!buckets.empty() && buckets.back() == 0) buckets.pop_back();
  for (std::uint64_t c : buckets) h.count_ += c;
  h.buckets_ = std::move(buckets);
  if (h.count_ != 0) {
    h.min_ = min;
    h.max_ = max;
    h.sum_ = sum;
  }
  return h;
}

}  // namespace actorscope::observe
