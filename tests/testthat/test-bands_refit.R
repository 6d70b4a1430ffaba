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
  al <- model_profile(rf, X, variables = "x1", type = "accumulated", grid = profile_grids(intervals = 8))
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

test_that("refit_bands() refuses a background that is not the profile's rows, naming it", {
  set.seed(81)
  d <- data.frame(x1 = runif(200), x2 = runif(200))
  d$y <- 2 * d$x1 + d$x2 + rnorm(200, sd = 0.3)
  train <- d[1:100, ]
  test <- d[101:200, ]
  fit <- lm(y ~ x1 + x2, train)
  refit <- function(t) lm(y ~ x1 + x2, t)
  pd <- model_profile(fit, test[c("x1", "x2")], variables = "x1", grid_points = 5)
  # The motivating case: a profile of the test rows, refits on the training
  # rows, background left at its default (the training rows, as many).
  e <- expect_error(refit_bands(pd, refit, train, B = 10, seed = 1), class = "rlang_error")
  expect_match(conditionMessage(e), "`background` must be the data frame `profile` was computed from", fixed = TRUE)
  expect_match(conditionMessage(e), "differ from the profile's background rows in x1: 100 of 100 values", fixed = TRUE)
  expect_match(conditionMessage(e), sprintf("the first in row 1: %s in `background`, %s in the profile",
                                            format(train$x1[1], digits = 8), format(test$x1[1], digits = 8)),
               fixed = TRUE)
  # One changed value is found too; a missing column and too few rows are named.
  bad <- test
  bad$x1[37] <- bad$x1[37] + 1e-9
  expect_error(refit_bands(pd, refit, train, background = bad, B = 10), "1 of 100 values .*row 37")
  expect_error(refit_bands(pd, refit, train, background = test["x2"], B = 10), "no column x1")
  expect_error(refit_bands(pd, refit, train, background = test[1:50, ], B = 10), "50 rows")
  # The right background: the bands are those of the refits' PD on the test rows.
  rb <- refit_bands(pd, refit, train, background = test, B = 10, seed = 1)
  set.seed(1)
  draws <- lapply(1:10, function(b) sample.int(100, replace = TRUE))
  ref <- vapply(draws, function(idx) {
    m <- refit(train[idx, ])
    vapply(pd$grids$x1, function(v) mean(predict(m, transform(test, x1 = v))), 1)
  }, numeric(5))
  expect_equal(rb$replicates, ref, tolerance = 1e-12)
  # A sample of the rows (N < rows), with missing values where the profile
  # had them: compared row for row.
  Xn <- test[c("x1", "x2")]
  Xn$x2[c(4, 9)] <- NA
  fitn <- lm(y ~ x1, train)
  pn <- model_profile(fitn, Xn, variables = c("x1", "x2"), N = 40, seed = 2, grid_points = 4)
  rn <- refit_bands(pn, function(t) lm(y ~ x1, t), train, background = Xn, B = 10, seed = 1)
  expect_equal(dim(rn$replicates), c(nrow(pn$agr_profiles), 10L))
  Xn$x2[4] <- 0.5
  if (4 %in% pn$rows) {
    expect_error(refit_bands(pn, function(t) lm(y ~ x1, t), train, background = Xn, B = 10), "x2")
  }
})

