test_that("PD equals the mean of ICE curves (eq. 17.2) for an lm with a factor", {
  fit <- lm(mpg ~ wt * hp + factor(cyl) + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "cyl", "qsec")]
  f <- function(d) predict(fit, d)
  res <- model_profile(fit, X, N = NULL)
  for (v in names(X)) {
    p <- profile_of(res, v)
    expect_equal(p$`_yhat_`, ref_pd(f, X, v, p$`_x_`), tolerance = 1e-12)
  }
  # Grid rule: at most grid_points distinct values -> those values.
  expect_equal(profile_of(res, "cyl")$`_x_`, c(4, 6, 8))
  expect_equal(profile_of(res, "wt")$`_x_`, sort(unique(mtcars$wt)))
})

test_that("PD over factor levels and a character column", {
  d <- data.frame(x = c(1, 2, 3, 4, 5, 6), g = factor(c("a", "b", "c", "a", "b", "c")),
                  h = c("u", "v", "u", "v", "u", "v"), stringsAsFactors = FALSE)
  f <- function(m, newdata) newdata$x * as.integer(newdata$g) + (newdata$h == "v")
  res <- model_profile(NULL, d, predict_function = f, variables = c("g", "h"))
  expect_type(res$agr_profiles$`_x_`, "character")
  expect_equal(profile_of(res, "g")$`_x_`, c("a", "b", "c"))
  expect_equal(profile_of(res, "g")$`_yhat_`, mean(d$x) * 1:3 + 0.5)
  expect_equal(profile_of(res, "h")$`_yhat_`, mean(d$x * as.integer(d$g)) + c(0, 1))
})

test_that("Table 18.4: PD of (X1 + 1) * X2 is exactly 0", {
  X <- table184()
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1",
                       variable_splits = list(x1 = seq(-1, 1, by = 0.1)))
  expect_equal(res$agr_profiles$`_yhat_`, rep(0, 21), tolerance = 1e-15)
  # ICE curves are the lines (z + 1) * x2_i.
  cp <- res$cp_profiles
  expect_equal(cp$`_yhat_`, (cp$`_x_` + 1) * X$x2[cp$`_ids_`])
})

test_that("ICE curves are the model's predictions, row by row", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  res <- model_profile(fit, X, variables = "hp", grid_points = 5)
  cp <- res$cp_profiles
  z <- profile_of(res)$`_x_`
  expect_length(z, 5)
  expect_equal(z, unname(quantile(mtcars$hp, seq(0, 1, length.out = 5))))
  ice <- ref_ice(function(d) predict(fit, d), X, "hp", z)
  expect_equal(cp$`_yhat_`, as.vector(t(ice)), tolerance = 1e-12)
  expect_equal(cp$`_ids_`, rep(seq_len(32), each = 5))
})

test_that("uniform grids and user grids", {
  fit <- lm(mpg ~ wt, data = mtcars)
  res <- model_profile(fit, mtcars["wt"], grid_points = 4, variable_splits_type = "uniform")
  expect_equal(res$grids$wt, seq(min(mtcars$wt), max(mtcars$wt), length.out = 4))
  res <- model_profile(fit, mtcars["wt"], variable_splits = list(wt = c(5, 1, 3)))
  expect_equal(res$grids$wt, c(5, 1, 3))
  expect_equal(res$agr_profiles$`_yhat_`, unname(predict(fit, data.frame(wt = c(5, 1, 3)))))
})

test_that("sampling N rows: reproducible with seed, leaves the RNG stream alone", {
  set.seed(1)
  X <- data.frame(a = rnorm(500), b = rnorm(500))
  f <- function(m, newdata) newdata$a * newdata$b + newdata$a
  set.seed(42)
  before <- .Random.seed
  r1 <- model_profile(NULL, X, predict_function = f, N = 50, seed = 3, grid_points = 7)
  expect_identical(.Random.seed, before)
  r2 <- model_profile(NULL, X, predict_function = f, N = 50, seed = 3, grid_points = 7)
  expect_identical(r1$agr_profiles, r2$agr_profiles)
  expect_equal(r1$N, 50)
  expect_equal(length(unique(r1$cp_profiles$`_ids_`)), 50)
  # The profile averages over exactly the sampled rows.
  Xs <- X[r1$rows, ]
  expect_equal(profile_of(r1, "a")$`_yhat_`,
               ref_pd(function(d) f(NULL, d), Xs, "a", profile_of(r1, "a")$`_x_`),
               tolerance = 1e-12)
  # seed = NULL draws from (and advances) the session's stream, like sample.int().
  set.seed(9)
  r3 <- model_profile(NULL, X, predict_function = f, N = 50, grid_points = 7)
  set.seed(9)
  expect_equal(r3$rows, sort(sample.int(500, 50)))
})

