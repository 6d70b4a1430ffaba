test_that("kernel LD equals eq. 18.5 with Gaussian weights", {
  set.seed(3)
  x1 <- runif(200)
  X <- data.frame(x1 = x1, x2 = x1 + rnorm(200, sd = 0.1), x3 = rnorm(200))
  f <- function(d) d$x1 + d$x2 + d$x1 * d$x3
  pf <- function(m, newdata) f(newdata)
  res <- model_profile(NULL, X, predict_function = pf, type = "conditional", grid_points = 21)
  for (v in names(X)) {
    p <- profile_of(res, v)
    s <- stats::bw.nrd0(X[[v]])
    expect_equal(res$bandwidth[[v]], s)
    expect_equal(p$`_yhat_`, ref_ld_kernel(f, X, v, p$`_x_`, s), tolerance = 1e-10)
  }
  res2 <- model_profile(NULL, X, predict_function = pf, type = "conditional",
                        grid_points = 21, bandwidth = c(x1 = 0.2, x2 = 0.3, x3 = 1))
  p <- profile_of(res2, "x3")
  expect_equal(p$`_yhat_`, ref_ld_kernel(f, X, "x3", p$`_x_`, 1), tolerance = 1e-10)
})

test_that("LD on correlated data picks up the other variable (section 18.3.1: 2z)", {
  set.seed(4)
  x <- runif(2000)
  X <- data.frame(x1 = x, x2 = x)
  pf <- function(m, newdata) newdata$x1 + newdata$x2
  res <- model_profile(NULL, X, predict_function = pf, type = "conditional",
                       variables = "x1", method = "interval", grid = profile_grids(intervals = 50),
                       variable_splits = list(x1 = seq(0.1, 0.9, by = 0.1)))
  p <- profile_of(res, "x1")
  expect_equal(p$`_yhat_`, 2 * p$`_x_`, tolerance = 0.02)
})

test_that("interval LD on Table 18.4 matches the hand computation", {
  X <- table184()
  z <- seq(-1, 1, by = 0.125)
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1",
                       type = "conditional", method = "interval", grid = profile_grids(intervals = 4),
                       variable_splits = list(x1 = z))
  # Four intervals of two observations: [-1, -0.71], (-0.71, -0.14],
  # (-0.14, 0.43], (0.43, 1]; LD(z) = (z + 1) * mean(x2 in z's interval).
  expect_equal(res$grids$x1, z)
  means <- c(-0.855, -0.285, 0.285, 0.855)
  k <- findInterval(z, c(-0.71, -0.14, 0.43), left.open = TRUE) + 1
  expect_equal(profile_of(res)$`_yhat_`, (z + 1) * means[k], tolerance = 1e-12)
  expect_equal(profile_of(res)$`_yhat_`,
               ref_ld_interval(function(d) f184(NULL, d), X, "x1", z, 4), tolerance = 1e-12)
  expect_equal(res$intervals["x1", 1], 4L)
})

test_that("interval and kernel LD approach z(z + 1) on dense Table 18.4 data", {
  x <- seq(-1, 1, length.out = 4001)
  X <- data.frame(x1 = x, x2 = x)
  z <- seq(-0.9, 0.9, by = 0.1)
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1", N = NULL,
                       type = "conditional", method = "interval", grid = profile_grids(intervals = 1000),
                       variable_splits = list(x1 = z))
  expect_equal(profile_of(res)$`_yhat_`, z * (z + 1), tolerance = 5e-3)
  res <- model_profile(NULL, X, predict_function = f184, variables = "x1", N = NULL,
                       type = "conditional", bandwidth = 0.01,
                       variable_splits = list(x1 = z))
  expect_equal(profile_of(res)$`_yhat_`, z * (z + 1), tolerance = 5e-3)
})

test_that("categorical LD is the mean prediction within each level", {
  d <- data.frame(x = c(1, 2, 3, 4, 5, 6, 7), g = factor(c("a", "b", "c", "a", "b", "c", "a")))
  f <- function(m, newdata) newdata$x * as.integer(newdata$g)
  res <- model_profile(NULL, d, predict_function = f, variables = "g", type = "conditional")
  y <- f(NULL, d)
  expect_equal(profile_of(res)$`_yhat_`, as.numeric(tapply(y, d$g, mean)))
})

