# Case weights: weighted means everywhere, and a row of weight w is exactly
# the row repeated w times.

weighted_setup <- function() {
  set.seed(21)
  n <- 120
  X <- data.frame(a = round(rnorm(n), 1), b = runif(n), g = factor(sample(c("p", "q", "r"), n, TRUE)))
  w <- sample(1:3, n, TRUE)
  list(X = X, w = w, dup = X[rep(seq_len(n), w), ], f = function(m, d) d$a^2 * d$b + as.integer(d$g) * d$a)
}

test_that("integer weights equal duplicated rows for every estimator", {
  s <- weighted_setup()
  splits <- list(a = seq(-2, 2, by = 0.5), b = c(0.1, 0.5, 0.9))
  cases <- list(
    list(type = "partial"),
    list(type = "conditional", method = "kernel", bandwidth = 0.4),
    list(type = "conditional", method = "interval", grid = profile_grids(intervals = 6)),
    list(type = "accumulated", method = "interval", grid = profile_grids(intervals = 7)),
    list(type = "accumulated", method = "kernel", bandwidth = 0.3)
  )
  for (cs in cases) {
    args <- c(list(NULL, predict_function = s$f, variables = c("a", "b"), N = NULL), cs)
    if (cs$type != "accumulated") args$variable_splits <- splits
    wt <- do.call(model_profile, c(list(data = s$X, weights = s$w), args))
    dp <- do.call(model_profile, c(list(data = s$dup), args))
    expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12,
                 info = paste(cs$type, cs$method))
    expect_equal(wt$grids, dp$grids, info = paste(cs$type, cs$method))
  }
  # Categorical LD, 2-D PD, subgroups.
  wt <- model_profile(NULL, s$X, predict_function = s$f, variables = "g", type = "conditional",
                      N = NULL, weights = s$w)
  dp <- model_profile(NULL, s$dup, predict_function = s$f, variables = "g", type = "conditional", N = NULL)
  expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  wt <- model_profile_2d(NULL, s$X, predict_function = s$f, variables = c("a", "g"), N = NULL,
                         weights = s$w, variable_splits = splits["a"])
  dp <- model_profile_2d(NULL, s$dup, predict_function = s$f, variables = c("a", "g"), N = NULL,
                         variable_splits = splits["a"])
  expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  wt <- model_profile(NULL, s$X, predict_function = s$f, variables = "a", type = "accumulated",
                      N = NULL, weights = s$w, groups = "g", grid = profile_grids(intervals = 5))
  dp <- model_profile(NULL, s$dup, predict_function = s$f, variables = "a", type = "accumulated",
                      N = NULL, groups = "g", grid = profile_grids(intervals = 5))
  expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_equal(unname(wt$mean_prediction), unname(dp$mean_prediction), tolerance = 1e-12)
})

test_that("weighted PD is the weighted mean of the ICE curves; non-integer weights", {
  s <- weighted_setup()
  w <- s$w * 0.37 + 0.01
  res <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", N = NULL, weights = w,
                       grid_points = 5)
  ice <- ref_ice(function(d) s$f(NULL, d), s$X, "b", res$grids$b)
  expect_equal(res$agr_profiles$`_yhat_`, as.vector(colSums(w * ice) / sum(w)), tolerance = 1e-12)
  expect_equal(res$weights, w)
  # Scaling the weights changes no weighted mean over a given grid. (The
  # default grid is another: weights are frequencies, and type-7 quantiles of
  # rows repeated 10 times are not those of the rows.)
  res2 <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", N = NULL, weights = 10 * w,
                        variable_splits = res$grids)
  expect_equal(res2$agr_profiles$`_yhat_`, res$agr_profiles$`_yhat_`, tolerance = 1e-12)
  res3 <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", N = NULL, weights = 10 * w,
                        grid_points = 5)
  expect_equal(res3$grids$b, profile_grid(s$X$b, 5, weights = 10 * w))
  expect_false(isTRUE(all.equal(res3$grids$b, res$grids$b)))
  # Weight 0 is as absent.
  w0 <- s$w
  w0[1:10] <- 0
  a <- model_profile(NULL, s$X, predict_function = s$f, variables = "a", type = "accumulated",
                     N = NULL, weights = w0, grid = profile_grids(intervals = 5))
  b <- model_profile(NULL, s$X[-(1:10), ], predict_function = s$f, variables = "a", type = "accumulated",
                     N = NULL, weights = w0[-(1:10)], grid = profile_grids(intervals = 5))
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_equal(a$N, 110)
})

