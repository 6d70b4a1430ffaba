# Per-tree profiles of forests and their uncertainty (R/bands_trees.R),
# against brute force from the models' own per-tree predictions
# (predict.all = TRUE) and against ranger's own infinitesimal jackknife.

# A native-engine setup of all rows of X.
tree_setup <- function(model, X, weights = NULL, threads = 1L, engine = "native", linear = FALSE) {
  inputs <- setup_inputs(model, X, NULL, NULL, weights, threads, 256, rlang::current_env())
  new_setup(inputs, seq_len(nrow(X)), engine = engine, linear = linear)
}

# Brute-force per-tree PD: the stacked rows (observation-major) predicted
# tree by tree (`per_tree(stacked)`: rows x trees, or rows x classes x
# trees), then weighted means per grid point. G x trees x outputs.
brute_tree_pd <- function(per_tree, X, col, grid, rows = seq_len(nrow(X)), w = rep(1, length(rows))) {
  G <- length(grid)
  st <- X[rep(rows, each = G), , drop = FALSE]
  st[[col]] <- rep(grid, length(rows))
  if (is.factor(X[[col]])) st[[col]] <- factor(st[[col]], levels = levels(X[[col]]))
  P <- per_tree(st)
  if (length(dim(P)) == 2L) P <- array(P, c(nrow(P), 1L, ncol(P)))
  out <- array(0, c(G, dim(P)[3L], dim(P)[2L]), dimnames = list(NULL, NULL, dimnames(P)[[2L]]))
  for (k in seq_len(dim(P)[2L])) {
    for (t in seq_len(dim(P)[3L])) {
      out[, t, k] <- matrix(P[, k, t], G) %*% w / sum(w)
    }
  }
  out
}

# The IJ formula term by term: sum_i Cov_t(N_it, theta_tg)^2 (denominator T)
# less n * mean_i Var_t(N_it) / T^2 * sum_t (theta_tg - mean)^2, over the
# rows that are out of the bag of some tree.
brute_ij <- function(theta, N) {
  N <- N[rowSums(N == 0) > 0, , drop = FALSE]
  B <- ncol(N)
  pop_cov <- function(a, b) mean((a - mean(a)) * (b - mean(b)))
  n_var <- mean(apply(N, 1L, function(x) pop_cov(x, x)))
  vapply(seq_len(nrow(theta)), function(g) {
    th <- theta[g, ]
    raw <- sum(apply(N, 1L, function(x) pop_cov(x, th))^2)
    raw - nrow(N) * n_var / B^2 * sum((th - mean(th))^2)
  }, numeric(1))
}

tree_data <- function(n = 150, seed = 3) {
  d <- parallel_data(n, seed)
  d$cls <- factor(c("lo", "mid", "hi")[1L + (d$y > 1) + (d$y > 2.5)], levels = c("mid", "lo", "hi"))
  d
}

test_that("ranger regression: per-tree PD equals brute force, with and without weights, any threads", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 25, num.threads = 1, seed = 1)
  per_tree <- function(st) predict(fit, st, predict.all = TRUE, num.threads = 1)$predictions
  w <- runif(nrow(d$X), 0.2, 3)
  grids <- list(a = c(1.5, -2, 0, 0.3, 3), f = c("c", "a", "d"), i = c(2L, 9L, 5L))
  for (weights in list(NULL, w)) {
    s1 <- tree_setup(fit, d$X, weights)
    s2 <- tree_setup(fit, d$X, weights, threads = 2L)
    ww <- if (is.null(weights)) rep(1, nrow(d$X)) else weights
    for (col in names(grids)) {
      th <- tree_partial(s1, col, grids[[col]])
      expect_equal(dim(th), c(length(grids[[col]]), 25L, 1L))
      expect_equal(th, brute_tree_pd(per_tree, d$X, col, grids[[col]], w = ww), tolerance = 1e-10)
      expect_identical(tree_partial(s2, col, grids[[col]]), th)
      # The mean over the trees is the forest's PD.
      pd <- model_profile(fit, d$X, variables = col, variable_splits = grids[col], weights = weights,
                          engine = "native")$agr_profiles
      pd <- pd$`_yhat_`[match(as.character(grids[[col]]), as.character(pd$`_x_`))]
      expect_equal(rowMeans(th[, , 1L]), pd, tolerance = 1e-12)
    }
  }
  # A subset of the rows, by position.
  rows <- c(5L, 2L, 40L, 41L)
  expect_equal(tree_partial(tree_setup(fit, d$X, w), 2L, c(0.1, 0.9), rows),
               brute_tree_pd(per_tree, d$X, "b", c(0.1, 0.9), rows, w[rows]), tolerance = 1e-10)
})

