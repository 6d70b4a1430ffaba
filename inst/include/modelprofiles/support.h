// Where a profile extrapolates (the `_extrapolation_` column): for each
// evaluation point of a profile -- background row i with the profiled
// variable(s) set to a grid value -- whether it lies outside the data's
// support. R-free.
//
// The space: the model's variables, numeric ones standardised (by R) and
// categorical ones as integer codes. The squared distance of two rows sums,
// per numeric variable, the squared difference (both missing: 0; one
// missing: `mismatch`) and, per categorical variable, `mismatch` when the
// codes differ. A point's nearest-neighbour distance is its least squared
// distance to the reference rows other than its own row.
//
// The cost. An evaluation point x_i^{j=z} differs from row i in coordinate
// j only, so with D_{-j}(i, k) the squared distance of rows i and k without
// coordinate j,
//   d2(x_i^{j=z}, x_k) = D_{-j}(i, k) + (z - x_kj)^2.
// Only the verdict (beyond the threshold t2 or not) is needed, and a row
// whose offset D_{-j}(i, k) is beyond t2 is beyond it for every z: the
// candidates are the few rows within t2 in the other coordinates, after the
// m distances of row i computed once for all variables. A numeric candidate
// holds the z with (z - x_kj)^2 + D_{-j}(i, k) <= t2, an interval around
// x_kj: a grid value is inside when an interval holds it, found on the
// sorted grid without sorting the candidates, O(m + c + G) per row and
// variable for c candidates. (An earlier version took the lower envelope
// of the parabolas in z, Felzenszwalb and Huttenlocher's distance
// transform, after sorting them: the same verdicts, at twice the cost.)
// For a categorical j the minimum over k is the least D_{-j}(i, k) among
// the rows of level z, or the least over all rows plus `mismatch`. No
// distance is recomputed per grid value. A pair (a, b) does the same in b
// for every grid value of a.
#ifndef MODELPROFILES_SUPPORT_H
#define MODELPROFILES_SUPPORT_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// AVX's four lanes, chosen at run time where the compiler can build a
// function for it without building the rest so (GCC and Clang on x86, not
// Windows, whose stack is not aligned for AVX's registers).
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__)) && !defined(_WIN32)
#define MP_SUPPORT_AVX 1
#include <immintrin.h>
#endif

namespace mp {

// The rows: n x pn standardised numeric columns (column-major, NaN when
// missing) and n x pf codes (>= 0; a missing value has a code of its own);
// `rows`, when not null, the numeric columns again row by row (n x pn,
// row-major: the reference rows, read a row at a time).
struct SupportSpace {
  const double* num;
  int pn;
  const unsigned char* num_na;  // per numeric column: has it a missing value?
  const int* fac;
  int pf;
  std::size_t n;
  double mismatch;
  const double* rows = nullptr;
  // With `rows`, optionally the numeric columns of rows 4j, ..., 4j + 3
  // interleaved: quads[4 pn j + 4 c + (k - 4j)] is row k's column c (for
  // every k < n), for loads of two or four rows' column at once.
  const double* quads = nullptr;
  int lanes = 0;  // 0: the most the processor runs (support_lanes())
};

inline double support_num_term(double a, double b, double mismatch) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return (na && nb) ? 0.0 : mismatch;
  const double d = a - b;
  return d * d;
}

#if defined(MP_SUPPORT_AVX)
// Does the processor (and its system) run AVX? Asked once.
inline bool support_has_avx() {
  static const bool yes = __builtin_cpu_supports("avx") != 0;
  return yes;
}

