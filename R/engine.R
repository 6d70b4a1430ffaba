# Chunked prediction of stacked rows under a memory budget.
#
# A "context" holds the background rows, the prediction function and the
# settings that every estimator shares. Stacked rows are built in C++
# (cpp_stack_frame) a chunk at a time and predicted on the main R thread, so
# an n x grid table that would not fit in memory is never materialised.

new_context <- function(model, predict_function, background, ids, weights,
                        threads, memory_budget, class = NULL, call = NULL,
                        engine = "predict", linear = FALSE, adapter = model_adapter(model)) {
  bytes <- vapply(background, column_bytes, numeric(1))
  per_row <- adapter_row_bytes(adapter, bytes)
  # A chunk takes a third of the budget: the rest is for what R has not yet
  # collected of the chunks before (it collects when its heap has grown by a
  # fraction of itself, large with the data in it) and for the vectors of
  # the background's length that a profile holds.
  chunk_rows <- min(.Machine$integer.max, max(1, floor(memory_budget / 3 * 2^20 / per_row)))
  ctx <- new.env(parent = emptyenv())
  ctx$model <- model
  ctx$adapter <- adapter
  ctx$predict_function <- predict_function
  ctx$data <- background
  ctx$ids <- ids
  ctx$weights <- weights
  ctx$threads <- threads
  ctx$memory_budget <- memory_budget
  ctx$n_predictions <- 0
  ctx$workers <- plan_workers()
  # Under a plan, the futures in the order they were collected (see
  # run_tasks()).
  ctx$collected <- integer()
  ctx$progress <- NULL
  ctx$mean_prediction <- NULL
  ctx$call <- call
  ctx$outputs <- list(columns = NULL)
  ctx$engine <- "predict"
  # The native and linear engines stand in for the adapter's own predict
  # function only: a function the user wrote is the model.
  own <- is_default_predictor(predict_function)
  if (engine == "native" && !own) {
    cli::cli_abort(c(
      "The native engine stands in for the model's own predict function only, not for {.arg predict_function}.",
      i = "Leave out {.arg predict_function}, or use {.code engine = \"predict\"}."
    ), call = call)
  }
  if (own && engine != "predict") {
    ctx$linear <- if (linear) linear_prepare(ctx)
    if (is.null(ctx$linear)) ctx$native <- native_prepare(ctx, engine, call)
    if (!is.null(ctx$linear) || !is.null(ctx$native)) ctx$engine <- "native"
  }
  # Which outputs (classes) to profile, from the predictions of two probe
  # rows (not counted in n_predictions; only their shape is used).
  # Rows without missing values where there are such (a model's predict()
  # may refuse them; the profiles decide what to do with those rows).
  first <- seq_len(min(length(ids), 1000L))
  complete <- which(do.call(stats::complete.cases, unname(lapply(background, `[`, first))))
  probe <- if (length(complete)) utils::head(complete, 2L) - 1L else seq_len(min(length(ids), 2L)) - 1L
  y <- if (!is.null(ctx$native)) {
    native_eval(ctx$native$model, ctx$native$X, probe + 1L)
  } else {
    probe_predict(predict_function, model, cpp_stack_frame(background, probe, integer(), list(), threads), call)
  }
  y <- check_predictions(y, length(probe), call = call, allow_na = TRUE,
                         classifier = identical(adapter$task, "classification"))
  ctx$n_columns <- ncol(y)
  ctx$outputs <- select_outputs(y, class, call, adapter$positive)
  # Through predict(), a chunk holds at most max_chunk_rows stacked rows,
  # however large the budget (a model's predict() is no faster per row on
  # larger chunks; see inst/bench/results/bench-parallel.txt). Under a
  # plan, a future carries the rows of 4 budget-sized chunks (at most 64),
  # so a larger budget still means fewer round trips.
  ctx$chunk_rows <- if (identical(ctx$engine, "predict")) min(chunk_rows, max_chunk_rows) else chunk_rows
  ctx$per_future <- min(64L, as.integer(4 * chunk_rows %/% ctx$chunk_rows))
  ctx
}

# The first call of the predict function, on a couple of background rows:
# its error is the user's first sight of a model that does not fit the data
# (a column it needs is missing, a type it cannot read), so it says so.
probe_predict <- function(predict_function, model, newdata, call) {
  tryCatch(predict_function(model, newdata), error = function(e) {
    cli::cli_abort(c(
      "The predict function failed on rows of {.arg data}.",
      x = conditionMessage(e),
      i = "Does {.arg data} hold every column the model uses, with the types it was fitted on?"
    ), call = call)
  })
}

# Stacked rows of a chunk through predict() (see new_context()).
max_chunk_rows <- 65536

