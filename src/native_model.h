// Glue of the native tree-ensemble engine: a compiled model (the `mp_native`
// list of R/native.R) read on the main thread into an mp::Forest view of
// plain buffers, which the workers then evaluate.
#ifndef MODELPROFILES_NATIVE_MODEL_H
#define MODELPROFILES_NATIVE_MODEL_H

#include <Rcpp.h>
#include <cstddef>
#include <vector>
#include <modelprofiles/forest.h>

// The packing of a model, kept between calls in the model's `cache` element
// (an external pointer), valid while the model's arrays are the same R
// vectors (`key`). For a model of kind "packed" the cache is the model.
struct NativeCache {
  mp::Packed packed;
  std::vector<const void*> key;
  int n_outputs = 1;
};

// A compiled model for the duration of one call: keeps the R vectors behind
// F alive (coerced to the storage types the core reads, if they were not
// already) and reads the packing from the model's valid cache, else checks
// and packs the model anew (into `own`; always when use_cache is false).
// Errors name the problem ("native model: ...").
class NativeModel {
 public:
  mp::Forest F;
  mp::Packed own;

  explicit NativeModel(const Rcpp::List& m, bool use_cache = true);
  // The arrays a packing was made from.
  std::vector<const void*> key() const;
  // A rows x n_outputs matrix for the predictions, named by the outputs.
  Rcpp::NumericMatrix result(std::size_t rows) const;

 private:
  Rcpp::IntegerVector tree_start_, feature_, left_, right_, missing_, cat_start_, cat_len_,
      cat_left_;
  Rcpp::NumericVector threshold_, value_, base_;
  Rcpp::RObject outputs_;

  void rules(const Rcpp::List& m);
};

// The model's features of the data, read in place: an R list of
// n_features double vectors of one length (native_columns() in
// R/engine_native.R; attribute "n" the number of rows, for a model without
// features), or a column-major double matrix.
struct FeatureColumns {
  std::vector<const double*> cols;
  std::size_t n = 0;
};
FeatureColumns feature_columns(SEXP X, int n_features);

#endif
