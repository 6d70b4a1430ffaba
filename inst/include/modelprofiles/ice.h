// ICE curves of a packed tree ensemble in one walk per tree and row: a row
// with one feature j left free over a sorted grid z_0 <= ... <= z_{G-1}
// walks each tree once, carrying the range of grid points still possible
// (split at each split on j by the same predicate that routes a single
// value), and each reachable leaf adds its value to the grid points of its
// range. R-free.
//
// The numbers equal predict_rows() (predict.h) on the stacked rows bit for
// bit: each grid point receives exactly one leaf value per tree (the leaves'
// ranges partition the grid), the trees are added in the same order (trees
// are the outer loop in both) starting from the same initial value, the
// split decisions use the same predicate functions, and the same finish()
// turns the sums into predictions.
#ifndef MODELPROFILES_ICE_H
#define MODELPROFILES_ICE_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "forest.h"
#include "predict.h"

namespace mp {

// A node with the range [a, b) of grid points that reach it.
struct Frame {
  int node, a, b;
};

// Scratch of one worker for ice_rows().
struct IceScratch {
  std::vector<double> acc;  // B x G x n_outputs, acc[(b * G + g) * K + k]
  std::vector<Frame> stack;
};

// One row's walk of one tree with feature j free over the sorted grid
// z[0..G) (the first nn values numbers, the rest NaN; j = -1: no feature is
// free, and the whole grid reaches one leaf).
struct Walk {
  const double* row;
  std::vector<Frame>* stack;
  int node, a, b;
  bool live;
};

// Advance a walk by one node: at an inner node, route its range of grid
// points (pushing the parts that go elsewhere); at a leaf (or -1, an
// unroutable value), call leaf(node, a, b) for its range [a, b) and take
// the next pending part, if any. The leaves' ranges partition the grid, so
// every grid point meets exactly one leaf per tree.
template <typename Leaf>
MP_INLINE void walk_step(const Forest& F, Walk& w, int j, const double* z, int nn, Leaf& leaf) {
  const int node = w.node;
  if (node >= 0 && F.nodes[node].feature >= 0) {
    const Node& d = F.nodes[node];
    const int f = d.feature & ~CAT_FLAG;
    if (f != j) {
      w.node = child_of(F, node, d, w.row[f]);
      return;
    }
    int a = w.a, b = w.b;
    // A split on the free feature: [a, c) are numbers, [c, b) NaN.
    const int c = std::max(a, std::min(b, nn));
    if (c < b) {
      if (c == a) {
        w.node = missing_child(F, node);
        return;
      }
      w.stack->push_back(Frame{missing_child(F, node), c, b});
      b = c;
    }
    if (!(d.feature & CAT_FLAG)) {
      const double thr = d.threshold;
      const int rule = F.rule;
      const bool f32 = F.float32;
      const double* m = std::partition_point(
          z + a, z + b, [thr, rule, f32](double x) { return goes_left_numeric(x, thr, rule, f32); });
      const int mi = static_cast<int>(m - z);
      if (mi == b) {
        w.node = node + 1;
      } else if (mi == a) {
        w.node = d.right;
      } else {
        w.stack->push_back(Frame{d.right, mi, b});
        w.node = node + 1;
        b = mi;
      }
    } else {
      // Categorical: runs of grid points going the same way.
      int s = a;
      bool dir = goes_left_categorical(F, node, z[a]);
      for (int g = a + 1; g < b; ++g) {
        const bool dg = goes_left_categorical(F, node, z[g]);
        if (dg != dir) {
          w.stack->push_back(Frame{dir ? node + 1 : d.right, s, g});
          s = g;
          dir = dg;
        }
      }
      w.node = dir ? node + 1 : d.right;
      a = s;
    }
    w.a = a;
    w.b = b;
    return;
  }
  // A leaf (or -1: unroutable).
  leaf(node, w.a, w.b);
  if (w.stack->empty()) {
    w.live = false;
    return;
  }
  const Frame fr = w.stack->back();
  w.stack->pop_back();
  w.node = fr.node;
  w.a = fr.a;
  w.b = fr.b;
}

// ICE curves of B rows (row-major feature values rows[b * p + f]) over the
// sorted grid z (first nn values numbers, the rest NaN): the prediction of
// row b at sorted grid point g, output k, is written to
// out[b * G + pos[g] + k * stride] (pos maps sorted grid positions to output
// positions).
inline void ice_rows(const Forest& F, const double* rows, int B, int p, int j, const double* z,
                     int G, int nn, const int* pos, double* out, std::size_t stride,
                     IceScratch& sc) {
  const int K = F.n_outputs;
  const std::size_t per_row = static_cast<std::size_t>(G) * K;
  sc.acc.resize(per_row * B);
  double* acc = sc.acc.data();
  for (std::size_t c = 0; c < per_row * B; c += K) init_sums(F, acc + c);
  // One row at a time, not in lockstep as in predict_rows(): these walks are
  // not bound by memory latency alone, and lockstep does not pay off here.
  for (int t = 0; t < F.n_trees; ++t) {
    for (int b = 0; b < B; ++b) {
      sc.stack.clear();
      double* row_acc = acc + per_row * b;
      // The leaf's value (NaN when unroutable) added to its range.
      auto add = [&F, K, row_acc](int node, int a, int e) {
        if (node < 0) {
          const double nan = std::numeric_limits<double>::quiet_NaN();
          for (int g = a; g < e; ++g)
            for (int k = 0; k < K; ++k) row_acc[static_cast<std::size_t>(g) * K + k] += nan;
        } else if (K == 1) {
          const double v = F.nodes[node].threshold;
          for (int g = a; g < e; ++g) row_acc[g] += v;
        } else {
          for (int k = 0; k < K; ++k) {
            const double v = F.leaf_value(node, k);
            for (int g = a; g < e; ++g) row_acc[static_cast<std::size_t>(g) * K + k] += v;
          }
        }
      };
      Walk w{rows + static_cast<std::size_t>(b) * p, &sc.stack, F.roots[t], 0, G, true};
      while (w.live) walk_step(F, w, j, z, nn, add);
    }
  }
  for (int b = 0; b < B; ++b)
    for (int g = 0; g < G; ++g)
      finish(F, acc + per_row * b + static_cast<std::size_t>(g) * K,
             out + static_cast<std::size_t>(b) * G + pos[g], stride);
}

// A grid in the order ice_rows() reads it: the values ascending, NaN (a
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

// Rows per block of ice_range(): their sums (G x n_outputs each) fit in 1 MB
// (larger blocks read the trees fewer times), their feature values in 2 MB,
// and each of `threads` threads gets a block of the n rows at least.
inline std::size_t ice_block(int p, int G, int n_outputs, std::size_t n, int threads) {
  const std::size_t pp = static_cast<std::size_t>(std::max(p, 1));
  const std::size_t nt = static_cast<std::size_t>(std::max(threads, 1));
  const std::size_t per_row = static_cast<std::size_t>(std::max(G, 1)) * n_outputs * sizeof(double);
  std::size_t block = std::max<std::size_t>(1, (std::size_t(1) << 20) / per_row);
  block = std::min(block, std::max<std::size_t>(1, 262144 / pp));
  block = std::min(block, (n + nt - 1) / nt);
  return std::max<std::size_t>(block, 1);
}

// ICE curves of the design's rows [begin, end) (D without replaced
// features) with feature j over the grid s, in blocks of `block` rows: grid
// point g (in the grid's own order) of row r, output k, to
// out[r * G + g + k * stride].
inline void ice_range(const Forest& F, const Design& D, int j, const SortedGrid& s,
                      std::size_t begin, std::size_t end, std::size_t block, double* out,
                      std::size_t stride) {
  const int G = static_cast<int>(s.z.size());
  std::vector<double> rows(block * D.p);
  IceScratch sc;
  for (std::size_t r0 = begin; r0 < end; r0 += block) {
    const std::size_t r1 = std::min(end, r0 + block);
    design_rows(D, r0, r1, rows.data());
    ice_rows(F, rows.data(), static_cast<int>(r1 - r0), D.p, j, s.z.data(), G, s.nn,
             s.pos.data(), out + r0 * static_cast<std::size_t>(G), stride, sc);
  }
}

}  // namespace mp

#endif
