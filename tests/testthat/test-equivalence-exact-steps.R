# Exact profiles at a tree ensemble's splits (variable_splits_type =
# "splits", split_grid() and native_splits()): for every family, the step
# profile read off the grid (each value holding on the side that `$steps`
# says) equals the partial dependence computed by brute force with the
# model's own predict(), at the data's own values and at the doubles next to
# each threshold; and the native walk, evaluated at those doubles, routes
# them as predict() does. xgboost rounds a value to single precision before
# it compares it with a float threshold: its grid points are the smallest
# doubles that round to the thresholds.

# The double next to each x towards +Inf (up) or -Inf, from its bits
# (independent of the package's C++).
next_double <- function(x, up = TRUE) {
  vapply(x, function(v) {
    if (v == 0) return(if (up) 2^-1074 else -2^-1074)
    b <- as.integer(writeBin(v, raw(), size = 8, endian = "little"))
    grow <- (v > 0) == up
    i <- 1L
    repeat {
      b[i] <- b[i] + if (grow) 1L else -1L
      if (b[i] >= 0L && b[i] <= 255L) break
      b[i] <- if (grow) 0L else 255L
      i <- i + 1L
    }
    readBin(as.raw(b), "double", size = 8, endian = "little")
  }, numeric(1))
}

# Round doubles to the nearest float (as writeBin's C cast does), as doubles.
to_float <- function(x) readBin(writeBin(as.double(x), raw(), size = 4), "double", n = length(x), size = 4)

# Data whose values are not floats (0.2 is not), with ties, so that values
# fall on and next to the thresholds.
steps_data <- function(n = 160, seed = 3) {
  set.seed(seed)
  X <- data.frame(a = round(runif(n), 2), b = round(rnorm(n), 3), c = runif(n))
  y <- 2 * (X$a > 0.3) + sin(3 * X$b) + X$a * X$b + X$c + rnorm(n, sd = 0.2)
  list(X = X, y = y)
}

# The partial dependence of `v` at each of z: the mean of predict() over
# every row of X with v set to z (one predict() call).
brute_pd <- function(pred, X, v, z) {
  stacked <- X[rep(seq_len(nrow(X)), times = length(z)), , drop = FALSE]
  stacked[[v]] <- rep(z, each = nrow(X))
  rownames(stacked) <- NULL
  as.vector(tapply(pred(stacked), rep(seq_along(z), each = nrow(X)), mean))
}

# The value of a step profile (values y at grid points g) at each of z:
# "hv" holds a point's value up to the next point, "vh" from the previous.
step_at <- function(g, y, z, steps) {
  k <- if (identical(steps, "hv")) findInterval(z, g) else findInterval(z, g, left.open = TRUE) + 1L
  y[k]
}

# The checks for one fitted model: thresholds(v) are the model's numeric
# thresholds of v read from the model itself (the floats, as doubles, for
# xgboost); `rounding` what the model does to a value before it compares
# it (to_float() for xgboost); tol the absolute tolerance (xgboost sums
# floats).
expect_exact_steps <- function(fit, X, pred, thresholds, steps, tol = 1e-12, label = "",
                               rounding = identity) {
  for (v in c("a", "b")) {
    x <- X[[v]]
    lo <- min(x)
    hi <- max(x)
    t <- sort(unique(thresholds(v)))
    pd <- model_profile(fit, X, variables = v, N = NULL, variable_splits_type = "splits",
                        keep_ice = FALSE)
    expect_identical(pd$engine, "native")
    expect_identical(pd$steps, steps, info = label)
    g <- as.double(pd$grids[[v]])
    y <- pd$agr_profiles$`_yhat_`
    # The grid points themselves: the model's own PD.
    expect_lt(max(abs(y - brute_pd(pred, X, v, g))), tol)
    # Every threshold whose side changes within the range has its grid
    # point: after rounding, the smallest value is below it and the double
    # below the largest is not (with rounding, a threshold above the
    # largest value may change side below it).
    inside <- t[rounding(lo) < t & rounding(next_double(hi, FALSE)) >= t]
    expect_gt(length(inside), 5)
    expect_identical(length(g), length(inside) + 2L, info = label)
    # The data's own values, the thresholds and the doubles next to them,
    # and the doubles next to the grid points.
    z <- c(x, t, next_double(t, TRUE), next_double(t, FALSE), g, next_double(g, FALSE),
           next_double(g, TRUE))
    z <- sort(unique(z[z >= lo & z <= hi]))
    ref <- brute_pd(pred, X, v, z)
    got <- step_at(g, y, z, steps)
    bad <- which(abs(got - ref) > tol)
    expect_identical(length(bad), 0L, info = paste(label, v, "wrong steps at", format(z[utils::head(bad)], digits = 17)))
    # The native walk at those doubles routes them as predict() does.
    at <- model_profile(fit, X, variables = v, N = NULL, variable_splits = stats::setNames(list(z), v),
                        keep_ice = FALSE)
    expect_identical(at$engine, "native")
    expect_lt(max(abs(at$agr_profiles$`_yhat_` - ref)), tol)
  }
}

