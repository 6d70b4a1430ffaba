// Lazy columns (ALTREP) of the ICE curves' data frame (R/result_ice.R): a
// vector that knows only how to make its values. Its length is known without
// them; a subset (`x[i]`, which `[.data.frame`, head() and subset() use) is
// made by the package's R function ice_lazy_subset() from the compact
// curves, without the rest (a subset of most rows makes the whole); the
// whole vector is made by ice_lazy_values() when R reads it whole (a
// pointer to its data), and then kept. It
// serialises as its recipe, read or not, so saveRDS() stays compact.
//
// data1: list(recipe, length); data2: NULL, or the values once made. The
// methods use only R's C API (an R error in the R functions unwinds through
// no C++ object). A copy (duplicate()) is an ordinary vector: R's default.
#include <Rcpp.h>
#include <R_ext/Altrep.h>
#include <cstring>

static R_altrep_class_t lazy_real;
static R_altrep_class_t lazy_integer;
static R_altrep_class_t lazy_logical;
static R_altrep_class_t lazy_string;

static R_xlen_t lazy_length(SEXP x) {
  return static_cast<R_xlen_t>(REAL(VECTOR_ELT(R_altrep_data1(x), 1))[0]);
}

// fun(recipe) or fun(recipe, index), evaluated in the package's namespace.
static SEXP lazy_call(const char* fun, SEXP recipe, SEXP index) {
  SEXP name = PROTECT(Rf_mkString("modelprofiles"));
  SEXP ns = PROTECT(R_FindNamespace(name));
  SEXP call = PROTECT(index == R_NilValue ? Rf_lang2(Rf_install(fun), recipe)
                                          : Rf_lang3(Rf_install(fun), recipe, index));
  SEXP out = Rf_eval(call, ns);
  UNPROTECT(3);
  return out;
}

// The values (made and kept at the first call): an ordinary vector owned by x.
static SEXP lazy_values(SEXP x) {
  SEXP kept = R_altrep_data2(x);
  if (kept != R_NilValue) return kept;
  const R_xlen_t n = lazy_length(x);
  SEXP v = PROTECT(lazy_call("ice_lazy_values", VECTOR_ELT(R_altrep_data1(x), 0), R_NilValue));
  if (TYPEOF(v) != TYPEOF(x) || XLENGTH(v) != n) {
    Rf_error("internal: a lazy column made %lld values of type %d, not %lld of type %d",
             static_cast<long long>(XLENGTH(v)), TYPEOF(v), static_cast<long long>(n), TYPEOF(x));
  }
  SEXP own = PROTECT(Rf_allocVector(TYPEOF(x), n));
  switch (TYPEOF(x)) {
  case REALSXP: if (n) std::memcpy(REAL(own), REAL_RO(v), n * sizeof(double)); break;
  case INTSXP: if (n) std::memcpy(INTEGER(own), INTEGER_RO(v), n * sizeof(int)); break;
  case LGLSXP: if (n) std::memcpy(LOGICAL(own), LOGICAL_RO(v), n * sizeof(int)); break;
  default: for (R_xlen_t i = 0; i < n; ++i) SET_STRING_ELT(own, i, STRING_ELT(v, i));
  }
  R_set_altrep_data2(x, own);
  UNPROTECT(2);
  return own;
}

static R_xlen_t lazy_Length(SEXP x) { return lazy_length(x); }

static void* lazy_Dataptr(SEXP x, Rboolean writeable) {
  return DATAPTR(lazy_values(x));
}

static const void* lazy_Dataptr_or_null(SEXP x) {
  SEXP kept = R_altrep_data2(x);
  return kept == R_NilValue ? nullptr : DATAPTR_RO(kept);
}

static SEXP lazy_Extract_subset(SEXP x, SEXP indx, SEXP call) {
  if (R_altrep_data2(x) != R_NilValue) return nullptr;  // R's own subset of the values
  // Most of the rows: made whole once (faster than by rows), then R's subset.
  if (XLENGTH(indx) > lazy_length(x) / 4) {
    lazy_values(x);
    return nullptr;
  }
  SEXP out = PROTECT(lazy_call("ice_lazy_subset", VECTOR_ELT(R_altrep_data1(x), 0), indx));
  if (TYPEOF(out) != TYPEOF(x) || XLENGTH(out) != XLENGTH(indx)) {
    Rf_error("internal: a lazy column's subset has the wrong type or length");
  }
  UNPROTECT(1);
  return out;
}