// support_row_distances()'s clean loop four reference rows at a time, in
// AVX's four lanes, from row k (a multiple of 4) while k + 3 < m: each
// lane does the scalar loop's operations in its order (IEEE, no fused
// multiply-add: the function is built for AVX alone, which has none); the
// next row.
__attribute__((target("avx"))) inline std::size_t support_distances_avx(const double* a, int pn,
                                                                       const double* quads, std::size_t k,
                                                                       std::size_t m, double* out,
                                                                       double* mx) {
  for (; k + 3 < m; k += 4) {
    const double* r = quads + k * static_cast<std::size_t>(pn);
    __m256d sum = _mm256_setzero_pd(), big = _mm256_setzero_pd();
    for (int c = 0; c < pn; ++c) {
      const __m256d d = _mm256_sub_pd(_mm256_set1_pd(a[c]), _mm256_loadu_pd(r + 4 * c));
      const __m256d t = _mm256_mul_pd(d, d);
      sum = _mm256_add_pd(sum, t);
      big = _mm256_max_pd(t, big);
    }
    _mm256_storeu_pd(out + k, sum);
    if (mx) _mm256_storeu_pd(mx + k, big);
  }
  return k;
}
#endif

// The reference rows support_row_distances() takes at once from rs.quads:
// 4 with AVX, else 2 (SSE2), or rs.lanes when it is 1 (scalar), 2 or 4
// (4 only with AVX), as tests ask.
inline std::size_t support_lanes(const SupportSpace& rs) {
  std::size_t most = 1;
#if defined(__SSE2__)
  most = 2;
#endif
#if defined(MP_SUPPORT_AVX)
  if (support_has_avx()) most = 4;
#endif
  return rs.lanes > 0 ? std::min(most, static_cast<std::size_t>(rs.lanes)) : most;
}

// Squared distances of row i of s to the rows k0, k0 + 1, ... of the
// reference rows rs (the same columns; its rows contiguous, with `rows`):
// out[k0..rs.n); with `mx`, the largest term of each sum in mx[k0..rs.n).
// Each sum adds its terms in the columns' order (numeric, then
// categorical), a reference row at a time, in registers (the distance of
// rows a and b is that of b and a, to the last bit). `a`: pn doubles of
// work space.
inline void support_row_distances(const SupportSpace& s, std::size_t i, const SupportSpace& rs,
                                  double* out, double* mx, double* a, std::size_t k0 = 0) {
  const std::size_t m = rs.n;
  const int pn = s.pn;
  bool clean = true;
  for (int c = 0; c < pn; ++c) {
    a[c] = s.num[static_cast<std::size_t>(c) * s.n + i];
    clean = clean && !rs.num_na[c] && !std::isnan(a[c]);
  }
  const double* R = rs.rows;
  // (Reference row k alone.)
  auto one = [&](std::size_t k) {
    const double* r = R + k * static_cast<std::size_t>(pn);
    double sum = 0.0, big = 0.0;
    if (clean) {
      for (int c = 0; c < pn; ++c) {
        const double d = a[c] - r[c];
        const double t = d * d;
        sum += t;
        big = t > big ? t : big;
      }
    } else {
      for (int c = 0; c < pn; ++c) {
        const double t = support_num_term(a[c], r[c], s.mismatch);
        sum += t;
        big = t > big ? t : big;
      }
    }
    out[k] = sum;
    if (mx) mx[k] = big;
  };
  std::size_t k = k0;
#if defined(__SSE2__)
  // Four (AVX) or two (SSE2) reference rows at a time, one in each lane:
  // each lane's operations are one()'s, in its order (IEEE, no fused
  // multiply-add; max is `t > big ? t : big`), so the sums are the same to
  // the last bit. (From the interleaved quads: one load for the lanes'
  // column; the first rows alone up to a multiple of the lanes.)
  const std::size_t lanes = support_lanes(rs);
  const double* qd = rs.quads;
  if (clean && qd && lanes > 1 && k + 1 < m) {
    for (; k % lanes != 0 && k < m; ++k) one(k);
#if defined(MP_SUPPORT_AVX)
    if (lanes == 4) k = support_distances_avx(a, pn, qd, k, m, out, mx);
#endif
    for (; k + 1 < m; k += 2) {
      const double* r = qd + (k - k % 4) * static_cast<std::size_t>(pn) + k % 4;
      __m128d sum = _mm_setzero_pd(), big = _mm_setzero_pd();
      for (int c = 0; c < pn; ++c) {
        const __m128d d = _mm_sub_pd(_mm_set1_pd(a[c]), _mm_loadu_pd(r + 4 * c));
        const __m128d t = _mm_mul_pd(d, d);
        sum = _mm_add_pd(sum, t);
        big = _mm_max_pd(t, big);
      }
      _mm_storeu_pd(out + k, sum);
      if (mx) _mm_storeu_pd(mx + k, big);
    }
  }
#endif
  for (; k < m; ++k) one(k);
  for (int c = 0; c < s.pf; ++c) {
    const int b = s.fac[static_cast<std::size_t>(c) * s.n + i];
    const int* col = rs.fac + static_cast<std::size_t>(c) * m;
    for (std::size_t k = k0; k < m; ++k) {
      const double t = (col[k] != b) ? s.mismatch : 0.0;
      out[k] += t;
      if (mx && t > mx[k]) mx[k] = t;
    }
  }
}

