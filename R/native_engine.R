# The native engine: tree ensembles evaluated by the package's own C++ code
# (src/ensemble.*), instead of the model's predict(), wherever that gives the
# same numbers.

# The engine of a context, step 1: compile the model for engines "auto" and
# "native". Returns list(model, X, feature), or NULL when the model cannot be
# compiled (an error for engine = "native"; for "auto", the reason is kept in
# ctx$engine_note).
native_prepare <- function(ctx, engine, call) {
  ctx$engine <- "predict"
  ctx$native <- NULL
  if (engine == "predict") return(NULL)
  nm <- native_compile_cached(ctx$model)
  if (is.null(nm)) return(native_fail(ctx, engine, paste0("models of class <", class(ctx$model)[1L], "> are not supported."), call))
  missing_cols <- setdiff(nm$features, names(ctx$data))
  if (length(missing_cols)) return(native_fail(ctx, engine, paste0("the data lack the model's columns ", paste(missing_cols, collapse = ", "), "."), call))
  X <- native_matrix(nm, structure(ctx$data, class = "data.frame",
                                   row.names = .set_row_names(length(ctx$ids))))
  list(model = nm, X = X, feature = match(names(ctx$data), nm$features))
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
  isTRUE(attr(predict_function, "modelprofiles_default", exact = TRUE)) &&
    !isTRUE(getOption("modelprofiles.native_check", FALSE))
}

native_fail <- function(ctx, engine, why, call) {
  if (engine == "native") {
    cli::cli_abort(c("The native engine cannot be used: {why}", i = "Use {.code engine = \"auto\"} or {.code \"predict\"}."), call = call)
  }
  ctx$engine_note <- why
  NULL
}

# Model feature index (0-based) of data column j (1-based), or NA when the
# model does not use the column.
native_feature <- function(ctx, j) ctx$native$feature[j] - 1L

# Values of data column j for the compiled model: doubles, factor levels as
# the model's codes.
native_values <- function(ctx, j, vals) {
  native_column(ctx$native$model, ctx$native$feature[j], vals, ctx$data[[j]])
}

# predict_stacked() for the native engine: no data frame is built.
native_predict_stacked <- function(ctx, src, js, vals) {
  if (is.null(src)) src <- seq_along(ctx$ids) - 1L
  used <- !is.na(ctx$native$feature[js])
  fj <- vapply(js[used], function(j) native_feature(ctx, j), integer(1))
  fv <- Map(function(j, v) native_values(ctx, j, v), js[used], vals[used])
  y <- cpp_native_predict(ctx$native$model, ctx$native$X, as.integer(src), fj, fv, ctx$threads)
  native_outputs(ctx, y)
}

# ICE table of data column j over a grid for background rows `rows`
# (1-based), one traversal of each tree per row; NULL when the model does not
# use the column (the stacked path then gives the flat curves).
native_ice <- function(ctx, j, grid, rows) {
  f <- ctx$native$feature[j]
  if (is.na(f)) return(NULL)
  y <- cpp_native_ice(ctx$native$model, ctx$native$X, as.integer(rows - 1L), f - 1L,
                      native_values(ctx, j, column_values(ctx$data[[j]], grid)), ctx$threads)
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
