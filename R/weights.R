# Case weights of a call: resolved from the argument or the explainer,
# scaled, and the rows of weight 0 left out.

# Case weights: NULL, a column of data (by name), or one number per row of
# data; from an explainer's weights when not given.
resolve_weights <- function(weights, x, data, call) {
  from_explainer <- is.null(weights) && is_explainer(x)
  if (from_explainer) weights <- unpack_explainer(x)$weights
  if (is.null(weights)) return(NULL)
  column <- NULL
  if (is.character(weights) && length(weights) == 1L) {
    if (!weights %in% names(data)) {
      cli::cli_abort("{.arg weights} names a column not in the data: {.val {weights}}.", call = call)
    }
    column <- weights
    weights <- data[[column]]
  }
  what <- if (is.null(column)) "{.arg weights}" else "The weights column {.field {column}}"
  of_what <- if (is.null(column)) "{.arg weights}" else "the weights column {.field {column}}"
  if (!is.numeric(weights) || is.factor(weights)) {
    cli::cli_abort(paste(what, "must be numeric, not {.cls {class(weights)}}."), call = call)
  }
  if (length(weights) != nrow(data)) {
    cli::cli_abort(paste(what, "has {length(weights)} value{?s}; the data has {nrow(data)} row{?s}."), call = call)
  }
  if (anyNA(weights) || any(!is.finite(weights)) || any(weights < 0)) {
    cli::cli_abort(paste(what, "must be finite, non-negative and not {.val {NA}}."), call = call)
  }
  # Weighted means divide by the sum: it must be a finite number.
  if (!is.finite(sum(as.double(weights)))) {
    cli::cli_abort(c(
      paste("The sum of", of_what, "is more than the largest number R can hold ({.val {(.Machine$double.xmax)}})."),
      i = "Divide them by a constant (say, their largest value): profiles depend only on the ratios of the weights."
    ), call = call)
  }
  weights <- as.double(weights)
  if (from_explainer) inform_explainer_weights(weights)
  attr(weights, "column") <- column
  weights
}

# The weights of a setup's arithmetic. Every mean, kernel sum and standard
# error depends only on the ratios of the weights, but products of weights
# so small (or so large) that they leave the normal range of doubles lose
# bits (subnormal) or overflow: w y for w near the smallest normal double
# and |y| < 1, w^2 in the standard errors. So `setup$weights` are the case
# weights of the background rows times a power of two (exact) that brings
# the largest into [1, 2) when it lies outside [2^-64, 2^64], and are the
# case weights themselves otherwise (nothing changes for ordinary weights).
# `setup$case_weights` keeps the weights as given: for what reads them as
# frequencies (grids, bandwidths, subgroups' bins, `_support_`) and what
# reports them.
scale_weights <- function(setup) {
  w <- setup$weights
  setup$case_weights <- w
  m <- if (length(w)) max(w) else 1
  if (!(m > 0) || (m >= 2^-64 && m <= 2^64)) return(setup)
  e <- -floor(log2(m))
  # (2^e in two factors: 2^e alone overflows for subnormal weights.)
  h <- trunc(e / 2)
  setup$weights <- w * 2^h * 2^(e - h)
  setup
}

# Background rows with positive weight (a row of weight 0 is as absent).
weighted_rows <- function(rows, weights, call) {
  if (is.null(weights)) return(rows)
  rows <- rows[weights[rows] > 0]
  if (length(rows) < 2L) {
    cli::cli_abort("Fewer than 2 background rows have a positive weight.", call = call)
  }
  rows
}
