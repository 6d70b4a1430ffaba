// R-free core of the native tree-ensemble engine.
//
// A compiled tree ensemble (the flat format of the `mp_native` list: see
// tools/native-spec.md and R/native.R) is viewed through plain pointers (Forest),
// checked (check_forest) and packed (pack_forest) into 16-byte nodes in
// depth-first order, the left child right after its parent, so that a walk
// down a tree reads few cache lines. RcppParallel workers then evaluate it
// from any thread. Two paths compute predictions:
//
// * predict_rows(): each row walks every tree to its leaf;
// * ice_rows(): a row with one feature j left free over a sorted grid
//   z_0 <= ... <= z_{G-1}: each tree is walked once, carrying the range of
//   grid points still possible (split at each split on j by the same
//   predicate that routes a single value), and each reachable leaf adds its
//   value to the grid points of its range.
//
// The two paths give bit-identical numbers: each grid point receives exactly
// one leaf value per tree (the leaves' ranges partition the grid), the trees
// are added in the same order (trees are the outer loop in both) starting
// from the same initial value, the split decisions use the same predicate
// functions, and the same finish() turns the sums into predictions. Both
// loops visit a block of rows tree by tree (a tree's nodes are read from
// memory once per block), and predict_rows() walks several rows in lockstep
// (their memory reads overlap); neither changes the order of any row's
// additions.
#ifndef MODELPROFILES_ENSEMBLE_H
#define MODELPROFILES_ENSEMBLE_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#if defined(__GNUC__)
#define MP_INLINE inline __attribute__((always_inline))
#else
#define MP_INLINE inline
#endif

namespace mp {

enum Aggregate { AGG_MEAN = 0, AGG_SUM = 1 };
enum Transform { TR_IDENTITY = 0, TR_LOGISTIC = 1, TR_EXP = 2, TR_SOFTMAX = 3 };

// A packed node. Inner node: `feature` (with CAT_FLAG set for a categorical
// split), `threshold`, the right child (the left child is the next node).
// Leaf: feature = -1, and `threshold` its value when the model has one
// output, else `right` the leaf's number (its values in Packed::leaf_values).
struct Node {
  double threshold;
  int feature;
  int right;
};
const int CAT_FLAG = 1 << 30;

// What a packed inner node needs besides Node, only when its value is missing
// or its split categorical: the missing child (packed index, or -1) and the
// categorical split's range of cat_left.
struct Aux {
  int missing, cat_start, cat_len;
};

// Everything the evaluation loops read (owned): the packed nodes, their
// auxiliary table (`aux` is empty when no node needs it), the trees' first
// packed nodes, the categorical tables and, for models of more than one
// output, the leaf values (n_outputs per leaf, indexed by the leaf's
// `right`). pack_forest() fills it from the flat arrays; a converter may also
// fill it directly (pack_ranger() in ensemble.cpp).
struct Packed {
  std::vector<Node> nodes;
  std::vector<int> aux;
  std::vector<Aux> table;
  std::vector<int> tree_start;  // n_trees + 1
  std::vector<int> cat_left;    // 0/1
  std::vector<double> leaf_values;
};

// A view of the flat arrays (read by check_forest() and pack_forest()) and
// of a packing (read by the evaluation loops); no ownership. Node indices of
// the flat arrays are global and 0-based; value is column-major n_nodes x
// n_outputs. Packed indices keep each tree within its range
// [roots[t], roots[t + 1]), the root first.
struct Forest {
  int n_trees = 0;
  int n_nodes = 0;
  int n_outputs = 1;
  int n_features = 0;
  // The flat arrays.
  const int* tree_start = nullptr;  // n_trees + 1
  const int* feature = nullptr;     // -1 at a leaf
  const double* threshold = nullptr;
  const int* left = nullptr;
  const int* right = nullptr;
  const int* missing = nullptr;     // -1: a missing value gives NA
  const int* cat_start = nullptr;   // -1: numeric split
  const int* cat_len = nullptr;
  const int* cat_left = nullptr;    // 0/1
  int n_cat = 0;                    // length of cat_left
  const double* value = nullptr;
  // The model's rules.
  const double* base = nullptr;     // n_outputs
  int rule = 0;                     // 0: left iff x <= t; 1: left iff x < t
  bool float32 = false;
  Aggregate aggregate = AGG_MEAN;
  Transform transform = TR_IDENTITY;
  double na = std::numeric_limits<double>::quiet_NaN();  // the NA to return
  // The packing (see Packed).
  const Node* nodes = nullptr;
  const int* aux = nullptr;  // nullptr: no missing children, no categorical splits
  const Aux* table = nullptr;
  const int* roots = nullptr;
  const int* cats = nullptr;
  const double* leaf_values = nullptr;