test_that("weights from a column or an explainer; bad weights", {
  s <- weighted_setup()
  X <- s$X
  X$wt <- s$w
  by_col <- model_profile(NULL, X, predict_function = s$f, N = NULL, weights = "wt",
                          variable_splits = list(a = c(-1, 0, 1)), variables = "a")
  by_vec <- model_profile(NULL, s$X, predict_function = s$f, N = NULL, weights = s$w,
                          variable_splits = list(a = c(-1, 0, 1)), variables = "a")
  expect_equal(by_col$agr_profiles, by_vec$agr_profiles)
  # The weights column is not profiled by default.
  expect_false("wt" %in% model_profile(NULL, X, predict_function = s$f, weights = "wt")$variables)
  ex <- structure(list(model = NULL, data = s$X, predict_function = s$f, label = "ex", weights = s$w),
                  class = "explainer")
  by_ex <- model_profile(ex, N = NULL, variable_splits = list(a = c(-1, 0, 1)), variables = "a")
  expect_equal(by_ex$agr_profiles$`_yhat_`, by_vec$agr_profiles$`_yhat_`)
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = 1:3), "has 3 values")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = "nope"), "not in the data")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = "g"), "must be numeric")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = c(-1, s$w[-1])), "non-negative")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = c(NA, s$w[-1])), "non-negative")
  expect_error(model_profile(NULL, s$X, predict_function = s$f, weights = c(1, rep(0, 119))),
               "positive weight")
  expect_output(print(by_vec), "case weights")
})

# Integer weights are frequencies in every default as well: grids (weighted
# quantiles of all rows), kernel bandwidths (Silverman's rule on the
# weighted sample), Apley's edges, `_support_` and centring.
replicated_setup <- function() {
  set.seed(5)
  n <- 150
  X <- data.frame(a = rnorm(n), b = runif(n), i = sample(1:1000, n), g = factor(sample(c("p", "q", "r"), n, TRUE)))
  w <- sample(c(1L, 1L, 2L, 5L), n, TRUE)
  f <- function(m, d) {
    stopifnot(is.integer(d$i))
    d$a^2 * d$b + as.integer(d$g) * d$a + d$i / 500 * d$b
  }
  list(X = X, w = w, dup = X[rep(seq_len(n), w), ], f = f)
}

# The numbers of two results: profiles, not the rows they came from.
expect_same_profiles <- function(wt, dp, info = NULL) {
  a <- wt$agr_profiles
  b <- dp$agr_profiles
  expect_equal(a$`_x_`, b$`_x_`, info = info)
  expect_equal(a$`_yhat_`, b$`_yhat_`, tolerance = 1e-12, info = info)
  expect_equal(a$`_support_`, b$`_support_`, info = info)
  expect_equal(wt$grids, dp$grids, info = info)
  expect_equal(wt$bandwidth, dp$bandwidth, tolerance = 1e-12, info = info)
}

test_that("integer weights equal duplicated rows with default grids and bandwidths", {
  s <- replicated_setup()
  cases <- list(
    list(type = "partial"),
    list(type = "partial", grid_points = 12),
    list(type = "partial", grid_points = 12, variable_splits_type = "uniform"),
    list(type = "conditional", method = "kernel"),
    list(type = "conditional", method = "kernel", grid_points = 15),
    list(type = "conditional", method = "interval", grid_points = 15, grid = profile_grids(intervals = 8)),
    list(type = "accumulated", method = "interval"),
    list(type = "accumulated", method = "kernel", grid_points = 30)
  )
  for (cs in cases) {
    info <- paste(unlist(cs), collapse = " ")
    args <- c(list(NULL, predict_function = s$f, variables = c("a", "b", "i"), N = NULL), cs)
    wt <- do.call(model_profile, c(list(data = s$X, weights = s$w), args))
    dp <- do.call(model_profile, c(list(data = s$dup), args))
    expect_same_profiles(wt, dp, info)
    # The weights do change the defaults (else the test would prove nothing).
    un <- do.call(model_profile, c(list(data = s$X), args))
    if (cs$type == "conditional" && cs$method == "kernel") {
      expect_false(isTRUE(all.equal(wt$bandwidth, un$bandwidth)), info = info)
    }
    # (A uniform grid has the same ends with and without the weights.)
    if (cs$type != "accumulated" && is.null(cs$variable_splits_type)) {
      expect_false(isTRUE(all.equal(wt$grids$b, un$grids$b)), info = info)
    }
    expect_false(isTRUE(all.equal(wt$agr_profiles$`_support_`, un$agr_profiles$`_support_`)), info = info)
  }
  # Categorical LD, the support of levels (sums of weights).
  wt <- model_profile(NULL, s$X, predict_function = s$f, variables = "g", type = "conditional",
                      N = NULL, weights = s$w)
  dp <- model_profile(NULL, s$dup, predict_function = s$f, variables = "g", type = "conditional", N = NULL)
  expect_same_profiles(wt, dp)
  expect_equal(wt$agr_profiles$`_support_`, as.vector(tapply(s$w, s$X$g, sum)))
})

