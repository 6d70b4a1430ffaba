// Resampling for the bootstrap bands.
#include <Rcpp.h>
#include <R_ext/Random.h>

using namespace Rcpp;

// B bootstrap resamples of n rows as counts (an n x B matrix: how often row
// i is drawn in resample b), drawn from R's generator exactly as
// tabulate(sample.int(n, n, replace = TRUE), n) draws them, resample after
// resample (the same numbers for the same seed), without the n x B draws.
// [[Rcpp::export]]
IntegerMatrix cpp_draw_resamples(int n, int B) {
  if (n < 0 || B < 0) stop("n and B must be non-negative");
  IntegerMatrix out(n, B);
  const double dn = n;
  for (int b = 0; b < B; ++b) {
    int* col = out.begin() + static_cast<R_xlen_t>(b) * n;
    for (int i = 0; i < n; ++i) ++col[static_cast<int>(R_unif_index(dn))];
  }
  return out;
}