  // Value k of the leaf at packed index `node`.
  double leaf_value(int node, int k) const {
    return n_outputs == 1
               ? nodes[node].threshold
               : leaf_values[static_cast<std::size_t>(nodes[node].right) * n_outputs + k];
  }
  void use(const Packed& P) {
    nodes = P.nodes.data();
    aux = P.aux.empty() ? nullptr : P.aux.data();
    table = P.table.data();
    roots = P.tree_start.data();
    cats = P.cat_left.data();
    leaf_values = P.leaf_values.data();
    n_trees = static_cast<int>(P.tree_start.size()) - 1;
    n_nodes = static_cast<int>(P.nodes.size());
  }
};

// Full structural check of the flat arrays: feature and child indices within
// the node's tree, categorical ranges within cat_left, and every node of a
// tree reached from its root by one path at most (no cycles, so every walk
// ends). Returns "" when valid, else a description of the first problem.
inline std::string check_forest(const Forest& F) {
  if (F.n_trees < 1) return "no trees";
  if (F.n_outputs < 1) return "no outputs";
  if (F.n_features >= CAT_FLAG) return "too many features";
  if (F.tree_start[0] != 0 || F.tree_start[F.n_trees] != F.n_nodes)
    return "tree_start does not cover the nodes";
  std::vector<unsigned char> seen(F.n_nodes, 0);
  std::vector<int> stack;
  for (int t = 0; t < F.n_trees; ++t) {
    const int lo = F.tree_start[t], hi = F.tree_start[t + 1];
    if (hi <= lo) return "tree " + std::to_string(t + 1) + " has no nodes";
    for (int n = lo; n < hi; ++n) {
      const int f = F.feature[n];
      if (f < 0) continue;
      if (f >= F.n_features) return "feature index out of range at node " + std::to_string(n);
      const int ch[3] = {F.left[n], F.right[n], F.missing[n]};
      for (int q = 0; q < 3; ++q) {
        if (q == 2 && ch[q] == -1) continue;
        if (ch[q] < lo || ch[q] >= hi)
          return "child index outside its tree at node " + std::to_string(n);
      }
      if (F.cat_start[n] >= 0) {
        if (F.cat_len[n] < 0 ||
            static_cast<long long>(F.cat_start[n]) + F.cat_len[n] > F.n_cat)
          return "categorical split outside cat_left at node " + std::to_string(n);
      } else if (std::isnan(F.threshold[n])) {
        return "missing threshold at node " + std::to_string(n);
      }
    }
    stack.assign(1, lo);
    seen[lo] = 1;
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (F.feature[n] < 0) continue;
      const int ch[3] = {F.left[n], F.right[n], F.missing[n]};
      for (int q = 0; q < 3; ++q) {
        const int c = ch[q];
        if (c < 0) continue;
        bool dup = false;
        for (int p = 0; p < q; ++p) dup = dup || ch[p] == c;
        if (dup) continue;
        if (seen[c]) return "node " + std::to_string(c) + " is reached twice (not a tree)";
        seen[c] = 1;
        stack.push_back(c);
      }
    }
  }
  return "";
}

// Pack a forest that passed check_forest(): depth-first order within each
// tree (left subtree, right subtree, then a separate missing subtree); nodes
// unreachable from the root become inert leaves at the end of the tree.
inline void pack_forest(const Forest& F, Packed& P) {
  P.nodes.assign(F.n_nodes, Node{0.0, -1, -1});
  P.aux.clear();
  P.table.clear();
  P.tree_start.assign(F.tree_start, F.tree_start + F.n_trees + 1);
  P.cat_left.assign(F.cat_left, F.cat_left + F.n_cat);
  P.leaf_values.clear();
  bool need_aux = false;
  for (int u = 0; u < F.n_nodes && !need_aux; ++u)
    need_aux = F.feature[u] >= 0 && (F.cat_start[u] >= 0 || F.missing[u] >= 0);
  if (need_aux) P.aux.assign(F.n_nodes, -1);
  std::vector<int> to(F.n_nodes, -1), stack;
  for (int t = 0; t < F.n_trees; ++t) {
    int next = F.tree_start[t];
    stack.assign(1, F.tree_start[t]);
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      to[u] = next++;
      if (F.feature[u] < 0) continue;
      const int l = F.left[u], r = F.right[u], m = F.missing[u];
      if (m >= 0 && m != l && m != r) stack.push_back(m);
      if (r != l) stack.push_back(r);
      stack.push_back(l);
    }
  }
  const int K = F.n_outputs;
  int n_leaves = 0;
  for (int u = 0; u < F.n_nodes; ++u) {
    const int v = to[u];
    if (v < 0) continue;
    Node& d = P.nodes[v];
    if (F.feature[u] < 0) {
      d.feature = -1;
      if (K == 1) {
        d.threshold = F.value[u];
      } else {
        d.right = n_leaves++;
        for (int k = 0; k < K; ++k)
          P.leaf_values.push_back(F.value[static_cast<std::size_t>(k) * F.n_nodes + u]);
      }
      continue;
    }
    const bool cat = F.cat_start[u] >= 0;
    d.feature = F.feature[u] | (cat ? CAT_FLAG : 0);
    d.threshold = cat ? 0.0 : F.threshold[u];
    d.right = to[F.right[u]];
    if (cat || F.missing[u] >= 0) {
      P.aux[v] = static_cast<int>(P.table.size());
      P.table.push_back(Aux{F.missing[u] >= 0 ? to[F.missing[u]] : -1, F.cat_start[u],
                            F.cat_len[u]});
    }
  }
}

