# refit_bands(): bands over profiles of models refitted on resamples of
# their training data.

test_that("refit bands are the percentiles of the refitted models' profiles", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, variables = c("wt", "hp"), grid_points = 6)
  rb <- refit_bands(pd, function(d) lm(mpg ~ wt + hp, data = d), mtcars, background = X,
                    B = 30, seed = 5, level = 0.9)
  # By hand: the same resamples, each model's PD on the same grids.
  set.seed(5)
  draws <- lapply(1:30, function(b) sample.int(nrow(mtcars), replace = TRUE))
  ref <- vapply(draws, function(idx) {
    m <- lm(mpg ~ wt + hp, data = mtcars[idx, ])
    a <- pd$agr_profiles
    vapply(seq_len(nrow(a)), function(r) {
      d <- X
      d[[a$`_vname_`[r]]] <- a$`_x_`[r]
      mean(predict(m, d))
    }, 1)
  }, numeric(nrow(pd$agr_profiles)))
  expect_equal(rb$replicates, ref, tolerance = 1e-10)
  expect_equal(rb$agr_profiles$`_lower_`, apply(ref, 1, quantile, 0.05, names = FALSE))
  expect_equal(rb$agr_profiles$`_upper_`, apply(ref, 1, quantile, 0.95, names = FALSE))
  expect_identical(rb$agr_profiles$`_yhat_`, pd$agr_profiles$`_yhat_`)
  expect_identical(rb$bands$type, "refit")
  expect_identical(refit_bands(pd, function(d) lm(mpg ~ wt + hp, data = d), mtcars, background = X,
                               B = 30, seed = 5, level = 0.9)$replicates, rb$replicates)
})

test_that("refit bands of AL profiles keep the edges; of a forest, its randomness is seeded", {
  skip_if_not_installed("ranger")
  set.seed(1)
  d <- data.frame(x1 = runif(300), x2 = runif(300))
  d$y <- sin(4 * d$x1) + d$x2 + rnorm(300, sd = 0.2)
  X <- d[c("x1", "x2")]
  rf <- ranger::ranger(y ~ ., d, num.trees = 30, seed = 1)
  al <- model_profile(rf, X, variables = "x1", type = "accumulated", intervals = 8)
  refit <- function(t) ranger::ranger(y ~ ., t, num.trees = 30)
  a <- refit_bands(al, refit, d, background = X, B = 10, seed = 3)
  b <- refit_bands(al, refit, d, background = X, B = 10, seed = 3)
  expect_identical(a$replicates, b$replicates)
  expect_equal(dim(a$replicates), c(nrow(al$agr_profiles), 10L))
  expect_true(all(a$agr_profiles$`_lower_` <= a$agr_profiles$`_upper_`))
  # The refits vary: model uncertainty is in the band.
  expect_gt(min(apply(a$replicates, 1, sd)), 0)
})

test_that("refit_bands() refuses what it cannot redo", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp", "cyl")]
  g <- model_profile(fit, X, variables = "wt", groups = "cyl", grid_points = 4)
  expect_error(refit_bands(g, function(d) lm(mpg ~ wt + hp, d), mtcars), "subgroups")
  pd <- model_profile(fit, X, variables = "wt", grid_points = 4)
  expect_error(refit_bands(pd, "lm", mtcars), "refit")
  expect_error(refit_bands(pd, function(d) lm(mpg ~ wt + hp, d), mtcars, B = 2), "B")
  expect_error(refit_bands(pd, function(d) lm(mpg ~ wt + hp, d), mtcars[1:3, ]), "background")
})
