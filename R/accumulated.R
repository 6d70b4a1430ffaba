# Accumulated-local profiles: eq. (18.8) with Apley's intervals (method
# "interval", equal to ALEPlot) and the kernel-smoothed eq. (18.9).

profile_accumulated_interval <- function(ctx, j, intervals, edges = NULL, call = NULL) {
  rows <- observed_rows(ctx, j)
  # The rows of the profile's shift: those where the variable is observed
  # (also when the user's edges leave some of them out).
  observed <- rows
  col <- ctx$data[[j]]
  x <- as.double(at_rows(col, rows))
  w <- at_rows(ctx$weights, rows)
  if (is.null(edges)) {
    edges <- al_edges(x, intervals, w)
  } else {
    # The user's edges: rows outside them are left out.
    edges <- sort(unique(as.double(edges)))
    if (length(edges) < 2L) cli::cli_abort("Interval AL needs at least two edges.", call = call)
    inside <- x >= edges[1L] & x <= edges[length(edges)]
    if (!all(inside)) {
      cli::cli_warn("{sum(!inside)} background row{?s} outside the edges [{format(edges[1L])}, {format(edges[length(edges)])}] {?is/are} left out of the AL profile of {.field {names(ctx$data)[j]}}.", call = call)
      rows <- rows[inside]
      x <- x[inside]
      w <- w[inside]
    }
  }
  K <- length(edges) - 1L
  k <- cpp_interval_index(x, edges, ctx$threads)
  if (any(tabulate(k, K) == 0)) {
    cli::cli_abort("Interval AL needs rows in every interval; {sum(tabulate(k, K) == 0)} of the given intervals of {.field {names(ctx$data)[j]}} {?is/are} empty.", call = call)
  }
  # A row's edge values are patterns of the edges, by index: nothing of the
  # rows' size beyond x, k and the differences is held.
  edge_values <- column_values(col, edges)
  C <- n_outputs(ctx)
  dy <- matrix(0, length(x), C)
  # Two predictions per row: at the lower and the upper edge of its interval;
  # in one predict() call of stacked rows (fewer calls, as for the ICE tables
  # in observation order), or in two calls over the rows themselves, whose
  # other columns are then shared, not copied.
  stack <- row_order(ctx, length(rows)) == "observation"
  chunks <- row_chunks(length(rows), ctx$chunk_rows / 2)
  chunk_task(length(chunks), function(q) {
    chunk <- chunks[[q]]
    if (stack) {
      list(list(src = pattern(rows[chunk] - 1L, times = 2L), js = j,
                vals = list(pattern(edge_values, index = c(k[chunk], k[chunk] + 1L)))))
    } else {
      src <- source_rows(ctx, rows[chunk])
      list(list(src = src, js = j, vals = list(pattern(edge_values, index = k[chunk] + 1L))),
           list(src = src, js = j, vals = list(pattern(edge_values, index = k[chunk]))))
    }
  }, function(q, ys) {
    chunk <- chunks[[q]]
    m <- length(chunk)
    dy[chunk, ] <<- if (stack) {
      ys[[1L]][m + seq_len(m), ] - ys[[1L]][seq_len(m), ]
    } else {
      ys[[1L]] - ys[[2L]]
    }
  }, function() {
    mp <- mean_prediction_at(ctx, observed)
    yhat <- matrix(0, K + 1L, C)
    for (c in seq_len(C)) {
      s <- cpp_interval_sums(dy, k, w, K, c - 1L)
      yhat[, c] <- cpp_accumulate_center(s$sum / s$wsum, s$wsum) + mp[c]
    }
    list(x = edge_values, yhat = yhat, intervals = K)
  })
}

profile_accumulated_kernel <- function(ctx, j, grid_points, bandwidth, keep_ice) {
  col <- ctx$data[[j]]
  rows <- observed_rows(ctx, j)
  x <- as.double(at_rows(col, rows))
  # An even grid on the column's numeric scale (of whole numbers for integer
  # and Date columns), reported on its own scale.
  z <- seq(min(x), max(x), length.out = grid_points)
  if (whole_scale(col)) z <- unique(round(z))
  task_then(kernel_table(ctx, j, z, bandwidth, TRUE, keep_ice), function(k) {
    mp <- mean_prediction_at(ctx, rows)
    yhat <- matrix(0, length(z), ncol(k$num))
    for (c in seq_len(ncol(k$num))) {
      g <- cumsum(c(0, k$num[-1L, c] / k$den[-1L]))
      centre <- sum(k$w * stats::approx(z, g, k$x)$y) / sum(k$w)
      yhat[, c] <- g - centre + mp[c]
    }
    list(x = column_values(col, z), yhat = yhat, ice = k$ice, ice_rows = k$rows)
  })
}