test_that("refit_bands() refuses refits of another kind or scale than the profile's", {
  set.seed(82)
  d <- data.frame(x1 = runif(150), x2 = runif(150))
  d$y <- as.numeric(d$x1 + rnorm(150, sd = 0.3) > 0.5)
  d$cls <- factor(ifelse(d$y == 1, "yes", "no"))
  d$k3 <- factor(sample(c("a", "b", "c"), 150, TRUE))
  X <- d[c("x1", "x2")]
  reg <- lm(y ~ x1 + x2, d)
  pd <- model_profile(reg, X, variables = "x1", grid_points = 4)
  expect_identical(pd$task, "regression")
  # A classifier for a regression: probabilities, not the profiled numbers.
  e <- expect_error(refit_bands(pd, function(t) glm(y ~ x1 + x2, binomial, t), d, background = X, B = 10),
                    class = "rlang_error")
  expect_match(conditionMessage(e), "predicts another kind of thing than the profiled model")
  expect_match(conditionMessage(e), "Refit 1: the probability of class \"1\" (classification)", fixed = TRUE)
  expect_match(conditionMessage(e), "`profile`: one number per row (regression)", fixed = TRUE)
  # A classifier of the profile's class is fine; one of other classes, or of
  # three classes, is not.
  lr <- glm(cls ~ x1 + x2, binomial, d)
  pl <- model_profile(lr, X, variables = "x1", grid_points = 4)
  ok <- refit_bands(pl, function(t) glm(cls ~ x1 + x2, binomial, t), d, background = X, B = 10, seed = 1)
  expect_identical(ok$bands$type, "refit")
  # A regression for a classifier: it has no class "yes" to profile.
  e <- expect_error(refit_bands(pl, function(t) lm(y ~ x1 + x2, t), d, background = X, B = 10),
                    "cannot be profiled as `profile` was", fixed = TRUE)
  expect_match(conditionMessage(e$parent), "`class` is given, but the predict function returns one number per row",
               fixed = TRUE)
  skip_if_not_installed("nnet")
  e <- expect_error(refit_bands(pd, function(t) nnet::multinom(k3 ~ x1 + x2, t, trace = FALSE), d,
                                background = X, B = 10), "another kind")
  expect_match(conditionMessage(e), "the probabilities of classes \"a\", \"b\", \"c\" (classification), 3 profiles per variable",
               fixed = TRUE)
  mn <- nnet::multinom(k3 ~ x1 + x2, d, trace = FALSE)
  pm <- model_profile(mn, X, variables = "x1", grid_points = 4)
  expect_error(refit_bands(pm, function(t) glm(cls ~ x1 + x2, binomial, t), d, background = X, B = 10),
               "cannot be profiled")
  # A model that predicts classes, not probabilities, is refused too.
  skip_if_not_installed("ranger")
  pr <- model_profile(ranger::ranger(cls ~ x1 + x2, d, probability = TRUE, num.trees = 10, num.threads = 1),
                      X, variables = "x1", grid_points = 4)
  expect_error(refit_bands(pr, function(t) ranger::ranger(cls ~ x1 + x2, t, num.trees = 10, num.threads = 1),
                           d, background = X, B = 10), "cannot be profiled as `profile` was", fixed = TRUE)
})

test_that("a column's fingerprint is its formula, whatever the column's type and rows", {
  column_print <- get("column_print", envir = asNamespace("modelprofiles"))
  # The formula in plain R, over the whole taken column at once.
  reference <- function(x, rows = NULL) {
    xi <- if (is.null(rows)) x else x[rows]
    i <- seq_along(xi)
    z <- if (is.character(xi) || is.factor(xi)) {
      lv <- sort(unique(as.character(xi)))
      nchar(as.character(xi), "bytes") + match(as.character(xi), lv)
    } else {
      as.double(unclass(xi))
    }
    na <- is.na(z)
    z[na] <- 0
    c(sum(z), sum(z * (1 + (i %% 7))), sum(na))
  }
  set.seed(3)
  n <- 150001 # more than two blocks of the R loop
  columns <- list(
    double = c(rnorm(n - 2), NA, NaN),
    integer = sample(c(1:50, NA), n, TRUE),
    logical = sample(c(TRUE, FALSE, NA), n, TRUE),
    date = as.Date("2020-01-01") + sample(0:999, n, TRUE),
    sequence = seq_len(n), # ALTREP without a data pointer: R's loop
    factor = factor(sample(c("a", "bb", NA), n, TRUE)),
    character = sample(c("x", "yyy", NA), n, TRUE)
  )
  rows <- sample(n, 70000, TRUE)
  for (nm in names(columns)) {
    x <- columns[[nm]]
    expect_equal(column_print(x), reference(x), tolerance = 1e-13, label = nm)
    expect_equal(column_print(x, rows), reference(x, rows), tolerance = 1e-13, label = nm)
    expect_equal(column_print(x, as.numeric(rows)), reference(x, rows), tolerance = 1e-13, label = nm)
  }
  # A changed value changes the print; a moved value changes the weighted sum.
  x <- columns$double
  y <- x
  y[10] <- y[10] + 1e-6
  expect_false(isTRUE(all.equal(column_print(x), column_print(y), tolerance = 1e-12)))
  y <- x
  y[c(1, 2)] <- y[c(2, 1)]
  expect_false(isTRUE(all.equal(column_print(x)[2], column_print(y)[2], tolerance = 1e-12)))
})
