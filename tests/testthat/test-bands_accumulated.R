# Bands of AL profiles (R/bands_accumulated.R): the helpers against plain R.

test_that("group_influence(): w (d - mean of its group) / group weight", {
  d <- c(1, 3, 2, 6, 4)
  cell <- c(1L, 1L, 2L, 2L, 2L)
  w <- c(1, 1, 2, 1, 1)
  wsum <- tapply(w, cell, sum)
  means <- tapply(w * d, cell, sum) / wsum
  infl <- group_influence(d, cell, w, means, wsum)
  expect_equal(infl, w * (d - means[cell]) / wsum[cell], ignore_attr = TRUE)
  # Influences of a group sum to 0.
  expect_equal(as.vector(tapply(infl, cell, sum)), c(0, 0))
})

test_that("resample_means(): an empty group keeps the full sample's mean", {
  s <- list(sum = c(4, 10, 9), wsum = c(2, 5, 3))
  sb <- list(sum = c(6, 0, 3), wsum = c(2, 0, 1))
  expect_equal(resample_means(sb, s), c(3, 2, 3))
})

test_that("analytic interval AL bands of an lm are those of a plain-R delta method", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  al <- model_profile(fit, X, variables = "wt", type = "accumulated", N = NULL, bands = "analytic")
  a <- al$agr_profiles
  expect_true(all(c("_lower_", "_upper_") %in% names(a)))
  # A linear model: every local effect is the coefficient, exactly, so no
  # row's local effect moves the profile's shape: the band has one width
  # along the grid (the centring and the shift alone), and the profile is
  # the coefficient's line.
  half <- (a$`_upper_` - a$`_lower_`) / 2
  expect_true(all(half > 0))
  expect_equal(half, rep(half[1], length(half)), tolerance = 1e-10)
  expect_equal((a$`_upper_` + a$`_lower_`) / 2, a$`_yhat_`, tolerance = 1e-10)
  expect_equal(diff(a$`_yhat_`) / diff(a$`_x_`), rep(coef(fit)[["wt"]], nrow(a) - 1), tolerance = 1e-8)
})