test_that("grid points without support are NA with a warning, never 0", {
  X <- data.frame(x1 = c(0, 0.1, 0.2, 0.3, 5, 5.1, 5.2), x2 = 1:7)
  pf <- function(m, newdata) newdata$x1 * 10 + newdata$x2
  expect_warning(
    res <- model_profile(NULL, X, predict_function = pf, variables = "x1",
                         type = "conditional", bandwidth = 0.1,
                         variable_splits = list(x1 = c(0.1, 2.5, 5.1))),
    "without background rows"
  )
  y <- profile_of(res)$`_yhat_`
  expect_true(is.na(y[2]))
  expect_false(anyNA(y[c(1, 3)]))
  expect_equal(res$no_support$x1, 2.5)
  expect_warning(
    res <- model_profile(NULL, X, predict_function = pf, variables = "x1",
                         type = "conditional", method = "interval", grid = profile_grids(intervals = 3),
                         variable_splits = list(x1 = c(-1, 0.1, 6))),
    "without background rows"
  )
  expect_equal(is.na(profile_of(res)$`_yhat_`), c(TRUE, FALSE, TRUE))
})

test_that("kernel LD: a grid point is supported up to three bandwidths from the nearest row", {
  # Dyadic numbers, so that every distance is exact: bandwidth 1/8, three
  # bandwidths 0.375, eps = 2^-20 (about 1e-6).
  bw <- 0.125
  eps <- 2^-20
  X <- data.frame(x1 = c(0, 0.5, 1, 10, 10.5, 11), x2 = c(3, -1, 2, 0.5, 4, -2))
  f <- function(d) d$x1^2 + d$x1 * d$x2
  pf <- function(m, newdata) f(newdata)
  z <- c(
    1 + 3 * bw - eps,  # 3 bw - eps above the row at 1: supported
    1 + 3 * bw + eps,  # 3 bw + eps above it (the next row, 10, is far): NA
    10 - 3 * bw - eps, # 3 bw + eps below the row at 10: NA
    10 - 3 * bw + eps, # 3 bw - eps below it: supported
    11 + 3 * bw - eps, # past the largest row, just inside: supported
    11 + 3 * bw + eps  # just outside: NA
  )
  near <- vapply(z, function(g) min(abs(g - X$x1)), numeric(1))
  expect_identical(near - 3 * bw, c(-eps, eps, eps, -eps, -eps, eps))
  expect_warning(
    res <- model_profile(NULL, X, predict_function = pf, variables = "x1", type = "conditional",
                         method = "kernel", bandwidth = c(x1 = bw), variable_splits = list(x1 = z),
                         N = NULL),
    "3 grid points without background rows nearby"
  )
  a <- res$agr_profiles
  expect_identical(a$`_x_`, z)
  expect_identical(is.na(a$`_yhat_`), c(FALSE, TRUE, TRUE, FALSE, FALSE, TRUE))
  expect_identical(res$no_support$x1, z[c(2, 3, 6)])
  expect_equal(unname(res$bandwidth[["x1"]]), bw)
  # The supported points are the Gaussian-kernel means of the ICE values,
  # dominated by the nearest row.
  ok <- !is.na(a$`_yhat_`)
  expect_equal(a$`_yhat_`[ok], ref_ld_kernel(f, X, "x1", z[ok], bw), tolerance = 1e-12)
  # A bandwidth eps / 2 wider (three bandwidths grow by 1.5 eps) brings the
  # three unsupported points in, with no warning.
  expect_no_warning(
    res2 <- model_profile(NULL, X, predict_function = pf, variables = "x1", type = "conditional",
                          method = "kernel", bandwidth = c(x1 = bw + eps / 2),
                          variable_splits = list(x1 = z), N = NULL)
  )
  expect_false(anyNA(res2$agr_profiles$`_yhat_`))
  expect_null(res2$no_support$x1)
})

test_that("LD: 1 and 2 threads and row order give the same numbers", {
  set.seed(5)
  X <- data.frame(a = rnorm(400), b = rnorm(400))
  pf <- function(m, newdata) newdata$a^2 + newdata$a * newdata$b
  for (meth in c("kernel", "interval")) {
    r1 <- model_profile(NULL, X, predict_function = pf, type = "conditional", method = meth, threads = 1)
    r2 <- model_profile(NULL, X, predict_function = pf, type = "conditional", method = meth, threads = 2)
    expect_identical(r1$agr_profiles, r2$agr_profiles)
    r3 <- model_profile(NULL, X[nrow(X):1, ], predict_function = pf, type = "conditional", method = meth)
    expect_equal(r3$agr_profiles, r1$agr_profiles, tolerance = 1e-12)
  }
})

