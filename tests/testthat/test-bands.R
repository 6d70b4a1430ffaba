# Sampling bands (R/bands.R, R/bands_accumulated.R): the analytic standard
# errors against plain-R computations of the documented formulas, the
# bootstrap replicates against plain-R recomputations of each estimator
# with the resample's counts as weights, and the plumbing (no extra
# predictions, unchanged profiles, threads, seeds, errors).

# The documented standard error of a weighted mean, written out.
ref_se <- function(y, k) {
  m <- sum(k * y) / sum(k)
  n_eff <- sum(k)^2 / sum(k^2)
  sqrt(n_eff / (n_eff - 1) * sum(k^2 * (y - m)^2)) / sum(k)
}

bands_data <- function(n = 120, seed = 7) {
  set.seed(seed)
  X <- data.frame(x1 = runif(n), x2 = rnorm(n), x3 = runif(n))
  X$x2 <- X$x2 + X$x1
  X
}
bands_f <- function(X) sin(3 * X$x1) + X$x1 * X$x2 + 0.5 * X$x3^2
bands_pf <- function(model, newdata) bands_f(newdata)

# The resampling counts a call with `seed` draws (after sampling N of n
# rows; all rows here).
ref_counts <- function(seed, n, B) {
  set.seed(seed)
  vapply(seq_len(B), function(b) tabulate(sample.int(n, n, replace = TRUE), n), integer(n))
}

test_that("analytic PD bands are the standard errors of the mean ICE values, with weights", {
  X <- bands_data()
  w <- rep(c(1, 2.5, 0.5), length.out = nrow(X))
  for (wt in list(NULL, w)) {
    p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 7,
                       bands = profile_bands("analytic", level = 0.9), weights = wt)
    a <- p$agr_profiles
    k <- if (is.null(wt)) rep(1, nrow(X)) else wt
    ice <- ref_ice(bands_f, X, "x1", a$`_x_`)
    se <- apply(ice, 2, ref_se, k = k)
    expect_equal(a$`_se_`, se, tolerance = 1e-10)
    expect_equal(a$`_lower_`, a$`_yhat_` - qnorm(0.95) * se, tolerance = 1e-10)
    expect_equal(a$`_upper_`, a$`_yhat_` + qnorm(0.95) * se, tolerance = 1e-10)
    if (is.null(wt)) expect_equal(se, apply(ice, 2, sd) / sqrt(nrow(X)), tolerance = 1e-12)
  }
})

test_that("analytic LD bands use the kernel and interval weights per grid point", {
  X <- bands_data()
  s <- 0.15
  p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", type = "conditional",
                     grid_points = 6, bandwidth = s, bands = "analytic")
  a <- p$agr_profiles
  ice <- ref_ice(bands_f, X, "x1", a$`_x_`)
  se <- vapply(seq_len(nrow(a)), function(g) ref_se(ice[, g], dnorm(a$`_x_`[g] - X$x1, 0, s)), 1)
  expect_equal(a$`_se_`, se, tolerance = 1e-10)

  p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", type = "conditional",
                     method = "interval", grid = profile_grids(intervals = 4), grid_points = 6, bands = "analytic")
  a <- p$agr_profiles
  e <- ref_edges(X$x1, 4)
  kx <- cut(X$x1, e, include.lowest = TRUE)
  kz <- cut(a$`_x_`, e, include.lowest = TRUE)
  se <- vapply(seq_len(nrow(a)), function(g) {
    Xi <- X[kx == kz[g], ]
    Xi$x1 <- a$`_x_`[g]
    ref_se(bands_f(Xi), rep(1, nrow(Xi)))
  }, 1)
  expect_equal(a$`_se_`, se, tolerance = 1e-10)
})

test_that("analytic LD bands of a factor are the standard errors of the level means", {
  X <- bands_data()
  X$g <- factor(rep(c("a", "b", "c"), length.out = nrow(X)))
  f <- function(model, newdata) bands_f(newdata) + as.integer(newdata$g)
  w <- rep(1:4, length.out = nrow(X))
  p <- model_profile("m", X, predict_function = f, variables = "g", type = "conditional",
                     bands = "analytic", weights = w)
  a <- p$agr_profiles
  y <- f(NULL, X)
  se <- vapply(as.character(a$`_x_`), function(l) ref_se(y[X$g == l], w[X$g == l]), 1)
  expect_equal(a$`_se_`, unname(se), tolerance = 1e-10)
})

