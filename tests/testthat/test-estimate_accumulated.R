test_that("interval AL equals ALEPlot's algorithm plus the mean prediction", {
  set.seed(6)
  n <- 250
  x1 <- runif(n)
  X <- data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = 0.2), x3 = round(rnorm(n), 1))
  f <- function(d) d$x1 * d$x2 + 2 * sin(3 * d$x3) + d$x2^2
  for (K in c(5, 17, 40)) {
    res <- model_profile(NULL, X, predict_function = function(m, newdata) f(newdata),
                         type = "accumulated", grid = profile_grids(intervals = K))
    expect_equal(res$mean_prediction, c(model = mean(f(X))))
    for (v in names(X)) {
      ref <- ref_al(f, X, v, K)
      p <- profile_of(res, v)
      expect_equal(p$`_x_`, ref$x)
      expect_equal(p$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-12)
      expect_equal(res$intervals[v, 1], length(ref$x) - 1L)
    }
  }
})

test_that("interval AL uses two predictions per row and variable (plus one for the mean)", {
  # ... and two rows predicted once to see the predictions' shape, which are
  # not counted in n_predictions.
  set.seed(7)
  X <- data.frame(a = rnorm(300), b = rnorm(300), c = rnorm(300))
  calls <- 0
  pf <- function(m, newdata) {
    calls <<- calls + nrow(newdata)
    newdata$a * newdata$b + newdata$c
  }
  res <- model_profile(NULL, X, predict_function = pf, type = "accumulated", grid = profile_grids(intervals = 30))
  expect_equal(calls, 2 * 300 * 3 + 300 + 2)
  expect_equal(res$n_predictions, calls - 2)
})

test_that("Table 18.4: interval AL with four intervals of two observations", {
  X <- table184()
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1",
                       type = "accumulated", grid = profile_grids(intervals = 4))
  p <- profile_of(res)
  expect_equal(p$`_x_`, c(-1, -0.71, -0.14, 0.43, 1))
  # Effect of interval k: (z_k - z_{k-1}) * mean(x2 in interval k).
  eff <- diff(p$`_x_`) * c(-0.855, -0.285, 0.285, 0.855)
  expect_equal(diff(p$`_yhat_`), eff, tolerance = 1e-12)
  # Centred with ALEPlot's count-weighted constant, shifted by the mean prediction.
  acc <- c(0, cumsum(eff))
  centre <- sum((acc[-1] + acc[-5]) / 2 * 2) / 8
  expect_equal(p$`_yhat_`, acc - centre + mean(f184(NULL, X)), tolerance = 1e-12)
})

test_that("interval and kernel AL approach (z^2 - 1) / 2 on dense Table 18.4 data", {
  x <- seq(-1, 1, length.out = 2001)
  X <- data.frame(x1 = x, x2 = x)
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1", N = NULL,
                       type = "accumulated", grid = profile_grids(intervals = 100))
  p <- profile_of(res)
  limit <- (p$`_x_`^2 - 1) / 2
  # Centred over the data (mean of the limit over U[-1, 1] is -1/3), then
  # shifted by the mean prediction E[(X + 1) X] = 1/3.
  expect_equal(p$`_yhat_`, limit + 1 / 3 + mean(f184(NULL, X)), tolerance = 1e-3)
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1", N = NULL,
                       type = "accumulated", method = "kernel", bandwidth = 0.02,
                       grid_points = 401)
  p <- profile_of(res)
  limit <- (p$`_x_`^2 - 1) / 2
  # Eq. 18.9 weights the step (z_k - delta, z_k] at its right end: a bias of
  # order delta = 2 / 400.
  expect_equal(p$`_yhat_`, limit + 1 / 3 + mean(f184(NULL, X)), tolerance = 5e-3)
})

test_that("kernel AL equals eq. 18.9", {
  set.seed(8)
  x1 <- runif(150)
  X <- data.frame(x1 = x1, x2 = x1 + rnorm(150, sd = 0.3))
  f <- function(d) d$x1 * d$x2 + d$x1^2
  res <- model_profile(NULL, X, predict_function = function(m, newdata) f(newdata),
                       type = "accumulated", method = "kernel", grid_points = 25)
  for (v in names(X)) {
    ref <- ref_al_kernel(f, X, v, 25, stats::bw.nrd0(X[[v]]))
    p <- profile_of(res, v)
    expect_equal(p$`_x_`, ref$x)
    expect_equal(p$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-10)
  }
})

