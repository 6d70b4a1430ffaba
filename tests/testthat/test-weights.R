# Case weights: weighted means everywhere, and a row of weight w is exactly
# the row repeated w times.

weighted_setup <- function() {
  set.seed(21)
  n <- 120
  X <- data.frame(a = round(rnorm(n), 1), b = runif(n), g = factor(sample(c("p", "q", "r"), n, TRUE)))
  w <- sample(1:3, n, TRUE)
  list(X = X, w = w, dup = X[rep(seq_len(n), w), ], f = function(m, d) d$a^2 * d$b + as.integer(d$g) * d$a)
}

test_that("integer weights equal duplicated rows for every estimator", {
  s <- weighted_setup()
  splits <- list(a = seq(-2, 2, by = 0.5), b = c(0.1, 0.5, 0.9))
  cases <- list(
    list(type = "partial"),
    list(type = "conditional", method = "kernel", bandwidth = 0.4),
    list(type = "conditional", method = "interval", intervals = 6),
    list(type = "accumulated", method = "interval", intervals = 7),
    list(type = "accumulated", method = "kernel", bandwidth = 0.3)
  )
  for (cs in cases) {
    args <- c(list(NULL, predict_function = s$f, variables = c("a", "b"), N = NULL), cs)
    if (cs$type != "accumulated") args$variable_splits <- splits
    wt <- do.call(model_profile, c(list(data = s$X, weights = s$w), args))
    dp <- do.call(model_profile, c(list(data = s$dup), args))
    expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12,
                 info = paste(cs$type, cs$method))
    expect_equal(wt$grids, dp$grids, info = paste(cs$type, cs$method))
  }
  # Categorical LD, 2-D PD, subgroups.
  wt <- model_profile(NULL, s$X, predict_function = s$f, variables = "g", type = "conditional",
                      N = NULL, weights = s$w)
  dp <- model_profile(NULL, s$dup, predict_function = s$f, variables = "g", type = "conditional", N = NULL)
  expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  wt <- model_profile_2d(NULL, s$X, predict_function = s$f, variables = c("a", "g"), N = NULL,
                         weights = s$w, variable_splits = splits["a"])
  dp <- model_profile_2d(NULL, s$dup, predict_function = s$f, variables = c("a", "g"), N = NULL,
                         variable_splits = splits["a"])
  expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  wt <- model_profile(NULL, s$X, predict_function = s$f, variables = "a", type = "accumulated",
                      N = NULL, weights = s$w, groups = "g", intervals = 5)
  dp <- model_profile(NULL, s$dup, predict_function = s$f, variables = "a", type = "accumulated",
                      N = NULL, groups = "g", intervals = 5)
  expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_equal(unname(wt$mean_prediction), unname(dp$mean_prediction), tolerance = 1e-12)
})

test_that("weighted PD is the weighted mean of the ICE curves; non-integer weights", {
  s <- weighted_setup()
  w <- s$w * 0.37 + 0.01
  res <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", N = NULL, weights = w,
                       grid_points = 5)
  ice <- ref_ice(function(d) s$f(NULL, d), s$X, "b", res$grids$b)
  expect_equal(res$agr_profiles$`_yhat_`, as.vector(colSums(w * ice) / sum(w)), tolerance = 1e-12)
  expect_equal(res$weights, w)
  # Scaling the weights changes nothing.
  res2 <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", N = NULL, weights = 10 * w,
                        grid_points = 5)
  expect_equal(res2$agr_profiles$`_yhat_`, res$agr_profiles$`_yhat_`, tolerance = 1e-12)
  # Weight 0 is as absent.
  w0 <- s$w
  w0[1:10] <- 0
  a <- model_profile(NULL, s$X, predict_function = s$f, variables = "a", type = "accumulated",
                     N = NULL, weights = w0, intervals = 5)
  b <- model_profile(NULL, s$X[-(1:10), ], predict_function = s$f, variables = "a", type = "accumulated",
                     N = NULL, weights = w0[-(1:10)], intervals = 5)
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_equal(a$N, 110)
})

test_that("weights from a column or an explainer; bad weights", {
  s <- weighted_setup()
  X <- s$X
  X$wt <- s$w
  by_col <- model_profile(NULL, X, predict_function = s$f, N = NULL, weights = "wt",
                          variable_splits = list(a = c(-1, 0, 1)), variables = "a")
  by_vec <- model_profile(NULL, s$X, predict_function = s$f, N = NULL, weights = s$w,
                          variable_splits = list(a = c(-1, 0, 1)), variables = "a")
  expect_equal(by_col$agr_profiles, by_vec$agr_profiles)
  # The weights column is not profiled by default.
  expect_false("wt" %in% model_profile(NULL, X, predict_function = s$f, weights = "wt")$variables)
  ex <- structure(list(model = NULL, data = s$X, predict_function = s$f, label = "ex", weights = s$w),
                  class = "explainer")
  by_ex <- model_profile(ex, N = NULL, variable_splits = list(a = c(-1, 0, 1)), variables = "a")
  expect_equal(by_ex$agr_profiles$`_yhat_`, by_vec$agr_profiles$`_yhat_`)
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = 1:3), "has 3 values")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = "nope"), "not in the data")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = "g"), "must be numeric")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = c(-1, s$w[-1])), "non-negative")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = c(NA, s$w[-1])), "non-negative")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = c(1, rep(0, 119))),
               "positive weight")
  expect_output(print(by_vec), "case weights")
})