test_that("ranger probability forest: per-tree PD of every class, named as the model's classes", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  fit <- ranger::ranger(x = d$X, y = d$cls, num.trees = 20, probability = TRUE, num.threads = 1, seed = 2)
  per_tree <- function(st) predict(fit, st, predict.all = TRUE, num.threads = 1)$predictions
  w <- runif(nrow(d$X), 0.5, 2)
  s <- tree_setup(fit, d$X, w)
  th <- tree_partial(s, "a", c(-1, 0, 1, 2))
  bf <- brute_tree_pd(per_tree, d$X, "a", c(-1, 0, 1, 2), w = w)
  expect_equal(dimnames(th)[[3L]], colnames(predict(fit, d$X[1:2, ])$predictions))
  expect_equal(th, bf[, , dimnames(th)[[3L]], drop = FALSE], tolerance = 1e-10)
  expect_identical(tree_partial(tree_setup(fit, d$X, w, threads = 2L), "a", c(-1, 0, 1, 2)), th)
})

test_that("randomForest regression: per-tree PD equals predict.all's individual trees", {
  skip_if_not_installed("randomForest")
  d <- tree_data()
  set.seed(4)
  fit <- randomForest::randomForest(x = d$X, y = d$y, ntree = 15)
  per_tree <- function(st) predict(fit, st, predict.all = TRUE)$individual
  w <- runif(nrow(d$X), 0.5, 2)
  for (weights in list(NULL, w)) {
    ww <- if (is.null(weights)) rep(1, nrow(d$X)) else weights
    s <- tree_setup(fit, d$X, weights)
    for (col in c("b", "f")) {
      grid <- if (col == "f") c("b", "a") else c(0.05, 0.5, 0.95)
      th <- tree_partial(s, col, grid)
      expect_equal(th, brute_tree_pd(per_tree, d$X, col, grid, w = ww), tolerance = 1e-10, ignore_attr = TRUE)
      expect_identical(tree_partial(tree_setup(fit, d$X, weights, threads = 2L), col, grid), th)
    }
  }
  # A classification forest: each tree votes for one class (one-hot).
  cls <- randomForest::randomForest(x = d$X, y = d$cls, ntree = 12)
  votes <- function(st) {
    ind <- predict(cls, st, predict.all = TRUE)$individual
    classes <- levels(d$cls)
    aperm(array(as.double(outer(c(ind), classes, "==")), c(dim(ind), length(classes)),
                dimnames = list(NULL, NULL, classes)), c(1, 3, 2))
  }
  th <- tree_partial(tree_setup(cls, d$X, w), "a", c(-1, 0.5, 2))
  expect_equal(dimnames(th)[[3L]], levels(d$cls))
  expect_equal(th, brute_tree_pd(votes, d$X, "a", c(-1, 0.5, 2), w = w), tolerance = 1e-10)
})

test_that("a column the model does not read gives each tree's mean prediction at every grid point", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  fit <- ranger::ranger(x = d$X[c("a", "b")], y = d$y, num.trees = 10, num.threads = 1, seed = 5)
  th <- tree_partial(tree_setup(fit, d$X), "i", c(1L, 4L, 8L))
  per_tree <- colMeans(predict(fit, d$X, predict.all = TRUE, num.threads = 1)$predictions)
  expect_equal(th[, , 1L], matrix(per_tree, 3L, 10L, byrow = TRUE), tolerance = 1e-12)
})

