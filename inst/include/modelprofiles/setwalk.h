// The set walk: ICE curves and partial dependence of a packed tree ensemble
// with the rows of a block pushed down each tree together. R-free.
//
// For each tree, the block's rows are an array of row indices. At a split
// on another feature the array is partitioned in place by the split rule
// (branch-free when the feature has no missing value in the block); at a
// split on the profiled feature j the same rows go to both children, each
// with its part of the sorted grid, cut by the predicate that routes a
// single value (predict.h), missing grid values to the missing child. A
// leaf reached by rows R over the grid range [a, b) adds its value to a
// difference array over the grid: one per row for ICE curves, or one for
// the block, times the weights of R, for partial dependence. One prefix sum
// per row (or per block) at the end gives the sums that finish() turns into
// predictions.
//
// The cost is the (row, node) visits with no per-visit branch
// misprediction, and no term in the grid's length per leaf. The sums are
// the predict path's (predict.h) up to rounding: predict() adds each row's
// leaves tree by tree, a difference array adds the same values and
// subtracts those whose range ended, so a point differs by a few units in
// the last place of the largest running sum (tests hold it to 1e-12
// relative to the predictions' scale).
#ifndef MODELPROFILES_SETWALK_H
#define MODELPROFILES_SETWALK_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "forest.h"
#include "predict.h"

