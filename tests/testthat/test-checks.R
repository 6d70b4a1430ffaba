test_that("bad input gets a clear error naming the problem", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  expect_error(model_profile(fit), "data.*missing")
  expect_error(model_profile(fit, X, variables = c("wt", "nope")), "nope")
  expect_error(model_profile(fit, X, type = "nonsense"), "must be one of")
  expect_error(model_profile(fit, X[1, ]), "1 row")
  expect_error(model_profile(fit, list(1, 2)), "data frame")
  expect_error(model_profile(fit, X, N = 0), "N")
  expect_error(model_profile(fit, X, grid_points = 1), "grid_points")
  expect_error(model_profile(fit, X, grid = profile_grids(intervals = 2.5)), "intervals")
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
               "returns classes.*not probabilities")
  expect_error(model_profile(NULL, X, predict_function = function(m, newdata) factor(rep("a", nrow(newdata)))),
               "returns classes.*not probabilities")
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
  # The error names `variables`, which named the constant column (issue 41).
  e <- expect_error(model_profile(NULL, X, predict_function = pf, variables = "k"),
                    class = "modelprofiles_constant_variable")
  msg <- strsplit(cli::ansi_strip(conditionMessage(e)), "\n")[[1L]]
  expect_identical(msg[1L], "`variables` names k, which is constant; a profile over a single value is not defined.")
  expect_match(msg[2L], "Leave \"k\" out of `variables`.", fixed = TRUE)
  expect_identical(rlang::call_name(e$call), "model_profile")
  fit <- lm(y ~ a, data = transform(X, y = 2 * a))
  expect_error(suppressMessages(model_profile(fit, X, variables = "k")), "^`variables` names k",
               class = "modelprofiles_constant_variable")
  expect_error(model_profile_2d(NULL, X, pf, variables = c("a", "k")), "`variables` names k, which is constant",
               class = "modelprofiles_constant_variable")
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

# The error `expr` raises: its message matches `regexp`, and it is raised in
# the user's call to `fn` (not in an internal helper).
expect_user_error <- function(expr, regexp, fn) {
  e <- expect_error(expr, regexp)
  expect_identical(as.character(conditionCall(e)[[1L]]), fn)
  invisible(e)
}

edge_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n), x2 = runif(n), x3 = runif(n),
                  g = factor(sample(c("a", "b", "c"), n, TRUE)))
  d$y <- d$x1 + 2 * d$x2 * d$x3 + as.integer(d$g) / 4 + rnorm(n, sd = 0.1)
  d
}

test_that("memory budgets above what a chunk can use give the default budget's profiles", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3")]
  fit <- lm(y ~ x1 + x2 * x3, d)
  same <- function(model, X, ...) {
    a <- model_profile(model, X, ..., keep_ice = FALSE)
    b <- model_profile(model, X, ..., keep_ice = FALSE, memory_budget = Inf)
    expect_equal(b$agr_profiles, a$agr_profiles, tolerance = 1e-12)
    expect_false(anyNA(b$agr_profiles$`_yhat_`))
    expect_equal(b$engine, a$engine)
    # Beyond the largest budget, 1e303 MiB (whose bytes overflow) and the
    # option set to Inf are the largest budget.
    expect_equal(check_budget(Inf, rlang::current_env()), 2^30)
    expect_equal(check_budget(1e303, rlang::current_env()), 2^30)
    old <- options(modelprofiles.memory_budget = Inf)
    on.exit(options(old))
    c <- model_profile(model, X, ..., keep_ice = FALSE)
    expect_equal(c$agr_profiles, a$agr_profiles, tolerance = 1e-12)
    e <- model_profile(model, X, ..., keep_ice = FALSE, memory_budget = 1e303)
    expect_equal(e$agr_profiles, a$agr_profiles, tolerance = 1e-12)
    a
  }
  # lm: PD through the linear engine, kernel LD and AL through predict().
  pd <- same(fit, X, variables = c("x1", "x2"), grid_points = 7)
  expect_equal(profile_of(pd, "x1")$`_yhat_`,
               unname(coef(fit)["x1"]) * pd$grids$x1 + mean(predict(fit, d)) - coef(fit)["x1"] * mean(d$x1),
               tolerance = 1e-10, ignore_attr = TRUE)
  same(fit, X, variables = "x1", type = "conditional", grid_points = 7)
  same(fit, X, variables = "x1", type = "accumulated", grid = profile_grids(intervals = 6))
  a2 <- model_profile_2d(fit, X, variables = c("x2", "x3"), grid_points = 4)
  b2 <- model_profile_2d(fit, X, variables = c("x2", "x3"), grid_points = 4, memory_budget = Inf)
  expect_equal(b2$agr_profiles, a2$agr_profiles, tolerance = 1e-12)
  ah <- h_statistic(fit, X, pairs = 3)
  bh <- h_statistic(fit, X, pairs = 3, memory_budget = Inf)
  expect_equal(bh$overall, ah$overall)
  expect_equal(bh$pairwise, ah$pairwise)
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(y ~ x1 + x2 + x3, d, num.trees = 25, seed = 1, num.threads = 1)
  pd <- same(rf, X, variables = c("x1", "x2"), grid_points = 7)
  expect_equal(profile_of(pd, "x1")$`_yhat_`,
               colMeans(ref_ice(function(z) predict(rf, z, num.threads = 1)$predictions, X, "x1", pd$grids$x1)),
               tolerance = 1e-12)
  same(rf, X, variables = "x1", type = "conditional", grid_points = 7)
  same(rf, X, variables = "x1", type = "accumulated", method = "kernel", grid_points = 7)
  a2 <- model_profile_2d(rf, X, variables = c("x2", "x3"), grid_points = 4)
  b2 <- model_profile_2d(rf, X, variables = c("x2", "x3"), grid_points = 4, memory_budget = Inf)
  expect_equal(b2$agr_profiles, a2$agr_profiles, tolerance = 1e-12)
})