test_that("infjack of the per-tree PD is the IJ formula on brute-force per-tree PDs", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  for (replace in c(TRUE, FALSE)) {
    fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 30, keep.inbag = TRUE, replace = replace,
                          num.threads = 1, seed = 7)
    per_tree <- function(st) predict(fit, st, predict.all = TRUE, num.threads = 1)$predictions
    grid <- seq(-2, 2, length.out = 6)
    s <- tree_setup(fit, d$X)
    v <- infjack_variance(tree_partial(s, "a", grid), tree_inbag(s))
    bf <- brute_tree_pd(per_tree, d$X, "a", grid)[, , 1L]
    N <- simplify2array(fit$inbag.counts)
    inflate <- if (replace) 1 else 1 / (1 - mean(N[rowSums(N == 0) > 0, ]))^2
    expect_equal(dim(v), c(6L, 1L))
    expect_equal(v[, 1L], inflate * brute_ij(bf, N), tolerance = 1e-10)
    expect_equal(v[, 1L], ranger:::rInfJack(bf, N[rowSums(N == 0) > 0, ], calibrate = FALSE)$var.hat,
                 tolerance = 1e-10)
  }
  # randomForest's in-bag counts (an n x T matrix) work the same way.
  skip_if_not_installed("randomForest")
  set.seed(8)
  rf <- randomForest::randomForest(x = d$X, y = d$y, ntree = 20, keep.inbag = TRUE)
  s <- tree_setup(rf, d$X)
  th <- tree_partial(s, "b", c(0.2, 0.8))
  expect_equal(infjack_variance(th, tree_inbag(s))[, 1L], brute_ij(th[, , 1L], rf$inbag), tolerance = 1e-10)
})

test_that("infjack of plain predictions is ranger's own se^2", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  new <- d$X[1:15, ]
  for (replace in c(TRUE, FALSE)) {
    fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 60, keep.inbag = TRUE, replace = replace,
                          num.threads = 1, seed = 9)
    pred <- predict(fit, new, predict.all = TRUE, num.threads = 1)$predictions
    # 20 rows or fewer: ranger does not calibrate (and says so; the
    # negative variances give NaN, with a warning too).
    said <- character()
    se <- withCallingHandlers(
      predict(fit, new, type = "se", num.threads = 1, seed = 1)$se,
      warning = function(w) {
        said <<- c(said, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    )
    expect_match(said, "no calibration", all = FALSE)
    v <- infjack_variance(pred, fit$inbag.counts)
    ok <- !is.nan(se)
    expect_true(all(v[!ok] < 0))
    expect_equal(v[ok], se[ok]^2, tolerance = 1e-10)
  }
  prob <- ranger::ranger(x = d$X, y = d$cls, num.trees = 60, keep.inbag = TRUE, probability = TRUE,
                         num.threads = 1, seed = 10)
  pred <- predict(prob, new, predict.all = TRUE, num.threads = 1)$predictions
  se <- suppressWarnings(predict(prob, new, type = "se", num.threads = 1, seed = 1)$se)
  v <- infjack_variance(aperm(pred, c(1, 3, 2)), prob$inbag.counts)
  v <- v[, colnames(se)]
  expect_equal(v[!is.nan(se)], se[!is.nan(se)]^2, tolerance = 1e-10)
  # Calibrated (more than 20 rows), with the same random draws as ranger.
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 40, keep.inbag = TRUE, num.threads = 1, seed = 11)
  new <- d$X[1:50, ]
  pred <- predict(fit, new, predict.all = TRUE, num.threads = 1)$predictions
  set.seed(12)
  se <- predict(fit, new, type = "se", num.threads = 1, seed = 1)$se
  set.seed(12)
  v <- infjack_variance(pred, fit$inbag.counts, calibrate = TRUE)
  expect_true(all(v >= 0))
  expect_equal(v, se^2, tolerance = 1e-5)
  expect_warning(infjack_variance(pred[1:10, ], fit$inbag.counts, calibrate = TRUE), "20 grid points")
})

