// Checking the flat arrays of a tree ensemble and packing them into 16-byte
// nodes in depth-first order, the left child right after its parent, so that
// a walk down a tree reads few cache lines. R-free. The checks come first:
// packing walks the trees, and only a checked forest is walked.
#ifndef MODELPROFILES_PACK_H
#define MODELPROFILES_PACK_H

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "forest.h"

namespace mp {

// Checks of the forest as a whole: trees, outputs, features, and the trees'
// ranges covering the nodes. "" when valid, else the problem.
inline std::string check_shape(const Forest& F) {
  if (F.n_trees < 1) return "no trees";
  if (F.n_outputs < 1) return "no outputs";
  if (F.n_features >= CAT_FLAG) return "too many features";
  if (F.tree_start[0] != 0 || F.tree_start[F.n_trees] != F.n_nodes)
    return "tree_start does not cover the nodes";
  return "";
}

// Structural check of tree t: feature and child indices within the tree,
// categorical ranges within cat_left, numeric thresholds not missing, and
// every node reached from the root by one path at most (no cycles, so every
// walk ends). `seen` (n_nodes cells, 0 over the tree's range) and `stack`
// are the caller's scratch. "" when valid, else the problem.
inline std::string check_tree(const Forest& F, int t, std::vector<unsigned char>& seen,
                              std::vector<int>& stack) {
  const int lo = F.tree_start[t], hi = F.tree_start[t + 1];
  if (hi <= lo) return "tree " + std::to_string(t + 1) + " has no nodes";
  if (lo < 0 || hi > F.n_nodes) return "tree " + std::to_string(t + 1) + " is outside the nodes";
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
      if (F.cat_len[n] < 0 || static_cast<long long>(F.cat_start[n]) + F.cat_len[n] > F.n_cat)
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
  return "";
}

// Full structural check of the flat arrays. "" when valid, else the first
// problem.
inline std::string check_forest(const Forest& F) {
  std::string problem = check_shape(F);
  if (!problem.empty()) return problem;
  std::vector<unsigned char> seen(F.n_nodes, 0);
  std::vector<int> stack;
  for (int t = 0; t < F.n_trees && problem.empty(); ++t) problem = check_tree(F, t, seen, stack);
  return problem;
}

// Pack tree t of a checked forest into P.nodes from packed index `base` on:
// depth-first order (left subtree, right subtree, then a separate missing
// subtree). P.nodes must already hold inert leaves (Node{0, -1, -1}) there:
// nodes unreachable from the root stay so, at the end of the tree's range.
// Leaves of several outputs append their values to P.leaf_values; nodes that
// need an Aux append it to P.table (P.aux is allocated, over all of P.nodes,
// by the first one). Categorical ranges refer to P.cat_left, which the
// caller fills. `to` (n_nodes cells) and `stack` are scratch.
inline void pack_tree(const Forest& F, int t, int base, Packed& P, std::vector<int>& to,
                      std::vector<int>& stack) {
  const int lo = F.tree_start[t], hi = F.tree_start[t + 1];
  for (int u = lo; u < hi; ++u) to[u] = -1;
  int next = base;
  stack.assign(1, lo);
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
  const int K = F.n_outputs;
  for (int u = lo; u < hi; ++u) {
    const int v = to[u];
    if (v < 0) continue;
    Node& d = P.nodes[v];
    if (F.feature[u] < 0) {
      d.feature = -1;
      if (K == 1) {
        d.threshold = F.value[u];
      } else {
        d.right = static_cast<int>(P.leaf_values.size() / K);
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
      if (P.aux.empty()) P.aux.assign(P.nodes.size(), -1);
      P.aux[v] = static_cast<int>(P.table.size());
      P.table.push_back(Aux{F.missing[u] >= 0 ? to[F.missing[u]] : -1, F.cat_start[u],
                            F.cat_len[u]});
    }
  }
}

// Pack a forest that passed check_forest(): each tree keeps its range of
// indices.
inline void pack_forest(const Forest& F, Packed& P) {
  P.nodes.assign(F.n_nodes, Node{0.0, -1, -1});
  P.aux.clear();
  P.table.clear();
  P.tree_start.assign(F.tree_start, F.tree_start + F.n_trees + 1);
  P.cat_left.assign(F.cat_left, F.cat_left + F.n_cat);
  P.leaf_values.clear();
  std::vector<int> to(F.n_nodes), stack;
  for (int t = 0; t < F.n_trees; ++t) pack_tree(F, t, F.tree_start[t], P, to, stack);
}

// One tree's flat arrays, for converters that check and pack a model a tree
// at a time (ranger.h, randomforest.h) instead of building the flat arrays
// of the whole forest; scratch reused from tree to tree.
struct FlatTree {
  std::vector<int> feature, left, right, missing, cat_start, cat_len;
  std::vector<double> threshold, value;
  int tree_start[2] = {0, 0};
  // m nodes of K outputs, all leaves of value 0 without a missing child.
  void resize(int m, int K) {
    feature.assign(m, -1);
    left.assign(m, -1);
    right.assign(m, -1);
    missing.assign(m, -1);
    cat_start.assign(m, -1);
    cat_len.assign(m, 0);
    threshold.assign(m, 0.0);
    value.assign(static_cast<std::size_t>(m) * K, 0.0);
    tree_start[1] = m;
  }
};

// Check the tree in `flat` (of a model of p features and K outputs, whose
// categorical tables are P.cat_left) as check_tree() does, then pack it
// into P.nodes from packed index `start` on (P.nodes already sized, as
// pack_tree() needs). "" when valid, else the problem. `seen`, `to` and
// `stack` are scratch.
inline std::string pack_flat_tree(const FlatTree& flat, int p, int K, Packed& P, int start,
                                  std::vector<unsigned char>& seen, std::vector<int>& to,
                                  std::vector<int>& stack) {
  const int m = flat.tree_start[1];
  Forest F;
  F.n_trees = 1;
  F.n_nodes = m;
  F.n_outputs = K;
  F.n_features = p;
  F.tree_start = flat.tree_start;
  F.feature = flat.feature.data();
  F.threshold = flat.threshold.data();
  F.left = flat.left.data();
  F.right = flat.right.data();
  F.missing = flat.missing.data();
  F.cat_start = flat.cat_start.data();
  F.cat_len = flat.cat_len.data();
  F.cat_left = P.cat_left.data();
  F.n_cat = static_cast<int>(P.cat_left.size());
  F.value = flat.value.data();
  seen.assign(m, 0);
  to.resize(m);
  std::string problem = check_shape(F);
  if (problem.empty()) problem = check_tree(F, 0, seen, stack);
  if (!problem.empty()) return problem;
  pack_tree(F, 0, start, P, to, stack);
  return "";
}

}  // namespace mp

#endif
