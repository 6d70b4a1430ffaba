// Stacking the rows to predict: row r of the result is background row src[r]
// with the profiled column(s) replaced by the given values. Numeric, integer,
// factor and logical columns are gathered by RcppParallel workers over plain
// buffers read on the main thread; character columns are copied on the main
// thread (CHARSXP handling is R API).
#include <Rcpp.h>
#include <modelprofiles/kernels.h>
#include "parallel.h"

using namespace Rcpp;

namespace {

SEXP gather_column(SEXP col, const IntegerVector& src, int threads) {
  const R_xlen_t m = src.size();
  const int* s = src.begin();
  SEXP out;
  switch (TYPEOF(col)) {
    case REALSXP: {
      out = PROTECT(Rf_allocVector(REALSXP, m));
      const double* in = REAL(col);
      double* o = REAL(out);
      glue::parallel_for(m, 4096, threads, [&](std::size_t begin, std::size_t end) {
        mp::gather(in, s, o, begin, end);
      });
      break;
    }
    case INTSXP:
    case LGLSXP: {
      out = PROTECT(Rf_allocVector(TYPEOF(col), m));
      const int* in = TYPEOF(col) == INTSXP ? INTEGER(col) : LOGICAL(col);
      int* o = TYPEOF(col) == INTSXP ? INTEGER(out) : LOGICAL(out);
      glue::parallel_for(m, 4096, threads, [&](std::size_t begin, std::size_t end) {
        mp::gather(in, s, o, begin, end);
      });
      break;
    }
    case STRSXP: {
      out = PROTECT(Rf_allocVector(STRSXP, m));
      for (R_xlen_t r = 0; r < m; ++r) SET_STRING_ELT(out, r, STRING_ELT(col, s[r]));
      break;
    }
    default:
      stop("unsupported column type");
  }
  Rf_copyMostAttrib(col, out);
  UNPROTECT(1);
  return out;
}

}  // namespace

// data: the background data frame (a list of columns); src: 0-based source
// rows, one per output row, or NULL; js: 0-based indices of the profiled columns;
// vals: for each profiled column, its values, one per output row, already of
// the column's type. With src = NULL the rows are the background rows
// themselves, in order: the columns that are not profiled are shared with
// `data`, not copied.
// [[Rcpp::export(rng = false)]]
List cpp_stack_frame(List data, Nullable<IntegerVector> src_, IntegerVector js,
                     List vals, int threads) {
  const int p = data.size();
  const int n = Rf_length(data[0]);
  const bool identity = src_.isNull();
  IntegerVector src = identity ? IntegerVector(0) : IntegerVector(src_.get());
  const R_xlen_t m = identity ? n : src.size();
  for (R_xlen_t r = 0; r < src.size(); ++r)
    if (src[r] < 0 || src[r] >= n) stop("source row out of range");
  List out(p);
  for (int c = 0; c < p; ++c) {
    int which = -1;
    for (int k = 0; k < js.size(); ++k)
      if (js[k] == c) which = k;
    if (which >= 0) {
      SEXP v = vals[which];
      if (Rf_xlength(v) != m) stop("profiled values have the wrong length");
      out[c] = v;
    } else if (identity) {
      out[c] = data[c];
    } else {
      out[c] = gather_column(data[c], src, threads);
    }
    Rcpp::checkUserInterrupt();
  }
  out.attr("names") = data.attr("names");
  out.attr("row.names") = IntegerVector::create(NA_INTEGER, -static_cast<int>(m));
  out.attr("class") = "data.frame";
  return out;
}
