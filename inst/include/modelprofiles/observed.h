// The set walk at observed points, for Friedman's H-statistics: the free
// features S (one or two) at the points z_1..z_P (the distinct values, or
// pairs of values, that occur among the rows), and two sums. R-free.
//
// Of the table f(x_i^{S=z_q}) (rows i with weights w_i, points q with
// weights v_q), the walks give, without making the table:
//   points[q] = sum_i w_i f(x_i^{S=z_q})     (partial dependence at z_q),
//   rows[i]   = sum_q v_q f(x_i^{S=z_q})     (the mean over the points, PD_-S).
// With the identity transform both are sums of leaf values, and a leaf L
// of a tree is reached by the pair (row i, point q) iff row i agrees with
// L's path at its splits on the other features and point q at its splits
// on S. So per tree three set walks (walk_marginal()) make them: the rows
// go down with the splits on S leaving them whole (each leaf gets the
// weight W_L of the rows that reach it); the points go down with the other
// splits leaving them whole (a leaf adds its value times W_L to each point
// that reaches it, and gets the weight V_L of those points); the rows once
// more (a leaf adds its value times V_L to each row that reaches it). Each
// walk enters only the nodes the walk before reached, so no part of a tree
// that no (row, point) pair reaches is walked. The cost is linear in the
// rows plus the points, not in their product.
//
// With another transform the sums are not linear in the leaves: each row's
// curve is made and finished first (observed_block_sums(), one feature; the
// walk over points of setwalk.h, two).
#ifndef MODELPROFILES_OBSERVED_H
#define MODELPROFILES_OBSERVED_H

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "forest.h"
#include "predict.h"
#include "setwalk.h"

