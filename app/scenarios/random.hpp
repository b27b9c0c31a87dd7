// Random: the scenarios' deterministic PRNG. SplitMix64 with our own range reduction, so a seed
// gives the same numbers with every compiler and standard library (std:: distributions do not).
#pragma once

#include <cstdint>

namespace actorscope::scenarios {

class Random {
 public:
  explicit Random(std::uint64_t seed) noexcept : state_(seed) {}
  /// A generator for a sub-part of a scenario (a worker slot, a generation): independent of its
  /// parent's later draws, and the same for the same seed and keys.
  static Random derived(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) noexcept {
    Random r(seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull));
    (void)r.next();
    return r;
  }

  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (n > 0); the modulo bias is below 2^-50 for the small n scenarios use.
  std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }
  /// Uniform in [lo, hi].
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) noexcept { return lo + below(hi - lo + 1); }
  /// True with probability `percent` / 100.
  bool percent(unsigned percent) noexcept { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

}  // namespace actorscope::scenarios
