# The native engine's walks beyond predictions: at observed points
# (inst/include/modelprofiles/observed.h), the sums of the tables of
# Friedman's H-statistics without the tables; per tree, for the per-tree
# bands (R/bands_trees.R).

# Does the setup's engine evaluate observed_spec(), and walk each table of
# curves as a set (the native engine)?
walks_observed <- function(setup) request_engine(setup) == "native"

# The set walk at observed points (observed_spec() `spec`): list(points
# (points x outputs: the rows' weighted sums at each point), rows (with
# spec$v: rows x outputs, each row's sums over the points weighted by v),
# fitted (with spec$fitted: the predictions at the rows)), with attribute
# "n", the predictions they stand for. Columns the model does not read are
# left out (none left: one prediction per row).
native_observed <- function(setup, spec) {
  nat <- setup$native
  nm <- nat$model
  P <- length(spec$values[[1L]])
  r <- native_read(nm, setup$data, spec$cols, spec$values)
  if (length(r$k)) {
    out <- native_observed_sums(nm, nat$X, spec$rows, spec$w, r$k, r$z, spec$v, setup$threads)
  } else {
    y <- native_eval(nm, nat$X, spec$rows, threads = setup$threads)
    out <- list(points = matrix(colSums(y * spec$w), P, ncol(y), byrow = TRUE))
    if (!is.null(spec$v)) out$rows <- y * sum(spec$v)
  }
  if (spec$fitted) out$fitted <- native_eval(nm, nat$X, spec$rows, threads = setup$threads)
  structure(lapply(out, function(y) native_outputs(setup, y)), n = P * length(spec$rows))
}

# For H-statistics: background rows `rows` (weights w) with columns `cols`
# (one or two) set to each of the distinct points `values` (a list of P
# values per column) that occur among them, the points weighing v (NULL:
# the rows' sums over the points are not wanted); `fitted`: also the
# predictions at the rows. From the native engine only (native_observed()).
observed_spec <- function(rows, cols, values, w, v = NULL, fitted = FALSE) {
  list(kind = "observed", rows = rows, cols = as.integer(cols), values = values, w = w, v = v,
       fitted = fitted)
}

# Per-tree partial dependence of a forest: a G x T x outputs array (T
# trees; the setup's profiled outputs, named by their classes) of
# theta[g, t, c] = sum_i w_i T_t(x_i^{j = z_g}) / sum_i w_i over background
# rows `rows` (1-based) of a setup whose engine is the native one, for
# column `j` (position or name) at the G values `grid` (of its type, any
# order). T_t is tree t's prediction of output c on the scale where the
# forest's is the mean of the trees' (a regression tree's leaf value, a
# probability tree's class fractions, a randomForest classification tree's
# one-hot vote): the mean over t is the forest's PD (to rounding).
tree_partial <- function(setup, j, grid, rows = seq_len(setup$n)) {
  nm <- tree_forest(setup)
  j <- tree_column(setup, j)
  col <- setup$data[[j]]
  k <- match(names(setup$data)[j], nm$features)
  # (A column the model does not read: k = NA, every tree's curve flat.)
  z <- if (is.na(k)) rep(0, length(grid)) else native_column(nm, k, column_values(col, grid), col)
  theta <- native_tree_partial(nm, setup$native$X, rows, setup$weights[rows], k, z, setup$threads)
  theta <- theta[, , setup$outputs$columns, drop = FALSE]
  if (anyNA(theta)) native_missing(setup)
  dimnames(theta) <- list(NULL, NULL, setup$outputs$classes)
  theta
}

# The per-tree walk of tree_spec() `spec`: the rows' weighted sums of each
# tree's predictions (G x T x outputs), attribute "n" the predictions they
# stand for.
native_trees <- function(setup, spec) {
  theta <- tree_partial(setup, spec$cols, spec$grid[[1L]], spec$rows)
  structure(theta * sum(spec$w), n = if (spec$count) length(spec$grid[[1L]]) * length(spec$rows) else 0)
}

# The compiled forest of a setup, when its trees are averaged (mean
# aggregate, identity transform); a clear error otherwise.
tree_forest <- function(setup) {
  if (!inherits(setup, "mp_setup")) {
    cli::cli_abort("{.arg setup} must be an {.cls mp_setup}, not {.obj_type_friendly {setup}}.", call = NULL)
  }
  nm <- setup$native$model
  if (is.null(nm)) {
    cls <- class(setup$model)[1L] # (interpolated by cli in `msg`)
    msg <- if (!is.null(setup$linear)) {
      "Per-tree profiles need the native tree engine; this setup evaluates a linear predictor, which has no trees."
    } else {
      "Per-tree profiles need the native tree engine; this setup calls {.fn predict} (engine {.val predict}, a {.arg predict_function} of your own, or a {.cls {cls}} model that the engine does not compile)."
    }
    cli::cli_abort(c(msg, i = "Use a ranger or randomForest forest with the model's own predict function."),
                   call = setup$error_call)
  }
  if (!identical(nm$aggregate, "mean") || !identical(nm$transform, "identity")) {
    cli::cli_abort(c(
      "A {.cls {class(setup$model)[1L]}} model adds up its trees (boosting): the spread of its trees is not an uncertainty of its profile.",
      i = "Per-tree profiles are for forests that average their trees (ranger, randomForest)."
    ), call = setup$error_call)
  }
  nm
}

# Column j of the background as a position, from a position or a name.
tree_column <- function(setup, j) {
  cols <- names(setup$data)
  pos <- NA_integer_
  if (length(j) == 1L && is.character(j)) pos <- match(j, cols)
  if (length(j) == 1L && is.numeric(j) && j %in% seq_along(cols)) pos <- as.integer(j)
  if (is.na(pos)) {
    cli::cli_abort("{.arg j} must name one column of the data, or give its position.", call = setup$error_call)
  }
  pos
}
