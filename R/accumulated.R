# Accumulated-local profiles: eq. (18.8) with Apley's intervals (method
# "interval", equal to ALEPlot) and the kernel-smoothed eq. (18.9).

profile_accumulated_interval <- function(ctx, j, intervals) {
  rows <- observed_rows(ctx, j)
  col <- ctx$data[[j]]
  x <- as.double(col[rows])
  w <- ctx$weights[rows]
  edges <- al_edges(x, intervals)
  K <- length(edges) - 1L
  k <- cpp_interval_index(x, edges, ctx$threads)
  lower <- column_values(col, edges[k])
  upper <- column_values(col, edges[k + 1L])
  dy <- numeric(length(x))
  # Two predictions per row: at the lower and the upper edge of its interval.
  for (chunk in row_chunks(length(rows), ctx$chunk_rows)) {
    src <- source_rows(ctx, rows[chunk])
    y_lo <- predict_stacked(ctx, src, j, list(lower[chunk]))
    y_hi <- predict_stacked(ctx, src, j, list(upper[chunk]))
    dy[chunk] <- y_hi - y_lo
  }
  counts <- tabulate(k, K)
  s <- cpp_interval_sums(dy, k, w, K)
  delta <- s$sum / s$wsum
  f <- cpp_accumulate_center(delta, s$wsum)
  list(x = edges, yhat = f + mean_prediction(ctx), edges = edges, intervals = K,
       effects = delta, counts = counts)
}

profile_accumulated_kernel <- function(ctx, j, grid_points, bandwidth, keep_ice) {
  x <- as.double(ctx$data[[j]][observed_rows(ctx, j)])
  z <- seq(min(x), max(x), length.out = grid_points)
  k <- kernel_table(ctx, j, z, bandwidth, TRUE, keep_ice)
  g <- cumsum(c(0, k$num[-1L] / k$den[-1L]))
  centre <- sum(k$w * stats::approx(z, g, k$x)$y) / sum(k$w)
  list(x = z, yhat = g - centre + mean_prediction(ctx), ice = k$ice, ice_rows = k$rows)
}
