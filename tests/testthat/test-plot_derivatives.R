# Derivative ICE curves (R/plot_derivatives.R): the slope operator is the
# least-squares slope over the window; slopes of a linear model are its
# coefficient.

test_that("slope_operator(): least-squares slopes over the window, exact for lines", {
  x <- sort(c(0, 0.3, 1, 1.7, 2, 3.5, 4, 5.2, 6, 7))
  A <- slope_operator(x)
  expect_equal(dim(A), c(10L, 10L))
  expect_equal(as.vector(A %*% (3 * x + 2)), rep(3, 10), tolerance = 1e-12)
  y <- sin(x)
  h <- max(1L, round(0.05 * length(x)))
  for (j in seq_along(x)) {
    w <- max(1L, j - h):min(length(x), j + h)
    expect_equal(sum(A[j, ] * y), unname(coef(lm(y[w] ~ x[w]))[2]), tolerance = 1e-12)
  }
})

test_that("d-ICE plot of a linear model: every slope is the coefficient", {
  skip_if_not_installed("ggplot2")
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  pd <- model_profile(fit, mtcars[c("wt", "hp")], variables = "wt", N = NULL)
  p <- plot(pd, geom = "derivatives")
  d <- do.call(rbind, lapply(seq_along(p$layers), function(i) {
    l <- ggplot2::layer_data(p, i)
    if ("y" %in% names(l)) l[c("x", "y")]
  }))
  expect_true(nrow(d) > 0)
  expect_true(any(abs(d$y - coef(fit)[["wt"]]) < 1e-8))
})
