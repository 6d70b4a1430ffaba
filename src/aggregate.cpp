// Aggregating predictions into profiles: weighted grid means (PD), kernel and
// indicator weighted means (LD), group sums (AL intervals). Each worker owns a
// range of grid points or groups; sums run over rows in a fixed order.
#include <Rcpp.h>
#include <RcppParallel.h>
#include <vector>
#include "core.h"

using namespace Rcpp;

namespace {

struct GridSumsWorker : public RcppParallel::Worker {
  const double *y, *w;
  std::size_t G, m;
  double* sums;
  GridSumsWorker(const double* y_, const double* w_, std::size_t G_,
                 std::size_t m_, double* s_)
      : y(y_), w(w_), G(G_), m(m_), sums(s_) {}
  void operator()(std::size_t g0, std::size_t g1) {
    mp::grid_sums(y, G, m, w, g0, g1, sums);
  }
};

struct KernelSumsWorker : public RcppParallel::Worker {
  const double *y, *x, *w, *z, *dmin2;
  std::size_t G, m;
  double s;
  double *num, *den;
  KernelSumsWorker(const double* y_, const double* x_, const double* w_,
                   const double* z_, const double* d_, std::size_t G_,
                   std::size_t m_, double s_, double* num_, double* den_)
      : y(y_), x(x_), w(w_), z(z_), dmin2(d_), G(G_), m(m_), s(s_),
        num(num_), den(den_) {}
  void operator()(std::size_t g0, std::size_t g1) {
    mp::kernel_sums(y, G, m, x, w, z, dmin2, s, g0, g1, num, den);
  }
};

struct GroupSumsWorker : public RcppParallel::Worker {
  const double *y, *w;
  const int* off;
  double *sum, *wsum;
  GroupSumsWorker(const double* y_, const double* w_, const int* off_,
                  double* s_, double* ws_)
      : y(y_), w(w_), off(off_), sum(s_), wsum(ws_) {}
  void operator()(std::size_t q0, std::size_t q1) {
    mp::group_sums(y, w, off, q0, q1, sum, wsum);
  }
};

struct NearestWorker : public RcppParallel::Worker {
  const double *z, *xs;
  std::size_t n;
  double* out;
  NearestWorker(const double* z_, const double* xs_, std::size_t n_, double* o_)
      : z(z_), xs(xs_), n(n_), out(o_) {}
  void operator()(std::size_t g0, std::size_t g1) {
    mp::nearest_sq(z, xs, n, g0, g1, out);
  }
};

}  // namespace

// Weighted sums over background rows of a G x m prediction table (grid
// fastest): sums[g] = sum_i w_i y[g, i].
// [[Rcpp::export(rng = false)]]
NumericVector cpp_grid_sums(NumericVector y, int G, NumericVector w, int threads) {
  const std::size_t m = w.size();
  if (static_cast<std::size_t>(y.size()) != m * G) stop("table size mismatch");
  NumericVector sums(G);
  GridSumsWorker wk(y.begin(), w.begin(), G, m, sums.begin());
  RcppParallel::parallelFor(0, G, wk, 1, threads);
  return sums;
}

// Gaussian-kernel weighted sums (numerator and denominator) for a G x m table;
// dmin2[g] is the squared distance from z_g to the nearest background row.
// [[Rcpp::export(rng = false)]]
List cpp_kernel_sums(NumericVector y, NumericVector z, NumericVector x,
                     NumericVector w, NumericVector dmin2, double s, int threads) {
  const std::size_t G = z.size(), m = x.size();
  if (static_cast<std::size_t>(y.size()) != m * G) stop("table size mismatch");
  NumericVector num(G), den(G);
  KernelSumsWorker wk(y.begin(), x.begin(), w.begin(), z.begin(), dmin2.begin(),
                      G, m, s, num.begin(), den.begin());
  RcppParallel::parallelFor(0, G, wk, 1, threads);
  return List::create(_["num"] = num, _["den"] = den);
}

// Weighted sums over contiguous groups of rows; off has length n_groups + 1.
// [[Rcpp::export(rng = false)]]
List cpp_group_sums(NumericVector y, NumericVector w, IntegerVector off,
                    int threads) {
  const std::size_t q = off.size() - 1;
  if (off[q] != y.size() || w.size() != y.size()) stop("group offsets mismatch");
  NumericVector sum(q), wsum(q);
  GroupSumsWorker wk(y.begin(), w.begin(), off.begin(), sum.begin(), wsum.begin());
  RcppParallel::parallelFor(0, q, wk, 1, threads);
  return List::create(_["sum"] = sum, _["wsum"] = wsum);
}

// Squared distance from each grid point to the nearest sorted value.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_nearest_sq(NumericVector z, NumericVector xs_sorted, int threads) {
  NumericVector out(z.size());
  NearestWorker wk(z.begin(), xs_sorted.begin(), xs_sorted.size(), out.begin());
  RcppParallel::parallelFor(0, z.size(), wk, 16, threads);
  return out;
}
