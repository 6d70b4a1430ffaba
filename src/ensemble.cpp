// The native tree-ensemble engine: RcppParallel glue around ensemble.h.
//
// The `mp_native` list (R/native.R) is read on the main thread into a view of
// plain buffers (mp::Forest); workers own a range of rows and write only
// their rows' output cells, so results do not depend on the number of
// threads. The rows are processed in chunks, with a check for user
// interrupts on the main thread between chunks.
#include <Rcpp.h>
#include <RcppParallel.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include <modelprofiles/ensemble.h>

using namespace Rcpp;

namespace {

// Rows per block of the prediction loop, and bytes of ICE sums per block
// (measured on a 500-tree ranger forest: larger ICE blocks read the trees
// fewer times).
const std::size_t PREDICT_BLOCK = 2048;
const std::size_t ICE_BYTES = 1 << 20;

// The packing of a model, kept between calls in the model's `cache` element
// (an external pointer made by cpp_native_pack()), valid while the model's
// arrays are the same R vectors.
struct Cache {
  mp::Packed packed;
  std::vector<const void*> key;
  int n_outputs = 1;
};

// Keeps the R vectors behind an mp::Forest alive (coerced to the storage
// type the core reads, if they were not already) for the duration of a call.
struct Model {
  IntegerVector tree_start, feature, left, right, missing, cat_start, cat_len, cat_left;
  NumericVector threshold, value, base;
  SEXP outputs = R_NilValue;
  mp::Forest F;
  mp::Packed own;  // the packing when there is no valid cache

  // How to get the packing: the model's `cache` if valid, else check and
  // pack (CACHED); check and pack anew (FRESH); only check (CHECK).
  enum Mode { CACHED, FRESH, CHECK };

  explicit Model(const List& m, Mode mode = CACHED) {
    base = dbl_elt(m, "base");
    CharacterVector features = m["features"];
    F.n_features = features.size();
    if (m.containsElementNamed("kind") && as<std::string>(m["kind"]) == "packed") {
      // Converted straight into the packing (no flat arrays): the cache is
      // the model.
      Cache* pk = cache_of(m);
      if (pk == nullptr)
        stop("native model: the compiled model is no longer in memory (saved and loaded?); compile it again");
      F.use(pk->packed);
      F.n_outputs = pk->n_outputs;
      if (base.size() != F.n_outputs) stop("native model: `base` must have one value per output");
      F.base = base.begin();
      rules(m);
      return;
    }
    tree_start = int_elt(m, "tree_start");
    feature = int_elt(m, "feature");
    left = int_elt(m, "left");
    right = int_elt(m, "right");
    missing = int_elt(m, "missing");
    cat_start = int_elt(m, "cat_start");
    cat_len = int_elt(m, "cat_len");
    cat_left = int_elt(m, "cat_left");
    threshold = dbl_elt(m, "threshold");
    value = dbl_elt(m, "value");
    const R_xlen_t n = feature.size();
    if (left.size() != n || right.size() != n || missing.size() != n || cat_start.size() != n ||
        cat_len.size() != n || threshold.size() != n)
      stop("native model: node arrays of different lengths");
    if (tree_start.size() < 2) stop("native model: no trees");
    if (n == 0 || value.size() % n != 0) stop("native model: `value` is not n_nodes x n_outputs");
    F.n_trees = static_cast<int>(tree_start.size() - 1);
    F.n_nodes = static_cast<int>(n);
    F.n_outputs = static_cast<int>(value.size() / n);
    if (base.size() != F.n_outputs) stop("native model: `base` must have one value per output");
    F.tree_start = tree_start.begin();
    F.feature = feature.begin();
    F.threshold = threshold.begin();
    F.left = left.begin();
    F.right = right.begin();
    F.missing = missing.begin();
    F.cat_start = cat_start.begin();
    F.cat_len = cat_len.begin();
    F.cat_left = cat_left.begin();
    F.n_cat = static_cast<int>(cat_left.size());
    F.value = value.begin();
    F.base = base.begin();
    rules(m);
    if (F.tree_start[0] != 0 || F.tree_start[F.n_trees] != F.n_nodes)
      stop("native model: `tree_start` does not cover the nodes");
    Cache* pk = mode == CACHED ? cache_of(m) : nullptr;
    if (pk != nullptr && pk->key == key()) {
      F.use(pk->packed);
    } else {
      // Packing walks the trees: check them first.
      const std::string problem = mp::check_forest(F);
      if (!problem.empty()) stop("native model: %s", problem);
      if (mode == CHECK) return;
      mp::pack_forest(F, own);
      F.use(own);
    }
  }

