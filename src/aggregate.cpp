// Aggregating predictions into profiles (kernels.h): weighted grid means
// (PD), kernel and indicator weighted means (LD), group sums (AL
// intervals). Each worker owns a range of grid points or groups; sums run
// over rows in a fixed order.
#include <Rcpp.h>
#include <algorithm>
#include <modelprofiles/kernels.h>
#include "parallel.h"

using namespace Rcpp;

namespace {

// Predictions come as a matrix with one column per model output (one for a
// regression, one per class of a multiclass model); the kernels read column
// `col` (0-based) of it, of `rows` rows, in place.
const double* output_column(const NumericVector& y, std::size_t rows, int col) {
  if (col < 0 || static_cast<std::size_t>(y.size()) < (col + 1) * rows ||
      y.size() % std::max<std::size_t>(rows, 1) != 0) {
    stop("prediction matrix size mismatch");
  }
  return y.begin() + col * rows;
}

// The G x m observation-major table behind column `col` of the predictions.
mp::Table make_table(const NumericVector& y, std::size_t G, std::size_t m, int col) {
  mp::Table t;
  t.y = output_column(y, m * G, col);
  t.G = G;
  t.m = m;
  return t;
}

// One contiguous range of grid points per thread, so that the table is read
// once per thread.
std::size_t grain(std::size_t G, int threads) {
  return std::max<std::size_t>(1, (G + threads - 1) / std::max(threads, 1));
}

}  // namespace

// Weighted sums over the background rows of a G x m prediction table:
// sums[g] = sum_i w_i y[g, i], for output column `col`.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_grid_sums(NumericVector y, int G, NumericVector w, int threads, int col) {
  const mp::Table t = make_table(y, G, w.size(), col);
  NumericVector sums(G);
  const double* wp = w.begin();
  double* s = sums.begin();
  glue::parallel_for(G, grain(G, threads), threads, [&](std::size_t g0, std::size_t g1) {
    mp::grid_sums(t, wp, g0, g1, s);
  });
  return sums;
}

// Gaussian-kernel weighted sums (numerator and denominator) of a G x m table,
// or with lag = TRUE of its consecutive grid differences; dmin[g] is the
// distance from z_g to the nearest background row.
// [[Rcpp::export(rng = false)]]
List cpp_kernel_sums(NumericVector y, NumericVector z, NumericVector x, NumericVector w,
                     NumericVector dmin, double s, bool lag, int threads, int col) {
  const std::size_t G = z.size();
  const mp::Table t = make_table(y, G, x.size(), col);
  NumericVector num(G), den(G);
  const double *xp = x.begin(), *wp = w.begin(), *zp = z.begin(), *dp = dmin.begin();
  double *np = num.begin(), *dn = den.begin();
  glue::parallel_for(G, grain(G, threads), threads, [&](std::size_t g0, std::size_t g1) {
    mp::kernel_sums(t, xp, wp, zp, dp, s, lag, g0, g1, np, dn);
  });
  return List::create(_["num"] = num, _["den"] = den);
}

// cpp_kernel_sums() (without lag) and the moments of its kernel weights
// (as cpp_grid_moments() gives them for row weights), in one pass:
// list(num, den, shift, q1, q2, k2).
// [[Rcpp::export(rng = false)]]
List cpp_kernel_sums_moments(NumericVector y, NumericVector z, NumericVector x, NumericVector w,
                             NumericVector dmin, double s, int threads, int col) {
  const std::size_t G = z.size();
  const mp::Table t = make_table(y, G, x.size(), col);
  NumericVector num(G), den(G), shift(G), q1(G), q2(G), k2(G);
  const double *xp = x.begin(), *wp = w.begin(), *zp = z.begin(), *dp = dmin.begin();
  glue::parallel_for(G, grain(G, threads), threads, [&](std::size_t g0, std::size_t g1) {
    mp::kernel_sums_moments(t, xp, wp, zp, dp, s, g0, g1, num.begin(), den.begin(), shift.begin(),
                            q1.begin(), q2.begin(), k2.begin());
  });
  return List::create(_["num"] = num, _["den"] = den, _["shift"] = shift, _["q1"] = q1,
                      _["q2"] = q2, _["k2"] = k2);
}

