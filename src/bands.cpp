// The bootstrap bands' resamples and their products with per-row values
// (resample.h); Armadillo for the dense products.
#include <RcppArmadillo.h>
#include <R_ext/Random.h>
#include <modelprofiles/resample.h>
#include "parallel.h"

using namespace Rcpp;

// B bootstrap resamples of n rows as counts (an n x B matrix: how often row
// i is drawn in resample b), drawn from R's random-number stream exactly as
// tabulate(sample.int(n, n, replace = TRUE), n) draws them, resample after
// resample (the same numbers for the same seed, and the same stream
// afterwards), without the n x B draws. With R's default generator
// (Mersenne-Twister, rejection sampling) the draws are made by a copy of
// it (mp::MersenneR) on the state of .Random.seed, which is written back;
// with any other kind, through R_unif_index(). (Not exported with Rcpp's
// RNG scope: its PutRNGstate() would write R's stale state over ours.)
// [[Rcpp::export(rng = false)]]
IntegerMatrix cpp_draw_resamples(int n, int B) {
  if (n < 0 || B < 0) stop("n and B must be non-negative");
  IntegerMatrix out(n, B);
  // Seed the stream (from the clock, as R would, when there is none) and
  // write it to .Random.seed.
  GetRNGstate();
  PutRNGstate();
  SEXP sym = Rf_install(".Random.seed");
  SEXP seeds = Rf_findVarInFrame(R_GlobalEnv, sym);
  const bool fast = seeds != R_UnboundValue && TYPEOF(seeds) == INTSXP && XLENGTH(seeds) == 626 &&
    INTEGER(seeds)[0] % 100 == 3 && INTEGER(seeds)[0] / 10000 == 1;
  if (!fast) {
    GetRNGstate();
    const double dn = n;
    for (int b = 0; b < B; ++b) {
      int* col = out.begin() + static_cast<R_xlen_t>(b) * n;
      for (int i = 0; i < n; ++i) ++col[static_cast<int>(R_unif_index(dn))];
    }
    PutRNGstate();
    return out;
  }
  mp::MersenneR g;
  const int* s = INTEGER(seeds);
  g.mti = s[1];
  for (int i = 0; i < mp::MersenneR::N; ++i) g.mt[i] = static_cast<std::uint32_t>(s[i + 2]);
  mp::draw_counts(g, n, 0, B, out.begin());
  SEXP next = PROTECT(Rf_allocVector(INTSXP, 626));
  int* t = INTEGER(next);
  t[0] = s[0];
  t[1] = g.mti;
  for (int i = 0; i < mp::MersenneR::N; ++i) t[i + 2] = static_cast<int>(g.mt[i]);
  Rf_defineVar(sym, next, R_GlobalEnv);
  UNPROTECT(1);
  return out;
}

