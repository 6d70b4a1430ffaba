# The tables behind the H-statistics (R/estimate_h.R): distinct values and
# tuples against plain R, and the two-way statistic of a small model
# against a plain-R evaluation of Friedman's formula.

test_that("h_distinct(): first rows and indices of the distinct values and tuples, NA included", {
  X <- data.frame(a = c(1, 2, 1, NA, 2, NA), f = factor(c("x", "y", "x", "x", "x", "x")))
  s <- test_setup(lm(a ~ f, data = data.frame(a = 1:6, f = X$f)), NULL, X)
  one <- h_distinct(s, "a")
  expect_identical(one$first, which(!duplicated(X$a)))
  expect_identical(X$a[one$first][one$index], X$a)
  two <- h_distinct(s, c("a", "f"))
  key <- paste(X$a, X$f)
  expect_identical(two$first, which(!duplicated(key)))
  expect_identical(key[two$first][two$index], key)
})

test_that("pairwise H^2 equals a plain-R evaluation of Friedman's formula", {
  set.seed(3)
  n <- 40
  X <- data.frame(a = round(rnorm(n), 1), b = round(runif(n), 1), c = rnorm(n))
  y <- X$a * X$b + X$c + rnorm(n, sd = 0.1)
  fit <- lm(y ~ a * b + c, data = cbind(X, y = y))
  # PD of columns js at every row's own values, centred (unweighted).
  pd_at_rows <- function(js) {
    v <- vapply(seq_len(n), function(i) {
      d <- X
      d[js] <- X[i, js]
      mean(predict(fit, d))
    }, numeric(1))
    v - mean(v)
  }
  fab <- pd_at_rows(c("a", "b"))
  fa <- pd_at_rows("a")
  fb <- pd_at_rows("b")
  ref <- sum((fab - fa - fb)^2) / sum(fab^2)
  res <- h_statistic(fit, X)
  pw <- res$pairwise
  k <- which(paste(pw$variable1, pw$variable2) %in% c("a b", "b a"))
  expect_length(k, 1L)
  expect_equal(pw$h2[k], ref, tolerance = 1e-10)
  # c enters additively: its overall statistic is 0.
  expect_equal(res$overall$h2[res$overall$variable == "c"], 0, tolerance = 1e-10)
})

test_that("h_statistic() by the set walk equals the tables of the predict() path", {
  skip_if_not_installed("ranger")
  set.seed(13)
  n <- 80
  X <- data.frame(a = round(rnorm(n), 1), b = runif(n), c = rnorm(n), d = rnorm(n))
  y <- X$a * X$b + X$c + rnorm(n, sd = 0.2)
  fit <- ranger::ranger(x = X, y = y, num.trees = 30, seed = 1, num.threads = 1)
  w <- runif(n, 0.5, 2)
  nat <- h_statistic(fit, X, weights = w, pairs = 4, threads = 2)
  pre <- h_statistic(fit, X, weights = w, pairs = 4, threads = 1, engine = "predict")
  expect_identical(nat$engine, "native")
  expect_equal(nat$overall, pre$overall, tolerance = 1e-12)
  expect_equal(nat$pairwise, pre$pairwise, tolerance = 1e-12)
  expect_equal(nat$total, pre$total, tolerance = 1e-12)
  expect_identical(nat$n_predictions, pre$n_predictions)
})
