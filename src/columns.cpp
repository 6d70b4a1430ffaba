// Scans of a background column that allocate nothing of the column's
// length (at 10^7 rows an R expression such as is.infinite(x) allocates a
// vector the size of the column, which stays until R collects it).
#include <Rcpp.h>
#include <algorithm>
#include <cmath>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace Rcpp;

// The number of infinite values of a double vector.
// [[Rcpp::export(rng = false)]]
double cpp_count_infinite(NumericVector x) {
  double n = 0;
  const double* p = x.begin();
  for (R_xlen_t i = 0, m = x.size(); i < m; ++i) n += std::isinf(p[i]);
  return n;
}

// The sorted distinct values of a double vector without missing values when
// there are at most `limit` of them, else NULL (stopping at the first value
// past the limit): what unique() would say of a column with few values,
// without its hash table of the column's length.
// [[Rcpp::export(rng = false)]]
SEXP cpp_distinct_upto(NumericVector x, int limit) {
  std::vector<double> seen;
  seen.reserve(static_cast<std::size_t>(limit) + 1);
  const double* p = x.begin();
  for (R_xlen_t i = 0, m = x.size(); i < m; ++i) {
    const double v = p[i];
    auto it = std::lower_bound(seen.begin(), seen.end(), v);
    if (it != seen.end() && *it == v) continue;
    if (static_cast<int>(seen.size()) >= limit) return R_NilValue;
    seen.insert(it, v);
  }
  return wrap(seen);
}

// The number of values of x (or the sum of their weights w, when w is not
// NULL) in each interval [v[i], v[i + 1]) of the sorted breaks v, the last
// closed (findInterval(x, v, rightmost.closed = TRUE) between 1 and
// length(v) - 1; missing values and values outside left out): a vector of
// length(v) - 1.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_interval_counts(NumericVector x, NumericVector v, Nullable<NumericVector> w) {
  const R_xlen_t N = v.size();
  NumericVector out(std::max<R_xlen_t>(N - 1, 0));
  if (N < 2) return out;
  const bool weighted = w.isNotNull();
  NumericVector wv = weighted ? NumericVector(w.get()) : NumericVector(0);
  if (weighted && wv.size() != x.size()) stop("one weight per value needed");
  const double* b = v.begin();
  const double* p = x.begin();
  for (R_xlen_t i = 0, m = x.size(); i < m; ++i) {
    const double xi = p[i];
    if (std::isnan(xi)) continue;
    R_xlen_t k = std::upper_bound(b, b + N, xi) - b;  // breaks <= xi
    if (k == N && xi == b[N - 1]) k = N - 1;
    if (k < 1 || k > N - 1) continue;
    out[k - 1] += weighted ? wv[i] : 1.0;
  }
  return out;
}

// Give the memory that R has freed back to the system (glibc keeps freed
// blocks below its mmap threshold, which grows to 32 MiB, in its heap, so
// that a process's resident size would otherwise only grow with the
// vectors of a call on many rows). Elsewhere nothing.
// [[Rcpp::export(rng = false)]]
void cpp_release_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

namespace {

// Values col * n .. col * n + n - 1 of x (a column of a matrix), as a copy.
std::vector<double> column_copy(const NumericVector& x, R_xlen_t n, int col) {
  if (n < 0 || col < 0 || (static_cast<R_xlen_t>(col) + 1) * n > x.size()) stop("column out of range");
  const double* p = x.begin() + static_cast<R_xlen_t>(col) * n;
  return std::vector<double>(p, p + n);
}

}  // namespace

