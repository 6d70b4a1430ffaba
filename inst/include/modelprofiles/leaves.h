// Predictions of stacked rows from the leaves of their source rows. A
// stacked row is a background row i with (at most) one feature j set to a
// value v; the leaves every tree gives each background row are computed once
// (leaf_rows(), predict.h) and kept. In tree t, the values of feature j that
// keep row i's other features on the path to its leaf are an interval (the
// "box" of the leaf in j, from the splits on j along the path: v must go the
// way the path goes at each of them), so a stacked row whose v lies in its
// source row's box ends in that same leaf; only the others walk the tree.
// For interval AL, where v is an edge of the interval holding x_ij, that is
// a few percent of the rows. R-free.
//
// The numbers equal predict_rows() on the stacked rows bit for bit: a row
// gets the same leaf in every tree (the box is the set of values taking the
// same path, decided by the same predicate), the trees are added in order
// (trees are the outer loop: the rows that walk add their leaf in the same
// tree), from the same initial value, and finish() is the same.
#ifndef MODELPROFILES_LEAVES_H
#define MODELPROFILES_LEAVES_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "forest.h"
#include "predict.h"

namespace mp {

// The largest number of nodes of a tree.
inline int max_tree_nodes(const Forest& F) {
  int m = 0;
  for (int t = 0; t < F.n_trees; ++t) m = std::max(m, F.roots[t + 1] - F.roots[t]);
  return m;
}

// The box in feature j of every node of tree t: node u (packed index) is
// reached by the values v with !left(v, lo[u - root]) && left(v, hi[u -
// root]) when the splits on other features go the way the path goes. Nodes
// reached otherwise (under a categorical split on j, or a missing child that
// is neither child) get the empty box (lo = +inf, hi = -inf), which no value
// satisfies (a row there walks). The packing puts a parent before its
// children, so one pass in index order suffices; a node has one parent.
inline void tree_boxes(const Forest& F, int t, int j, double* lo, double* hi) {
  const double inf = std::numeric_limits<double>::infinity();
  const int root = F.roots[t], end = F.roots[t + 1];
  for (int u = 0; u < end - root; ++u) {
    lo[u] = inf;
    hi[u] = -inf;
  }
  lo[0] = -inf;
  hi[0] = inf;
  for (int u = root; u < end; ++u) {
    const Node& d = F.nodes[u];
    if (d.feature < 0) continue;
    const int k = u - root, l = k + 1, r = d.right - root;
    const double a = lo[k], b = hi[k];
    if ((d.feature & ~CAT_FLAG) != j) {
      lo[l] = a;
      hi[l] = b;
      lo[r] = a;
      hi[r] = b;
    } else if (d.feature & CAT_FLAG) {
      continue;
    } else if (r == l) {
      lo[l] = a;
      hi[l] = b;
    } else {
      lo[l] = a;
      hi[l] = std::min(b, d.threshold);
      lo[r] = std::max(a, d.threshold);
      hi[r] = b;
    }
  }
}

// Scratch of one worker of predict_cached().
struct CachedScratch {
  std::vector<double> lo, hi, sums, rows;
  std::vector<int> queue;
};

// Predictions of the design's rows [begin, end) (D.js of length 0 or 1;
// D.src rows of D.X) from `leaves` (tree t's leaf of row i of D.X at
// leaves[i + t * D.n], as leaf_rows() gives them for all rows of D.X):
// output k of row r to out[r + k * stride].
inline void predict_cached(const Forest& F, const Design& D, const int* leaves,
                           std::size_t begin, std::size_t end, double* out, std::size_t stride,
                           CachedScratch& S) {
  if (end <= begin) return;
  const std::size_t m = end - begin, K = static_cast<std::size_t>(F.n_outputs);
  const std::size_t p = static_cast<std::size_t>(D.p);
  const int j = D.js.empty() ? -1 : D.js[0];
  const double* v = D.js.empty() ? nullptr : D.vals[0];
  S.sums.resize(m * K);
  for (std::size_t r = 0; r < m; ++r) init_sums(F, S.sums.data() + r * K);
  if (j >= 0) {
    const std::size_t mt = static_cast<std::size_t>(max_tree_nodes(F));
    S.lo.resize(mt);
    S.hi.resize(mt);
  }
  with_rules(F, [&](auto step) {
    using St = decltype(step);
    for (int t = 0; t < F.n_trees; ++t) {
      const int* lt = leaves + static_cast<std::size_t>(t) * D.n;
      if (j < 0) {
        // The rows are background rows as they are.
        for (std::size_t r = begin; r < end; ++r)
          add_leaf(F, lt[D.src[r]], S.sums.data() + (r - begin) * K);
        continue;
      }
      const int root = F.roots[t];
      tree_boxes(F, t, j, S.lo.data(), S.hi.data());
      const double* lo = S.lo.data();
      const double* hi = S.hi.data();
      S.queue.clear();
      for (std::size_t r = begin; r < end; ++r) {
        const int c = lt[D.src[r]];
        const double x = v[r];
        if (c >= 0 && !std::isnan(x) && St::left(x, hi[c - root]) && !St::left(x, lo[c - root])) {
          add_leaf(F, c, S.sums.data() + (r - begin) * K);
        } else {
          S.queue.push_back(static_cast<int>(r - begin));
        }
      }
      if (S.queue.empty()) continue;
      // The other rows walk the tree.
      const std::size_t q = S.queue.size();
      S.rows.resize(q * p);
      for (std::size_t b = 0; b < q; ++b) {
        const std::size_t r = begin + static_cast<std::size_t>(S.queue[b]);
        const std::size_t i = static_cast<std::size_t>(D.src[r]);
        double* row = S.rows.data() + b * p;
        for (std::size_t f = 0; f < p; ++f) row[f] = D.cols[f][i];
        row[j] = v[r];
      }
      walk_tree<St>(F, root, S.rows.data(), p, static_cast<int>(q), [&](int b, int leaf) {
        add_leaf(F, leaf, S.sums.data() + static_cast<std::size_t>(S.queue[b]) * K);
      });
    }
  });
  for (std::size_t r = begin; r < end; ++r) finish(F, S.sums.data() + (r - begin) * K, out + r, stride);
}

// Rows per range of predict_cached(): a range computes every tree's boxes
// once, so it holds several times a tree's nodes; each of `threads` threads
// gets a range of the m rows at least.
inline std::size_t cached_block(const Forest& F, std::size_t m, int threads) {
  const std::size_t nt = static_cast<std::size_t>(std::max(threads, 1));
  const std::size_t block = std::max<std::size_t>(4096, 4 * static_cast<std::size_t>(max_tree_nodes(F)));
  return std::max<std::size_t>(1, std::min(block, (m + nt - 1) / nt));
}

}  // namespace mp

#endif
