// The set walk at observed points (observed.h): the one-variable sums of
// Friedman's H-statistics. Workers own blocks of rows; the points' sums of
// the blocks are added in block order on the main thread, so the numbers do
// not depend on the number of threads.
#include <Rcpp.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>
#include <modelprofiles/observed.h>
#include <modelprofiles/predict.h>
#include <modelprofiles/setwalk.h>
#include "native_model.h"
#include "parallel.h"

using namespace Rcpp;

// For rows rows[i] (0-based) of X with weights w[i], feature j (0-based)
// at each of the points z[g] (distinct codes, any order, NaN a missing
// value) with weights v[g], and own[i] (0-based) the point of row i: a
// list of `points` (G x n_outputs, sum_i w_i f(row i at z[g])), `rows`
// (n x n_outputs, sum_g v_g f(row i at z[g])) and `own` (n x n_outputs,
// f(row i at z[own[i]])), NA where a prediction is missing. By the set
// walk (observed.h), in blocks of rows that depend on the number of rows
// only.
// [[Rcpp::export(rng = false)]]
List cpp_native_observed(List model, SEXP x, IntegerVector rows, NumericVector w, int j,
                         NumericVector z, NumericVector v, IntegerVector own, int threads) {
  NativeModel M(model);
  const FeatureColumns X = feature_columns(x, M.F.n_features);
  const std::size_t n = rows.size();
  for (std::size_t i = 0; i < n; ++i)
    if (rows[i] == NA_INTEGER || rows[i] < 0 || static_cast<std::size_t>(rows[i]) >= X.n)
      stop("native data: row out of range");
  if (j == NA_INTEGER || j < 0 || j >= M.F.n_features) stop("native data: feature index out of range");
  const int G = z.size(), K = M.F.n_outputs;
  if (v.size() != G) stop("native data: one weight per point needed");
  if (static_cast<std::size_t>(w.size()) != n || static_cast<std::size_t>(own.size()) != n)
    stop("native data: one weight and one point per row needed");
  for (std::size_t i = 0; i < n; ++i)
    if (own[i] == NA_INTEGER || own[i] < 0 || own[i] >= G) stop("native data: point out of range");
  NumericMatrix pts = M.result(G), rsum = M.result(n), rown = M.result(n);
  List out = List::create(_["points"] = pts, _["rows"] = rsum, _["own"] = rown);
  if (G == 0 || n == 0) return out;
  const mp::SortedGrid s = mp::sort_grid(z.begin(), G);
  // The points' weights in sorted order as prefix sums, and the rows' own
  // points as sorted positions.
  std::vector<double> vcum(G + 1, 0.0);
  std::vector<int> rank(G);
  for (int g = 0; g < G; ++g) {
    vcum[g + 1] = vcum[g] + v[s.pos[g]];
    rank[s.pos[g]] = g;
  }
  std::vector<int> own_sorted(n);
  for (std::size_t i = 0; i < n; ++i) own_sorted[i] = rank[own[i]];
  mp::Design D;
  D.cols = X.cols;
  D.n = X.n;
  D.p = static_cast<int>(X.cols.size());
  D.src = rows.begin();
  const std::size_t block = mp::set_block(G, K, n, M.F.transform != mp::TR_IDENTITY);
  const std::size_t n_blocks = (n + block - 1) / block;
  std::vector<mp::ObservedSums> parts(n_blocks);
  const mp::Forest& F = M.F;
  const double* wp = w.begin();
  const int* op = own_sorted.data();
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
                              mp::observed_block_sums<S>(F, blk, wp + r0, op + r0, j, s, vcum, sc,
                                                         ice, parts[q]);
                            }
                          });
                        });
  double* po = pts.begin();
  for (int g = 0; g < G; ++g) {
    for (int k = 0; k < K; ++k) {
      double tot = 0.0;
      bool bad = false;
      for (std::size_t q = 0; q < n_blocks; ++q) {
        tot += parts[q].points[static_cast<std::size_t>(g) * K + k];
        bad |= parts[q].nan[g] > 0;
      }
      po[s.pos[g] + static_cast<std::size_t>(k) * G] = bad ? NA_REAL : tot;
    }
  }
  double* ro = rsum.begin();
  double* oo = rown.begin();
  for (std::size_t q = 0; q < n_blocks; ++q) {
    const std::size_t r0 = q * block, B = std::min(n, r0 + block) - r0;
    for (std::size_t i = 0; i < B; ++i)
      for (int k = 0; k < K; ++k) {
        const double a = parts[q].rows[i * K + k], b = parts[q].own[i * K + k];
        ro[r0 + i + static_cast<std::size_t>(k) * n] = std::isnan(a) ? NA_REAL : a;
        oo[r0 + i + static_cast<std::size_t>(k) * n] = std::isnan(b) ? NA_REAL : b;
      }
  }
  return out;
}
