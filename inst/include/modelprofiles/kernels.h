// R-free numeric kernels of modelprofiles.
//
// Nothing in this header includes Rcpp or the R API: the functions work on
// plain buffers, so that RcppParallel workers (src/*.cpp) can call them from
// any thread. Every function writes only to the output cells that the caller
// owns (a range of grid points or groups), and sums in a fixed order, so that
// the results do not depend on the number of threads.
#ifndef MODELPROFILES_KERNELS_H
#define MODELPROFILES_KERNELS_H

#include <algorithm>
#include <vector>
#include <cmath>
#include <cstddef>

namespace mp {

// Interval of x among sorted edges z_0 < ... < z_K, the way ALEPlot assigns
// rows: interval k (0-based) is (z_k, z_{k+1}], and the first one also holds
// z_0. Returns -1 for a value outside [z_0, z_K] or NaN.
inline int interval_of(double x, const double* edges, int n_edges) {
  if (!(x >= edges[0]) || !(x <= edges[n_edges - 1])) return -1;
  if (x == edges[0]) return 0;
  const double* p = std::lower_bound(edges + 1, edges + n_edges, x);
  return static_cast<int>(p - edges) - 1;
}

// 1-based intervals of x[i] for i in [begin, end) (interval_of() + 1), or
// `na` for a value outside the edges.
inline void interval_index(const double* x, const double* edges, int n_edges, int na,
                           std::size_t begin, std::size_t end, int* out) {
  for (std::size_t i = begin; i < end; ++i) {
    const int k = interval_of(x[i], edges, n_edges);
    out[i] = k < 0 ? na : k + 1;
  }
}

// Weighted sums of y per interval, in row order: sum[q] = sum of w[i] y[i]
// and wsum[q] = sum of w[i] over the rows i with k[i] = q + 1 (1-based
// intervals of K). Returns n, or the first row whose k is not in 1..K.
inline std::size_t interval_sums(const double* y, const int* k, const double* w, std::size_t n,
                                 int K, double* sum, double* wsum) {
  for (int q = 0; q < K; ++q) sum[q] = wsum[q] = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (k[i] < 1 || k[i] > K) return i;
    sum[k[i] - 1] += w[i] * y[i];
    wsum[k[i] - 1] += w[i];
  }
  return n;
}

// Gather: out[r] = in[src[r]] for r in [begin, end).
template <typename T>
inline void gather(const T* in, const int* src, T* out, std::size_t begin,
                   std::size_t end) {
  for (std::size_t r = begin; r < end; ++r) out[r] = in[src[r]];
}

// A G x m table of predictions (G grid points, m background rows) in
// observation-major order: each row's predictions over the grid are
// consecutive, element (g, i) is at y[g + i * G].
struct Table {
  const double* y;
  std::size_t G, m;
  double operator()(std::size_t g, std::size_t i) const { return y[g + i * G]; }
};

// Weighted sums over rows for grid points [g0, g1):
// sums[g] = sum_i w[i] y[g, i], summed in the order i = 0, 1, ..., m - 1 (the
// loops read the table once, consecutively).
inline void grid_sums(const Table& t, const double* w, std::size_t g0,
                      std::size_t g1, double* sums) {
  for (std::size_t g = g0; g < g1; ++g) sums[g] = 0.0;
  for (std::size_t i = 0; i < t.m; ++i)
    for (std::size_t g = g0; g < g1; ++g) sums[g] += w[i] * t(g, i);
}

// Gaussian kernel weights relative to the nearest row: the weight of row i at
// grid point z is exp(-((z - x_i)^2 - d_min^2) / (2 s^2)), d_min the distance
// from z to the nearest row, which is dnorm(z - x_i, 0, s) up to a factor
// common to all rows, so the normalised weights equal those of eq. (18.5) but
// never underflow to 0/0: the nearest rows weigh exactly 1. The exponent is
// computed in units of s, as ((d - d_min) / s) ((d + d_min) / s) / 2 with
// d = |z - x_i|, never through d^2 or s^2, which leave the range of doubles
// for data and bandwidths near 1e-160 or below (s^2 underflows to 0 below
// about 1e-162, d^2 loses bits as a subnormal): the weights keep their
// precision down to bandwidths of 1e-300. Where the exponent overflows the
// row weighs 0.
inline double kernel_weight(double z, double x, double dmin, double s) {
  const double d = std::fabs(z - x);
  if (!(d > dmin)) return 1.0;
  return std::exp(-0.5 * ((d - dmin) / s) * ((d + dmin) / s));
}