static SEXP lazy_Serialized_state(SEXP x) { return R_altrep_data1(x); }

static SEXP lazy_Unserialize(SEXP cls, SEXP state) {
  R_altrep_class_t c;
  c.ptr = cls;
  return R_new_altrep(c, state, R_NilValue);
}

static Rboolean lazy_Inspect(SEXP x, int pre, int deep, int pvec,
                             void (*inspect_subtree)(SEXP, int, int, int)) {
  Rprintf(" modelprofiles lazy column (%s)\n", R_altrep_data2(x) == R_NilValue ? "not made" : "made");
  return TRUE;
}

static double lazy_real_Elt(SEXP x, R_xlen_t i) { return REAL(lazy_values(x))[i]; }
static int lazy_integer_Elt(SEXP x, R_xlen_t i) { return INTEGER(lazy_values(x))[i]; }
static int lazy_logical_Elt(SEXP x, R_xlen_t i) { return LOGICAL(lazy_values(x))[i]; }
static SEXP lazy_string_Elt(SEXP x, R_xlen_t i) { return STRING_ELT(lazy_values(x), i); }
static void lazy_string_Set_elt(SEXP x, R_xlen_t i, SEXP v) { SET_STRING_ELT(lazy_values(x), i, v); }

static void lazy_common(R_altrep_class_t c) {
  R_set_altrep_Length_method(c, lazy_Length);
  R_set_altrep_Serialized_state_method(c, lazy_Serialized_state);
  R_set_altrep_Unserialize_method(c, lazy_Unserialize);
  R_set_altrep_Inspect_method(c, lazy_Inspect);
  R_set_altvec_Dataptr_method(c, lazy_Dataptr);
  R_set_altvec_Dataptr_or_null_method(c, lazy_Dataptr_or_null);
  R_set_altvec_Extract_subset_method(c, lazy_Extract_subset);
}

// [[Rcpp::init]]
void lazy_columns_init(DllInfo* dll) {
  lazy_real = R_make_altreal_class("mp_lazy_real", "modelprofiles", dll);
  lazy_common(lazy_real);
  R_set_altreal_Elt_method(lazy_real, lazy_real_Elt);
  lazy_integer = R_make_altinteger_class("mp_lazy_integer", "modelprofiles", dll);
  lazy_common(lazy_integer);
  R_set_altinteger_Elt_method(lazy_integer, lazy_integer_Elt);
  lazy_logical = R_make_altlogical_class("mp_lazy_logical", "modelprofiles", dll);
  lazy_common(lazy_logical);
  R_set_altlogical_Elt_method(lazy_logical, lazy_logical_Elt);
  lazy_string = R_make_altstring_class("mp_lazy_string", "modelprofiles", dll);
  lazy_common(lazy_string);
  R_set_altstring_Elt_method(lazy_string, lazy_string_Elt);
  R_set_altstring_Set_elt_method(lazy_string, lazy_string_Set_elt);
}

// A lazy column of `n` values made by ice_lazy_values(recipe), of the type
// and with the attributes (class, levels) of `prototype`.
// [[Rcpp::export(rng = false)]]
SEXP cpp_lazy_column(SEXP recipe, double n, SEXP prototype) {
  R_altrep_class_t c;
  switch (TYPEOF(prototype)) {
  case REALSXP: c = lazy_real; break;
  case INTSXP: c = lazy_integer; break;
  case LGLSXP: c = lazy_logical; break;
  case STRSXP: c = lazy_string; break;
  default: Rf_error("internal: a lazy column of type %d", TYPEOF(prototype));
  }
  SEXP data1 = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(data1, 0, recipe);
  SET_VECTOR_ELT(data1, 1, Rf_ScalarReal(n));
  SEXP out = PROTECT(R_new_altrep(c, data1, R_NilValue));
  SHALLOW_DUPLICATE_ATTRIB(out, prototype);
  UNPROTECT(2);
  return out;
}
