# Model adapters: the one place that knows model families. model_adapter()
# answers everything the rest of the package needs to know of a model's
# family (see its help page), one S3 method per family in R/adapter*.R;
# nothing else tests model classes.

#' What modelprofiles knows about a model family
#'
#' `model_adapter()` describes how [model_profile()] and the other entry
#' points treat a fitted model: which function predicts it by default, what
#' that function's columns are, and which engines may stand in for it. It is
#' exported so that you can see what the package will do with a model; you
#' do not need to call it.
#'
#' Families known: `lm`, `glm` (the response scale; a binomial model gives
#' the probabilities of both classes), mgcv's `gam` and `bam`, `ranger`,
#' `randomForest`, `gbm`, `xgb.Booster` (xgboost), `lgb.Booster` (lightgbm),
#' `glmnet` and `cv.glmnet`, `svm` (e1071), `multinom` (nnet), `train`
#' (caret), `model_fit` (parsnip), `workflow` (workflows) and mlr3 learners.
#' Classifiers are profiled on the probability scale; a model that can only
#' predict classes (a ranger forest without `probability = TRUE`, an svm
#' without `probability = TRUE`, xgboost's `multi:softmax`) is an error that
#' says how to refit it. Anything else is predicted with its `predict()`
#' method.
#'
#' A framework's model (caret, parsnip, workflows, mlr3) around a ranger,
#' randomForest, xgboost, lightgbm or gbm model has the native engine of the
#' model inside when the framework hands it the data's columns as they are;
#' see the section on the native engine in [model_profile()].
#'
#' @param model A fitted model.
#' @returns An object of class `mp_adapter`, a list with
#'   * `family`: the family's name;
#'   * `label`: the default label of profiles: the model's class, or for a
#'     framework's model the model inside it and the framework (e.g.
#'     `"ranger (parsnip)"`, `"rf (caret)"`, mlr3's learner id);
#'   * `predict`: the default predict function, `function(model, newdata)`;
#'   * `task`: `"regression"` or `"classification"`;
#'   * `classes`: the class names in the order of the predict function's
#'     columns (`NULL` for one column, or when only the predictions tell);
#'   * `positive`: the class profiled by default of two;
#'   * `native`, `linear`: whether the compiled tree engine or the linear
#'     engine may stand in for the default predict function;
#'   * `copies`, `row_bytes`: how much memory a `predict()` call holds per
#'     row; `tree`: whether rows are predicted fastest grouped by row;
#'   * `iterations`: for boosted trees (gbm, xgboost, lightgbm, also inside
#'     a framework), `c(used, fitted)`: the iterations the predict function
#'     uses (gbm's own default choice, the best iteration of early
#'     stopping) of those fitted; `NULL` otherwise;
#'   * `inner`: for a framework's model, what the native engine compiles in
#'     its place: a list with `model` (the forest or booster inside, or
#'     `NULL`), `features` (the data column each of its features is),
#'     `outputs` (how the framework's classes come from its outputs) and
#'     `why` (why the native engine cannot stand in, or `NULL`); `NULL`
#'     for other models.
#' @examples
#' fit <- glm(am ~ wt, data = mtcars, family = binomial)
#' model_adapter(fit)
#' @export
model_adapter <- function(model) UseMethod("model_adapter")

#' @export
model_adapter.default <- function(model) {
  new_adapter(class(model)[1L], function(model, newdata) stats::predict(model, newdata))
}

#' @export
model_adapter.character <- function(model) {
  new_adapter(family = "model", predict = function(model, newdata) NULL, refuse = c(
    "{.arg x} is a string, not a fitted model or an explainer.",
    i = "Give the model object itself (e.g. {.code fit}, not {.code \"fit\"})."
  ))
}

#' @export
model_adapter.NULL <- function(model) {
  new_adapter(family = "model", predict = NULL,
              refuse = "There is no model: give {.arg x} or a {.arg predict_function}.")
}

# The constructor of the fields of ?model_adapter. `predict` is marked as
# the package's own (the engines may stand in for it, see native_prepare()
# and linear_prepare()); `row_bytes(bytes)`: the bytes a predict() call
# holds per row beyond its copies of the row (bytes: of each column of a
# row); `refuse`, when not NULL, is why the default predict function cannot
# give probabilities (raised when it is used); `prepare`: NULL, or a
# function of the background data that returns it as the default predict
# function needs it (applied once, before any row is stacked; see
# resolve_inputs()); `native_min_rows`: the stacked rows (per variable) from
# which engine = "auto" compiles a model not compiled already for the
# interval methods (native_pays()); `inbag_counts`: NULL, or of a forest
# that may keep them, function(model) giving its trees' in-bag counts (NULL
# when it was grown without them; see tree_inbag()); `all_columns`: does
# predict() need every predictor the model was fitted on (a forest's, which
# says only that "one or more" are missing; see used_variables())?
new_adapter <- function(family, predict, task = "regression", classes = NULL,
                        positive = NULL, native = FALSE, linear = FALSE,
                        copies = 2, row_bytes = function(bytes) 0, tree = FALSE,
                        refuse = NULL, label = family, iterations = NULL, inner = NULL,
                        prepare = NULL, native_min_rows = 0, inbag_counts = NULL,
                        all_columns = FALSE) {
  if (is.null(refuse)) refuse <- load_family_package(family)
  if (!is.null(refuse)) predict <- function(model, newdata) cli::cli_abort(refuse, call = NULL)
  structure(
    list(
      family = family, label = label,
      predict = structure(predict, modelprofiles_default = TRUE),
      task = task, classes = classes, positive = positive,
      native = isTRUE(native), linear = isTRUE(linear),
      copies = copies, row_bytes = row_bytes, tree = isTRUE(tree),
      refuse = refuse, iterations = iterations, inner = inner, prepare = prepare,
      native_min_rows = native_min_rows, inbag_counts = inbag_counts,
      all_columns = isTRUE(all_columns)
    ),
    class = "mp_adapter"
  )
}