// Kernel-weighted sums for grid points [g0, g1) (eq. 18.5), or with lag = true
// of the differences y[g, i] - y[g - 1, i] for g >= 1 (eq. 18.9; the weight is
// that of z_g): num[g] = sum_i k_i(z_g) w_i v[g, i], den[g] = sum_i k_i(z_g) w_i,
// summed in row order.
inline void kernel_sums(const Table& t, const double* x, const double* w,
                        const double* z, const double* dmin, double s,
                        bool lag, std::size_t g0, std::size_t g1, double* num,
                        double* den) {
  const std::size_t first = lag ? std::max<std::size_t>(g0, 1) : g0;
  for (std::size_t g = g0; g < g1; ++g) num[g] = den[g] = 0.0;
  for (std::size_t i = 0; i < t.m; ++i) {
    for (std::size_t g = first; g < g1; ++g) {
      const double k = kernel_weight(z[g], x[i], dmin[g], s) * w[i];
      const double v = lag ? t(g, i) - t(g - 1, i) : t(g, i);
      num[g] += k * v;
      den[g] += k;
    }
  }
}

// Moments for the standard errors of weighted means, about a shift s (the
// shifted-data algorithm: s is a value of the data, the chunk's first row,
// so the sums do not cancel): a value v of weight k adds k^2 (v - s) to q1,
// k^2 (v - s)^2 to q2 and k^2 to k2. A caller combines chunks exactly:
// sum k^2 (v - m)^2 = q2 + 2 (s - m) q1 + (s - m)^2 k2 for any m.
inline void add_moment(double k, double v, double s, double& q1, double& q2, double& k2) {
  const double k_sq = k * k;
  const double d = v - s;
  q1 += k_sq * d;
  q2 += k_sq * d * d;
  k2 += k_sq;
}

// The moments of a G x m table with row weights w, for grid points [g0, g1).
inline void grid_moments(const Table& t, const double* w, std::size_t g0, std::size_t g1,
                         double* s, double* q1, double* q2, double* k2) {
  for (std::size_t g = g0; g < g1; ++g) {
    s[g] = t.m ? t(g, 0) : 0.0;
    q1[g] = q2[g] = k2[g] = 0.0;
  }
  for (std::size_t i = 0; i < t.m; ++i)
    for (std::size_t g = g0; g < g1; ++g) add_moment(w[i], t(g, i), s[g], q1[g], q2[g], k2[g]);
}

// kernel_sums() without lag and the moments of its weights in one pass,
// each kernel weight computed once: num and den summed exactly as
// kernel_sums() sums them (so the means are the same to the bit).
inline void kernel_sums_moments(const Table& t, const double* x, const double* w,
                                const double* z, const double* dmin, double s,
                                std::size_t g0, std::size_t g1, double* num, double* den,
                                double* shift, double* q1, double* q2, double* k2) {
  for (std::size_t g = g0; g < g1; ++g) {
    num[g] = den[g] = q1[g] = q2[g] = k2[g] = 0.0;
    shift[g] = t.m ? t(g, 0) : 0.0;
  }
  for (std::size_t i = 0; i < t.m; ++i) {
    for (std::size_t g = g0; g < g1; ++g) {
      const double k = kernel_weight(z[g], x[i], dmin[g], s) * w[i];
      const double v = t(g, i);
      num[g] += k * v;
      den[g] += k;
      add_moment(k, v, shift[g], q1[g], q2[g], k2[g]);
    }
  }
}