// Moments of a G x m table with row weights w for the standard errors of
// its weighted means (mp::grid_moments()): list(shift, q1, q2, k2).
// [[Rcpp::export(rng = false)]]
List cpp_grid_moments(NumericVector y, int G, NumericVector w, int threads, int col) {
  const mp::Table t = make_table(y, G, w.size(), col);
  NumericVector shift(G), q1(G), q2(G), k2(G);
  const double* wp = w.begin();
  glue::parallel_for(G, grain(G, threads), threads, [&](std::size_t g0, std::size_t g1) {
    mp::grid_moments(t, wp, g0, g1, shift.begin(), q1.begin(), q2.begin(), k2.begin());
  });
  return List::create(_["shift"] = shift, _["q1"] = q1, _["q2"] = q2, _["k2"] = k2);
}

// The kernel weights of cpp_kernel_sums() as a G x m matrix (without the
// rows' weights).
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_kernel_weights(NumericVector z, NumericVector x, NumericVector dmin, double s,
                                 int threads) {
  const std::size_t G = z.size(), m = x.size();
  NumericMatrix out(G, m);
  const double *zp = z.begin(), *xp = x.begin(), *dp = dmin.begin();
  double* o = out.begin();
  glue::parallel_for(G, grain(G, threads), threads, [&](std::size_t g0, std::size_t g1) {
    mp::kernel_weights(zp, xp, m, G, dp, s, g0, g1, o);
  });
  return out;
}

// Weighted sums over contiguous groups of rows (of output column `col`);
// off has length n_groups + 1.
// [[Rcpp::export(rng = false)]]
List cpp_group_sums(NumericVector y, NumericVector w, IntegerVector off, int threads, int col) {
  const std::size_t q = off.size() - 1;
  if (off[q] != w.size()) stop("group offsets mismatch");
  const double* yc = output_column(y, w.size(), col);
  NumericVector sum(q), wsum(q);
  const double* wp = w.begin();
  const int* o = off.begin();
  double *sp = sum.begin(), *wsp = wsum.begin();
  glue::parallel_for(q, 1, threads, [&](std::size_t q0, std::size_t q1) {
    mp::group_sums(yc, wp, o, q0, q1, sp, wsp);
  });
  return List::create(_["sum"] = sum, _["wsum"] = wsum);
}

// Distance from each grid point to the nearest of the (unsorted) values x,
// as cpp_nearest_dist() of the sorted values, without sorting a copy.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_nearest_dist_unsorted(NumericVector z, NumericVector x) {
  NumericVector out(z.size());
  mp::nearest_dist_unsorted(z.begin(), z.size(), x.begin(), x.size(), out.begin());
  return out;
}

// Affine ICE curves of the linear engine: a length(a) * length(z) vector,
// observation-major (row i's value at z[g] at g + i * length(z)), equal to
// R's rep(a, each = G) + rep(z, times = n) * rep(s, each = G).
// [[Rcpp::export(rng = false)]]
NumericVector cpp_affine_curves(NumericVector a, NumericVector s, NumericVector z, int threads) {
  const std::size_t n = a.size(), G = z.size();
  if (static_cast<std::size_t>(s.size()) != n) stop("affine curves: `a` and `s` differ in length");
  NumericVector out(no_init(n * G));
  const double *ap = a.begin(), *sp = s.begin(), *zp = z.begin();
  double* o = out.begin();
  glue::parallel_for(n, std::max<std::size_t>(1, 65536 / std::max<std::size_t>(G, 1)), threads,
                     [&](std::size_t i0, std::size_t i1) { mp::affine_curves(ap, sp, zp, G, i0, i1, o); });
  return out;
}