# The packages whose predict() methods the known families call: loaded when
# an adapter is made, so that a model read with readRDS() in a session that
# never attached its package predicts (S3 dispatch finds a method only in a
# loaded namespace).
family_packages <- c(
  ranger = "ranger", randomForest = "randomForest", gbm = "gbm", xgb.Booster = "xgboost",
  lgb.Booster = "lightgbm", svm = "e1071", train = "caret", model_fit = "parsnip",
  workflow = "workflows", multinom = "nnet", gam = "mgcv", bam = "mgcv", glmnet = "glmnet",
  cv.glmnet = "glmnet"
)

# Load the package of a known family: NULL, or (when it is not installed)
# the reason its default predictions are refused.
load_family_package <- function(family, packages = family_packages) {
  pkg <- unname(packages[family])
  if (length(pkg) != 1L || is.na(pkg) || isNamespaceLoaded(pkg)) return(NULL)
  if (requireNamespace(pkg, quietly = TRUE)) return(NULL)
  c(paste0("Models of class <", family, "> predict through package {.pkg ", pkg, "}, which is not installed."),
    i = paste0("Install it: {.code install.packages(\"", pkg, "\")}."))
}

# The variables a model uses, when its family tells them: the variables of
# a formula's right-hand side (lm, glm, gam, multinom, a randomForest or
# svm fitted with a formula, caret's train with a formula, ...), or the
# predictors a forest was fitted on; NULL when unknown (black boxes, a
# formula with `.`).
model_variables <- function(model) UseMethod("model_variables")

#' @export
model_variables.default <- function(model) {
  if (is.environment(model) || is.function(model)) return(NULL)
  tt <- tryCatch(suppressWarnings(stats::terms(model)), error = function(e) NULL)
  if (!inherits(tt, "terms")) return(NULL)
  vars <- tryCatch(all.vars(stats::delete.response(tt)), error = function(e) NULL)
  if (!length(vars) || "." %in% vars) return(NULL)
  vars
}

#' @export
model_variables.ranger <- function(model) {
  vars <- model$forest$independent.variable.names
  if (is.character(vars) && length(vars)) vars else NULL
}

#' @export
model_variables.randomForest <- function(model) {
  if (!is.null(model$terms)) return(model_variables.default(model))
  vars <- rownames(model$importance)
  if (is.character(vars) && length(vars)) vars else NULL
}

# Columns of data that the model does not use, left out of the variables
# chosen by default with a message naming them; variables the user named
# are kept, with a message that their profiles are flat. Only for the
# model's own predict function (the user's may use other columns).
used_variables <- function(inputs, variables, explicit, call) {
  if (!is_default_predictor(inputs$predict_function)) return(variables)
  used <- model_variables(inputs$model)
  if (is.null(used)) return(variables)
  absent <- setdiff(used, names(inputs$data))
  if (length(absent) && isTRUE(inputs$adapter$all_columns)) {
    cli::cli_abort(c(
      "{.arg data} lacks {cli::qty(length(absent))}{?a column/columns} of the model: {.field {absent}}.",
      i = "The model was fitted on {.field {used}}; give {.arg data} with all of them."
    ), call = call)
  }
  unused <- setdiff(variables, used)
  if (!length(unused)) return(variables)
  if (explicit) {
    cli::cli_inform(c(
      "The model does not use {.field {unused}}: {?its profile is/their profiles are} flat.",
      i = "The model's variables: {.field {used}}."
    ), class = "modelprofiles_unused_variable")
    return(variables)
  }
  kept <- setdiff(variables, unused)
  if (!length(kept)) {
    cli::cli_abort(c(
      "No column of {.arg data} is a variable of the model.",
      i = "The model's variables: {.field {used}}; {.arg data} has {.field {variables}}."
    ), call = call)
  }
  cli::cli_inform(c(
    "Leaving out {.field {unused}}: the model does not use {?it/them}.",
    i = "{cli::qty(length(unused))}Name {?it/them} in {.arg variables} to profile {?it/them} anyway."
  ), class = "modelprofiles_unused_variable")
  kept
}