# Interval AL's standard errors, written out: the profile at edge g is
# sum_t A[g, t] m_t - c + the mean prediction, with A from ALEPlot's
# centring in closed form; each row's influence is A[, k(i)] w_i (d_i -
# m_k) / W_k, plus w_i (f_i - mean f) / W, less w_i (mid_k - c) / W through
# the interval shares of the centring; the interval means with their own
# factor n_eff / (n_eff - 1), the rest with that of all rows.
ref_al_se <- function(X, v, z, w) {
  K <- length(z) - 1
  le <- ref_local_effects(bands_f, X, v, z)
  k <- le$k
  d <- le$d
  Wk <- as.numeric(tapply(w, k, sum))
  m <- as.numeric(tapply(w * d, k, sum)) / Wk
  pi <- Wk / sum(Wk)
  A <- outer(0:K, 1:K, function(g, t) as.numeric(t <= g)) -
    matrix(rev(cumsum(rev(pi))) - pi / 2, K + 1, K, byrow = TRUE)
  acc <- c(0, cumsum(m))
  mid <- (acc[-1] + acc[-(K + 1)]) / 2
  cc <- sum(pi * mid)
  f <- bands_f(X)
  a <- w * (d - m[k]) / Wk[k]
  e <- w * (f - sum(w * f) / sum(w)) / sum(w) - w * (mid[k] - cc) / sum(w)
  neff <- function(x) sum(x)^2 / sum(x^2)
  se2 <- neff(w) / (neff(w) - 1) * sum(e^2)
  for (j in 1:K) {
    in_j <- k == j
    fj <- neff(w[in_j]) / (neff(w[in_j]) - 1)
    se2 <- se2 + fj * (A[, j]^2 * sum(a[in_j]^2) + 2 * A[, j] * sum(a[in_j] * e[in_j]))
  }
  list(x = z, se = sqrt(se2))
}

test_that("analytic interval AL bands propagate the centring and the shift exactly", {
  X <- bands_data()
  for (w in list(rep(1, nrow(X)), rep(c(1, 3, 0.5), length.out = nrow(X)))) {
    p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", type = "accumulated",
                       grid = profile_grids(intervals = 6), bands = "analytic", weights = w)
    # (Weighted edges are weighted quantiles; they are tested elsewhere.)
    if (all(w == 1)) expect_equal(p$agr_profiles$`_x_`, ref_edges(X$x1, 6))
    ref <- ref_al_se(X, "x1", p$agr_profiles$`_x_`, w)
    expect_equal(p$agr_profiles$`_se_`, ref$se, tolerance = 1e-10)
  }
})

test_that("bootstrap replicates recompute each estimator with the resample's counts", {
  X <- bands_data(80)
  B <- 25
  counts <- ref_counts(11, nrow(X), B)
  p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 5,
                     bands = profile_bands("bootstrap", level = 0.8, B = B), seed = 11)
  a <- p$agr_profiles
  ice <- ref_ice(bands_f, X, "x1", a$`_x_`)
  expect_equal(p$replicates, t(ice) %*% counts / nrow(X), tolerance = 1e-12)
  q <- t(apply(p$replicates, 1, quantile, c(0.1, 0.9), names = FALSE))
  expect_equal(cbind(a$`_lower_`, a$`_upper_`), q)

  # Interval AL: edges fixed, interval means and shift with the counts.
  p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", type = "accumulated",
                     grid = profile_grids(intervals = 5), bands = profile_bands("bootstrap", B = B), seed = 11)
  z <- ref_edges(X$x1, 5)
  le <- ref_local_effects(bands_f, X, "x1", z)
  k <- le$k
  d <- le$d
  f <- bands_f(X)
  ref <- vapply(seq_len(B), function(b) {
    cw <- counts[, b]
    n_k <- as.numeric(tapply(cw, factor(k, 1:5), sum))
    g <- c(0, cumsum(as.numeric(tapply(cw * d, factor(k, 1:5), sum)) / n_k))
    g - sum((g[-1] + g[-6]) / 2 * n_k) / sum(n_k) + sum(cw * f) / sum(cw)
  }, numeric(6))
  expect_equal(p$replicates, ref, tolerance = 1e-10)
})

test_that("bands change no profile, make no extra prediction, and do not depend on threads", {
  X <- bands_data()
  for (type in c("partial", "conditional", "accumulated")) {
    p0 <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 9)
    p1 <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 9,
                        bands = "analytic")
    p2 <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 9,
                        bands = profile_bands("bootstrap", B = 30), seed = 3, threads = 1)
    p3 <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 9,
                        bands = profile_bands("bootstrap", B = 30), seed = 3, threads = 2)
    expect_identical(p1$agr_profiles$`_yhat_`, p0$agr_profiles$`_yhat_`)
    expect_identical(p2$agr_profiles$`_yhat_`, p0$agr_profiles$`_yhat_`)
    expect_identical(p1$n_predictions, p0$n_predictions)
    expect_identical(p2$n_predictions, p0$n_predictions)
    expect_identical(p2$replicates, p3$replicates)
    expect_true(all(p1$agr_profiles$`_lower_` <= p1$agr_profiles$`_yhat_`, na.rm = TRUE))
    expect_true(mean(p2$agr_profiles$`_lower_` <= p2$agr_profiles$`_yhat_` &
                       p2$agr_profiles$`_yhat_` <= p2$agr_profiles$`_upper_`, na.rm = TRUE) > 0.9)
    expect_identical(p2$bands, list(type = "bootstrap", level = 0.95, B = 30L))
  }
})