test_that("AL: 1 and 2 threads and row order give the same numbers", {
  set.seed(9)
  X <- data.frame(a = rnorm(500), b = round(rnorm(500), 1))
  pf <- function(m, newdata) newdata$a^3 + newdata$a * newdata$b
  for (meth in c("interval", "kernel")) {
    r1 <- model_profile(NULL, X, predict_function = pf, type = "accumulated", method = meth, threads = 1)
    r2 <- model_profile(NULL, X, predict_function = pf, type = "accumulated", method = meth, threads = 2)
    expect_identical(r1$agr_profiles, r2$agr_profiles)
    r3 <- model_profile(NULL, X[sample(500), ], predict_function = pf, type = "accumulated", method = meth)
    expect_equal(r3$agr_profiles, r1$agr_profiles, tolerance = 1e-12)
    r4 <- model_profile(NULL, X, predict_function = pf, type = "accumulated", method = meth,
                        memory_budget = 0.005)
    expect_equal(r4$agr_profiles, r1$agr_profiles, tolerance = 1e-12)
  }
})

test_that("K larger than the number of distinct values gives fewer intervals", {
  X <- data.frame(a = rep(1:4, 5), b = seq_len(20))
  pf <- function(m, newdata) newdata$a * newdata$b
  res <- model_profile(NULL, X, predict_function = pf, variables = "a",
                       type = "accumulated", grid = profile_grids(intervals = 40))
  expect_equal(res$intervals["a", 1], 3L)
  expect_equal(profile_of(res)$`_x_`, 1:4)
  expect_equal(profile_of(res)$`_yhat_` - res$mean_prediction,
               ref_al(function(d) pf(NULL, d), X, "a", 40)$f, tolerance = 1e-12)
})

test_that("interval AL on the user's edges", {
  set.seed(81)
  X <- data.frame(a = runif(200), b = rnorm(200))
  f <- function(d) d$a^2 * d$b + d$a
  edges <- c(0, 0.2, 0.4, 0.6, 0.8, 1)
  res <- model_profile(NULL, X, function(m, d) f(d), variables = "a", type = "accumulated",
                       variable_splits = list(a = edges))
  # By hand: ALEPlot's algorithm on these edges.
  k <- as.numeric(cut(X$a, edges, include.lowest = TRUE))
  lo <- X; lo$a <- edges[k]
  hi <- X; hi$a <- edges[k + 1]
  delta <- as.vector(tapply(f(hi) - f(lo), k, mean))
  g <- c(0, cumsum(delta))
  cnt <- as.vector(table(k))
  g <- g - sum((g[-1] + g[-6]) / 2 * cnt) / sum(cnt)
  expect_equal(res$grids$a, edges)
  expect_equal(profile_of(res)$`_yhat_` - res$mean_prediction, g, tolerance = 1e-12)
  # Rows outside the edges are left out with a warning; empty intervals are an error.
  expect_warning(model_profile(NULL, X, function(m, d) f(d), variables = "a", type = "accumulated",
                               variable_splits = list(a = c(0.1, 0.5, 0.9))), "outside the edges")
  expect_error(model_profile(NULL, X, function(m, d) f(d), variables = "a", type = "accumulated",
                             variable_splits = list(a = c(0, 0.5, 0.5001, 1))), "empty")
})

test_that("kernel AL honours variable_splits; arguments an estimator does not read are named", {
  set.seed(61)
  X <- data.frame(x1 = runif(150), x2 = runif(150))
  pf <- function(m, nd) sin(3 * nd$x1) + nd$x1 * nd$x2
  bw <- c(x1 = 0.1)
  a <- model_profile(NULL, X, pf, type = "accumulated", method = "kernel", N = NULL,
                     grid_points = 9, bandwidth = bw, variables = "x1")
  z <- seq(min(X$x1), max(X$x1), length.out = 9)
  b <- model_profile(NULL, X, pf, type = "accumulated", method = "kernel", N = NULL,
                     bandwidth = bw, variables = "x1", variable_splits = list(x1 = rev(z)))
  expect_identical(b$agr_profiles$`_x_`, z)
  expect_equal(b$agr_profiles$`_yhat_`, a$agr_profiles$`_yhat_`, tolerance = 1e-13)
  # Another grid is another profile, on that grid.
  z2 <- c(0.2, 0.4, 0.6, 0.8)
  c2 <- model_profile(NULL, X, pf, type = "accumulated", method = "kernel", N = NULL,
                      bandwidth = bw, variables = "x1", variable_splits = list(x1 = z2))
  expect_identical(c2$agr_profiles$`_x_`, z2)
  expect_snapshot({
    r <- model_profile(NULL, X, pf, type = "accumulated", N = NULL, grid_points = 11, variables = "x1")
    r <- model_profile(NULL, X, pf, type = "accumulated", method = "kernel", N = NULL, grid = profile_grids(intervals = 5),
                       bandwidth = bw, variables = "x1")
    r <- model_profile(NULL, X, pf, N = NULL, bandwidth = bw, grid = profile_grids(intervals = 5), variables = "x1",
                       grid_points = 5)
  })
  expect_no_message(model_profile(NULL, X, pf, type = "conditional", method = "interval", N = NULL,
                                  grid = profile_grids(intervals = 5), grid_points = 5, variables = "x1"))
})

