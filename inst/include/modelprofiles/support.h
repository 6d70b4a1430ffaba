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
//   d2(x_i^{j=z}, x_k) = D_{-j}(i, k) + (z - x_kj)^2,
// and min_k over every grid value z at once is the lower envelope of the
// parabolas in z (the 1-D squared-distance transform of Felzenszwalb and
// Huttenlocher, 2012). Only the verdict (beyond the threshold t2 or not)
// is needed, and a parabola whose offset D_{-j}(i, k) is beyond t2 is
// beyond it everywhere: the envelope is of the few rows within t2 in the
// other coordinates, O(m + c log c + G) per row and variable for c such
// rows, after the m distances of the row computed once for all variables.
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
};

inline double support_num_term(double a, double b, double mismatch) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return (na && nb) ? 0.0 : mismatch;
  const double d = a - b;
  return d * d;
}

// Squared distances of row i of s to every row of the reference rows rs
// (the same columns; its rows contiguous, with `rows`): out[0..rs.n); with
// `mx`, the largest term of each sum in mx[0..rs.n). Each sum adds its
// terms in the columns' order (numeric, then categorical), a reference row
// at a time, in registers. `a`: pn doubles of work space.
inline void support_row_distances(const SupportSpace& s, std::size_t i, const SupportSpace& rs,
                                  double* out, double* mx, double* a) {
  const std::size_t m = rs.n;
  const int pn = s.pn;
  bool clean = true;
  for (int c = 0; c < pn; ++c) {
    a[c] = s.num[static_cast<std::size_t>(c) * s.n + i];
    clean = clean && !rs.num_na[c] && !std::isnan(a[c]);
  }
  const double* R = rs.rows;
  for (std::size_t k = 0; k < m; ++k) {
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
  }
  for (int c = 0; c < s.pf; ++c) {
    const int b = s.fac[static_cast<std::size_t>(c) * s.n + i];
    const int* col = rs.fac + static_cast<std::size_t>(c) * m;
    for (std::size_t k = 0; k < m; ++k) {
      const double t = (col[k] != b) ? s.mismatch : 0.0;
      out[k] += t;
      if (mx && t > mx[k]) mx[k] = t;
    }
  }
}

// Each reference row's squared distance to its nearest other reference
// row, for rows a in [begin, end) of rs: r2[a]. `buf`: rs.n + rs.pn doubles.
inline void support_reference(const SupportSpace& rs, std::size_t begin, std::size_t end, double* r2,
                              double* buf) {
  for (std::size_t a = begin; a < end; ++a) {
    support_row_distances(rs, a, rs, buf, nullptr, buf + rs.n);
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < rs.n; ++k) {
      if (k != a && buf[k] < best) best = buf[k];
    }
    r2[a] = best;
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

// A parabola (z - c)^2 + o.
struct SupportParabola {
  double c, o;
};

// Work space of one thread.
struct SupportWork {
  std::vector<double> dist, mx, base, off, zb, best, d2, a;
  std::vector<int> all, cand, cand2, v;
  std::vector<SupportParabola> par;
  explicit SupportWork(std::size_t m, int levels, std::size_t G, int pn)
      : dist(m), mx(m), base(m), off(m), zb(m + 1), best(std::max(levels, 1)), d2(G), a(std::max(pn, 1)),
        all(m), cand(m), cand2(m), v(m), par(m) {
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

// d2[g] = min over the candidates cand[0..c) (reference rows, offsets
// off[k]) of off[k] + the term of grid value g and row k, over the axis'
// grid. Only the verdicts are needed, so the candidates are those with
// off[k] within the threshold (the others' sums are beyond it): d2 is exact
// where it is within the threshold, and beyond it (possibly +Inf)
// elsewhere.
inline void support_axis_min(const SupportSpace& rs, const SupportAxis& ax, const double* off,
                             int* cand, std::size_t c, double* d2, SupportWork& w) {
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
    for (int g = 0; g < G; ++g) d2[g] = std::min(w.best[ax.zc[g]], any + rs.mismatch);
    return;
  }
  const double* x = rs.num + static_cast<std::size_t>(ax.col) * rs.n;
  // Rows missing x: a constant mismatch; the others as (centre, offset),
  // by centre (of equal centres the lower offset first).
  double flat = inf;
  std::size_t kept = 0;
  for (std::size_t t = 0; t < c; ++t) {
    const int k = cand[t];
    if (std::isnan(x[k])) {
      flat = std::min(flat, off[k] + rs.mismatch);
    } else {
      w.par[kept++] = SupportParabola{x[k], off[k]};
    }
  }
  SupportParabola* P = w.par.data();
  std::sort(P, P + kept, [](const SupportParabola& a, const SupportParabola& b) {
    return a.c < b.c || (a.c == b.c && a.o < b.o);
  });
  // The lower envelope of the parabolas (z - c)^2 + o (centres increasing;
  // of equal centres the lowest kept): parabola v[h] is the least on
  // [zb[h], zb[h + 1]).
  int h = -1;
  for (std::size_t t = 0; t < kept; ++t) {
    const double o = P[t].o;
    const double ck = P[t].c;
    if (h >= 0 && ck == P[w.v[h]].c) continue;
    double sq = -inf;
    while (h >= 0) {
      const SupportParabola& q = P[w.v[h]];
      sq = ((o + ck * ck) - (q.o + q.c * q.c)) / (2.0 * (ck - q.c));
      if (sq <= w.zb[h]) {
        --h;
        sq = -inf;
      } else {
        break;
      }
    }
    ++h;
    w.v[h] = static_cast<int>(t);
    w.zb[h] = sq;
  }
  int at = 0;
  for (int t = 0; t < G; ++t) {
    const int g = ax.zord[t];
    const double z = ax.z[g];
    double best = flat;
    if (h >= 0) {
      while (at < h && w.zb[at + 1] <= z) ++at;
      const SupportParabola& q = P[w.v[at]];
      const double d = z - q.c;
      best = std::min(best, d * d + q.o);
    }
    d2[g] = best;
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
      const std::size_t G = ax.size();
      support_axis_min(rs, ax, w.off.data(), w.cand.data(), c, w.d2.data(), w);
      unsigned char* o = out[a] + e * G;
      for (std::size_t g = 0; g < G; ++g) o[g] = w.d2[g] > lim ? 1 : 0;
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
      support_axis_min(rs, b, w.off.data(), w.cand.data(), c, w.d2.data(), w);
      for (std::size_t gb = 0; gb < Gb; ++gb) o[gb * Ga + ga] = w.d2[gb] > lim ? 1 : 0;
    }
  }
}

}  // namespace mp

#endif
