# The native engine: tree ensembles evaluated by the package's own C++ code
# (inst/include/modelprofiles/, through R/cpp.R), standing in for the model's own predict function.

# Compile the model for engines "auto" and "native" (only for the adapter's
# own predict function, checked by new_setup()): list(model, X), or NULL
# when the model cannot be compiled (an error for engine = "native").
native_prepare <- function(setup, engine, call) {
  if (engine == "predict") return(NULL)
  nm <- if (setup$adapter$native) native_compile_cached(setup$model)
  if (is.null(nm)) {
    return(native_fail(engine, paste0("models of class <", class(setup$model)[1L], "> (with these settings) are not supported."), call))
  }
  missing_cols <- setdiff(nm$features, names(setup$data))
  if (length(missing_cols)) {
    return(native_fail(engine, paste0("the data lack the model's columns ", paste(missing_cols, collapse = ", "), "."), call))
  }
  # The compiled model's outputs are the adapter's classes, in its order
  # (the converters are written so); anything else keeps predict().
  classes <- setup$adapter$classes
  if (length(classes) > 1L && !identical(as.character(nm$outputs), classes)) {
    return(native_fail(engine, "the compiled model's outputs are not the model's classes in its order.", call))
  }
  X <- native_matrix(nm, structure(setup$data, class = "data.frame",
                                   row.names = .set_row_names(setup$n)))
  list(model = nm, X = X)
}

native_fail <- function(engine, why, call) {
  if (engine == "native") {
    cli::cli_abort(c("The native engine cannot be used: {why}", i = "Use {.code engine = \"auto\"} or {.code \"predict\"}."), call = call)
  }
  NULL
}

# Stacked rows through the native engine (rows 1-based, or NULL for all
# background rows in order): no data frame is built.
native_predict_stacked <- function(setup, rows, cols, values) {
  nat <- setup$native
  native_outputs(setup, native_predict_rows(nat$model, nat$X, setup$data, rows, cols, values, setup$threads))
}

# ICE curves of column j over `grid` (values of the column's type) for
# background rows `rows`, one traversal of each tree per row (a column the
# model does not read gives flat curves from one prediction per row).
native_ice <- function(setup, j, grid, rows) {
  nat <- setup$native
  native_outputs(setup, native_ice_rows(nat$model, nat$X, setup$data, j, grid, rows, setup$threads))
}

# The profiled outputs of native predictions.
native_outputs <- function(setup, y) {
  y <- unname(y)
  if (ncol(y) > 1L) y <- y[, setup$outputs$columns, drop = FALSE]
  if (anyNA(y)) native_missing(setup)
  y
}

# A missing prediction of the native engine: a missing value in a column the
# model has no rule for (ranger and randomForest forests do not handle
# them). Names the columns.
native_missing <- function(setup) {
  X <- setup$native$X
  counts <- colSums(is.na(X))
  cols <- setup$native$model$features[counts > 0]
  if (!length(cols)) {
    cli::cli_abort(c(
      "The native engine met a missing value that the model has no rule for.",
      i = "Use {.code engine = \"predict\"} to see what the model's own {.fn predict} does with it."
    ), call = setup$call)
  }
  cli::cli_abort(c(
    "The model cannot predict rows with missing values in {.field {cols}} ({counts[counts > 0]} row{?s}).",
    i = "Impute them, or drop those rows from {.arg data}."
  ), call = setup$call)
}

# native_model() followed by the structural check of the result (once per
# model: node and feature indices in range, every walk ends), with the nodes
# packed for the C++ loops kept in `cache` (an external pointer; without it,
# or after the object was saved and loaded, each call packs them again). NULL
# when the model is not supported. A converter may instead return the packing
# itself (kind "packed", as ranger's does: checked as it is packed), which
# lives only as long as the R session.
native_compile <- function(model) {
  nm <- native_model(model)
  if (is.null(nm)) return(NULL)
  if (identical(nm$kind, "packed")) return(nm)
  nm$cache <- tryCatch(native_pack(nm), error = function(e) {
    cli::cli_abort("Internal error: the compiled {nm$source} model is malformed: {conditionMessage(e)}", call = NULL)
  })
  nm
}