// The nearest other reference row: for the rows a = task, task + tasks,
// ... of rs, the distances to the rows after a (each pair once), the least
// of each row's in best[0..rs.n) (start: +Inf; the least over the tasks'
// best is each row's squared distance to its nearest other reference row,
// the same whatever the tasks). `buf`: rs.n + 3 rs.pn doubles.
inline void support_reference(const SupportSpace& rs, std::size_t task, std::size_t tasks, double* best,
                              double* buf) {
  const std::size_t m = rs.n;
  for (std::size_t a = task; a < m; a += tasks) {
    support_row_distances(rs, a, rs, buf, nullptr, buf + m, a + 1);
    double b = best[a];
    for (std::size_t k = a + 1; k < m; ++k) {
      const double d = buf[k];
      b = d < b ? d : b;
      best[k] = d < best[k] ? d : best[k];
    }
    best[a] = b;
  }
}

// Is a squared distance beyond the threshold t2 (to rounding)?
inline double support_limit(double t2) { return t2 * (1.0 + 1e-10) + 1e-12; }
inline bool support_outside(double d2, double t2) { return d2 > support_limit(t2); }

// A profiled variable: its column and grid.
struct SupportAxis {
  bool numeric;
  int col;                  // column of num (numeric) or fac
  std::vector<double> z;    // numeric grid (standardised)
  std::vector<int> zc;      // categorical grid (codes)
  std::vector<int> zord;    // grid positions in increasing z (numeric)
  int levels = 0;           // codes are < levels (categorical)
  std::vector<double> zs;   // the grid in increasing order, then +Inf (numeric)
  // (Numeric: bucket[b], a t at most the first with zs[t] >= z0 + b / inv,
  // for b < 4 G: where a value falls in zs, in a step or two.)
  std::vector<int> bucket;
  double z0 = 0.0, inv = 0.0;

  // The first t with zs[t] >= v (G when none), without a branch that
  // depends on v in the usual case.
  int locate(double v) const {
    const double top = static_cast<double>(bucket.size() - 1);
    const double b = std::min(std::max((v - z0) * inv, 0.0), top);
    int t = bucket[static_cast<std::size_t>(b)];
    while (t > 0 && zs[t - 1] >= v) --t;
    t += zs[t] < v;
    t += zs[t] < v;
    while (zs[t] < v) ++t;
    return t;
  }

  std::size_t size() const { return numeric ? z.size() : zc.size(); }
};

