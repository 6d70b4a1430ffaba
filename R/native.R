# Converters of tree ensembles into the package's flat representation
# (class "mp_native"): native_model(model) converts a fitted model, or
# returns NULL when the model (or one of its settings) is not supported.
# R/engine_native.R compiles, caches and evaluates the result; boosted
# trees are converted in R/native_boost.R and R/native_lightgbm*.R.

# The generic is internal; its methods are registered (@exportS3Method) so
# that any caller finds them. `fingerprint`: the model's native_fingerprint(),
# when read already (a booster's converter then reads it, not the model).
native_model <- function(model, fingerprint = NULL) UseMethod("native_model")

#' @exportS3Method
#' @noRd
native_model.default <- function(model, fingerprint = NULL) NULL

# Assemble an mp_native object from node arrays (global 0-based indices),
# with the storage types the C++ side reads; by default, the features are
# numbers and no split is categorical.
new_native <- function(features, feature_levels = rep(list(NULL), length(features)),
                       tree_start, feature, threshold, left, right, missing,
                       cat_start = rep(-1L, length(feature)), cat_len = rep(0L, length(feature)),
                       cat_left = integer(), rule, value, aggregate, base, transform,
                       float32 = FALSE, outputs = NULL, source = "") {
  value <- as.matrix(value)
  storage.mode(value) <- "double"
  structure(
    list(
      kind = "trees", features = as.character(features), feature_levels = feature_levels,
      tree_start = as.integer(tree_start), feature = as.integer(feature),
      threshold = as.double(threshold), left = as.integer(left), right = as.integer(right),
      missing = as.integer(missing), cat_start = as.integer(cat_start),
      cat_len = as.integer(cat_len), cat_left = as.integer(cat_left), rule = as.integer(rule),
      value = value, aggregate = aggregate, base = as.double(base), transform = transform,
      float32 = isTRUE(float32), outputs = outputs, source = source
    ),
    class = "mp_native"
  )
}

# A forest packed in C++ as it is read (`cache`, each tree checked as any
# compiled model's), whose trees are averaged: a forest of 500 deep trees
# has tens of millions of nodes, whose flat arrays would take over a GB.
packed_native <- function(features, feature_levels, outputs, source, cache) {
  structure(
    list(
      kind = "packed", features = features, feature_levels = feature_levels,
      rule = 0L, aggregate = "mean", base = rep(0, max(1L, length(outputs))),
      transform = "identity", float32 = FALSE, outputs = outputs, source = source,
      cache = cache
    ),
    class = "mp_native"
  )
}

# The data column a formula term label names ("x", "`my x`"), or NA for a
# term computed from the data ("log(x)").
term_column <- function(x) {
  e <- tryCatch(str2lang(x), error = function(e) NULL)
  if (is.symbol(e)) as.character(e) else NA_character_
}

# ranger: regression and probability forests (packed by ranger_pack(), in
# C++: inst/include/modelprofiles/ranger.h). A node is a leaf when both its
# children are 0; a numeric (ordered) split sends x <= value left; a
# partition split on an unordered factor sends level k right when bit k - 1
# of the mask floor(value) is set (64 bits: the number of levels is not kept
# in the forest). ranger averages the trees (the sum in tree order divided by
# the number of trees), as the C++ side does, so the numbers are the same.
# Factor codes: with respect.unordered.factors = "order" the forest keeps the
# (reordered) levels and predict() recodes the data by level name; with
# "ignore" and "partition" predict() uses data.matrix() codes of the data as
# given, and so does native_columns() (feature_levels NULL).
#' @exportS3Method
#' @noRd
native_model.ranger <- function(model, fingerprint = NULL) {
  f <- model$forest
  if (is.null(f) || !is.null(f$dependent.varID)) return(NULL)
  regression <- identical(f$treetype, "Regression")
  if (!regression && !identical(f$treetype, "Probability estimation")) return(NULL)
  features <- f$independent.variable.names
  p <- length(features)
  ordered <- as.logical(f$is.ordered)
  if (p == 0L || length(ordered) != p) return(NULL)
  feature_levels <- lapply(seq_len(p), function(k) {
    lv <- f$covariate.levels[[k]]
    if (!is.null(lv)) as.character(lv)
  })
  ntree <- as.integer(f$num.trees)
  if (length(f$child.nodeIDs) != ntree || any(lengths(f$child.nodeIDs) != 2L)) return(NULL)
  # The leaf counts are in the order of class.values; predict()'s columns in
  # the order of ranger_column_values().
  counts <- if (!regression) f$terminal.class.counts
  cols <- if (regression) 1L else match(ranger_column_values(f), f$class.values)
  as_dbl <- function(v) if (is.double(v)) v else as.double(v)
  cache <- ranger_pack(
    lapply(f$child.nodeIDs, function(ch) as_dbl(ch[[1L]])),
    lapply(f$child.nodeIDs, function(ch) as_dbl(ch[[2L]])),
    lapply(f$split.varIDs, as_dbl), lapply(f$split.values, as_dbl), ordered,
    if (is.null(counts)) NULL else lapply(counts, function(tc) lapply(tc, as_dbl)), cols
  )
  if (is.null(cache)) return(NULL)
  packed_native(features, feature_levels, if (!regression) ranger_classes(model), "ranger", cache)
}

# randomForest: regression and classification forests (formula and x/y
# interfaces). A numeric split sends x <= xbestsplit left; a split on an
# unordered factor with ncat levels sends level k left when bit k - 1 of
# xbestsplit is set. A regression forest averages the node predictions; a
# classification leaf votes for its class (one-hot values), so the mean over
# trees is predict(type = "prob") with norm.votes. Packed by
# randomforest_pack() (inst/include/modelprofiles/randomforest.h). Not
# supported: bias-corrected regression (corr.bias = TRUE), unsupervised
# forests, formulas with transformed terms, and factors of more than 32
# levels.
#' @exportS3Method
#' @noRd
native_model.randomForest <- function(model, fingerprint = NULL) {
  f <- model$forest
  if (is.null(f)) return(NULL)
  type <- model$type
  if (!identical(type, "regression") && !identical(type, "classification")) return(NULL)
  if (identical(type, "regression") && !is.null(model$coefs)) return(NULL)
  importance <- model$importance
  features <- if (is.null(dim(importance))) names(importance) else rownames(importance)
  p <- length(features)
  ncat <- as.integer(f$ncat)
  if (p == 0L || length(ncat) != p || any(ncat > 32L)) return(NULL)
  if (!is.null(model$terms)) {
    labels <- attr(model$terms, "term.labels")
    if (anyNA(vapply(labels, term_column, character(1)))) return(NULL)
  }
  feature_levels <- lapply(seq_len(p), function(k) {
    lv <- f$xlevels[[k]]
    if (is.character(lv)) lv
  })
  if (any(ncat > 1L & vapply(feature_levels, is.null, logical(1)))) return(NULL)
  classes <- if (identical(type, "classification")) as.character(model$classes)
  int <- function(x) if (is.integer(x)) x else suppressWarnings(as.integer(x))
  cache <- randomforest_pack(
    int(f$ndbigtree), as.integer(f$nrnodes)[1L], int(f$nodestatus), int(f$bestvar),
    as.double(f$xbestsplit), f$leftDaughter, f$rightDaughter, f$treemap, f$nodepred, ncat,
    length(classes)
  )
  if (is.null(cache)) return(NULL)
  packed_native(features, feature_levels, classes, "randomForest", cache)
}
