// Complexity checks instead of wall-clock limits (speed itself belongs in bench/): how much more CPU time
// `work` takes on 16x the input. CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), the best of `reps`
// runs per size: time spent preempted on a loaded machine does not count, and a sanitizer build slows both
// sizes alike, so the ratio stays put. O(n^2) gives 256. O(n log n) gives ~19 in theory,
// but caches add to it: the small size's working set fits in L2 and runs several times faster per element
// (measured on this project's tokenizers: 33x for 8x more input from 32 k to 256 k bytes, 12x from 256 k to
// 2 M). The bound below sits halfway (in log scale) between those figures and quadratic growth.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>

#include <time.h>

namespace wgrt::test {

inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

inline double growth_ratio_16x(const std::function<void(size_t n)>& work, size_t n, int reps = 3) {
  auto best = [&](size_t size) {
    double b = std::numeric_limits<double>::infinity();
    for (int r = 0; r < reps; ++r) {
      const double t0 = thread_cpu_seconds();
      work(size);
      b = std::min(b, thread_cpu_seconds() - t0);
    }
    return std::max(b, 1e-7);
  };
  return best(16 * n) / best(n);
}

// Sub-quadratic bound for 16x the input: quadratic is 256.
constexpr double kSubQuadraticMaxRatio16x = 128.0;

}  // namespace wgrt::test
