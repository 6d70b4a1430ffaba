// A randomForest forest packed straight from its node matrices (one column
// per tree), a tree at a time as ranger.h does: each tree written into flat
// arrays of its own, checked by check_tree() and packed by pack_tree()
// (pack.h). R-free.
#ifndef MODELPROFILES_RANDOMFOREST_H
#define MODELPROFILES_RANDOMFOREST_H

#include <climits>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "forest.h"
#include "pack.h"

namespace mp {

// randomForest's forest (R/native.R, native_model.randomForest()): tree t's
// node u (0-based, u < sizes[t]) is cell u + t * nrnodes of the node
// matrices. A leaf has nodestatus -1; an inner node splits on variable
// bestvar (1-based): a numeric one (ncat 1) sends x <= xbestsplit left, one
// of ncat > 1 levels sends level k left when bit k - 1 of xbestsplit is set.
// Children are 1-based node ids: leftDaughter/rightDaughter (regression), or
// treemap (classification: cells u + 2 t nrnodes and u + (2 t + 1) nrnodes).
// A regression leaf's value is nodepred; a classification leaf votes for its
// class nodepred (1-based, of K).
struct RandomForest {
  int n_trees = 0, nrnodes = 0, p = 0, K = 1;
  bool classification = false;
  const int* sizes = nullptr;
  const int* nodestatus = nullptr;
  const int* bestvar = nullptr;
  const double* xbestsplit = nullptr;
  const int* left = nullptr;
  const int* right = nullptr;
  const int* treemap = nullptr;
  const double* pred_value = nullptr;
  const int* pred_class = nullptr;
  const int* ncat = nullptr;  // p
};

// Pack a randomForest forest into P. Splits on factors with the same mask
// and number of levels share their entries of cat_left. "" when valid, else
// the problem.
inline std::string pack_randomforest(const RandomForest& R, Packed& P) {
  const int T = R.n_trees, p = R.p, K = R.K;
  if (T < 1) return "no trees";
  if (K < 1) return "no outputs";
  double total = 0;
  for (int t = 0; t < T; ++t) {
    if (R.sizes[t] < 1 || R.sizes[t] > R.nrnodes) return "tree " + std::to_string(t + 1) + " has no nodes";
    total += R.sizes[t];
  }
  if (total > static_cast<double>(INT_MAX) / K) return "too many nodes";
  for (int f = 0; f < p; ++f)
    if (R.ncat[f] < 1 || R.ncat[f] > 32) return "a factor of more than 32 levels";
  P = Packed();
  P.nodes.assign(static_cast<std::size_t>(total), Node{0.0, -1, -1});
  P.tree_start.assign(T + 1, 0);
  FlatTree flat;
  std::map<std::pair<int, double>, int> masks;  // (levels, mask) -> start in cat_left
  std::vector<unsigned char> seen;
  std::vector<int> to, stack;
  int start = 0;
  const std::size_t nr = static_cast<std::size_t>(R.nrnodes);
  for (int t = 0; t < T; ++t) {
    const int m = R.sizes[t];
    const std::string where = "tree " + std::to_string(t + 1) + ": ";
    flat.resize(m, K);
    for (int u = 0; u < m; ++u) {
      const std::size_t ix = static_cast<std::size_t>(t) * nr + u;
      if (R.nodestatus[ix] == -1) {
        if (!R.classification) {
          flat.value[u] = R.pred_value[ix];
          continue;
        }
        const int c = R.pred_class[ix];
        if (c < 1 || c > K) return where + "a leaf names no class at node " + std::to_string(u);
        flat.value[static_cast<std::size_t>(c - 1) * m + u] = 1.0;
        continue;
      }
      const int var = R.bestvar[ix];
      if (var < 1 || var > p) return where + "variable out of range at node " + std::to_string(u);
      int l, r;
      if (R.classification) {
        const std::size_t base = static_cast<std::size_t>(t) * 2 * nr + u;
        l = R.treemap[base];
        r = R.treemap[base + nr];
      } else {
        l = R.left[ix];
        r = R.right[ix];
      }
      // Out-of-range children are left to check_tree().
      flat.feature[u] = var - 1;
      flat.left[u] = l >= 1 && l <= m ? l - 1 : -2;
      flat.right[u] = r >= 1 && r <= m ? r - 1 : -2;
      const double x = R.xbestsplit[ix];
      const int len = R.ncat[var - 1];
      if (len == 1) {
        flat.threshold[u] = x;
        continue;
      }
      const double mask = std::floor(x);
      if (!(mask >= 0 && mask < 4294967296.0))
        return where + "factor split mask out of range at node " + std::to_string(u);
      auto key = std::make_pair(len, mask);
      auto it = masks.find(key);
      if (it == masks.end()) {
        it = masks.emplace(key, static_cast<int>(P.cat_left.size())).first;
        const unsigned long long bits = static_cast<unsigned long long>(mask);
        for (int b = 0; b < len; ++b) P.cat_left.push_back(static_cast<int>((bits >> b) & 1ULL));
      }
      flat.cat_start[u] = it->second;
      flat.cat_len[u] = len;
    }
    const std::string problem = pack_flat_tree(flat, p, K, P, start, seen, to, stack);
    if (!problem.empty()) return where + problem;
    P.tree_start[t] = start;
    start += m;
  }
  P.tree_start[T] = start;
  return "";
}

}  // namespace mp

#endif
