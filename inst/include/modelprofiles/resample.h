// The bootstrap's resamples and their sums, without R: the draw of R's
// default generator (Mersenne-Twister with rejection sampling, as
// sample.int(n, n, replace = TRUE) draws), and sums of per-row values
// weighted by the resampling counts.
#ifndef MODELPROFILES_RESAMPLE_H
#define MODELPROFILES_RESAMPLE_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace mp {

// R's Mersenne-Twister (src/main/RNG.c: MT_genrand, MT_sgenrand) on a copy
// of its state: mti and mt[624], as .Random.seed holds them after its kind
// code. next() returns the 32-bit output before R scales it to (0, 1).
struct MersenneR {
  static const int N = 624, M = 397;
  std::uint32_t mt[624];
  int mti;

  void sgenrand(std::uint32_t seed) {
    for (int i = 0; i < N; ++i) {
      mt[i] = seed & 0xffff0000u;
      seed = 69069u * seed + 1u;
      mt[i] |= (seed & 0xffff0000u) >> 16;
      seed = 69069u * seed + 1u;
    }
    mti = N;
  }

  std::uint32_t next() {
    static const std::uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    std::uint32_t y;
    if (mti >= N) {
      if (mti == N + 1) sgenrand(4357u);
      int kk;
      for (kk = 0; kk < N - M; ++kk) {
        y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
        mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01[y & 0x1u];
      }
      for (; kk < N - 1; ++kk) {
        y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
        mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 0x1u];
      }
      y = (mt[N - 1] & 0x80000000u) | (mt[0] & 0x7fffffffu);
      mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01[y & 0x1u];
      mti = 0;
    }
    y = mt[mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }
};

// R_unif_index(dn) of the rejection kind (R >= 3.6.0): rbits(bits) until
// below dn, bits = ceil(log2(dn)). R's rbits takes floor(unif_rand() *
// 65536) per 16 bits, which for this generator is the output's top 16 bits
// (unif_rand() = output * 2^-32, exactly, with 0 moved into (0, 2^-32)).
inline double unif_index(MersenneR& g, double dn, int bits) {
  if (dn <= 0) return 0.0;
  const std::int_least64_t mask = (static_cast<std::int_least64_t>(1) << bits) - 1;
  for (;;) {
    std::int_least64_t v = 0;
    for (int k = 0; k <= bits; k += 16) v = 65536 * v + static_cast<std::int_least64_t>(g.next() >> 16);
    const double dv = static_cast<double>(v & mask);
    if (dn > dv) return dv;
  }
}

// Resamples b in [b0, b1) of n rows as counts (column b of the n x B
// matrix `out`, zero on entry): each column from the draws after those of
// the columns before it, as tabulate(sample.int(n, n, TRUE), n) draws them.
inline void draw_counts(MersenneR& g, int n, int b0, int b1, int* out) {
  const double dn = n;
  const int bits = n > 0 ? static_cast<int>(std::ceil(std::log2(dn))) : 0;
  MersenneR h = g;  // (a local copy, which the compiler keeps close)
  if (n > 0 && bits <= 16) {
    // One output's top bits per attempt (bits < 16), or the second of two
    // (bits = 16: R's rbits() keeps the low 16 bits of 65536 v1 + v2).
    const std::uint32_t mask = (1u << bits) - 1u, un = static_cast<std::uint32_t>(n);
    for (int b = b0; b < b1; ++b) {
      int* col = out + static_cast<std::size_t>(b) * n;
      for (int i = 0; i < n; ++i) {
        std::uint32_t v;
        do {
          if (bits == 16) h.next();
          v = (h.next() >> 16) & mask;
        } while (v >= un);
        ++col[v];
      }
    }
  } else {
    for (int b = b0; b < b1; ++b) {
      int* col = out + static_cast<std::size_t>(b) * n;
      for (int i = 0; i < n; ++i) ++col[static_cast<int>(unif_index(h, dn, bits))];
    }
  }
  g = h;
}