# Categorical variables (Apley and Zhu, 2020, section 5.2; ALEPlot's
# algorithm): the levels in an order (`levels`), each row's prediction
# difference to the next level up and from the next level down, pooled per
# pair of adjacent levels, accumulated, and centred with the levels'
# (weighted) frequencies.
profile_accumulated_levels <- function(ctx, j, levels) {
  rows <- observed_rows(ctx, j)
  col <- ctx$data[[j]]
  w <- ctx$weights[rows]
  K <- length(levels)
  o <- match(as.character(col[rows]), levels)
  fitted <- fitted_at(ctx, rows)
  up <- which(o < K)
  down <- which(o > 1L)
  # Pair t joins levels t and t + 1: rows at level t moved up, rows at level
  # t + 1 moved down.
  pos <- c(up, down)
  pair <- c(o[up], o[down] - 1L)
  to <- c(o[up] + 1L, o[down] - 1L)
  sign <- rep(c(1, -1), c(length(up), length(down)))
  d <- matrix(0, length(pos), n_outputs(ctx))
  chunks <- row_chunks(length(pos), ctx$chunk_rows)
  chunk_task(length(chunks), function(k) {
    chunk <- chunks[[k]]
    list(list(src = rows[pos[chunk]] - 1L, js = j, vals = list(column_values(col, levels[to[chunk]]))))
  }, function(k, ys) {
    chunk <- chunks[[k]]
    d[chunk, ] <<- sign[chunk] * (ys[[1L]] - fitted[pos[chunk], , drop = FALSE])
  }, function() {
    p <- as.vector(tapply(w, factor(o, levels = seq_len(K)), sum, default = 0))
    mp <- mean_prediction_at(ctx, rows)
    yhat <- matrix(0, K, ncol(d))
    for (c in seq_len(ncol(d))) {
      s <- cpp_interval_sums(d, pair, w[pos], K - 1L, c - 1L)
      f <- c(0, cumsum(s$sum / s$wsum))
      yhat[, c] <- f - sum(f * p) / sum(p) + mp[c]
    }
    list(x = levels, yhat = yhat)
  })
}

# The order of the levels of a categorical variable for AL profiles.
# Unordered factors, characters: ALEPlot's order, by the first coordinate of
# a classical multidimensional scaling (cmdscale) of the distances between
# the levels summed over the other columns: for a numeric column the
# Kolmogorov-Smirnov distance between the levels' distributions of it
# (compared at 100 quantiles of the column), for a categorical one the total
# variation distance between them. Ordered factors, logicals and
# `level_order = "levels"`: the levels' own order.
al_level_order <- function(ctx, j, level_order) {
  rows <- observed_rows(ctx, j)
  col <- ctx$data[[j]]
  lev <- if (is.factor(col)) levels(col) else sort(unique(as.character(col)))
  lev <- lev[lev %in% as.character(col[rows])]
  if (anyNA(col[rows])) lev <- c(lev, NA) # missing values as a level
  if (level_order == "levels" || is.ordered(col) || is.logical(col) || length(lev) < 3L) {
    return(lev)
  }
  w <- ctx$weights[rows]
  g <- factor(as.character(col[rows]), levels = lev, exclude = NULL)
  K <- length(lev)
  D <- matrix(0, K, K)
  for (k in setdiff(seq_along(ctx$data), j)) {
    other <- ctx$data[[k]][rows]
    D <- D + if (column_kind(other) == "numeric") {
      ks_distances(as.double(other), g, w)
    } else {
      tv_distances(as.character(other), g, w)
    }
  }
  lev[order(stats::cmdscale(D, k = 1)[, 1])]
}

# Kolmogorov-Smirnov distances between the groups' (weighted) distributions
# of x, evaluated at 100 type-7 quantiles of x.
ks_distances <- function(x, g, w) {
  ok <- !is.na(x)
  x <- x[ok]
  g <- g[ok]
  w <- w[ok]
  q <- weighted_quantile7(x, w, seq(0, 1, length.out = 100))
  cdf <- vapply(split(seq_along(x), g), function(i) {
    if (!length(i)) return(rep(NA_real_, length(q)))
    o <- order(x[i])
    cw <- cumsum(w[i][o])
    cw <- c(0, cw / cw[length(cw)])
    cw[findInterval(q, x[i][o]) + 1L]
  }, numeric(length(q)))
  D <- outer(seq_len(ncol(cdf)), seq_len(ncol(cdf)), Vectorize(function(a, b) max(abs(cdf[, a] - cdf[, b]))))
  D[is.na(D)] <- 0
  D
}

# Total variation distances between the groups' (weighted) distributions of
# a categorical x.
tv_distances <- function(x, g, w) {
  ok <- !is.na(x)
  tab <- tapply(w[ok], list(g[ok], factor(x[ok])), sum, default = 0)
  tab <- tab / rowSums(tab)
  D <- as.matrix(stats::dist(tab, method = "manhattan")) / 2
  D[is.na(D)] <- 0
  unname(D)
}
