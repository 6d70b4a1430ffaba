# effect_sizes(): the ALE statistics of Okoli (2023) against closed forms
# and a plain-R transcription of the paper's formulas, Greenwell et al.'s
# importance against vip's formula, bands from replicates, the order of
# summary() and of plot(sort = "importance").

# Data with a numeric x (ties included), a factor f and a noise column.
effect_data <- function(n = 200, seed = 3) {
  set.seed(seed)
  X <- data.frame(x = round(rexp(n), 1), f = factor(sample(c("a", "b", "c"), n, TRUE)),
                  z = rnorm(n))
  X$y <- 2 - 1.5 * X$x + c(a = 0, b = 2, c = -1)[as.character(X$f)] + 0.5 * X$z + rnorm(n)
  X
}

# Apley's edges (type-1 quantiles, the minimum first) and the numbers of
# rows per interval (the minimum in the first), by hand.
edges_by_hand <- function(x, K) {
  z <- unique(c(min(x), stats::quantile(x, seq_len(K) / K, type = 1, names = FALSE)))
  k <- findInterval(x, z, left.open = TRUE)
  k[k == 0] <- 1
  list(z = z, n = tabulate(k, length(z) - 1))
}

# The percentile shift of Okoli (2023) from the median of r, written out.
shift_by_hand <- function(a, r) {
  c0 <- r - stats::median(r)
  vapply(a, function(ai) {
    if (ai > 0 && ai > min(c0[c0 > 0])) return(50 * sum(c0 >= 0 & c0 <= ai) / sum(c0 >= 0))
    if (ai < 0 && ai < max(c0[c0 < 0])) return(-50 * sum(c0 <= 0 & c0 >= ai) / sum(c0 <= 0))
    0
  }, numeric(1))
}

test_that("ALED and ALER of a linear term: the closed form b (x - c) at Apley's edges", {
  X <- effect_data()
  fit <- lm(y ~ x + f + z, data = X)
  K <- 12
  al <- model_profile(fit, X[c("x", "f", "z")], type = "accumulated", grid = profile_grids(intervals = K))
  e <- effect_sizes(al)
  b <- coef(fit)[["x"]]
  h <- edges_by_hand(X$x, K)
  m <- (h$z[-1] + h$z[-length(h$z)]) / 2
  centre <- sum(h$n * m) / sum(h$n)
  # The profile is b (z - centre) plus the mean prediction.
  p <- profile_of(al, "x")
  expect_equal(as.numeric(p$`_x_`), h$z)
  expect_equal(p$`_yhat_` - al$mean_prediction[[1]], b * (h$z - centre))
  ex <- e[e$variable == "x", ]
  expect_equal(ex$aled, abs(b) * sum(h$n * abs(m - centre)) / nrow(X))
  expect_equal(c(ex$aler_min, ex$aler_max), sort(b * (range(h$z) - centre)))
  expect_equal(ex$kind, "numeric")
  # A categorical term: the level effects, centred with the levels'
  # frequencies, weighted by them.
  beta <- c(a = 0, b = coef(fit)[["fb"]], c = coef(fit)[["fc"]])
  p <- table(X$f) / nrow(X)
  g <- beta - sum(p * beta)
  ef <- e[e$variable == "f", ]
  expect_equal(ef$kind, "categorical")
  expect_equal(ef$aled, sum(p * abs(g[names(p)])))
  expect_equal(c(ef$aler_min, ef$aler_max), range(g))
  expect_equal(ef$importance, diff(range(beta)) / 4)
  # The reference is the predictions' quantiles the result holds (within
  # half a percentile of all the predictions); without one, NA.
  e_all <- effect_sizes(al, reference = predict(fit, X))
  expect_equal(e$naled, e_all$naled[match(e$variable, e_all$variable)], tolerance = 0.5 / 50)
  al$prediction_quantiles <- NULL
  expect_true(all(is.na(effect_sizes(al)$naled)))
  expect_s3_class(e, "mp_effects")
  expect_equal(e$importance, sort(e$importance, decreasing = TRUE))
})

