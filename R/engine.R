# Chunked prediction of stacked rows under a memory budget.
#
# A "context" holds the background rows, the prediction function and the
# settings that every estimator shares. Stacked rows are built in C++
# (cpp_stack_frame) a chunk at a time and predicted on the main R thread, so
# an n x grid table that would not fit in memory is never materialised.

new_context <- function(model, predict_function, background, ids, weights,
                        threads, memory_budget) {
  bytes <- vapply(background, column_bytes, numeric(1))
  # Bytes held per stacked row while a chunk is predicted: the stacked row,
  # its prediction, and a copy of the row made by a typical predict()
  # (model.matrix, data.matrix).
  per_row <- 2 * sum(bytes) + 16
  chunk_rows <- max(1, floor(memory_budget * 2^20 / per_row))
  ctx <- new.env(parent = emptyenv())
  ctx$model <- model
  ctx$predict_function <- predict_function
  ctx$data <- background
  ctx$ids <- ids
  ctx$weights <- weights
  ctx$threads <- threads
  ctx$memory_budget <- memory_budget
  ctx$chunk_rows <- chunk_rows
  ctx$n_predictions <- 0
  ctx$mean_prediction <- NULL
  ctx
}

column_bytes <- function(x) {
  switch(typeof(x), double = 8, integer = 4, logical = 4, character = 8, 8)
}

# Predict one stacked data frame and check the result.
predict_frame <- function(ctx, newdata) {
  y <- ctx$predict_function(ctx$model, newdata)
  y <- check_predictions(y, nrow(newdata), call = ctx$call)
  ctx$n_predictions <- ctx$n_predictions + length(y)
  y
}

# Stack rows (0-based source rows `src`, profiled columns `js` set to `vals`)
# and predict them.
predict_stacked <- function(ctx, src, js, vals) {
  nd <- cpp_stack_frame(ctx$data, src, js - 1L, vals, ctx$threads)
  predict_frame(ctx, nd)
}

# Predictions at the background rows themselves (computed once per call).
mean_prediction <- function(ctx) {
  if (is.null(ctx$mean_prediction)) {
    ctx$fitted <- fitted_values(ctx)
    ctx$mean_prediction <- sum(ctx$weights * ctx$fitted) / sum(ctx$weights)
  }
  ctx$mean_prediction
}

fitted_values <- function(ctx) {
  if (!is.null(ctx$fitted)) return(ctx$fitted)
  n <- length(ctx$ids)
  out <- numeric(n)
  for (rows in row_chunks(n, ctx$chunk_rows)) {
    out[rows] <- predict_stacked(ctx, rows - 1L, integer(), list())
  }
  ctx$fitted <- out
  out
}

# Split 1..n into consecutive chunks of at most `size`.
row_chunks <- function(n, size) {
  size <- max(1, floor(size))
  starts <- seq.int(1, n, by = size)
  lapply(starts, function(s) seq.int(s, min(n, s + size - 1)))
}

# The ICE table of one variable: predictions for every background row at every
# grid value, as a G x n matrix (grid fastest, observation-major order, which
# predicts faster than grid-major order for tree ensembles). `consume` is
# called on each chunk (rows, G x length(rows) matrix); the full table is
# returned only when keep = TRUE.
#
# `rows` are the background rows to use (indices into ctx$data); `consume`
# receives the positions (into `rows`) of each chunk and its predictions.
ice_table <- function(ctx, j, grid, rows, consume, keep) {
  n <- length(rows)
  G <- length(grid)
  col <- ctx$data[[j]]
  per_chunk <- max(1, floor(ctx$chunk_rows / G))
  table <- if (keep) matrix(0, G, n) else NULL
  for (pos in row_chunks(n, per_chunk)) {
    src <- rep(rows[pos] - 1L, each = G)
    vals <- column_values(col, rep(grid, times = length(pos)))
    y <- predict_stacked(ctx, src, j, list(vals))
    dim(y) <- c(G, length(pos))
    consume(pos, y)
    if (keep) table[, pos] <- y
  }
  table
}
