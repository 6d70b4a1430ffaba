# The slopes behind hidden_interactions() (R/hidden_interactions_slopes.R):
# each row's slope between the grid's ends, from a table of curves or from
# the linear engine's intercepts and slopes, against plain R.

test_that("grid_ends(): the smallest and largest grid value, else first and last", {
  expect_equal(grid_ends(c(3, 1, 5, 2)), c(2L, 3L))
  expect_equal(grid_ends(factor(c("b", "a", "c"))), c(1L, 3L))
})

test_that("row_slopes(): each row's rise between the ends of its curve", {
  G <- 3L
  curves <- rbind(c(1, 2, 4), c(0, 5, -1))  # two rows' curves at a grid of 3
  y <- matrix(as.vector(t(curves)), ncol = 1L)  # G consecutive values per row
  expect_equal(row_slopes(y, G, c(1L, 3L)), curves[, 3] - curves[, 1])
  expect_equal(row_slopes(y, G, c(2L, 3L)), curves[, 3] - curves[, 2])
})

test_that("slopes of a linear predict function are the coefficient times the grid's span", {
  set.seed(2)
  d <- data.frame(x = runif(120), z = runif(120), s = sample(c("a", "b"), 120, TRUE))
  f <- function(m, nd) 2 * nd$x - nd$z
  h <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                           grid_points = 3, variable_splits_type = "uniform")
  span <- diff(range(h$grids$x))
  sx <- h$slopes[h$slopes$variable == "x", ]
  expect_equal(sx$slope, rep(2 * span, nrow(sx)), tolerance = 1e-10)
  expect_false(any(h$summary$hidden))
})