test_that("analytic and bootstrap standard errors agree on a large sample", {
  X <- bands_data(3000, seed = 5)
  for (type in c("partial", "accumulated")) {
    a <- model_profile("m", X, predict_function = bands_pf, variables = "x1", type = type,
                       grid_points = 6, grid = profile_grids(intervals = 5), bands = "analytic")
    b <- model_profile("m", X, predict_function = bands_pf, variables = "x1", type = type,
                       grid_points = 6, grid = profile_grids(intervals = 5), bands = profile_bands("bootstrap", B = 400), seed = 1)
    expect_equal(apply(b$replicates, 1, sd), a$agr_profiles$`_se_`, tolerance = 0.15)
  }
})

test_that("classifiers and subgroups get bands per class and per subgroup", {
  skip_if_not_installed("nnet")
  mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  p <- model_profile(mn, iris[1:4], variables = "Petal.Length", grid_points = 5, bands = "analytic")
  a <- p$agr_profiles
  probs <- sapply(a$`_x_`[a$`_label_` == a$`_label_`[1]], function(z) {
    d <- iris[1:4]
    d$Petal.Length <- z
    predict(mn, d, type = "probs")[, "virginica"]
  })
  virg <- a[grepl("virginica", a$`_label_`), ]
  expect_equal(virg$`_se_`, apply(probs, 2, sd) / sqrt(150), tolerance = 1e-8)

  X <- bands_data()
  g <- rep(c("u", "v"), length.out = nrow(X))
  p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 4,
                     bands = "analytic", groups = g)
  a <- p$agr_profiles
  ice <- ref_ice(bands_f, X[g == "v", ], "x1", a$`_x_`[a$`_groups_` == "v"])
  expect_equal(a$`_se_`[a$`_groups_` == "v"], apply(ice, 2, sd) / sqrt(sum(g == "v")), tolerance = 1e-10)
})

test_that("print() says which bands a profile has", {
  X <- bands_data(40)
  p <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 4,
                     bands = profile_bands("bootstrap", level = 0.9, B = 20), seed = 1)
  expect_true(any(grepl("bands: 90% pointwise, 20 bootstrap resamples of the background rows",
                        capture.output(print(p)), fixed = TRUE)))
})

test_that("bad band arguments are errors that name them", {
  X <- bands_data(30)
  expect_error(model_profile("m", X, predict_function = bands_pf, bands = "jackknife"), "bands")
  expect_error(model_profile("m", X, predict_function = bands_pf, bands = profile_bands("analytic", level = 95)), "level")
  expect_error(model_profile("m", X, predict_function = bands_pf, bands = profile_bands("bootstrap", B = 3)), "B")
  expect_error(model_profile("m", X, predict_function = bands_pf, bands = "analytic", k = 2), "bands")
  expect_error(model_profile("m", X, predict_function = bands_pf, bands = profile_bands("bootstrap", B = 1e6),
                             memory_budget = 16), "resamples")
})

test_that("profile_bands() makes a checked band setting that prints itself", {
  b <- profile_bands("bootstrap", level = 0.9, B = 100)
  expect_s3_class(b, "mp_bands")
  expect_identical(unclass(b), list(type = "bootstrap", level = 0.9, B = 100L))
  expect_identical(unclass(profile_bands()), list(type = "bootstrap", level = 0.95, B = 200L))
  expect_output(print(b), "<mp_bands> 90% pointwise, 100 bootstrap resamples of the background rows")
  expect_output(print(profile_bands("none")), "no bands")
  expect_error(profile_bands("jackknife"), "`type` must be one of")
  expect_error(profile_bands("analytic", level = 1), "`level` must be a single number between 0 and 1")
  expect_error(profile_bands("bootstrap", B = 5), "`B` must be a whole number from 10")
  X <- bands_data(30)
  # A kind the entry point does not take, a setting and level given twice,
  # a value that is neither.
  expect_error(h_statistic(NULL, X, predict_function = bands_pf, bands = profile_bands("analytic")),
               "`bands` must be of type \"none\" or \"bootstrap\", not \"analytic\"")
  expect_error(suppressWarnings(model_profile("m", X, predict_function = bands_pf,
                                              bands = profile_bands("analytic"), level = 0.9)),
               "Give `level` and `B` in `bands`")
  expect_error(model_profile("m", X, predict_function = bands_pf, bands = 0.9), "profile_bands")
  # A setting of kind "none" with k (clusters) is no band.
  k <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 4, k = 2,
                     bands = profile_bands("none"), seed = 1)
  expect_s3_class(k, "mp_profile")
})