# $mean_prediction is the shift each AL profile was given, checked against
# plain R: the mean prediction over the rows where the variable is observed.
mean_shift_data <- function() {
  set.seed(61)
  n <- 240
  X <- data.frame(a = runif(n), b = rnorm(n), g = factor(sample(c("p", "q", "r"), n, TRUE)),
                  h = sample(c("u", "v"), n, TRUE))
  X$a[c(3, 17, 40:45)] <- NA
  X$g[c(5, 90)] <- NA
  f <- function(d) {
    a <- ifelse(is.na(d$a), 0.5, d$a)
    g <- ifelse(is.na(d$g), 0, as.integer(d$g))
    a * d$b + 2 * a^2 + g * 0.3 + (d$h == "u") * a
  }
  list(X = X, f = f, pf = function(m, nd) f(nd))
}

test_that("$mean_prediction: AL with missing values in the profiled variable", {
  s <- mean_shift_data()
  X <- s$X
  f <- s$f
  obs <- !is.na(X$a)
  res <- suppressWarnings(model_profile(NULL, X, s$pf, variables = "a", type = "accumulated",
                                        grid = profile_grids(intervals = 6), N = NULL))
  expect_equal(res$mean_prediction, c(model = mean(f(X[obs, ]))), tolerance = 1e-14)
  ref <- ref_al(f, X[obs, ], "a", 6)
  expect_equal(profile_of(res)$`_yhat_` - res$mean_prediction, ref$f, tolerance = 1e-12)
  # Weighted: the weighted mean over the observed rows.
  w <- rep(c(1, 3), length.out = nrow(X))
  rw <- suppressWarnings(model_profile(NULL, X, s$pf, variables = "a", type = "accumulated",
                                       grid = profile_grids(intervals = 6), N = NULL, weights = w))
  expect_equal(rw$mean_prediction, c(model = weighted.mean(f(X[obs, ]), w[obs])), tolerance = 1e-14)
  # Kernel AL: the same rows.
  rk <- suppressWarnings(model_profile(NULL, X, s$pf, variables = "a", type = "accumulated",
                                       method = "kernel", grid_points = 9, bandwidth = 0.1, N = NULL))
  expect_equal(rk$mean_prediction, c(model = mean(f(X[obs, ]))), tolerance = 1e-14)
  refk <- ref_al_kernel(f, X[obs, ], "a", 9, 0.1)
  expect_equal(profile_of(rk)$`_yhat_` - rk$mean_prediction, refk$f, tolerance = 1e-12)
  # A factor: the rows where it is observed.
  rg <- suppressWarnings(model_profile(NULL, X, s$pf, variables = "g", type = "accumulated",
                                       N = NULL, grid = profile_grids(level_order = "levels")))
  og <- !is.na(X$g)
  expect_equal(rg$mean_prediction, c(model = mean(f(X[og, ]))), tolerance = 1e-14)
  # Variables missing in different rows have different shifts: a matrix.
  both <- suppressWarnings(model_profile(NULL, X, s$pf, variables = c("a", "b", "g"),
                                         type = "accumulated", grid = profile_grids(intervals = 6, level_order = "levels"), N = NULL))
  expect_equal(both$mean_prediction,
               matrix(c(mean(f(X[obs, ])), mean(f(X)), mean(f(X[og, ]))), 3L,
                      dimnames = list(c("a", "b", "g"), "model")), tolerance = 1e-14)
  for (v in c("a", "b", "g")) {
    p <- profile_of(both, v)
    one <- suppressWarnings(model_profile(NULL, X, s$pf, variables = v, type = "accumulated",
                                          grid = profile_grids(intervals = 6, level_order = "levels"), N = NULL))
    expect_equal(p$`_yhat_` - both$mean_prediction[v, "model"],
                 profile_of(one)$`_yhat_` - one$mean_prediction, tolerance = 1e-12)
  }
  # Without missing values, one number per label, as before.
  full <- model_profile(NULL, X[c("b", "h")], function(m, nd) nd$b * (nd$h == "u"),
                        type = "accumulated", grid = profile_grids(intervals = 5), N = NULL)
  expect_equal(full$mean_prediction, c(model = mean(X$b * (X$h == "u"))), tolerance = 1e-14)
})