test_that("clear errors: boosted trees, no in-bag counts, no native trees", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 5, num.threads = 1, seed = 1)
  s <- tree_setup(fit, d$X)
  expect_error(tree_inbag(s), "keep.inbag = TRUE")
  expect_error(infjack_variance(tree_partial(s, "a", 0), NULL), "keep.inbag = TRUE")
  expect_error(infjack_variance(tree_partial(s, "a", 0), list(1:3, 1:3)), "counts for the 5 trees")
  expect_error(tree_partial(tree_setup(fit, d$X, engine = "predict"), "a", 0), "native tree engine")
  expect_error(tree_partial(s, "zz", 0), "must name one column")
  expect_error(tree_partial(s, 0.5, 0), "must name one column")
  expect_error(tree_partial(list(), "a", 0), "mp_setup")
  lin <- stats::lm(y ~ a + b, data = cbind(d$X, y = d$y))
  expect_error(tree_partial(tree_setup(lin, d$X, engine = "auto", linear = TRUE), "a", 0), "native tree engine")
  skip_if_not_installed("gbm")
  gb <- gbm::gbm(y ~ ., data = cbind(d$X, y = d$y), distribution = "gaussian", n.trees = 10,
                 interaction.depth = 2, n.minobsinnode = 5)
  expect_error(tree_partial(tree_setup(gb, d$X), "a", 0), "adds up its trees")
})

test_that("model_profile(bands = 'trees' | 'infjack') draws the forest's own bands", {
  skip_if_not_installed("ranger")
  d <- tree_data()
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 25, keep.inbag = TRUE, num.threads = 1, seed = 4)
  per_tree <- function(st) predict(fit, st, predict.all = TRUE, num.threads = 1)$predictions
  grid <- seq(-1.5, 1.5, length.out = 5)
  tr <- model_profile(fit, d$X, variables = "a", variable_splits = list(a = grid), bands = profile_bands("trees", level = 0.8))
  bf <- brute_tree_pd(per_tree, d$X, "a", grid)[, , 1L]
  expect_equal(tr$replicates, bf, tolerance = 1e-10)
  expect_equal(tr$agr_profiles$`_yhat_`, rowMeans(bf), tolerance = 1e-10)
  expect_equal(tr$agr_profiles$`_lower_`, apply(bf, 1, quantile, 0.1, names = FALSE), tolerance = 1e-10)
  expect_identical(tr$bands$B, 25L)
  ij <- model_profile(fit, d$X, variables = "a", variable_splits = list(a = grid), bands = "infjack")
  N <- simplify2array(fit$inbag.counts)
  expect_equal(ij$agr_profiles$`_se_`, sqrt(pmax(brute_ij(bf, N), 0)), tolerance = 1e-10)
  expect_equal(ij$agr_profiles$`_upper_` - ij$agr_profiles$`_yhat_`, qnorm(0.975) * ij$agr_profiles$`_se_`)
  expect_identical(ij$n_predictions, model_profile(fit, d$X, variables = "a",
                                                   variable_splits = list(a = grid))$n_predictions)
  expect_error(model_profile(fit, d$X, variables = "a", type = "accumulated", bands = "trees"), "partial")
  expect_error(model_profile(fit, d$X, variables = "a", bands = "trees", engine = "predict"))
  nobag <- ranger::ranger(x = d$X, y = d$y, num.trees = 5, num.threads = 1, seed = 4)
  expect_error(model_profile(nobag, d$X, variables = "a", bands = "infjack"), "keep.inbag")
})

test_that("without curves, a profile with the trees' bands is the mean of the per-tree profiles (one walk)", {
  skip_if_not_installed("ranger")
  set.seed(11)
  X <- data.frame(a = rnorm(400), b = rnorm(400), c = runif(400))
  fit <- ranger::ranger(x = X, y = X$a * X$b + X$c + rnorm(400, sd = 0.1), num.trees = 40,
                        keep.inbag = TRUE, seed = 1, num.threads = 1)
  for (b in c("trees", "infjack")) {
    lean <- model_profile(fit, X, N = NULL, grid_points = 11, keep_ice = FALSE, bands = b)
    full <- model_profile(fit, X, N = NULL, grid_points = 11, keep_ice = TRUE, bands = b)
    plain <- model_profile(fit, X, N = NULL, grid_points = 11, keep_ice = FALSE)
    expect_equal(lean$agr_profiles, full$agr_profiles, tolerance = 1e-12, info = b)
    expect_equal(lean$agr_profiles$`_yhat_`, plain$agr_profiles$`_yhat_`, tolerance = 1e-12, info = b)
    expect_identical(lean$n_predictions, full$n_predictions)
  }
})