test_that("Inf and non-integers are refused for whole-number arguments, in the user's call", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3")]
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2
  expect_user_error(model_profile(NULL, X, pf, N = Inf), "`N` must be a whole number.*Inf.*N = NULL", "model_profile")
  expect_user_error(model_profile(NULL, X, pf, grid_points = Inf), "`grid_points` must be a whole number.*Inf", "model_profile")
  expect_user_error(model_profile(NULL, X, pf, type = "accumulated", grid = profile_grids(intervals = Inf)), "`intervals` must be a whole number.*Inf", "profile_grids")
  expect_user_error(model_profile(NULL, X, pf, N = 3e9), "`N` must be a whole number from 2 to 2147483647", "model_profile")
  # threads: an error in the user's call, not a warning from profile_threads().
  expect_user_error(model_profile(NULL, X, pf, threads = Inf), "`threads` must be a whole number.*Inf", "model_profile")
  expect_user_error(model_profile(NULL, X, pf, threads = 1e12), "`threads`", "model_profile")
  expect_user_error(model_profile_2d(NULL, X, pf, variables = c("x1", "x2"), threads = Inf), "`threads`", "model_profile_2d")
  expect_user_error(model_profile_2d(NULL, X, pf, variables = c("x1", "x2"), N = Inf), "`N`", "model_profile_2d")
  expect_user_error(model_profile_2d(NULL, X, pf, variables = c("x1", "x2"), grid_points = Inf), "`grid_points`", "model_profile_2d")
  expect_user_error(model_profile_2d(NULL, X, pf, variables = c("x1", "x2"), type = "accumulated", grid = profile_grids(intervals = Inf)),
                    "`intervals`", "profile_grids")
  expect_user_error(h_statistic(NULL, X, pf, pairs = Inf), "`pairs` must be a whole number from 0.*Inf", "h_statistic")
  expect_user_error(h_statistic(NULL, X, pf, N = Inf), "`N`", "h_statistic")
  expect_user_error(h_statistic(NULL, X, pf, threads = Inf), "`threads`", "h_statistic")
  expect_user_error(compare_profiles(NULL, X, pf, N = Inf), "`N`", "compare_profiles")
  expect_user_error(compare_profiles(NULL, X, pf, threads = Inf), "`threads`", "compare_profiles")
  expect_user_error(compare_profiles(NULL, X, pf, grid = profile_grids(intervals = Inf)), "`intervals`", "profile_grids")
  expect_user_error(compare_profiles(NULL, X, pf, memory_budget = -1), "`memory_budget`", "compare_profiles")
  Xg <- cbind(X, s = rep(c("u", "v"), 150))
  expect_user_error(hidden_interactions(NULL, Xg, pf, groups = "s", threads = Inf), "`threads`", "hidden_interactions")
  expect_user_error(hidden_interactions(NULL, Xg, pf, groups = "s", grid_points = Inf), "`grid_points`", "hidden_interactions")
  expect_user_error(hidden_interactions(NULL, Xg, pf, groups = "s", N = Inf), "`N`", "hidden_interactions")
  # From the option or the environment variable: named as such.
  old <- options(modelprofiles.threads = Inf)
  expect_user_error(model_profile(NULL, X, pf), "option `modelprofiles.threads`", "model_profile")
  options(old)
  expect_error(profile_threads(Inf), "`threads` must be a whole number")
})

