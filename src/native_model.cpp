// Reading a compiled model (the `mp_native` list) into plain buffers, and
// packing it once into the model's cache.
#include "native_model.h"

#include <algorithm>
#include <limits>
#include <vector>
#include <string>
#include <utility>
#include <modelprofiles/pack.h>
#include <modelprofiles/predict.h>

using namespace Rcpp;

namespace {

IntegerVector int_elt(const List& m, const char* name) {
  if (!m.containsElementNamed(name)) stop("native model: no element `%s`", name);
  return as<IntegerVector>(m[name]);
}

NumericVector dbl_elt(const List& m, const char* name) {
  if (!m.containsElementNamed(name)) stop("native model: no element `%s`", name);
  return as<NumericVector>(m[name]);
}

// The packing kept in the model's `cache` element, or nullptr.
NativeCache* cache_of(const List& m) {
  SEXP cache = m.containsElementNamed("cache") ? SEXP(m["cache"]) : R_NilValue;
  return TYPEOF(cache) == EXTPTRSXP ? static_cast<NativeCache*>(R_ExternalPtrAddr(cache))
                                    : nullptr;
}

}  // namespace

NativeModel::NativeModel(const List& m, bool use_cache) {
  base_ = dbl_elt(m, "base");
  CharacterVector features = m["features"];
  F.n_features = features.size();
  if (m.containsElementNamed("kind") && as<std::string>(m["kind"]) == "packed") {
    // Converted straight into the packing (no flat arrays).
    NativeCache* pk = cache_of(m);
    if (pk == nullptr)
      stop("native model: the compiled model is no longer in memory (saved and loaded?); compile it again");
    F.use(pk->packed);
    F.n_outputs = pk->n_outputs;
    if (base_.size() != F.n_outputs) stop("native model: `base` must have one value per output");
    F.base = base_.begin();
    rules(m);
    return;
  }
  tree_start_ = int_elt(m, "tree_start");
  feature_ = int_elt(m, "feature");
  left_ = int_elt(m, "left");
  right_ = int_elt(m, "right");
  missing_ = int_elt(m, "missing");
  cat_start_ = int_elt(m, "cat_start");
  cat_len_ = int_elt(m, "cat_len");
  cat_left_ = int_elt(m, "cat_left");
  threshold_ = dbl_elt(m, "threshold");
  value_ = dbl_elt(m, "value");
  const R_xlen_t n = feature_.size();
  if (left_.size() != n || right_.size() != n || missing_.size() != n ||
      cat_start_.size() != n || cat_len_.size() != n || threshold_.size() != n)
    stop("native model: node arrays of different lengths");
  if (tree_start_.size() < 2) stop("native model: no trees");
  if (n == 0 || value_.size() % n != 0) stop("native model: `value` is not n_nodes x n_outputs");
  F.n_trees = static_cast<int>(tree_start_.size() - 1);
  F.n_nodes = static_cast<int>(n);
  F.n_outputs = static_cast<int>(value_.size() / n);
  if (base_.size() != F.n_outputs) stop("native model: `base` must have one value per output");
  F.tree_start = tree_start_.begin();
  F.feature = feature_.begin();
  F.threshold = threshold_.begin();
  F.left = left_.begin();
  F.right = right_.begin();
  F.missing = missing_.begin();
  F.cat_start = cat_start_.begin();
  F.cat_len = cat_len_.begin();
  F.cat_left = cat_left_.begin();
  F.n_cat = static_cast<int>(cat_left_.size());
  F.value = value_.begin();
  F.base = base_.begin();
  rules(m);
  const std::string problem = mp::check_shape(F);
  if (!problem.empty()) stop("native model: %s", problem);
  NativeCache* pk = use_cache ? cache_of(m) : nullptr;
  if (pk != nullptr && pk->key == key()) {
    F.use(pk->packed);
    return;
  }
  // Packing walks the trees: check them first.
  const std::string bad = mp::check_forest(F);
  if (!bad.empty()) stop("native model: %s", bad);
  mp::pack_forest(F, own);
  F.use(own);
}

// The model's rules for splits, aggregation and the output scale.
void NativeModel::rules(const List& m) {
  F.rule = as<int>(m["rule"]);
  if (F.rule != 0 && F.rule != 1) stop("native model: `rule` must be 0 or 1");
  F.float32 = as<bool>(m["float32"]);
  const std::string agg = as<std::string>(m["aggregate"]);
  if (agg == "mean") F.aggregate = mp::AGG_MEAN;
  else if (agg == "sum") F.aggregate = mp::AGG_SUM;
  else stop("native model: unknown aggregate '%s'", agg);
  const std::string tr = as<std::string>(m["transform"]);
  if (tr == "identity") F.transform = mp::TR_IDENTITY;
  else if (tr == "logistic") F.transform = mp::TR_LOGISTIC;
  else if (tr == "exp") F.transform = mp::TR_EXP;
  else if (tr == "softmax") F.transform = mp::TR_SOFTMAX;
  else stop("native model: unknown transform '%s'", tr);
  F.na = NA_REAL;
  if (m.containsElementNamed("outputs")) outputs_ = m["outputs"];
}

