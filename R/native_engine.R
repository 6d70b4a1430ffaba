# The native engine: tree ensembles evaluated by the package's own C++ code
# (src/ensemble.*), instead of the model's predict(), wherever that gives the
# same numbers.

# Choose the engine of a context. "predict": the model's predict function.
# "native": the compiled model, or an error when it cannot be used. "auto":
# native when the model compiles and its predictions on a few background rows
# equal the predict function's (the same scale and outputs), else predict.
native_setup <- function(ctx, engine, call) {
  ctx$engine <- "predict"
  ctx$native <- NULL
  if (engine == "predict") return(invisible(ctx))
  fail <- function(why) {
    if (engine == "native") {
      cli::cli_abort(c("The native engine cannot be used: {why}", i = "Use {.code engine = \"auto\"} or {.code \"predict\"}."), call = call)
    }
    ctx$engine_note <- why
    invisible(ctx)
  }
  nm <- native_compile(ctx$model)
  if (is.null(nm)) return(fail(paste0("models of class <", class(ctx$model)[1L], "> are not supported.")))
  missing_cols <- setdiff(nm$features, names(ctx$data))
  if (length(missing_cols)) return(fail(paste0("the data lack the model's columns ", paste(missing_cols, collapse = ", "), ".")))
  X <- native_matrix(nm, structure(ctx$data, class = "data.frame",
                                   row.names = .set_row_names(length(ctx$ids))))
  # The same numbers as the predict function on (up to) 20 background rows?
  probe <- seq_len(min(20L, length(ctx$ids)))
  mine <- cpp_native_predict(nm, X, probe - 1L, integer(), list(), 1L)
  theirs <- check_predictions(
    ctx$predict_function(ctx$model, cpp_stack_frame(ctx$data, probe - 1L, integer(), list(), 1L)),
    length(probe), call = call, allow_na = TRUE
  )
  tol <- if (isTRUE(nm$float32)) 1e-5 else 1e-10
  same <- identical(dim(mine), dim(theirs)) && !anyNA(theirs) &&
    isTRUE(all(abs(mine - theirs) <= tol * pmax(1, abs(theirs))))
  if (!same) return(fail("its predictions differ from the predict function's (another scale or other outputs)."))
  ctx$native <- list(model = nm, X = X, feature = match(names(ctx$data), nm$features))
  ctx$engine <- "native"
  invisible(ctx)
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
