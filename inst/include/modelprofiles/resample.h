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
#include <vector>

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

  // The next 624 words of the state (mti = 0), seeding it first as R does
  // when it never was (mti = N + 1).
  void twist() {
    if (mti == N + 1) sgenrand(4357u);
    int kk;
    std::uint32_t y;
    for (kk = 0; kk < N - M; ++kk) {
      y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
      mt[kk] = mt[kk + M] ^ (y >> 1) ^ ((0u - (y & 0x1u)) & 0x9908b0dfu);
    }
    for (; kk < N - 1; ++kk) {
      y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
      mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ ((0u - (y & 0x1u)) & 0x9908b0dfu);
    }
    y = (mt[N - 1] & 0x80000000u) | (mt[0] & 0x7fffffffu);
    mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ ((0u - (y & 0x1u)) & 0x9908b0dfu);
    mti = 0;
  }

  static std::uint32_t temper(std::uint32_t y) {
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }

  std::uint32_t next() {
    if (mti >= N) twist();
    return temper(mt[mti++]);
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

// The draws of resamples b in [b0, b1) for bits <= 16 (see draw_counts()):
// STEP outputs per attempt, the last one's top bits (under `mask`) the row
// when below n. The outputs of a block of the state are tempered at once.
// Returns with h after the last attempt.
template <int STEP>
inline void draw_counts_short(MersenneR& h, int n, std::uint32_t mask, int b0, int b1, int* out) {
  const int N = MersenneR::N;
  const std::uint32_t un = static_cast<std::uint32_t>(n);
  std::uint32_t buf[MersenneR::N];
  int b = b0, i = 0;
  int* col = out + static_cast<std::size_t>(b) * n;
  // One accepted draw; false once the last resample is complete.
  auto take = [&](std::uint32_t v) {
    ++col[v];
    if (++i < n) return true;
    if (++b == b1) return false;
    col += n;
    i = 0;
    return true;
  };
  for (;;) {
    if (h.mti >= N) h.twist();
    int pos = h.mti;
    for (int q = pos; q < N; ++q) buf[q] = MersenneR::temper(h.mt[q]);
    for (; pos <= N - STEP; pos += STEP) {
      const std::uint32_t v = (buf[pos + STEP - 1] >> 16) & mask;
      if (v < un && !take(v)) {
        h.mti = pos + STEP;
        return;
      }
    }
    h.mti = pos;
    if (pos < N) {
      // An attempt across two blocks: its outputs one by one.
      for (int k = 1; k < STEP; ++k) h.next();
      const std::uint32_t v = (h.next() >> 16) & mask;
      if (v < un && !take(v)) return;
    }
  }
}

// Resamples b in [b0, b1) of n rows as counts (column b of the n x B
// matrix `out`, zero on entry): each column from the draws after those of
// the columns before it, as tabulate(sample.int(n, n, TRUE), n) draws them.
inline void draw_counts(MersenneR& g, int n, int b0, int b1, int* out) {
  if (b0 >= b1 || n <= 0) return;
  const double dn = n;
  const int bits = static_cast<int>(std::ceil(std::log2(dn)));
  MersenneR h = g;  // (a local copy, which the compiler keeps close)
  if (bits < 16) {
    // One output's top bits per attempt.
    draw_counts_short<1>(h, n, (1u << bits) - 1u, b0, b1, out);
  } else if (bits == 16) {
    // The second output of two (R's rbits() keeps the low 16 bits of
    // 65536 v1 + v2).
    draw_counts_short<2>(h, n, 0xffffu, b0, b1, out);
  } else {
    for (int b = b0; b < b1; ++b) {
      int* col = out + static_cast<std::size_t>(b) * n;
      for (int i = 0; i < n; ++i) ++col[static_cast<int>(unif_index(h, dn, bits))];
    }
  }
  g = h;
}

// Resampled group sums of R resamples b, b+1, ..., b+R-1 in one pass over
// the entries (see resample_group_sums()): R independent sums per term, so
// that the additions do not wait for each other.
template <int R>
inline void resample_group_sums_pass(const int* counts, std::size_t n_all, const int* idx,
                                     const int* grp, std::size_t m, int K, const double* w,
                                     const double* y, int p, std::size_t b, double* sum, double* wsum) {
  const std::size_t Kp = static_cast<std::size_t>(K) * p;
  const int* c[R];
  for (int r = 0; r < R; ++r) c[r] = counts + (b + r) * n_all;
  if (K == 1 && p <= 2) {
    // One group (the sums of means of curves): the sums in registers.
    double s0[R], s1[R], ws[R];
    for (int r = 0; r < R; ++r) s0[r] = s1[r] = ws[r] = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t row = idx[i];
      const double wi = w[i], y0 = p > 0 ? y[i] : 0.0, y1 = p > 1 ? y[i + m] : 0.0;
      for (int r = 0; r < R; ++r) {
        const double cw = c[r][row] * wi;
        s0[r] += cw * y0;
        s1[r] += cw * y1;
        ws[r] += cw;
      }
    }
    for (int r = 0; r < R; ++r) {
      if (p > 0) sum[(b + r) * Kp] = s0[r];
      if (p > 1) sum[(b + r) * Kp + 1] = s1[r];
      wsum[b + r] = ws[r];
    }
    return;
  }
  double* s[R];
  double* ws[R];
  for (int r = 0; r < R; ++r) {
    s[r] = sum + (b + r) * Kp;
    ws[r] = wsum + (b + r) * K;
    for (std::size_t q = 0; q < Kp; ++q) s[r][q] = 0.0;
    for (int q = 0; q < K; ++q) ws[r][q] = 0.0;
  }
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t row = idx[i];
    const int k = grp ? grp[i] : 0;
    const double wi = w[i];
    double cw[R];
    for (int r = 0; r < R; ++r) {
      cw[r] = c[r][row] * wi;
      ws[r][k] += cw[r];
    }
    for (int j = 0; j < p; ++j) {
      const double yj = y[i + m * j];
      const std::size_t q = k + static_cast<std::size_t>(K) * j;
      for (int r = 0; r < R; ++r) s[r][q] += cw[r] * yj;
    }
  }
}

