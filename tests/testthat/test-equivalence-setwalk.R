# The set walk (inst/include/modelprofiles/setwalk.h): ICE curves and PD
# sums of tree ensembles, held to the model's own predict() and to the
# stacked predictions, with weights, categorical splits, missing values and
# every output kind; and the exact profile at the split values.

setwalk_data <- function(n = 300, seed = 3) {
  set.seed(seed)
  X <- data.frame(a = rnorm(n), b = runif(n), f = factor(sample(letters[1:5], n, TRUE)),
                  i = sample(1:12, n, TRUE))
  eta <- X$a * X$b + (X$f %in% c("b", "d")) - X$i / 6
  list(X = X, eta = eta)
}

# PD of every variable without curves (the set walk's sums), with curves
# (its ICE table) and through predict(), weighted: all equal to 1e-12, and
# to a brute-force weighted mean of the model's own predictions (own(): a
# column per profiled class, the positive one of a binary classifier).
expect_setwalk <- function(fit, X, own, tol = 1e-12) {
  w <- seq(0.2, 3, length.out = nrow(X))
  for (v in names(X)) {
    args <- list(fit, X, variables = v, N = NULL, grid_points = 9, weights = w)
    s <- do.call(model_profile, c(args, keep_ice = FALSE, engine = "native"))
    i <- do.call(model_profile, c(args, keep_ice = TRUE, engine = "native"))
    p <- do.call(model_profile, c(args, keep_ice = FALSE, engine = "predict"))
    expect_identical(s$engine, "native")
    expect_equal(s$agr_profiles, p$agr_profiles, tolerance = tol, info = v)
    expect_equal(i$agr_profiles, p$agr_profiles, tolerance = tol, info = v)
    grid <- s$grids[[v]]
    ref <- do.call(rbind, lapply(seq_along(grid), function(g) {
      Xg <- X
      Xg[[v]] <- if (is.factor(X[[v]])) factor(rep(grid[g], nrow(X)), levels = levels(X[[v]])) else grid[g]
      y <- as.matrix(own(Xg))
      colSums(y * w) / sum(w)
    }))
    got <- matrix(s$agr_profiles$`_yhat_`, nrow = length(grid))
    expect_equal(unname(got), unname(ref[, seq_len(ncol(got)), drop = FALSE]), tolerance = tol, info = v)
  }
}

test_that("ranger: regression and probabilities, unordered factors split by category", {
  skip_if_not_installed("ranger")
  d <- setwalk_data()
  fit <- ranger::ranger(x = d$X, y = d$eta, num.trees = 40, seed = 1, num.threads = 1,
                        respect.unordered.factors = "partition")
  expect_setwalk(fit, d$X, function(nd) predict(fit, nd, num.threads = 1)$predictions)
  y3 <- cut(d$eta, 3, labels = c("lo", "mid", "hi"))
  fit3 <- ranger::ranger(x = d$X, y = y3, num.trees = 30, seed = 2, num.threads = 1, probability = TRUE)
  expect_setwalk(fit3, d$X, function(nd) predict(fit3, nd, num.threads = 1)$predictions[, c("lo", "mid", "hi")])
})

test_that("randomForest: a classifier with a factor predictor", {
  skip_if_not_installed("randomForest")
  d <- setwalk_data()
  y <- factor(ifelse(d$eta > stats::median(d$eta), "yes", "no"))
  set.seed(5)
  fit <- randomForest::randomForest(d$X, y, ntree = 30)
  expect_setwalk(fit, d$X, function(nd) predict(fit, nd, type = "prob")[, "yes"])
})

test_that("gbm: a logistic transform and missing values routed to the missing child", {
  skip_if_not_installed("gbm")
  d <- setwalk_data()
  X <- d$X
  X$a[c(3, 50, 90)] <- NA
  X$b[c(7, 8)] <- NA
  set.seed(6)
  df <- cbind(X, y = as.integer(d$eta > 0))
  fit <- gbm::gbm(y ~ ., data = df, distribution = "bernoulli", n.trees = 40,
                  interaction.depth = 3, n.minobsinnode = 5, shrinkage = 0.1)
  own <- function(nd) gbm::predict.gbm(fit, nd, n.trees = 40, type = "response")
  expect_setwalk(fit, X, own)
})