// Does a (non-missing) numeric value go left at a numeric split? Monotone in x
// (x <= t, or x < t; in single precision when float32 is set), so the grid
// points going left are a prefix of a sorted grid.
MP_INLINE bool goes_left_numeric(double x, double t, int rule, bool float32) {
  if (float32) {
    const float xf = static_cast<float>(x), tf = static_cast<float>(t);
    return rule == 0 ? xf <= tf : xf < tf;
  }
  return rule == 0 ? x <= t : x < t;
}

// Does a (non-missing) factor code go left at the categorical split of
// packed node `node`? Codes are 1-based; codes outside 1..cat_len go right.
MP_INLINE bool goes_left_categorical(const Forest& F, int node, double x) {
  const Aux& a = F.table[F.aux[node]];
  if (!(x >= 1.0) || !(x < static_cast<double>(a.cat_len) + 1.0)) return false;
  const int code = static_cast<int>(x);
  return F.cats[a.cat_start + code - 1] != 0;
}

// The missing child of packed inner node `node`, or -1.
MP_INLINE int missing_child(const Forest& F, int node) {
  return F.aux == nullptr || F.aux[node] < 0 ? -1 : F.table[F.aux[node]].missing;
}

// Does a non-missing value x go left at packed inner node `node`?
MP_INLINE bool goes_left(const Forest& F, int node, const Node& d, double x) {
  return (d.feature & CAT_FLAG) ? goes_left_categorical(F, node, x)
                                : goes_left_numeric(x, d.threshold, F.rule, F.float32);
}

// The child of packed inner node `node` for value x; -1 when x is missing
// and the model cannot handle a missing value there.
MP_INLINE int child_of(const Forest& F, int node, const Node& d, double x) {
  if (std::isnan(x)) return missing_child(F, node);
  return goes_left(F, node, d, x) ? node + 1 : d.right;
}

// The leaf (packed index) of tree t reached by a row (its feature values),
// or -1 when a missing value cannot be routed.
inline int leaf_of(const Forest& F, int t, const double* row) {
  int node = F.roots[t];
  while (node >= 0) {
    const Node& d = F.nodes[node];
    if (d.feature < 0) break;
    node = child_of(F, node, d, row[d.feature & ~CAT_FLAG]);
  }
  return node;
}

// Initial value of the per-output sums (the trees are then added in order).
inline void init_sums(const Forest& F, double* s) {
  for (int k = 0; k < F.n_outputs; ++k) s[k] = F.aggregate == AGG_SUM ? F.base[k] : 0.0;
}

// Add one tree's leaf (or NaN for an unroutable row) to the sums.
inline void add_leaf(const Forest& F, int leaf, double* s) {
  if (leaf < 0) {
    for (int k = 0; k < F.n_outputs; ++k) s[k] += std::numeric_limits<double>::quiet_NaN();
  } else {
    for (int k = 0; k < F.n_outputs; ++k) s[k] += F.leaf_value(leaf, k);
  }
}

// Turn the sums of one row into predictions: mean (sum / n_trees + base) or
// sum (base was the initial value), then the transform; a NaN becomes F.na.
// out[k * stride] for output k.
inline void finish(const Forest& F, const double* s, double* out, std::size_t stride) {
  const int K = F.n_outputs;
  double m[64];
  std::vector<double> big;
  double* mm = m;
  if (K > 64) {
    big.resize(K);
    mm = big.data();
  }
  bool nan = false;
  for (int k = 0; k < K; ++k) {
    mm[k] = F.aggregate == AGG_MEAN ? s[k] / static_cast<double>(F.n_trees) + F.base[k] : s[k];
    if (std::isnan(mm[k])) nan = true;
  }
  if (nan) {
    for (int k = 0; k < K; ++k) out[k * stride] = F.na;
    return;
  }
  switch (F.transform) {
    case TR_IDENTITY:
      for (int k = 0; k < K; ++k) out[k * stride] = mm[k];
      break;
    case TR_LOGISTIC:
      for (int k = 0; k < K; ++k) out[k * stride] = 1.0 / (1.0 + std::exp(-mm[k]));
      break;
    case TR_EXP:
      for (int k = 0; k < K; ++k) out[k * stride] = std::exp(mm[k]);
      break;
    case TR_SOFTMAX: {
      double mx = mm[0];
      for (int k = 1; k < K; ++k) mx = std::max(mx, mm[k]);
      double tot = 0.0;
      for (int k = 0; k < K; ++k) tot += std::exp(mm[k] - mx);
      for (int k = 0; k < K; ++k) out[k * stride] = std::exp(mm[k] - mx) / tot;
      break;
    }
  }
}

