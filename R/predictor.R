# The checks every batch of predictions goes through, and the choice of the
# columns (classes) to profile.

# Coerce and check one batch of predictions: a numeric matrix with one row per
# row of newdata and one column per output (class), with column names.
check_predictions <- function(y, n, call = rlang::caller_env(), allow_na = FALSE,
                              classifier = FALSE) {
  if (is.data.frame(y)) {
    numeric <- vapply(y, is.numeric, logical(1))
    y <- if (all(numeric)) as.matrix(y) else y[[which(!numeric)[1L]]]
  }
  if (length(dim(y)) == 3L && dim(y)[3L] == 1L) { # gbm multinomial
    y <- matrix(y, dim(y)[1L], dim(y)[2L], dimnames = dimnames(y)[1:2])
  }
  if (is.factor(y) || is.logical(y) || is.character(y)) {
    cli::cli_abort(c(
      "The predict function returns classes ({.cls {class(y)[1L]}}), not probabilities.",
      i = "Profiles of a classifier are of its class probabilities: return them, one column per class (e.g. {.code predict(model, newdata, type = \"prob\")})."
    ), call = call)
  }
  if (!is.numeric(y) || length(dim(y)) > 2L) {
    cli::cli_abort(c(
      "The predict function must return numbers, not {.cls {class(y)}}.",
      i = "For a classifier, return the class probabilities."
    ), call = call)
  }
  if (classifier && is.integer(y)) {
    cli::cli_abort(c(
      "The predict function of a classifier returns whole numbers (class codes?), not probabilities.",
      i = "Return the class probabilities, one column per class."
    ), call = call)
  }
  k <- if (is.matrix(y)) ncol(y) else 1L
  rows <- if (is.matrix(y)) nrow(y) else length(y)
  if (rows != n) {
    cli::cli_abort(c(
      "The predict function returned {rows} value{?s} for {n} row{?s} of {.arg newdata}.",
      i = "{.arg predict_function} must be a {.code function(model, newdata)} that returns one prediction per row of {.arg newdata} (or a matrix with a row per row and a column per class).",
      i = if (rows > n) "Does it use {.arg newdata}? {.code predict(model)} without it returns the training rows' fitted values."
    ), call = call)
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
    ), call = call, class = "modelprofiles_missing_predictions")
  }
  if (!allow_na && any(is.infinite(y))) {
    cli::cli_abort(
      "The predict function returned {sum(is.infinite(y))} infinite value{?s} (of {n * k}); profiles need finite predictions.",
      call = call
    )
  }
  dim(y) <- c(n, k)
  if (k > 1L) colnames(y) <- classes
  y
}

# Which columns of the predictions to profile, from the first predictions
# `y` (a matrix from check_predictions) and the user's `class`: a list with
# the column indices, the class names, and whether labels get the class.
# Of two classes, `positive` (the adapter's) is profiled by default, else the
# second column.
select_outputs <- function(y, class, call, positive = NULL) {
  k <- ncol(y)
  classes <- colnames(y)
  if (is.null(class)) {
    if (k == 1L) return(list(columns = 1L, classes = NULL, suffix = FALSE))
    if (k == 2L) {
      col <- if (!is.null(positive) && positive %in% classes) match(positive, classes) else 2L
      return(list(columns = col, classes = classes[col], suffix = FALSE))
    }
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