test_that("xgboost: float splits, missing values and softmax outputs", {
  skip_if_not_installed("xgboost")
  d <- setwalk_data()
  X <- d$X[c("a", "b", "i")]
  X$a[c(2, 40)] <- NA
  M <- as.matrix(X)
  y3 <- cut(d$eta, 3, labels = FALSE) - 1
  fit <- xgboost::xgb.train(params = list(objective = "multi:softprob", num_class = 3, max_depth = 3,
                                          nthread = 1),
                            data = xgboost::xgb.DMatrix(M, label = y3, missing = NA), nrounds = 8)
  # xgboost sums its trees in single precision.
  own <- function(nd) matrix(predict(fit, xgboost::xgb.DMatrix(as.matrix(nd), missing = NA)), ncol = 3, byrow = TRUE)
  expect_setwalk(fit, X, own, tol = 1e-6)
})

test_that("lightgbm: missing values and a categorical split", {
  skip_if_not_installed("lightgbm")
  d <- setwalk_data()
  X <- d$X[c("a", "b", "i")]
  X$b[c(5, 6, 7)] <- NA
  M <- as.matrix(X)
  fit <- lightgbm::lgb.train(params = list(objective = "regression", num_leaves = 7, min_data_in_leaf = 5,
                                           verbose = -1, num_threads = 1),
                             data = lightgbm::lgb.Dataset(M, label = d$eta, categorical_feature = "i"),
                             nrounds = 10)
  expect_setwalk(fit, X, function(nd) predict(fit, as.matrix(nd)))
})

test_that("a missing value that a forest has no rule for is an error naming the column", {
  skip_if_not_installed("ranger")
  d <- setwalk_data()
  fit <- ranger::ranger(x = d$X, y = d$eta, num.trees = 10, seed = 1, num.threads = 1)
  X <- d$X
  X$b[4] <- NA
  expect_error(model_profile(fit, X, variables = "a", N = NULL, keep_ice = FALSE, engine = "native"),
               "missing values in .*b")
})

test_that("the set walk's PD sums do not depend on the threads or the row blocks' order", {
  skip_if_not_installed("ranger")
  set.seed(9)
  n <- 5000
  X <- data.frame(a = rnorm(n), b = rnorm(n), c = runif(n))
  fit <- ranger::ranger(x = X, y = X$a * X$b + X$c + rnorm(n), num.trees = 20, seed = 1, num.threads = 1)
  nm <- native_compile(fit)
  M <- native_columns(nm, X)
  w <- runif(n)
  z <- stats::quantile(X$a, 0:10 / 10, names = FALSE)
  s1 <- native_partial_sums(nm, M, seq_len(n), w, 1L, z, 1L)
  s2 <- native_partial_sums(nm, M, seq_len(n), w, 1L, z, 2L)
  expect_identical(s1, s2)
  expect_gt(attr(s1, "visits"), n * 20)
  y <- native_eval(nm, M, rep(seq_len(n), each = 11), 1L, list(rep(z, times = n)), 1L)
  expect_equal(as.vector(s1), as.vector(matrix(y[, 1], 11) %*% w), tolerance = 1e-12)
})

test_that("variable_splits_type = 'splits' is exact between the grid points", {
  skip_if_not_installed("ranger")
  d <- setwalk_data()
  fit <- ranger::ranger(x = d$X, y = d$eta, num.trees = 25, seed = 1, num.threads = 1)
  pd <- model_profile(fit, d$X, variables = c("a", "i", "f"), N = NULL, variable_splits_type = "splits",
                      keep_ice = FALSE)
  expect_identical(pd$steps, "vh")
  ga <- pd$grids$a
  # Every split value on a within the data's range, and the range's ends.
  nm <- native_compile(fit)
  t <- as.double(native_splits(nm, match("a", nm$features)))
  expect_identical(ga, sort(unique(c(min(d$X$a), t[t > min(d$X$a) & t < max(d$X$a)], max(d$X$a)))))
  expect_gt(length(ga), 101)
  # A factor keeps its levels; an integer column gets whole numbers.
  expect_identical(as.character(pd$grids$f), levels(d$X$f))
  expect_true(is.integer(pd$grids$i))
  # At random points the PD is the value at the grid point closing its step
  # (ranger sends x <= t left: the value at t holds on (previous, t]).
  set.seed(2)
  z <- stats::runif(30, min(ga), max(ga))
  at <- model_profile(fit, d$X, variables = "a", N = NULL, variable_splits = list(a = z), keep_ice = FALSE)
  ya <- pd$agr_profiles$`_yhat_`[pd$agr_profiles$`_vname_` == "a"]
  expect_equal(at$agr_profiles$`_yhat_`, ya[findInterval(z, ga, left.open = TRUE) + 1L], tolerance = 1e-12)
  zi <- seq(min(d$X$i), max(d$X$i))
  at_i <- model_profile(fit, d$X, variables = "i", N = NULL, variable_splits = list(i = zi), keep_ice = FALSE)
  yi <- pd$agr_profiles$`_yhat_`[pd$agr_profiles$`_vname_` == "i"]
  expect_equal(at_i$agr_profiles$`_yhat_`, yi[findInterval(zi, pd$grids$i, left.open = TRUE) + 1L],
               tolerance = 1e-12)
  # Drawn as steps.
  p <- plot(pd, variables = "a")
  expect_true(any(vapply(p$layers, function(l) inherits(l$geom, "GeomStep"), logical(1))))
})