namespace mp {

// A grid in the order the walk reads it: the values ascending, NaN (a
// missing value) last, nn of them numbers; sorted point g goes to output
// position pos[g].
struct SortedGrid {
  std::vector<double> z;
  std::vector<int> pos;
  int nn = 0;
};

inline SortedGrid sort_grid(const double* grid, int G) {
  SortedGrid s;
  s.pos.resize(G);
  for (int g = 0; g < G; ++g) s.pos[g] = g;
  std::stable_sort(s.pos.begin(), s.pos.end(), [grid](int a, int b) {
    const bool na = std::isnan(grid[a]), nb = std::isnan(grid[b]);
    if (na || nb) return !na && nb;
    return grid[a] < grid[b];
  });
  s.z.resize(G);
  for (int g = 0; g < G; ++g) {
    s.z[g] = grid[s.pos[g]];
    if (!std::isnan(s.z[g])) s.nn = g + 1;
  }
  return s;
}

// A block of B rows of a design, column-major (feature f of row i at
// cols[f * B + i]), and which features have a missing value in it.
struct RowBlock {
  std::vector<double> cols;
  std::vector<char> has_nan;
  int B = 0;
};

// Rows [r0, r1) of a design (without replaced features) into a block.
inline void gather_block(const Design& D, std::size_t r0, std::size_t r1, RowBlock& blk) {
  const int B = static_cast<int>(r1 - r0);
  const std::size_t p = static_cast<std::size_t>(D.p);
  blk.B = B;
  blk.cols.resize(p * B);
  blk.has_nan.assign(p, 0);
  for (std::size_t f = 0; f < p; ++f) {
    const double* x = D.cols[f];
    double* c = blk.cols.data() + f * B;
    bool nan = false;
    for (int i = 0; i < B; ++i) {
      c[i] = x[D.src[r0 + i]];
      nan |= std::isnan(c[i]);
    }
    blk.has_nan[f] = nan;
  }
}

// A pending part of a walk: the rows idx[lo, hi) at `node` with the grid
// range [a, b).
struct SetTask {
  int node, lo, hi, a, b;
};

// Scratch of one thread: the row indices, a partition buffer, the stack.
struct SetScratch {
  std::vector<int> idx, tmp;
  std::vector<SetTask> stack;
  long long visits = 0;  // (row, node) visits, counted by set_walk_tree()
  void reset(int B) {
    idx.resize(B);
    tmp.resize(B);
    for (int i = 0; i < B; ++i) idx[i] = i;
  }
};

// Route the grid range [a, b) at a split of packed node `node` on the free
// feature (sorted grid z, its first nn values numbers): push the parts that
// go elsewhere with the rows [lo, hi), and return the child the remaining
// part [a, b) goes to (-1: unroutable; -2: no part remains).
inline int route_grid(const Forest& F, int node, const Node& d, const double* z, int nn, int lo,
                      int hi, int& a, int& b, std::vector<SetTask>& stack) {
  const int c = std::max(a, std::min(b, nn));
  if (c < b) {
    // [c, b) are missing values.
    const int m = missing_child(F, node);
    if (c == a) return m;
    stack.push_back(SetTask{m, lo, hi, c, b});
    b = c;
  }
  if (!(d.feature & CAT_FLAG)) {
    const double thr = d.threshold;
    const int rule = F.rule;
    const bool f32 = F.float32;
    const double* m = std::partition_point(
        z + a, z + b, [thr, rule, f32](double x) { return goes_left_numeric(x, thr, rule, f32); });
    const int mi = static_cast<int>(m - z);
    if (mi == b) return node + 1;
    if (mi == a) return d.right;
    stack.push_back(SetTask{d.right, lo, hi, mi, b});
    b = mi;
    return node + 1;
  }
  // Categorical: runs of grid points going the same way.
  int s = a;
  bool dir = goes_left_categorical(F, node, z[a]);
  for (int g = a + 1; g < b; ++g) {
    const bool dg = goes_left_categorical(F, node, z[g]);
    if (dg != dir) {
      stack.push_back(SetTask{dir ? node + 1 : d.right, lo, hi, s, g});
      s = g;
      dir = dg;
    }
  }
  a = s;
  return dir ? node + 1 : d.right;
}

// Partition the indices ix[lo, hi) by where value x[ix[k]] goes at packed
// inner node `node`: the left child's first ([lo, mid)), then the right
// child's ([mid, end)), then, when the missing child is neither, the
// missing values' ([end, hi)). tmp: scratch of at least hi - lo cells.
inline void partition_at(const Forest& F, int node, const Node& d, const double* x, int* ix, int lo,
                         int hi, int* tmp, int& mid, int& end) {
  const int m = missing_child(F, node);
  const int left = node + 1, right = d.right;
  const int n = hi - lo;
  int l = lo, r = 0, q = 0;
  for (int k = lo; k < hi; ++k) {
    const int i = ix[k];
    const double v = x[i];
    int dest;
    if (std::isnan(v)) {
      dest = m == left ? 0 : (m == right ? 1 : 2);
    } else {
      dest = goes_left(F, node, d, v) ? 0 : 1;
    }
    if (dest == 0) {
      ix[l++] = i;
    } else if (dest == 1) {
      tmp[r++] = i;
    } else {
      tmp[n - 1 - q++] = i;
    }
  }
  std::copy(tmp, tmp + r, ix + l);
  for (int s = 0; s < q; ++s) ix[l + r + s] = tmp[n - 1 - s];
  mid = l;
  end = l + r;
}

// Partition ix[lo, hi) at a numeric split with no missing value among
// them, branch-free: each index to the left cursor (in place) and to the
// right buffer tmp, the cursors advanced by the comparison S::left().
// Returns mid: [lo, mid) go left, [mid, hi) right.
template <class S>
inline int partition_numeric(const double* x, double thr, int* ix, int lo, int hi, int* tmp) {
  int l = lo, r = 0;
  for (int k = lo; k < hi; ++k) {
    const int i = ix[k];
    const bool go = S::left(x[i], thr);
    ix[l] = i;
    tmp[r] = i;
    l += go;
    r += !go;
  }
  std::copy(tmp, tmp + r, ix + l);
  return l;
}

// Walk the rows idx[0, B) of block `blk` down the tree rooted at `root`,
// feature j free over the sorted grid z (G points, the first nn numbers; j =
// -1: none is free, the whole grid goes with each row): leaf(node, rows,
// count, a, b) for each leaf reached (node -1: unroutable, a missing value
// without a rule), with the rows (indices into the block) reaching it and
// the grid range [a, b) they reach it over. The order of idx changes, its
// set does not. S: the step rules (predict.h).
template <typename S, typename Leaf>
inline void set_walk_tree(const Forest& F, int root, const RowBlock& blk, int j, const double* z,
                          int G, int nn, SetScratch& sc, Leaf&& leaf) {
  int* idx = sc.idx.data();
  int* tmp = sc.tmp.data();
  const int B = blk.B;
  const double* cols = blk.cols.data();
  std::vector<SetTask>& stack = sc.stack;
  stack.clear();
  stack.push_back(SetTask{root, 0, B, 0, G});
  while (!stack.empty()) {
    const SetTask t = stack.back();
    stack.pop_back();
    int node = t.node, lo = t.lo, hi = t.hi, a = t.a, b = t.b;
    for (;;) {
      sc.visits += hi - lo;
      if (node < 0) {
        leaf(-1, idx + lo, hi - lo, a, b);
        break;
      }
      const Node& d = F.nodes[node];
      if (d.feature < 0) {
        leaf(node, idx + lo, hi - lo, a, b);
        break;
      }
      const int f = d.feature & ~CAT_FLAG;
      if (f == j) {
        node = route_grid(F, node, d, z, nn, lo, hi, a, b, stack);
        continue;
      }
      const double* x = cols + static_cast<std::size_t>(f) * B;
      const int left = node + 1, right = d.right;
      int mid, end = hi;
      if (!(d.feature & CAT_FLAG) && !blk.has_nan[f]) {
        mid = partition_numeric<S>(x, d.threshold, idx, lo, hi, tmp);
      } else {
        // Missing values (to the missing child: the left or right child, or
        // a third part at the end) or a categorical split.
        partition_at(F, node, d, x, idx, lo, hi, tmp, mid, end);
        if (end < hi) stack.push_back(SetTask{missing_child(F, node), end, hi, a, b});
      }
      if (mid > lo && end > mid) {
        stack.push_back(SetTask{right, mid, end, a, b});
        node = left;
        hi = mid;
      } else if (mid > lo) {
        node = left;
        hi = mid;
      } else if (end > mid) {
        node = right;
        lo = mid;
        hi = end;
      } else {
        break;
      }
    }
  }
}

// A leaf's contribution to weighted difference arrays over the grid: the
// weights w of the rows reaching it times its values, added at a and taken
// off at b (diff[g * K + k]); rows that cannot be routed (node -1) are
// counted in nan[] the same way.
struct WeightedLeaf {
  const Forest& F;
  const double* w;
  double* diff;
  int* nan;
  bool any_nan = false;
  void operator()(int node, const int* rows, int cnt, int a, int b) {
    if (node < 0) {
      nan[a] += cnt;
      nan[b] -= cnt;
      any_nan = true;
      return;
    }
    double W = 0.0;
    for (int r = 0; r < cnt; ++r) W += w[rows[r]];
    const int K = F.n_outputs;
    for (int k = 0; k < K; ++k) {
      const double v = W * F.leaf_value(node, k);
      diff[static_cast<std::size_t>(a) * K + k] += v;
      diff[static_cast<std::size_t>(b) * K + k] -= v;
    }
  }
};

// ICE sums of a block: per row a difference array over the G + 1
// boundaries of the sorted grid per output (diff[((i * (G + 1)) + g) * K +
// k]), and per row a count of unroutable walks (nan, the same layout
// without K), used only when `any_nan`.
struct IceSums {
  std::vector<double> diff;
  std::vector<int> nan;
  bool any_nan = false;
};

// Fill `acc` with the ICE sums of the block's rows, all trees.
template <typename S>
inline void ice_block_sums(const Forest& F, const RowBlock& blk, int j, const SortedGrid& s,
                           SetScratch& sc, IceSums& acc) {
  const int B = blk.B, G = static_cast<int>(s.z.size()), K = F.n_outputs;
  const std::size_t stride = static_cast<std::size_t>(G + 1) * K;
  acc.diff.assign(stride * B, 0.0);
  acc.any_nan = false;
  sc.reset(B);
  double* diff = acc.diff.data();
  auto mark_nan = [&](const int* rows, int cnt, int a, int b) {
    if (!acc.any_nan) {
      acc.nan.assign(static_cast<std::size_t>(G + 1) * B, 0);
      acc.any_nan = true;
    }
    for (int r = 0; r < cnt; ++r) {
      int* c = acc.nan.data() + static_cast<std::size_t>(rows[r]) * (G + 1);
      ++c[a];
      --c[b];
    }
  };
  for (int t = 0; t < F.n_trees; ++t) {
    if (K == 1) {
      set_walk_tree<S>(F, F.roots[t], blk, j, s.z.data(), G, s.nn, sc,
                       [&](int node, const int* rows, int cnt, int a, int b) {
                         if (node < 0) return mark_nan(rows, cnt, a, b);
                         const double v = F.nodes[node].threshold;
                         for (int r = 0; r < cnt; ++r) {
                           double* d = diff + static_cast<std::size_t>(rows[r]) * stride;
                           d[a] += v;
                           d[b] -= v;
                         }
                       });
    } else {
      set_walk_tree<S>(F, F.roots[t], blk, j, s.z.data(), G, s.nn, sc,
                       [&](int node, const int* rows, int cnt, int a, int b) {
                         if (node < 0) return mark_nan(rows, cnt, a, b);
                         const double* v = F.leaf_values + static_cast<std::size_t>(F.nodes[node].right) * K;
                         for (int r = 0; r < cnt; ++r) {
                           double* d = diff + static_cast<std::size_t>(rows[r]) * stride;
                           for (int k = 0; k < K; ++k) {
                             d[a * K + k] += v[k];
                             d[b * K + k] -= v[k];
                           }
                         }
                       });
    }
  }
}

// Row i's prediction at each sorted grid point from its ICE sums: calls
// put(g, s) with the K sums s of sorted point g, ready for finish().
template <typename Put>
inline void ice_row_sums(const Forest& F, const IceSums& acc, int i, int G, Put&& put) {
  const int K = F.n_outputs;
  const std::size_t stride = static_cast<std::size_t>(G + 1) * K;
  const double* d = acc.diff.data() + static_cast<std::size_t>(i) * stride;
  const int* c = acc.any_nan ? acc.nan.data() + static_cast<std::size_t>(i) * (G + 1) : nullptr;
  // The initial sums, the running sums, and their total.
  std::vector<double> buf(3 * static_cast<std::size_t>(K), 0.0);
  double* s0 = buf.data();
  double* s = s0 + K;
  double* o = s + K;
  init_sums(F, s0);
  int bad = 0;
  for (int g = 0; g < G; ++g) {
    for (int k = 0; k < K; ++k) {
      s[k] += d[static_cast<std::size_t>(g) * K + k];
      o[k] = s0[k] + s[k];
    }
    if (c != nullptr) bad += c[g];
    if (bad > 0) o[0] = std::numeric_limits<double>::quiet_NaN();
    put(g, o);
  }
}

// ICE curves of the design's rows [begin, end) with feature j over the
// sorted grid s, in blocks of `block` rows: grid point g (the grid's own
// order) of row r, output k, to out[r * G + g + k * stride].
inline void set_ice_range(const Forest& F, const Design& D, int j, const SortedGrid& s,
                          std::size_t begin, std::size_t end, std::size_t block, double* out,
                          std::size_t stride) {
  const int G = static_cast<int>(s.z.size());
  RowBlock blk;
  SetScratch sc;
  IceSums acc;
  with_rules(F, [&](auto step) {
    using S = decltype(step);
    for (std::size_t r0 = begin; r0 < end; r0 += block) {
      const std::size_t r1 = std::min(end, r0 + block);
      gather_block(D, r0, r1, blk);
      ice_block_sums<S>(F, blk, j, s, sc, acc);
      for (int i = 0; i < blk.B; ++i) {
        double* o = out + (r0 + i) * static_cast<std::size_t>(G);
        ice_row_sums(F, acc, i, G, [&](int g, const double* sums) {
          finish(F, sums, o + s.pos[g], stride);
        });
      }
    }
  });
}

// Weighted sums over a block's rows of their predictions at each grid
// point (G x K, sorted grid order, sums[g * K + k]), and the count of rows
// whose prediction is missing there (nan[g]).
struct PdSums {
  std::vector<double> sums;
  std::vector<int> nan;
  long long visits = 0;
};

// Partial-dependence sums of a block (weights w[i] of its rows). A model
// with the identity transform needs one difference array for the block
// (its leaves times the weights of the rows reaching them); any other
// transform is not linear in the sums, so each row's curve is finished
// first (ice_block_sums()).
template <typename S>
inline void pd_block_sums(const Forest& F, const RowBlock& blk, const double* w, int j,
                          const SortedGrid& s, SetScratch& sc, IceSums& ice, PdSums& out) {
  const int B = blk.B, G = static_cast<int>(s.z.size()), K = F.n_outputs;
  out.sums.assign(static_cast<std::size_t>(G) * K, 0.0);
  out.nan.assign(G, 0);
  if (F.transform != TR_IDENTITY) {
    ice_block_sums<S>(F, blk, j, s, sc, ice);
    std::vector<double> pred(K);
    for (int i = 0; i < B; ++i) {
      const double wi = w[i];
      ice_row_sums(F, ice, i, G, [&](int g, const double* sums) {
        finish(F, sums, pred.data(), 1);
        for (int k = 0; k < K; ++k) out.sums[static_cast<std::size_t>(g) * K + k] += wi * pred[k];
      });
    }
    return;
  }
  std::vector<double> diff(static_cast<std::size_t>(G + 1) * K, 0.0);
  std::vector<int> nan(G + 1, 0);
  sc.reset(B);
  double wsum = 0.0;
  for (int i = 0; i < B; ++i) wsum += w[i];
  WeightedLeaf leaf{F, w, diff.data(), nan.data()};
  for (int t = 0; t < F.n_trees; ++t) set_walk_tree<S>(F, F.roots[t], blk, j, s.z.data(), G, s.nn, sc, leaf);
  const bool any_nan = leaf.any_nan;
  // sum_i w_i (sum_t leaf / T + base) for a mean of trees, sum_i w_i (base
  // + sum_t leaf) for a sum.
  std::vector<double> run(K, 0.0);
  int bad = 0;
  for (int g = 0; g < G; ++g) {
    bad += nan[g];
    out.nan[g] = any_nan ? bad : 0;
    for (int k = 0; k < K; ++k) {
      run[k] += diff[static_cast<std::size_t>(g) * K + k];
      const double tot = F.aggregate == AGG_MEAN ? run[k] / static_cast<double>(F.n_trees)
                                                 : run[k];
      out.sums[static_cast<std::size_t>(g) * K + k] = tot + wsum * F.base[k];
    }
  }
}

// Rows per block of the set walk. Blocks depend on the number of rows only
// (never on the threads: partial dependence sums each block on its own and
// adds the blocks in order, so the numbers do not depend on the threads).
// Up to 4,096 rows (more rows per node visit), and 1 MB of ICE sums; at
// least 8 blocks of 64 rows or more where there are that many rows.
inline std::size_t set_block(int G, int K, std::size_t n, bool ice) {
  std::size_t block = 4096;
  if (ice) {
    const std::size_t per_row = static_cast<std::size_t>(G + 1) * K * sizeof(double);
    block = std::min(block, std::max<std::size_t>(64, (std::size_t(1) << 20) / per_row));
  }
  block = std::min(block, std::max<std::size_t>(64, (n + 7) / 8));
  return std::max<std::size_t>(1, std::min(block, std::max<std::size_t>(n, 1)));
}


// ---- Two free features: the walk over a set of points ----------------------

// Points (z1[q], z2[q]) of two free features j1 and j2 (codes; NaN a
// missing value), q = 0..P-1, for the walk of a set of points: a product
// grid of 2-D PD, or the pairs of values that occur of the H-statistics.
struct PointSet {
  const double* z1;
  const double* z2;
  int P;
};

// A pending part of a walk over rows and points: rows idx[lo, hi) and points
// pidx[plo, phi) at `node`.
struct PointTask {
  int node, lo, hi, plo, phi;
};

// Scratch of one thread for set_walk_points().
struct PointScratch {
  std::vector<int> idx, tmp, pidx, ptmp;
  std::vector<PointTask> stack;
  long long visits = 0;
  void reset(int B, int P) {
    idx.resize(B);
    tmp.resize(B);
    pidx.resize(P);
    ptmp.resize(P);
    for (int i = 0; i < B; ++i) idx[i] = i;
    for (int q = 0; q < P; ++q) pidx[q] = q;
  }
};

// Walk the rows of block `blk` and the points `pts` down the tree rooted at
// `root`, features j1 and j2 free: at a split on one of them the points
// are partitioned and the rows go to both children, at any other split the
// rows are partitioned and the points go to both. leaf(node, rows, cnt,
// points, pcnt) for each leaf reached (node -1: unroutable).
template <typename Leaf>
inline void set_walk_points(const Forest& F, int root, const RowBlock& blk, int j1, int j2,
                            const PointSet& pts, PointScratch& sc, Leaf&& leaf) {
  int* idx = sc.idx.data();
  int* pidx = sc.pidx.data();
  const int B = blk.B;
  const double* cols = blk.cols.data();
  std::vector<PointTask>& stack = sc.stack;
  stack.clear();
  stack.push_back(PointTask{root, 0, B, 0, pts.P});
  while (!stack.empty()) {
    const PointTask t = stack.back();
    stack.pop_back();
    int node = t.node, lo = t.lo, hi = t.hi, plo = t.plo, phi = t.phi;
    for (;;) {
      sc.visits += hi - lo;
      if (node < 0 || F.nodes[node].feature < 0) {
        leaf(node, idx + lo, hi - lo, pidx + plo, phi - plo);
        break;
      }
      const Node& d = F.nodes[node];
      const int f = d.feature & ~CAT_FLAG;
      const bool on_points = f == j1 || f == j2;
      int* ix = on_points ? pidx : idx;
      int& a = on_points ? plo : lo;
      int& b = on_points ? phi : hi;
      const double* x = on_points ? (f == j1 ? pts.z1 : pts.z2) : cols + static_cast<std::size_t>(f) * B;
      int mid, end;
      partition_at(F, node, d, x, ix, a, b, on_points ? sc.ptmp.data() : sc.tmp.data(), mid, end);
      if (end < b) {
        PointTask third{missing_child(F, node), lo, hi, plo, phi};
        (on_points ? third.plo : third.lo) = end;
        (on_points ? third.phi : third.hi) = b;
        stack.push_back(third);
      }
      if (mid > a && end > mid) {
        PointTask rt{d.right, lo, hi, plo, phi};
        (on_points ? rt.plo : rt.lo) = mid;
        (on_points ? rt.phi : rt.hi) = end;
        stack.push_back(rt);
        node = node + 1;
        b = mid;
      } else if (mid > a) {
        node = node + 1;
        b = mid;
      } else if (end > mid) {
        node = d.right;
        a = mid;
        b = end;
      } else {
        break;
      }
    }
  }
}

// The predictions of a block's rows at the points (features j1 and j2 set
// to each point): row i's point q, output k, finished, to
// out[(r0 + i) * P + q + k * stride], and, when w is given, their weighted
// sums over the rows added to sums[q * K + k] (nan[q] counting missing
// ones) instead. acc: scratch of B x P x K sums.
inline void points_block(const Forest& F, const RowBlock& blk, int j1, int j2, const PointSet& pts,
                         PointScratch& sc, std::vector<double>& acc, double* out, std::size_t r0,
                         std::size_t stride, const double* w, double* sums) {
  const int B = blk.B, P = pts.P, K = F.n_outputs;
  const std::size_t per_row = static_cast<std::size_t>(P) * K;
  const double nanv = std::numeric_limits<double>::quiet_NaN();
  sc.reset(B, P);
  if (w != nullptr && F.transform == TR_IDENTITY) {
    // The sums of the rows reaching a leaf, times its value, to its points.
    std::vector<double> tot(per_row, 0.0);
    double wsum = 0.0;
    for (int i = 0; i < B; ++i) wsum += w[i];
    for (int t = 0; t < F.n_trees; ++t) {
      set_walk_points(F, F.roots[t], blk, j1, j2, pts, sc,
                      [&](int node, const int* rows, int cnt, const int* ps, int pcnt) {
                        double W = 0.0;
                        for (int r = 0; r < cnt; ++r) W += w[rows[r]];
                        for (int k = 0; k < K; ++k) {
                          const double v = node < 0 ? nanv : W * F.leaf_value(node, k);
                          for (int u = 0; u < pcnt; ++u) tot[static_cast<std::size_t>(ps[u]) * K + k] += v;
                        }
                      });
    }
    for (int q = 0; q < P; ++q)
      for (int k = 0; k < K; ++k) {
        const double v = tot[static_cast<std::size_t>(q) * K + k];
        sums[static_cast<std::size_t>(q) * K + k] +=
            (F.aggregate == AGG_MEAN ? v / static_cast<double>(F.n_trees) : v) + wsum * F.base[k];
      }
    return;
  }
  acc.resize(per_row * B);
  for (std::size_t c = 0; c < per_row * B; c += K) init_sums(F, acc.data() + c);
  for (int t = 0; t < F.n_trees; ++t) {
    set_walk_points(F, F.roots[t], blk, j1, j2, pts, sc,
                    [&](int node, const int* rows, int cnt, const int* ps, int pcnt) {
                      for (int r = 0; r < cnt; ++r) {
                        double* a = acc.data() + static_cast<std::size_t>(rows[r]) * per_row;
                        for (int k = 0; k < K; ++k) {
                          const double v = node < 0 ? nanv : F.leaf_value(node, k);
                          for (int u = 0; u < pcnt; ++u) a[static_cast<std::size_t>(ps[u]) * K + k] += v;
                        }
                      }
                    });
  }
  std::vector<double> pred(K);
  for (int i = 0; i < B; ++i) {
    for (int q = 0; q < P; ++q) {
      const double* s = acc.data() + static_cast<std::size_t>(i) * per_row + static_cast<std::size_t>(q) * K;
      if (w == nullptr) {
        finish(F, s, out + (r0 + i) * static_cast<std::size_t>(P) + q, stride);
      } else {
        finish(F, s, pred.data(), 1);
        for (int k = 0; k < K; ++k) sums[static_cast<std::size_t>(q) * K + k] += w[i] * pred[k];
      }
    }
  }
}

// Rows per block of the walk over points: their B x P x K sums in 1 MB,
// 16 rows at least; as set_block(), a function of the rows only.
inline std::size_t points_block_rows(int P, int K, std::size_t n) {
  const std::size_t per_row = static_cast<std::size_t>(std::max(P, 1)) * K * sizeof(double);
  std::size_t block = std::min<std::size_t>(4096, std::max<std::size_t>(16, (std::size_t(1) << 20) / per_row));
  block = std::min(block, std::max<std::size_t>(16, (n + 7) / 8));
  return std::max<std::size_t>(1, std::min(block, std::max<std::size_t>(n, 1)));
}

}  // namespace mp

#endif