test_that("infinite values in a profiled column are an error naming it; elsewhere they do no harm", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3", "g")]
  XI <- X
  XI$x1[c(3, 8)] <- c(Inf, -Inf)
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2
  for (type in c("partial", "conditional", "accumulated")) {
    expect_user_error(model_profile(NULL, XI, pf, variables = "x1", type = type),
                      "x1 has 2 infinite values", "model_profile")
  }
  expect_user_error(model_profile(NULL, XI, pf, variables = "x1", type = "conditional", method = "interval"),
                    "x1 has 2 infinite values", "model_profile")
  expect_user_error(model_profile_2d(NULL, XI, pf, variables = c("x1", "x2")), "x1 has 2 infinite values", "model_profile_2d")
  expect_user_error(model_profile_2d(NULL, XI, pf, variables = c("x2", "x1"), type = "accumulated"),
                    "x1 has 2 infinite values", "model_profile_2d")
  expect_user_error(h_statistic(NULL, XI, pf, variables = c("x1", "x2")), "x1 has 2 infinite values", "h_statistic")
  expect_user_error(compare_profiles(NULL, XI, pf, variables = "x1"), "x1 has 2 infinite values", "compare_profiles")
  expect_user_error(hidden_interactions(NULL, cbind(XI, s = rep(c("u", "v"), 150)), pf, variables = "x1", groups = "s"),
                    "x1 has 2 infinite values", "hidden_interactions")
  # Not named: skipped with a message.
  pf2 <- function(m, newdata) newdata$x2 * newdata$x3 + as.integer(newdata$g)
  expect_message(res <- model_profile(NULL, XI, pf2, grid_points = 5), "Skipping x1: it has 2 infinite values")
  expect_equal(res$variables, c("x2", "x3", "g"))
  expect_message(h <- h_statistic(NULL, XI, function(m, newdata) newdata$x2 * newdata$x3), "Skipping x1")
  expect_equal(sort(h$variables), c("g", "x2", "x3"))
  # In a column the model ignores and that is not profiled: the same numbers
  # as with finite values there.
  for (args in list(
    list(variables = "x2", type = "conditional", grid_points = 7),
    list(variables = "x2", type = "conditional", method = "interval", grid_points = 7),
    list(variables = "x2", type = "accumulated"),
    list(variables = "x2", type = "accumulated", method = "kernel", grid_points = 7),
    list(variables = c("x2", "g"), type = "accumulated", grid = profile_grids(level_order = "levels")),
    list(variables = "g", type = "conditional"),
    list(variables = "x2", grid_points = 7)
  )) {
    a <- do.call(model_profile, c(list(NULL, X, pf2), args))
    b <- do.call(model_profile, c(list(NULL, XI, pf2), args))
    # (The extrapolation measure reads every column, the infinite one too.)
    keep <- setdiff(names(a$agr_profiles), "_extrapolation_")
    expect_equal(b$agr_profiles[keep], a$agr_profiles[keep], tolerance = 1e-12)
  }
  a <- model_profile_2d(NULL, X, pf2, variables = c("g", "x2"), type = "accumulated", grid = profile_grids(intervals = 4, level_order = "levels"))
  b <- model_profile_2d(NULL, XI, pf2, variables = c("g", "x2"), type = "accumulated", grid = profile_grids(intervals = 4, level_order = "levels"))
  expect_equal(b$agr_profiles, a$agr_profiles, tolerance = 1e-12)
  a <- h_statistic(NULL, X, pf2, variables = c("x2", "x3", "g"))
  b <- h_statistic(NULL, XI, pf2, variables = c("x2", "x3", "g"))
  expect_equal(b$overall, a$overall, tolerance = 1e-12)
})

