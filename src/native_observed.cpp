// The set walk at observed points (observed.h): the sums of Friedman's
// H-statistics. Workers own blocks of trees (identity transform) or of
// rows (any other); the blocks depend on the model and the rows only, and
// their sums are added in block order on the main thread, so the numbers
// do not depend on the number of threads.
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

namespace {

// The sums of the identity transform by the factorised walks, to `pts`
// (P x K) and, when v is given, `rsum` (n x K): R's column-major layout.
void observed_identity(const mp::Forest& F, const mp::Design& D, std::size_t n,
                       const std::vector<int>& js, const std::vector<const double*>& z, int P,
                       const double* w, const double* v, int threads, double* pts, double* rsum) {
  const int K = F.n_outputs, T = F.n_trees;
  mp::RowBlock blk;
  mp::gather_block(D, 0, n, blk);
  mp::MarginItems rows_it, pts_it;
  rows_it.n = static_cast<int>(n);
  rows_it.cols.assign(D.p, nullptr);
  rows_it.has_nan = blk.has_nan;
  for (int f = 0; f < D.p; ++f) rows_it.cols[f] = blk.cols.data() + static_cast<std::size_t>(f) * n;
  for (std::size_t q = 0; q < js.size(); ++q) rows_it.cols[js[q]] = nullptr;
  // One feature: the points sorted, walked as ranges; two: as items.
  const bool one = js.size() == 1;
  mp::ObservedPoints op;
  mp::SortedGrid sorted;
  std::vector<double> vcum;
  if (one) {
    sorted = mp::sort_grid(z[0], P);
    vcum.assign(P + 1, 0.0);
    if (v != nullptr)
      for (int g = 0; g < P; ++g) vcum[g + 1] = vcum[g] + v[sorted.pos[g]];
    op.sorted = &sorted;
    op.vcum = vcum.data();
    op.j = js[0];
  } else {
    pts_it.n = P;
    pts_it.cols.assign(D.p, nullptr);
    pts_it.has_nan.assign(D.p, 0);
    for (std::size_t q = 0; q < js.size(); ++q) {
      pts_it.cols[js[q]] = z[q];
      for (int g = 0; g < P; ++g) pts_it.has_nan[js[q]] |= std::isnan(z[q][g]);
    }
    op.items = &pts_it;
  }
  const std::size_t plen = static_cast<std::size_t>(one ? P + 1 : P) * K;
  const bool want_rows = v != nullptr;
  const int tb = mp::observed_tree_block(T, plen + (want_rows ? n * K : 0));
  const int nb = (T + tb - 1) / tb;
  struct Part {
    std::vector<double> points, rows;
    std::vector<char> rnan, pnan;
  };
  std::vector<Part> parts(nb);
  glue::parallel_chunks(nb, 2 * std::max(threads, 1), 1, threads,
                        [&](std::size_t b0, std::size_t b1) {
                          mp::MarginScratch sc;
                          mp::with_rules(F, [&](auto step) {
                            using S = decltype(step);
                            for (std::size_t b = b0; b < b1; ++b) {
                              Part& pt = parts[b];
                              pt.points.assign(plen, 0.0);
                              pt.rows.assign(want_rows ? n * K : 0, 0.0);
                              pt.rnan.assign(n, 0);
                              pt.pnan.assign(P, 0);
                              const int t0 = static_cast<int>(b) * tb, t1 = std::min(T, t0 + tb);
                              mp::observed_trees<S>(F, t0, t1, rows_it, op, w, v, want_rows, sc,
                                                    pt.points.data(), pt.rows.data(),
                                                    pt.rnan.data(), pt.pnan.data());
                            }
                          });
                        });
  // A leaf a row or a point cannot reach makes the sums it enters missing:
  // a row's, every point's; a point's, its own and every row's.
  bool any_rnan = false, any_pnan = false;
  std::vector<char> rnan(n, 0), pnan(P, 0);
  for (int b = 0; b < nb; ++b) {
    for (std::size_t i = 0; i < n; ++i) rnan[i] |= parts[b].rnan[i];
    for (int q = 0; q < P; ++q) pnan[q] |= parts[b].pnan[q];
  }
  for (std::size_t i = 0; i < n; ++i) any_rnan |= rnan[i] != 0;
  for (int q = 0; q < P; ++q) any_pnan |= pnan[q] != 0;
  const bool mean = F.aggregate == mp::AGG_MEAN;
  double wsum = 0.0, vtot = 0.0;
  for (std::size_t i = 0; i < n; ++i) wsum += w[i];
  if (want_rows)
    for (int q = 0; q < P; ++q) vtot += v[q];
  // The blocks' sums in order (with sorted points, their difference
  // arrays, then one prefix sum), to the points' own order.
  std::vector<double> run(K, 0.0);
  for (int q = 0; q < P; ++q) {
    const int at = one ? sorted.pos[q] : q;
    const bool bad = any_rnan || pnan[q];
    for (int k = 0; k < K; ++k) {
      double tot = 0.0;
      for (int b = 0; b < nb; ++b) tot += parts[b].points[static_cast<std::size_t>(q) * K + k];
      if (one) {
        run[k] += tot;
        tot = run[k];
      }
      tot = (mean ? tot / T : tot) + wsum * F.base[k];
      pts[at + static_cast<std::size_t>(k) * P] = bad ? NA_REAL : tot;
    }
  }
  if (!want_rows) return;
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < K; ++k) {
      double tot = 0.0;
      for (int b = 0; b < nb; ++b) tot += parts[b].rows[i * K + k];
      tot = (mean ? tot / T : tot) + vtot * F.base[k];
      rsum[i + static_cast<std::size_t>(k) * n] = any_pnan || rnan[i] ? NA_REAL : tot;
    }
}

