// Predictions of a packed tree ensemble, row by row: each row walks every
// tree to its leaf. R-free; called by RcppParallel workers from any thread
// (each writes only its own rows' outputs, so the numbers do not depend on
// the number of threads). The split predicates and finish() are shared with
// the set walk (setwalk.h), so that both paths route every value alike.
#ifndef MODELPROFILES_PREDICT_H
#define MODELPROFILES_PREDICT_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "forest.h"

#if defined(__GNUC__)
#define MP_INLINE inline __attribute__((always_inline))
#else
#define MP_INLINE inline
#endif

namespace mp {

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

// The grid point of a numeric split at threshold t: where the side of the
// split changes, so that a profile's value at it holds on one side exactly
// (the doubles routed as the grid point is). In double precision, t itself:
// with rule 0 (x <= t left) the doubles up to t go as t does, with rule 1
// (x < t left) those from t on. In single precision (float32: x is rounded
// to the nearest float, ties to even, as a C cast does, before it is
// compared with the float t; see goes_left_numeric()), the doubles that
// round to t form an interval around it, and the side changes at its end:
// for rule 1 its smallest double (the first routed right), for rule 0 its
// largest (the last routed left). The interval ends halfway to the
// neighbouring float (exact in double), the halfway double included when
// t's last mantissa bit is 0 (it rounds to t), excluded otherwise.
inline double float_neighbour(float f, bool up) {
  const float n = std::nextafter(f, up ? std::numeric_limits<float>::infinity()
                                       : -std::numeric_limits<float>::infinity());
  // Past the largest float: 2^128, where rounding to float overflows.
  if (std::isinf(n)) return up ? std::ldexp(1.0, 128) : -std::ldexp(1.0, 128);
  return static_cast<double>(n);
}

inline double split_point(double t, int rule, bool float32) {
  if (!float32 || !std::isfinite(t)) return t;
  const float tf = static_cast<float>(t);
  std::uint32_t bits;
  std::memcpy(&bits, &tf, sizeof bits);
  const bool even = (bits & 1u) == 0u;
  const double inf = std::numeric_limits<double>::infinity();
  if (rule == 1) {
    const double mid = 0.5 * (float_neighbour(tf, false) + static_cast<double>(tf));
    return even ? mid : std::nextafter(mid, inf);
  }
  const double mid = 0.5 * (float_neighbour(tf, true) + static_cast<double>(tf));
  return even ? mid : std::nextafter(mid, -inf);
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

// The split rules of a model as template parameters of the walks, so that
// the inner loop has no test of them: AUX (the model has nodes with a
// missing child or a categorical split; without, a missing value is
// unroutable), RULE and F32 as Forest::rule and Forest::float32. next() is
// child_of() with the numeric choice made without a branch (the direction
// is a coin flip to the branch predictor): the same child for every value.
template <bool AUX, int RULE, bool F32>
struct Step {
  static MP_INLINE bool left(double x, double t) {
    if (F32) {
      const float xf = static_cast<float>(x), tf = static_cast<float>(t);
      return RULE == 0 ? xf <= tf : xf < tf;
    }
    return RULE == 0 ? x <= t : x < t;
  }
  static MP_INLINE int next(const Forest& F, int node, const Node& d, double x) {
    if (std::isnan(x)) return AUX ? missing_child(F, node) : -1;
    if (AUX && (d.feature & CAT_FLAG)) {
      return goes_left_categorical(F, node, x) ? node + 1 : d.right;
    }
    const int l = node + 1;
    const int go_right = -static_cast<int>(!left(x, d.threshold));
    return l ^ (go_right & (l ^ d.right));
  }
};

// Call fn(Step<...>()) with the model's rules.
template <typename Fn>
inline void with_rules(const Forest& F, Fn&& fn) {
  if (F.aux != nullptr) {
    if (F.rule == 0) {
      if (F.float32) fn(Step<true, 0, true>()); else fn(Step<true, 0, false>());
    } else {
      if (F.float32) fn(Step<true, 1, true>()); else fn(Step<true, 1, false>());
    }
  } else {
    if (F.rule == 0) {
      if (F.float32) fn(Step<false, 0, true>()); else fn(Step<false, 0, false>());
    } else {
      if (F.float32) fn(Step<false, 1, true>()); else fn(Step<false, 1, false>());
    }
  }
}

// Rows walked at once (their memory reads overlap).
const int LANES = 16;

// Walk rows 0..B-1 (row b's feature values at rows[b * p ...]) down the
// tree rooted at `root`, LANES rows at a time, a lane that reaches a leaf
// taking the next row; done(b, leaf) for each row (leaf = -1: unroutable).
template <typename S, typename Done>
inline void walk_tree(const Forest& F, int root, const double* rows, std::size_t p, int B,
                      Done&& done) {
  const int idle = std::numeric_limits<int>::min();
  int cur[LANES], who[LANES];
  const double* at[LANES];
  int next = 0, active = 0;
  for (int l = 0; l < LANES; ++l) {
    who[l] = 0;
    at[l] = rows;
    cur[l] = idle;
    if (next < B) {
      cur[l] = root;
      who[l] = next;
      at[l] = rows + static_cast<std::size_t>(next) * p;
      ++next;
      ++active;
    }
  }
  const Node* nodes = F.nodes;
  while (active > 0) {
    for (int l = 0; l < LANES; ++l) {
      const int c = cur[l];
      if (c == idle) continue;
      if (c >= 0) {
        const Node& d = nodes[c];
        if (d.feature >= 0) {
          cur[l] = S::next(F, c, d, at[l][d.feature & ~CAT_FLAG]);
          continue;
        }
      }
      done(who[l], c);
      if (next < B) {
        cur[l] = root;
        who[l] = next;
        at[l] = rows + static_cast<std::size_t>(next) * p;
        ++next;
      } else {
        cur[l] = idle;
        --active;
      }
    }
  }
}

// Predictions of B rows (row-major feature values rows[b * p + f], p >=
// n_features): output k of row b to out[b + k * stride]. `sums` is scratch
// of B * n_outputs cells. Each row's sums take the trees in order.
inline void predict_rows(const Forest& F, const double* rows, int B, int p, double* sums,
                         double* out, std::size_t stride) {
  const std::size_t K = static_cast<std::size_t>(F.n_outputs);
  for (int b = 0; b < B; ++b) init_sums(F, sums + b * K);
  with_rules(F, [&](auto step) {
    using S = decltype(step);
    for (int t = 0; t < F.n_trees; ++t) {
      walk_tree<S>(F, F.roots[t], rows, static_cast<std::size_t>(p), B,
                   [&](int b, int leaf) { add_leaf(F, leaf, sums + b * K); });
    }
  });
  for (int b = 0; b < B; ++b) finish(F, sums + b * K, out + b, stride);
}

// The leaf (packed index, -1 when unroutable) of each of B rows (as in
// predict_rows()) in each tree: tree t's leaf of row b to leaves[b + t * ld].
inline void leaf_rows(const Forest& F, const double* rows, int B, int p, int* leaves,
                      std::size_t ld) {
  with_rules(F, [&](auto step) {
    using S = decltype(step);
    for (int t = 0; t < F.n_trees; ++t) {
      int* col = leaves + static_cast<std::size_t>(t) * ld;
      walk_tree<S>(F, F.roots[t], rows, static_cast<std::size_t>(p), B,
                   [&](int b, int leaf) { col[b] = leaf; });
    }
  });
}

// A stacked design: row r is row src[r] of the n rows of the p feature
// columns (cols[f] points to feature f's n values, read in place, never
// copied), with features js[q] set to vals[q][r].
struct Design {
  std::vector<const double*> cols;
  std::size_t n = 0;
  int p = 0;
  const int* src = nullptr;
  std::vector<int> js;
  std::vector<const double*> vals;
};

// Rows [r0, r1) of a design, row-major (p values each) into `rows`.
inline void design_rows(const Design& D, std::size_t r0, std::size_t r1, double* rows) {
  const std::size_t p = static_cast<std::size_t>(D.p);
  for (std::size_t r = r0; r < r1; ++r) {
    double* row = rows + (r - r0) * p;
    const std::size_t i = static_cast<std::size_t>(D.src[r]);
    for (std::size_t f = 0; f < p; ++f) row[f] = D.cols[f][i];
    for (std::size_t q = 0; q < D.js.size(); ++q) row[D.js[q]] = D.vals[q][r];
  }
}

// Rows per block of predict_range(): their feature values fit in 256 KB
// (with a tree's nodes, in a core's level-2 cache: a tree's nodes are read
// once per block), and each of `threads` threads gets a block of the m rows
// at least.
inline std::size_t predict_block(int p, std::size_t m, int threads) {
  const std::size_t pp = static_cast<std::size_t>(std::max(p, 1));
  const std::size_t nt = static_cast<std::size_t>(std::max(threads, 1));
  std::size_t block = std::max<std::size_t>(16, std::min<std::size_t>(4096, 32768 / pp));
  return std::max<std::size_t>(1, std::min(block, (m + nt - 1) / nt));
}

// Predictions of the design's rows [begin, end), in blocks of `block` rows:
// output k of row r to out[r + k * stride].
inline void predict_range(const Forest& F, const Design& D, std::size_t begin, std::size_t end,
                          std::size_t block, double* out, std::size_t stride) {
  std::vector<double> rows(block * D.p), sums(block * F.n_outputs);
  for (std::size_t r0 = begin; r0 < end; r0 += block) {
    const std::size_t r1 = std::min(end, r0 + block);
    design_rows(D, r0, r1, rows.data());
    predict_rows(F, rows.data(), static_cast<int>(r1 - r0), D.p, sums.data(), out + r0, stride);
  }
}

}  // namespace mp

#endif
