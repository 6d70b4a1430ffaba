# Adapters of tree ensembles: ranger, randomForest, gbm, xgboost, lightgbm.
# Each may be compiled for the native engine (native_model() methods in
# R/native.R, R/native_boost.R and R/native_lightgbm.R), whose outputs are
# the adapter's classes in the same order.

#' @export
model_adapter.ranger <- function(model) {
  type <- model$treetype
  trees <- model$num.trees
  # ranger's predict() keeps a terminal node (8 bytes) per row and tree and
  # a logical is.na() matrix (4 bytes per column).
  row_bytes <- function(bytes) {
    if (is.numeric(trees) && length(trees) == 1L) 8 * trees + 4 * length(bytes) else 0
  }
  prob <- identical(type, "Probability estimation")
  classes <- if (prob) ranger_classes(model)
  refuse <- if (!prob) switch(type %||% "",
    Regression = NULL,
    Classification = c(
      "A ranger classification forest predicts classes, not probabilities.",
      i = "Fit it with {.code probability = TRUE}, or give a {.arg predict_function} that returns probabilities."
    ),
    c(paste0("ranger forests of type \"", type, "\" are not supported."),
      i = "Give a {.arg predict_function} that returns one number per row.")
  )
  new_adapter("ranger", function(model, newdata) {
    p <- stats::predict(model, data = newdata, verbose = FALSE)$predictions
    if (prob) class_columns(p, classes) else p
  }, task = if (prob) "classification" else "regression", classes = classes,
  positive = ranger_positive(model, classes), native = TRUE, row_bytes = row_bytes, tree = TRUE,
  refuse = refuse, prepare = ranger_prepare(model), all_columns = TRUE,
  # Of a forest grown with keep.inbag = TRUE, a list with a vector per tree.
  inbag_counts = function(model) model$inbag.counts)
}

# A forest grown on character columns without stored levels (ranger's
# default for unordered factors) codes them at predict() by factor() of the
# values in the rows it is given: rows of one grid value (or chunks missing
# a level) would all get code 1. The background data's character
# predictors become factors of all their values once, whose codes
# predict() then reads, as the native engine does.
ranger_prepare <- function(model) {
  f <- model$forest
  vars <- f$independent.variable.names
  lv <- f$covariate.levels
  if (!is.character(vars)) return(NULL)
  coded <- vars[vapply(seq_along(vars), function(k) is.null(lv[[k]]), logical(1))]
  function(data) {
    for (v in intersect(coded, names(data))) {
      if (is.character(data[[v]])) data[[v]] <- factor(data[[v]])
    }
    data
  }
}

# The classes of a ranger probability forest in the order of its prediction
# columns. ranger keeps the classes in the order of first appearance in the
# training data (forest$class.values); predict() gives the levels of a
# factor response in level order (the sorted codes), but the values of a
# numeric response in that first-appearance order, without names.
ranger_classes <- function(model) {
  cv <- ranger_column_values(model$forest)
  if (!is.null(cv)) as.character(model$forest$levels[cv] %||% cv)
}

# The class values (of forest$class.values) of predict()'s columns, in order.
ranger_column_values <- function(forest) {
  cv <- forest$class.values
  if (is.null(cv) || is.null(forest$levels)) cv else sort(cv)
}

# The class profiled by default of two: the second level of a factor
# response, the larger of two numbers ("1" of 0/1), whichever comes first in
# the training data.
ranger_positive <- function(model, classes) {
  if (length(classes) != 2L) return(NULL)
  # A factor's classes are already in level order (levels without rows in
  # the training data are not among them).
  if (!is.null(model$forest$levels)) return(classes[2L])
  as.character(sort(model$forest$class.values)[2L])
}