test_that("the weighted defaults are those of the repeated rows, computed independently", {
  s <- replicated_setup()
  d <- s$dup
  # Grids: type-7 quantiles (type 1 for the integer column) of the repeated rows.
  expect_equal(profile_grid(s$X$b, 9, weights = s$w), unname(quantile(d$b, seq(0, 1, length.out = 9))))
  expect_identical(profile_grid(s$X$i, 9, weights = s$w),
                   unname(quantile(d$i, seq(0, 1, length.out = 9), type = 1)))
  expect_equal(profile_grid(s$X$b, 9, "uniform", weights = s$w), seq(min(d$b), max(d$b), length.out = 9))
  # Rows of weight 0 are as absent, also for the range and the distinct values.
  w0 <- s$w
  w0[which.max(s$X$b)] <- 0
  expect_equal(max(profile_grid(s$X$b, 9, "uniform", weights = w0)), max(s$X$b[w0 > 0]))
  # Bandwidth: bw.nrd0 of the repeated rows (n = sum of weights).
  res <- model_profile(NULL, s$X, predict_function = s$f, variables = c("a", "b"), type = "conditional",
                       N = NULL, weights = s$w, grid_points = 5)
  expect_equal(unname(res$bandwidth), c(bw.nrd0(d$a), bw.nrd0(d$b)), tolerance = 1e-14)
  # Non-integer weights: the same formulas (weighted sd, weighted IQR, n = sum(w)).
  w <- s$w * 0.7
  x <- s$X$b
  m <- sum(w * x) / sum(w)
  sdw <- sqrt(sum(w * (x - m)^2) / (sum(w) - 1))
  o <- order(x)
  cw <- cumsum(w[o])
  q7 <- function(p) {
    h <- 1 + (sum(w) - 1) * p
    nth <- function(k) x[o][which(cw >= k)[1]]
    lo <- floor(h)
    nth(lo) + (h - lo) * (nth(ceiling(h)) - nth(lo))
  }
  iqr <- q7(0.75) - q7(0.25)
  res <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", type = "conditional",
                       N = NULL, weights = w, grid_points = 5)
  expect_equal(unname(res$bandwidth), 0.9 * min(sdw, iqr / 1.34) * sum(w)^(-0.2), tolerance = 1e-12)
  # Support: sums of weights of the rows in each grid point's cell.
  pd <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", N = NULL, weights = s$w,
                      grid_points = 6)
  g <- pd$grids$b
  mids <- (g[-1] + g[-6]) / 2
  cells <- findInterval(s$X$b, c(-Inf, mids, Inf))
  expect_equal(pd$agr_profiles$`_support_`, as.vector(tapply(s$w, factor(cells, levels = 1:6), sum)))
  # Apley's edges: type-1 quantiles of the repeated rows.
  al <- model_profile(NULL, s$X, predict_function = s$f, variables = "b", type = "accumulated",
                      N = NULL, weights = s$w, grid = profile_grids(intervals = 10))
  expect_equal(al$grids$b, unique(c(min(d$b), quantile(d$b, seq(0.1, 1, by = 0.1), type = 1, names = FALSE))))
})

