# Turning a fitted model (or a DALEX explainer) into a prediction function
# f(newdata) -> numeric vector, with the checks every chunk goes through.

#' Default prediction function for a model
#'
#' `default_predict_function()` returns the function that [model_profile()]
#' uses when no `predict_function` is given. It knows the model classes below
#' and falls back on the model's own `predict()` method.
#'
#' * `lm`: `predict(model, newdata)`;
#' * `glm`: `predict(model, newdata, type = "response")` (the response scale);
#'   for a binomial model, the probabilities of both classes (named by the
#'   levels of the response, or `"0"` and `"1"`);
#' * `ranger`: `predict(model, data = newdata)$predictions`: the class
#'   probabilities of a probability forest;
#' * `randomForest`: regression predictions, or for a classification forest
#'   the class probabilities `predict(model, newdata, type = "prob")`;
#' * `gbm`: `predict(model, newdata, n.trees = model$n.trees, type = "response")`;
#' * `multinom` (nnet): `predict(model, newdata, type = "probs")`, as a
#'   matrix of class probabilities also for two classes;
#' * `xgb.Booster` (xgboost): `predict(model, as.matrix(newdata), reshape = TRUE)`,
#'   so the data must be all numeric (a numeric matrix or data frame);
#'   a `multi:softprob` model gives one column per class;
#' * anything else: `predict(model, newdata)`.
#'
#' The function carries the attribute `modelprofiles_default`, by which the
#' native engine (see [model_profile()]) knows its scale without calling it.
#'
#' @section Classifiers:
#' A prediction with one number per row is profiled as it is. A matrix (or
#' data frame) of predictions has one column per class. Of two columns (a
#' binary classifier), the second is profiled (the probability of the
#' second, "positive", class) unless [model_profile()]'s `class` names
#' another. Of more columns (a multiclass model), every column is profiled,
#' or those that `class` names, each with the label `<label>.<class>`.
#' Predictions must be numeric, one row per row of `newdata`, and not `NA`;
#' anything else is an error that names the problem.
#'
#' @param model A fitted model.
#' @returns A function of `(model, newdata)` returning predictions.
#' @examples
#' fit <- glm(am ~ wt, data = mtcars, family = binomial)
#' f <- default_predict_function(fit)
#' f(fit, mtcars[1:3, ])
#' @export
default_predict_function <- function(model) {
  # Marked as the package's own (the native engine trusts its scale).
  structure(default_predictor(model), modelprofiles_default = TRUE)
}

# Is `f` a function made by default_predict_function()?
is_default_predictor <- function(f) {
  isTRUE(attr(f, "modelprofiles_default", exact = TRUE))
}

default_predictor <- function(model) {
  if (inherits(model, "glm")) {
    if (stats::family(model)$family %in% c("binomial", "quasibinomial")) {
      classes <- binomial_classes(model)
      return(function(model, newdata) {
        p <- stats::predict(model, newdata, type = "response")
        out <- cbind(1 - p, p)
        colnames(out) <- classes
        out
      })
    }
    return(function(model, newdata) stats::predict(model, newdata, type = "response"))
  }
  if (inherits(model, "lm")) {
    return(function(model, newdata) stats::predict(model, newdata))
  }
  if (inherits(model, "ranger")) {
    return(function(model, newdata) {
      if (identical(model$treetype, "Classification")) {
        cli::cli_abort(c(
          "A ranger classification forest predicts classes, not probabilities.",
          i = "Fit it with {.code probability = TRUE}, or give a {.arg predict_function}."
        ))
      }
      stats::predict(model, data = newdata, verbose = FALSE)$predictions
    })
  }
  if (inherits(model, "randomForest")) {
    return(function(model, newdata) {
      if (identical(model$type, "classification")) {
        stats::predict(model, newdata, type = "prob")
      } else {
        stats::predict(model, newdata)
      }
    })
  }
  if (inherits(model, "gbm")) {
    return(function(model, newdata) {
      stats::predict(model, newdata, n.trees = model$n.trees, type = "response")
    })
  }
  if (inherits(model, "multinom")) {
    return(function(model, newdata) {
      p <- stats::predict(model, newdata, type = "probs")
      if (!is.matrix(p)) {
        # Two classes: nnet gives the probability of the second one.
        p <- cbind(1 - p, p)
        colnames(p) <- model$lev
      }
      p
    })
  }
  if (inherits(model, "xgb.Booster")) {
    return(function(model, newdata) stats::predict(model, as.matrix(newdata), reshape = TRUE))
  }
  function(model, newdata) stats::predict(model, newdata)
}