  // The packing kept in the model's `cache` element, or nullptr.
  static Cache* cache_of(const List& m) {
    SEXP cache = m.containsElementNamed("cache") ? SEXP(m["cache"]) : R_NilValue;
    return TYPEOF(cache) == EXTPTRSXP ? static_cast<Cache*>(R_ExternalPtrAddr(cache)) : nullptr;
  }

  // The model's rules for splits, aggregation and the output scale.
  void rules(const List& m) {
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
    if (m.containsElementNamed("outputs")) outputs = m["outputs"];
  }

  // The arrays a packing was made from.
  std::vector<const void*> key() const {
    return {F.tree_start, F.feature, F.threshold, F.left, F.right, F.missing, F.cat_start,
            F.cat_len, F.cat_left, F.value,
            reinterpret_cast<const void*>(static_cast<std::size_t>(F.n_nodes)),
            reinterpret_cast<const void*>(static_cast<std::size_t>(F.n_outputs))};
  }

  static IntegerVector int_elt(const List& m, const char* name) {
    if (!m.containsElementNamed(name)) stop("native model: no element `%s`", name);
    return as<IntegerVector>(m[name]);
  }
  static NumericVector dbl_elt(const List& m, const char* name) {
    if (!m.containsElementNamed(name)) stop("native model: no element `%s`", name);
    return as<NumericVector>(m[name]);
  }

