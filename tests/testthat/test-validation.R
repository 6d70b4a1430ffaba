test_that("bad input gets a clear error naming the problem", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  expect_error(model_profile(fit), "data.*missing")
  expect_error(model_profile(fit, X, variables = c("wt", "nope")), "nope")
  expect_error(model_profile(fit, X, type = "nonsense"), "should be one of")
  expect_error(model_profile(fit, X[1, ]), "1 row")
  expect_error(model_profile(fit, list(1, 2)), "data frame")
  expect_error(model_profile(fit, X, N = 0), "N")
  expect_error(model_profile(fit, X, grid_points = 1), "grid_points")
  expect_error(model_profile(fit, X, intervals = 2.5), "intervals")
  expect_error(model_profile(fit, X, threads = 0), "threads")
  expect_error(model_profile(fit, X, memory_budget = -1), "memory_budget")
  expect_error(model_profile(fit, X, bandwidth = -1, type = "conditional"), "bandwidth")
  expect_error(model_profile(fit, X, method = "kernel"), "method")
  expect_error(model_profile(fit, X, type = "accumulated", method = "spline"), "method")
  expect_error(model_profile(fit, X, variable_splits = list(wt = c("a", "b"))), "numeric")
  expect_error(model_profile(fit, X, variable_splits = list(qsec = 1:3)), "qsec")
  expect_error(model_profile(fit, X, variable_splits = list(wt = c(1, NA))), "NA")
  expect_error(model_profile(fit, X, typo = 1), "typo")
  expect_error(model_profile(fit, X, predict_function = "predict"), "function")
})

test_that("a predict function with the wrong output is caught", {
  X <- mtcars[c("wt", "hp")]
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) 1),
               "returned 1 value for")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) rep("a", nrow(newdata))),
               "must return numbers")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) factor(rep("a", nrow(newdata)))),
               "must return numbers")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) {
    y <- newdata$wt
    y[1] <- NA
    y
  }), "missing value")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) {
    matrix(0, nrow(newdata), if (nrow(newdata) == 2L) 3 else 2)
  }), "2 columns, and 3 before")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) {
    array(0, c(nrow(newdata), 2, 2))
  }), "must return numbers")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) newdata$wt,
                             class = "yes"), "one number per row")
})

test_that("constant, empty and unsupported columns", {
  X <- data.frame(a = rnorm(10), k = 1, d = as.Date("2020-01-01") + 1:10, n = NA_real_)
  pf <- function(m, newdata) newdata$a
  expect_error(model_profile(NULL, X, predict_function = pf, variables = "k"), "constant")
  # A Date column is profiled on its own scale (test-grid.R).
  expect_s3_class(model_profile(NULL, X, predict_function = pf, variables = "d")$grids$d, "Date")
  expect_error(model_profile(NULL, X, predict_function = pf, variables = "n"), "missing")
  expect_message(res <- model_profile(NULL, X, predict_function = pf), "Skipping")
  expect_equal(res$variables, c("a", "d"))
  Xc <- data.frame(a = 1:5, g = factor(c("x", "y", "x", "y", "x")))
  # A categorical variable the model ignores has a flat AL profile at the
  # mean prediction.
  flat <- model_profile(NULL, Xc, predict_function = function(m, newdata) newdata$a,
                        variables = "g", type = "accumulated")
  expect_equal(flat$agr_profiles$`_yhat_`, c(3, 3))
  Xl <- data.frame(a = 1:3)
  Xl$l <- list(1, 2, 3)
  expect_error(model_profile(NULL, Xl, predict_function = function(m, newdata) newdata$a), "type")
})

test_that("a matrix without column names is refused; with names it works", {
  m <- matrix(rnorm(20), 10)
  expect_error(model_profile(NULL, m, predict_function = function(m, newdata) newdata[[1]]), "column names")
  colnames(m) <- c("a", "b")
  res <- model_profile(NULL, m, predict_function = function(m, newdata) newdata$a + newdata$b, grid_points = 3)
  expect_equal(profile_of(res, "a")$`_yhat_`, res$grids$a + mean(m[, "b"]))
})

test_that("threads resolve from argument, option, environment, then 2", {
  expect_equal(profile_threads(3), 3L)
  withr_opt <- options(modelprofiles.threads = 1)
  on.exit(options(withr_opt), add = TRUE)
  expect_equal(profile_threads(), 1L)
  options(modelprofiles.threads = NULL)
  old <- Sys.getenv("MODELPROFILES_THREADS")
  Sys.setenv(MODELPROFILES_THREADS = "1")
  on.exit(Sys.setenv(MODELPROFILES_THREADS = old), add = TRUE)
  expect_equal(profile_threads(), 1L)
  Sys.unsetenv("MODELPROFILES_THREADS")
  expect_equal(profile_threads(), 2L)
})