// Quantiles of column `col` (0-based, of n rows) of x at probabilities p,
// of type 1 (values that occur) or 7 (interpolated), with case weights w
// (NULL: none), by the arithmetic of stats::quantile() (no weights) and of
// weighted_quantile1() / weighted_quantile7() in R/grid.R (weights: the
// sample with each value repeated w times), with one sorted copy of the
// column instead of R's several vectors of its length. No missing values.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_quantiles(NumericVector x, double n_rows, int col, NumericVector p, int type,
                            Nullable<NumericVector> w) {
  const R_xlen_t n = static_cast<R_xlen_t>(n_rows);
  NumericVector out(p.size());
  if (n == 0) stop("no values");
  if (w.isNull()) {
    std::vector<double> s = column_copy(x, n, col);
    std::sort(s.begin(), s.end());
    const double fuzz = 4 * 2.220446049250313e-16;
    for (R_xlen_t q = 0; q < p.size(); ++q) {
      if (type == 1) {
        // stats::quantile(type = 1): x[j + (n p > j)], j = floor(n p + fuzz),
        // x[0] = x[1] and x[n + 1] = x[n].
        const double nppm = n * p[q];
        const double j = std::floor(nppm + fuzz);
        const R_xlen_t k = static_cast<R_xlen_t>(j) + (nppm > j ? 1 : 0);
        out[q] = s[std::min(std::max<R_xlen_t>(k, 1), n) - 1];
      } else {
        const double index = 1 + (n - 1) * p[q];
        const double lo = std::floor(index), hi = std::ceil(index);
        const double a = s[static_cast<R_xlen_t>(lo) - 1], b = s[static_cast<R_xlen_t>(hi) - 1];
        const double h = index - lo;
        out[q] = (index > lo && b != a) ? (1 - h) * a + h * b : a;
      }
    }
    return out;
  }
  NumericVector wv(w.get());
  if (wv.size() != n) stop("one weight per value needed");
  const std::vector<double> v = column_copy(x, n, col);
  std::vector<int> o(n);
  for (R_xlen_t i = 0; i < n; ++i) o[i] = static_cast<int>(i);
  std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return v[a] < v[b]; });
  // cumsum() of the sorted weights, accumulated in long double as R does.
  std::vector<double> cw(n);
  long double acc = 0;
  for (R_xlen_t i = 0; i < n; ++i) {
    acc += wv[o[i]];
    cw[i] = static_cast<double>(acc);
  }
  // The value at the first position whose cumulative weight reaches k
  // (findInterval(k, cw, left.open = TRUE) + 1, at most n).
  auto nth = [&](double k) {
    const R_xlen_t at = std::lower_bound(cw.begin(), cw.end(), k) - cw.begin();
    return v[o[std::min(at, n - 1)]];
  };
  const double total = cw[n - 1];
  for (R_xlen_t q = 0; q < p.size(); ++q) {
    if (type == 1) {
      out[q] = nth(total * p[q]);
    } else {
      const double index = 1 + (total - 1) * p[q];
      const double lo = std::floor(index);
      const double h = index - lo;
      const double a = nth(lo), b = nth(std::ceil(index));
      out[q] = (index > lo && b != a) ? (1 - h) * a + h * b : a;
    }
  }
  return out;
}

// Are all values of x equal to x[0] (TRUE for none)?
// [[Rcpp::export(rng = false)]]
bool cpp_all_same(NumericVector x) {
  const double* p = x.begin();
  for (R_xlen_t i = 1, m = x.size(); i < m; ++i)
    if (!(p[i] == p[0])) return false;
  return true;
}

// colSums(w * M) of an n x k matrix M (n = length(w)), as R computes it
// (each product rounded to double, the sums in long double), without the
// n x k product.
// [[Rcpp::export(rng = false)]]
NumericVector cpp_weighted_col_sums(NumericVector M, NumericVector w) {
  const R_xlen_t n = w.size();
  if (n == 0 || M.size() % n != 0) stop("weights do not fit the matrix");
  const R_xlen_t k = M.size() / n;
  NumericVector out(k);
  for (R_xlen_t c = 0; c < k; ++c) {
    const double* m = M.begin() + c * n;
    long double s = 0;
    for (R_xlen_t i = 0; i < n; ++i) s += static_cast<double>(w[i] * m[i]);
    out[c] = static_cast<double>(s);
  }
  return out;
}

// The fingerprint of a double, integer or logical column at `rows` (NULL:
// all rows; else 0-based positions) as column_print() defines it: the sum
// of its values, their sum weighted by 1 + (i %% 7) at the i-th row taken
// (i from 1), and the number of missing values (counted as 0 in both sums).
// The R loop over blocks left each block's vectors to R's collector, which
// runs late: at 10^7 rows the fingerprints of four background columns
// raised the peak by 226 MiB.
template <typename T, typename Missing>
static NumericVector column_print_of(const T* p, R_xlen_t len, SEXP rows, Missing missing) {
  long double s = 0, sw = 0;
  double na = 0;
  const bool all = Rf_isNull(rows);
  const R_xlen_t n = all ? len : Rf_xlength(rows);
  const int* ri = all ? nullptr : INTEGER(rows);
  for (R_xlen_t i = 0; i < n; ++i) {
    const R_xlen_t at = all ? i : static_cast<R_xlen_t>(ri[i]);
    if (at < 0 || at >= len) stop("rows out of range");
    const T v = p[at];
    if (missing(v)) { na += 1; continue; }
    const double z = static_cast<double>(v);
    s += z;
    sw += z * static_cast<double>(1 + ((i + 1) % 7));
  }
  return NumericVector::create(static_cast<double>(s), static_cast<double>(sw), na);
}