  NumericMatrix result(std::size_t rows) const {
    // A matrix's dimensions are R integers.
    if (rows > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      stop("native data: more than 2^31 - 1 rows in one call; use fewer rows per call");
    NumericMatrix out(static_cast<int>(rows), F.n_outputs);
    if (!Rf_isNull(outputs) && Rf_length(outputs) == F.n_outputs)
      colnames(out) = CharacterVector(outputs);
    return out;
  }
};

// Rows are processed in blocks of `block` rows (a tree's nodes are read once
// per block), gathered into a row-major buffer.
struct PredictWorker : public RcppParallel::Worker {
  mp::Forest F;
  const double* X;
  std::size_t n_data;
  int p;
  const int* src;
  std::vector<int> js;
  std::vector<const double*> vals;
  double* out;
  std::size_t m;
  std::size_t block;
  PredictWorker(const mp::Forest& F_, const double* X_, std::size_t n_, const int* s_,
                std::vector<int> js_, std::vector<const double*> v_, double* o_, std::size_t m_,
                std::size_t block_)
      : F(F_), X(X_), n_data(n_), p(F_.n_features), src(s_), js(js_), vals(v_), out(o_), m(m_),
        block(block_) {}
  void operator()(std::size_t begin, std::size_t end) {
    std::vector<double> rows(block * p), sums(block * F.n_outputs);
    for (std::size_t r0 = begin; r0 < end; r0 += block) {
      const std::size_t r1 = std::min(end, r0 + block);
      for (std::size_t r = r0; r < r1; ++r) {
        double* row = &rows[(r - r0) * p];
        const std::size_t i = static_cast<std::size_t>(src[r]);
        for (int f = 0; f < p; ++f) row[f] = X[i + static_cast<std::size_t>(f) * n_data];
        for (std::size_t q = 0; q < js.size(); ++q) row[js[q]] = vals[q][r];
      }
      mp::predict_rows(F, rows.data(), static_cast<int>(r1 - r0), p, sums.data(), out + r0, m);
    }
  }
};

struct IceWorker : public RcppParallel::Worker {
  mp::Forest F;
  const double* X;
  std::size_t n_data;
  int p;
  const int* rows;
  int j;
  const double* z;
  int G, nn;
  const int* pos;
  double* out;
  std::size_t stride;
  std::size_t block;
  IceWorker(const mp::Forest& F_, const double* X_, std::size_t n_, const int* rows_, int j_,
            const double* z_, int G_, int nn_, const int* pos_, double* o_, std::size_t stride_,
            std::size_t block_)
      : F(F_), X(X_), n_data(n_), p(F_.n_features), rows(rows_), j(j_), z(z_), G(G_), nn(nn_),
        pos(pos_), out(o_), stride(stride_), block(block_) {}
  void operator()(std::size_t begin, std::size_t end) {
    std::vector<double> buf(block * p);
    mp::IceScratch sc;
    for (std::size_t r0 = begin; r0 < end; r0 += block) {
      const std::size_t r1 = std::min(end, r0 + block);
      for (std::size_t r = r0; r < r1; ++r) {
        double* row = &buf[(r - r0) * p];
        const std::size_t i = static_cast<std::size_t>(rows[r]);
        for (int f = 0; f < p; ++f) row[f] = X[i + static_cast<std::size_t>(f) * n_data];
        row[j] = 0.0;  // never read: splits on j follow the grid
      }
      mp::ice_rows(F, buf.data(), static_cast<int>(r1 - r0), p, j, z, G, nn, pos,
                   out + r0 * static_cast<std::size_t>(G), stride, sc);
    }
  }
};

// Run a worker over [0, n) in chunks of `chunk` items, checking for user
// interrupts on the main thread between chunks.
void run_chunked(RcppParallel::Worker& w, std::size_t n, std::size_t chunk, std::size_t grain,
                 int threads) {
  chunk = std::max<std::size_t>(chunk, 1);
  for (std::size_t c0 = 0; c0 < n; c0 += chunk) {
    const std::size_t c1 = std::min(n, c0 + chunk);
    RcppParallel::parallelFor(c0, c1, w, grain, std::max(threads, 1));
    Rcpp::checkUserInterrupt();
  }
}

void check_X(const NumericMatrix& X, const mp::Forest& F) {
  if (X.ncol() != F.n_features)
    stop("native data: %d columns for a model of %d features", X.ncol(), F.n_features);
}

void check_rows(const IntegerVector& r, std::size_t n, const char* what) {
  for (R_xlen_t i = 0; i < r.size(); ++i)
    if (r[i] == NA_INTEGER || r[i] < 0 || static_cast<std::size_t>(r[i]) >= n)
      stop("native data: %s out of range", what);
}

}  // namespace

// Structural check of a compiled model: "" when it is valid, else the
// problem.
// [[Rcpp::export(rng = false)]]
std::string cpp_native_check(List model) {
  try {
    Model M(model, Model::CHECK);
  } catch (std::exception& e) {
    return e.what();
  }
  return "";
}

// The packed nodes of a model, to keep in its `cache` element (valid while
// the model's arrays are the same R vectors; rebuilt by every call
// otherwise).
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_pack(List model) {
  Model M(model, Model::FRESH);
  Cache* pk = new Cache;
  std::swap(pk->packed, M.own);
  pk->key = M.key();
  pk->n_outputs = M.F.n_outputs;
  return XPtr<Cache>(pk, true);
}

// Predictions of stacked rows: row r is row src[r] (0-based) of X (the
// model's features as a double matrix, from native_matrix()) with features
// js[q] (0-based) set to vals[[q]][r]. Returns a length(src) x n_outputs
// matrix on the prediction scale.
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_predict(List model, NumericMatrix X, IntegerVector src, IntegerVector js,
                                 List vals, int threads) {
  Model M(model);
  check_X(X, M.F);
  const std::size_t m = src.size();
  check_rows(src, X.nrow(), "source row");
  if (js.size() != vals.size()) stop("native data: `js` and `vals` differ in length");
  std::vector<int> jv(js.size());
  std::vector<const double*> vp(js.size());
  std::vector<NumericVector> keep(js.size());
  for (R_xlen_t q = 0; q < js.size(); ++q) {
    if (js[q] == NA_INTEGER || js[q] < 0 || js[q] >= M.F.n_features) stop("native data: feature index out of range");
    keep[q] = as<NumericVector>(vals[q]);
    if (static_cast<std::size_t>(keep[q].size()) != m) stop("native data: `vals[[%d]]` must have one value per row", q + 1);
    jv[q] = js[q];
    vp[q] = keep[q].begin();
  }
  NumericMatrix out = M.result(m);
  // Blocks of rows whose feature values fit in 2 MB, at most an equal share
  // of the rows per thread; chunks of a few blocks per thread between
  // interrupt checks.
  const int p = std::max(M.F.n_features, 1);
  const std::size_t nt = static_cast<std::size_t>(std::max(threads, 1));
  std::size_t block = std::max<std::size_t>(16, std::min<std::size_t>(PREDICT_BLOCK, 262144 / p));
  block = std::max<std::size_t>(1, std::min(block, (m + nt - 1) / nt));
  PredictWorker w(M.F, X.begin(), X.nrow(), src.begin(), jv, vp, out.begin(), m, block);
  run_chunked(w, m, block * 4 * std::max(threads, 1), block, threads);
  return out;
}

// ICE curves: for each row rows[i] (0-based) of X, the predictions with
// feature j (0-based) set to each grid value, from one walk per tree. Returns
// a (G * length(rows)) x n_outputs matrix in observation-major order (row i's
// G predictions consecutive: grid point g of row i at g + i * G), equal to
// cpp_native_predict() on the stacked rows bit for bit. The grid may be in
// any order and hold NaN (a missing value).
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_native_ice(List model, NumericMatrix X, IntegerVector rows, int j,
                             NumericVector grid, int threads) {
  Model M(model);
  check_X(X, M.F);
  check_rows(rows, X.nrow(), "row");
  if (j == NA_INTEGER || j < 0 || j >= M.F.n_features) stop("native data: feature index out of range");
  const int G = grid.size();
  const std::size_t n = rows.size();
  if (static_cast<double>(n) * G > 2147483647.0) stop("native data: more than 2^31 - 1 predictions; use fewer rows per call");
  NumericMatrix out = M.result(n * static_cast<std::size_t>(G));
  if (G == 0 || n == 0) return out;
  // The grid sorted (NaN last), and where each sorted point goes.
  std::vector<int> pos(G);
  for (int g = 0; g < G; ++g) pos[g] = g;
  const double* gv = grid.begin();
  std::stable_sort(pos.begin(), pos.end(), [gv](int a, int b) {
    const bool na = std::isnan(gv[a]), nb = std::isnan(gv[b]);
    if (na || nb) return !na && nb;
    return gv[a] < gv[b];
  });
  std::vector<double> z(G);
  int nn = 0;
  for (int g = 0; g < G; ++g) {
    z[g] = gv[pos[g]];
    if (!std::isnan(z[g])) nn = g + 1;
  }
  // Blocks of rows whose sums (G x outputs each) fit in ICE_BYTES, at most
  // an equal share of the rows per thread.
  const int p = std::max(M.F.n_features, 1);
  const std::size_t per_row = static_cast<std::size_t>(G) * M.F.n_outputs * sizeof(double);
  std::size_t block = std::max<std::size_t>(1, ICE_BYTES / per_row);
  block = std::min(block, std::max<std::size_t>(1, 262144 / p));
  block = std::min(block, (n + threads - 1) / std::max(threads, 1));
  block = std::max<std::size_t>(block, 1);
  IceWorker w(M.F, X.begin(), X.nrow(), rows.begin(), j, z.data(), G, nn, pos.data(), out.begin(),
              n * static_cast<std::size_t>(G), block);
  run_chunked(w, n, block * std::max(threads, 1), block, threads);
  return out;
}

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
  Cache* pk = new Cache;
  XPtr<Cache> out(pk, true);
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

// What a compiled model holds, from its packing: the numbers of trees,
// nodes (reachable or not), leaves and categorical splits, and the
// thresholds of the numeric splits on feature j (0-based; none when j is
// NA), in packed order. For tests and messages.
// [[Rcpp::export(rng = false)]]
List cpp_native_info(List model, int j) {
  Model M(model);
  int leaves = 0, cats = 0;
  std::vector<double> thr;
  for (int u = 0; u < M.F.n_nodes; ++u) {
    const mp::Node& d = M.F.nodes[u];
    if (d.feature < 0) {
      ++leaves;
    } else if (d.feature & mp::CAT_FLAG) {
      ++cats;
    } else if (j != NA_INTEGER && d.feature == j) {
      thr.push_back(d.threshold);
    }
  }
  return List::create(_["trees"] = M.F.n_trees, _["nodes"] = M.F.n_nodes, _["leaves"] = leaves,
                      _["categorical_splits"] = cats,
                      _["thresholds"] = NumericVector(thr.begin(), thr.end()));
}
