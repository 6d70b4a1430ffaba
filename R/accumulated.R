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
  rows <- observed_rows(ctx, j)
  x <- as.double(ctx$data[[j]][rows])
  w <- ctx$weights[rows]
  z <- seq(min(x), max(x), length.out = grid_points)
  G <- length(z)
  dmin2 <- cpp_nearest_sq(z, sort(x), ctx$threads)
  num <- den <- numeric(G)
  consume <- function(pos, y, grid_major) {
    s <- cpp_kernel_sums(y, z, x[pos], w[pos], dmin2, bandwidth, TRUE,
                         ctx$threads, grid_major)
    num <<- num + s$num
    den <<- den + s$den
  }
  ice <- ice_table(ctx, j, z, rows, consume, keep_ice)
  inc <- c(0, num[-1L] / den[-1L])
  g <- cumsum(inc)
  centre <- sum(w * stats::approx(z, g, x)$y) / sum(w)
  list(x = z, yhat = g - centre + mean_prediction(ctx), ice = ice, ice_rows = rows)
}