# Class names of a binomial glm: the levels of a factor response, FALSE/TRUE
# for a logical one, else 0/1.
binomial_classes <- function(model) {
  y <- if (!is.null(model$model)) stats::model.response(model$model)
  if (is.factor(y)) return(levels(y)[1:2])
  if (is.logical(y)) return(c("FALSE", "TRUE"))
  c("0", "1")
}

# Coerce and check one batch of predictions: a numeric matrix with one row per
# row of newdata and one column per output (class), with column names.
check_predictions <- function(y, n, call = rlang::caller_env(), allow_na = FALSE) {
  if (is.data.frame(y)) y <- as.matrix(y)
  if (length(dim(y)) == 3L && dim(y)[3L] == 1L) { # gbm multinomial
    y <- matrix(y, dim(y)[1L], dim(y)[2L], dimnames = dimnames(y)[1:2])
  }
  if (is.factor(y) || !(is.numeric(y) || is.logical(y)) || length(dim(y)) > 2L) {
    cli::cli_abort(c(
      "The predict function must return numbers, not {.cls {class(y)}}.",
      i = "For a classifier, return the class probabilities."
    ), call = call)
  }
  k <- if (is.matrix(y)) ncol(y) else 1L
  rows <- if (is.matrix(y)) nrow(y) else length(y)
  if (rows != n) {
    cli::cli_abort(
      "The predict function returned {rows} value{?s} for {n} row{?s}.",
      call = call
    )
  }
  classes <- if (is.matrix(y)) colnames(y)
  if (k > 1L && (is.null(classes) || anyNA(classes) || any(!nzchar(classes)))) {
    classes <- as.character(seq_len(k))
  }
  # Drop names before coercing: predict() methods name their output by the
  # row names, and coercing a named vector materialises millions of strings.
  attributes(y) <- NULL
  if (!is.double(y)) y <- as.double(y)
  if (!allow_na && anyNA(y)) {
    cli::cli_abort(c(
      "The predict function returned {sum(is.na(y))} missing value{?s} (of {n * k}).",
      i = "Check for missing values in the data, or give a {.arg predict_function} that handles them."
    ), call = call)
  }
  dim(y) <- c(n, k)
  if (k > 1L) colnames(y) <- classes
  y
}

# Which columns of the predictions to profile, from the first predictions
# `y` (a matrix from check_predictions) and the user's `class`: a list with
# the column indices, the class names, and whether labels get the class.
select_outputs <- function(y, class, call) {
  k <- ncol(y)
  classes <- colnames(y)
  if (is.null(class)) {
    if (k == 1L) return(list(columns = 1L, classes = NULL, suffix = FALSE))
    if (k == 2L) return(list(columns = 2L, classes = classes[2L], suffix = FALSE))
    return(list(columns = seq_len(k), classes = classes, suffix = TRUE))
  }
  if (k == 1L) {
    cli::cli_abort(c(
      "{.arg class} is given, but the predict function returns one number per row.",
      i = "{.arg class} chooses among the columns of class probabilities."
    ), call = call)
  }
  if (is.numeric(class)) {
    if (anyNA(class) || any(class < 1 | class > k | class != round(class))) {
      cli::cli_abort("{.arg class} must be column numbers between 1 and {k}.", call = call)
    }
    cols <- as.integer(class)
  } else {
    cols <- match(as.character(class), classes)
    if (anyNA(cols)) {
      cli::cli_abort(c(
        "{.arg class} has {cli::qty(sum(is.na(cols)))}value{?s} that {?is not a class/are not classes} of the model: {.val {as.character(class)[is.na(cols)]}}.",
        i = "The classes are {.val {classes}}."
      ), call = call)
    }
  }
  cols <- unique(cols)
  list(columns = cols, classes = classes[cols], suffix = k > 2L || length(cols) > 1L)
}