test_that("level and B of an entry point still work, with one deprecation warning, and the same numbers", {
  X <- bands_data(40)
  new <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 4,
                       bands = profile_bands("bootstrap", level = 0.9, B = 20), seed = 1)
  w <- testthat::capture_warnings(
    old <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 4,
                         bands = "bootstrap", level = 0.9, B = 20, seed = 1)
  )
  expect_length(w, 1L)
  expect_warning(model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 4,
                               bands = "bootstrap", level = 0.9, B = 20, seed = 1),
                 class = "deprecated")
  expect_match(w, "bands = profile_bands(\"bootstrap\", level = 0.9, B = 20)", fixed = TRUE)
  expect_identical(old$agr_profiles, new$agr_profiles)
  expect_identical(old$replicates, new$replicates)
  expect_identical(old$bands, new$bands)
  # The other entry points, one argument each.
  expect_warning(a2 <- model_profile_2d("m", X, predict_function = bands_pf, variables = c("x1", "x2"),
                                        grid_points = 3, bands = "analytic", level = 0.8),
                 "`level` argument is deprecated", class = "deprecated")
  expect_identical(a2$bands, list(type = "analytic", level = 0.8, B = 200L))
  expect_warning(h <- h_statistic(NULL, X, predict_function = bands_pf, pairs = 2, bands = "bootstrap",
                                  B = 10, seed = 3),
                 "`B` argument is deprecated", class = "deprecated")
  expect_identical(h$bands, list(type = "bootstrap", level = 0.95, B = 10L))
  expect_warning(cmp <- compare_profiles(NULL, X, predict_function = bands_pf, variables = "x1", grid_points = 4,
                                         grid = profile_grids(intervals = 3), bands = "bootstrap", B = 10, seed = 3),
                 class = "deprecated")
  expect_identical(cmp$bands, list(type = "bootstrap", level = 0.95, B = 10L))
  # Validated as before.
  expect_error(suppressWarnings(model_profile("m", X, predict_function = bands_pf, bands = "analytic", level = 95)),
               "level")
})

test_that("plots draw the bands as ribbons, centred with the profile", {
  X <- bands_data()
  p <- model_profile("m", X, predict_function = bands_pf, variables = c("x1", "x2"), grid_points = 8,
                     bands = "analytic")
  ld <- ggplot2::layer_data(pp <- plot(p), layer_at(pp, column = "_label_"))
  expect_true(all(c("ymin", "ymax") %in% names(ld)))
  expect_equal(sort(ld$ymin), sort(p$agr_profiles$`_lower_`))
  expect_false(any(vapply(ggplot2::ggplot_build(plot(p, bands = FALSE))$data, function(d) "ymin" %in% names(d), logical(1))))
  # Centred at the first grid point: the band of the mean of the centred curves.
  pc <- ggplot2::layer_data(plot(p, geom = "profiles", center = "first", variables = "x1"), 1L)
  ice <- ref_ice(bands_f, X, "x1", p$agr_profiles$`_x_`[1:8])
  se <- apply(ice - ice[, 1], 2, sd) / sqrt(nrow(X))
  expect_equal(pc$ymax - pc$ymin, 2 * qnorm(0.975) * se, tolerance = 1e-10)
  b <- model_profile("m", X, predict_function = bands_pf, variables = "x1", grid_points = 8,
                     bands = profile_bands("bootstrap", B = 40), seed = 2)
  bc <- ggplot2::layer_data(plot(b, geom = "profiles", center = "first"), 1L)
  expect_equal(bc$ymin[1], 0)
  expect_equal(bc$ymax[1], 0)
})

