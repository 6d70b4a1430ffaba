// The leaves of the background rows, kept for the predictions of stacked
// rows that change one feature of them (leaves.h). The leaves live in an
// external pointer that knows the packing and the data they were computed
// from; a call with another model or data does not use them.
#include <Rcpp.h>
#include <cstddef>
#include <vector>
#include <modelprofiles/leaves.h>
#include <modelprofiles/predict.h>
#include "native_model.h"
#include "parallel.h"

using namespace Rcpp;

namespace {

// Tree t's leaf of row i of X at leaves[i + t * n], for the packing at
// `nodes` and the n x p matrix at X.
struct LeafCache {
  std::vector<int> leaves;
  const void* nodes = nullptr;
  std::vector<const double*> cols;
  std::size_t n = 0;
  int p = 0, n_trees = 0;
};

LeafCache* leaf_cache(SEXP x) {
  return TYPEOF(x) == EXTPTRSXP ? static_cast<LeafCache*>(R_ExternalPtrAddr(x)) : nullptr;
}

// Does the cache hold the leaves of model F on data X?
bool cache_fits(const LeafCache* L, const mp::Forest& F, const FeatureColumns& X) {
  return L != nullptr && L->nodes == static_cast<const void*>(F.nodes) && L->cols == X.cols &&
         L->n == X.n && L->n_trees == F.n_trees;
}

}  // namespace

// The leaves of every row of X (the model's features, from native_columns())
// in every tree: an external pointer, for cpp_native_predict_cached() with
// the same model and X.
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_leaves(List model, SEXP x, int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  if (model.containsElementNamed("kind") && as<std::string>(model["kind"]) != "packed" &&
      M.F.nodes == M.own.nodes.data())
    stop("native model: the leaves of a model without a kept packing would not be found again");
  const std::size_t n = X.n;
  LeafCache* L = new LeafCache;
  XPtr<LeafCache> out(L, true);
  L->leaves.assign(n * static_cast<std::size_t>(M.F.n_trees), -1);
  L->nodes = M.F.nodes;
  L->cols = X.cols;
  L->n = n;
  L->p = static_cast<int>(X.cols.size());
  L->n_trees = M.F.n_trees;
  if (n == 0) return out;
  const std::size_t block = mp::predict_block(M.F.n_features, n, threads);
  const mp::Forest& F = M.F;
  const std::vector<const double*>& cols = X.cols;
  const std::size_t p = cols.size();
  int* leaves = L->leaves.data();
  glue::parallel_chunks(n, block * 4 * std::max(threads, 1), block, threads,
                        [&](std::size_t begin, std::size_t end) {
                          std::vector<double> rows(block * p);
                          for (std::size_t r0 = begin; r0 < end; r0 += block) {
                            const std::size_t r1 = std::min(end, r0 + block);
                            for (std::size_t r = r0; r < r1; ++r)
                              for (std::size_t f = 0; f < p; ++f)
                                rows[(r - r0) * p + f] = cols[f][r];
                            mp::leaf_rows(F, rows.data(), static_cast<int>(r1 - r0),
                                          static_cast<int>(p), leaves + r0, n);
                          }
                        });
  return out;
}

// Predictions of stacked rows, as cpp_native_predict(), from the leaves of
// cpp_native_leaves(model, X): row r is row src[r] (0-based) of X with
// feature js[0] (0-based; js empty: none) set to vals[[1]][r]. NULL when
// the leaves are not those of this model and X.
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_predict_cached(List model, SEXP x, IntegerVector src, IntegerVector js,
                               List vals, SEXP leaves, int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  const LeafCache* L = leaf_cache(leaves);
  if (!cache_fits(L, M.F, X)) return R_NilValue;
  if (js.size() > 1 || js.size() != vals.size())
    stop("native data: the leaves serve rows with one feature changed at most");
  const std::size_t m = src.size(), n = X.n;
  for (R_xlen_t i = 0; i < src.size(); ++i)
    if (src[i] == NA_INTEGER || src[i] < 0 || static_cast<std::size_t>(src[i]) >= n)
      stop("native data: source row out of range");
  mp::Design D;
  D.cols = X.cols;
  D.n = n;
  D.p = static_cast<int>(X.cols.size());
  D.src = src.begin();
  NumericVector v;
  if (js.size() == 1) {
    if (js[0] == NA_INTEGER || js[0] < 0 || js[0] >= M.F.n_features)
      stop("native data: feature index out of range");
    v = as<NumericVector>(vals[0]);
    if (static_cast<std::size_t>(v.size()) != m)
      stop("native data: `vals[[1]]` must have one value per row");
    D.js.push_back(js[0]);
    D.vals.push_back(v.begin());
  }
  NumericMatrix out = M.result(m);
  if (m == 0) return out;
  const std::size_t block = mp::cached_block(M.F, m, threads);
  double* o = out.begin();
  const mp::Forest& F = M.F;
  const int* lv = L->leaves.data();
  glue::parallel_chunks(m, block * 4 * std::max(threads, 1), block, threads,
                        [&](std::size_t begin, std::size_t end) {
                          mp::CachedScratch S;
                          mp::predict_cached(F, D, lv, begin, end, o, m, S);
                        });
  return out;
}
