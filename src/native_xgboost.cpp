// An xgboost model (R/native_boost.R, native_model.xgb.Booster()) read from
// its UBJSON serialisation by mp::read_xgboost() (xgboost.h).
#include <Rcpp.h>
#include <string>
#include <modelprofiles/xgboost.h>

using namespace Rcpp;

// The settings and the flat arrays of the first `keep` trees (all when
// keep < 0) of the model serialised in `ubj`, for a model of p features:
// list(booster, objective, base_score, num_class, num_target,
// num_parallel_tree, n_trees_all, tree_start, feature, threshold, left,
// right, missing, leaf_value, group); or a character string, the reason it
// cannot be converted.
// [[Rcpp::export(rng = false)]]
SEXP cpp_xgb_read(RawVector ubj, int p, int keep) {
  mp::XgbModel M;
  const std::string problem = mp::read_xgboost(RAW(ubj), ubj.size(), p, keep, M);
  if (!problem.empty()) return wrap(problem);
  return List::create(
      _["booster"] = M.booster, _["objective"] = M.objective, _["base_score"] = M.base_score,
      _["num_class"] = M.num_class, _["num_target"] = M.num_target,
      _["num_parallel_tree"] = M.num_parallel_tree, _["n_trees_all"] = M.n_trees_all,
      _["tree_start"] = wrap(M.tree_start), _["feature"] = wrap(M.feature),
      _["threshold"] = wrap(M.threshold), _["left"] = wrap(M.left), _["right"] = wrap(M.right),
      _["missing"] = wrap(M.missing), _["leaf_value"] = wrap(M.leaf_value),
      _["group"] = wrap(M.group));
}
