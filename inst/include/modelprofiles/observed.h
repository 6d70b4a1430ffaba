// The set walk at observed points, for Friedman's H-statistics: one free
// feature j at the distinct values z_1..z_G that occur among the rows, and
// three sums of one walk. R-free.
//
// Of the table f(x_i^{j=z_g}) (rows i with weights w_i, points g with
// weights v_g), the walk gives, without making the table:
//   points[g] = sum_i w_i f(x_i^{j=z_g})     (partial dependence at z_g),
//   rows[i]   = sum_g v_g f(x_i^{j=z_g})     (the mean over the points, PD_-j),
//   own[i]    = f(x_i^{j=z_{own_i}})         (the row at its own value).
// The rows and the sorted points go down each tree together (set_walk_tree()
// of setwalk.h: the rows partitioned at splits on other features, the
// points' range cut at splits on j). A leaf reached by rows R over the
// points [a, b) adds its value times the weights of R to a difference
// array over the points (as the PD of pd_block_sums()), its value times
// v_a + ... + v_{b-1} (a difference of prefix sums) to each row of R, and
// its value to each row of R whose own point lies in [a, b). With a
// transform other than the identity the sums are not linear in the leaves:
// each row's curve is made and finished first (ice_block_sums()).
#ifndef MODELPROFILES_OBSERVED_H
#define MODELPROFILES_OBSERVED_H

#include <cstddef>
#include <limits>
#include <vector>

#include "forest.h"
#include "predict.h"
#include "setwalk.h"

namespace mp {

// The sums of a block of rows: points (G x K, sorted order, sums over the
// block's rows), nan[g] (rows whose prediction at sorted point g is
// missing), and per row of the block `rows` and `own` (B x K each).
struct ObservedSums {
  std::vector<double> points, rows, own;
  std::vector<int> nan;
};

// The sums of block `blk` (weights w of its rows; own[i], the sorted
// position of row i's own point) over the sorted points s with prefix sums
// vcum of their weights (G + 1 values, sorted order).
template <typename S>
inline void observed_block_sums(const Forest& F, const RowBlock& blk, const double* w,
                                const int* own, int j, const SortedGrid& s,
                                const std::vector<double>& vcum, SetScratch& sc, IceSums& ice,
                                ObservedSums& out) {
  const int B = blk.B, G = static_cast<int>(s.z.size()), K = F.n_outputs;
  const double nanv = std::numeric_limits<double>::quiet_NaN();
  out.points.assign(static_cast<std::size_t>(G) * K, 0.0);
  out.nan.assign(G, 0);
  out.rows.assign(static_cast<std::size_t>(B) * K, 0.0);
  out.own.assign(static_cast<std::size_t>(B) * K, 0.0);
  if (F.transform != TR_IDENTITY) {
    ice_block_sums<S>(F, blk, j, s, sc, ice);
    std::vector<double> pred(K);
    for (int i = 0; i < B; ++i) {
      const double wi = w[i];
      double* r = out.rows.data() + static_cast<std::size_t>(i) * K;
      ice_row_sums(F, ice, i, G, [&](int g, const double* sums) {
        finish(F, sums, pred.data(), 1);
        const double vg = vcum[g + 1] - vcum[g];
        for (int k = 0; k < K; ++k) {
          out.points[static_cast<std::size_t>(g) * K + k] += wi * pred[k];
          r[k] += vg * pred[k];
        }
        if (g == own[i])
          for (int k = 0; k < K; ++k) out.own[static_cast<std::size_t>(i) * K + k] = pred[k];
      });
    }
    return;
  }
  std::vector<double> diff(static_cast<std::size_t>(G + 1) * K, 0.0);
  std::vector<int> nan(G + 1, 0);
  bool any_nan = false;
  sc.reset(B);
  double wsum = 0.0;
  for (int i = 0; i < B; ++i) wsum += w[i];
  double* rows = out.rows.data();
  double* ownv = out.own.data();
  for (int t = 0; t < F.n_trees; ++t) {
    set_walk_tree<S>(F, F.roots[t], blk, j, s.z.data(), G, s.nn, sc,
                     [&](int node, const int* rs, int cnt, int a, int b) {
                       if (node < 0) {
                         nan[a] += cnt;
                         nan[b] -= cnt;
                         any_nan = true;
                         for (int r = 0; r < cnt; ++r) {
                           const std::size_t i = static_cast<std::size_t>(rs[r]);
                           for (int k = 0; k < K; ++k) {
                             rows[i * K + k] += nanv;
                             if (own[i] >= a && own[i] < b) ownv[i * K + k] += nanv;
                           }
                         }
                         return;
                       }
                       double W = 0.0;
                       for (int r = 0; r < cnt; ++r) W += w[rs[r]];
                       const double dv = vcum[b] - vcum[a];
                       for (int k = 0; k < K; ++k) {
                         const double val = F.leaf_value(node, k);
                         diff[static_cast<std::size_t>(a) * K + k] += W * val;
                         diff[static_cast<std::size_t>(b) * K + k] -= W * val;
                         for (int r = 0; r < cnt; ++r) {
                           const std::size_t i = static_cast<std::size_t>(rs[r]);
                           rows[i * K + k] += dv * val;
                           if (own[i] >= a && own[i] < b) ownv[i * K + k] += val;
                         }
                       }
                     });
  }
  // sum_i w_i (sum_t leaf / T + base) for a mean of trees, sum_i w_i (base
  // + sum_t leaf) for a sum; the same for the rows with the points'
  // weights, and for a row at its own point (finish()).
  const double T = static_cast<double>(F.n_trees);
  const bool mean = F.aggregate == AGG_MEAN;
  std::vector<double> run(K, 0.0);
  int bad = 0;
  for (int g = 0; g < G; ++g) {
    bad += nan[g];
    out.nan[g] = any_nan ? bad : 0;
    for (int k = 0; k < K; ++k) {
      run[k] += diff[static_cast<std::size_t>(g) * K + k];
      out.points[static_cast<std::size_t>(g) * K + k] = (mean ? run[k] / T : run[k]) + wsum * F.base[k];
    }
  }
  const double vtot = vcum[G];
  for (int i = 0; i < B; ++i) {
    for (int k = 0; k < K; ++k) {
      const std::size_t c = static_cast<std::size_t>(i) * K + k;
      rows[c] = (mean ? rows[c] / T : rows[c]) + vtot * F.base[k];
      ownv[c] = (mean ? ownv[c] / T : ownv[c]) + F.base[k];
    }
  }
}

}  // namespace mp

#endif
