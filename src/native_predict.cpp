// Predictions and ICE curves of a compiled tree ensemble (predict.h, ice.h).
// The model and the data are read into plain buffers on the main thread;
// workers own a range of rows and write only their rows' output cells, so
// the results do not depend on the number of threads.
#include <Rcpp.h>
#include <cstddef>
#include <vector>
#include <modelprofiles/ice.h>
#include <modelprofiles/predict.h>
#include "native_model.h"
#include "parallel.h"

using namespace Rcpp;

namespace {

void check_X(const NumericMatrix& X, const mp::Forest& F) {
  if (X.ncol() != F.n_features)
    stop("native data: %d columns for a model of %d features", X.ncol(), F.n_features);
}

void check_rows(const IntegerVector& r, std::size_t n, const char* what) {
  for (R_xlen_t i = 0; i < r.size(); ++i)
    if (r[i] == NA_INTEGER || r[i] < 0 || static_cast<std::size_t>(r[i]) >= n)
      stop("native data: %s out of range", what);
}

void check_feature(int j, const mp::Forest& F) {
  if (j == NA_INTEGER || j < 0 || j >= F.n_features) stop("native data: feature index out of range");
}

// The design of rows `src` of X.
mp::Design design(const NumericMatrix& X, const IntegerVector& src) {
  mp::Design D;
  D.X = X.begin();
  D.n = X.nrow();
  D.p = X.ncol();
  D.src = src.begin();
  return D;
}

}  // namespace

// Predictions of stacked rows: row r is row src[r] (0-based) of X (the
// model's features as a double matrix, from native_matrix()) with features
// js[q] (0-based) set to vals[[q]][r]. Returns a length(src) x n_outputs
// matrix on the prediction scale.
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_predict(List model, NumericMatrix X, IntegerVector src, IntegerVector js,
                                 List vals, int threads) {
  NativeModel M(model);
  check_X(X, M.F);
  const std::size_t m = src.size();
  check_rows(src, X.nrow(), "source row");
  if (js.size() != vals.size()) stop("native data: `js` and `vals` differ in length");
  mp::Design D = design(X, src);
  std::vector<NumericVector> keep(js.size());
  for (R_xlen_t q = 0; q < js.size(); ++q) {
    check_feature(js[q], M.F);
    keep[q] = as<NumericVector>(vals[q]);
    if (static_cast<std::size_t>(keep[q].size()) != m)
      stop("native data: `vals[[%d]]` must have one value per row", static_cast<int>(q) + 1);
    D.js.push_back(js[q]);
    D.vals.push_back(keep[q].begin());
  }
  NumericMatrix out = M.result(m);
  const std::size_t block = mp::predict_block(M.F.n_features, m, threads);
  double* o = out.begin();
  const mp::Forest& F = M.F;
  // Chunks of a few blocks per thread between interrupt checks.
  glue::parallel_chunks(m, block * 4 * std::max(threads, 1), block, threads,
                        [&](std::size_t begin, std::size_t end) {
                          mp::predict_range(F, D, begin, end, block, o, m);
                        });
  return out;
}

// ICE curves: for each row rows[i] (0-based) of X, the predictions with
// feature j (0-based) set to each grid value, from one walk per tree. Returns
// a (G * length(rows)) x n_outputs matrix in observation-major order (row i's
// G predictions consecutive: grid point g of row i at g + i * G), equal to
// cpp_native_predict() on the stacked rows bit for bit. The grid may be in
// any order and hold NaN (a missing value).
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_ice(List model, NumericMatrix X, IntegerVector rows, int j,
                             NumericVector grid, int threads) {
  NativeModel M(model);
  check_X(X, M.F);
  check_rows(rows, X.nrow(), "row");
  check_feature(j, M.F);
  const int G = grid.size();
  const std::size_t n = rows.size();
  if (static_cast<double>(n) * G > 2147483647.0)
    stop("native data: more than 2^31 - 1 predictions; use fewer rows per call");
  NumericMatrix out = M.result(n * static_cast<std::size_t>(G));
  if (G == 0 || n == 0) return out;
  const mp::SortedGrid s = mp::sort_grid(grid.begin(), G);
  const mp::Design D = design(X, rows);
  const std::size_t block = mp::ice_block(M.F.n_features, G, M.F.n_outputs, n, threads);
  const std::size_t stride = n * static_cast<std::size_t>(G);
  double* o = out.begin();
  const mp::Forest& F = M.F;
  glue::parallel_chunks(n, block * std::max(threads, 1), block, threads,
                        [&](std::size_t begin, std::size_t end) {
                          mp::ice_range(F, D, j, s, begin, end, block, o, stride);
                        });
  return out;
}