test_that("integer weights equal duplicated rows: 2-D, subgroups, clusters, H, slopes, comparison", {
  s <- replicated_setup()
  # 2-D PD on default grids (and their support), 2-D AL.
  for (ty in c("partial", "accumulated")) {
    wt <- model_profile_2d(NULL, s$X, predict_function = s$f, variables = c("b", "i"), N = NULL,
                           weights = s$w, type = ty, grid_points = 7, grid = profile_grids(intervals = 5))
    dp <- model_profile_2d(NULL, s$dup, predict_function = s$f, variables = c("b", "i"), N = NULL,
                           type = ty, grid_points = 7, grid = profile_grids(intervals = 5))
    expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12, info = ty)
    expect_equal(wt$agr_profiles$`_support_`, dp$agr_profiles$`_support_`, info = ty)
    expect_equal(wt$grids, dp$grids, info = ty)
  }
  # Subgroups: by a factor and by quantile bins of a numeric column (weighted
  # bins); shared grids and bandwidths from the weighted rows.
  for (gr in c("g", "a")) {
    for (ty in list(list(type = "partial"), list(type = "conditional"), list(type = "accumulated", grid = profile_grids(intervals = 6)))) {
      info <- paste(gr, ty$type)
      args <- c(list(NULL, predict_function = s$f, variables = c("b", "i"), N = NULL, groups = profile_groups(gr, min_size = 2),
                     grid_points = 15), ty)
      wt <- do.call(model_profile, c(list(data = s$X, weights = s$w), args))
      dp <- do.call(model_profile, c(list(data = s$dup), args))
      expect_equal(wt$agr_profiles[c("_vname_", "_label_", "_x_", "_groups_")],
                   dp$agr_profiles[c("_vname_", "_label_", "_x_", "_groups_")], info = info)
      expect_equal(wt$agr_profiles$`_yhat_`, dp$agr_profiles$`_yhat_`, tolerance = 1e-12, info = info)
      expect_equal(wt$agr_profiles$`_support_`, dp$agr_profiles$`_support_`, info = info)
    }
  }
  # Clusters of ICE curves (Ward's clustering with the rows' weights as sizes).
  wt <- model_profile(NULL, s$X, predict_function = s$f, variables = c("a", "b"), N = NULL,
                      weights = s$w, k = 3, grid_points = 12)
  dp <- model_profile(NULL, s$dup, predict_function = s$f, variables = c("a", "b"), N = NULL,
                      k = 3, grid_points = 12)
  expect_equal(wt$agr_profiles, dp$agr_profiles, tolerance = 1e-12)
  expect_equal(wt$clusters$cluster[rep(seq_len(nrow(s$X)), s$w)], dp$clusters$cluster)
  # Without the sizes the clusters of the weighted rows would differ here.
  cp <- wt$cp_profiles
  M <- sapply(split(cp$`_yhat_`, cp$`_ids_`), identity)
  M <- sweep(M, 2L, colMeans(M))
  plain <- cutree(hclust(dist(t(M)) / sqrt(nrow(M)), "ward.D2"), 3)
  expect_false(isTRUE(all.equal(unname(plain), wt$clusters$cluster)))
  # H-statistics.
  wt <- h_statistic(NULL, s$X, predict_function = s$f, N = NULL, weights = s$w)
  dp <- h_statistic(NULL, s$dup, predict_function = s$f, N = NULL)
  expect_equal(wt$overall, dp$overall, tolerance = 1e-12)
  expect_equal(wt$pairwise, dp$pairwise, tolerance = 1e-12)
  expect_equal(wt$total, dp$total, tolerance = 1e-12)
  # Hidden interactions: subgroups of quantile bins, the default grid.
  wt <- hidden_interactions(NULL, s$X, predict_function = s$f, variables = c("b", "i"),
                            groups = profile_groups(c("a", "g"), min_size = 2), weights = s$w)
  dp <- hidden_interactions(NULL, s$dup, predict_function = s$f, variables = c("b", "i"),
                            groups = profile_groups(c("a", "g"), min_size = 2))
  expect_equal(wt$slopes[c("subgroup", "variable", "first", "last", "slope")],
               dp$slopes[c("subgroup", "variable", "first", "last", "slope")], tolerance = 1e-12)
  expect_equal(wt$grids, dp$grids)
  # PD, LD and AL compared, all with their defaults.
  wt <- compare_profiles(NULL, s$X, predict_function = s$f, variables = c("a", "b", "i"), N = NULL,
                         weights = s$w)
  dp <- compare_profiles(NULL, s$dup, predict_function = s$f, variables = c("a", "b", "i"), N = NULL)
  # (Not the extrapolation measure's share: a weight puts no copies of a
  # row in its own neighbourhood, see ?extrapolation.)
  keep <- setdiff(names(wt$distances), "pd_al_extrapolated")
  expect_equal(wt$distances[keep], dp$distances[keep], tolerance = 1e-12)
})