// Resampled group sums: for the resamples b in [b0, b1) of the counts
// (n_all x B, column-major), over the m entries i in order, entry i being
// background row idx[i] (0-based) in group grp[i] (0-based, < K; grp NULL
// for a single group), with weight c w[i] (c the row's count):
//   sum[(k + K j) + K p b]  += c w[i] y[i + m j]   (j < p values per entry)
//   wsum[k + K b]           += c w[i]
// Each resample's sums are made by one loop over the entries in order, so
// that they do not depend on how the resamples are split among threads.
inline void resample_group_sums(const int* counts, std::size_t n_all, const int* idx,
                                const int* grp, std::size_t m, int K, const double* w,
                                const double* y, int p, std::size_t b0, std::size_t b1,
                                double* sum, double* wsum) {
  const std::size_t Kp = static_cast<std::size_t>(K) * p;
  if (K == 1 && p <= 2) {
    // One group (the sums of means of curves): the sums in registers.
    for (std::size_t b = b0; b < b1; ++b) {
      const int* c = counts + b * n_all;
      double s0 = 0.0, s1 = 0.0, ws = 0.0;
      for (std::size_t i = 0; i < m; ++i) {
        const double cw = c[idx[i]] * w[i];
        if (p > 0) s0 += cw * y[i];
        if (p > 1) s1 += cw * y[i + m];
        ws += cw;
      }
      if (p > 0) sum[b * Kp] = s0;
      if (p > 1) sum[b * Kp + 1] = s1;
      wsum[b] = ws;
    }
    return;
  }
  for (std::size_t b = b0; b < b1; ++b) {
    const int* c = counts + b * n_all;
    double* s = sum + b * Kp;
    double* ws = wsum + b * K;
    for (std::size_t q = 0; q < Kp; ++q) s[q] = 0.0;
    for (int q = 0; q < K; ++q) ws[q] = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
      const double cw = c[idx[i]] * w[i];
      const int k = grp ? grp[i] : 0;
      for (int j = 0; j < p; ++j) s[k + static_cast<std::size_t>(K) * j] += cw * y[i + m * j];
      ws[k] += cw;
    }
  }
}

// Column b in [b0, b1) of C = counts[idx, ] (times w, when w is not NULL)
// as doubles: out[i + m b] (m x B).
inline void gather_counts(const int* counts, std::size_t n_all, const int* idx, std::size_t m,
                          const double* w, std::size_t b0, std::size_t b1, double* out) {
  for (std::size_t b = b0; b < b1; ++b) {
    const int* c = counts + b * n_all;
    double* o = out + b * m;
    if (w) {
      for (std::size_t i = 0; i < m; ++i) o[i] = c[idx[i]] * w[i];
    } else {
      for (std::size_t i = 0; i < m; ++i) o[i] = c[idx[i]];
    }
  }
}

// R's quantile(x, probs, type = 7) of the finite-or-infinite values x[0..n)
// (no NaN), for probs in [0, 1], with R's arithmetic: x sorted in place;
// index 1 + (n - 1) p, qs = x[lo], and (1 - h) qs + h x[hi] where the
// index is not whole and x[hi] != qs.
inline void quantile7(double* x, std::size_t n, const double* probs, std::size_t np, double* out) {
  std::sort(x, x + n);
  for (std::size_t q = 0; q < np; ++q) {
    const double index = 1.0 + (n > 1 ? static_cast<double>(n - 1) : 0.0) * probs[q];
    const double lo = std::floor(index), hi = std::ceil(index);
    double qs = x[static_cast<std::size_t>(lo) - 1];
    const double xh = x[static_cast<std::size_t>(hi) - 1];
    if (index > lo && xh != qs) {
      const double h = index - lo;
      qs = (1 - h) * qs + h * xh;
    }
    out[q] = qs;
  }
}

}  // namespace mp

#endif
