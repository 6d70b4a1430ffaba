# The native engine: tree ensembles evaluated by the package's own C++ code
# (src/ensemble.*), instead of the model's predict(), wherever that gives the
# same numbers.

# The engine of a context, step 1: compile the model for engines "auto" and
# "native". Returns list(model, X), or NULL when the model cannot be
# compiled (an error for engine = "native"; for "auto", the reason is kept in
# ctx$engine_note).
native_prepare <- function(ctx, engine, call) {
  if (engine == "predict") return(NULL)
  nm <- native_compile_cached(ctx$model)
  if (is.null(nm)) return(native_fail(ctx, engine, paste0("models of class <", class(ctx$model)[1L], "> are not supported."), call))
  missing_cols <- setdiff(nm$features, names(ctx$data))
  if (length(missing_cols)) return(native_fail(ctx, engine, paste0("the data lack the model's columns ", paste(missing_cols, collapse = ", "), "."), call))
  X <- native_matrix(nm, structure(ctx$data, class = "data.frame",
                                   row.names = .set_row_names(length(ctx$ids))))
  list(model = nm, X = X)
}

# Step 2: use the compiled model when its predictions on the probe rows
# (`mine`) equal the predict function's (`theirs`): the same outputs, on the
# same scale. With the package's own predict function for the model (see
# native_trusted()) the probe is the native predictions themselves, as the
# converters are tested to reproduce it.
native_use <- function(ctx, engine, native, mine, theirs, call) {
  if (is.null(native)) return(invisible(ctx))
  tol <- if (isTRUE(native$model$float32)) 1e-5 else 1e-10
  same <- identical(dim(mine), dim(theirs)) && !anyNA(theirs) &&
    isTRUE(all(abs(mine - theirs) <= tol * pmax(1, abs(theirs))))
  if (!same) {
    return(native_fail(ctx, engine, "its predictions differ from the predict function's (another scale or other outputs).", call))
  }
  ctx$native <- native
  ctx$engine <- "native"
  invisible(ctx)
}

# Is the predict function the package's own for the model (from
# default_predict_function(), which marks it)? Then the native engine needs
# no call to predict() to know that the scales agree, unless option
# modelprofiles.native_check is TRUE.
native_trusted <- function(predict_function) {
  is_default_predictor(predict_function) && !isTRUE(getOption("modelprofiles.native_check", FALSE))
}

native_fail <- function(ctx, engine, why, call) {
  if (engine == "native") {
    cli::cli_abort(c("The native engine cannot be used: {why}", i = "Use {.code engine = \"auto\"} or {.code \"predict\"}."), call = call)
  }
  ctx$engine_note <- why
  NULL
}

# predict_stacked() for the native engine: no data frame is built.
native_predict_stacked <- function(ctx, src, js, vals) {
  nat <- ctx$native
  native_outputs(ctx, native_predict_rows(nat$model, nat$X, ctx$data, src, js, vals, ctx$threads))
}

# ICE table of data column j over a grid for background rows `rows`
# (1-based), one traversal of each tree per row (a column the model does not
# read gives flat curves from one prediction per row).
native_ice <- function(ctx, j, grid, rows) {
  nat <- ctx$native
  y <- native_ice_rows(nat$model, nat$X, ctx$data, j, column_values(ctx$data[[j]], grid), rows,
                       ctx$threads)
  native_outputs(ctx, y)
}

# Select the profiled outputs and count the predictions.
native_outputs <- function(ctx, y) {
  y <- unname(y)
  if (ncol(y) > 1L) y <- y[, ctx$outputs$columns, drop = FALSE]
  ctx$n_predictions <- ctx$n_predictions + nrow(y)
  if (anyNA(y)) {
    cli::cli_abort("The native engine met a missing value the model cannot handle; use {.code engine = \"predict\"}.", call = ctx$call)
  }
  y
}