test_that("rows with NA in the profiled column are left out of LD, with a warning", {
  X <- data.frame(a = c(1, 2, NA, 4, 5, 6), b = c(1, 1, 1, 2, 2, 2))
  pf <- function(m, newdata) ifelse(is.na(newdata$a), 0, newdata$a) + newdata$b
  expect_warning(
    res <- model_profile(NULL, X, predict_function = pf, variables = "a",
                         type = "conditional", method = "interval", grid = profile_grids(intervals = 2)),
    "1 missing value"
  )
  Xo <- X[!is.na(X$a), ]
  expect_equal(profile_of(res)$`_yhat_`,
               ref_ld_interval(function(d) pf(NULL, d), Xo, "a", profile_of(res)$`_x_`, 2))
  # PD uses every row: the profiled column is overwritten.
  res <- model_profile(NULL, X, predict_function = pf, variables = "a")
  expect_equal(profile_of(res)$`_yhat_`, profile_of(res)$`_x_` + mean(X$b))
})

test_that("grid points without support in several variables give one warning", {
  X <- data.frame(x1 = c(0, 0.1, 0.2, 5, 5.1, 5.2), x2 = c(1, 1.1, 1.2, 9, 9.1, 9.2))
  pf <- function(m, newdata) newdata$x1 - newdata$x2
  w <- testthat::capture_warnings(
    res <- model_profile(NULL, X, pf, type = "conditional", method = "kernel", N = NULL,
                         bandwidth = c(x1 = 0.05, x2 = 0.05),
                         variable_splits = list(x1 = c(0.1, 2.5, 5.1), x2 = c(1.1, 4, 5, 9.1)))
  )
  expect_length(w, 1L)
  expect_match(w, "3 grid points of 2 profiles without background rows nearby", fixed = TRUE)
  expect_match(w, "x1: 2.5", fixed = TRUE)
  expect_match(w, "x2: 4, 5", fixed = TRUE)
  expect_identical(res$no_support$x1, 2.5)
  expect_identical(res$no_support$x2, c(4, 5))
  # The supported points: the kernel means of the ICE values (the nearest rows dominate).
  a <- res$agr_profiles
  expect_identical(is.na(a$`_yhat_`), c(FALSE, TRUE, FALSE, FALSE, TRUE, TRUE, FALSE))
})

test_that("kernel LD and AL keep their precision for data and bandwidths down to 1e-300", {
  set.seed(24)
  n <- 200
  u <- data.frame(x = runif(n), z = runif(n))
  zu <- seq(0.05, 0.95, length.out = 7)
  fu <- function(d) sin(3 * d$x) * d$z + d$x^2
  ld_u <- model_profile(NULL, u, function(m, nd) fu(nd), variables = "x", type = "conditional",
                        N = NULL, variable_splits = list(x = zu), bandwidth = 0.08)
  for (scale in c(1e-160, 1e-300)) {
    X <- u
    X$x <- u$x * scale
    f <- function(d) fu(transform(d, x = x / scale))
    z <- zu * scale
    s <- 0.08 * scale
    ld <- model_profile(NULL, X, function(m, nd) f(nd), variables = "x", type = "conditional",
                        N = NULL, variable_splits = list(x = z), bandwidth = s)
    # Plain R: dnorm() weights at the data's own scale.
    expect_equal(ld$agr_profiles$`_yhat_`, ref_ld_kernel(f, X, "x", z, s), tolerance = 1e-12,
                 info = format(scale))
    expect_equal(ld$agr_profiles$`_yhat_`, ld_u$agr_profiles$`_yhat_`, tolerance = 1e-12, info = format(scale))
    # With analytic bands (the kernel weights' moments), the same.
    ldb <- model_profile(NULL, X, function(m, nd) f(nd), variables = "x", type = "conditional",
                         N = NULL, variable_splits = list(x = z), bandwidth = s, bands = "analytic")
    expect_equal(ldb$agr_profiles$`_yhat_`, ld$agr_profiles$`_yhat_`, tolerance = 1e-12)
    expect_true(all(is.finite(ldb$agr_profiles$`_se_`)))
    # Kernel AL (eq. 18.9) on an even grid.
    al <- model_profile(NULL, X, function(m, nd) f(nd), variables = "x", type = "accumulated",
                        method = "kernel", grid_points = 9, bandwidth = s, N = NULL)
    ref <- ref_al_kernel(f, X, "x", 9, s)
    expect_equal(profile_of(al)$`_yhat_` - al$mean_prediction, ref$f, tolerance = 1e-12,
                 info = format(scale))
    # The default bandwidth (Silverman's rule) at that scale: the rule's
    # bandwidth of the unscaled data, scaled.
    dflt <- model_profile(NULL, X, function(m, nd) f(nd), variables = "x", type = "conditional",
                          N = NULL, variable_splits = list(x = z))
    expect_equal(unname(dflt$bandwidth), bw.nrd0(u$x) * scale, tolerance = 1e-12)
    expect_equal(dflt$agr_profiles$`_yhat_`, ref_ld_kernel(f, X, "x", z, bw.nrd0(u$x) * scale),
                 tolerance = 1e-12)
  }
})
