// Accumulated-local profiles: interval assignment (ALEPlot's rule),
// accumulation and centring, and the kernel-smoothed differences of eq. 18.9.
#include <Rcpp.h>
#include <RcppParallel.h>
#include "core.h"

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

struct KernelDiffWorker : public RcppParallel::Worker {
  const double *y, *x, *w, *z, *dmin2;
  std::size_t G, m;
  double s;
  double *num, *den;
  KernelDiffWorker(const double* y_, const double* x_, const double* w_,
                   const double* z_, const double* d_, std::size_t G_,
                   std::size_t m_, double s_, double* num_, double* den_)
      : y(y_), x(x_), w(w_), z(z_), dmin2(d_), G(G_), m(m_), s(s_),
        num(num_), den(den_) {}
  void operator()(std::size_t g0, std::size_t g1) {
    mp::kernel_diff_sums(y, G, m, x, w, z, dmin2, s, g0, g1, num, den);
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

// Kernel-weighted sums of consecutive grid differences for a G x m table.
// [[Rcpp::export(rng = false)]]
List cpp_kernel_diff_sums(NumericVector y, NumericVector z, NumericVector x,
                          NumericVector w, NumericVector dmin2, double s,
                          int threads) {
  const std::size_t G = z.size(), m = x.size();
  if (static_cast<std::size_t>(y.size()) != m * G) stop("table size mismatch");
  NumericVector num(G), den(G);
  KernelDiffWorker wk(y.begin(), x.begin(), w.begin(), z.begin(), dmin2.begin(),
                      G, m, s, num.begin(), den.begin());
  RcppParallel::parallelFor(0, G, wk, 1, threads);
  return List::create(_["num"] = num, _["den"] = den);
}