// The axis of column `col` with its grid (levels: over the rows of s and
// the reference rows rs).
inline SupportAxis support_axis(const SupportSpace& s, const SupportSpace& rs, bool numeric, int col,
                                const double* z, const int* zc, int G) {
  SupportAxis ax;
  ax.numeric = numeric;
  ax.col = col;
  if (numeric) {
    ax.z.assign(z, z + G);
    ax.zord.resize(G);
    std::iota(ax.zord.begin(), ax.zord.end(), 0);
    std::stable_sort(ax.zord.begin(), ax.zord.end(), [&](int a, int b) { return ax.z[a] < ax.z[b]; });
    ax.zs.resize(G + 1);
    for (int t = 0; t < G; ++t) ax.zs[t] = ax.z[ax.zord[t]];
    ax.zs[G] = std::numeric_limits<double>::infinity();
    if (G > 0) {
      const std::size_t B = 4 * static_cast<std::size_t>(G);
      const double span = ax.zs[G - 1] - ax.zs[0];
      ax.z0 = ax.zs[0];
      ax.inv = span > 0 ? B / span : 0.0;
      ax.bucket.resize(B);
      int t = 0;
      for (std::size_t b = 0; b < B; ++b) {
        // (At most the first t at or past the bucket's start.)
        const double start = ax.z0 + (span > 0 ? b / ax.inv : 0.0);
        while (t < G - 1 && ax.zs[t] < start) ++t;
        ax.bucket[b] = b == 0 ? 0 : std::max(0, t - 1);
      }
    }
  } else {
    ax.zc.assign(zc, zc + G);
    int L = 0;
    for (int g = 0; g < G; ++g) L = std::max(L, zc[g] + 1);
    const int* x = s.fac + static_cast<std::size_t>(col) * s.n;
    for (std::size_t k = 0; k < s.n; ++k) L = std::max(L, x[k] + 1);
    const int* xr = rs.fac + static_cast<std::size_t>(col) * rs.n;
    for (std::size_t k = 0; k < rs.n; ++k) L = std::max(L, xr[k] + 1);
    ax.levels = L;
  }
  return ax;
}

// Work space of one thread.
struct SupportWork {
  std::vector<double> dist, mx, base, off, best, a;
  std::vector<int> all, cand, cand2, cover;
  explicit SupportWork(std::size_t m, int levels, std::size_t G, int pn)
      : dist(m), mx(m), base(m), off(m), best(std::max(levels, 1)), a(std::max(3 * pn, 1)), all(m), cand(m),
        cand2(m), cover(G + 1) {
    std::iota(all.begin(), all.end(), 0);
  }
};

// off[k] = in[k] less the axis' term of row i (of s) and reference row k,
// for the rows k = from[0..nf); returns the number of candidates, the k
// with off[k] within the threshold, in cand[0..c) (in the order of from).
inline std::size_t support_axis_offsets(const SupportSpace& s, const SupportSpace& rs,
                                        const SupportAxis& ax, std::size_t i, const double* in,
                                        const int* from, std::size_t nf, double lim, double* off,
                                        int* cand) {
  const std::size_t m = rs.n;
  std::size_t c = 0;
  if (ax.numeric) {
    const double a = s.num[static_cast<std::size_t>(ax.col) * s.n + i];
    const double* xr = rs.num + static_cast<std::size_t>(ax.col) * m;
    if (!rs.num_na[ax.col] && !std::isnan(a)) {
      // (No missing value: the term is d * d, as support_num_term()'s.)
      for (std::size_t t = 0; t < nf; ++t) {
        const int k = from[t];
        const double d = a - xr[k];
        off[k] = std::max(0.0, in[k] - d * d);
        cand[c] = k;
        c += off[k] <= lim;
      }
      return c;
    }
    for (std::size_t t = 0; t < nf; ++t) {
      const int k = from[t];
      off[k] = std::max(0.0, in[k] - support_num_term(a, xr[k], s.mismatch));
      cand[c] = k;
      c += off[k] <= lim;
    }
  } else {
    const int a = s.fac[static_cast<std::size_t>(ax.col) * s.n + i];
    const int* xr = rs.fac + static_cast<std::size_t>(ax.col) * m;
    for (std::size_t t = 0; t < nf; ++t) {
      const int k = from[t];
      off[k] = std::max(0.0, in[k] - (xr[k] != a ? s.mismatch : 0.0));
      cand[c] = k;
      c += off[k] <= lim;
    }
  }
  return c;
}