#' @export
model_adapter.randomForest <- function(model) {
  type <- model$type
  classifier <- identical(type, "classification")
  classes <- if (classifier) as.character(model$classes)
  refuse <- if (!classifier && !identical(type, "regression")) {
    "Unsupervised randomForest models do not predict; give a {.arg predict_function}."
  }
  # randomForest's predict() copies its input more than most: a 26.7 MiB
  # chunk raised the peak by 3.7 times its size (4 copies counted).
  new_adapter("randomForest", function(model, newdata) {
    if (!classifier) return(as.vector(stats::predict(model, newdata)))
    p <- stats::predict(model, newdata, type = "prob")
    class_columns(matrix(as.double(p), nrow(p), ncol(p)), classes)
  }, task = if (classifier) "classification" else "regression", classes = classes,
  positive = classes[2L], native = TRUE, copies = 4, tree = TRUE, all_columns = TRUE,
  # Of a forest grown with keep.inbag = TRUE, a rows x trees matrix.
  inbag_counts = function(model) model$inbag, refuse = refuse)
}

# gbm: predict.gbm() with the iterations it uses when n.trees is not given
# (gbm_predict_trees()), given explicitly so that it says nothing; the
# native engine compiles the same trees.
#' @export
model_adapter.gbm <- function(model) {
  dist <- model$distribution$name
  multi <- identical(dist, "multinomial")
  classes <- if (multi) as.character(model$classes)
  n_trees <- gbm_predict_trees(model)
  fitted <- suppressWarnings(as.integer(model$n.trees))
  if (is.na(n_trees)) n_trees <- fitted
  new_adapter("gbm", function(model, newdata) {
    p <- stats::predict(model, newdata, n.trees = n_trees, type = "response")
    if (length(dim(p)) != 3L) return(as.vector(p))
    class_columns(matrix(p, dim(p)[1L], dim(p)[2L]), classes)
  }, task = if (multi || dist %in% c("bernoulli", "adaboost")) "classification" else "regression",
  classes = classes, native = TRUE, tree = TRUE, iterations = c(used = n_trees, fitted = fitted))
}

# xgboost: the rows as a numeric matrix; class probabilities of
# multi:softprob named by xgboost's labels 0..K-1. Objectives that predict
# class codes are refused.
#' @export
model_adapter.xgb.Booster <- function(model) {
  objective <- xgb_objective(model)
  codes <- c("multi:softmax" = "multi:softprob", "binary:hinge" = "binary:logistic")
  if (objective %in% names(codes)) {
    return(new_adapter("xgb.Booster", function(model, newdata) NULL, task = "classification", refuse = c(
      paste0("The xgboost model's objective \"", objective, "\" predicts class codes, not probabilities."),
      i = paste0("Refit it with objective \"", codes[[objective]], "\", or give a {.arg predict_function} that returns probabilities.")
    )))
  }
  k <- if (identical(objective, "multi:softprob")) xgb_num_class(model) else NA
  classes <- if (!is.na(k) && k > 1L) as.character(seq_len(k) - 1L)
  classifier <- objective %in% c("binary:logistic", "reg:logistic", "binary:logitraw", "multi:softprob")
  features <- model$feature_names
  new_adapter("xgb.Booster", function(model, newdata) {
    p <- stats::predict(model, feature_matrix(newdata, features, "xgboost model"), reshape = TRUE)
    if (is.matrix(p) && !is.null(classes) && ncol(p) == length(classes)) colnames(p) <- classes
    p
  }, task = if (classifier) "classification" else "regression", classes = classes,
  native = TRUE, tree = TRUE, iterations = boosting_iterations(model$best_iteration, model$niter))
}

# The iterations a booster's predict() uses (the best one of early stopping
# when set, else all) of those fitted: c(used, fitted), or NULL when unknown.
boosting_iterations <- function(best, fitted) {
  fitted <- suppressWarnings(as.integer(fitted))
  if (length(fitted) != 1L || is.na(fitted) || fitted < 1L) return(NULL)
  best <- suppressWarnings(as.integer(best))
  used <- if (length(best) == 1L && !is.na(best) && best > 0L) min(best, fitted) else fitted
  c(used = used, fitted = fitted)
}

xgb_config <- function(model) {
  if (!requireNamespace("xgboost", quietly = TRUE)) return(NA_character_)
  config <- tryCatch(xgboost::xgb.config(model), error = function(e) NA_character_)
  if (!is.character(config) || length(config) != 1L) NA_character_ else config
}

# The first string value of "field":"value" in a JSON text, or with
# `object` the "name" of the object "field":{"name":"..."} (NA if absent).
json_field <- function(json, field, object = FALSE) {
  value <- if (object) '":\\{"name":"([^"]*)"' else '":"([^"]*)"'
  m <- regmatches(json, regexec(paste0('"', field, value), json))[[1L]]
  if (length(m) < 2L) NA_character_ else m[2L]
}

