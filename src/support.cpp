// Where a profile extrapolates (support.h): the reference distances and
// the evaluation points outside the data's support.
#include "parallel.h"
#include <modelprofiles/support.h>

using namespace Rcpp;

namespace {

mp::SupportSpace support_space(const NumericMatrix& num, const IntegerMatrix& fac, double mismatch) {
  if (num.ncol() > 0 && fac.ncol() > 0 && num.nrow() != fac.nrow()) stop("rows differ");
  const std::size_t n = num.ncol() > 0 ? num.nrow() : fac.nrow();
  for (R_xlen_t k = 0; k < fac.size(); ++k) {
    if (fac[k] == NA_INTEGER || fac[k] < 0) stop("codes must be >= 0");
  }
  return mp::SupportSpace{num.begin(), num.ncol(), fac.begin(), fac.ncol(), n, mismatch};
}

std::vector<int> row_indices(const IntegerVector& idx, std::size_t n) {
  std::vector<int> out(idx.size());
  for (R_xlen_t k = 0; k < idx.size(); ++k) {
    if (idx[k] == NA_INTEGER || idx[k] < 0 || static_cast<std::size_t>(idx[k]) >= n) stop("row out of range");
    out[k] = idx[k];
  }
  return out;
}

}  // namespace

// Each reference row's squared distance to its nearest other reference row
// (rows `ref`, 0-based).
// [[Rcpp::export(rng = false)]]
NumericVector cpp_support_reference(NumericMatrix num, IntegerMatrix fac, double mismatch,
                                    IntegerVector ref, int threads) {
  const mp::SupportSpace s = support_space(num, fac, mismatch);
  const std::vector<int> r = row_indices(ref, s.n);
  const int m = static_cast<int>(r.size());
  std::vector<double> r2(m);
  glue::parallel_for(m, 16, threads, [&](std::size_t b, std::size_t e) {
    std::vector<double> buf(m);
    mp::support_reference(s, r.data(), m, b, e, r2.data(), buf.data());
  });
  return wrap(r2);
}

// The evaluation points outside the support of profiles over `axes` (one
// or two: list(numeric, col (0-based), z (standardised numeric grid), zc
// (codes))), of rows `eval` (0-based; `self`: their positions among `ref`,
// or -1) with weights w: list(share (G, or Ga x Gb with a fastest), outside
// (G x rows, raw 0/1; with keep only)).
// [[Rcpp::export(rng = false)]]
List cpp_support_outside(NumericMatrix num, IntegerMatrix fac, double mismatch, IntegerVector ref,
                         IntegerVector eval, IntegerVector self, double t2, List axes,
                         NumericVector w, bool keep, int threads) {
  const mp::SupportSpace s = support_space(num, fac, mismatch);
  const std::vector<int> r = row_indices(ref, s.n);
  const std::vector<int> ev = row_indices(eval, s.n);
  const int m = static_cast<int>(r.size());
  const std::size_t E = ev.size();
  if (self.size() != static_cast<R_xlen_t>(E) || w.size() != static_cast<R_xlen_t>(E)) stop("lengths differ");
  std::vector<int> sf(E);
  for (std::size_t e = 0; e < E; ++e) {
    if (self[e] == NA_INTEGER || self[e] < -1 || self[e] >= m) stop("self out of range");
    sf[e] = self[e];
  }
  if (axes.size() < 1 || axes.size() > 2) stop("one or two axes");
  std::vector<mp::SupportAxis> ax;
  int levels = 1;
  for (R_xlen_t a = 0; a < axes.size(); ++a) {
    List spec = axes[a];
    const bool numeric = as<bool>(spec["numeric"]);
    const int col = as<int>(spec["col"]);
    NumericVector z = spec["z"];
    IntegerVector zc = spec["zc"];
    if (col < 0 || col >= (numeric ? s.pn : s.pf)) stop("column out of range");
    const int G = numeric ? z.size() : zc.size();
    if (!numeric) {
      for (int g = 0; g < G; ++g) if (zc[g] == NA_INTEGER || zc[g] < 0) stop("codes must be >= 0");
    } else {
      for (int g = 0; g < G; ++g) if (std::isnan(z[g])) stop("a numeric grid value is missing");
    }
    ax.push_back(mp::support_axis(s, numeric, col, z.begin(), zc.begin(), G, r.data(), m));
    levels = std::max(levels, ax.back().levels);
  }
  const std::size_t cells = ax.size() == 1 ? ax[0].size() : ax[0].size() * ax[1].size();
  std::vector<unsigned char> out(E * cells);
  glue::parallel_chunks(E, 4096, 8, threads, [&](std::size_t b, std::size_t e) {
    mp::SupportWork work(m, levels);
    if (ax.size() == 1) {
      mp::support_outside_1d(s, ax[0], r.data(), m, ev.data(), sf.data(), t2, b, e, out.data(), work);
    } else {
      mp::support_outside_2d(s, ax[0], ax[1], r.data(), m, ev.data(), sf.data(), t2, b, e, out.data(), work);
    }
  });
  // The weighted shares, summed in the rows' order.
  NumericVector share(cells);
  double W = 0.0;
  for (std::size_t e = 0; e < E; ++e) {
    W += w[e];
    if (w[e] == 0.0) continue;
    const unsigned char* o = out.data() + e * cells;
    for (std::size_t g = 0; g < cells; ++g) if (o[g]) share[g] += w[e];
  }
  for (std::size_t g = 0; g < cells; ++g) share[g] = W > 0 ? share[g] / W : NA_REAL;
  RObject kept = R_NilValue;
  if (keep) {
    RawMatrix o(static_cast<int>(cells), static_cast<int>(E));
    std::copy(out.begin(), out.end(), o.begin());
    kept = o;
  }
  return List::create(_["share"] = share, _["outside"] = kept);
}
