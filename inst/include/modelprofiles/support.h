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
// missing) and n x pf codes (>= 0; a missing value has a code of its own).
struct SupportSpace {
  const double* num;
  int pn;
  const unsigned char* num_na;  // per numeric column: has it a missing value?
  const int* fac;
  int pf;
  std::size_t n;
  double mismatch;
};

inline double support_num_term(double a, double b, double mismatch) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return (na && nb) ? 0.0 : mismatch;
  const double d = a - b;
  return d * d;
}

// Squared distances of row i to the reference rows ref[0..m): out[0..m).
inline void support_row_distances(const SupportSpace& s, std::size_t i, const int* ref, int m,
                                  double* out) {
  std::fill(out, out + m, 0.0);
  for (int c = 0; c < s.pn; ++c) {
    const double* col = s.num + static_cast<std::size_t>(c) * s.n;
    const double a = col[i];
    if (!s.num_na[c]) {
      for (int k = 0; k < m; ++k) {
        const double d = a - col[ref[k]];
        out[k] += d * d;
      }
    } else {
      for (int k = 0; k < m; ++k) out[k] += support_num_term(a, col[ref[k]], s.mismatch);
    }
  }
  for (int c = 0; c < s.pf; ++c) {
    const int* col = s.fac + static_cast<std::size_t>(c) * s.n;
    const int a = col[i];
    for (int k = 0; k < m; ++k) out[k] += (col[ref[k]] != a) ? s.mismatch : 0.0;
  }
}

// Each reference row's squared distance to its nearest other reference
// row, for rows ref[a] with a in [begin, end): r2[a]. `buf`: m doubles.
inline void support_reference(const SupportSpace& s, const int* ref, int m, std::size_t begin,
                              std::size_t end, double* r2, double* buf) {
  for (std::size_t a = begin; a < end; ++a) {
    support_row_distances(s, static_cast<std::size_t>(ref[a]), ref, m, buf);
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < m; ++k) {
      if (k != static_cast<int>(a) && buf[k] < best) best = buf[k];
    }
    r2[a] = best;
  }
}

// A profiled variable: its grid and what is known of its column over the
// reference rows.
struct SupportAxis {
  bool numeric;
  int col;                  // column of num (numeric) or fac
  std::vector<double> z;    // numeric grid (standardised)
  std::vector<int> zc;      // categorical grid (codes)
  std::vector<int> zord;    // grid positions in increasing z (numeric)
  std::vector<int> sorted;  // reference positions with x observed, by x (numeric)
  std::vector<int> missing; // reference positions with x missing (numeric)
  int levels = 0;           // codes are < levels (categorical)

  std::size_t size() const { return numeric ? z.size() : zc.size(); }
};

// The axis of column `col` over the reference rows, with its grid.
inline SupportAxis support_axis(const SupportSpace& s, bool numeric, int col, const double* z,
                                const int* zc, int G, const int* ref, int m) {
  SupportAxis ax;
  ax.numeric = numeric;
  ax.col = col;
  if (numeric) {
    const double* x = s.num + static_cast<std::size_t>(col) * s.n;
    ax.z.assign(z, z + G);
    ax.zord.resize(G);
    std::iota(ax.zord.begin(), ax.zord.end(), 0);
    std::stable_sort(ax.zord.begin(), ax.zord.end(), [&](int a, int b) { return ax.z[a] < ax.z[b]; });
    for (int k = 0; k < m; ++k) (std::isnan(x[ref[k]]) ? ax.missing : ax.sorted).push_back(k);
    std::stable_sort(ax.sorted.begin(), ax.sorted.end(),
                     [&](int a, int b) { return x[ref[a]] < x[ref[b]]; });
  } else {
    const int* x = s.fac + static_cast<std::size_t>(col) * s.n;
    ax.zc.assign(zc, zc + G);
    int L = 0;
    for (int g = 0; g < G; ++g) L = std::max(L, zc[g] + 1);
    for (int k = 0; k < m; ++k) L = std::max(L, x[ref[k]] + 1);
    ax.levels = L;
  }
  return ax;
}

