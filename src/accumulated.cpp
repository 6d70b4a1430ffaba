// Accumulated-local profiles: interval assignment (ALEPlot's rule),
// accumulation and centring, and the kernel-smoothed differences of eq. 18.9.
#include <Rcpp.h>
#include <RcppParallel.h>
#include <modelprofiles/kernels.h>

using namespace Rcpp;

namespace {

struct IntervalWorker : public RcppParallel::Worker {
  const double *x, *edges;
  int n_edges;
  int* out;
  IntervalWorker(const double* x_, const double* e_, int ne_, int* o_)
      : x(x_), edges(e_), n_edges(ne_), out(o_) {}
  void operator()(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const int k = mp::interval_of(x[i], edges, n_edges);
      out[i] = k < 0 ? NA_INTEGER : k + 1;
    }
  }
};

}  // namespace

// 1-based interval of each x among sorted edges, ALEPlot's rule (the minimum
// belongs to the first interval); NA outside the edges.
// [[Rcpp::export(rng = false)]]
IntegerVector cpp_interval_index(NumericVector x, NumericVector edges, int threads) {
  if (edges.size() < 2) stop("at least two edges are needed");
  IntegerVector out(x.size());
  IntervalWorker wk(x.begin(), edges.begin(), edges.size(), out.begin());
  RcppParallel::parallelFor(0, x.size(), wk, 4096, threads);
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
  if (w.size() != n || col < 0 || y.size() < (col + 1) * n) stop("lengths differ");
  const double* yc = y.begin() + col * n;
  NumericVector sum(K), wsum(K);
  for (R_xlen_t i = 0; i < n; ++i) {
    const int q = k[i] - 1;
    if (q < 0 || q >= K) stop("interval index out of range");
    sum[q] += w[i] * yc[i];
    wsum[q] += w[i];
  }
  return List::create(_["sum"] = sum, _["wsum"] = wsum);
}
