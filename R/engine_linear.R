# The native engine for linear models (lm, glm and their descendants).
#
# A numeric variable that enters the formula only by its name (as a main
# effect or in interactions such as x:w or x*f, but not inside a function
# such as log(x), poly(x, 2) or I(x^2), nor in an offset) enters every column
# of the model matrix at most linearly, so a row's linear predictor is affine
# in it: eta(z) = a + z * c, with a = eta(0) and c = eta(1) - eta(0). Two
# evaluations of the linear predictor per row (one predict() call on 2n
# rows, type = "link") then give the row's whole ICE curve through the
# inverse link, instead of one prediction per grid point. Other variables,
# and the other estimators, use the predict function.

# What the linear engine needs of a model, or NULL when it does not apply:
# the variables that enter linearly, the linear predictor and the inverse
# link, and the shape of the default predictions (two columns for a binomial
# glm, named by the classes).
linear_model <- function(model, adapter = model_adapter(model)) {
  if (!adapter$linear) return(NULL)
  tt <- tryCatch(stats::delete.response(stats::terms(model)), error = function(e) NULL)
  if (is.null(tt)) return(NULL)
  vars <- as.list(attr(tt, "variables"))[-1L]
  classes <- attr(tt, "dataClasses")
  bare <- vapply(vars, is.name, logical(1))
  elsewhere <- unique(c(
    unlist(lapply(vars[!bare], all.vars)),
    if (!is.null(model$call$offset)) all.vars(model$call$offset)
  ))
  linear <- setdiff(vapply(vars[bare], as.character, character(1)), elsewhere)
  linear <- linear[linear %in% names(classes)[classes == "numeric"]]
  if (!length(linear)) return(NULL)
  is_glm <- !is.null(model$family)
  fam <- if (is_glm) tryCatch(stats::family(model), error = function(e) NULL)
  if (is_glm && (is.null(fam) || !is.function(fam$linkinv))) return(NULL)
  binomial <- is_glm && fam$family %in% c("binomial", "quasibinomial")
  list(
    variables = linear,
    identity = !binomial && (!is_glm || identical(fam$link, "identity")),
    eta = if (is_glm) {
      function(newdata) stats::predict(model, newdata, type = "link")
    } else {
      function(newdata) stats::predict(model, newdata)
    },
    linkinv = if (is_glm) fam$linkinv else identity,
    classes = if (binomial) binomial_classes(model)
  )
}

# The linear engine of a setup, as native_prepare() for tree ensembles:
# NULL when it does not apply (no variable of the data enters linearly).
# It stands in for the adapter's own predict function only, whose shape it
# knows: both classes of a binomial glm, else one column.
linear_prepare <- function(setup) {
  lin <- linear_model(setup$model, setup$adapter)
  if (is.null(lin)) return(NULL)
  lin$variables <- intersect(lin$variables, names(setup$data))
  if (!length(lin$variables)) return(NULL)
  lin$shape <- if (!is.null(lin$classes)) "classes" else "single"
  lin
}

# ICE curves of data column j (one that enters the model linearly) over
# `grid` for background rows `rows`, from the rows' linear predictors at 0
# and 1, in their compact form (an "mp_affine" curve table: the rows'
# intercepts `a` and slopes on the linear-predictor scale; see
# affine_values()), with attribute "n", the 2 n predictions made.
linear_ice <- function(setup, j, grid, rows) {
  lin <- setup$linear
  n <- length(rows)
  at <- column_values(setup$data[[j]], rep(c(0, 1), each = n))
  nd <- stack_frame(setup$data, rep(rows, 2L), j, list(at), setup$threads)
  eta <- lin$eta(nd)
  names(eta) <- NULL # (as.double() of a named vector is slow)
  eta <- as.double(eta)
  if (length(eta) != 2L * n) {
    cli::cli_abort("The model's linear predictor has {length(eta)} value{?s} for {2L * n} row{?s}.", call = setup$error_call)
  }
  # Missing or infinite linear predictors give missing predictions: an
  # error that names the rows' columns with such values.
  if (!all(is.finite(eta))) linear_nonfinite(setup, rows, eta, n)
  a <- eta[seq_len(n)]
  structure(linear_affine(setup, a, eta[n + seq_len(n)] - a, grid), n = 2 * n)
}

# Affine curves over `grid`: the rows' intercepts `a` and slopes on the
# linear predictor's scale, and what turns them into predictions
# (affine_values()). Kept curves (with the result) hold no call's
# environment: threads = 1, error_call = NULL.
linear_affine <- function(setup, a, slope, grid, threads = setup$threads, error_call = setup$error_call) {
  lin <- setup$linear
  structure(list(a = a, slope = slope, z = as.double(grid), linkinv = lin$linkinv,
                 identity = lin$identity, shape = lin$shape, classes = lin$classes,
                 columns = setup$outputs$columns, threads = threads, error_call = error_call),
            class = "mp_affine")
}

# Background rows `rows` whose linear predictor (`eta`, at 0 and at 1 of
# the profiled column) is not finite: an error naming the columns where
# those rows have missing or infinite values, as the predict path's does.
linear_nonfinite <- function(setup, rows, eta, n) {
  bad <- rows[!is.finite(eta[seq_len(n)]) | !is.finite(eta[n + seq_len(n)])]
  counts <- vapply(setup$data, function(col) {
    x <- col[bad]
    sum(if (is.numeric(x)) !is.finite(x) else is.na(x))
  }, numeric(1))
  cols <- names(setup$data)[counts > 0]
  if (!length(cols)) {
    check_predictions(rep(NA_real_, length(bad)), length(bad), call = setup$error_call)
  }
  cli::cli_abort(c(
    "The model cannot predict {length(bad)} background row{?s}: {cli::qty(length(cols))}{?it has/they have} missing or infinite values in {.field {cols}} ({counts[counts > 0]} row{?s}).",
    i = "Impute them, drop those rows from {.arg data}, or give a {.arg predict_function} that handles them."
  ), call = setup$error_call)
}

# The values of affine curves (rows `pos` of them, or all): an
# observation-major (G * rows) x outputs matrix, the predictions the model
# makes at those points (on the response scale: one column, or both
# classes of a binomial model).
affine_values <- function(curves, pos = NULL) {
  a <- if (is.null(pos)) curves$a else curves$a[pos]
  s <- if (is.null(pos)) curves$slope else curves$slope[pos]
  eta <- affine_curves(a, s, curves$z, curves$threads)
  p <- if (curves$identity) eta else curves$linkinv(eta)
  y <- if (identical(curves$shape, "classes")) cbind(1 - p, p) else matrix(p, ncol = 1L)
  if (!all(is.finite(y))) check_predictions(y, length(eta), call = curves$error_call)
  if (ncol(y) > 1L) y <- y[, curves$columns, drop = FALSE]
  unname(y)
}

# Weighted sums over the rows of affine curves, per grid point and output
# (as table_sums()): for an identity link, sum(w a) + z sum(w slope)
# without the table.
affine_sums <- function(curves, w) {
  if (!curves$identity) {
    y <- affine_values(curves)
    G <- length(curves$z)
    return(matrix(vapply(seq_len(ncol(y)), function(c) grid_sums(y, G, w, curves$threads, c), numeric(G)), G))
  }
  matrix(sum(w * curves$a) + curves$z * sum(w * curves$slope), ncol = 1L)
}