// Rows walked in lockstep by predict_rows() (their memory reads overlap).
const int LANES = 16;

// Predictions of B rows (row-major feature values rows[b * p + f], p >=
// n_features): output k of row b to out[b + k * stride]. `sums` is scratch
// of B * n_outputs cells.
inline void predict_rows(const Forest& F, const double* rows, int B, int p, double* sums,
                         double* out, std::size_t stride) {
  const int K = F.n_outputs;
  for (int b = 0; b < B; ++b) init_sums(F, sums + static_cast<std::size_t>(b) * K);
  for (int t = 0; t < F.n_trees; ++t) {
    const int root = F.roots[t];
    for (int b0 = 0; b0 < B; b0 += LANES) {
      const int nl = std::min(LANES, B - b0);
      int cur[LANES];
      for (int l = 0; l < nl; ++l) cur[l] = root;
      bool moving = true;
      while (moving) {
        moving = false;
        for (int l = 0; l < nl; ++l) {
          const int node = cur[l];
          if (node < 0) continue;
          const Node& d = F.nodes[node];
          if (d.feature < 0) continue;
          const double* row = rows + static_cast<std::size_t>(b0 + l) * p;
          cur[l] = child_of(F, node, d, row[d.feature & ~CAT_FLAG]);
          moving = true;
        }
      }
      for (int l = 0; l < nl; ++l)
        add_leaf(F, cur[l], sums + static_cast<std::size_t>(b0 + l) * K);
    }
  }
  for (int b = 0; b < B; ++b) finish(F, sums + static_cast<std::size_t>(b) * K, out + b, stride);
}

// Prediction of one row: out[k * stride] for output k. `sums` is scratch of
// n_outputs cells.
inline void predict_row(const Forest& F, const double* row, double* sums, double* out,
                        std::size_t stride) {
  predict_rows(F, row, 1, F.n_features, sums, out, stride);
}

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
// z[0..G) (the first nn values numbers, the rest NaN).
struct Walk {
  const double* row;
  double* acc;  // the row's G x n_outputs sums
  std::vector<Frame>* stack;
  int node, a, b;
  bool live;
};

// Advance a walk by one node: at an inner node, route its range of grid
// points (pushing the parts that go elsewhere); at a leaf (or -1, an
// unroutable value), add the leaf value to its range and take the next
// pending part, if any. Every grid point receives exactly one addition per
// tree.
MP_INLINE void walk_step(const Forest& F, Walk& w, int j, const double* z, int nn) {
  const int K = F.n_outputs;
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
  // A leaf (or -1: unroutable, NaN).
  double* acc = w.acc;
  if (node < 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int g = w.a; g < w.b; ++g)
      for (int k = 0; k < K; ++k) acc[static_cast<std::size_t>(g) * K + k] += nan;
  } else if (K == 1) {
    const double v = F.nodes[node].threshold;
    for (int g = w.a; g < w.b; ++g) acc[g] += v;
  } else {
    for (int k = 0; k < K; ++k) {
      const double v = F.leaf_value(node, k);
      for (int g = w.a; g < w.b; ++g) acc[static_cast<std::size_t>(g) * K + k] += v;
    }
  }
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
  // (Walking several rows in lockstep, as predict_rows() does, measured
  // slower here: the walks are not bound by memory latency alone.)
  for (int t = 0; t < F.n_trees; ++t) {
    for (int b = 0; b < B; ++b) {
      sc.stack.clear();
      Walk w{rows + static_cast<std::size_t>(b) * p, acc + per_row * b, &sc.stack,
             F.roots[t], 0, G, true};
      while (w.live) walk_step(F, w, j, z, nn);
    }
  }
  for (int b = 0; b < B; ++b)
    for (int g = 0; g < G; ++g)
      finish(F, acc + per_row * b + static_cast<std::size_t>(g) * K,
             out + static_cast<std::size_t>(b) * G + pos[g], stride);
}

}  // namespace mp

#endif
