// The split of a set of ICE curves that most reduces their heterogeneity
// (find_regions()). R-free.
//
// The curves are centred (each on its own mean over the grid), so that
// what is left is how their shapes differ. The heterogeneity of a set S of
// rows with weights w_i and centred curves c_i (G values each) is
//   H(S) = sum_{i in S} w_i |c_i - cbar_S|^2 = Q_S - |C_S|^2 / W_S,
// with W_S = sum w_i, C_S = sum w_i c_i and Q_S = sum w_i |c_i|^2, so that
// every split of rows sorted by another variable into a prefix and the rest
// is scored from running sums in O(G) each: O(n G) for all splits of one
// variable.
#ifndef MODELPROFILES_REGIONS_H
#define MODELPROFILES_REGIONS_H

#include <cstddef>
#include <limits>
#include <vector>

namespace mp {

// The best split of rows ord[0..n) (0-based columns of the G x N matrix
// `curves`, column-major, weights w) into ord[0..k) and ord[k..n), cutting
// only where the sort key changes (key[ord[k - 1]] < key[ord[k]]) and
// leaving at least min_w weight on each side: sets *k_best (0 when none) and
// returns the heterogeneity of the two parts (H(left) + H(right)); *total
// gets H of all n rows.
inline double best_prefix_split(const double* curves, std::size_t G, const double* w,
                                const int* ord, const double* key, int n, double min_w,
                                int* k_best, double* total) {
  std::vector<double> C(G, 0.0), Call(G, 0.0);
  double Q = 0.0, W = 0.0, Qall = 0.0, Wall = 0.0;
  for (int r = 0; r < n; ++r) {
    const double* c = curves + static_cast<std::size_t>(ord[r]) * G;
    const double wi = w[ord[r]];
    for (std::size_t g = 0; g < G; ++g) {
      Call[g] += wi * c[g];
      Qall += wi * c[g] * c[g];
    }
    Wall += wi;
  }
  auto het = [G](double Qs, const double* Cs, double Ws) {
    if (!(Ws > 0)) return 0.0;
    double s = 0.0;
    for (std::size_t g = 0; g < G; ++g) s += Cs[g] * Cs[g];
    const double h = Qs - s / Ws;
    return h > 0 ? h : 0.0;
  };
  *total = het(Qall, Call.data(), Wall);
  double best = std::numeric_limits<double>::infinity();
  *k_best = 0;
  std::vector<double> R(G);
  for (int k = 1; k < n; ++k) {
    const double* c = curves + static_cast<std::size_t>(ord[k - 1]) * G;
    const double wi = w[ord[k - 1]];
    for (std::size_t g = 0; g < G; ++g) {
      C[g] += wi * c[g];
      Q += wi * c[g] * c[g];
    }
    W += wi;
    if (!(key[ord[k - 1]] < key[ord[k]])) continue;
    if (W < min_w || Wall - W < min_w) continue;
    for (std::size_t g = 0; g < G; ++g) R[g] = Call[g] - C[g];
    const double h = het(Q, C.data(), W) + het(Qall - Q, R.data(), Wall - W);
    if (h < best) {
      best = h;
      *k_best = k;
    }
  }
  return best;
}

}  // namespace mp

#endif