// The verdicts over the axis' grid: out[g * stride] = 1 when the least of
// off[k] + the term of grid value g and row k over the candidates cand[0..c)
// (reference rows with off[k] within the threshold lim; the others' sums
// are beyond it) is beyond lim, else 0 (out is 0 beforehand: a numeric
// axis writes only the 1s, most points being inside, and stops once every
// point is inside). No minimum is formed: a numeric candidate k holds the
// grid values z with (z - x_k)^2 + off[k] <= lim, an interval around its
// value x_k, found by bisecting the sorted grid at
// x_k -+ sqrt(lim - off[k]) and settled by evaluating that very sum at its
// ends (the rounded sum is monotone in |z - x_k|, so the interval is exact);
// a grid value is inside when an interval holds it (counted in `cover`,
// differences over the sorted grid). A candidate whose every grid value
// within reach is in the block of grid values already covered (the union
// of the counted intervals that meet) is skipped, without a search, when
// the block's neighbours are certainly beyond its reach: most of them, as
// the block soon spans the data. A row missing x_k: off[k] + mismatch for
// every grid value.
inline void support_axis_verdicts(const SupportSpace& rs, const SupportAxis& ax, const double* off,
                                  const int* cand, std::size_t c, double lim, unsigned char* out,
                                  std::size_t stride, SupportWork& w) {
  const double inf = std::numeric_limits<double>::infinity();
  const int G = static_cast<int>(ax.size());
  if (!ax.numeric) {
    const int* x = rs.fac + static_cast<std::size_t>(ax.col) * rs.n;
    double any = inf;
    for (std::size_t t = 0; t < c; ++t) w.best[x[cand[t]]] = inf;
    for (int g = 0; g < G; ++g) w.best[ax.zc[g]] = inf;
    for (std::size_t t = 0; t < c; ++t) {
      const int k = cand[t];
      const double o = off[k];
      if (o < any) any = o;
      if (o < w.best[x[k]]) w.best[x[k]] = o;
    }
    for (int g = 0; g < G; ++g) out[g * stride] = std::min(w.best[ax.zc[g]], any + rs.mismatch) > lim ? 1 : 0;
    return;
  }
  const double* x = rs.num + static_cast<std::size_t>(ax.col) * rs.n;
  if (G == 0) return;
  const double* zs = ax.zs.data();
  int* cover = w.cover.data();
  std::fill(cover, cover + G + 1, 0);
  bool all_in = false;
  int clo = 0, chi = 0;
  double below = inf, above = -inf;
  for (std::size_t t = 0; t < c && !all_in; ++t) {
    const int k = cand[t];
    const double o = off[k];
    const double xk = x[k];
    if (std::isnan(xk)) {
      all_in = o + rs.mismatch <= lim;
      continue;
    }
    auto in = [&](int g) {
      const double d = zs[g] - xk;
      return d * d + o <= lim;
    };
    // Skip a candidate that reaches no grid value outside the block
    // [clo, chi) already covered: all the block's neighbours are at least
    // `gap` from x_k, and gap^2 is beyond lim - off[k] by a margin far
    // beyond rounding (so only when certain).
    const double gap = std::min(xk - below, above - xk);
    if (gap > 0 && gap * gap * (1.0 - 1e-9) > (lim - o) + 1e-9 * (lim + o)) continue;
    const double r = std::sqrt(std::max(0.0, lim - o));
    int lo = ax.locate(xk - r);
    int hi = ax.locate(xk + r);
    while (lo > 0 && in(lo - 1)) --lo;
    while (lo < hi && !in(lo)) ++lo;
    while (hi < G && in(hi)) ++hi;
    while (hi > lo && !in(hi - 1)) --hi;
    if (lo < hi) {
      ++cover[lo];
      --cover[hi];
      // (The block: the union of counted intervals that meet it, or the
      // widest.)
      if (lo <= chi && hi >= clo && chi > clo) {
        clo = std::min(clo, lo);
        chi = std::max(chi, hi);
      } else if (hi - lo > chi - clo) {
        clo = lo;
        chi = hi;
      }
      below = clo > 0 ? zs[clo - 1] : -inf;
      above = zs[chi];
      // (The block covers the grid: every point is inside.)
      if (clo == 0 && chi == G) return;
    }
  }
  if (all_in) return;
  int run = 0;
  for (int t = 0; t < G; ++t) {
    run += cover[t];
    if (run == 0) out[static_cast<std::size_t>(ax.zord[t]) * stride] = 1;
  }
}