// The sums of another transform, one feature j: the rows' curves at the
// sorted points, finished, in blocks of rows (observed_block_sums()).
void observed_curves(const mp::Forest& F, const mp::Design& D, std::size_t n, int j,
                     const double* z, int P, const double* w, const double* v, int threads,
                     double* pts, double* rsum) {
  const int K = F.n_outputs;
  const mp::SortedGrid s = mp::sort_grid(z, P);
  std::vector<double> vs;
  if (v != nullptr) {
    vs.resize(P);
    for (int g = 0; g < P; ++g) vs[g] = v[s.pos[g]];
  }
  const std::size_t block = mp::set_block(P, K, n, true);
  const std::size_t n_blocks = (n + block - 1) / block;
  std::vector<mp::ObservedSums> parts(n_blocks);
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
                              mp::observed_block_sums<S>(F, blk, w + r0, v != nullptr ? vs.data() : nullptr,
                                                         j, s, sc, ice, parts[q]);
                            }
                          });
                        });
  for (int g = 0; g < P; ++g)
    for (int k = 0; k < K; ++k) {
      double tot = 0.0;
      for (std::size_t q = 0; q < n_blocks; ++q) tot += parts[q].points[static_cast<std::size_t>(g) * K + k];
      pts[s.pos[g] + static_cast<std::size_t>(k) * P] = std::isnan(tot) ? NA_REAL : tot;
    }
  if (v == nullptr) return;
  for (std::size_t q = 0; q < n_blocks; ++q) {
    const std::size_t r0 = q * block, B = std::min(n, r0 + block) - r0;
    for (std::size_t i = 0; i < B; ++i)
      for (int k = 0; k < K; ++k) {
        const double a = parts[q].rows[i * K + k];
        rsum[r0 + i + static_cast<std::size_t>(k) * n] = std::isnan(a) ? NA_REAL : a;
      }
  }
}

}  // namespace