#' @export
print.mp_adapter <- function(x, ...) {
  cat("<mp_adapter> ", x$family, " (", x$task, ")\n", sep = "")
  if (!identical(x$label, x$family)) cat("label: ", x$label, "\n", sep = "")
  if (length(x$classes)) {
    cat("classes (columns): ", paste(x$classes, collapse = ", "), "\n", sep = "")
    if (!is.null(x$positive)) cat("profiled by default of two: ", x$positive, "\n", sep = "")
  }
  inside <- if (!is.null(x$inner$model)) paste0(" of the <", class(x$inner$model)[1L], "> inside")
  engines <- c("predict", if (x$native) paste0("native (compiled trees", inside, ")"),
               if (x$linear) "native (linear predictor)")
  cat("engines: ", paste(engines, collapse = ", "), "\n", sep = "")
  if (!is.null(x$inner$why)) cat("not native: ", cli::ansi_strip(x$inner$why), "\n", sep = "")
  if (length(x$iterations) == 2L) {
    cat("iterations predicted: ", x$iterations[["used"]], " of ", x$iterations[["fitted"]], "\n", sep = "")
  }
  if (!is.null(x$refuse)) cat("default predictions refused: ", cli::ansi_strip(x$refuse), "\n", sep = "")
  invisible(x)
}

# Predictions of a classifier, a column per class, named by the classes.
class_columns <- function(p, classes) {
  colnames(p) <- classes
  p
}

# Bytes held per stacked row while a chunk is predicted: the stacked row,
# its prediction, the copies the model's predict() makes, and what else it
# holds per row (see the family's adapter).
adapter_row_bytes <- function(adapter, bytes) {
  (1 + adapter$copies) * sum(bytes) + 16 + adapter$row_bytes(bytes)
}

# Is `f` a function made by an adapter (the package's own for its model)?
is_default_predictor <- function(f) {
  isTRUE(attr(f, "modelprofiles_default", exact = TRUE))
}

#' Default prediction function for a model
#'
#' `default_predict_function()` returns the function that [model_profile()]
#' uses when no `predict_function` is given: the one of the model's family
#' (see [model_adapter()]), or the model's own `predict()` method.
#'
#' @section Classifiers:
#' A prediction with one number per row is profiled as it is. A matrix (or
#' data frame) of predictions has one column per class, named by the class.
#' Of two columns (a binary classifier), the second class is profiled (the
#' second level of a factor response, `"1"` of a 0/1 response, `TRUE` of a
#' logical one) unless [model_profile()]'s `class` names another. Of more
#' columns (a multiclass model), every column is profiled, or those that
#' `class` names, each with the label `<label>.<class>`. Predictions must be
#' numbers (probabilities, not classes), one row per row of `newdata`, and
#' not `NA`; anything else is an error that names the problem.
#'
#' @param model A fitted model.
#' @returns A function of `(model, newdata)` returning predictions.
#' @examples
#' fit <- glm(am ~ wt, data = mtcars, family = binomial)
#' f <- default_predict_function(fit)
#' f(fit, mtcars[1:3, ])
#' @export
default_predict_function <- function(model) model_adapter(model)$predict

# DALEX's default predict function (DALEX::yhat)?
is_dalex_default <- function(f) {
  is.function(f) && requireNamespace("DALEX", quietly = TRUE) &&
    identical(f, get0("yhat", envir = asNamespace("DALEX"), inherits = FALSE))
}

# A user's predict function as function(model, newdata): one of one
# argument (function(newdata), as iml's and hstats' users may write) is
# called with the rows alone; with `as_matrix`, the rows are passed as a
# matrix (the class of the data the model was explained with).
user_predictor <- function(f, as_matrix, call) {
  if (!is.function(f)) {
    cli::cli_abort("{.arg predict_function} must be a function of {.code (model, newdata)}, not {.cls {class(f)}}.", call = call)
  }
  args <- names(formals(f))
  if (!is.primitive(f) && length(args) == 0L) {
    cli::cli_abort("{.arg predict_function} takes no arguments; it must be {.code function(model, newdata)} (or {.code function(newdata)}).", call = call)
  }
  one <- !is.primitive(f) && length(args) == 1L && !identical(args, "...")
  if (!one && !as_matrix) return(f)
  if (one) {
    if (as_matrix) return(function(model, newdata) f(as.matrix(newdata)))
    return(function(model, newdata) f(newdata))
  }
  function(model, newdata) f(model, as.matrix(newdata))
}

# A DALEX explainer (DALEX::explain()), whose model, data, predict function,
# label and weights stand in for the arguments.
is_explainer <- function(x) inherits(x, "explainer")

# What the entry points take from `x`, the one place that reads an
# explainer: for a model, list(model = x, as_matrix = FALSE); for an
# explainer, its model, data, predict function (NULL for DALEX's default, for
# which the package's own gives the same numbers with all classes named),
# label (DALEX's, kept as it is), weights, and `as_matrix`: does its predict
# function get a matrix (its data's class)? Each stands in for an argument
# not given.
unpack_explainer <- function(x) {
  if (!is_explainer(x)) return(list(model = x, as_matrix = FALSE))
  list(model = x$model, data = x$data,
       predict_function = if (!is_dalex_default(x$predict_function)) x$predict_function,
       label = x$label, weights = x$weights, as_matrix = is.matrix(x$data))
}
