// A ranger forest converted straight into the packing (R/native.R,
// native_model.ranger()).
#include <Rcpp.h>
#include <cmath>
#include <map>
#include <vector>
#include <modelprofiles/forest.h>
#include "native_model.h"

using namespace Rcpp;

// A ranger forest (regression, or probability when class_counts is a list)
// converted straight into the packing, in one pass over its per-tree
// vectors, without the flat arrays (a forest of 500 trees grown on 10^5 rows
// has tens of millions of nodes: the flat arrays would take over a GB).
// Node i of tree t is a leaf when both its children are 0; an inner node
// splits on feature var_ids (0-based): numerically (x <= value) when the
// feature is ordered, else by the bit mask floor(value) (bit k - 1 set:
// level k goes right). class_cols gives, for each output, its (0-based)
// position among the class counts. Each tree is checked as it is packed:
// children within the tree, every node reached from the root once at most.
// Returns the packing (an external pointer, as cpp_native_pack()), or NULL
// when the forest is not as expected.
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_ranger(List child_left, List child_right, List var_ids, List split_values,
                       LogicalVector is_ordered, SEXP class_counts, IntegerVector class_cols) {
  const int n_trees = child_left.size();
  const int p = is_ordered.size();
  const bool prob = TYPEOF(class_counts) == VECSXP;
  const int K = prob ? class_cols.size() : 1;
  if (n_trees < 1 || child_right.size() != n_trees || var_ids.size() != n_trees ||
      split_values.size() != n_trees || (prob && Rf_length(class_counts) != n_trees) || K < 1)
    return R_NilValue;
  for (int k = 0; k < K; ++k)
    if (class_cols[k] == NA_INTEGER || class_cols[k] < 0) return R_NilValue;
  std::vector<bool> ordered(p);
  bool any_cat = false;
  for (int f = 0; f < p; ++f) {
    ordered[f] = is_ordered[f] == TRUE;
    any_cat = any_cat || !ordered[f];
  }
  double total = 0;
  for (int t = 0; t < n_trees; ++t) {
    const SEXP v[4] = {VECTOR_ELT(child_left, t), VECTOR_ELT(child_right, t),
                       VECTOR_ELT(var_ids, t), VECTOR_ELT(split_values, t)};
    const R_xlen_t m = Rf_xlength(v[0]);
    if (m < 1) return R_NilValue;
    for (int q = 0; q < 4; ++q)
      if (TYPEOF(v[q]) != REALSXP || Rf_xlength(v[q]) != m) return R_NilValue;
    total += m;
  }
  if (total > 2147483647.0 / std::max(K, 1)) return R_NilValue;
  NativeCache* pk = new NativeCache;
  XPtr<NativeCache> out(pk, true);
  mp::Packed& P = pk->packed;
  pk->n_outputs = K;
  P.nodes.resize(static_cast<std::size_t>(total));
  P.tree_start.resize(n_trees + 1);
  if (any_cat) P.aux.assign(static_cast<std::size_t>(total), -1);
  std::map<double, int> masks;  // mask -> start in cat_left
  std::vector<int> to, stack;
  int start = 0, n_leaves = 0;
  for (int t = 0; t < n_trees; ++t) {
    const double* l = REAL(VECTOR_ELT(child_left, t));
    const double* r = REAL(VECTOR_ELT(child_right, t));
    const double* var = REAL(VECTOR_ELT(var_ids, t));
    const double* val = REAL(VECTOR_ELT(split_values, t));
    const int m = Rf_length(VECTOR_ELT(var_ids, t));
    SEXP counts = prob ? VECTOR_ELT(class_counts, t) : R_NilValue;
    if (prob && (TYPEOF(counts) != VECSXP || Rf_length(counts) != m)) return R_NilValue;
    P.tree_start[t] = start;
    // Depth-first order (the left child right after its parent); a node
    // reached twice means the arrays are not a tree.
    to.assign(m, -1);
    stack.assign(1, 0);
    int next = 0;
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      if (to[u] >= 0) return R_NilValue;
      to[u] = next++;
      if (l[u] == 0 && r[u] == 0) continue;
      if (!(l[u] >= 1 && l[u] < m) || !(r[u] >= 1 && r[u] < m) || l[u] == r[u] ||
          !(var[u] >= 0 && var[u] < p))
        return R_NilValue;
      stack.push_back(static_cast<int>(r[u]));
      stack.push_back(static_cast<int>(l[u]));
    }
    for (int u = 0; u < m; ++u) {
      const int v = to[u];
      mp::Node& d = P.nodes[start + (v >= 0 ? v : next++)];  // unreached: an inert leaf
      if (v < 0 || (l[u] == 0 && r[u] == 0)) {
        d.feature = -1;
        d.right = -1;
        d.threshold = 0.0;
        if (v < 0) continue;
        if (!prob) {
          d.threshold = val[u];
          continue;
        }
        SEXP c = VECTOR_ELT(counts, u);
        if (TYPEOF(c) != REALSXP) return R_NilValue;
        const double* cp = REAL(c);
        const int nc = Rf_length(c);
        d.right = n_leaves++;
        for (int k = 0; k < K; ++k) {
          if (class_cols[k] >= nc) return R_NilValue;
          P.leaf_values.push_back(cp[class_cols[k]]);
        }
        continue;
      }
      const int f = static_cast<int>(var[u]);
      d.right = start + to[static_cast<int>(r[u])];
      if (ordered[f]) {
        d.feature = f;
        d.threshold = val[u];
        if (std::isnan(d.threshold)) return R_NilValue;
        continue;
      }
      // A partition split: 64 bits of the mask (ranger's limit).
      const double mask = std::floor(val[u]);
      if (!(mask >= 0 && mask < 18446744073709551616.0)) return R_NilValue;
      auto it = masks.find(mask);
      if (it == masks.end()) {
        it = masks.emplace(mask, static_cast<int>(P.cat_left.size())).first;
        const unsigned long long bits = static_cast<unsigned long long>(mask);
        for (int b = 0; b < 64; ++b) P.cat_left.push_back(((bits >> b) & 1ULL) ? 0 : 1);
      }
      d.feature = f | mp::CAT_FLAG;
      d.threshold = 0.0;
      P.aux[start + v] = static_cast<int>(P.table.size());
      P.table.push_back(mp::Aux{-1, it->second, 64});
    }
    start += m;
  }
  P.tree_start[n_trees] = start;
  return out;
}
