// A ranger forest (R/native.R, native_model.ranger()) converted straight
// into the packing by mp::pack_ranger() (ranger.h): the glue only reads the
// R lists into plain arrays, on the main thread.
#include <Rcpp.h>
#include <climits>
#include <vector>
#include <modelprofiles/ranger.h>
#include "native_model.h"

using namespace Rcpp;

// The forest's per-tree vectors (doubles): child ids (left, right), split
// variable ids (0-based), split values; is_ordered per feature; for a
// probability forest, class_counts (per tree, per node, the leaf's class
// counts; NULL for regression) and class_cols, the (0-based) position of
// each output among the counts. Returns the packing (an external pointer,
// as cpp_native_pack()), or NULL when the forest is not as expected.
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_ranger(List child_left, List child_right, List var_ids, List split_values,
                       LogicalVector is_ordered, SEXP class_counts, IntegerVector class_cols) {
  const R_xlen_t n_trees = child_left.size();
  mp::RangerForest R;
  R.probability = TYPEOF(class_counts) == VECSXP;
  if (child_right.size() != n_trees || var_ids.size() != n_trees ||
      split_values.size() != n_trees || n_trees > INT_MAX ||
      (R.probability && Rf_xlength(class_counts) != n_trees))
    return R_NilValue;
  for (R_xlen_t f = 0; f < is_ordered.size(); ++f) R.ordered.push_back(is_ordered[f] == TRUE);
  if (R.probability) R.class_cols.assign(class_cols.begin(), class_cols.end());
  // Per tree, the addresses and lengths of the nodes' class counts.
  std::vector<std::vector<const double*>> counts(R.probability ? n_trees : 0);
  std::vector<std::vector<int>> n_counts(counts.size());
  R.trees.resize(n_trees);
  for (R_xlen_t t = 0; t < n_trees; ++t) {
    const SEXP v[4] = {VECTOR_ELT(child_left, t), VECTOR_ELT(child_right, t),
                       VECTOR_ELT(var_ids, t), VECTOR_ELT(split_values, t)};
    const R_xlen_t m = Rf_xlength(v[0]);
    if (m > INT_MAX) return R_NilValue;
    for (int q = 0; q < 4; ++q)
      if (TYPEOF(v[q]) != REALSXP || Rf_xlength(v[q]) != m) return R_NilValue;
    mp::RangerTree& T = R.trees[t];
    T.n_nodes = static_cast<int>(m);
    T.child_left = REAL(v[0]);
    T.child_right = REAL(v[1]);
    T.split_var = REAL(v[2]);
    T.split_value = REAL(v[3]);
    if (!R.probability) continue;
    const SEXP tc = VECTOR_ELT(class_counts, t);
    if (TYPEOF(tc) != VECSXP || Rf_xlength(tc) != m) return R_NilValue;
    counts[t].resize(m);
    n_counts[t].resize(m);
    for (R_xlen_t u = 0; u < m; ++u) {
      const SEXP c = VECTOR_ELT(tc, u);
      const bool ok = TYPEOF(c) == REALSXP;
      counts[t][u] = ok ? REAL(c) : nullptr;
      n_counts[t][u] = ok ? Rf_length(c) : 0;
    }
    T.counts = counts[t].data();
    T.n_counts = n_counts[t].data();
  }
  NativeCache* pk = new NativeCache;
  XPtr<NativeCache> out(pk, true);
  if (!mp::pack_ranger(R, pk->packed).empty()) return R_NilValue;
  pk->n_outputs = R.probability ? static_cast<int>(R.class_cols.size()) : 1;
  return out;
}