# Compiled models are reused within one top-level call (a profile per
# subgroup, the three profiles of compare_profiles(), ...): inside a
# native_cache_scope(), native_compile_cached() keeps the last model and its
# compilation, and gives the compilation again for the same model
# (identical(), which is immediate for the same object). The scope's end
# drops both, so nothing outlives the call.
native_cache <- new.env(parent = emptyenv())

# Open a scope (unless one is open); returns the function that closes it.
native_cache_scope <- function() {
  if (isTRUE(native_cache$active)) return(function() invisible())
  native_cache$active <- TRUE
  function() {
    native_cache$active <- FALSE
    native_cache$model <- NULL
    native_cache$compiled <- NULL
    invisible()
  }
}

native_compile_cached <- function(model) {
  if (!isTRUE(native_cache$active)) return(native_compile(model))
  if (!is.null(native_cache$compiled) && identical(native_cache$model, model)) {
    return(native_cache$compiled)
  }
  native_cache$model <- NULL
  native_cache$compiled <- NULL
  nm <- native_compile(model)
  native_cache$model <- model
  native_cache$compiled <- nm
  nm
}

# The values of feature k (1-based) of a compiled model as doubles: a factor
# feature's levels mapped to the model's codes by name (a level unknown to the
# model, and NA, give NaN/NA); a feature without levels the way data.matrix()
# codes it (numbers as they are, logicals 0/1, factors by their own codes,
# character by the sorted distinct values of `ref`, the column of the data).
native_column <- function(nm, k, x, ref = x) {
  lv <- nm$feature_levels[[k]]
  if (!is.null(lv)) {
    if (is.factor(x)) return(as.double(match(levels(x), lv)[as.integer(x)]))
    return(as.double(match(as.character(x), lv)))
  }
  if (is.factor(x)) return(as.double(as.integer(x)))
  if (is.character(x)) return(as.double(match(x, levels(factor(ref)))))
  as.double(x)
}

# The double matrix (rows of `data` x the model's features, column-major) the
# C++ side reads.
native_matrix <- function(nm, data) {
  if (is.matrix(data)) data <- as.data.frame(data)
  absent <- setdiff(nm$features, names(data))
  if (length(absent) > 0L) {
    cli::cli_abort("The data lack the model's variable{?s} {.val {absent}}.", call = NULL)
  }
  X <- matrix(0, nrow(data), length(nm$features))
  for (k in seq_along(nm$features)) X[, k] <- native_column(nm, k, data[[nm$features[k]]])
  X
}

# Predictions of stacked rows: row r is row rows[r] (1-based, or NULL for
# all rows of X in order) of the
# data with columns js (1-based columns of `data`) set to vals[[q]] (values of
# the column's type). X = native_matrix(nm, data). Returns a matrix with one
# column per model output (named by nm$outputs).
native_predict_rows <- function(nm, X, data, rows, js, vals, threads) {
  k <- match(names(data)[js], nm$features)
  use <- !is.na(k)
  vals <- lapply(which(use), function(q) native_column(nm, k[q], vals[[q]], data[[js[q]]]))
  native_eval(nm, X, rows, k[use], vals, threads)
}

# ICE curves of column j (1-based, of `data`) over `grid` (values of the
# column's type, any order) for rows `rows` (1-based) of X =
# native_matrix(nm, data): a (G * length(rows)) x outputs matrix in
# observation-major order (row i's G predictions consecutive), from one walk
# per tree and row; equal bit for bit to native_predict_rows() on the
# stacked rows.
native_ice_rows <- function(nm, X, data, j, grid, rows, threads) {
  G <- length(grid)
  k <- match(names(data)[j], nm$features)
  if (is.na(k)) {
    # The model does not read the column: every curve is flat.
    y <- native_eval(nm, X, rows, threads = threads)
    return(y[rep(seq_along(rows), each = G), , drop = FALSE])
  }
  z <- native_column(nm, k, grid, data[[j]])
  native_curves(nm, X, rows, k, z, threads)
}
