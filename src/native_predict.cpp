// Predictions, ICE curves and partial dependence of a compiled tree ensemble
// (predict.h, setwalk.h).
// The model and the data are read into plain buffers on the main thread;
// workers own a range of rows and write only their rows' output cells, so
// the results do not depend on the number of threads.
#include <Rcpp.h>
#include <cstddef>
#include <vector>
#include <modelprofiles/predict.h>
#include <modelprofiles/setwalk.h>
#include "native_model.h"
#include "parallel.h"

using namespace Rcpp;

namespace {


void check_rows(const IntegerVector& r, std::size_t n, const char* what) {
  for (R_xlen_t i = 0; i < r.size(); ++i)
    if (r[i] == NA_INTEGER || r[i] < 0 || static_cast<std::size_t>(r[i]) >= n)
      stop("native data: %s out of range", what);
}

void check_feature(int j, const mp::Forest& F) {
  if (j == NA_INTEGER || j < 0 || j >= F.n_features) stop("native data: feature index out of range");
}

// The design of rows `src` of the feature columns.
mp::Design design(const FeatureColumns& X, const IntegerVector& src) {
  mp::Design D;
  D.cols = X.cols;
  D.n = X.n;
  D.p = static_cast<int>(X.cols.size());
  D.src = src.begin();
  return D;
}

}  // namespace