namespace mp {

// ---- Any transform: the rows' curves, finished -------------------------------

// The sums of a block of rows: points (G x K, sorted order, sums over the
// block's rows) and rows (B x K, the block's rows' sums over the points).
struct ObservedSums {
  std::vector<double> points, rows;
};

// The sums of block `blk` (weights w of its rows), feature j over the
// sorted points s with weights vs (sorted order; nullptr: no rows' sums):
// each row's curve by ice_block_sums(), finished, then summed (a missing
// prediction, F.na, is NaN in the sums).
template <typename S>
inline void observed_block_sums(const Forest& F, const RowBlock& blk, const double* w,
                                const double* vs, int j, const SortedGrid& s, SetScratch& sc,
                                IceSums& ice, ObservedSums& out) {
  const int B = blk.B, G = static_cast<int>(s.z.size()), K = F.n_outputs;
  out.points.assign(static_cast<std::size_t>(G) * K, 0.0);
  out.rows.assign(static_cast<std::size_t>(B) * K, 0.0);
  ice_block_sums<S>(F, blk, j, s, sc, ice);
  std::vector<double> pred(K);
  for (int i = 0; i < B; ++i) {
    const double wi = w[i];
    double* r = out.rows.data() + static_cast<std::size_t>(i) * K;
    ice_row_sums(F, ice, i, G, [&](int g, const double* sums) {
      finish(F, sums, pred.data(), 1);
      for (int k = 0; k < K; ++k) {
        out.points[static_cast<std::size_t>(g) * K + k] += wi * pred[k];
        if (vs != nullptr) r[k] += vs[g] * pred[k];
      }
    });
  }
}

// ---- The factorised walks (identity transform) ------------------------------

// A pending part of a marginal walk: the items idx[lo, hi) at `node`.
struct MarginTask {
  int node, lo, hi;
};

// The items of a marginal walk: n items with the values cols[f] (item i's
// value of feature f at cols[f][i]; nullptr: the items have no value of f,
// and go to both children of a split on it), has_nan[f] whether any value
// of f is missing.
struct MarginItems {
  std::vector<const double*> cols;
  std::vector<char> has_nan;
  int n = 0;
};

// Walk the items idx[0, m) down the tree rooted at `root`: partitioned at
// splits on a feature they have values of (partition_at(); branch-free for
// a numeric split without missing values), whole to both children at any
// other split. enter(node) decides whether a node is walked; leaf(node,
// items, cnt) is called at each leaf reached (node -1: items that cannot be
// routed, a missing value without a rule). S: the step rules (predict.h).
template <typename S, typename Enter, typename Leaf>
inline void walk_marginal(const Forest& F, int root, const MarginItems& it, int* idx, int* tmp,
                          int m, std::vector<MarginTask>& stack, Enter&& enter, Leaf&& leaf) {
  stack.clear();
  if (m > 0) stack.push_back(MarginTask{root, 0, m});
  while (!stack.empty()) {
    const MarginTask t = stack.back();
    stack.pop_back();
    int node = t.node, lo = t.lo, hi = t.hi;
    for (;;) {
      if (node < 0) {
        leaf(-1, idx + lo, hi - lo);
        break;
      }
      if (!enter(node)) break;
      const Node& d = F.nodes[node];
      if (d.feature < 0) {
        leaf(node, idx + lo, hi - lo);
        break;
      }
      const int f = d.feature & ~CAT_FLAG;
      const double* x = it.cols[f];
      if (x == nullptr) {
        stack.push_back(MarginTask{d.right, lo, hi});
        const int mc = missing_child(F, node);
        if (mc >= 0 && mc != node + 1 && mc != d.right) stack.push_back(MarginTask{mc, lo, hi});
        node = node + 1;
        continue;
      }
      int mid, end = hi;
      if (!(d.feature & CAT_FLAG) && !it.has_nan[f]) {
        mid = partition_numeric<S>(x, d.threshold, idx, lo, hi, tmp);
      } else {
        partition_at(F, node, d, x, idx, lo, hi, tmp, mid, end);
        if (end < hi) stack.push_back(MarginTask{missing_child(F, node), end, hi});
      }
      if (mid > lo && end > mid) {
        stack.push_back(MarginTask{d.right, mid, end});
        hi = mid;
        node = node + 1;
      } else if (mid > lo) {
        hi = mid;
        node = node + 1;
      } else if (end > mid) {
        node = d.right;
        lo = mid;
        hi = end;
      } else {
        break;
      }
    }
  }
}

// Walk the sorted points [0, G) of one free feature j (sort_grid()) down
// the tree rooted at `root`: ranges cut at splits on j (route_grid(), so
// no point is moved), whole to both children (and a distinct missing
// child) at any other split. enter(node) and leaf(node, a, b) as in
// walk_marginal(), with the range [a, b) of sorted points.
template <typename Enter, typename Leaf>
inline void walk_sorted(const Forest& F, int root, int j, const SortedGrid& s,
                        std::vector<SetTask>& stack, Enter&& enter, Leaf&& leaf) {
  stack.clear();
  const int G = static_cast<int>(s.z.size());
  if (G > 0) stack.push_back(SetTask{root, 0, 0, 0, G});
  while (!stack.empty()) {
    const SetTask t = stack.back();
    stack.pop_back();
    int node = t.node, a = t.a, b = t.b;
    for (;;) {
      if (node < 0) {
        leaf(-1, a, b);
        break;
      }
      if (!enter(node)) break;
      const Node& d = F.nodes[node];
      if (d.feature < 0) {
        leaf(node, a, b);
        break;
      }
      if ((d.feature & ~CAT_FLAG) == j) {
        node = route_grid(F, node, d, s.z.data(), s.nn, 0, 0, a, b, stack);
        continue;
      }
      stack.push_back(SetTask{d.right, 0, 0, a, b});
      const int mc = missing_child(F, node);
      if (mc >= 0 && mc != node + 1 && mc != d.right) stack.push_back(SetTask{mc, 0, 0, a, b});
      node = node + 1;
    }
  }
}

// Scratch of one thread for observed_trees().
struct MarginScratch {
  std::vector<int> idx, tmp, pidx, ptmp;
  std::vector<MarginTask> stack;
  std::vector<SetTask> sstack;
  std::vector<double> wl, vl;     // W_L and V_L, per node of the tree
  std::vector<char> rseen, pseen;  // nodes the rows, the points reached
};

// The points of observed_trees(): their values at the free features
// (`items`, the other features nullptr) or, for one free feature j, the
// points sorted (`sorted`, with vcum the prefix sums of their weights in
// sorted order, G + 1 values), walked as ranges.
struct ObservedPoints {
  const MarginItems* items = nullptr;
  const SortedGrid* sorted = nullptr;
  const double* vcum = nullptr;
  int j = -1;
};

// The sums of the trees [t0, t1) (identity transform), without the base
// and the mean: points (the rows' weighted leaf sums at each point: P x K
// in the points' order, or with sorted points a difference array over
// them, (G + 1) x K, sorted order), rows (n x K, the same with the points'
// weights per row; only when `want_rows`), and the rows and points with a
// leaf they cannot reach (rnan, pnan: 1 when any; pnan in the sorted order
// with sorted points). rows_it: the rows' values, nullptr at the free
// features. w: the rows' weights; v: the points' weights (not sorted).
template <typename S>
inline void observed_trees(const Forest& F, int t0, int t1, const MarginItems& rows_it,
                           const ObservedPoints& pts, const double* w, const double* v,
                           bool want_rows, MarginScratch& sc, double* points, double* rows,
                           char* rnan, char* pnan) {
  const int n = rows_it.n, K = F.n_outputs;
  const int P = pts.sorted != nullptr ? static_cast<int>(pts.sorted->z.size()) : pts.items->n;
  sc.idx.resize(n);
  sc.tmp.resize(n);
  sc.pidx.resize(P);
  sc.ptmp.resize(P);
  for (int t = t0; t < t1; ++t) {
    const int root = F.roots[t];
    const int size = F.roots[t + 1] - root;
    sc.wl.assign(size, 0.0);
    sc.rseen.assign(size, 0);
    sc.pseen.assign(size, 0);
    if (want_rows) sc.vl.assign(size, 0.0);
    double* wl = sc.wl.data();
    double* vl = sc.vl.data();
    char* rseen = sc.rseen.data();
    char* pseen = sc.pseen.data();
    for (int i = 0; i < n; ++i) sc.idx[i] = i;
    // The rows: the weight of those reaching each leaf.
    walk_marginal<S>(F, root, rows_it, sc.idx.data(), sc.tmp.data(), n, sc.stack,
                     [&](int node) {
                       rseen[node - root] = 1;
                       return true;
                     },
                     [&](int node, const int* it, int cnt) {
                       if (node < 0) {
                         for (int r = 0; r < cnt; ++r) rnan[it[r]] = 1;
                         return;
                       }
                       double W = 0.0;
                       for (int r = 0; r < cnt; ++r) W += w[it[r]];
                       wl[node - root] += W;
                     });
    // The points, where rows went: each leaf's value times W_L.
    auto enter_points = [&](int node) {
      if (!rseen[node - root]) return false;
      pseen[node - root] = 1;
      return true;
    };
    if (pts.sorted != nullptr) {
      walk_sorted(F, root, pts.j, *pts.sorted, sc.sstack, enter_points, [&](int node, int a, int b) {
        if (node < 0) {
          for (int g = a; g < b; ++g) pnan[g] = 1;
          return;
        }
        const double W = wl[node - root];
        for (int k = 0; k < K; ++k) {
          const double x = W * F.leaf_value(node, k);
          points[static_cast<std::size_t>(a) * K + k] += x;
          points[static_cast<std::size_t>(b) * K + k] -= x;
        }
        if (want_rows) vl[node - root] += pts.vcum[b] - pts.vcum[a];
      });
    } else {
      for (int q = 0; q < P; ++q) sc.pidx[q] = q;
      walk_marginal<S>(F, root, *pts.items, sc.pidx.data(), sc.ptmp.data(), P, sc.stack, enter_points,
                       [&](int node, const int* it, int cnt) {
                         if (node < 0) {
                           for (int u = 0; u < cnt; ++u) pnan[it[u]] = 1;
                           return;
                         }
                         const double W = wl[node - root];
                         for (int k = 0; k < K; ++k) {
                           const double x = W * F.leaf_value(node, k);
                           for (int u = 0; u < cnt; ++u) points[static_cast<std::size_t>(it[u]) * K + k] += x;
                         }
                         if (want_rows) {
                           double V = 0.0;
                           for (int u = 0; u < cnt; ++u) V += v[it[u]];
                           vl[node - root] += V;
                         }
                       });
    }
    if (!want_rows) continue;
    // The rows again, where points went: each leaf's value times V_L.
    walk_marginal<S>(F, root, rows_it, sc.idx.data(), sc.tmp.data(), n, sc.stack,
                     [&](int node) { return pseen[node - root] != 0; },
                     [&](int node, const int* it, int cnt) {
                       if (node < 0) return;
                       const double V = vl[node - root];
                       for (int k = 0; k < K; ++k) {
                         const double x = V * F.leaf_value(node, k);
                         for (int r = 0; r < cnt; ++r) rows[static_cast<std::size_t>(it[r]) * K + k] += x;
                       }
                     });
  }
}

// Trees per block of observed_trees(), for blocks whose sums take `cells`
// doubles each: 16 blocks at most, and at most 64 MB of sums in all. The
// blocks depend on the model, the rows and the points only (their sums are
// added in block order), never on the threads.
inline int observed_tree_block(int n_trees, std::size_t cells) {
  const std::size_t cap = (std::size_t(1) << 23) / std::max<std::size_t>(cells, 1);
  const int blocks = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(16, cap)));
  return std::max(1, (n_trees + blocks - 1) / blocks);
}

}  // namespace mp

#endif