// The contribution of the axis' coordinate to the squared distance of row
// i and reference row ref[k].
inline double support_axis_term(const SupportSpace& s, const SupportAxis& ax, std::size_t i,
                                std::size_t r) {
  if (ax.numeric) {
    const double* x = s.num + static_cast<std::size_t>(ax.col) * s.n;
    return support_num_term(x[i], x[r], s.mismatch);
  }
  const int* x = s.fac + static_cast<std::size_t>(ax.col) * s.n;
  return x[i] != x[r] ? s.mismatch : 0.0;
}

// The contribution of grid value g of the axis to the squared distance to
// reference row ref[k].
inline double support_grid_term(const SupportSpace& s, const SupportAxis& ax, int g, std::size_t r) {
  if (ax.numeric) {
    const double* x = s.num + static_cast<std::size_t>(ax.col) * s.n;
    return support_num_term(ax.z[g], x[r], s.mismatch);
  }
  const int* x = s.fac + static_cast<std::size_t>(ax.col) * s.n;
  return x[r] != ax.zc[g] ? s.mismatch : 0.0;
}

// Is a squared distance beyond the threshold t2 (to rounding)?
inline bool support_outside(double d2, double t2) { return d2 > t2 * (1.0 + 1e-10) + 1e-12; }

// Work space of one thread.
struct SupportWork {
  std::vector<double> dist, base, zb, best, d2;
  std::vector<int> cand, cand2, v;
  explicit SupportWork(int m, int levels, std::size_t G)
      : dist(m), base(m), zb(m + 1), best(std::max(levels, 1)), d2(G), v(m) {
    cand.reserve(m);
    cand2.reserve(m);
  }
};

// d2[g] = min over the candidates k (reference positions, with offsets
// off[k]) of off[k] + the term of grid value g and reference row ref[k],
// over the axis' grid. Only the verdicts are needed, so the candidates
// may be those with off[k] within the threshold (the others' sums are
// beyond it): d2 is exact where it is within the threshold, and beyond it
// (possibly +Inf) elsewhere.
inline void support_axis_min(const SupportSpace& s, const SupportAxis& ax, const int* ref,
                             const double* off, std::vector<int>& cand, double* d2, SupportWork& w) {
  const double inf = std::numeric_limits<double>::infinity();
  const int G = static_cast<int>(ax.size());
  if (!ax.numeric) {
    const int* x = s.fac + static_cast<std::size_t>(ax.col) * s.n;
    double any = inf;
    for (int k : cand) w.best[x[ref[k]]] = inf;
    for (int g = 0; g < G; ++g) w.best[ax.zc[g]] = inf;
    for (int k : cand) {
      const double o = off[k];
      if (o < any) any = o;
      const int c = x[ref[k]];
      if (o < w.best[c]) w.best[c] = o;
    }
    for (int g = 0; g < G; ++g) d2[g] = std::min(w.best[ax.zc[g]], any + s.mismatch);
    return;
  }
  const double* x = s.num + static_cast<std::size_t>(ax.col) * s.n;
  // Rows missing x: a constant mismatch; the others by x.
  double flat = inf;
  std::size_t kept = 0;
  for (int k : cand) {
    if (std::isnan(x[ref[k]])) {
      flat = std::min(flat, off[k] + s.mismatch);
    } else {
      cand[kept++] = k;
    }
  }
  cand.resize(kept);
  std::sort(cand.begin(), cand.end(), [&](int a, int b) {
    const double xa = x[ref[a]], xb = x[ref[b]];
    return xa < xb || (xa == xb && a < b);
  });
  // The lower envelope of the parabolas (z - c_k)^2 + off[k] (centres c_k
  // increasing; of equal centres the lowest kept): parabola v[h] is the
  // least on [zb[h], zb[h + 1]).
  int h = -1;
  for (int k : cand) {
    const double o = off[k];
    const double c = x[ref[k]];
    if (h >= 0 && c == x[ref[w.v[h]]]) {
      if (o >= off[w.v[h]]) continue;
      --h;
    }
    double sq = -inf;
    while (h >= 0) {
      const int p = w.v[h];
      const double cp = x[ref[p]];
      sq = ((o + c * c) - (off[p] + cp * cp)) / (2.0 * (c - cp));
      if (sq <= w.zb[h]) {
        --h;
        sq = -inf;
      } else {
        break;
      }
    }
    ++h;
    w.v[h] = k;
    w.zb[h] = sq;
  }
  int at = 0;
  for (int t = 0; t < G; ++t) {
    const int g = ax.zord[t];
    const double z = ax.z[g];
    double best = flat;
    if (h >= 0) {
      while (at < h && w.zb[at + 1] <= z) ++at;
      const int p = w.v[at];
      const double d = z - x[ref[p]];
      best = std::min(best, d * d + off[p]);
    }
    d2[g] = best;
  }
}