test_that("NALED and NALER follow the paper's percentile shift from the median", {
  X <- effect_data()
  fit <- lm(y ~ x + f + z, data = X)
  al <- model_profile(fit, X[c("x", "f", "z")], type = "accumulated", grid = profile_grids(intervals = 10))
  e <- effect_sizes(al, reference = X$y)
  h <- edges_by_hand(X$x, 10)
  g <- profile_of(al, "x")$`_yhat_`
  m <- (g[-1] + g[-length(g)]) / 2
  centre <- sum(h$n * m) / sum(h$n)
  ex <- e[e$variable == "x", ]
  expect_equal(ex$naled, sum(h$n * abs(shift_by_hand(m - centre, X$y))) / sum(h$n))
  expect_equal(c(ex$naler_min, ex$naler_max), shift_by_hand(range(g - centre), X$y))
  expect_true(all(e$naled >= 0 & e$naled <= 50))
  expect_true(all(e$naler_min >= -50 & e$naler_max <= 50))
  # A shift inside the gap around the median is no shift; one past the
  # extremes is the whole half.
  r <- c(1, 2, 3, 4, 5)
  norm <- modelprofiles:::percentile_shift(r)
  expect_equal(norm(c(-10, -0.5, 0, 1, 1.5, 10)), c(-50, 0, 0, 0, 50 * 2 / 3, 50))
  # The reference as a matrix with one column per label.
  e2 <- effect_sizes(al, reference = cbind(lm = X$y))
  expect_equal(e2$naled, e$naled)
  expect_error(effect_sizes(al, reference = cbind(a = X$y, b = X$y)), "no column for")
  expect_error(effect_sizes(al, reference = "y"), "numeric")
  # From the quantiles of the predictions the result may hold.
  al$prediction_quantiles <- cbind(lm = stats::quantile(fitted(fit), seq(0, 1, 0.005), names = FALSE))
  e3 <- effect_sizes(al)
  e4 <- effect_sizes(al, reference = fitted(fit))
  expect_lt(max(abs(e3$naled - e4$naled)), 0.5)
  expect_lt(max(abs(e3$naler_max - e4$naler_max)), 0.5)
})

test_that("the importance is vip's: sd of the PD for numbers, range / 4 for levels", {
  X <- effect_data()
  fit <- lm(y ~ poly(x, 3) + f * z, data = X)
  pd <- model_profile(fit, X[c("x", "f", "z")], grid_points = 15)
  e <- effect_sizes(pd)
  expect_named(e, c("variable", "label", "kind", "importance"))
  # The PD by hand, then vip's formulas.
  grid <- as.numeric(profile_of(pd, "x")$`_x_`)
  pdx <- vapply(grid, function(v) mean(predict(fit, transform(X, x = v))), numeric(1))
  expect_equal(e$importance[e$variable == "x"], stats::sd(pdx))
  pdf <- vapply(levels(X$f), function(v) mean(predict(fit, transform(X, f = factor(v, levels(X$f))))),
                numeric(1))
  expect_equal(e$importance[e$variable == "f"], diff(range(pdf)) / 4)
  # Any type: LD profiles too.
  ld <- model_profile(fit, X[c("x", "f", "z")], type = "conditional", grid_points = 15)
  el <- effect_sizes(ld)
  expect_equal(el$importance[el$variable == "x"], stats::sd(profile_of(ld, "x")$`_yhat_`))
  expect_output(print(e), "partial-dependence profiles \\(largest importance first\\)")
  expect_error(effect_sizes(1), "model_profile")
})

test_that("case weights count as replicated rows; kernel AL weights its grid points by support", {
  X <- effect_data(80)
  fit <- lm(y ~ x + f + z, data = X)
  w <- rep(1:2, 40)
  Xr <- X[rep(seq_len(nrow(X)), w), ]
  a <- effect_sizes(model_profile(fit, X[c("x", "f", "z")], variables = c("x", "f"), type = "accumulated",
                                  grid = profile_grids(intervals = 6), weights = w),
                    reference = X$y)
  b <- effect_sizes(model_profile(fit, Xr[c("x", "f", "z")], variables = c("x", "f"),
                                  type = "accumulated", grid = profile_grids(intervals = 6)),
                    reference = X$y)
  expect_equal(a[c("variable", "aled", "aler_min", "aler_max", "naled")],
               b[c("variable", "aled", "aler_min", "aler_max", "naled")])
  k <- model_profile(fit, X[c("x", "f", "z")], variables = c("x", "z"), type = "accumulated",
                     method = "kernel", grid_points = 20)
  p <- profile_of(k, "x")
  s <- p$`_support_`
  g <- p$`_yhat_` - sum(s * p$`_yhat_`) / sum(s)
  ek <- effect_sizes(k)
  expect_equal(ek$aled[ek$variable == "x"], sum(s * abs(g)) / sum(s))
})

