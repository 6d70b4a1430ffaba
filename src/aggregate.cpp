// Aggregating predictions into profiles: weighted grid means (PD), kernel and
// indicator weighted means (LD), group sums (AL intervals). Each worker owns a
// range of grid points or groups; sums run over rows in a fixed order.
#include <Rcpp.h>
#include <RcppParallel.h>
#include <algorithm>
#include <modelprofiles/kernels.h>

using namespace Rcpp;

namespace {

struct GridSumsWorker : public RcppParallel::Worker {
  mp::Table t;
  const double* w;
  double* sums;
  GridSumsWorker(mp::Table t_, const double* w_, double* s_) : t(t_), w(w_), sums(s_) {}
  void operator()(std::size_t g0, std::size_t g1) { mp::grid_sums(t, w, g0, g1, sums); }
};

struct KernelSumsWorker : public RcppParallel::Worker {
  mp::Table t;
  const double *x, *w, *z, *dmin2;
  double s;
  bool lag;
  double *num, *den;
  KernelSumsWorker(mp::Table t_, const double* x_, const double* w_,
                   const double* z_, const double* d_, double s_, bool lag_,
                   double* num_, double* den_)
      : t(t_), x(x_), w(w_), z(z_), dmin2(d_), s(s_), lag(lag_), num(num_), den(den_) {}
  void operator()(std::size_t g0, std::size_t g1) {
    mp::kernel_sums(t, x, w, z, dmin2, s, lag, g0, g1, num, den);
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

// Predictions come as a matrix with one column per model output (one for a
// regression, one per class of a multiclass model); the kernels read column
// `col` (0-based) of it, of `rows` rows, in place.
static const double* output_column(const NumericVector& y, std::size_t rows, int col) {
  if (col < 0 || static_cast<std::size_t>(y.size()) < (col + 1) * rows ||
      y.size() % std::max<std::size_t>(rows, 1) != 0) {
    stop("prediction matrix size mismatch");
  }
  return y.begin() + col * rows;
}

// The G x m observation-major table behind column `col` of the predictions.
static mp::Table make_table(const NumericVector& y, std::size_t G, std::size_t m, int col) {
  mp::Table t;
  t.y = output_column(y, m * G, col);
  t.G = G;
  t.m = m;
  return t;
}

// One contiguous range of grid points per thread, so that the table is read
// once per thread.
static std::size_t grain(std::size_t G, int threads) {
  return std::max<std::size_t>(1, (G + threads - 1) / std::max(threads, 1));
}

// Weighted sums over the background rows of a G x m prediction table:
// sums[g] = sum_i w_i y[g, i], for output column `col`.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_grid_sums(NumericVector y, int G, NumericVector w, int threads, int col) {
  mp::Table t = make_table(y, G, w.size(), col);
  NumericVector sums(G);
  GridSumsWorker wk(t, w.begin(), sums.begin());
  RcppParallel::parallelFor(0, G, wk, grain(G, threads), threads);
  return sums;
}

// Gaussian-kernel weighted sums (numerator and denominator) of a G x m table,
// or with lag = TRUE of its consecutive grid differences; dmin2[g] is the
// squared distance from z_g to the nearest background row.
// [[Rcpp::export(rng = false)]]
List cpp_kernel_sums(NumericVector y, NumericVector z, NumericVector x,
                     NumericVector w, NumericVector dmin2, double s, bool lag,
                     int threads, int col) {
  const std::size_t G = z.size();
  mp::Table t = make_table(y, G, x.size(), col);
  NumericVector num(G), den(G);
  KernelSumsWorker wk(t, x.begin(), w.begin(), z.begin(), dmin2.begin(), s, lag,
                      num.begin(), den.begin());
  RcppParallel::parallelFor(0, G, wk, grain(G, threads), threads);
  return List::create(_["num"] = num, _["den"] = den);
}

// Weighted sums over contiguous groups of rows (of output column `col`);
// off has length n_groups + 1.
// [[Rcpp::export(rng = false)]]
List cpp_group_sums(NumericVector y, NumericVector w, IntegerVector off,
                    int threads, int col) {
  const std::size_t q = off.size() - 1;
  if (off[q] != w.size()) stop("group offsets mismatch");
  const double* yc = output_column(y, w.size(), col);
  NumericVector sum(q), wsum(q);
  GroupSumsWorker wk(yc, w.begin(), off.begin(), sum.begin(), wsum.begin());
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