test_that("$mean_prediction: AL within subgroups, each its own or a common shift", {
  s <- mean_shift_data()
  X <- s$X
  f <- s$f
  obs <- !is.na(X$a)
  grp <- suppressWarnings(model_profile(NULL, X, s$pf, variables = "a", type = "accumulated",
                                        grid = profile_grids(intervals = 4), N = NULL, groups = "h"))
  by_h <- tapply(f(X[obs, ]), X$h[obs], mean)
  expect_equal(grp$mean_prediction, c(model_u = by_h[["u"]], model_v = by_h[["v"]]), tolerance = 1e-14)
  for (lev in c("u", "v")) {
    a <- grp$agr_profiles[grp$agr_profiles$`_groups_` == lev, ]
    ref <- ref_al(f, X[obs & X$h == lev, ], "a", 4)
    expect_equal(a$`_yhat_` - grp$mean_prediction[[paste0("model_", lev)]], ref$f, tolerance = 1e-12)
  }
  # al_shift = "common": one shift, the mean over the observed rows of all
  # subgroups, and it is what $mean_prediction says.
  com <- suppressWarnings(model_profile(NULL, X, s$pf, variables = "a", type = "accumulated",
                                        grid = profile_grids(intervals = 4), N = NULL, groups = profile_groups("h", al_shift = "common")))
  common <- mean(f(X[obs, ]))
  expect_equal(com$mean_prediction, c(model_u = common, model_v = common), tolerance = 1e-14)
  for (lev in c("u", "v")) {
    a <- com$agr_profiles[com$agr_profiles$`_groups_` == lev, ]
    ref <- ref_al(f, X[obs & X$h == lev, ], "a", 4)
    expect_equal(a$`_yhat_` - common, ref$f, tolerance = 1e-12)
  }
  # Weighted common shift: the weighted mean over the rows of both subgroups.
  w <- rep(c(2, 1, 1), length.out = nrow(X))
  cw <- suppressWarnings(model_profile(NULL, X, s$pf, variables = c("a", "b"), type = "accumulated",
                                       grid = profile_grids(intervals = 4), N = NULL, groups = profile_groups("h", al_shift = "common"),
                                       weights = w))
  expect_equal(unname(cw$mean_prediction["a", ]), rep(weighted.mean(f(X[obs, ]), w[obs]), 2), tolerance = 1e-14)
  expect_equal(unname(cw$mean_prediction["b", ]), rep(weighted.mean(f(X), w), 2), tolerance = 1e-14)
})

test_that("$mean_prediction: AL on given edges that leave rows out", {
  s <- mean_shift_data()
  X <- s$X[!is.na(s$X$a), ]
  f <- s$f
  edges <- c(0.1, 0.3, 0.5, 0.7, 0.9)
  expect_warning(res <- model_profile(NULL, X, s$pf, variables = "a", type = "accumulated",
                                      variable_splits = list(a = edges), N = NULL), "outside the edges")
  # The shift is over every observed row (those outside the edges too);
  # the accumulated effects over the rows inside.
  expect_equal(res$mean_prediction, c(model = mean(f(X))), tolerance = 1e-14)
  inside <- X[X$a >= 0.1 & X$a <= 0.9, ]
  k <- as.numeric(cut(inside$a, edges, include.lowest = TRUE))
  lo <- hi <- inside
  lo$a <- edges[k]
  hi$a <- edges[k + 1]
  delta <- as.numeric(tapply(f(hi) - f(lo), k, mean))
  g <- c(0, cumsum(delta))
  cnt <- as.numeric(table(k))
  g <- g - sum((g[-5] + g[-1]) / 2 * cnt) / sum(cnt)
  expect_equal(profile_of(res)$`_yhat_` - res$mean_prediction, g, tolerance = 1e-12)
})