test_that("missing values in a profiled variable: PD uses the rows, LD and AL leave them out with one warning", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3", "g")]
  XN <- X
  miss <- c(20, 50, 77)
  XN$x1[miss] <- NA
  XN$g[c(5, 9)] <- NA
  # A model that cannot predict a missing value: NA predictions are an error.
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2 * newdata$x3 + as.integer(newdata$g)
  pd <- model_profile(NULL, XN[-c(5, 9), ], pf, variables = "x1", grid_points = 5)
  expect_equal(profile_of(pd)$`_yhat_`,
               pd$grids$x1 + mean(2 * XN$x2[-c(5, 9)] * XN$x3[-c(5, 9)] + as.integer(XN$g[-c(5, 9)])),
               tolerance = 1e-12)
  Xo <- XN[-miss, ]
  for (args in list(
    list(type = "conditional", grid_points = 7),
    list(type = "conditional", method = "interval", grid_points = 7, grid = profile_grids(intervals = 5)),
    list(type = "accumulated", grid = profile_grids(intervals = 5)),
    list(type = "accumulated", method = "kernel", grid_points = 7)
  )) {
    args <- c(list(variables = "x1", variable_splits = if (args$type == "conditional") list(x1 = seq(0.1, 0.9, 0.2))), args)
    w <- testthat::capture_warnings(res <- do.call(model_profile, c(list(NULL, XN[-c(5, 9), ], pf), args)))
    expect_length(w, 1L)
    expect_match(w, "x1 has 3 missing values among the 298 background rows; those rows are left out")
    expect_match(w, "Impute them")
    ref <- do.call(model_profile, c(list(NULL, Xo[!is.na(Xo$g), ], pf), args))
    expect_equal(res$agr_profiles[c("_x_", "_yhat_")], ref$agr_profiles[c("_x_", "_yhat_")], tolerance = 1e-12)
  }
  # A categorical variable: its missing values are left out of LD and AL, or
  # with na_level = TRUE are a level.
  Xg <- XN[!is.na(XN$x1), ]
  for (type in c("conditional", "accumulated")) {
    expect_warning(res <- model_profile(NULL, Xg, pf, variables = "g", type = type, grid = profile_grids(level_order = "levels")),
                   "g has 2 missing values among the 297 background rows.*na_level = TRUE")
    ref <- model_profile(NULL, Xg[!is.na(Xg$g), ], pf, variables = "g", type = type, grid = profile_grids(level_order = "levels"))
    expect_equal(res$agr_profiles$`_yhat_`, ref$agr_profiles$`_yhat_`, tolerance = 1e-12)
  }
  # compare_profiles() warns once, for LD and AL together.
  w <- testthat::capture_warnings(compare_profiles(NULL, XN[-c(5, 9), ], pf, variables = "x1", grid_points = 7))
  expect_length(grep("missing values", w), 1L)
  # The native engine leaves the same rows out, and so does predict() (for
  # ranger, whose predict() refuses a missing value, only the rows used are
  # predicted).
  skip_if_not_installed("ranger")
  Xr <- XN[c("x1", "x2", "x3")]
  rf <- ranger::ranger(y ~ x1 + x2 + x3, d, num.trees = 20, seed = 1, num.threads = 1)
  for (engine in c("native", "predict")) {
    for (args in list(list(type = "accumulated", grid = profile_grids(intervals = 5)),
                      list(type = "accumulated", method = "kernel", grid_points = 7),
                      list(type = "conditional", grid_points = 7))) {
      expect_warning(res <- do.call(model_profile, c(list(rf, Xr, variables = "x1", engine = engine), args)),
                     "x1 has 3 missing values")
      ref <- do.call(model_profile, c(list(rf, Xr[-miss, ], variables = "x1", engine = engine), args))
      expect_equal(res$agr_profiles$`_yhat_`, ref$agr_profiles$`_yhat_`, tolerance = 1e-12)
    }
  }
})

test_that("a bandwidth named for no profiled variable is an error naming both", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3")]
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2
  expect_user_error(model_profile(NULL, X, pf, variables = "x1", type = "conditional", bandwidth = c(X1 = 0.001)),
                    "`bandwidth` names variable not profiled: \"X1\".*profiled variables are \"x1\"", "model_profile")
  expect_user_error(model_profile(NULL, X, pf, variables = c("x1", "x2"), type = "conditional",
                                  bandwidth = c(x1 = 0.1, x9 = 1, X2 = 1)),
                    "names variables not profiled: \"x9\" and \"X2\"", "model_profile")
  expect_user_error(model_profile(NULL, X, pf, type = "conditional", bandwidth = c(0.1, x2 = 1)),
                    "`bandwidth`", "model_profile")
  expect_user_error(model_profile(NULL, X, pf, type = "conditional", bandwidth = Inf), "positive finite", "model_profile")
  expect_user_error(compare_profiles(NULL, X, pf, variables = "x1", bandwidth = c(X1 = 0.001)),
                    "not profiled: \"X1\"", "compare_profiles")
  # Named right, it is used.
  res <- model_profile(NULL, X, pf, variables = c("x1", "x2"), type = "conditional", bandwidth = c(x2 = 0.05), grid_points = 5)
  expect_equal(unname(res$bandwidth["x2"]), 0.05)
})