xgb_objective <- function(model) {
  objective <- model$params$objective
  if (is.character(objective) && length(objective) == 1L) return(objective)
  out <- json_field(xgb_config(model), "objective", object = TRUE)
  if (is.na(out)) "" else out
}

xgb_num_class <- function(model) {
  k <- suppressWarnings(as.integer(model$params$num_class))
  if (length(k) == 1L && !is.na(k)) return(k)
  suppressWarnings(as.integer(json_field(xgb_config(model), "num_class")))
}

# lightgbm: the rows as a numeric matrix; multiclass probabilities named by
# lightgbm's labels 0..K-1. native_min_rows = 2,000 (inst/bench/
# bench-native-al.R): compiling costs less than one predict() call on a few
# hundred rows for the other tree families (ranger's and randomForest's
# predict() rebuild the forest at each call), but repays itself from about
# 2,000 stacked rows per variable for lightgbm, whose model text takes
# longest to read.
#' @export
model_adapter.lgb.Booster <- function(model) {
  params <- model$params
  objective <- as.character(params$objective %||% "")[1L]
  k <- suppressWarnings(as.integer(params$num_class %||% 1L))[1L]
  multi <- !is.na(k) && k > 1L
  classes <- if (multi) as.character(seq_len(k) - 1L)
  classifier <- multi || objective %in% c("binary", "cross_entropy", "xentropy")
  features <- lgb_feature_names(model)
  new_adapter("lgb.Booster", function(model, newdata) {
    x <- feature_matrix(newdata, features, "lightgbm model")
    p <- stats::predict(model, x)
    if (!multi) return(as.vector(p))
    class_columns(if (is.matrix(p)) p else matrix(p, nrow(x), k, byrow = TRUE), classes)
  }, task = if (classifier) "classification" else "regression", classes = classes,
  native = TRUE, tree = TRUE, native_min_rows = 2000, iterations = boosting_iterations(
    tryCatch(model$best_iter, error = function(e) NULL),
    tryCatch(model$current_iter(), error = function(e) NULL)
  ))
}

# The numeric matrix of a model's features, by name (the model reads
# columns by position), from rows; `features` NULL: the columns as they are.
feature_matrix <- function(newdata, features, what) {
  if (is.null(features)) return(as.matrix(newdata))
  if (is.matrix(newdata)) newdata <- as.data.frame(newdata)
  features <- feature_columns(features, names(newdata))
  absent <- setdiff(features, names(newdata))
  if (length(absent)) {
    cli::cli_abort("The data lack the {what}'s feature{?s} {.val {absent}}.", call = NULL)
  }
  as.matrix(newdata[features])
}

# The data's column of each of a model's features (by name): the column of
# that name or, as lightgbm writes the spaces of a name as "_" in its model
# ("cutVery Good" of a model.matrix() is the feature "cutVery_Good"), the
# one other column whose name is the feature's with "_" for its spaces.
# Features without a column keep their names.
feature_columns <- function(features, cols) {
  absent <- which(!features %in% cols)
  if (!length(absent)) return(features)
  spaced <- setdiff(cols[grepl(" ", cols, fixed = TRUE)], features)
  if (!length(spaced)) return(features)
  written <- gsub(" ", "_", spaced, fixed = TRUE)
  for (i in absent) {
    hit <- spaced[written == features[i]]
    if (length(hit) == 1L) features[i] <- hit
  }
  features
}

# The feature names of a lightgbm booster (from its model text), or NULL
# when it was trained without names (Column_0, Column_1, ...).
lgb_feature_names <- function(model) {
  text <- tryCatch(model$save_model_to_string(num_iteration = 1L), error = function(e) "")
  line <- regmatches(text, regexpr("(^|\n)feature_names=[^\n]*", text))
  if (!length(line)) return(NULL)
  features <- strsplit(sub("^\n?feature_names=", "", line), " ", fixed = TRUE)[[1L]]
  if (!length(features) || identical(features, paste0("Column_", seq_along(features) - 1L))) return(NULL)
  features
}