// For rows rows[i] (0-based) of X with weights w[i], the features js
// (0-based; one, or two distinct) set to each of the points (z[[1]][q],
// z[[2]][q]) (codes, distinct points in any order, NaN a missing value):
// a list of `points` (P x n_outputs: sum_i w_i f(row i at point q)) and,
// when the points' weights v are given, `rows` (n x n_outputs: sum_q v_q
// f(row i at point q)); NA where a prediction is missing. By the
// factorised set walks at the points (observed.h) for the identity
// transform; else by the rows' curves (one feature) or the walk over
// points (two features, without v).
// [[Rcpp::export(rng = false)]]
List cpp_native_observed(List model, SEXP x, IntegerVector rows, NumericVector w,
                         IntegerVector js, List z, Nullable<NumericVector> v, int threads) {
  NativeModel M(model);
  const mp::Forest& F = M.F;
  const FeatureColumns X = feature_columns(x, F.n_features);
  const std::size_t n = rows.size();
  for (std::size_t i = 0; i < n; ++i)
    if (rows[i] == NA_INTEGER || rows[i] < 0 || static_cast<std::size_t>(rows[i]) >= X.n)
      stop("native data: row out of range");
  if (js.size() < 1 || js.size() > 2 || z.size() != js.size())
    stop("native data: one or two features, with one vector of points each");
  std::vector<int> jv;
  std::vector<NumericVector> keep;
  std::vector<const double*> zp;
  for (R_xlen_t q = 0; q < js.size(); ++q) {
    if (js[q] == NA_INTEGER || js[q] < 0 || js[q] >= F.n_features)
      stop("native data: feature index out of range");
    jv.push_back(js[q]);
    keep.push_back(as<NumericVector>(z[q]));
    zp.push_back(keep.back().begin());
  }
  if (jv.size() == 2 && jv[0] == jv[1]) stop("native data: two distinct features needed");
  const int P = keep[0].size(), K = F.n_outputs;
  if (jv.size() == 2 && keep[1].size() != P) stop("native data: the points' vectors differ in length");
  if (static_cast<std::size_t>(w.size()) != n) stop("native data: one weight per row needed");
  const bool want_rows = v.isNotNull();
  NumericVector vv = want_rows ? NumericVector(v.get()) : NumericVector(0);
  if (want_rows && vv.size() != P) stop("native data: one weight per point needed");
  NumericMatrix pts = M.result(P);
  List out = List::create(_["points"] = pts);
  NumericMatrix rsum;
  if (want_rows) {
    rsum = M.result(n);
    out["rows"] = rsum;
  }
  if (P == 0 || n == 0) return out;
  mp::Design D;
  D.cols = X.cols;
  D.n = X.n;
  D.p = static_cast<int>(X.cols.size());
  D.src = rows.begin();
  const double* vp = want_rows ? vv.begin() : nullptr;
  double* rp = want_rows ? rsum.begin() : nullptr;
  if (F.transform == mp::TR_IDENTITY) {
    observed_identity(F, D, n, jv, zp, P, w.begin(), vp, threads, pts.begin(), rp);
  } else if (jv.size() == 1) {
    observed_curves(F, D, n, jv[0], zp[0], P, w.begin(), vp, threads, pts.begin(), rp);
  } else {
    if (want_rows) stop("native data: the rows' sums of two features need the identity transform");
    // The walk over points (setwalk.h), the blocks' sums added in order.
    const mp::PointSet ps{zp[0], zp[1], P};
    const std::size_t block = mp::points_block_rows(P, K, n);
    const std::size_t n_blocks = (n + block - 1) / block;
    std::vector<std::vector<double>> parts(n_blocks);
    const double* wp = w.begin();
    glue::parallel_chunks(n_blocks, 2 * std::max(threads, 1), 1, threads,
                          [&](std::size_t b0, std::size_t b1) {
                            mp::RowBlock blk;
                            mp::PointScratch sc;
                            std::vector<double> acc;
                            for (std::size_t q = b0; q < b1; ++q) {
                              const std::size_t r0 = q * block, r1 = std::min(n, r0 + block);
                              mp::gather_block(D, r0, r1, blk);
                              parts[q].assign(static_cast<std::size_t>(P) * K, 0.0);
                              mp::points_block(F, blk, jv[0], jv[1], ps, sc, acc, nullptr, r0, 0,
                                               wp + r0, parts[q].data());
                            }
                          });
    double* o = pts.begin();
    for (int q = 0; q < P; ++q)
      for (int k = 0; k < K; ++k) {
        double tot = 0.0;
        for (std::size_t b = 0; b < n_blocks; ++b) tot += parts[b][static_cast<std::size_t>(q) * K + k];
        o[q + static_cast<std::size_t>(k) * P] = std::isnan(tot) ? NA_REAL : tot;
      }
  }
  return out;
}