// Resampled group sums (mp::resample_group_sums()): of the values y (m
// entries x p) of background rows idx (0-based) in groups grp (0-based, K
// groups; an empty vector: one group), weights w, with the counts of each
// of the B resamples (n x B): list(sum = (K p) x B, wsum = K x B).
// [[Rcpp::export(rng = false)]]
List cpp_resample_group_sums(IntegerMatrix counts, IntegerVector idx, IntegerVector grp, int K,
                             NumericVector w, NumericMatrix y, int threads) {
  const std::size_t m = idx.size(), n_all = counts.nrow(), B = counts.ncol();
  const int p = y.ncol();
  if (static_cast<std::size_t>(w.size()) != m || static_cast<std::size_t>(y.nrow()) != m ||
      (grp.size() && static_cast<std::size_t>(grp.size()) != m) || K < 1) {
    stop("lengths differ");
  }
  std::vector<int> ix(m), gx(grp.size());
  for (std::size_t i = 0; i < m; ++i) {
    if (idx[i] < 0 || static_cast<std::size_t>(idx[i]) >= n_all) stop("row index out of range");
    ix[i] = idx[i];
    if (grp.size()) {
      if (grp[i] < 0 || grp[i] >= K) stop("group index out of range");
      gx[i] = grp[i];
    }
  }
  NumericMatrix sum(K * p, B), wsum(K, B);
  const int* cp = counts.begin();
  const int* gp = grp.size() ? gx.data() : nullptr;
  const double* wp = w.begin();
  const double* yp = y.begin();
  // The entries in the order of their rows, where that keeps each group's
  // entries in their order (then every sum adds the same terms in the same
  // order): each resample's counts are read in one pass, not one pass per
  // group.
  std::vector<double> wr, yr;
  std::vector<int> gr;
  std::vector<std::size_t> perm;
  if (mp::row_order(ix.data(), gp, m, K, perm)) {
    std::vector<int> ir(m);
    wr.resize(m);
    yr.resize(m * p);
    if (gp) gr.resize(m);
    for (std::size_t t = 0; t < m; ++t) {
      const std::size_t i = perm[t];
      ir[t] = ix[i];
      wr[t] = wp[i];
      if (gp) gr[t] = gp[i];
      for (int j = 0; j < p; ++j) yr[t + m * j] = yp[i + m * j];
    }
    ix.swap(ir);
    wp = wr.data();
    yp = yr.data();
    if (gp) gp = gr.data();
  }
  double* sp = sum.begin();
  double* wsp = wsum.begin();
  glue::parallel_for(B, 1, threads, [&](std::size_t b0, std::size_t b1) {
    mp::resample_group_sums(cp, n_all, ix.data(), gp, m, K, wp, yp, p, b0, b1, sp, wsp);
  });
  return List::create(_["sum"] = sum, _["wsum"] = wsum);
}

// M %*% (counts[idx, ] (* w)): the resampled weighted sums of the columns
// of M (G x m, a column per entry of background rows idx, 0-based), a
// G x B matrix. The gathered counts are made in parallel (each cell by one
// thread), the product by Armadillo (R's BLAS), whatever `threads` is.
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_resample_product(NumericMatrix M, IntegerMatrix counts, IntegerVector idx,
                                   Nullable<NumericVector> w, int threads) {
  const std::size_t m = idx.size(), n_all = counts.nrow(), B = counts.ncol();
  if (static_cast<std::size_t>(M.ncol()) != m) stop("M must have a column per entry");
  NumericVector wv;
  if (w.isNotNull()) {
    wv = NumericVector(w);
    if (static_cast<std::size_t>(wv.size()) != m) stop("lengths differ");
  }
  std::vector<int> ix(m);
  for (std::size_t i = 0; i < m; ++i) {
    if (idx[i] < 0 || static_cast<std::size_t>(idx[i]) >= n_all) stop("row index out of range");
    ix[i] = idx[i];
  }
  arma::mat C(m, B);
  const int* cp = counts.begin();
  const double* wp = w.isNotNull() ? wv.begin() : nullptr;
  double* Cp = C.memptr();
  glue::parallel_for(B, 1, threads, [&](std::size_t b0, std::size_t b1) {
    mp::gather_counts(cp, n_all, ix.data(), m, wp, b0, b1, Cp);
  });
  NumericMatrix out(M.nrow(), B);
  const arma::mat A(M.begin(), M.nrow(), m, false, true);
  arma::mat O(out.begin(), M.nrow(), B, false, true);
  O = A * C;
  return out;
}

// Percentile limits of the rows of a replicate matrix R (estimates x B):
// R's quantile(r, probs, na.rm = TRUE, type = 7) of each row's defined
// values, NA for a row where fewer than half are defined. (probs x rows.)
// [[Rcpp::export(rng = false)]]
NumericMatrix cpp_row_quantiles(NumericMatrix R, NumericVector probs, int threads) {
  const std::size_t nr = R.nrow(), B = R.ncol(), np = probs.size();
  NumericMatrix out(np, nr);
  const double* rp = R.begin();
  const double* pp = probs.begin();
  double* op = out.begin();
  glue::parallel_for(nr, 16, threads, [&](std::size_t r0, std::size_t r1) {
    std::vector<double> x(B);
    for (std::size_t r = r0; r < r1; ++r) {
      std::size_t k = 0;
      for (std::size_t b = 0; b < B; ++b) {
        const double v = rp[r + nr * b];
        if (!std::isnan(v)) x[k++] = v;
      }
      double* o = op + r * np;
      if (2 * k < B || k == 0) {
        for (std::size_t q = 0; q < np; ++q) o[q] = NA_REAL;
      } else {
        mp::quantile7(x.data(), k, pp, np, o);
      }
    }
  });
  return out;
}