// Predictions of stacked rows: row r is row src[r] (0-based) of X (the
// model's features, from native_columns(), read in place) with features
// js[q] (0-based) set to vals[[q]][r]. Returns a length(src) x n_outputs
// matrix on the prediction scale.
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_predict(List model, SEXP x, IntegerVector src, IntegerVector js,
                                 List vals, int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  const std::size_t m = src.size();
  check_rows(src, X.n, "source row");
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
// feature j (0-based) set to each grid value, by the set walk (setwalk.h).
// Returns a (G * length(rows)) x n_outputs matrix in observation-major order
// (row i's G predictions consecutive: grid point g of row i at g + i * G),
// equal to cpp_native_predict() on the stacked rows up to rounding. The
// grid may be in any order and hold NaN (a missing value).
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_ice(List model, SEXP x, IntegerVector rows, int j,
                             NumericVector grid, int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  check_rows(rows, X.n, "row");
  check_feature(j, M.F);
  const int G = grid.size();
  const std::size_t n = rows.size();
  if (static_cast<double>(n) * G > 2147483647.0)
    stop("native data: more than 2^31 - 1 predictions; use fewer rows per call");
  NumericMatrix out = M.result(n * static_cast<std::size_t>(G));
  if (G == 0 || n == 0) return out;
  const mp::SortedGrid s = mp::sort_grid(grid.begin(), G);
  const mp::Design D = design(X, rows);
  const std::size_t block = mp::set_block(G, M.F.n_outputs, n, true);
  const std::size_t stride = n * static_cast<std::size_t>(G);
  double* o = out.begin();
  const mp::Forest& F = M.F;
  glue::parallel_chunks(n, block * 2 * std::max(threads, 1), block, threads,
                        [&](std::size_t begin, std::size_t end) {
                          mp::set_ice_range(F, D, j, s, begin, end, block, o, stride);
                        });
  return out;
}

// Partial-dependence sums: for rows rows[i] (0-based) of X with weights
// w[i], feature j (0-based) over `grid` (any order, NaN a missing value),
// the weighted sums over the rows of the predictions at each grid point, a
// G x n_outputs matrix (NA where a row's prediction is missing), by the set
// walk (setwalk.h), with attribute "visits": the (row, node) visits it
// made. The blocks of rows depend on the number of rows only and are added
// in order, so the sums do not depend on the threads.
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_pd(List model, SEXP x, IntegerVector rows, NumericVector w,
                            int j, NumericVector grid, int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  check_rows(rows, X.n, "row");
  check_feature(j, M.F);
  const int G = grid.size(), K = M.F.n_outputs;
  const std::size_t n = rows.size();
  if (static_cast<std::size_t>(w.size()) != n) stop("native data: one weight per row needed");
  NumericMatrix out = M.result(G);
  if (G == 0 || n == 0) return out;
  const mp::SortedGrid s = mp::sort_grid(grid.begin(), G);
  const mp::Design D = design(X, rows);
  const std::size_t block = mp::set_block(G, K, n, M.F.transform != mp::TR_IDENTITY);
  const std::size_t n_blocks = (n + block - 1) / block;
  std::vector<mp::PdSums> parts(n_blocks);
  const mp::Forest& F = M.F;
  const double* wp = w.begin();
  glue::parallel_chunks(n_blocks, 2 * std::max(threads, 1), 1, threads,
                        [&](std::size_t b0, std::size_t b1) {
                          mp::RowBlock blk;
                          mp::SetScratch sc;
                          mp::IceSums ice;
                          mp::with_rules(F, [&](auto step) {
                            using S = decltype(step);
                            for (std::size_t q = b0; q < b1; ++q) {
                              const std::size_t r0 = q * block, r1 = std::min(n, r0 + block);
                              mp::gather_block(D, r0, r1, blk);
                              sc.visits = 0;
                              mp::pd_block_sums<S>(F, blk, wp + r0, j, s, sc, ice, parts[q]);
                              parts[q].visits = sc.visits;
                            }
                          });
                        });
  double* o = out.begin();
  double visits = 0;
  for (std::size_t q = 0; q < n_blocks; ++q) visits += static_cast<double>(parts[q].visits);
  for (int g = 0; g < G; ++g) {
    for (int k = 0; k < K; ++k) {
      double tot = 0.0;
      bool bad = false;
      for (std::size_t q = 0; q < n_blocks; ++q) {
        tot += parts[q].sums[static_cast<std::size_t>(g) * K + k];
        bad |= parts[q].nan[g] > 0;
      }
      o[s.pos[g] + static_cast<std::size_t>(k) * G] = bad ? NA_REAL : tot;
    }
  }
  out.attr("visits") = visits;
  return out;
}

// Predictions with two features free: for rows rows[i] (0-based) of X,
// features j1 and j2 (0-based, distinct) set to each point (z1[q], z2[q])
// (codes, NaN a missing value), by the set walk over the points
// (setwalk.h). Without weights (w NULL): a (P * length(rows)) x n_outputs
// matrix in observation-major order (point q of row i at q + i * P); with
// weights w[i]: their weighted sums over the rows, a P x n_outputs matrix
// (NA where a prediction is missing), summed block by block in order.
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_points(List model, SEXP x, IntegerVector rows, int j1, int j2,
                                NumericVector z1, NumericVector z2, Nullable<NumericVector> w,
                                int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  check_rows(rows, X.n, "row");
  check_feature(j1, M.F);
  check_feature(j2, M.F);
  if (j1 == j2) stop("native data: two distinct features needed");
  const int P = z1.size(), K = M.F.n_outputs;
  if (z2.size() != P) stop("native data: `z1` and `z2` differ in length");
  const std::size_t n = rows.size();
  const bool sums = w.isNotNull();
  NumericVector wv = sums ? NumericVector(w.get()) : NumericVector(0);
  if (sums && static_cast<std::size_t>(wv.size()) != n) stop("native data: one weight per row needed");
  if (!sums && static_cast<double>(n) * P > 2147483647.0)
    stop("native data: more than 2^31 - 1 predictions; use fewer rows per call");
  NumericMatrix out = M.result(sums ? static_cast<std::size_t>(P) : n * static_cast<std::size_t>(P));
  if (P == 0 || n == 0) return out;
  const mp::Design D = design(X, rows);
  const mp::PointSet pts{z1.begin(), z2.begin(), P};
  const std::size_t block = mp::points_block_rows(P, K, n);
  const std::size_t n_blocks = (n + block - 1) / block;
  std::vector<std::vector<double>> parts(sums ? n_blocks : 0);
  const mp::Forest& F = M.F;
  double* o = out.begin();
  const std::size_t stride = n * static_cast<std::size_t>(P);
  const double* wp = sums ? wv.begin() : nullptr;
  glue::parallel_chunks(n_blocks, 2 * std::max(threads, 1), 1, threads,
                        [&](std::size_t b0, std::size_t b1) {
                          mp::RowBlock blk;
                          mp::PointScratch sc;
                          std::vector<double> acc;
                          for (std::size_t q = b0; q < b1; ++q) {
                            const std::size_t r0 = q * block, r1 = std::min(n, r0 + block);
                            mp::gather_block(D, r0, r1, blk);
                            double* s = nullptr;
                            if (sums) {
                              parts[q].assign(static_cast<std::size_t>(P) * K, 0.0);
                              s = parts[q].data();
                            }
                            mp::points_block(F, blk, j1, j2, pts, sc, acc, o, r0, stride,
                                             sums ? wp + r0 : nullptr, s);
                          }
                        });
  if (sums) {
    for (int q = 0; q < P; ++q)
      for (int k = 0; k < K; ++k) {
        double tot = 0.0;
        for (std::size_t b = 0; b < n_blocks; ++b) tot += parts[b][static_cast<std::size_t>(q) * K + k];
        o[q + static_cast<std::size_t>(k) * P] = std::isnan(tot) ? NA_REAL : tot;
      }
  }
  return out;
}
