# One-variable profiles within parts (R/profiles.R): the engine rule of
# "auto", the ICE budget, and predictions requested once for all variables.

test_that("engine = \"auto\" compiles for interval methods when that is faster", {
  inputs <- function(model, adapter = list()) list(model = model, adapter = adapter, compiled = native_store())
  none <- inputs(NULL)
  expect_true(native_for("auto", "partial", "exact", 10, none))
  expect_true(native_for("auto", "conditional", "kernel", 10, none))
  expect_true(native_for("native", "accumulated", "interval", 10, none))
  expect_false(native_for("predict", "partial", "exact", 1e6, none))
  # Families without a threshold (ranger, randomForest): any size.
  forest <- inputs(structure(list(), class = "ranger"))
  expect_true(native_for("auto", "accumulated", "interval", 10, forest))
  # Boosters: from their adapter's measured number of stacked rows (2 per
  # row; lightgbm's is 2000, see test-adapter_trees.R).
  need <- 2000
  booster <- inputs(structure(list(), class = "lgb.Booster"), list(native_min_rows = need))
  expect_false(native_for("auto", "accumulated", "interval", need / 2 - 1, booster))
  expect_true(native_for("auto", "accumulated", "interval", need / 2, booster))
})

test_that("a booster compiled by compile_model() is used natively at any size", {
  skip_if_not_installed("lightgbm")
  set.seed(3)
  d <- data.frame(a = runif(300), b = runif(300))
  y <- d$a * 2 + sin(3 * d$b) + rnorm(300, sd = 0.1)
  fit <- lightgbm::lightgbm(data = as.matrix(d), label = y, nrounds = 10, verbose = -1,
                            params = list(objective = "regression", num_threads = 1, min_data_in_leaf = 5))
  small <- d[1:40, ]
  al <- model_profile(fit, data = small, N = NULL, type = "accumulated", grid = profile_grids(intervals = 5))
  expect_identical(al$engine, "predict")
  cm <- compile_model(fit)
  expect_true(native_pays(list(model = fit, adapter = model_adapter(fit), compiled = native_store(cm)), 80))
  al2 <- model_profile(cm, data = small, N = NULL, type = "accumulated", grid = profile_grids(intervals = 5))
  expect_identical(al2$engine, "native")
  expect_equal(al2$agr_profiles[["_yhat_"]], al$agr_profiles[["_yhat_"]], tolerance = 1e-12)
})

test_that("ICE curves are kept in order while they fit in half the budget", {
  s <- list(memory_budget = 1, n_outputs = 1L)
  st <- profile_settings("partial", keep_ice = TRUE)
  parts <- list(list(level = NA, rows = seq_len(1000)))
  # 1000 rows x 30 points x 8 bytes = 240,000 bytes each: two fit in half
  # of 1 MiB (524,288 bytes), not three.
  keep <- ice_kept(s, st, list(1:30, 1:30, 1:30), parts, c("a", "b", "c"))
  expect_identical(keep[1, ], c(TRUE, TRUE, FALSE))
  expect_identical(attr(keep, "bytes"), 480000)
  # Two outputs take twice as much.
  keep2 <- ice_kept(modifyList(s, list(n_outputs = 2L)), st, list(1:30, 1:30), parts, c("a", "b"))
  expect_identical(keep2[1, ], c(TRUE, FALSE))
  expect_false(any(ice_kept(s, profile_settings("partial"), list(1:10), parts, "a")))
})

test_that("the linear engine's ICE curves take 16 bytes a row, whatever the grid", {
  set.seed(1)
  X <- data.frame(a = rnorm(2000), b = rnorm(2000))
  fit <- lm(y ~ a * b, data = cbind(X, y = X$a * X$b + rnorm(2000)))
  # 2000 rows x 101 points x 8 bytes = 1.6 MB a variable as a table; as
  # intercepts and slopes 32,000 bytes: both fit in half of 0.2 MiB.
  res <- expect_silent(model_profile(fit, X, N = NULL, memory_budget = 0.2))
  expect_s3_class(.subset2(res, "cp_profiles"), "mp_ice")
  expect_identical(nrow(res$cp_profiles), 2L * 2000L * 101L)
  # The long frame equals the model's own predictions at the curve points.
  cp <- res$cp_profiles
  a <- cp[cp$`_vname_` == "a", ]
  nd <- X[a$`_ids_`, ]
  nd$a <- a$`_x_`
  expect_equal(a$`_yhat_`, unname(predict(fit, nd)), tolerance = 1e-13)
  # Through predict() the curves are a table, which does not fit.
  expect_message(res2 <- model_profile(fit, X, N = NULL, memory_budget = 0.2, engine = "predict"),
                 "ICE curves of a and b not kept")
  expect_null(res2$cp_profiles)
  expect_equal(res2$agr_profiles, res$agr_profiles, tolerance = 1e-13)
})

test_that("AL of several variables with missing values predicts the union of their rows once", {
  set.seed(2)
  X <- data.frame(a = rnorm(60), b = rnorm(60), c = rnorm(60))
  X$a[1:5] <- NA
  X$b[3:9] <- NA
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    x <- nd$a
    x[is.na(x)] <- 0
    x * nd$c
  }
  res <- suppressWarnings(model_profile(NULL, X, pf, variables = c("a", "b"), type = "accumulated",
                                        grid = profile_grids(intervals = 4), N = NULL))
  # The probe, the rows where a or b is observed (all but rows 3, 4, 5),
  # then two predictions per observed row of each variable.
  expect_identical(sizes, c(2L, 57L, 2L * 55L, 2L * 53L))
  expect_identical(res$n_predictions, 57 + 110 + 106)
  # Each profile's shift: the mean prediction over the rows where its
  # variable is observed (different rows, so a row per variable).
  y <- ifelse(is.na(X$a), 0, X$a) * X$c
  expect_equal(res$mean_prediction,
               matrix(c(mean(y[!is.na(X$a)]), mean(y[!is.na(X$b)])), 2L,
                      dimnames = list(c("a", "b"), "model")), tolerance = 1e-14)
})