test_that("1 and 2 threads, chunk sizes and row order give the same PD", {
  set.seed(2)
  X <- data.frame(a = runif(300), b = rnorm(300), g = factor(sample(letters[1:3], 300, TRUE)))
  f <- function(m, newdata) sin(3 * newdata$a) * newdata$b + as.integer(newdata$g)
  r1 <- model_profile(NULL, X, predict_function = f, threads = 1)
  r2 <- model_profile(NULL, X, predict_function = f, threads = 2)
  expect_identical(r1$agr_profiles, r2$agr_profiles)
  expect_identical(r1$cp_profiles, r2$cp_profiles)
  expect_message(
    r3 <- model_profile(NULL, X, predict_function = f, memory_budget = 0.01),
    "not kept"
  )
  expect_equal(r3$agr_profiles, r1$agr_profiles, tolerance = 1e-13)
  perm <- sample(nrow(X))
  r4 <- model_profile(NULL, X[perm, ], predict_function = f)
  expect_equal(r4$agr_profiles, r1$agr_profiles, tolerance = 1e-13)
})

test_that("the user's data and model are not modified", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  X0 <- X
  fit0 <- fit
  model_profile(fit, X, type = "partial")
  model_profile(fit, X, type = "accumulated")
  model_profile(fit, X, type = "conditional")
  expect_identical(X, X0)
  expect_identical(fit, fit0)
})

test_that("PD equals pdp::partial", {
  skip_if_not_installed("pdp")
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  res <- model_profile(fit, X, grid_points = 12)
  for (v in names(X)) {
    z <- profile_of(res, v)$`_x_`
    grid <- stats::setNames(data.frame(z), v)
    p <- pdp::partial(fit, pred.var = v, pred.grid = grid, train = X)
    expect_equal(profile_of(res, v)$`_yhat_`, p$yhat, tolerance = 1e-12)
  }
})

test_that("PD equals DALEX::model_profile, explainers are accepted", {
  skip_if_not_installed("DALEX")
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  ex <- DALEX::explain(fit, data = X, y = mtcars$mpg, label = "lm-mtcars", verbose = FALSE)
  ours <- model_profile(ex, N = NULL, grid_points = 15, variable_splits_type = "uniform")
  expect_equal(ours$label, "lm-mtcars")
  theirs <- DALEX::model_profile(ex, N = NULL, grid_points = 15, variable_splits_type = "uniform")
  for (v in names(X)) {
    a <- theirs$agr_profiles[theirs$agr_profiles$`_vname_` == v, ]
    b <- profile_of(ours, v)
    expect_equal(b$`_x_`, as.numeric(a$`_x_`), tolerance = 1e-12)
    expect_equal(b$`_yhat_`, a$`_yhat_`, tolerance = 1e-12)
  }
})

test_that("a minimal explainer-like object is used without DALEX", {
  fit <- lm(mpg ~ wt, data = mtcars)
  ex <- structure(list(model = fit, data = mtcars["wt"], label = "mine",
                       predict_function = function(m, newdata) 2 * predict(m, newdata)),
                  class = "explainer")
  res <- model_profile(ex, grid_points = 3)
  expect_equal(res$label, "mine")
  expect_equal(res$agr_profiles$`_yhat_`,
               2 * unname(predict(fit, data.frame(wt = res$grids$wt))))
})

test_that("grid-major and observation-major row orders give the same numbers", {
  set.seed(11)
  X <- data.frame(a = runif(500), b = rnorm(500), g = factor(sample(c("u", "v"), 500, TRUE)))
  X$a[c(3, 50)] <- NA
  pf <- function(m, newdata) ifelse(is.na(newdata$a), 0, newdata$a) * newdata$b + as.integer(newdata$g)
  run <- function(order, ...) {
    old <- options(modelprofiles.row_order = order)
    on.exit(options(old))
    suppressWarnings(model_profile(NULL, X, predict_function = pf, grid_points = 13, ...))
  }
  for (args in list(list(type = "partial"), list(type = "conditional"),
                    list(type = "accumulated", method = "kernel"),
                    list(type = "accumulated", grid = profile_grids(intervals = 7)),
                    list(type = "accumulated", grid = profile_grids(intervals = 7), memory_budget = 0.01),
                    list(type = "partial", memory_budget = 0.02))) {
    r1 <- do.call(run, c(list("observation"), args))
    r2 <- do.call(run, c(list("grid"), args))
    expect_equal(r2$agr_profiles, r1$agr_profiles, tolerance = 1e-14)
    expect_equal(r2$cp_profiles, r1$cp_profiles, tolerance = 1e-14)
    expect_equal(r2$n_predictions, r1$n_predictions)
  }
})
