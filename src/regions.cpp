// The best split of ICE curves for find_regions() (regions.h).
#include <Rcpp.h>
#include <modelprofiles/regions.h>

using namespace Rcpp;

// Of rows ord (0-based columns of the G x N matrix `curves` of centred
// curves, weights w), sorted by `key`, the split into the first k of them
// and the rest that leaves the least heterogeneity, with min_w weight on
// each side at least: list(k (0 when none), within (the heterogeneity left), total).
// [[Rcpp::export(rng = false)]]
List cpp_best_split(NumericMatrix curves, NumericVector w, IntegerVector ord, NumericVector key,
                    double min_w) {
  const int n = ord.size();
  if (w.size() != curves.ncol() || key.size() != curves.ncol()) stop("lengths differ");
  for (int r = 0; r < n; ++r) {
    if (ord[r] < 0 || ord[r] >= curves.ncol()) stop("row out of range");  // (NA too)
  }
  int k = 0;
  double total = 0.0;
  const double within = mp::best_prefix_split(curves.begin(), curves.nrow(), w.begin(), ord.begin(),
                                              key.begin(), n, min_w, &k, &total);
  return List::create(_["k"] = k, _["within"] = k > 0 ? within : R_PosInf, _["total"] = total);
}
