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

# ---- Bad input of the review (issue 41): rows 10-13, W1, W7-W9, the
# confusing cases. Each error names its argument, in the user's call.

bad_input_data <- function() {
  set.seed(1)
  d <- data.frame(x1 = runif(200, -1, 1), x2 = runif(200, -1, 1), x3 = runif(200, -1, 1))
  d$y <- d$x1 * d$x2 + d$x3 + rnorm(200, sd = 0.1)
  d
}

test_that("W1: refit_bands() checks every column of the background, not only the profiled one", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  pd <- model_profile(fit, d[1:3], variables = "x1", grid_points = 9)
  bg <- d
  bg$x2 <- bg$x2 + 3
  refit <- function(dd) lm(y ~ x1 * x2 + x3, dd)
  expect_error(refit_bands(pd, refit, d, background = bg, B = 10, seed = 1),
               "differ from the profile's background rows in x2", class = "rlang_error")
  expect_identical(error_call(refit_bands(pd, refit, d, background = bg, B = 10, seed = 1)), "refit_bands")
  # A permutation of a column is told too; the data itself passes.
  bg2 <- d
  bg2$x3 <- rev(bg2$x3)
  expect_error(refit_bands(pd, refit, d, background = bg2, B = 10, seed = 1), "in x3")
  expect_s3_class(refit_bands(pd, refit, d, B = 10, seed = 1), "mp_profile")
})

test_that("W7: two kinds of bands are an error naming `bands`; the usage lists every kind", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  expect_error(model_profile(fit, d[1:3], bands = c("analytic", "bootstrap")),
               "`bands` must be one kind of bands, not 2")
  expect_identical(eval(formals(modelprofiles:::model_profile.default)$bands),
                   c("none", "analytic", "bootstrap", "trees", "infjack"))
  # The default is no bands.
  expect_null(model_profile(fit, d[1:3], variables = "x1", grid_points = 5)$bands)
})

test_that("W8, W9 and find_regions()'s other arguments: errors naming them", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  X <- d[1:3]
  expect_error(find_regions(fit, X, variables = "x1", min_size = 0.6), "`min_size` must be at most 0.5")
  expect_error(find_regions(fit, X, variables = "x1", split_variables = "x1"),
               "`split_variables` must name a variable other than the profiled x1")
  expect_error(find_regions(fit, X, split_variables = "zz"), "`split_variables` has name not in the data")
  expect_error(find_regions(fit, X, level = 2), "`level` must be a single number between 0 and 1, such as 0.95, not 2")
  expect_identical(error_call(find_regions(fit, X, level = 2)), "find_regions")
  # min_size = 0.5 is allowed (a split in halves).
  expect_s3_class(find_regions(fit, X, variables = "x1", min_size = 0.5, grid_points = 5), "mp_regions")
})

test_that("the confusing cases name their argument", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  X <- d[1:3]
  expect_error(model_profile(fit, X[, 0]), "`data` has no columns")
  Xna <- X
  names(Xna)[3] <- NA
  expect_error(model_profile(fit, Xna), "A column is named \"NA\"")
  pd <- model_profile(fit, X, variables = "x1", grid_points = 5)
  expect_error(plot(pd, max_curves = -1), "`max_curves` must be a whole number")
  expect_error(plot(pd, max_curves = NA), "`max_curves` must be a whole number")
  expect_error(plot(pd, rug = "yes"), "`rug` must be `TRUE` or `FALSE`")
  expect_s3_class(plot(pd, geom = "profiles", max_curves = Inf), "ggplot")
  expect_error(profile_grid(X$x1, variable_splits_type = "foo"), "`variable_splits_type` must be one of")
  expect_identical(error_call(profile_grid(X$x1, variable_splits_type = "foo")), "profile_grid")
  al <- model_profile(fit, X, variables = "x1", type = "accumulated", intervals = 5)
  expect_error(effect_sizes(al, bands = "yes"), "`bands` must be `TRUE` or `FALSE`")
  expect_error(effect_sizes(al, reference = NA), "`reference` must hold at least 2 finite values")
  expect_error(effect_sizes(al, 1), "`reference` must hold at least 2 finite values")
})

