# Bands of AL profiles (R/bands_accumulated.R): the helpers against plain R.

test_that("resample_means(): an empty group keeps the full sample's mean", {
  s <- list(sum = c(4, 10, 9), wsum = c(2, 5, 3))
  sr <- list(sum = cbind(0, c(6, 0, 3)), wsum = cbind(1, c(2, 0, 1)))
  expect_equal(resample_means(sr, 2L, s), c(3, 2, 3))
})

test_that("analytic interval AL bands of an lm are those of a plain-R delta method", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  al <- model_profile(fit, X, variables = "wt", type = "accumulated", N = NULL, bands = "analytic")
  a <- al$agr_profiles
  expect_true(all(c("_lower_", "_upper_") %in% names(a)))
  # A linear model: every local effect is the coefficient, exactly, so no
  # row's local effect moves the profile's shape: the band has one width
  # along the grid (the centring and the shift alone), and the profile is
  # the coefficient's line.
  half <- (a$`_upper_` - a$`_lower_`) / 2
  expect_true(all(half > 0))
  expect_equal(half, rep(half[1], length(half)), tolerance = 1e-10)
  expect_equal((a$`_upper_` + a$`_lower_`) / 2, a$`_yhat_`, tolerance = 1e-10)
  expect_equal(diff(a$`_yhat_`) / diff(a$`_x_`), rep(coef(fit)[["wt"]], nrow(a) - 1), tolerance = 1e-8)
})

test_that("a profile's linearised standard errors give each group's mean its own small-sample factor", {
  # Plain R: the rows' influences as an n x values matrix, each group's
  # term times sqrt(f_k / f_all), the whole times f_all (Kish's n_eff / (n_eff - 1)).
  set.seed(12)
  n <- 60L
  K <- 6L
  G <- 4L
  w <- runif(n, 0.5, 2)
  m <- 80L
  pos <- sample(n, m, replace = TRUE)
  cell <- sample(K, m, replace = TRUE)
  cell[1:2] <- c(5L, 6L)
  cell[cell == 6L] <- 5L # a group of several rows
  cell[3L] <- 6L # a group of one entry (factor 1, influence 0)
  d <- rnorm(m)
  wsum <- vapply(seq_len(K), function(k) sum(w[pos][cell == k]), numeric(1))
  means <- vapply(seq_len(K), function(k) sum((w[pos] * d)[cell == k]) / wsum[k], numeric(1))
  A <- matrix(rnorm(G * K), G)
  f <- rnorm(n)
  kish <- function(v) {
    ne <- sum(v)^2 / sum(v^2)
    if (ne > 1 + 1e-9) ne / (ne - 1) else 1
  }
  f_all <- kish(w)
  f_k <- vapply(seq_len(K), function(k) kish(w[pos][cell == k]), numeric(1))
  U <- matrix(0, n, G)
  for (e in seq_len(m)) {
    a <- w[pos[e]] * (d[e] - means[cell[e]]) / wsum[cell[e]]
    U[pos[e], ] <- U[pos[e], ] + sqrt(f_k[cell[e]] / f_all) * a * A[, cell[e]]
  }
  U <- U + w * (f - sum(w * f) / sum(w)) / sum(w)
  ref <- sqrt(f_all * colSums(U^2))
  got <- modelprofiles:::linear_profile_se(A, d, pos, cell, w, means, wsum, f = f)
  expect_equal(got, ref, tolerance = 1e-13)
  expect_equal(f_k[6L], 1)
})