// One-variable profiles of several axes: for evaluation rows eval[e]
// (self[e]: their position among the reference rows, or -1), e in [begin,
// end), out[a][e * G_a + g] = 1 when row eval[e] with axis a set to its
// grid value g is outside. The distances of a row to the reference rows
// are computed once for all axes.
inline void support_outside_1d(const SupportSpace& s, const std::vector<SupportAxis>& axes,
                               const int* ref, int m, const int* eval, const int* self, double t2,
                               std::size_t begin, std::size_t end,
                               const std::vector<unsigned char*>& out, SupportWork& w) {
  for (std::size_t e = begin; e < end; ++e) {
    const std::size_t i = static_cast<std::size_t>(eval[e]);
    support_row_distances(s, i, ref, m, w.dist.data());
    if (self[e] >= 0) w.dist[self[e]] = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const SupportAxis& ax = axes[a];
      w.cand.clear();
      for (int k = 0; k < m; ++k) {
        const double o = std::max(0.0, w.dist[k] - support_axis_term(s, ax, i, static_cast<std::size_t>(ref[k])));
        w.base[k] = o;
        if (!support_outside(o, t2)) w.cand.push_back(k);
      }
      const std::size_t G = ax.size();
      support_axis_min(s, ax, ref, w.base.data(), w.cand, w.d2.data(), w);
      unsigned char* o = out[a] + e * G;
      for (std::size_t g = 0; g < G; ++g) o[g] = support_outside(w.d2[g], t2) ? 1 : 0;
    }
  }
}

// Two-variable profiles: out[e * Ga * Gb + gb * Ga + ga] for grid values ga
// of axis a and gb of axis b.
inline void support_outside_2d(const SupportSpace& s, const SupportAxis& a, const SupportAxis& b,
                               const int* ref, int m, const int* eval, const int* self, double t2,
                               std::size_t begin, std::size_t end, unsigned char* out,
                               SupportWork& w) {
  const std::size_t Ga = a.size(), Gb = b.size();
  std::vector<double> off(m);
  for (std::size_t e = begin; e < end; ++e) {
    const std::size_t i = static_cast<std::size_t>(eval[e]);
    support_row_distances(s, i, ref, m, w.dist.data());
    if (self[e] >= 0) w.dist[self[e]] = std::numeric_limits<double>::infinity();
    w.cand2.clear();
    for (int k = 0; k < m; ++k) {
      const std::size_t r = static_cast<std::size_t>(ref[k]);
      w.base[k] = std::max(0.0, w.dist[k] - support_axis_term(s, a, i, r) - support_axis_term(s, b, i, r));
      if (!support_outside(w.base[k], t2)) w.cand2.push_back(k);
    }
    unsigned char* o = out + e * Ga * Gb;
    for (std::size_t ga = 0; ga < Ga; ++ga) {
      w.cand.clear();
      for (int k : w.cand2) {
        off[k] = w.base[k] + support_grid_term(s, a, static_cast<int>(ga), static_cast<std::size_t>(ref[k]));
        if (!support_outside(off[k], t2)) w.cand.push_back(k);
      }
      support_axis_min(s, b, ref, off.data(), w.cand, w.d2.data(), w);
      for (std::size_t gb = 0; gb < Gb; ++gb) o[gb * Ga + ga] = support_outside(w.d2[gb], t2) ? 1 : 0;
    }
  }
}

}  // namespace mp

#endif