test_that("bands: percentiles of the statistics of the bootstrap replicates", {
  X <- effect_data()
  fit <- lm(y ~ x + f + z, data = X)
  al <- model_profile(fit, X[c("x", "f", "z")], variables = c("x", "f"), type = "accumulated",
                      grid = profile_grids(intervals = 8))
  e0 <- effect_sizes(al)
  B <- 40
  set.seed(9)
  s <- runif(B, 0.5, 1.5)
  shift <- rnorm(B)
  # Replicates that scale the curve and shift it: ALED, ALER and the
  # importance scale with s, whatever the shift.
  al$bands <- list(type = "bootstrap", level = 0.9, B = B)
  al$replicates <- outer(al$agr_profiles$`_yhat_`, s) + rep(shift, each = nrow(al$agr_profiles))
  e <- effect_sizes(al)
  q <- stats::quantile(s, c(0.05, 0.95), names = FALSE)
  for (v in c("x", "f")) {
    r <- e[e$variable == v, ]
    r0 <- e0[e0$variable == v, ]
    expect_equal(c(r$importance_lower, r$importance_upper), r0$importance * q)
    expect_equal(c(r$aled_lower, r$aled_upper), r0$aled * q)
    expect_equal(c(r$aler_max_lower, r$aler_max_upper), r0$aler_max * q)
    expect_equal(r$aled, r0$aled)
  }
  expect_output(print(e), "90% bootstrap bands")
  expect_output(print(e), "\\[")
  expect_false("aled_lower" %in% names(effect_sizes(al, bands = FALSE)))
  al$replicates <- al$replicates[-1, ]
  expect_error(effect_sizes(al), "replicates")
})

test_that("bands of model_profile(bands = 'bootstrap') and refit_bands()", {
  X <- effect_data(120)
  fit <- lm(y ~ x + f + z, data = X)
  al <- model_profile(fit, X[c("x", "f", "z")], variables = c("x", "f"), type = "accumulated",
                      grid = profile_grids(intervals = 6), bands = profile_bands("bootstrap", level = 0.8, B = 30), seed = 1)
  e <- effect_sizes(al, reference = X$y)
  # Each band is the pair of percentiles of the statistic of each replicate.
  idx <- which(al$agr_profiles$`_vname_` == "x")
  aled_b <- vapply(seq_len(ncol(al$replicates)), function(b) {
    r <- al
    r$agr_profiles$`_yhat_` <- al$replicates[, b]
    r$replicates <- NULL
    ex <- effect_sizes(r)
    ex$aled[ex$variable == "x"]
  }, numeric(1))
  ex <- e[e$variable == "x", ]
  expect_equal(c(ex$aled_lower, ex$aled_upper), stats::quantile(aled_b, c(0.1, 0.9), names = FALSE))
  expect_true(all(e$importance_lower <= e$importance_upper))
  expect_output(print(e), "80% bootstrap bands")
  ad <- model_profile(fit, X[c("x", "f", "z")], variables = c("x", "f"), type = "accumulated",
                      grid = profile_grids(intervals = 6), bands = "analytic")
  expect_false("aled_lower" %in% names(effect_sizes(ad)))
  rf <- refit_bands(al, function(d) lm(y ~ x + f + z, data = d), data = X, B = 10, seed = 2)
  er <- effect_sizes(rf)
  expect_true(all(c("aled_lower", "naled_upper") %in% names(er)))
  expect_output(print(er), "refit bands")
})

test_that("subgroups: exact with the subgroup of each row, NA with a warning without it", {
  X <- effect_data()
  X$g <- ifelse(X$z > 0, "hi", "lo")
  fit <- lm(y ~ x * z + f, data = X)
  r <- model_profile(fit, X[c("x", "f", "z", "g")], variables = c("x", "f"), groups = "g",
                     type = "accumulated", grid = profile_grids(intervals = 6))
  expect_identical(r$observed_group, X$g[r$rows])
  e <- effect_sizes(r)
  bare <- r
  bare$observed_group <- NULL
  expect_warning(e0 <- effect_sizes(bare), class = "modelprofiles_no_interval_counts")
  expect_true(all(is.na(e0$aled[e0$variable == "x"])))
  expect_false(anyNA(e0$aled[e0$variable == "f"]))
  expect_silent(summary(bare))
  hi <- effect_sizes(model_profile(fit, X[X$g == "hi", c("x", "f", "z")], variables = c("x", "f"),
                                   type = "accumulated", grid = profile_grids(intervals = 6)))
  expect_equal(e$aled[e$label == "lm_hi"], hi$aled[match(e$variable[e$label == "lm_hi"], hi$variable)])
})

test_that("multiclass profiles: one row per class, references by class", {
  skip_if_not_installed("nnet")
  fit <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  X <- iris[1:4]
  al <- model_profile(fit, X, variables = c("Petal.Length", "Sepal.Width"), type = "accumulated",
                      grid = profile_grids(intervals = 5))
  P <- predict(fit, iris, type = "probs")
  e <- effect_sizes(al, reference = P)
  expect_equal(nrow(e), 2 * 3)
  expect_setequal(unique(e$label), al$labels)
  expect_false(anyNA(e$naled))
})

