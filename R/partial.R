# Partial dependence (eq. 17.2): the weighted mean of the ICE curves, one
# column per output. Like every estimator of model_profile(), it returns a
# task (R/parallel.R) whose result is the profile.
profile_partial <- function(ctx, j, grid, keep_ice) {
  G <- length(grid)
  rows <- seq_along(ctx$ids)
  w <- ctx$weights
  C <- n_outputs(ctx)
  sums <- matrix(0, G, C)
  consume <- function(pos, y, g) {
    for (c in seq_len(C)) {
      if (is.null(g)) {
        sums[, c] <<- sums[, c] + cpp_grid_sums(y, G, w[pos], ctx$threads, c - 1L)
      } else {
        sums[g, c] <<- sums[g, c] + cpp_grid_sums(y, 1L, w[pos], ctx$threads, c - 1L)
      }
    }
  }
  task_then(ice_table(ctx, j, grid, rows, consume, keep_ice), function(ice) {
    list(x = grid, yhat = sums / sum(w), ice = ice, ice_rows = rows)
  })
}