test_that("ranger's step profile is its own PD at and next to every split", {
  skip_if_not_installed("ranger")
  d <- steps_data()
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 20, min.node.size = 3, seed = 1, num.threads = 1)
  thresholds <- function(v) {
    unlist(lapply(seq_len(fit$num.trees), function(k) {
      ti <- ranger::treeInfo(fit, k)
      ti$splitval[!ti$terminal & ti$splitvarName == v]
    }))
  }
  pred <- function(newdata) predict(fit, newdata, num.threads = 1)$predictions
  expect_exact_steps(fit, d$X, pred, thresholds, "vh", label = "ranger")
})

test_that("randomForest's step profile is its own PD at and next to every split", {
  skip_if_not_installed("randomForest")
  d <- steps_data()
  set.seed(1)
  fit <- randomForest::randomForest(x = d$X, y = d$y, ntree = 20, nodesize = 3)
  thresholds <- function(v) {
    unlist(lapply(seq_len(fit$ntree), function(k) {
      tr <- randomForest::getTree(fit, k, labelVar = TRUE)
      tr$`split point`[tr$status != -1 & tr$`split var` %in% v]
    }))
  }
  pred <- function(newdata) unname(predict(fit, newdata))
  expect_exact_steps(fit, d$X, pred, thresholds, "vh", label = "randomForest")
})

test_that("gbm's step profile is its own PD at and next to every split", {
  skip_if_not_installed("gbm")
  d <- steps_data()
  set.seed(1)
  fit <- gbm::gbm(y ~ ., data = cbind(d$X, y = d$y), distribution = "gaussian", n.trees = 40,
                  interaction.depth = 3, n.minobsinnode = 3, bag.fraction = 1, shrinkage = 0.2)
  thresholds <- function(v) {
    j <- match(v, fit$var.names) - 1L
    unlist(lapply(fit$trees, function(tr) tr[[2L]][tr[[1L]] == j]))
  }
  pred <- function(newdata) predict(fit, newdata, n.trees = fit$n.trees)
  expect_exact_steps(fit, d$X, pred, thresholds, "hv", label = "gbm")
})

test_that("xgboost's step profile is its own PD at and next to every split, exact and hist trees", {
  skip_if_not_installed("xgboost")
  d <- steps_data()
  M <- as.matrix(d$X)
  pred <- NULL
  for (method in c("exact", "hist")) {
    fit <- xgboost::xgb.train(
      params = list(tree_method = method, max_depth = 4, eta = 0.3, nthread = 1, min_child_weight = 1),
      data = xgboost::xgb.DMatrix(M, label = d$y), nrounds = 30, verbose = 0)
    dt <- xgboost::xgb.model.dt.tree(model = fit)
    # (Printed with enough digits to name each float.)
    thresholds <- function(v) to_float(dt$Split[dt$Feature == v])
    pred <- function(newdata) predict(fit, as.matrix(newdata))
    expect_exact_steps(fit, d$X, pred, thresholds, "hv", tol = 1e-5, label = paste("xgboost", method),
                       rounding = to_float)
    # hist trees split at the data's own floats: data values such as 0.2
    # round up onto thresholds above them (the case the grid of the
    # thresholds' own doubles got wrong; exact trees split halfway between
    # floats).
    thr <- thresholds("a")
    if (method == "hist") expect_gt(sum(to_float(d$X$a) %in% thr & d$X$a < to_float(d$X$a)), 0L)
    # Each inner grid point is the smallest double that rounds to its
    # threshold.
    g <- as.double(model_profile(fit, d$X, variables = "a", N = NULL, variable_splits_type = "splits",
                                 keep_ice = FALSE)$grids$a)
    inner <- g > min(d$X$a) & g < max(d$X$a)
    expect_true(all(to_float(g[inner]) %in% thr))
    expect_true(all(to_float(next_double(g[inner], FALSE)) < to_float(g[inner])))
  }
})

test_that("lightgbm's step profile is its own PD at and next to every split", {
  skip_if_not_installed("lightgbm")
  d <- steps_data()
  M <- as.matrix(d$X)
  fit <- lightgbm::lgb.train(
    params = list(objective = "regression", num_leaves = 15, min_data_in_leaf = 3, learning_rate = 0.3,
                  verbose = -1, num_threads = 1, deterministic = TRUE),
    data = lightgbm::lgb.Dataset(M, label = d$y), nrounds = 30)
  nm <- native_compile(fit)
  # (lightgbm's thresholds are doubles, read to the last bit from its model
  # text by the converter.)
  thresholds <- function(v) as.double(native_splits(nm, match(v, nm$features)))
  pred <- function(newdata) predict(fit, as.matrix(newdata))
  expect_exact_steps(fit, d$X, pred, thresholds, "vh", label = "lightgbm")
})

