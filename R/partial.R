# Partial dependence (eq. 17.2): the weighted mean of the ICE curves.
profile_partial <- function(ctx, j, grid, keep_ice) {
  G <- length(grid)
  rows <- seq_along(ctx$ids)
  w <- ctx$weights
  sums <- numeric(G)
  consume <- function(pos, y, g) {
    if (is.null(g)) {
      sums <<- sums + cpp_grid_sums(y, G, w[pos], ctx$threads)
    } else {
      sums[g] <<- sums[g] + cpp_grid_sums(y, 1L, w[pos], ctx$threads)
    }
  }
  ice <- ice_table(ctx, j, grid, rows, consume, keep_ice)
  list(x = grid, yhat = sums / sum(w), ice = ice, ice_rows = rows)
}