test_that("the per-tree walk runs in the executor's chunks, with their progress: one chunk or many, the same bands", {
  skip_if_not_installed("ranger")
  d <- tree_data(300)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 15, num.threads = 1, seed = 4)
  per_tree <- function(st) predict(fit, st, predict.all = TRUE, num.threads = 1)$predictions
  grid <- seq(-1.5, 1.5, length.out = 7)
  ns <- asNamespace("modelprofiles")
  walks <- new.env()
  suppressMessages(trace("native_trees", bquote(assign("n", get("n", .(walks)) + 1, envir = .(walks))), print = FALSE,
                         where = ns))
  on.exit(suppressMessages(untrace("native_trees", where = ns)), add = TRUE)
  opts <- options(progressr.enable = TRUE)
  on.exit(options(opts), add = TRUE)
  run <- function(budget) {
    walks$n <- 0
    walks$ticks <- 0
    p <- withCallingHandlers(
      model_profile(fit, d$X, variables = "a", variable_splits = list(a = grid), N = NULL, keep_ice = TRUE,
                    bands = "trees", memory_budget = budget),
      progression = function(cond) if (identical(cond$type, "update")) walks$ticks <- walks$ticks + 1
    )
    list(p = p, walks = walks$n, ticks = walks$ticks)
  }
  one <- run(256)
  many <- run(0.1)
  # A walk per chunk of the ICE curves, beside them (each chunk a step of
  # progress, where progressr is installed).
  expect_identical(one$walks, 1)
  expect_gt(many$walks, 5)
  if (requireNamespace("progressr", quietly = TRUE)) expect_identical(many$ticks, many$walks)
  bf <- brute_tree_pd(per_tree, d$X, "a", grid)[, , 1L]
  expect_equal(many$p$replicates, bf, tolerance = 1e-10)
  expect_equal(many$p$agr_profiles, one$p$agr_profiles, tolerance = 1e-12)
  expect_identical(many$p$n_predictions, one$p$n_predictions)
  expect_identical(many$p$n_predictions, 7 * 300)
})

test_that("without curves, the per-tree walk is the native sums' chunks: several on many rows, the same as one walk", {
  skip_on_cran()
  skip_if_not_installed("ranger")
  set.seed(2)
  n <- 2 * native_sums_min_rows + 100
  X <- data.frame(a = rnorm(n), b = rnorm(n))
  fit <- ranger::ranger(x = X, y = X$a * X$b + rnorm(n, sd = 0.1), num.trees = 5, max.depth = 4,
                        num.threads = 1, seed = 1)
  grid <- c(-1, 0, 1)
  ns <- asNamespace("modelprofiles")
  walks <- new.env()
  walks$n <- 0
  suppressMessages(trace("native_trees", bquote(assign("n", get("n", .(walks)) + 1, envir = .(walks))), print = FALSE,
                         where = ns))
  on.exit(suppressMessages(untrace("native_trees", where = ns)), add = TRUE)
  p <- suppressMessages(model_profile(fit, X, variables = "a", variable_splits = list(a = grid), N = NULL,
                                      keep_ice = FALSE, bands = "trees"))
  expect_identical(walks$n, 3)
  th <- tree_partial(tree_setup(fit, X), "a", grid)[, , 1L]
  expect_equal(p$replicates, th, tolerance = 1e-12)
  expect_equal(p$agr_profiles$`_yhat_`, rowMeans(th), tolerance = 1e-12)
  expect_identical(p$n_predictions, 3 * n)
})