test_that("a float threshold's grid point is the smallest double that rounds to it (x < t), the largest (x <= t)", {
  f1 <- 1 + 2^-23 # odd last bit
  fmax <- (2 - 2^-23) * 2^127
  t <- c(0.2, 0.3, 1, f1, -f1, 0, 2^-149, -2^-149, 2^-126, fmax, -fmax, 1e30, -3.5, 1e-40)
  t <- sort(unique(to_float(t)))
  for (rule in 0:1) {
    n <- length(t)
    nm <- new_native(
      features = "x", feature_levels = list(NULL), tree_start = 3L * (0:n),
      feature = rep(c(0L, -1L, -1L), n), threshold = as.vector(rbind(t, 0, 0)),
      left = as.vector(rbind(3L * (0:(n - 1)) + 1L, -1L, -1L)),
      right = as.vector(rbind(3L * (0:(n - 1)) + 2L, -1L, -1L)),
      missing = rep(-1L, 3 * n), cat_start = rep(-1L, 3 * n), cat_len = rep(0L, 3 * n),
      cat_left = integer(), rule = rule, value = rep(c(0, 0, 1), n), aggregate = "sum",
      base = 0, transform = "identity", float32 = TRUE, source = "test"
    )
    nm$cache <- native_pack(nm)
    s <- as.double(native_splits(nm, 1L))
    expect_identical(length(s), n)
    # Each point rounds to its threshold ...
    expect_identical(to_float(s), t)
    if (rule == 1L) {
      # ... and the double below it to a smaller float.
      expect_true(all(to_float(next_double(s, FALSE)) < t))
    } else {
      # ... and the double above it to a larger float.
      expect_true(all(to_float(next_double(s, TRUE)) > t))
    }
    # The native walk sends a value right of a stump when its float is
    # beyond the threshold: the number of stumps it passes to the right.
    z <- sort(c(s, next_double(s, TRUE), next_double(s, FALSE)))
    z <- z[is.finite(z) & abs(z) < 2^128]
    right <- vapply(to_float(z), function(f) sum(if (rule == 1L) f >= t else f > t), numeric(1))
    expect_identical(as.vector(native_eval(nm, matrix(z))), right)
  }
  # The well-known case: 0.2 rounds up onto 0.2f, a double below 0.2f.
  expect_lt(0.2, to_float(0.2))
})

test_that("the 'splits' grid of a model that compares floats gives each data value the model's step", {
  # Stumps at the floats of 0.2, 0.5 and 0.7 (x < t goes left, leaf 0;
  # right, leaf 1), compared in single precision, as xgboost does.
  t <- to_float(c(0.2, 0.5, 0.7))
  nm <- new_native(
    features = "x", feature_levels = list(NULL), tree_start = c(0L, 3L, 6L, 9L),
    feature = rep(c(0L, -1L, -1L), 3), threshold = as.vector(rbind(t, 0, 0)),
    left = as.vector(rbind(c(1L, 4L, 7L), -1L, -1L)), right = as.vector(rbind(c(2L, 5L, 8L), -1L, -1L)),
    missing = rep(-1L, 9), cat_start = rep(-1L, 9), cat_len = rep(0L, 9), cat_left = integer(),
    rule = 1L, value = rep(c(0, 0, 1), 3), aggregate = "sum", base = 0, transform = "identity",
    float32 = TRUE, source = "test"
  )
  nm$cache <- native_pack(nm)
  x <- c(0, 0.1, 0.2, 0.3, 0.45, 0.5, 0.6, 0.7, 1)
  g <- split_grid(nm, x, "x")
  # 0.2 rounds up onto 0.2f (0.5 is a float, 0.7 rounds down onto 0.7f):
  # the points are below the thresholds, at or below the data's values.
  expect_true(all(g[2:4] < t & g[2:4] <= c(0.2, 0.5, 0.7)))
  yg <- as.vector(native_eval(nm, matrix(g)))
  # The model's own value at each data value: the thresholds its float
  # reaches.
  own <- vapply(to_float(x), function(f) sum(f >= t), numeric(1))
  expect_identical(as.vector(native_eval(nm, matrix(x))), own)
  expect_identical(step_at(g, yg, x, split_steps(nm)), own)
  # The thresholds' own doubles as grid points would give 0.2 the step on
  # the left.
  gt <- sort(c(0, t, 1))
  expect_false(identical(step_at(gt, as.vector(native_eval(nm, matrix(gt))), x, "hv"), own))
})