test_that("2-D PD bands are the standard errors of the mean ICE values per cell", {
  X <- bands_data()
  p <- model_profile_2d("m", X, predict_function = bands_pf, variables = c("x1", "x2"),
                        grid_points = 4, bands = "analytic")
  a <- p$agr_profiles
  se <- vapply(seq_len(nrow(a)), function(r) {
    Xz <- X
    Xz$x1 <- a$`_x_`[r]
    Xz$x2 <- a$`_x2_`[r]
    sd(bands_f(Xz)) / sqrt(nrow(X))
  }, 1)
  expect_equal(a$`_se_`, se, tolerance = 1e-10)
  b <- model_profile_2d("m", X, predict_function = bands_pf, variables = c("x1", "x2"),
                        grid_points = 4, bands = profile_bands("bootstrap", B = 20), seed = 4)
  counts <- ref_counts(4, nrow(X), 20)
  ref <- t(vapply(seq_len(nrow(a)), function(r) {
    Xz <- X
    Xz$x1 <- a$`_x_`[r]
    Xz$x2 <- a$`_x2_`[r]
    as.vector(bands_f(Xz) %*% counts) / nrow(X)
  }, numeric(20)))
  expect_equal(b$replicates, ref, tolerance = 1e-10)
  expect_identical(b$agr_profiles$`_yhat_`, a$`_yhat_`)
})