// The sums over rows of squared influences that analytic bands are made
// of: ss[g] = sum_r (u_r[g])^2, u_r = A v_r + s_r, for the profile's map A
// (G x K) and each row r's contributions v_r (K): the columns of Vt (K x n,
// dense; may be empty) plus the entries (pos, cell, a) (row pos, 0-based,
// adds a to v_r[cell], 0-based), and row scalars s (n; may be empty) that
// move every value alike. No n x G matrix is made: the rows are taken in
// blocks, each block's u by Armadillo's product (R's BLAS), and the
// blocks' sums are added in order (the same numbers for any number of
// threads).
// [[Rcpp::export(rng = false)]]
NumericVector cpp_influence_ss(NumericMatrix A, NumericMatrix Vt, IntegerVector pos, IntegerVector cell,
                               NumericVector a, NumericVector s, int n, int threads) {
  const std::size_t G = A.nrow(), K = A.ncol(), N = n, m = pos.size();
  const bool dense = Vt.ncol() > 0;
  if (dense && (static_cast<std::size_t>(Vt.nrow()) != K || static_cast<std::size_t>(Vt.ncol()) != N)) {
    stop("Vt must be K x n");
  }
  if (static_cast<std::size_t>(cell.size()) != m || static_cast<std::size_t>(a.size()) != m) stop("lengths differ");
  if (s.size() && static_cast<std::size_t>(s.size()) != N) stop("s must have a value per row");
  // The entries by row (stable): start[r] .. start[r + 1] of `order`.
  std::vector<std::size_t> start(N + 1, 0), order(m);
  for (std::size_t e = 0; e < m; ++e) {
    if (pos[e] < 0 || static_cast<std::size_t>(pos[e]) >= N) stop("row out of range");
    if (cell[e] < 0 || static_cast<std::size_t>(cell[e]) >= K) stop("cell out of range");
    ++start[pos[e] + 1];
  }
  for (std::size_t r = 0; r < N; ++r) start[r + 1] += start[r];
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::size_t e = 0; e < m; ++e) order[next[pos[e]]++] = e;
  }
  const std::size_t block = 256, nb = (N + block - 1) / block;
  std::vector<double> partial(G * nb, 0.0);
  const double* Ap = A.begin();
  const double* Vp = dense ? Vt.begin() : nullptr;
  const int* cp = cell.begin();
  const double* ap = a.begin();
  const double* sp = s.size() ? s.begin() : nullptr;
  glue::parallel_for(nb, 1, threads, [&](std::size_t k0, std::size_t k1) {
    const arma::mat Am(const_cast<double*>(Ap), G, K, false, true);
    arma::mat U;
    for (std::size_t k = k0; k < k1; ++k) {
      const std::size_t r0 = k * block, r1 = std::min(N, r0 + block), len = r1 - r0;
      if (dense) {
        const arma::mat Vb(const_cast<double*>(Vp) + r0 * K, K, len, false, true);
        U = Am * Vb;
      } else {
        U.zeros(G, len);
      }
      double* out = partial.data() + k * G;
      for (std::size_t r = r0; r < r1; ++r) {
        double* u = U.colptr(r - r0);
        for (std::size_t t = start[r]; t < start[r + 1]; ++t) {
          const std::size_t e = order[t];
          const double* col = Ap + static_cast<std::size_t>(cp[e]) * G;
          const double ae = ap[e];
          for (std::size_t g = 0; g < G; ++g) u[g] += ae * col[g];
        }
        const double sr = sp ? sp[r] : 0.0;
        for (std::size_t g = 0; g < G; ++g) {
          const double v = u[g] + sr;
          out[g] += v * v;
        }
      }
    }
  });
  NumericVector ss(G);
  for (std::size_t k = 0; k < nb; ++k) {
    for (std::size_t g = 0; g < G; ++g) ss[g] += partial[k * G + g];
  }
  return ss;
}