// Resampled group sums: for the resamples b in [b0, b1) of the counts
// (n_all x B, column-major), over the m entries i in order, entry i being
// background row idx[i] (0-based) in group grp[i] (0-based, < K; grp NULL
// for a single group), with weight c w[i] (c the row's count):
//   sum[(k + K j) + K p b]  += c w[i] y[i + m j]   (j < p values per entry)
//   wsum[k + K b]           += c w[i]
// Each resample's sums are made by one loop over the entries in order, so
// that they do not depend on how the resamples are split among threads
// (four resamples at a time, each with sums of its own).
inline void resample_group_sums(const int* counts, std::size_t n_all, const int* idx,
                                const int* grp, std::size_t m, int K, const double* w,
                                const double* y, int p, std::size_t b0, std::size_t b1,
                                double* sum, double* wsum) {
  std::size_t b = b0;
  for (; b + 4 <= b1; b += 4) resample_group_sums_pass<4>(counts, n_all, idx, grp, m, K, w, y, p, b, sum, wsum);
  for (; b < b1; ++b) resample_group_sums_pass<1>(counts, n_all, idx, grp, m, K, w, y, p, b, sum, wsum);
}

// The entries 0..m-1 ordered by their rows idx (stable): `perm`, and true
// when it keeps the entries of each group (grp, < K; NULL: one group) in
// their order, false (perm untouched) when not or when they are in row
// order already.
inline bool row_order(const int* idx, const int* grp, std::size_t m, int K, std::vector<std::size_t>& perm) {
  bool sorted = true;
  for (std::size_t i = 1; i < m && sorted; ++i) sorted = idx[i - 1] <= idx[i];
  if (sorted) return false;
  // Within each group, the rows must not decrease along the entries.
  std::vector<int> last(K, -1);
  for (std::size_t i = 0; i < m; ++i) {
    const int k = grp ? grp[i] : 0;
    if (idx[i] < last[k]) return false;
    last[k] = idx[i];
  }
  perm.resize(m);
  for (std::size_t i = 0; i < m; ++i) perm[i] = i;
  std::stable_sort(perm.begin(), perm.end(), [idx](std::size_t a, std::size_t b) { return idx[a] < idx[b]; });
  return true;
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
