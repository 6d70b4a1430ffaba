# The native engine: tree ensembles evaluated by the package's own C++ code
# (src/ensemble.*), standing in for the model's own predict function.

# Compile the model for engines "auto" and "native" (only for the adapter's
# own predict function, checked by the caller). Returns list(model, X), or
# NULL when the model cannot be compiled (an error for engine = "native";
# for "auto", the reason is kept in ctx$engine_note).
native_prepare <- function(ctx, engine, call) {
  if (engine == "predict") return(NULL)
  nm <- if (ctx$adapter$native) native_compile_cached(ctx$model)
  if (is.null(nm)) {
    return(native_fail(ctx, engine, paste0("models of class <", class(ctx$model)[1L], "> (with these settings) are not supported."), call))
  }
  missing_cols <- setdiff(nm$features, names(ctx$data))
  if (length(missing_cols)) return(native_fail(ctx, engine, paste0("the data lack the model's columns ", paste(missing_cols, collapse = ", "), "."), call))
  # The compiled model's outputs are the adapter's classes, in its order
  # (the converters are written so); anything else keeps predict().
  classes <- ctx$adapter$classes
  if (length(classes) > 1L && !identical(as.character(nm$outputs), classes)) {
    return(native_fail(ctx, engine, "the compiled model's outputs are not the model's classes in its order.", call))
  }
  X <- native_matrix(nm, structure(ctx$data, class = "data.frame",
                                   row.names = .set_row_names(length(ctx$ids))))
  list(model = nm, X = X)
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
  if (anyNA(y)) native_missing(ctx)
  y
}

# A missing prediction of the native engine: a missing value in a column the
# model has no rule for (ranger and randomForest forests do not handle
# them). Names the columns.
native_missing <- function(ctx) {
  X <- ctx$native$X
  counts <- colSums(is.na(X))
  cols <- ctx$native$model$features[counts > 0]
  if (!length(cols)) {
    cli::cli_abort(c(
      "The native engine met a missing value that the model has no rule for.",
      i = "Use {.code engine = \"predict\"} to see what the model's own {.fn predict} does with it."
    ), call = ctx$call)
  }
  cli::cli_abort(c(
    "The model cannot predict rows with missing values in {.field {cols}} ({counts[counts > 0]} row{?s}).",
    i = "Impute them, or drop those rows from {.arg data}."
  ), call = ctx$call)
}