// The kernel weights of kernel_sums(), without the rows' own weights, as a
// G x m matrix (out[g + i * G]), for grid points [g0, g1): the bands of
// kernel estimators are computed from them (kernel_weight(): the nearest
// row weighs 1).
inline void kernel_weights(const double* z, const double* x, std::size_t m,
                           std::size_t G, const double* dmin, double s,
                           std::size_t g0, std::size_t g1, double* out) {
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t g = g0; g < g1; ++g)
      out[g + i * G] = kernel_weight(z[g], x[i], dmin[g], s);
}

// Accumulate interval effects and centre them as ALEPlot does: f_0 = 0,
// f_k = f_{k-1} + delta_k, minus the count-weighted mean of the interval
// midpoints (f_{k-1} + f_k) / 2. out has K + 1 cells.
inline void accumulate_center(const double* delta, const double* count,
                              std::size_t K, double* out) {
  out[0] = 0.0;
  for (std::size_t k = 0; k < K; ++k) out[k + 1] = out[k] + delta[k];
  double c = 0.0, n = 0.0;
  for (std::size_t k = 0; k < K; ++k) {
    c += (out[k] + out[k + 1]) / 2.0 * count[k];
    n += count[k];
  }
  c /= n;
  for (std::size_t k = 0; k <= K; ++k) out[k] -= c;
}

// Sums over contiguous groups: group q holds rows [off[q], off[q + 1]).
inline void group_sums(const double* y, const double* w, const int* off,
                       std::size_t q0, std::size_t q1, double* sum,
                       double* wsum) {
  for (std::size_t q = q0; q < q1; ++q) {
    double a = 0.0, b = 0.0;
    for (int r = off[q]; r < off[q + 1]; ++r) {
      a += w[r] * y[r];
      b += w[r];
    }
    sum[q] = a;
    wsum[q] = b;
  }
}

// The distance of every grid point z[0..G) to the nearest of the values
// x[0..n) (unsorted; |z - x|, as kernel_weight() computes it, so that the
// nearest rows weigh exactly 1), in one pass over x without a sorted copy:
// for each grid point the largest value below it and the smallest at or
// above it (kept at the nearest sorted grid position, then carried to the
// others), out[g] = min(|z - hi|, |z - lo|).
inline void nearest_dist_unsorted(const double* z, std::size_t G, const double* x, std::size_t n,
                                  double* out) {
  std::vector<std::size_t> o(G);
  for (std::size_t g = 0; g < G; ++g) o[g] = g;
  std::sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return z[a] < z[b]; });
  std::vector<double> zs(G), lo(G, -INFINITY), hi(G, INFINITY);
  for (std::size_t g = 0; g < G; ++g) zs[g] = z[o[g]];
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[i];
    const std::size_t u = std::upper_bound(zs.begin(), zs.end(), v) - zs.begin();
    if (u > 0 && v < hi[u - 1]) hi[u - 1] = v;  // v >= zs[g] for g < u
    if (u < G && v > lo[u]) lo[u] = v;          // v < zs[g] for g >= u
  }
  for (std::size_t g = G; g-- > 1;) hi[g - 1] = std::min(hi[g - 1], hi[g]);
  for (std::size_t g = 1; g < G; ++g) lo[g] = std::max(lo[g], lo[g - 1]);
  for (std::size_t g = 0; g < G; ++g)
    out[o[g]] = std::min(std::fabs(zs[g] - hi[g]), std::fabs(zs[g] - lo[g]));
}

// Affine ICE curves (the linear engine): row i's value at grid point g is
// a[i] + z[g] * s[i], written observation-major to out[i * G + g] for the
// rows [i0, i1). (The product and the sum as R computes a + z * s.)
inline void affine_curves(const double* a, const double* s, const double* z, std::size_t G,
                          std::size_t i0, std::size_t i1, double* out) {
  for (std::size_t i = i0; i < i1; ++i) {
    const double ai = a[i], si = s[i];
    double* o = out + i * G;
    for (std::size_t g = 0; g < G; ++g) {
      const double p = z[g] * si;
      o[g] = ai + p;
    }
  }
}

}  // namespace mp

#endif