# Number of outputs profiled (classes of a multiclass model; else 1).
n_outputs <- function(ctx) length(ctx$outputs$columns)

column_bytes <- function(x) {
  switch(typeof(x), double = 8, integer = 4, logical = 4, character = 8, 8)
}

# Predict one stacked data frame and check the result: a matrix with one
# column per profiled output.
predict_frame <- function(ctx, newdata) {
  check_chunk(ctx, ctx$predict_function(ctx$model, newdata), nrow(newdata))
}

# Check the predictions of n stacked rows (made here or on a worker) and
# select the profiled outputs.
check_chunk <- function(ctx, y, n) {
  y <- withCallingHandlers(
    check_predictions(y, n, call = ctx$call, classifier = identical(ctx$adapter$task, "classification")),
    modelprofiles_missing_predictions = function(e) nonfinite_columns(ctx, e)
  )
  if (ncol(y) != ctx$n_columns) {
    cli::cli_abort("The predict function returned {ncol(y)} column{?s}, and {ctx$n_columns} before.", call = ctx$call)
  }
  cols <- ctx$outputs$columns
  if (ncol(y) > 1L) y <- y[, cols, drop = FALSE]
  ctx$n_predictions <- ctx$n_predictions + n
  y
}

# Missing predictions, when the background has missing or infinite values
# in some columns: an error that names those columns (the likely cause).
nonfinite_columns <- function(ctx, e) {
  bad <- vapply(ctx$data, function(col) is.numeric(col) && !all(is.finite(col)), logical(1))
  if (!any(bad)) return(invisible())
  counts <- vapply(ctx$data[bad], function(col) sum(!is.finite(col)), numeric(1))
  cli::cli_abort(c(
    conditionMessage(e),
    i = "The background rows have missing or infinite values in {.field {names(ctx$data)[bad]}} ({counts} row{?s}), which the model may not predict."
  ), call = ctx$call)
}

# Stack rows (0-based source rows `src`, or NULL for all background rows in
# order, sharing their columns) with the profiled columns `js` set to `vals`,
# and predict them.
predict_stacked <- function(ctx, src, js, vals) {
  if (!is.null(ctx$native)) return(native_predict_stacked(ctx, src, js, vals))
  nd <- cpp_stack_frame(ctx$data, src, as.integer(js) - 1L, vals, ctx$threads)
  predict_frame(ctx, nd)
}

# 0-based source rows for background rows `rows`, or NULL when they are all
# the background rows in order (then no column needs copying).
source_rows <- function(ctx, rows) {
  if (length(rows) == length(ctx$ids)) NULL else rows - 1L
}

# The weighted mean prediction over the background rows, one per output
# (computed once per call).
mean_prediction <- function(ctx) {
  if (is.null(ctx$mean_prediction)) {
    fitted <- fitted_values(ctx)
    ctx$mean_prediction <- colSums(ctx$weights * fitted) / sum(ctx$weights)
  }
  ctx$mean_prediction
}

# Predictions at the background rows themselves: an n x outputs matrix.
fitted_values <- function(ctx) {
  if (is.null(ctx$fitted)) ctx$fitted <- predict_rows(ctx, seq_along(ctx$ids))
  ctx$fitted
}

# Predictions at background rows `rows` (increasing, distinct), chunk by
# chunk: a length(rows) x outputs matrix.
predict_rows <- function(ctx, rows) {
  out <- matrix(0, length(rows), n_outputs(ctx))
  chunks <- row_chunks(length(rows), ctx$chunk_rows)
  predict_chunks(
    ctx, length(chunks),
    function(k) list(list(src = source_rows(ctx, rows[chunks[[k]]]), js = integer(), vals = list())),
    function(k, ys) out[chunks[[k]], ] <<- ys[[1L]],
    weight = 0
  )
  out
}

# Split 1..n into consecutive chunks of at most `size`.
row_chunks <- function(n, size) {
  # As few chunks as the size allows, of equal sizes (to a row), so that
  # chunks predicted in parallel take equally long.
  # In doubles: n * k overflows an integer from n = 46,341 rows on. A size
  # of at least n (Inf, from an unbounded budget) is one chunk.
  n <- as.double(n)
  if (n < 1) return(list())
  size <- if (is.na(size) || size >= n) n else max(1, floor(size))
  k <- ceiling(n / size)
  # floor(i * n / k) exactly: i * q + floor(i * r / k) (n = q k + r, and
  # i r < k^2 is exact in doubles for any k below 9.4e7).
  i <- seq_len(k)
  q <- floor(n / k)
  ends <- i * q + floor(i * (n - q * k) / k)
  ends[k] <- n
  starts <- c(1, ends[-k] + 1)
  lapply(seq_len(k), function(i) seq.int(starts[i], ends[i]))
}