test_that("weights whose sum overflows are an error on `weights`", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3")]
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2
  big <- rep(1e308, nrow(X))
  expect_user_error(model_profile(NULL, X, pf, weights = big), "The sum of `weights` is more than the largest number", "model_profile")
  expect_user_error(model_profile_2d(NULL, X, pf, variables = c("x1", "x2"), weights = big), "sum of `weights`", "model_profile_2d")
  expect_user_error(h_statistic(NULL, X, pf, weights = big), "sum of `weights`", "h_statistic")
  expect_user_error(compare_profiles(NULL, X, pf, weights = big), "sum of `weights`", "compare_profiles")
  expect_user_error(hidden_interactions(NULL, cbind(X, s = rep(c("u", "v"), 150)), pf, groups = "s", weights = big),
                    "sum of `weights`", "hidden_interactions")
  Xw <- cbind(X, w = big)
  expect_user_error(model_profile(NULL, Xw, pf, weights = "w"), "sum of the weights column w is more", "model_profile")
  # Large weights whose sum is finite give the unweighted profile.
  res <- model_profile(NULL, X, pf, variables = "x1", weights = rep(1e300, nrow(X)), grid_points = 5)
  expect_equal(profile_of(res)$`_yhat_`, res$grids$x1 + 2 * mean(X$x2), tolerance = 1e-12)
})

test_that("a bandwidth so small that 2 s^2 underflows gives no NaN: the nearest rows, or NA without support", {
  d <- edge_data()
  X <- d[c("x1", "x2", "x3")]
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2
  grid <- c(X$x1[1], X$x1[2], (X$x1[1] + X$x1[2]) / 2)
  for (bw in c(1e-200, 1e-150)) {
    expect_warning(
      res <- model_profile(NULL, X, pf, variables = "x1", type = "conditional", bandwidth = bw,
                           variable_splits = list(x1 = grid)),
      "1 grid point without background rows nearby; its local dependence is NA"
    )
    y <- profile_of(res)$`_yhat_`
    x <- profile_of(res)$`_x_`
    # At a row's own value: that row's prediction (the kernel weighs the
    # others 0); between rows: NA, never NaN.
    expect_equal(y[match(grid[1:2], x)], pf(NULL, X[1:2, ]), tolerance = 1e-12)
    expect_true(is.na(y[match(grid[3], x)]) && !is.nan(y[match(grid[3], x)]))
    expect_equal(res$no_support$x1, grid[3])
  }
  al <- model_profile(NULL, X, pf, variables = "x1", type = "accumulated", method = "kernel",
                      bandwidth = 1e-200, grid_points = 5)
  expect_false(anyNA(al$agr_profiles$`_yhat_`))
  # An additive model: the AL steps are those of x1.
  expect_equal(diff(al$agr_profiles$`_yhat_`), diff(al$grids$x1), tolerance = 1e-10)
})

test_that("keep_ice and the other flags refuse anything but TRUE or FALSE, naming the call", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  for (bad in list(NA, "yes", 1, c(TRUE, FALSE), NULL)) {
    e <- expect_error(model_profile(fit, X, keep_ice = bad, grid_points = 3), class = "rlang_error")
    expect_match(conditionMessage(e), "`keep_ice` must be `TRUE` or `FALSE`", fixed = TRUE)
    expect_identical(deparse(conditionCall(e)[[1L]]), "model_profile")
  }
  expect_error(model_profile(fit, X, keep_ice = NA), "not NA", fixed = TRUE)
  expect_error(model_profile(fit, X, keep_ice = "yes"), "not \"yes\"", fixed = TRUE)
  expect_error(model_profile(fit, X, keep_ice = c(TRUE, FALSE)), "a vector of length 2", fixed = TRUE)
  expect_error(model_profile(fit, X, groups = profile_clusters(2, center = NA)), "center")
  # TRUE and FALSE still keep and drop the curves.
  expect_false(is.null(model_profile(fit, X, keep_ice = TRUE, grid_points = 3)$cp_profiles))
  expect_null(model_profile(fit, X, keep_ice = FALSE, grid_points = 3)$cp_profiles)
})
