// Per-tree partial dependence of a compiled forest (trees.h). The model, the
// data and the weights are read into plain buffers on the main thread; the
// rows go through in blocks, one after the other, and within a block each
// worker owns a range of trees, so every tree sums its rows in the same
// order whatever the number of threads.
#include <Rcpp.h>
#include <cmath>
#include <cstddef>
#include <vector>
#include <modelprofiles/predict.h>
#include <modelprofiles/setwalk.h>
#include <modelprofiles/trees.h>
#include "native_model.h"
#include "parallel.h"

using namespace Rcpp;

// Per-tree PD: rows rows[i] (0-based) of X with weights w[i], feature j
// (0-based; -1 for a feature the model does not read) over the codes
// `grid` (any order, NaN for a missing value). Returns a G x n_trees x
// n_outputs array on the scale whose mean over the trees is the forest's
// PD (the model must average its trees, with the identity transform: the R
// side checks that).
// [[Rcpp::export(rng = false)]]
NumericVector cpp_native_tree_pd(List model, SEXP x, IntegerVector rows,
                                 NumericVector w, int j, NumericVector grid, int threads) {
  NativeModel M(model);
  const mp::Forest& F = M.F;
  if (F.aggregate != mp::AGG_MEAN || F.transform != mp::TR_IDENTITY)
    stop("native data: per-tree profiles need a model that averages its trees");
  const FeatureColumns X = feature_columns(x, F.n_features);
  if (j != -1 && (j == NA_INTEGER || j < 0 || j >= F.n_features))
    stop("native data: feature index out of range");
  const std::size_t n = rows.size();
  if (static_cast<std::size_t>(w.size()) != n) stop("native data: one weight per row needed");
  double wsum = 0.0;
  for (R_xlen_t i = 0; i < rows.size(); ++i) {
    if (rows[i] == NA_INTEGER || rows[i] < 0 || static_cast<std::size_t>(rows[i]) >= X.n)
      stop("native data: row out of range");
    if (!(w[i] >= 0) || !std::isfinite(w[i])) stop("native data: weights must be finite and >= 0");
    wsum += w[i];
  }
  if (!(wsum > 0)) stop("native data: the weights sum to 0");
  const int G = grid.size(), K = F.n_outputs, T = F.n_trees;
  NumericVector out(static_cast<R_xlen_t>(G) * T * K);
  out.attr("dim") = IntegerVector::create(G, T, K);
  if (G == 0) return out;
  const mp::SortedGrid s = mp::sort_grid(grid.begin(), G);
  mp::Design D;
  D.cols = X.cols;
  D.n = X.n;
  D.p = static_cast<int>(X.cols.size());
  D.src = rows.begin();
  mp::TreeSums S(G, K, T);
  const std::size_t block = mp::tree_block(D.p, T, n);
  mp::RowBlock blk;
  const double* wp = w.begin();
  for (std::size_t r0 = 0; r0 < n; r0 += block) {
    const std::size_t r1 = std::min(n, r0 + block);
    mp::gather_block(D, r0, r1, blk);
    glue::parallel_for(T, 1, threads, [&](std::size_t t0, std::size_t t1) {
      mp::SetScratch sc;
      mp::with_rules(F, [&](auto step) {
        using St = decltype(step);
        for (std::size_t t = t0; t < t1; ++t)
          mp::tree_sums_block<St>(F, static_cast<int>(t), blk, wp + r0, j, s, S, sc);
      });
    });
    checkUserInterrupt();
  }
  mp::tree_sums_finish(F, S, s, wsum, 0, T, out.begin());
  return out;
}