# The function that gives ICE curves of column j without stacking rows
# (native_ice() or linear_ice(), both (ctx, j, grid, rows)), or NULL when
# the rows are stacked and predicted.
direct_ice <- function(ctx, j) {
  if (!is.null(ctx$native)) return(native_ice)
  if (!is.null(ctx$linear) && names(ctx$data)[j] %in% ctx$linear$variables) return(linear_ice)
  NULL
}

# Order of the rows to predict for ICE tables. "observation": each background
# row repeated over the grid consecutively, stacked into chunks (fewest
# predict() calls; tree ensembles predict such rows faster, as neighbouring
# rows follow the same paths). "grid": one predict() call per grid value over
# a block of background rows whose other columns are shared, not copied (no
# stacking at all; best when the background has many rows and the model is
# cheap). "auto": observation order for tree ensembles and for fewer than
# 2,000 background rows, grid order otherwise. Option
# `modelprofiles.row_order` overrides.
row_order <- function(ctx, n) {
  if (!is.null(ctx$native) || !is.null(ctx$linear)) return("observation")
  opt <- getOption("modelprofiles.row_order", "auto")
  if (!identical(opt, "auto")) return(match.arg(opt, c("observation", "grid")))
  if (ctx$adapter$tree || n < 2000) "observation" else "grid"
}

# The ICE table of one variable: predictions for every background row at every
# grid value, as a G x n x outputs array (grid fastest). `rows` are the
# background rows to use (indices into ctx$data); `consume(pos, y, g)`
# receives the positions (into `rows`) of each chunk and its predictions, a
# matrix with one column per output: of G x length(pos) rows, grid fastest
# (g = NULL, observation order), or of the rows at grid value g alone (grid
# order); the full table is the task's result only when keep = TRUE.
ice_table <- function(ctx, j, grid, rows, consume, keep) {
  n <- length(rows)
  G <- length(grid)
  col <- ctx$data[[j]]
  table <- if (keep) array(0, c(G, n, n_outputs(ctx))) else NULL
  if (row_order(ctx, n) == "grid") {
    # Blocks of rows: one block per predict() call, and the block's G x nb
    # table within a quarter of the budget.
    block <- min(ctx$chunk_rows, ctx$memory_budget * 2^20 / 4 / (8 * G))
    blocks <- row_chunks(n, block)
    if (ctx$workers <= 1L) {
      # Here, each grid value's predictions are consumed at once (holding a
      # block's G of them, as a job does, looked about 6% slower, within
      # this machine's timing noise; the shared path was not kept for it).
      for (pos in blocks) {
        src <- source_rows(ctx, rows[pos])
        base <- if (is.null(src)) ctx$data else unclass_frame(cpp_stack_frame(ctx$data, src, integer(), list(), ctx$threads))
        for (g in seq_len(G)) {
          vals <- column_values(col, rep(grid[g], length(pos)))
          y <- predict_frame(ctx, cpp_stack_frame(base, NULL, j - 1L, list(vals), ctx$threads))
          consume(pos, y, g)
          if (keep) table[g, pos, ] <- y
        }
        tick(ctx, length(pos) / n)
      }
      return(as_task(table))
    }
    # A job per block: its rows at each grid value, stacked once on the worker.
    return(chunk_task(length(blocks), function(b) {
      pos <- blocks[[b]]
      src <- source_rows(ctx, rows[pos])
      lapply(seq_len(G), function(g) {
        list(src = src, js = j, vals = list(pattern(column_values(col, grid[g]), times = length(pos))))
      })
    }, function(b, ys) {
      pos <- blocks[[b]]
      for (g in seq_len(G)) {
        consume(pos, ys[[g]], g)
        if (keep) table[g, pos, ] <<- ys[[g]]
      }
    }, function() table))
  }
  chunks <- row_chunks(n, max(1, floor(ctx$chunk_rows / G)))
  take <- function(k, y) {
    pos <- chunks[[k]]
    consume(pos, y, NULL)
    if (keep) table[, pos, ] <<- y
  }
  # The native and linear engines: a row's whole curve at once, here.
  direct <- direct_ice(ctx, j)
  if (!is.null(direct)) {
    for (k in seq_along(chunks)) {
      take(k, direct(ctx, j, grid, rows[chunks[[k]]]))
      tick(ctx, 1 / length(chunks))
    }
    return(as_task(table))
  }
  chunk_task(length(chunks), function(k) {
    pos <- chunks[[k]]
    list(list(src = pattern(rows[pos] - 1L, each = G), js = j,
              vals = list(pattern(column_values(col, grid), times = length(pos)))))
  }, function(k, ys) take(k, ys[[1L]]), function() table)
}