test_that("kernel AL on a grid narrower than the data is centred on the rows within it, with a warning", {
  set.seed(21)
  X <- data.frame(a = rnorm(400), b = rnorm(400))
  fit <- lm(y ~ a + b, data = cbind(X, y = 2 * X$a + X$b + rnorm(400)))
  z <- seq(-0.5, 0.5, by = 0.1)
  inside <- X$a >= -0.5 & X$a <= 0.5
  for (bands in c("none", "analytic", "bootstrap")) {
    expect_warning(
      p <- model_profile(fit, X, variables = "a", type = "accumulated", method = "kernel", N = NULL,
                         variable_splits = list(a = z), bands = profile_bands(bands, B = 30), seed = 1),
      paste(sum(!inside), "background rows outside the grid")
    )
    d <- p$agr_profiles
    # A line: the accumulated slope is exact, and the centring is the mean
    # of the line over the rows within the grid.
    b_a <- coef(fit)[["a"]]
    expect_equal(d$`_yhat_`, b_a * z - b_a * mean(X$a[inside]) + mean(fitted(fit)), tolerance = 1e-10)
    if (bands != "none") {
      expect_true(all(is.finite(d$`_lower_`) & is.finite(d$`_upper_`)))
      expect_true(all(d$`_lower_` < d$`_yhat_` & d$`_yhat_` < d$`_upper_`))
    }
  }
  expect_error(
    model_profile(fit, X, variables = "a", type = "accumulated", method = "kernel",
                  variable_splits = list(a = c(10, 11, 12))),
    "No background row of a lies within its grid"
  )
})

test_that("kernel AL with center = TRUE is centred as DALEX centres it (its formula in plain R)", {
  set.seed(3)
  X <- data.frame(x1 = runif(150, 0, 2), x2 = rnorm(150))
  y <- sin(2 * X$x1) * X$x2 + X$x1 + rnorm(150, sd = 0.1)
  fit <- lm(y ~ poly(x1, 3) * x2, data = cbind(X, y))
  z <- seq(0, 2, length.out = 21)
  args <- list(fit, X, variables = "x1", N = NULL, type = "accumulated", method = "kernel", span = 0.25,
               variable_splits = list(x1 = z))
  dalex <- do.call(model_profile, c(args, center = TRUE))
  own <- do.call(model_profile, args)
  # ingredients::aggregate_profiles(type = "accumulated", center = TRUE):
  # the ICE curves' differences between grid points, weighted at each point
  # by dnorm((x_i - z) / range(z), sd = span), accumulated, then the mean
  # over the grid points set to the mean prediction.
  ice <- sapply(z, function(v) predict(fit, transform(X, x1 = v)))
  w <- outer(X$x1, z, function(a, b) dnorm((a - b) / diff(range(z)), sd = 0.25))
  d <- cbind(0, t(apply(ice, 1, diff)))
  g <- cumsum(colSums(w * d) / colSums(w))
  ref <- unname(g - mean(g) + mean(predict(fit, X)))
  expect_equal(dalex$agr_profiles$`_yhat_`, ref, tolerance = 1e-12)
  # This package's centring: the weighted mean at the rows' own values is
  # the mean prediction; the two differ by one constant.
  shift <- own$agr_profiles$`_yhat_` - ref
  expect_equal(shift, rep(shift[1], length(z)), tolerance = 1e-12)
  gx <- stats::approx(z, own$agr_profiles$`_yhat_`, X$x1)$y
  expect_equal(mean(gx), mean(predict(fit, X)), tolerance = 1e-12)
  expect_gt(abs(shift[1]), 1e-3)
  # No bands with DALEX's centring; FALSE and interval AL say what they do.
  expect_error(do.call(model_profile, c(args, center = TRUE, bands = "analytic")), "`bands` are not computed")
  expect_error(model_profile(fit, X, variables = "x1", type = "accumulated", center = FALSE),
               "`center = FALSE`")
  expect_message(model_profile(fit, X, variables = "x1", type = "accumulated", center = TRUE),
                 "interval AL keeps ALEPlot's centring")
})

test_that("kernel AL with span and center = TRUE equals DALEX::model_profile(type = 'accumulated')", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ingredients")
  set.seed(3)
  X <- data.frame(x1 = runif(120, 0, 2), x2 = rnorm(120))
  y <- sin(2 * X$x1) * X$x2 + X$x1 + rnorm(120, sd = 0.1)
  fit <- lm(y ~ poly(x1, 3) * x2, data = cbind(X, y))
  ex <- DALEX::explain(fit, data = X, y = y, verbose = FALSE, label = "lm")
  z <- seq(0, 2, length.out = 21)
  theirs <- DALEX::model_profile(ex, variables = "x1", N = NULL, type = "accumulated",
                                 variable_splits = list(x1 = z))
  ours <- model_profile(ex, variables = "x1", N = NULL, type = "accumulated", method = "kernel", span = 0.25,
                        center = TRUE, variable_splits = list(x1 = z))
  expect_equal(ours$agr_profiles$`_yhat_`, theirs$agr_profiles$`_yhat_`, tolerance = 1e-10)
  expect_equal(as.numeric(ours$agr_profiles$`_x_`), theirs$agr_profiles$`_x_`)
})