test_that("'splits' follows a model that sends x < t left, and refuses models without trees", {
  skip_if_not_installed("gbm")
  d <- setwalk_data()
  set.seed(4)
  fit <- gbm::gbm(eta ~ a + b, data = cbind(d$X, eta = d$eta), distribution = "gaussian", n.trees = 30,
                  interaction.depth = 2)
  pd <- model_profile(fit, d$X[c("a", "b")], variables = "a", N = NULL, variable_splits_type = "splits",
                      keep_ice = FALSE)
  nm <- native_compile(fit)
  dir <- if (identical(as.integer(nm$rule), 1L)) "hv" else "vh"
  expect_identical(pd$steps, dir)
  ga <- pd$grids$a
  set.seed(3)
  z <- stats::runif(25, min(ga), max(ga))
  at <- model_profile(fit, d$X[c("a", "b")], variables = "a", N = NULL, variable_splits = list(a = z),
                      keep_ice = FALSE)
  ya <- pd$agr_profiles$`_yhat_`
  idx <- if (dir == "hv") findInterval(z, ga) else findInterval(z, ga, left.open = TRUE) + 1L
  expect_equal(at$agr_profiles$`_yhat_`, ya[idx], tolerance = 1e-12)
  lin <- lm(eta ~ a + b, data = cbind(d$X, eta = d$eta))
  expect_error(model_profile(lin, d$X[c("a", "b")], variable_splits_type = "splits"),
               "split values of a tree ensemble")
})

test_that("'splits' reads the forest inside a framework, on either engine", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("ranger")
  d <- setwalk_data()
  X <- d$X[c("a", "b")]
  spec <- parsnip::set_engine(parsnip::rand_forest(mode = "regression", trees = 20), "ranger",
                              seed = 1, num.threads = 1)
  fit <- parsnip::fit(spec, y ~ a + b, data = cbind(X, y = d$eta))
  a <- model_profile(fit, X, variables = "a", N = NULL, variable_splits_type = "splits", keep_ice = FALSE)
  b <- model_profile(fit, X, variables = "a", N = NULL, variable_splits_type = "splits", keep_ice = FALSE,
                     engine = "predict")
  expect_identical(a$engine, "native")
  expect_gt(length(a$grids$a), 20)
  expect_identical(a$grids, b$grids)
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-12)
})

test_that("'splits' on a 0/1 integer column steps halfway, where ranger splits (0.5)", {
  skip_if_not_installed("ranger")
  set.seed(5)
  X <- data.frame(a = rnorm(300), chas = sample(0:1, 300, TRUE))
  y <- X$a + 2 * X$chas
  fit <- ranger::ranger(x = X, y = y, num.trees = 10, seed = 1, num.threads = 1)
  nm <- native_compile(fit)
  expect_true(0.5 %in% as.double(native_splits(nm, match("chas", nm$features))))
  pd <- model_profile(fit, X, N = NULL, variable_splits_type = "splits", keep_ice = FALSE)
  expect_identical(pd$grids$chas, 0:1)
  expect_identical(pd$steps_mid, "chas")
  # The PD at 0 and 1: ranger's mean predictions with chas set.
  own <- function(v) mean(predict(fit, transform(X, chas = v), num.threads = 1)$predictions)
  ych <- pd$agr_profiles$`_yhat_`[pd$agr_profiles$`_vname_` == "chas"]
  expect_equal(ych, c(own(0L), own(1L)), tolerance = 1e-12)
  p <- plot(pd)
  steps <- Filter(function(l) inherits(l$geom, "GeomStep"), p$layers)
  dirs <- vapply(steps, function(l) l$geom_params$direction, "")
  expect_setequal(dirs, c("vh", "mid"))
  mid <- steps[[which(dirs == "mid")]]
  expect_identical(unique(as.character(mid$data$`_vname_`)), "chas")
  # ggplot2 draws a "mid" step's jump halfway between 0 and 1: at 0.5.
  stairs <- ggplot2:::stairstep(data.frame(x = c(0, 1), y = ych), direction = "mid")
  expect_equal(stairs$x[stairs$y == ych[2]][1], 0.5)
  expect_equal(unique(stairs$x[2:3]), 0.5)
})
