# Errors that must say what is wrong: each names the argument (or column)
# and the user's call. Pinned by snapshots: probes of bad input.

# The name of the function of the call an error names.
error_call <- function(expr) {
  e <- tryCatch(expr, error = function(e) e)
  expect_s3_class(e, "error")
  rlang::call_name(e$call)
}

test_that("a missing value in a column not profiled: the linear engine names the column, as predict() does", {
  set.seed(1)
  X <- data.frame(a = rnorm(200), b = rnorm(200), c = rnorm(200))
  fit <- lm(y ~ a + b + c, data = cbind(X, y = X$a + X$b + rnorm(200)))
  X$c[5] <- NA
  expect_snapshot(error = TRUE, {
    model_profile(fit, X, variables = "a")
    model_profile(fit, X, variables = "a", engine = "predict")
  })
  expect_identical(error_call(model_profile(fit, X, variables = "a")), "model_profile")
})

test_that("a forest without some of its columns: they are listed", {
  skip_if_not_installed("ranger")
  set.seed(1)
  X <- data.frame(a = rnorm(100), b = rnorm(100), c = rnorm(100))
  rf <- ranger::ranger(y ~ ., data = cbind(X, y = X$a + rnorm(100)), num.trees = 5, num.threads = 1)
  expect_snapshot(error = TRUE, {
    model_profile(rf, X["a"], variables = "a")
  })
  expect_identical(error_call(model_profile(rf, X["a"], variables = "a")), "model_profile")
})

test_that("type, variable_splits and plot() arguments: clear errors in the user's call", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  expect_snapshot(error = TRUE, {
    model_profile(fit, X, type = c("partial", "accumulated"))
    model_profile(fit, X, variables = "wt", variable_splits = list(wt = c(2, 3, Inf)))
    model_profile(fit, X, variables = "wt", type = "accumulated", variable_splits = list(wt = c(-Inf, 3)))
  })
  pd <- model_profile(fit, X, grid_points = 5)
  expect_snapshot(error = TRUE, {
    plot(pd, geom = "line")
    plot(pd, variables = "qsec")
    plot(pd, 1)
    plot(pd, 1, "wt")
    ggplot2::autoplot(pd, geom = "line")
  })
  expect_identical(error_call(model_profile(fit, X, type = c("partial", "accumulated"))), "model_profile")
  expect_identical(error_call(model_profile(fit, X, variable_splits = list(wt = Inf))), "model_profile")
  expect_identical(error_call(plot(pd, geom = "line")), "plot")
  expect_identical(error_call(plot(pd, variables = "qsec")), "plot")
  expect_identical(error_call(plot(pd, 1)), "plot")
  expect_identical(error_call(plot(pd, geom = "profiles", center = "left")), "plot")
  expect_identical(error_call(ggplot2::autoplot(pd, geom = "line")), "autoplot")
})

test_that("rows outside AL's edges: counted in words that agree", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  expect_snapshot(a <- model_profile(fit, X, variables = "wt", type = "accumulated",
                                     variable_splits = list(wt = c(2.5, 3, 3.5))))
  expect_snapshot(a <- model_profile(fit, X, variables = "wt", type = "accumulated",
                                     variable_splits = list(wt = c(1.6, 3, 5.4))))
  # The 2 rows outside (wt 1.513 and 1.615) are left out; the profile is
  # at the 3 edges.
  expect_identical(sum(X$wt < 1.6 | X$wt > 5.4), 2L)
  expect_equal(a$grids$wt, c(1.6, 3, 5.4))
})

test_that("hidden_interactions() takes a vector of group values; refit_bands() names its own arguments", {
  set.seed(51)
  d <- data.frame(x = runif(200), z = runif(200), s = sample(c("a", "b"), 200, TRUE))
  f <- function(m, nd) ifelse(nd$s == "a", 1, -1) * nd$x + 0.5 * nd$z
  by_name <- hidden_interactions(NULL, d, predict_function = f, variables = "x", groups = "s",
                                 grid_points = 3, variable_splits_type = "uniform")
  # The vector's values are groups, not column names ("a" and "b").
  by_values <- hidden_interactions(NULL, d, predict_function = f, variables = "x", groups = d$s,
                                   grid_points = 3, variable_splits_type = "uniform")
  expect_identical(by_values$slopes$slope, by_name$slopes$slope)
  expect_identical(by_values$summary$hidden, TRUE)
  expect_identical(by_values$summary$highest, "d$s a")
  fit <- lm(z ~ x, data = d)
  pd <- model_profile(fit, d["x"], grid_points = 3)
  expect_snapshot(error = TRUE, {
    hidden_interactions(NULL, d, predict_function = f, variables = "x", groups = d$s[1:10])
    refit_bands(1, function(d) lm(z ~ x, d), d)
    refit_bands(pd, 3, d)
    refit_bands(pd, function(d) lm(z ~ x, d), 3)
  })
})