// NULL for a column without a data pointer (an ALTREP column such as a
// compact sequence, which a pointer would expand) or of another type: R's
// loop reads those.
// [[Rcpp::export(rng = false)]]
SEXP cpp_column_print(SEXP x, Nullable<IntegerVector> rows) {
  const R_xlen_t len = Rf_xlength(x);
  if (ALTREP(x) && DATAPTR_OR_NULL(x) == nullptr) return R_NilValue;
  SEXP r = rows.isNull() ? R_NilValue : SEXP(rows.get());
  switch (TYPEOF(x)) {
  case REALSXP:
    return column_print_of(REAL(x), len, r, [](double v) { return std::isnan(v); });
  case INTSXP:
    return column_print_of(INTEGER(x), len, r, [](int v) { return v == NA_INTEGER; });
  case LGLSXP:
    return column_print_of(LOGICAL(x), len, r, [](int v) { return v == NA_LOGICAL; });
  default:
    return R_NilValue;
  }
}

// The weighted standard deviation (divisor the sum of weights) of a double
// or integer column over its observed values, as support_scale() computed
// it in R: in blocks of `block` rows, each block's sums accumulated in long
// double (as R's sum()) and added in double across blocks; two passes.
// `value(i, v)` sets v to row i's value and says whether it is observed.
// (R's loop left each block's vectors to the collector: at 10^7 rows they
// raised the peak of a profile by tens of MiB.)
template <typename Value>
static double weighted_sd_of(Value value, const double* w, R_xlen_t n, R_xlen_t block) {
  double sw = 0, swx = 0, v = 0;
  for (R_xlen_t s = 0; s < n; s += block) {
    const R_xlen_t e = std::min(n, s + block);
    long double a = 0, b = 0;
    for (R_xlen_t i = s; i < e; ++i) {
      if (!value(i, v)) continue;
      a += w[i];
      b += static_cast<double>(w[i] * v);
    }
    sw += static_cast<double>(a);
    swx += static_cast<double>(b);
  }
  const double m = swx / sw;
  double ss = 0;
  for (R_xlen_t s = 0; s < n; s += block) {
    const R_xlen_t e = std::min(n, s + block);
    long double c = 0;
    for (R_xlen_t i = s; i < e; ++i) {
      if (!value(i, v)) continue;
      const double d = v - m;
      c += static_cast<double>(w[i] * (d * d));
    }
    ss += static_cast<double>(c);
  }
  return std::sqrt(ss / sw);
}

// A double or integer column (an ALTREP one without a data pointer, such
// as a compact sequence, read element by element, never expanded).
// [[Rcpp::export(rng = false)]]
double cpp_weighted_sd(SEXP x, NumericVector w, double block) {
  const R_xlen_t n = Rf_xlength(x);
  if (w.size() != n || !(block >= 1)) stop("weights do not fit the column");
  const R_xlen_t b = static_cast<R_xlen_t>(block);
  const bool direct = !ALTREP(x) || DATAPTR_OR_NULL(x) != nullptr;
  if (TYPEOF(x) == REALSXP) {
    const double* p = direct ? REAL(x) : nullptr;
    return weighted_sd_of([&](R_xlen_t i, double& v) {
      v = p ? p[i] : REAL_ELT(x, i);
      return !std::isnan(v);
    }, w.begin(), n, b);
  }
  if (TYPEOF(x) == INTSXP) {
    const int* p = direct ? INTEGER(x) : nullptr;
    return weighted_sd_of([&](R_xlen_t i, double& v) {
      const int k = p ? p[i] : INTEGER_ELT(x, i);
      v = k;
      return k != NA_INTEGER;
    }, w.begin(), n, b);
  }
  stop("a double or integer column is needed");
}
