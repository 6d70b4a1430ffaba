// A ranger forest packed straight from its per-tree vectors, without the
// flat arrays of the whole forest (a forest of 500 trees grown on 10^5 rows
// has tens of millions of nodes: its flat arrays would take over a GB).
// Each tree in turn is written into flat arrays of its own, checked by
// check_tree() and packed by pack_tree() (pack.h), so a ranger forest obeys
// the same rules as any other model. R-free.
#ifndef MODELPROFILES_RANGER_H
#define MODELPROFILES_RANGER_H

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "forest.h"
#include "pack.h"

namespace mp {

// One tree as ranger keeps it (ids stored as doubles, 0-based). Node u is a
// leaf when both its children are 0; an inner node splits on feature
// split_var[u]: numerically (x <= split_value[u]) when the feature is
// ordered, else by the bit mask floor(split_value[u]) (bit k - 1 set: level
// k goes right). A regression leaf's value is its split_value; a leaf of a
// probability forest has n_counts[u] class counts at counts[u].
struct RangerTree {
  int n_nodes = 0;
  const double* child_left = nullptr;
  const double* child_right = nullptr;
  const double* split_var = nullptr;
  const double* split_value = nullptr;
  const double* const* counts = nullptr;
  const int* n_counts = nullptr;
};

struct RangerForest {
  std::vector<RangerTree> trees;
  std::vector<unsigned char> ordered;  // per feature
  bool probability = false;
  // Probability forests: for each output, its position among the class
  // counts (0-based).
  std::vector<int> class_cols;
};

namespace detail {

// A tree's node or feature id as an int: x when it is a whole number in
// [0, n), else `invalid` (which the checks report).
inline int ranger_id(double x, int n, int invalid) {
  return x >= 0 && x < n && x == std::floor(x) ? static_cast<int>(x) : invalid;
}

}  // namespace detail

// Pack a ranger forest into P. Partition splits with the same mask share
// their 64 entries of cat_left (ranger's limit of 64 levels). "" when
// valid, else the problem.
inline std::string pack_ranger(const RangerForest& R, Packed& P) {
  const int n_trees = static_cast<int>(R.trees.size());
  const int p = static_cast<int>(R.ordered.size());
  const int K = R.probability ? static_cast<int>(R.class_cols.size()) : 1;
  if (n_trees < 1) return "no trees";
  if (K < 1) return "no outputs";
  int need = 0;  // class counts a leaf must have
  for (int k = 0; k < K && R.probability; ++k) {
    if (R.class_cols[k] < 0) return "class column out of range";
    need = std::max(need, R.class_cols[k] + 1);
  }
  double total = 0;
  for (const RangerTree& T : R.trees) total += T.n_nodes;
  if (total > static_cast<double>(INT_MAX) / K) return "too many nodes";
  P = Packed();
  P.nodes.assign(static_cast<std::size_t>(total), Node{0.0, -1, -1});
  P.tree_start.assign(n_trees + 1, 0);
  FlatTree flat;
  std::map<double, int> masks;  // mask -> start in cat_left
  std::vector<unsigned char> seen;
  std::vector<int> to, stack;
  int start = 0;
  for (int t = 0; t < n_trees; ++t) {
    const RangerTree& T = R.trees[t];
    const int m = T.n_nodes;
    const std::string where = "tree " + std::to_string(t + 1) + ": ";
    if (m < 1) return where + "no nodes";
    flat.resize(m, K);
    for (int u = 0; u < m; ++u) {
      const double l = T.child_left[u], r = T.child_right[u];
      if (l == 0 && r == 0) {
        if (!R.probability) {
          flat.value[u] = T.split_value[u];
          continue;
        }
        if (T.n_counts[u] < need) return where + "class counts missing at node " + std::to_string(u);
        for (int k = 0; k < K; ++k)
          flat.value[static_cast<std::size_t>(k) * m + u] = T.counts[u][R.class_cols[k]];
        continue;
      }
      const int f = detail::ranger_id(T.split_var[u], p, p);
      flat.feature[u] = f;
      flat.left[u] = detail::ranger_id(l, m, -1);
      flat.right[u] = detail::ranger_id(r, m, -1);
      if (f == p || R.ordered[f]) {
        flat.threshold[u] = T.split_value[u];
        continue;
      }
      const double mask = std::floor(T.split_value[u]);
      if (!(mask >= 0 && mask < 18446744073709551616.0))
        return where + "partition mask out of range at node " + std::to_string(u);
      auto it = masks.find(mask);
      if (it == masks.end()) {
        it = masks.emplace(mask, static_cast<int>(P.cat_left.size())).first;
        const unsigned long long bits = static_cast<unsigned long long>(mask);
        for (int b = 0; b < 64; ++b) P.cat_left.push_back(((bits >> b) & 1ULL) ? 0 : 1);
      }
      flat.cat_start[u] = it->second;
      flat.cat_len[u] = 64;
    }
    const std::string problem = pack_flat_tree(flat, p, K, P, start, seen, to, stack);
    if (!problem.empty()) return where + problem;
    P.tree_start[t] = start;
    start += m;
  }
  P.tree_start[n_trees] = start;
  return "";
}

}  // namespace mp

#endif
