# Accumulated-local profiles: eq. (18.8) with Apley's intervals (method
# "interval", equal to ALEPlot) and the kernel-smoothed eq. (18.9).

profile_accumulated_interval <- function(ctx, j, intervals) {
  rows <- observed_rows(ctx, j)
  col <- ctx$data[[j]]
  x <- as.double(col[rows])
  w <- ctx$weights[rows]
  edges <- al_edges(x, intervals, w)
  K <- length(edges) - 1L
  k <- cpp_interval_index(x, edges, ctx$threads)
  lower <- column_values(col, edges[k])
  upper <- column_values(col, edges[k + 1L])
  C <- n_outputs(ctx)
  dy <- matrix(0, length(x), C)
  # Two predictions per row: at the lower and the upper edge of its interval;
  # in one predict() call of stacked rows (fewer calls, as for the ICE tables
  # in observation order), or in two calls over the rows themselves, whose
  # other columns are then shared, not copied.
  stack <- row_order(ctx, length(rows)) == "observation"
  for (chunk in row_chunks(length(rows), ctx$chunk_rows / 2)) {
    m <- length(chunk)
    if (stack) {
      src <- rows[chunk] - 1L
      y <- predict_stacked(ctx, c(src, src), j, list(c(lower[chunk], upper[chunk])))
      dy[chunk, ] <- y[m + seq_len(m), ] - y[seq_len(m), ]
    } else {
      src <- source_rows(ctx, rows[chunk])
      dy[chunk, ] <- predict_stacked(ctx, src, j, list(upper[chunk])) -
        predict_stacked(ctx, src, j, list(lower[chunk]))
    }
  }
  mp <- mean_prediction(ctx)
  yhat <- matrix(0, K + 1L, C)
  for (c in seq_len(C)) {
    s <- cpp_interval_sums(dy, k, w, K, c - 1L)
    yhat[, c] <- cpp_accumulate_center(s$sum / s$wsum, s$wsum) + mp[c]
  }
  list(x = edges, yhat = yhat, intervals = K)
}

profile_accumulated_kernel <- function(ctx, j, grid_points, bandwidth, keep_ice) {
  x <- as.double(ctx$data[[j]][observed_rows(ctx, j)])
  z <- seq(min(x), max(x), length.out = grid_points)
  k <- kernel_table(ctx, j, z, bandwidth, TRUE, keep_ice)
  mp <- mean_prediction(ctx)
  yhat <- matrix(0, length(z), ncol(k$num))
  for (c in seq_len(ncol(k$num))) {
    g <- cumsum(c(0, k$num[-1L, c] / k$den[-1L]))
    centre <- sum(k$w * stats::approx(z, g, k$x)$y) / sum(k$w)
    yhat[, c] <- g - centre + mp[c]
  }
  list(x = z, yhat = yhat, ice = k$ice, ice_rows = k$rows)
}