test_that("summary() sorts by importance; plot(sort = 'importance') orders the panels", {
  fit <- lm(mpg ~ wt + hp + qsec, data = mtcars)
  X <- mtcars[c("qsec", "hp", "wt")]
  pd <- model_profile(fit, X)
  e <- effect_sizes(pd)
  s <- summary(pd)
  expect_equal(s$variable, e$variable)
  expect_equal(s$importance, e$importance)
  expect_output(print(s), "largest importance first")
  al <- model_profile(fit, X, type = "accumulated", grid = profile_grids(intervals = 6))
  sa <- summary(al)
  expect_equal(sa$aled, effect_sizes(al)$aled[match(sa$variable, effect_sizes(al)$variable)])
  panels <- function(p) as.character(ggplot2::ggplot_build(p)$layout$layout$`_vname_`)
  expect_equal(panels(plot(pd)), c("qsec", "hp", "wt"))
  expect_equal(panels(plot(pd, sort = "importance")), e$variable)
  # Several profiles: in the order of the first one's importance.
  ld <- model_profile(fit, X, variables = c("wt", "hp"), type = "conditional")
  expect_equal(panels(plot(ld, pd, sort = "importance")),
               c(effect_sizes(ld)$variable, "qsec"))
  ps <- plot(pd, sort = "importance")
  lines <- ggplot2::layer_data(ps, layer_at(ps, "GeomLine"))
  first <- lines[lines$PANEL == 1, ]
  expect_equal(sort(first$y), sort(profile_of(pd, e$variable[1])$`_yhat_`))
  expect_error(plot(pd, sort = "size"), "none")
})

# The AL profiles of ale's example below, on the edges ale 0.5.3 uses with
# max_num_bins = 10 (its ceilings: type-1 quantiles at seq(0, 1,
# length.out = 10)), and their statistics with the outcome as reference
# (ale's reference distribution for a numeric outcome).
ale_example <- function() {
  X <- effect_data(150)
  fit <- lm(y ~ x + f + z, data = X)
  ceilings <- c(0, 0.1, 0.3, 0.5, 0.6, 0.9, 1.1, 1.6, 2.3, 4.3)
  al <- model_profile(fit, X[c("x", "f", "z")], variables = c("x", "f"), type = "accumulated",
                      variable_splits = list(x = ceilings), grid = profile_grids(level_order = "levels"))
  list(X = X, fit = fit, al = al, e = effect_sizes(al, reference = X$y))
}
ale_statistics <- c("aled", "aler_min", "aler_max", "naled", "naler_min", "naler_max")

test_that("the statistics agree with numbers pinned from the ale package", {
  # ale 0.5.3, ALE(fit, x_cols = c("x", "f"), data = X, y_col = "y",
  # max_num_bins = 10, parallel = 0)@effect$y$stats$d1, estimates to 10
  # digits (ale is not a dependency: its patchwork needs a newer ggplot2
  # than Debian 12's; the numbers were read with it installed aside).
  pinned <- list(
    x = c(1.165297219, -5.271709301, 1.589863697, 20.36, -47.33333333, 27.33333333),
    f = c(1.064693524, -1.238345926, 1.597040286, 22.94222222, -30.66666667, 27.33333333)
  )
  e <- ale_example()$e
  for (v in names(pinned)) {
    expect_equal(unname(unlist(e[e$variable == v, ale_statistics])), pinned[[v]], tolerance = 1e-9)
  }
})

test_that("a 0/1 column's ALED is that of its two values, weighted by their rows", {
  set.seed(3)
  X <- data.frame(b = rbinom(200, 1, 0.3), z = rnorm(200))
  X$y <- 2 * X$b + X$z + rnorm(200)
  fit <- lm(y ~ b + z, data = X)
  al <- model_profile(fit, X[c("b", "z")], variables = "b", type = "accumulated")
  e <- effect_sizes(al)
  p1 <- mean(X$b == 1)
  # g(0) = -2 p1, g(1) = 2 (1 - p1) about the mean; ALED = sum of p |g|.
  b <- coef(fit)[["b"]]
  expect_equal(e$aled, (1 - p1) * b * p1 + p1 * b * (1 - p1), tolerance = 1e-10)
  expect_equal(c(e$aler_min, e$aler_max), c(-b * p1, b * (1 - p1)), tolerance = 1e-10)
})
