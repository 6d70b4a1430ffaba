# Local dependence: eq. (18.5) with Gaussian kernel weights (method
# "kernel"), eq. (18.4) with Apley's intervals (method "interval"), and
# indicator weights for categorical variables.

# Rows usable for a variable's neighbourhoods: those where it is observed,
# or all rows of a categorical variable whose missing values are a level.
# All rows are a compact sequence (seq_along() holds no memory), and
# at_rows() then takes vectors whole instead of copying them.
observed_rows <- function(ctx, j) {
  col <- ctx$data[[j]]
  if (!anyNA(col) || (isTRUE(ctx$na_level) && column_kind(col) == "categorical")) return(seq_along(col))
  which(!is.na(col))
}

# x[rows] for increasing distinct rows, without a copy when they are all of
# them.
at_rows <- function(x, rows) if (length(rows) == length(x)) x else x[rows]

# Predictions at the background rows `rows` (increasing, distinct): a
# length(rows) x outputs matrix. All rows: fitted_values(), kept for the
# call. Fewer (those where the profiled variable is observed): only they are
# predicted, so that a model that cannot predict a missing value is not
# asked to, unless all rows were predicted already.
fitted_at <- function(ctx, rows) {
  if (length(rows) == length(ctx$ids)) return(fitted_values(ctx))
  if (!is.null(ctx$fitted)) return(ctx$fitted[rows, , drop = FALSE])
  predict_rows(ctx, rows)
}

# The weighted mean prediction over the background rows `rows`, one per
# output: the AL profile of a variable is shifted by the mean over the rows
# it uses (all of them, mean_prediction(), unless the variable has missing
# values).
mean_prediction_at <- function(ctx, rows) {
  if (length(rows) == length(ctx$ids)) return(mean_prediction(ctx))
  w <- ctx$weights[rows]
  colSums(w * fitted_at(ctx, rows)) / sum(w)
}

# Kernel-weighted sums over the ICE table of variable j on `grid` (of the
# predictions, or with lag = TRUE of their consecutive grid differences),
# accumulated chunk by chunk: numerators G x outputs, denominators G.
kernel_table <- function(ctx, j, grid, bandwidth, lag, keep_ice) {
  rows <- observed_rows(ctx, j)
  x <- as.double(at_rows(ctx$data[[j]], rows))
  w <- at_rows(ctx$weights, rows)
  C <- n_outputs(ctx)
  dmin2 <- cpp_nearest_sq(grid, sort(x), ctx$threads)
  num <- matrix(0, length(grid), C)
  den <- numeric(length(grid))
  prev <- NULL
  consume <- function(pos, y, g) {
    if (is.null(g)) {
      for (c in seq_len(C)) {
        s <- cpp_kernel_sums(y, grid, x[pos], w[pos], dmin2, bandwidth, lag,
                             ctx$threads, c - 1L)
        num[, c] <<- num[, c] + s$num
      }
      den <<- den + s$den
      return(invisible())
    }
    # One grid value at a time: with lag, the difference to the previous one.
    v <- if (lag) y - prev else y
    prev <<- y
    if (lag && g == 1L) return(invisible())
    for (c in seq_len(C)) {
      s <- cpp_kernel_sums(v, grid[g], x[pos], w[pos], dmin2[g], bandwidth, FALSE,
                           ctx$threads, c - 1L)
      num[g, c] <<- num[g, c] + s$num
    }
    den[g] <<- den[g] + s$den
  }
  task_then(ice_table(ctx, j, grid, rows, consume, keep_ice), function(ice) {
    list(num = num, den = den, ice = ice, rows = rows, x = x, w = w, dmin2 = dmin2)
  })
}

profile_local_kernel <- function(ctx, j, grid, bandwidth, keep_ice) {
  task_then(kernel_table(ctx, j, grid, bandwidth, FALSE, keep_ice), function(k) {
    yhat <- k$num / k$den
    # (The nearest rows weigh 1, so the denominator is positive; a grid
    # point whose denominator is not would be NA, as documented, never NaN.)
    no_support <- sqrt(k$dmin2) > 3 * bandwidth | !(k$den > 0)
    yhat[no_support, ] <- NA_real_
    list(x = grid, yhat = yhat, ice = k$ice, ice_rows = k$rows, no_support = no_support)
  })
}

profile_local_interval <- function(ctx, j, grid, intervals) {
  rows <- observed_rows(ctx, j)
  col <- ctx$data[[j]]
  x <- as.double(at_rows(col, rows))
  w <- at_rows(ctx$weights, rows)
  edges <- al_edges(x, intervals, w)
  K <- length(edges) - 1L
  kx <- cpp_interval_index(x, edges, ctx$threads)
  kz <- cpp_interval_index(as.double(grid), edges, ctx$threads)
  members <- split(seq_along(x), factor(kx, levels = seq_len(K)))
  supported <- which(!is.na(kz))
  sizes <- lengths(members)[kz[supported]]
  yhat <- matrix(NA_real_, length(grid), n_outputs(ctx))
  # Chunks of grid points, each predicting only the rows in its interval.
  groups <- unname(split(seq_along(supported), cumsum_chunks(sizes, ctx$chunk_rows)))
  chunk_task(length(groups), function(k) {
    g <- supported[groups[[k]]]
    mem <- members[kz[g]]
    pos <- unlist(mem, use.names = FALSE)
    list(list(src = rows[pos] - 1L, js = j, vals = list(column_values(col, rep(grid[g], lengths(mem))))))
  }, function(k, ys) {
    g <- supported[groups[[k]]]
    mem <- members[kz[g]]
    pos <- unlist(mem, use.names = FALSE)
    y <- ys[[1L]]
    off <- c(0L, cumsum(lengths(mem)))
    for (c in seq_len(ncol(y))) {
      s <- cpp_group_sums(y, w[pos], as.integer(off), ctx$threads, c - 1L)
      yhat[g, c] <<- s$sum / s$wsum
    }
  }, function() list(x = grid, yhat = yhat, intervals = K, no_support = is.na(kz)))
}

# Categorical variables: the weighted mean prediction of the rows at each
# level (x_i^{j=z} is the row itself when x_i^j = z).
profile_local_levels <- function(ctx, j, grid) {
  rows <- observed_rows(ctx, j)
  fitted <- fitted_at(ctx, rows)
  w <- ctx$weights[rows]
  lev <- match(as.character(ctx$data[[j]][rows]), as.character(grid))
  # Rows at levels outside a user's grid are not used.
  ord <- order(lev)[seq_len(sum(!is.na(lev)))]
  counts <- tabulate(lev, length(grid))
  off <- as.integer(c(0L, cumsum(counts)))
  yhat <- matrix(NA_real_, length(grid), ncol(fitted))
  for (c in seq_len(ncol(fitted))) {
    s <- cpp_group_sums(fitted[ord, c], w[ord], off, ctx$threads, 0L)
    yhat[, c] <- s$sum / s$wsum
  }
  yhat[counts == 0, ] <- NA_real_
  list(x = grid, yhat = yhat, no_support = counts == 0)
}

# Group consecutive sizes into chunks whose total stays within `budget`
# (a single oversized item gets a chunk of its own).
cumsum_chunks <- function(sizes, budget) {
  id <- integer(length(sizes))
  cur <- 1L
  acc <- 0
  for (i in seq_along(sizes)) {
    if (acc > 0 && acc + sizes[i] > budget) {
      cur <- cur + 1L
      acc <- 0
    }
    acc <- acc + sizes[i]
    id[i] <- cur
  }
  id
}
