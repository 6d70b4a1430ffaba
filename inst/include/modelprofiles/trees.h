// Per-tree partial dependence of a packed forest that averages its trees:
// for background rows x_i (weights w_i), feature j over a grid z_0..z_{G-1}
// and each tree t, theta[g, t] = base + sum_i w_i leaf_t(x_i^{j = z_g}) /
// sum_i w_i, so that the mean over the trees is the forest's PD. R-free.
//
// The rows go down each tree together, j free over the sorted grid (the set
// walk, setwalk.h); a leaf reached by rows R over the grid points [a, b)
// adds the weights of R times its value to a difference array at a and
// subtracts it at b; the prefix sums at the end give the per-tree sums.
// Each tree's accumulators are its own, filled block by block by the one
// thread that owns the tree, so the numbers do not depend on the number of
// threads.
#ifndef MODELPROFILES_TREES_H
#define MODELPROFILES_TREES_H

#include <cstddef>
#include <limits>
#include <vector>

#include "forest.h"
#include "predict.h"
#include "setwalk.h"

namespace mp {

// The accumulators of all trees: tree t's difference arrays over the G + 1
// boundaries of the sorted grid, per output (diff[(t * (G + 1) + g) * K +
// k]), and the same for the count of unroutable walks (a missing value
// where the tree has no rule for one), which make the point NaN.
struct TreeSums {
  int G = 0, K = 1, T = 0;
  std::vector<double> diff;
  std::vector<int> nan;
  TreeSums(int G_, int K_, int T_)
      : G(G_), K(K_), T(T_),
        diff(static_cast<std::size_t>(T_) * (G_ + 1) * K_, 0.0),
        nan(static_cast<std::size_t>(T_) * (G_ + 1), 0) {}
  double* diff_of(int t) { return diff.data() + static_cast<std::size_t>(t) * (G + 1) * K; }
  int* nan_of(int t) { return nan.data() + static_cast<std::size_t>(t) * (G + 1); }
};

// Add the rows of block `blk` (weights w[i]) to tree t's accumulators, j
// free over the sorted grid s, by the set walk: a leaf reached by rows R
// over [a, b) adds its value times their weights. The row indices start in
// order for each tree, so a tree's sums do not depend on which trees the
// calling thread walked before. `sc`: the calling thread's scratch.
template <typename S>
inline void tree_sums_block(const Forest& F, int t, const RowBlock& blk, const double* w, int j,
                            const SortedGrid& s, TreeSums& T, SetScratch& sc) {
  sc.reset(blk.B);
  WeightedLeaf leaf{F, w, T.diff_of(t), T.nan_of(t)};
  set_walk_tree<S>(F, F.roots[t], blk, j, s.z.data(), T.G, s.nn, sc, leaf);
}

// The per-tree PD of trees [t0, t1) from their accumulators: sorted grid
// point g of tree t, output k, to out[pos[g] + G * (t + T * k)] (a G x T x K
// array in the grid's own order), F.na where a walk was unroutable.
inline void tree_sums_finish(const Forest& F, TreeSums& S, const SortedGrid& s, double wsum,
                             int t0, int t1, double* out) {
  const int G = S.G, K = S.K, T = S.T;
  for (int t = t0; t < t1; ++t) {
    const double* diff = S.diff_of(t);
    const int* nan = S.nan_of(t);
    for (int k = 0; k < K; ++k) {
      double run = 0.0;
      int bad = 0;
      for (int g = 0; g < G; ++g) {
        run += diff[static_cast<std::size_t>(g) * K + k];
        bad += nan[g];
        const std::size_t o = static_cast<std::size_t>(s.pos[g]) +
                              static_cast<std::size_t>(G) * (t + static_cast<std::size_t>(T) * k);
        out[o] = bad > 0 ? F.na : run / wsum + F.base[k];
      }
    }
  }
}

// Rows per block of the per-tree PD: a block's feature values fit in 2 MB
// and its walks over all trees (the work between two interrupt checks) are
// about 2^22.
inline std::size_t tree_block(int p, int n_trees, std::size_t n) {
  const std::size_t pp = static_cast<std::size_t>(p > 1 ? p : 1);
  const std::size_t nt = static_cast<std::size_t>(n_trees > 1 ? n_trees : 1);
  std::size_t block = (std::size_t(1) << 22) / nt;
  if (block < 64) block = 64;
  if (block > 262144 / pp) block = 262144 / pp;
  if (block > n) block = n;
  return block > 0 ? block : 1;
}

}  // namespace mp

#endif
