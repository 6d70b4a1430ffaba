// An xgboost model read from its UBJSON serialisation (ubjson.h) into the
// flat arrays of the format (new_native() in R/native.R), for R/native_boost.R.
// The model's trees (learner / gradient_booster / model / trees) keep
// per-node arrays indexed by node id (the root is 0): left_children and
// right_children (-1 at a leaf), split_indices (the feature), split_conditions
// (the threshold, as a float: x < threshold goes left; at a leaf, the leaf
// value, the learning rate applied), default_left (where a missing value
// goes) and split_type (1: categorical, not supported). tree_info gives each
// tree's output group. R-free.
#ifndef MODELPROFILES_XGBOOST_H
#define MODELPROFILES_XGBOOST_H

#include <cmath>
#include <string>
#include <vector>

#include "ubjson.h"

namespace mp {

struct XgbModel {
  // Settings, as the model writes them (strings).
  std::string booster, objective, base_score, num_class, num_target, num_parallel_tree;
  int n_trees_all = 0;  // trees in the model
  // The first n_trees trees, nodes in preorder (the left child first), global
  // 0-based indices.
  std::vector<int> tree_start, feature, left, right, missing, group;
  std::vector<double> threshold, leaf_value;
};

namespace detail {

inline std::string ubj_str(const ubj::Value* v) {
  return v != nullptr && v->kind == ubj::Value::STR ? v->str : std::string();
}

inline const ubj::Value* ubj_path(const ubj::Value& root, std::initializer_list<const char*> keys) {
  const ubj::Value* v = &root;
  for (const char* k : keys) {
    v = v->get(k);
    if (v == nullptr) return nullptr;
  }
  return v;
}

// A whole number in [lo, hi], else `bad`.
inline int xgb_int(double x, int lo, int hi, int bad) {
  return x >= lo && x <= hi && x == std::floor(x) ? static_cast<int>(x) : bad;
}

}  // namespace detail

// Read the model's settings and its first `keep` trees (all when keep < 0)
// for a model of p features. "" when done; else the reason it cannot be
// converted ("unsupported: ..." for models the format cannot express, or a
// malformed model).
inline std::string read_xgboost(const unsigned char* data, std::size_t n, int p, int keep,
                                XgbModel& M) {
  ubj::Value doc;
  ubj::Reader reader(data, n);
  if (!reader.read(doc)) return "not a UBJSON model";
  const ubj::Value* learner = doc.get("learner");
  if (learner == nullptr) return "no learner";
  M.objective = detail::ubj_str(detail::ubj_path(*learner, {"objective", "name"}));
  M.base_score = detail::ubj_str(detail::ubj_path(*learner, {"learner_model_param", "base_score"}));
  M.num_class = detail::ubj_str(detail::ubj_path(*learner, {"learner_model_param", "num_class"}));
  M.num_target = detail::ubj_str(detail::ubj_path(*learner, {"learner_model_param", "num_target"}));
  M.booster = detail::ubj_str(detail::ubj_path(*learner, {"gradient_booster", "name"}));
  if (M.booster != "gbtree") return "unsupported: booster " + M.booster;
  const ubj::Value* model = detail::ubj_path(*learner, {"gradient_booster", "model"});
  if (model == nullptr) return "no trees";
  M.num_parallel_tree =
      detail::ubj_str(detail::ubj_path(*model, {"gbtree_model_param", "num_parallel_tree"}));
  const ubj::Value* trees = model->get("trees");
  const ubj::Value* info = model->get("tree_info");
  if (trees == nullptr || info == nullptr || trees->kind != ubj::Value::ARR) return "no trees";
  const int T = static_cast<int>(trees->items.size());
  M.n_trees_all = T;
  if (info->numbers().size() != static_cast<std::size_t>(T)) return "tree_info does not match the trees";
  const int use = keep < 0 || keep > T ? T : keep;
  M.tree_start.assign(1, 0);
  std::vector<int> order, to, stack;
  for (int t = 0; t < use; ++t) {
    const ubj::Value& tr = trees->items[t];
    const ubj::Value* lc = tr.get("left_children");
    const ubj::Value* rc = tr.get("right_children");
    const ubj::Value* si = tr.get("split_indices");
    const ubj::Value* sc = tr.get("split_conditions");
    const ubj::Value* dl = tr.get("default_left");
    const ubj::Value* st = tr.get("split_type");
    if (lc == nullptr || rc == nullptr || si == nullptr || sc == nullptr || dl == nullptr)
      return "tree " + std::to_string(t + 1) + " lacks node arrays";
    const std::size_t m = lc->numbers().size();
    if (m < 1 || rc->numbers().size() != m || si->numbers().size() != m ||
        sc->numbers().size() != m || dl->numbers().size() != m ||
        (st != nullptr && st->numbers().size() != m && st->numbers().size() != 0))
      return "tree " + std::to_string(t + 1) + " has node arrays of different lengths";
    const int mm = static_cast<int>(m);
    const std::vector<double>& L = lc->numbers();
    const std::vector<double>& R = rc->numbers();
    // Preorder from the root; a node reached twice is not a tree.
    order.clear();
    to.assign(m, -1);
    stack.assign(1, 0);
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      if (to[u] >= 0) return "tree " + std::to_string(t + 1) + ": a node reached twice";
      to[u] = static_cast<int>(order.size());
      order.push_back(u);
      const int l = detail::xgb_int(L[u], -1, mm - 1, -2), r = detail::xgb_int(R[u], -1, mm - 1, -2);
      if (l == -2 || r == -2 || (l < 0) != (r < 0))
        return "tree " + std::to_string(t + 1) + ": child out of range";
      if (l < 0) continue;
      stack.push_back(r);
      stack.push_back(l);
    }
    const int base = M.tree_start.back();
    const int g = detail::xgb_int(info->numbers()[t], 0, 1 << 20, -1);
    if (g < 0) return "tree_info out of range";
    for (int u : order) {
      const int l = static_cast<int>(L[u]);
      const bool leaf = l < 0;
      M.group.push_back(g);
      if (leaf) {
        M.feature.push_back(-1);
        M.left.push_back(-1);
        M.right.push_back(-1);
        M.missing.push_back(-1);
        M.threshold.push_back(0.0);
        M.leaf_value.push_back(sc->numbers()[u]);
        continue;
      }
      if (st != nullptr && !st->numbers().empty() && st->numbers()[u] != 0)
        return "unsupported: categorical splits";
      const int f = detail::xgb_int(si->numbers()[u], 0, p - 1, -1);
      if (f < 0) return "tree " + std::to_string(t + 1) + ": feature out of range";
      const int gl = base + to[l], gr = base + to[static_cast<int>(R[u])];
      M.feature.push_back(f);
      M.left.push_back(gl);
      M.right.push_back(gr);
      M.missing.push_back(dl->numbers()[u] != 0 ? gl : gr);
      M.threshold.push_back(sc->numbers()[u]);
      M.leaf_value.push_back(0.0);
    }
    M.tree_start.push_back(base + static_cast<int>(order.size()));
  }
  return "";
}

}  // namespace mp

#endif