test_that("2-D AL bands: no interaction has none, and analytic agrees with the bootstrap", {
  X <- bands_data(2000, seed = 9)
  add <- function(model, newdata) sin(3 * newdata$x1) + newdata$x2^2
  p <- model_profile_2d("m", X, predict_function = add, variables = c("x1", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = "analytic")
  expect_equal(max(abs(p$agr_profiles$`_se_`)), 0, tolerance = 1e-8)
  int <- function(model, newdata) newdata$x1 * newdata$x2 * (1 + newdata$x3)
  a <- model_profile_2d("m", X, predict_function = int, variables = c("x1", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = "analytic")
  b <- model_profile_2d("m", X, predict_function = int, variables = c("x1", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = profile_bands("bootstrap", B = 300), seed = 2)
  expect_identical(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`)
  expect_equal(apply(b$replicates, 1, sd), a$agr_profiles$`_se_`, tolerance = 0.15)
  # A categorical axis (swapped to come first) keeps the cells' order.
  X$g <- factor(sample(c("a", "b", "c"), nrow(X), replace = TRUE))
  fg <- function(model, newdata) newdata$x1 * as.integer(newdata$g) * (1 + newdata$x3)
  a <- model_profile_2d("m", X, predict_function = fg, variables = c("x1", "g"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = "analytic")
  b <- model_profile_2d("m", X, predict_function = fg, variables = c("x1", "g"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = profile_bands("bootstrap", B = 300), seed = 2)
  expect_equal(apply(b$replicates, 1, sd), a$agr_profiles$`_se_`, tolerance = 0.2)
})

test_that("2-D AL analytic bands include the cells' counts, which weigh the surface", {
  # x1 x2: the second differences do not vary within a cell, so the
  # sampling of the surface is all in the counts that weigh the removal of
  # the first-order effects and the centring (correlated x1, x2).
  set.seed(5)
  n <- 1500
  x1 <- rnorm(n)
  X <- data.frame(x1 = x1, x2 = 0.7 * x1 + sqrt(0.51) * rnorm(n), x3 = runif(n))
  prod <- function(model, newdata) newdata$x1 * newdata$x2
  a <- model_profile_2d("m", X, predict_function = prod, variables = c("x1", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = "analytic")
  b <- model_profile_2d("m", X, predict_function = prod, variables = c("x1", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = profile_bands("bootstrap", B = 400), seed = 2)
  expect_true(all(a$agr_profiles$`_se_` > 1e-3))
  expect_equal(apply(b$replicates, 1, sd), a$agr_profiles$`_se_`, tolerance = 0.15)
  # A factor axis.
  X$g <- factor(c("a", "b", "c")[findInterval(X$x1 + rnorm(n), c(-Inf, -0.5, 0.5, Inf))])
  fg <- function(model, newdata) newdata$x2 * as.integer(newdata$g)
  a <- model_profile_2d("m", X, predict_function = fg, variables = c("g", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = "analytic")
  b <- model_profile_2d("m", X, predict_function = fg, variables = c("g", "x2"),
                        type = "accumulated", grid = profile_grids(intervals = 4), N = NULL, bands = profile_bands("bootstrap", B = 400), seed = 2)
  expect_true(all(a$agr_profiles$`_se_` > 1e-3))
  expect_equal(apply(b$replicates, 1, sd), a$agr_profiles$`_se_`, tolerance = 0.15)
})

test_that("the counts' Jacobian of a 2-D AL surface equals central differences", {
  set.seed(3)
  D <- matrix(rnorm(12), 3, 4)
  b <- matrix(rpois(12, 20) + 1, 3, 4)
  S <- function(b) modelprofiles:::center_ale_2d(D, b)
  J <- modelprofiles:::count_jacobian(S, b)
  h <- 1e-5
  ref <- vapply(seq_along(b), function(c) {
    up <- b
    dn <- b
    up[c] <- b[c] + h
    dn[c] <- b[c] - h
    as.vector(S(up) - S(dn)) / (2 * h)
  }, numeric(20))
  expect_equal(J, ref, tolerance = 1e-7)
  # Homogeneous of degree 0 in the counts: J b = 0.
  expect_equal(max(abs(J %*% as.vector(b))), 0, tolerance = 1e-10)
  bl <- matrix(rpois(16, 20) + 1, 4, 4)
  Sl <- function(b) modelprofiles:::center_ale_2d_levels(D, b)
  Jl <- modelprofiles:::count_jacobian(Sl, bl)
  refl <- vapply(seq_along(bl), function(c) {
    up <- bl
    dn <- bl
    up[c] <- bl[c] + h
    dn[c] <- bl[c] - h
    as.vector(Sl(up) - Sl(dn)) / (2 * h)
  }, numeric(20))
  expect_equal(Jl, refl, tolerance = 1e-7)
})

test_that("bands accumulated over many chunks equal those of one chunk", {
  X <- bands_data(400)
  for (type in c("partial", "conditional")) {
    one <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 11,
                         bands = "analytic")
    many <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 11,
                          bands = "analytic", memory_budget = 0.05)
    expect_equal(many$agr_profiles$`_se_`, one$agr_profiles$`_se_`, tolerance = 1e-12)
    b1 <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 11,
                        bands = profile_bands("bootstrap", B = 20), seed = 1)
    b2 <- model_profile("m", X, predict_function = bands_pf, type = type, grid_points = 11,
                        bands = profile_bands("bootstrap", B = 20), seed = 1, memory_budget = 0.2)
    expect_equal(b2$replicates, b1$replicates, tolerance = 1e-12)
  }
  # A prediction scale far from 0: the moments do not cancel.
  shifted <- function(model, newdata) 1e6 + bands_f(newdata)
  p <- model_profile("m", X, predict_function = shifted, variables = "x1", grid_points = 5,
                     bands = "analytic", memory_budget = 0.05)
  ice <- ref_ice(bands_f, X, "x1", p$agr_profiles$`_x_`)
  expect_equal(p$agr_profiles$`_se_`, apply(ice, 2, sd) / sqrt(nrow(X)), tolerance = 1e-9)
})

test_that("bands are the same under a multisession plan", {
  skip_on_cran()
  skip_if_not_installed("future")
  X <- bands_data(200)
  run <- function() {
    lapply(c("partial", "conditional", "accumulated"), function(t) {
      p <- model_profile("m", X, predict_function = bands_pf, type = t, bands = profile_bands("bootstrap", B = 20),
                         seed = 2, memory_budget = 0.3, keep_ice = FALSE)
      list(p$agr_profiles, p$replicates)
    })
  }
  a <- run()
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  expect_identical(run(), a)
})

test_that("resample counts are R's own draws, and linear PD's bootstrap needs no table", {
  for (n in c(1L, 7L, 500L)) {
    set.seed(3)
    ref <- vapply(seq_len(40), function(b) tabulate(sample.int(n, n, replace = TRUE), n), integer(n))
    after_ref <- runif(1)
    set.seed(3)
    got <- draw_resamples(n, 40)
    expect_identical(got, matrix(ref, n))
    expect_identical(runif(1), after_ref)
  }
  set.seed(2)
  X <- data.frame(a = rnorm(300), b = rnorm(300))
  fit <- lm(y ~ a * b, data = cbind(X, y = X$a * X$b + X$a + rnorm(300)))
  lin <- model_profile(fit, X, N = NULL, grid_points = 9, keep_ice = FALSE, bands = profile_bands("bootstrap", B = 50), seed = 1)
  pre <- model_profile(fit, X, N = NULL, grid_points = 9, keep_ice = FALSE, bands = profile_bands("bootstrap", B = 50), seed = 1,
                       engine = "predict")
  expect_identical(lin$engine, "native")
  expect_equal(lin$replicates, pre$replicates, tolerance = 1e-12)
  expect_equal(lin$agr_profiles, pre$agr_profiles, tolerance = 1e-12)
  # Analytic bands of the linear engine's curves (five sums a chunk, no
  # table) are those of the predicted table, also in several chunks and
  # with weights.
  w <- runif(300)
  lin <- model_profile(fit, X, N = NULL, grid_points = 9, keep_ice = FALSE, bands = "analytic", weights = w,
                       memory_budget = 0.02)
  pre <- model_profile(fit, X, N = NULL, grid_points = 9, keep_ice = FALSE, bands = "analytic", weights = w,
                       memory_budget = 0.02, engine = "predict")
  expect_identical(lin$engine, "native")
  expect_gt(min(lin$agr_profiles$`_se_`), 0)
  expect_equal(lin$agr_profiles, pre$agr_profiles, tolerance = 1e-12)
})

test_that("the resamples are tabulate(sample.int()) of R's stream, which continues as after it", {
  ref <- function(n, B) matrix(vapply(seq_len(B), function(b) tabulate(sample.int(n, n, replace = TRUE), n),
                                      integer(n)), n, B)
  for (n in c(1L, 2L, 7L, 1000L, 32769L, 65536L, 65537L)) {
    for (seed in 1:2) {
      B <- if (n > 30000) 2L else 5L
      set.seed(seed)
      a <- ref(n, B)
      after_a <- runif(3)
      set.seed(seed)
      b <- modelprofiles:::draw_resamples(n, B)
      after_b <- runif(3)
      expect_identical(b, a, info = paste(n, seed))
      expect_identical(after_b, after_a, info = paste(n, seed))
    }
  }
  # Another generator, and the rounding sampler: through R_unif_index().
  kind <- RNGkind()
  on.exit(RNGkind(kind[1], kind[2], kind[3]), add = TRUE)
  suppressWarnings(RNGkind("Mersenne-Twister", "Inversion", "Rounding"))
  set.seed(4)
  a <- suppressWarnings(ref(300L, 3L))
  set.seed(4)
  expect_identical(modelprofiles:::draw_resamples(300L, 3L), a)
  RNGkind("L'Ecuyer-CMRG", "Inversion", "Rejection")
  set.seed(4)
  a <- ref(300L, 3L)
  set.seed(4)
  expect_identical(modelprofiles:::draw_resamples(300L, 3L), a)
})

test_that("resampled sums and products equal plain R's, with 1 and 2 threads", {
  set.seed(3)
  n <- 500L
  B <- 30L
  counts <- modelprofiles:::draw_resamples(n, B)
  idx <- sample(n, 350, replace = TRUE)
  y <- matrix(rnorm(350 * 3), 350)
  w <- runif(350)
  grp <- sample(5L, 350, replace = TRUE)
  grp[grp == 4L] <- 5L # an empty group
  C <- counts[idx, ] * w
  sums <- function(th) {
    modelprofiles:::resample_sums(list(resamples = counts, threads = th), idx, y, w, grp, 5L)
  }
  s1 <- sums(1L)
  expect_identical(sums(2L), s1)
  # Plain R: for each group and resample, the sums over its entries.
  for (k in 1:5) {
    in_k <- grp == k
    for (j in 1:3) {
      expect_equal(s1$sum[(j - 1) * 5 + k, ], colSums(C[in_k, , drop = FALSE] * y[in_k, j]), tolerance = 1e-13)
    }
    expect_equal(s1$wsum[k, ], colSums(C[in_k, , drop = FALSE]), tolerance = 1e-13)
  }
  expect_identical(s1$wsum[4L, ], rep(0, B))
  one <- modelprofiles:::resample_sums(list(resamples = counts, threads = 2L), idx, y[, 1:2], w)
  expect_equal(one$sum, crossprod(y[, 1:2], C), tolerance = 1e-13)
  expect_equal(one$wsum, matrix(colSums(C), 1L), tolerance = 1e-13)
  M <- matrix(rnorm(4 * 350), 4)
  P <- function(th, w) modelprofiles:::resample_product(list(resamples = counts, threads = th), M, idx, w)
  expect_equal(P(1L, w), M %*% C, tolerance = 1e-13)
  expect_identical(P(2L, w), P(1L, w))
  expect_equal(P(2L, NULL), M %*% counts[idx, ], tolerance = 1e-13)
})

test_that("resampled sums add each group's entries in their order, whatever order the entries come in", {
  # The entries' sums, one addition at a time in the entries' order: what
  # the C++ loops must give exactly (also when they take the entries in
  # the order of their rows, or four resamples at a time).
  plain <- function(counts, idx, grp, K, w, y) {
    B <- ncol(counts)
    S <- matrix(0, K * ncol(y), B)
    W <- matrix(0, K, B)
    for (b in seq_len(B)) {
      cw <- counts[idx, b] * w
      for (i in seq_along(idx)) {
        k <- grp[i]
        for (j in seq_len(ncol(y))) S[k + K * (j - 1L), b] <- S[k + K * (j - 1L), b] + cw[i] * y[i, j]
        W[k, b] <- W[k, b] + cw[i]
      }
    }
    list(sum = S, wsum = W)
  }
  set.seed(11)
  n <- 400L
  counts <- modelprofiles:::draw_resamples(n, 7L)
  y <- matrix(rnorm(n * 3), n)
  w <- runif(n)
  g <- sample(6L, n, replace = TRUE)
  by_group <- order(g) # rows increasing within each group
  cases <- list(
    grouped = list(idx = by_group, grp = g[by_group], K = 6L, y = y[by_group, ], w = w[by_group]),
    rows = list(idx = seq_len(n), grp = g, K = 6L, y = y, w = w),
    shuffled = list(idx = sample(n), grp = g, K = 6L, y = y, w = w),
    one = list(idx = seq_len(n), grp = rep(1L, n), K = 1L, y = y[, 1:2], w = w),
    one_reversed = list(idx = rev(seq_len(n)), grp = rep(1L, n), K = 1L, y = y[, 2:1], w = w)
  )
  for (nm in names(cases)) {
    a <- cases[[nm]]
    ref <- plain(counts, a$idx, a$grp, a$K, a$w, a$y)
    for (th in 1:2) {
      got <- modelprofiles:::resample_sums(list(resamples = counts, threads = th), a$idx, a$y, a$w,
                                           if (a$K > 1L) a$grp, a$K)
      expect_identical(got$sum, ref$sum, info = nm)
      expect_identical(got$wsum, ref$wsum, info = nm)
    }
  }
})

test_that("the percentile limits are quantile()'s, type 7, NA where half the replicates are missing", {
  set.seed(5)
  R <- matrix(rnorm(40 * 25), 40)
  R[2, 1:13] <- NA
  R[3, 1:12] <- NaN
  R[4, ] <- rep(1:5, 5)
  R[5, ] <- c(Inf, rnorm(24))
  lim <- modelprofiles:::band_limits(rep(0, 40), 0.9, reps = R)
  ref <- t(apply(R, 1, function(r) {
    if (sum(!is.na(r)) < length(r) / 2) return(c(NA, NA))
    quantile(r, c((1 - 0.9) / 2, 1 - (1 - 0.9) / 2), na.rm = TRUE, names = FALSE, type = 7)
  }))
  expect_identical(lim$lower, ref[, 1])
  expect_identical(lim$upper, ref[, 2])
})

test_that("influence sums of squares equal plain R's n x values matrix, for any number of threads", {
  set.seed(8)
  n <- 700L
  G <- 9L
  K <- 5L
  A <- matrix(rnorm(G * K), G)
  Vt <- matrix(rnorm(K * n), K)
  m <- 900L
  pos <- sample(n, m, replace = TRUE)
  cell <- sample(K, m, replace = TRUE)
  a <- rnorm(m)
  s <- rnorm(n)
  sparse_U <- function() {
    U <- matrix(0, n, G)
    for (e in seq_len(m)) U[pos[e], ] <- U[pos[e], ] + a[e] * A[, cell[e]]
    U
  }
  ref_dense <- colSums((t(Vt) %*% t(A) + s)^2)
  ref_sparse <- colSums((sparse_U() + s)^2)
  ref_both <- colSums((t(Vt) %*% t(A) + sparse_U())^2)
  for (th in 1:2) {
    expect_equal(modelprofiles:::influence_ss(A, n, Vt = Vt, s = s, threads = th), ref_dense, tolerance = 1e-13)
    expect_equal(modelprofiles:::influence_ss(A, n, pos = pos, cell = cell, a = a, s = s, threads = th),
                 ref_sparse, tolerance = 1e-13)
    expect_equal(modelprofiles:::influence_ss(A, n, Vt = Vt, pos = pos, cell = cell, a = a, threads = th),
                 ref_both, tolerance = 1e-13)
  }
  expect_identical(modelprofiles:::influence_ss(A, n, Vt = Vt, pos = pos, cell = cell, a = a, s = s, threads = 2L),
                   modelprofiles:::influence_ss(A, n, Vt = Vt, pos = pos, cell = cell, a = a, s = s, threads = 1L))
  # The standard error: the small-sample factor of the weights' n_eff.
  w <- runif(n)
  ss <- modelprofiles:::influence_ss(A, n, Vt = Vt)
  n_eff <- sum(w)^2 / sum(w^2)
  expect_equal(modelprofiles:::influence_se(ss, w), sqrt(n_eff / (n_eff - 1) * ss), tolerance = 1e-15)
  expect_true(all(is.na(modelprofiles:::influence_se(ss, c(1, rep(0, n - 1))))))
})

test_that("printed intervals keep each number's own digits, and B belongs to the bootstrap alone", {
  txt <- modelprofiles:::interval_text(c(1.3604396, 36.63), c(1.3604396, 36.63), c(1.3604396, 37.13))
  expect_identical(txt, c("1.36 [1.36, 1.36]", "36.63 [36.63, 37.13]"))
  expect_identical(profile_bands("infjack", B = 5)$B, 200L)
  expect_identical(profile_bands("analytic", B = 3)$type, "analytic")
  expect_error(profile_bands("bootstrap", B = 5), "B")
})
