// Accumulated-local profiles: interval assignment (ALEPlot's rule), interval
// sums, accumulation and centring (kernels.h).
#include <Rcpp.h>
#include <modelprofiles/kernels.h>
#include "parallel.h"

using namespace Rcpp;

// 1-based interval of each x among sorted edges, ALEPlot's rule (the minimum
// belongs to the first interval); NA outside the edges.
// [[Rcpp::export(rng = false)]]
IntegerVector cpp_interval_index(NumericVector x, NumericVector edges, int threads) {
  if (edges.size() < 2) stop("at least two edges are needed");
  IntegerVector out(x.size());
  const double* xp = x.begin();
  const double* e = edges.begin();
  const int ne = edges.size(), na = NA_INTEGER;
  int* o = out.begin();
  glue::parallel_for(x.size(), 4096, threads, [&](std::size_t begin, std::size_t end) {
    mp::interval_index(xp, e, ne, na, begin, end, o);
  });
  return out;
}

// Accumulated and centred interval effects (K + 1 values at the edges).
// [[Rcpp::export(rng = false)]]
NumericVector cpp_accumulate_center(NumericVector delta, NumericVector count) {
  if (delta.size() != count.size()) stop("delta and count differ in length");
  NumericVector out(delta.size() + 1);
  mp::accumulate_center(delta.begin(), count.begin(), delta.size(), out.begin());
  return out;
}

// Weighted sums of y (output column `col` of a prediction matrix) per
// interval (1-based k, K intervals), in row order.
// [[Rcpp::export(rng = false)]]
List cpp_interval_sums(NumericVector y, IntegerVector k, NumericVector w, int K, int col) {
  const R_xlen_t n = k.size();
  if (w.size() != n || col < 0 || K < 0 || y.size() < (col + 1) * n) stop("lengths differ");
  NumericVector sum(K), wsum(K);
  const std::size_t bad = mp::interval_sums(y.begin() + col * n, k.begin(), w.begin(), n, K,
                                            sum.begin(), wsum.begin());
  if (bad != static_cast<std::size_t>(n)) stop("interval index out of range");
  return List::create(_["sum"] = sum, _["wsum"] = wsum);
}
