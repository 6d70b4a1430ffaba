// A randomForest forest (R/native.R, native_model.randomForest()) converted
// straight into the packing by mp::pack_randomforest() (randomforest.h):
// the glue only reads the R matrices, on the main thread.
#include <Rcpp.h>
#include <modelprofiles/randomforest.h>
#include "native_model.h"

using namespace Rcpp;

// The forest's node matrices (nrnodes x ntree; treemap nrnodes x 2 x ntree
// for classification, NULL for regression, which gives left and right
// daughters instead), ndbigtree, ncat per variable and the number of
// classes K (0 for regression). Returns the packing (an external pointer,
// as cpp_native_pack()), or NULL when the forest is not as expected.
// [[Rcpp::export(rng = false)]]
SEXP cpp_native_randomforest(IntegerVector ndbigtree, int nrnodes, IntegerVector nodestatus,
                             IntegerVector bestvar, NumericVector xbestsplit, SEXP left_daughter,
                             SEXP right_daughter, SEXP treemap, SEXP nodepred, IntegerVector ncat,
                             int n_classes) {
  mp::RandomForest R;
  R.n_trees = ndbigtree.size();
  R.nrnodes = nrnodes;
  R.p = ncat.size();
  R.classification = n_classes > 0;
  R.K = R.classification ? n_classes : 1;
  const double cells = static_cast<double>(nrnodes) * R.n_trees;
  if (nrnodes < 1 || nodestatus.size() != cells || bestvar.size() != cells ||
      xbestsplit.size() != cells || Rf_xlength(nodepred) != cells)
    return R_NilValue;
  IntegerVector tm, ld, rd, pc;
  NumericVector pv;
  if (R.classification) {
    if (TYPEOF(treemap) != INTSXP || Rf_xlength(treemap) != 2 * cells || TYPEOF(nodepred) != INTSXP)
      return R_NilValue;
    tm = treemap;
    pc = nodepred;
    R.treemap = tm.begin();
    R.pred_class = pc.begin();
  } else {
    if (TYPEOF(left_daughter) != INTSXP || TYPEOF(right_daughter) != INTSXP ||
        Rf_xlength(left_daughter) != cells || Rf_xlength(right_daughter) != cells ||
        TYPEOF(nodepred) != REALSXP)
      return R_NilValue;
    ld = left_daughter;
    rd = right_daughter;
    pv = nodepred;
    R.left = ld.begin();
    R.right = rd.begin();
    R.pred_value = pv.begin();
  }
  R.sizes = ndbigtree.begin();
  R.nodestatus = nodestatus.begin();
  R.bestvar = bestvar.begin();
  R.xbestsplit = xbestsplit.begin();
  R.ncat = ncat.begin();
  NativeCache* pk = new NativeCache;
  XPtr<NativeCache> out(pk, true);
  if (!mp::pack_randomforest(R, pk->packed).empty()) return R_NilValue;
  pk->n_outputs = R.K;
  return out;
}