std::vector<const void*> NativeModel::key() const {
  return {F.tree_start, F.feature, F.threshold, F.left, F.right, F.missing, F.cat_start,
          F.cat_len, F.cat_left, F.value,
          reinterpret_cast<const void*>(static_cast<std::size_t>(F.n_nodes)),
          reinterpret_cast<const void*>(static_cast<std::size_t>(F.n_outputs))};
}

NumericMatrix NativeModel::result(std::size_t rows) const {
  // A matrix's dimensions are R integers.
  if (rows > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    stop("native data: more than 2^31 - 1 rows in one call; use fewer rows per call");
  NumericMatrix out(static_cast<int>(rows), F.n_outputs);
  if (!outputs_.isNULL() && Rf_length(outputs_) == F.n_outputs)
    colnames(out) = CharacterVector(outputs_);
  return out;
}

// The packed nodes of a model, to keep in its `cache` element (valid while
// the model's arrays are the same R vectors; rebuilt by every call
// otherwise). Errors when the model is malformed.
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_pack(List model) {
  NativeModel M(model, false);
  NativeCache* pk = new NativeCache;
  XPtr<NativeCache> out(pk, true);
  std::swap(pk->packed, M.own);
  pk->key = M.key();
  pk->n_outputs = M.F.n_outputs;
  return out;
}

// Trees, nodes, outputs and the bytes of the packing of a model (packing it
// when it has no valid cache).
// [[Rcpp::export(rng = false)]]
NumericVector cpp_native_size(List model) {
  NativeModel M(model);
  const NativeCache* pk = cache_of(model);
  const mp::Packed* P = pk != nullptr && M.F.nodes == pk->packed.nodes.data() ? &pk->packed : &M.own;
  const double bytes = static_cast<double>(P->nodes.size()) * sizeof(mp::Node) +
                       static_cast<double>(P->aux.size()) * sizeof(int) +
                       static_cast<double>(P->table.size()) * sizeof(mp::Aux) +
                       static_cast<double>(P->tree_start.size() + P->cat_left.size()) * sizeof(int) +
                       static_cast<double>(P->leaf_values.size()) * sizeof(double);
  NumericVector out = NumericVector::create(M.F.n_trees, M.F.n_nodes, M.F.n_outputs, bytes);
  out.names() = CharacterVector::create("trees", "nodes", "outputs", "bytes");
  return out;
}

// The grid points of the distinct numeric splits on feature j (0-based) of a
// model (mp::split_point(): the thresholds, or, for a model that compares in
// single precision, the first double right of a float threshold with rule 1
// and the last double left of it with rule 0), ascending, with attributes
// "rule" (0: left iff x <= t; 1: left iff x < t) and "float32" (the
// comparison is in single precision): the points where its partial
// dependence in j can change.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_native_splits(List model, int j) {
  NativeModel M(model);
  const mp::Forest& F = M.F;
  if (j == NA_INTEGER || j < 0 || j >= F.n_features) stop("native data: feature index out of range");
  std::vector<double> t;
  for (int i = 0; i < F.n_nodes; ++i) {
    const mp::Node& d = F.nodes[i];
    // numeric (no CAT_FLAG), not a leaf
    if (d.feature == j) t.push_back(mp::split_point(d.threshold, F.rule, F.float32));
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  NumericVector out(t.begin(), t.end());
  out.attr("rule") = F.rule;
  out.attr("float32") = F.float32;
  return out;
}

FeatureColumns feature_columns(SEXP X, int n_features) {
  FeatureColumns out;
  if (TYPEOF(X) == REALSXP && Rf_isMatrix(X)) {
    if (Rf_ncols(X) != n_features)
      stop("native data: %d columns for a model of %d features", Rf_ncols(X), n_features);
    out.n = static_cast<std::size_t>(Rf_nrows(X));
    for (int f = 0; f < n_features; ++f) out.cols.push_back(REAL(X) + f * out.n);
    return out;
  }
  if (TYPEOF(X) != VECSXP) stop("native data: a list of feature columns or a double matrix needed");
  if (Rf_xlength(X) != n_features)
    stop("native data: %d columns for a model of %d features", static_cast<int>(Rf_xlength(X)),
         n_features);
  SEXP n_attr = Rf_getAttrib(X, Rf_install("n"));
  if (n_features > 0) {
    out.n = static_cast<std::size_t>(Rf_xlength(VECTOR_ELT(X, 0)));
  } else if (n_attr != R_NilValue) {
    out.n = static_cast<std::size_t>(Rf_asReal(n_attr));
  }
  for (int f = 0; f < n_features; ++f) {
    SEXP col = VECTOR_ELT(X, f);
    if (TYPEOF(col) != REALSXP) stop("native data: feature column %d is not double", f + 1);
    if (static_cast<std::size_t>(Rf_xlength(col)) != out.n)
      stop("native data: feature columns differ in length");
    out.cols.push_back(REAL(col));
  }
  return out;
}
