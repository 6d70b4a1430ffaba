// Where a profile extrapolates (support.h): the reference distances and
// the evaluation points outside the data's support.
#include "parallel.h"
#include <modelprofiles/support.h>

using namespace Rcpp;

namespace {

// The space of the rows; `has_na` receives the numeric columns' flags.
mp::SupportSpace support_space(const NumericMatrix& num, const IntegerMatrix& fac, double mismatch,
                               std::vector<unsigned char>& has_na) {
  if (num.ncol() > 0 && fac.ncol() > 0 && num.nrow() != fac.nrow()) stop("rows differ");
  const std::size_t n = num.ncol() > 0 ? num.nrow() : fac.nrow();
  for (R_xlen_t k = 0; k < fac.size(); ++k) {
    if (fac[k] == NA_INTEGER || fac[k] < 0) stop("codes must be >= 0");
  }
  has_na.assign(std::max(num.ncol(), 1), 0);
  for (int c = 0; c < num.ncol(); ++c) {
    const double* col = num.begin() + static_cast<std::size_t>(c) * n;
    for (std::size_t r = 0; r < n; ++r) {
      if (std::isnan(col[r])) {
        has_na[c] = 1;
        break;
      }
    }
  }
  return mp::SupportSpace{num.begin(), num.ncol(), has_na.data(), fac.begin(), fac.ncol(), n, mismatch};
}

// The reference rows `ref` of s, gathered (contiguous rows).
struct Gathered {
  std::vector<double> num, rows, quads;
  std::vector<int> fac;
  std::vector<unsigned char> has_na;
  mp::SupportSpace space;
};

void gather(const mp::SupportSpace& s, const std::vector<int>& ref, int lanes, Gathered& g) {
  const std::size_t m = ref.size();
  g.num.resize(m * s.pn);
  g.rows.resize(m * s.pn);
  g.quads.resize((m + 3) / 4 * 4 * s.pn);  // (the last quad whole)
  g.fac.resize(m * s.pf);
  g.has_na.assign(std::max(s.pn, 1), 0);
  for (int c = 0; c < s.pn; ++c) {
    for (std::size_t k = 0; k < m; ++k) {
      const double v = s.num[static_cast<std::size_t>(c) * s.n + ref[k]];
      g.num[c * m + k] = v;
      g.rows[k * s.pn + c] = v;
      g.quads[(k - k % 4) * s.pn + 4 * c + k % 4] = v;
      if (std::isnan(v)) g.has_na[c] = 1;
    }
  }
  for (int c = 0; c < s.pf; ++c) {
    for (std::size_t k = 0; k < m; ++k) g.fac[c * m + k] = s.fac[static_cast<std::size_t>(c) * s.n + ref[k]];
  }
  g.space = mp::SupportSpace{g.num.data(), s.pn, g.has_na.data(), g.fac.data(), s.pf, m, s.mismatch, g.rows.data(),
                             g.quads.data(), lanes};
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
                                    IntegerVector ref, int lanes, int threads) {
  std::vector<unsigned char> has_na;
  const mp::SupportSpace s = support_space(num, fac, mismatch, has_na);
  const std::vector<int> r = row_indices(ref, s.n);
  const int m = static_cast<int>(r.size());
  Gathered g;
  gather(s, r, lanes, g);
  // (Each pair once, in a fixed number of tasks, so the result does not
  // depend on the threads.)
  const std::size_t tasks = 16;
  std::vector<std::vector<double>> best(tasks);
  glue::parallel_for(tasks, 1, threads, [&](std::size_t b, std::size_t e) {
    std::vector<double> buf(m + std::max(3 * g.space.pn, 1));
    for (std::size_t t = b; t < e; ++t) {
      best[t].assign(m, std::numeric_limits<double>::infinity());
      mp::support_reference(g.space, t, tasks, best[t].data(), buf.data());
    }
  });
  NumericVector r2(m, std::numeric_limits<double>::infinity());
  for (std::size_t t = 0; t < tasks; ++t) {
    for (int a = 0; a < m; ++a) r2[a] = std::min(r2[a], best[t][a]);
  }
  return r2;
}

// The evaluation points outside the support of profiles over `axes`
// (list(numeric, col (0-based), z (standardised numeric grid), zc
// (codes))): one-variable profiles of each axis, or with `pair` the
// two-variable profile of the two axes; of rows `eval` (0-based; `self`:
// their positions among `ref`, or -1) with weights w. A list per profile:
// list(share (G, or Ga x Gb with a fastest), outside (G x rows, raw 0/1;
// with keep only)).
// [[Rcpp::export(rng = false)]]
List cpp_support_outside(NumericMatrix num, IntegerMatrix fac, double mismatch, IntegerVector ref,
                         IntegerVector eval, IntegerVector self, double t2, List axes, bool pair,
                         NumericVector w, bool keep, int lanes, int threads) {
  std::vector<unsigned char> has_na;
  const mp::SupportSpace s = support_space(num, fac, mismatch, has_na);
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
  if (pair && axes.size() != 2) stop("a pair needs two axes");
  Gathered g;
  gather(s, r, lanes, g);
  std::vector<mp::SupportAxis> ax;
  int levels = 1;
  std::size_t Gmax = 1;
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
    ax.push_back(mp::support_axis(s, g.space, numeric, col, z.begin(), zc.begin(), G));
    levels = std::max(levels, ax.back().levels);
    Gmax = std::max<std::size_t>(Gmax, G);
  }
  std::vector<std::size_t> cells;
  if (pair) {
    cells.push_back(ax[0].size() * ax[1].size());
  } else {
    for (const auto& a : ax) cells.push_back(a.size());
  }
  std::vector<std::vector<unsigned char>> out(cells.size());
  std::vector<unsigned char*> outp(cells.size());
  for (std::size_t p = 0; p < cells.size(); ++p) {
    out[p].assign(E * cells[p], 0);
    outp[p] = out[p].data();
  }
  glue::parallel_chunks(E, 4096, 64, threads, [&](std::size_t b, std::size_t e) {
    mp::SupportWork work(m, levels, Gmax, s.pn);
    if (pair) {
      mp::support_outside_2d(s, g.space, ax[0], ax[1], ev.data(), sf.data(), t2, b, e, outp[0], work);
    } else {
      mp::support_outside_1d(s, g.space, ax, ev.data(), sf.data(), t2, b, e, outp, work);
    }
  });
  double W = 0.0;
  for (std::size_t e = 0; e < E; ++e) W += w[e];
  List res(cells.size());
  for (std::size_t p = 0; p < cells.size(); ++p) {
    // The weighted shares, summed in the rows' order.
    const std::size_t C = cells[p];
    NumericVector share(C);
    for (std::size_t e = 0; e < E; ++e) {
      if (w[e] == 0.0) continue;
      const unsigned char* o = out[p].data() + e * C;
      for (std::size_t g = 0; g < C; ++g) if (o[g]) share[g] += w[e];
    }
    for (std::size_t g = 0; g < C; ++g) share[g] = W > 0 ? share[g] / W : NA_REAL;
    RObject kept = R_NilValue;
    if (keep) {
      RawMatrix o(static_cast<int>(C), static_cast<int>(E));
      std::copy(out[p].begin(), out[p].end(), o.begin());
      kept = o;
    }
    res[p] = List::create(_["share"] = share, _["outside"] = kept);
  }
  return res;
}