# Precision at the ends of the range of doubles: weights whose products with
# the predictions (or whose squares) leave the normal range are scaled by a
# power of two for the arithmetic, and reported as given.
tiny_weights_setup <- function() {
  set.seed(23)
  n <- 150
  X <- data.frame(x = runif(n), z = runif(n))
  # Small predictions: w y is subnormal for w near the smallest normal double.
  f <- function(d) 1e-6 * (sin(3 * d$x) * d$z + 2 * d$z^2)
  list(X = X, f = f, pf = function(m, nd) f(nd), w0 = rep(c(1, 3, 1.5, 2, 7), length.out = n),
       splits = list(x = c(0.1, 0.3, 0.5, 0.7, 0.9), z = c(0.2, 0.5, 0.8)))
}

test_that("PD, LD, AL and their bands to 1e-12 for weights down to the smallest normal double", {
  s <- tiny_weights_setup()
  X <- s$X
  w0 <- s$w0
  ice <- ref_ice(s$f, X, "x", s$splits$x)
  ref_pd <- as.vector(colSums(w0 * ice) / sum(w0))
  # The analytic standard error of a weighted mean (Kish's n_eff factor).
  ref_se <- apply(ice, 2, function(y) {
    m <- sum(w0 * y) / sum(w0)
    ne <- sum(w0)^2 / sum(w0^2)
    sqrt(ne / (ne - 1) * sum(w0^2 * (y - m)^2)) / sum(w0)
  })
  ref_ld <- vapply(seq_along(s$splits$x), function(g) {
    k <- w0 * dnorm(s$splits$x[g] - X$x, 0, 0.15)
    sum(k * ice[, g]) / sum(k)
  }, numeric(1))
  for (scale in c(1, 1e-300, .Machine$double.xmin, 2^-1060, 1e300)) {
    w <- w0 * scale
    info <- paste("weights times", scale)
    pd <- model_profile(NULL, X, s$pf, variables = "x", N = NULL, weights = w,
                        variable_splits = s$splits["x"], bands = "analytic")
    expect_equal(pd$agr_profiles$`_yhat_`, ref_pd, tolerance = 1e-12, info = info)
    expect_equal(pd$agr_profiles$`_se_`, ref_se, tolerance = 1e-12, info = info)
    # Reported as given.
    expect_identical(pd$weights, w, info = info)
    expect_equal(sum(pd$agr_profiles$`_support_`), sum(w), tolerance = 1e-14, info = info)
    ld <- model_profile(NULL, X, s$pf, variables = "x", type = "conditional", N = NULL, weights = w,
                        variable_splits = s$splits["x"], bandwidth = 0.15)
    expect_equal(ld$agr_profiles$`_yhat_`, ref_ld, tolerance = 1e-12, info = info)
    # AL: the same numbers as with the ordinary weights (its edges are
    # weighted quantiles, which depend on the weights' ratios only).
    al <- model_profile(NULL, X, s$pf, variables = "x", type = "accumulated", N = NULL, weights = w,
                        grid = profile_grids(intervals = 6), bands = "analytic")
    al0 <- model_profile(NULL, X, s$pf, variables = "x", type = "accumulated", N = NULL, weights = w0,
                         grid = profile_grids(intervals = 6), bands = "analytic")
    expect_identical(al$grids, al0$grids, info = info)
    expect_equal(al$agr_profiles$`_yhat_`, al0$agr_profiles$`_yhat_`, tolerance = 1e-12, info = info)
    expect_equal(al$agr_profiles$`_se_`, al0$agr_profiles$`_se_`, tolerance = 1e-12, info = info)
    expect_equal(unname(al$mean_prediction), weighted.mean(s$f(X), w0), tolerance = 1e-12, info = info)
  }
  # The linear engine: an lm's PD with tiny weights.
  d <- cbind(X, y = s$f(X) * 1e6 + rnorm(nrow(X), sd = 0.1))
  fit <- lm(y ~ x * z, d)
  p0 <- model_profile(fit, X, variables = "x", N = NULL, weights = w0, variable_splits = s$splits["x"])
  p1 <- model_profile(fit, X, variables = "x", N = NULL, weights = w0 * .Machine$double.xmin,
                      variable_splits = s$splits["x"])
  expect_identical(p1$engine, "native")
  ref <- vapply(s$splits$x, function(v) weighted.mean(predict(fit, transform(X, x = v)), w0), numeric(1))
  expect_equal(p1$agr_profiles$`_yhat_`, ref, tolerance = 1e-12)
  expect_equal(p1$agr_profiles$`_yhat_`, p0$agr_profiles$`_yhat_`, tolerance = 1e-14)
})
