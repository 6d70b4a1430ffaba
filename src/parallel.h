// RcppParallel helpers of the glue: loops over the items [0, n) in ranges
// run by a function fn(begin, end) on worker threads. The function must not
// touch the R API (the glue reads R objects into plain buffers first);
// parallel_chunks() checks for user interrupts on the main thread between
// chunks.
#ifndef MODELPROFILES_PARALLEL_H
#define MODELPROFILES_PARALLEL_H

#include <Rcpp.h>
#include <RcppParallel.h>
#include <algorithm>
#include <cstddef>

namespace glue {

template <typename Fn>
struct RangeWorker : public RcppParallel::Worker {
  const Fn& fn;
  explicit RangeWorker(const Fn& f) : fn(f) {}
  void operator()(std::size_t begin, std::size_t end) { fn(begin, end); }
};

// Ranges of `grain` items at least.
template <typename Fn>
void parallel_for(std::size_t n, std::size_t grain, int threads, const Fn& fn) {
  RangeWorker<Fn> w(fn);
  RcppParallel::parallelFor(0, n, w, std::max<std::size_t>(grain, 1), std::max(threads, 1));
}

// The same in chunks of `chunk` items, one after the other.
template <typename Fn>
void parallel_chunks(std::size_t n, std::size_t chunk, std::size_t grain, int threads,
                     const Fn& fn) {
  RangeWorker<Fn> w(fn);
  chunk = std::max<std::size_t>(chunk, 1);
  for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
    const std::size_t c1 = std::min(n, c0 + chunk);
    RcppParallel::parallelFor(c0, c1, w, std::max<std::size_t>(grain, 1), std::max(threads, 1));
    Rcpp::checkUserInterrupt();
  }
}

}  // namespace glue

#endif
