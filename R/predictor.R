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
#' * `ranger`: `predict(model, data = newdata)$predictions`; a probability
#'   forest gives the probability of the second class;
#' * `randomForest`: regression predictions, or for a classification forest
#'   `predict(model, newdata, type = "prob")[, 2]`;
#' * `gbm`: `predict(model, newdata, n.trees = model$n.trees, type = "response")`;
#' * `xgb.Booster` (xgboost): `predict(model, as.matrix(newdata))`, so the
#'   data must be all numeric (a numeric matrix or data frame);
#' * anything else: `predict(model, newdata)`.
#'
#' Whatever the function, a prediction that is a matrix or data frame with
#' one column is taken as that column, and one with two columns (a binary
#' classifier's class probabilities) as its second column, the probability
#' of the second ("positive") class. Predictions must be numeric, one per
#' row, and not `NA`; anything else is an error that names the problem.
#'
#' @param model A fitted model.
#' @returns A function of `(model, newdata)` returning predictions.
#' @examples
#' fit <- glm(am ~ wt, data = mtcars, family = binomial)
#' f <- default_predict_function(fit)
#' f(fit, mtcars[1:3, ])
#' @export
default_predict_function <- function(model) {
  if (inherits(model, "glm")) {
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
  if (inherits(model, "xgb.Booster")) {
    return(function(model, newdata) stats::predict(model, as.matrix(newdata)))
  }
  function(model, newdata) stats::predict(model, newdata)
}

# Coerce and check one batch of predictions.
check_predictions <- function(y, n, call = rlang::caller_env()) {
  if (is.data.frame(y)) y <- as.matrix(y)
  if (length(dim(y)) == 3L && dim(y)[3L] == 1L) y <- y[, , 1L] # gbm multinomial
  if (is.matrix(y)) {
    if (ncol(y) == 1L) {
      y <- y[, 1L]
    } else if (ncol(y) == 2L) {
      y <- y[, 2L]
    } else {
      cli::cli_abort(c(
        "The predict function returned {ncol(y)} columns per row.",
        i = "Profiles are for one number per row: give a {.arg predict_function} that returns the probability of one class."
      ), call = call)
    }
  }
  if (is.factor(y) || !(is.numeric(y) || is.logical(y))) {
    cli::cli_abort(c(
      "The predict function must return numbers, not {.cls {class(y)}}.",
      i = "For a classifier, return the probability of a class."
    ), call = call)
  }
  if (length(y) != n) {
    cli::cli_abort(
      "The predict function returned {length(y)} value{?s} for {n} row{?s}.",
      call = call
    )
  }
  # Drop names before coercing: predict() methods name their output by the
  # row names, and coercing a named vector materialises millions of strings.
  attributes(y) <- NULL
  if (!is.double(y)) y <- as.double(y)
  if (anyNA(y)) {
    cli::cli_abort(c(
      "The predict function returned {sum(is.na(y))} missing value{?s} (of {n}).",
      i = "Check for missing values in the data, or give a {.arg predict_function} that handles them."
    ), call = call)
  }
  y
}