test_that("row 11: a number quoted, a predict function failing on large chunks, no predict() method", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  X <- d[1:3]
  # A string is shown as a string and said to be one; a number as a number.
  expect_error(model_profile(fit, X, grid_points = "10"), "not \"10\".*That is a string")
  e <- tryCatch(model_profile(fit, X, grid_points = 0), error = identity)
  expect_match(conditionMessage(e), "not 0.", fixed = TRUE)
  # A predict function that fails only on many rows: the error names
  # predict_function and memory_budget, not the package's internal call.
  big_fails <- function(m, nd) if (nrow(nd) > 50) stop("too many rows") else nd$x1
  e <- tryCatch(model_profile(NULL, X, big_fails, variables = "x1"), error = identity)
  expect_match(conditionMessage(e), "`predict_function`", fixed = TRUE)
  expect_match(conditionMessage(e), "`memory_budget`", fixed = TRUE)
  expect_identical(rlang::call_name(e$call), "model_profile")
  expect_no_match(paste(format(e), collapse = "\n"), "setup$predict_function", fixed = TRUE)
  expect_match(conditionMessage(e$parent), "too many rows")
  # An object without a predict() method: give predict_function.
  expect_error(model_profile(structure(list(), class = "no_such_model"), X),
               "<no_such_model> object has no `predict\\(\\)` method: give `predict_function`")
})

test_that("row 11: 'with the others' only when there are others; no intervals printed for a factor", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  X <- d[1:3]
  expect_message(model_profile(fit, X, variables = "x1", memory_budget = 0.001),
                 "ICE curves of x1 not kept: they would take")
  expect_message(model_profile(fit, X, variables = c("x1", "x2"), memory_budget = 0.001),
                 "with the others they would take")
  X$f <- factor(rep(c("a", "b"), 100))
  fit2 <- lm(y ~ x2 + f, cbind(X, y = d$y))
  al <- model_profile(fit2, X[c("x2", "f")], type = "accumulated", intervals = 7)
  out <- capture.output(print(al))
  expect_true(any(endsWith(out, "intervals (K): x2 = 7")))
  expect_false(any(grepl("= NA", out, fixed = TRUE)))
})

test_that("row 10: variable_splits_type is unused by interval AL, with a message", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  for (t in c("uniform", "splits")) {
    expect_message(model_profile(fit, d[1:3], variables = "x1", type = "accumulated", variable_splits_type = t),
                   "`variable_splits_type` is not used by interval AL")
  }
  expect_no_message(model_profile(fit, d[1:3], variables = "x1", type = "accumulated"))
})

test_that("row 12: citation() has a date", {
  expect_no_warning(utils::citation("modelprofiles"))
})

test_that("row 13: find_regions()'s documented grid types are the ones it takes", {
  rd <- tools::Rd_db("modelprofiles")[["find_regions.Rd"]]
  skip_if(is.null(rd), "no installed help")
  arg_text <- sub(".*\\\\item\\{grid\\}", "", paste(capture.output(print(rd)), collapse = " "))
  arg_text <- sub("\\\\item\\{.*", "", arg_text)
  expect_false(grepl("splits\"", arg_text, fixed = TRUE))
  expect_true(all(vapply(c("quantiles", "uniform", "distinct"), grepl, TRUE, x = arg_text, fixed = TRUE)))
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  expect_error(find_regions(fit, d[1:3], variable_splits_type = "splits"), "\"quantiles\", \"uniform\" or \"distinct\"")
  expect_error(find_regions(fit, d[1:3], grid = profile_grids(type = "splits")), "not \"splits\"")
})

test_that("row 5: a one-row data of model_profile() points to predict_profile()", {
  d <- bad_input_data()
  fit <- lm(y ~ x1 * x2 + x3, d)
  expect_error(model_profile(fit, d[1, 1:3]), "predict_profile\\(x, new_observation")
  cp <- predict_profile(fit, d[1, 1:3], data = d[1:3], grid_points = 5)
  expect_identical(nrow(cp), 15L)
})