// One-variable profiles of several axes: for evaluation rows eval[e] of s
// (self[e]: the same row's position among the reference rows rs, or -1),
// e in [begin, end), out[a][e * G_a + g] = 1 when row eval[e] with axis a
// set to its grid value g is outside. The distances of a row to the
// reference rows are computed once for all axes.
inline void support_outside_1d(const SupportSpace& s, const SupportSpace& rs,
                               const std::vector<SupportAxis>& axes, const int* eval, const int* self,
                               double t2, std::size_t begin, std::size_t end,
                               const std::vector<unsigned char*>& out, SupportWork& w) {
  const double lim = support_limit(t2);
  for (std::size_t e = begin; e < end; ++e) {
    const std::size_t i = static_cast<std::size_t>(eval[e]);
    support_row_distances(s, i, rs, w.dist.data(), w.mx.data(), w.a.data());
    if (self[e] >= 0) w.dist[self[e]] = std::numeric_limits<double>::infinity();
    // A row within the threshold without one coordinate is within it
    // without its largest term: the candidates of every axis are among
    // these (few) rows.
    std::size_t nc = 0;
    for (std::size_t k = 0; k < rs.n; ++k) {
      w.cand2[nc] = static_cast<int>(k);
      nc += w.dist[k] - w.mx[k] <= lim;
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const SupportAxis& ax = axes[a];
      const std::size_t c = support_axis_offsets(s, rs, ax, i, w.dist.data(), w.cand2.data(), nc, lim,
                                                 w.off.data(), w.cand.data());
      support_axis_verdicts(rs, ax, w.off.data(), w.cand.data(), c, lim, out[a] + e * ax.size(), 1, w);
    }
  }
}

// Two-variable profiles: out[e * Ga * Gb + gb * Ga + ga] for grid values ga
// of axis a and gb of axis b.
inline void support_outside_2d(const SupportSpace& s, const SupportSpace& rs, const SupportAxis& a,
                               const SupportAxis& b, const int* eval, const int* self, double t2,
                               std::size_t begin, std::size_t end, unsigned char* out,
                               SupportWork& w) {
  const double lim = support_limit(t2);
  const std::size_t Ga = a.size(), Gb = b.size();
  for (std::size_t e = begin; e < end; ++e) {
    const std::size_t i = static_cast<std::size_t>(eval[e]);
    support_row_distances(s, i, rs, w.dist.data(), nullptr, w.a.data());
    if (self[e] >= 0) w.dist[self[e]] = std::numeric_limits<double>::infinity();
    // Without both coordinates: the rows within the threshold.
    const std::size_t c1 = support_axis_offsets(s, rs, a, i, w.dist.data(), w.all.data(), rs.n,
                                                std::numeric_limits<double>::infinity(), w.off.data(),
                                                w.cand.data());
    const std::size_t c2 = support_axis_offsets(s, rs, b, i, w.off.data(), w.cand.data(), c1, lim,
                                                w.base.data(), w.cand2.data());
    unsigned char* o = out + e * Ga * Gb;
    for (std::size_t ga = 0; ga < Ga; ++ga) {
      std::size_t c = 0;
      for (std::size_t t = 0; t < c2; ++t) {
        const int k = w.cand2[t];
        double term;
        if (a.numeric) {
          term = support_num_term(a.z[ga], rs.num[static_cast<std::size_t>(a.col) * rs.n + k], rs.mismatch);
        } else {
          term = rs.fac[static_cast<std::size_t>(a.col) * rs.n + k] != a.zc[ga] ? rs.mismatch : 0.0;
        }
        w.off[k] = w.base[k] + term;
        if (w.off[k] <= lim) w.cand[c++] = k;
      }
      support_axis_verdicts(rs, b, w.off.data(), w.cand.data(), c, lim, o + ga, Ga, w);
    }
  }
}

}  // namespace mp

#endif
