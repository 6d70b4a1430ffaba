# gbm and xgboost models compiled to the flat tree-ensemble format
# (native_model()) predict what the model's own predict() does.
#
# The reference below evaluates an `mp_native` list in plain R, from the
# format's description, independently of the C++ engine: each row walks each
# tree (rule, missing child, categorical splits, float32 comparisons), the
# leaf values are aggregated, the base added and the transform applied.

# Data columns -> doubles: numeric features as they are, factor features as
# their 1-based code among the model's levels (an unknown level -> NA).
ref_native_matrix <- function(nm, data) {
  data <- as.data.frame(data)
  X <- matrix(NA_real_, nrow(data), length(nm$features))
  for (j in seq_along(nm$features)) {
    x <- data[[nm$features[j]]]
    lev <- nm$feature_levels[[j]]
    X[, j] <- if (is.null(lev)) as.double(x) else as.double(match(as.character(x), lev))
  }
  X
}

ref_float <- function(x) {
  readBin(writeBin(as.double(x), raw(), size = 4L), "double", n = length(x), size = 4L)
}

# The predictions (n x n_outputs) of the rows of X (from ref_native_matrix).
# As the format says, the leaf values are summed (or averaged) and the base
# added after. With `from_base`, the sum starts at the base instead and adds
# the trees in order (as gbm and xgboost do); with `float_sum` too, every
# partial sum is rounded to float (as xgboost does).
ref_native_predict <- function(nm, X, from_base = FALSE, float_sum = FALSE) {
  n <- nrow(X)
  k <- ncol(nm$value)
  if (isTRUE(nm$float32)) {
    X[] <- ref_float(X)
    thr <- ref_float(nm$threshold)
  } else {
    thr <- nm$threshold
  }
  acc <- matrix(if (from_base) nm$base else 0, n, k, byrow = TRUE)
  if (float_sum) acc[] <- ref_float(acc)
  dead <- logical(n) # reached a split that cannot take a missing value
  n_trees <- length(nm$tree_start) - 1L
  for (t in seq_len(n_trees)) {
    node <- rep(nm$tree_start[t], n) # 0-based global
    repeat {
      f <- nm$feature[node + 1L]
      i <- which(f >= 0L & !dead)
      if (!length(i)) break
      nd <- node[i] + 1L
      x <- X[cbind(i, f[i] + 1L)]
      miss <- is.na(x)
      cs <- nm$cat_start[nd]
      left <- logical(length(i))
      num <- !miss & cs < 0L
      left[num] <- if (nm$rule == 0L) x[num] <= thr[nd[num]] else x[num] < thr[nd[num]]
      cat <- which(!miss & cs >= 0L)
      if (length(cat)) {
        code <- x[cat]
        inside <- code >= 1 & code <= nm$cat_len[nd[cat]]
        goes <- logical(length(cat))
        goes[inside] <- nm$cat_left[cs[cat][inside] + code[inside]] == 1L
        left[cat] <- goes
      }
      to <- ifelse(left, nm$left[nd], nm$right[nd])
      to[miss] <- nm$missing[nd[miss]]
      dead[i[to < 0L]] <- TRUE
      node[i] <- ifelse(to < 0L, node[i], to)
    }
    acc <- acc + nm$value[node + 1L, , drop = FALSE]
    if (float_sum) acc[] <- ref_float(acc)
  }
  if (nm$aggregate == "mean") acc <- acc / n_trees
  m <- if (from_base) acc else sweep(acc, 2L, nm$base, "+")
  out <- switch(nm$transform,
    identity = m,
    logistic = 1 / (1 + exp(-m)),
    exp = exp(m),
    softmax = {
      e <- exp(m - apply(m, 1L, max))
      e / rowSums(e)
    }
  )
  out[dead, ] <- NA
  dim(out) <- c(n, k)
  if (!is.null(nm$outputs)) colnames(out) <- nm$outputs
  out
}

# The model's own predictions as the package sees them.
own_predictions <- function(model, data) {
  f <- default_predict_function(model)
  check_predictions(f(model, data), nrow(data), allow_na = TRUE)
}

expect_valid_native <- function(nm) {
  expect_s3_class(nm, "mp_native")
  if (!inherits(nm, "mp_native")) return(invisible())
  n_nodes <- length(nm$feature)
  expect_identical(nm$kind, "trees")
  expect_type(nm$tree_start, "integer")
  expect_identical(nm$tree_start[1], 0L)
  expect_identical(nm$tree_start[length(nm$tree_start)], n_nodes)
  for (el in c("feature", "left", "right", "missing", "cat_start", "cat_len")) {
    expect_type(nm[[el]], "integer")
    expect_length(nm[[el]], n_nodes)
  }
  expect_type(nm$threshold, "double")
  expect_length(nm$threshold, n_nodes)
  expect_type(nm$cat_left, "integer")
  expect_true(all(nm$cat_left %in% 0:1))
  expect_length(nm$feature_levels, length(nm$features))
  expect_true(is.matrix(nm$value) && is.double(nm$value) && nrow(nm$value) == n_nodes)
  expect_length(nm$base, ncol(nm$value))
  inner <- nm$feature >= 0L
  expect_true(all(nm$feature[inner] < length(nm$features)))
  expect_true(all(nm$left[inner] >= 0L & nm$left[inner] < n_nodes))
  expect_true(all(nm$right[inner] >= 0L & nm$right[inner] < n_nodes))
  expect_true(all(nm$missing[inner] < n_nodes))
  expect_true(all(nm$left[!inner] == -1L & nm$right[!inner] == -1L))
  cs <- nm$cat_start[inner & nm$cat_start >= 0L]
  cl <- nm$cat_len[inner & nm$cat_start >= 0L]
  expect_true(all(cs + cl <= length(nm$cat_left)))
  # Children stay within their tree.
  tree <- findInterval(seq_len(n_nodes) - 1L, nm$tree_start)
  expect_identical(tree[nm$left[inner] + 1L], tree[inner])
  expect_identical(tree[nm$right[inner] + 1L], tree[inner])
}

# Through the C++ engine, when it is there.
native_engine_predict <- function(nm, data) {
  ns <- asNamespace("modelprofiles")
  X <- get("native_columns", ns)(nm, data)
  get("native_eval", ns)(nm, X, threads = 2L)
}

has_native_engine <- function() {
  ns <- asNamespace("modelprofiles")
  exists("native_eval", envir = ns, mode = "function", inherits = FALSE) &&
    exists("native_columns", envir = ns, mode = "function", inherits = FALSE)
}

# gbm -------------------------------------------------------------------------

gbm_data <- function(n, seed) {
  set.seed(seed)
  d <- data.frame(
    x1 = rnorm(n),
    x2 = runif(n),
    x3 = sample(0:5, n, TRUE), # ties at the splits
    f = factor(sample(letters[1:6], n, TRUE)),
    o = factor(sample(c("lo", "mid", "hi"), n, TRUE), levels = c("lo", "mid", "hi"), ordered = TRUE)
  )
  eta <- d$x1 + 0.5 * d$x3 + (d$f %in% c("a", "c", "e")) - (d$o == "hi")
  d$x1[sample(n, n %/% 10)] <- NA
  d$x3[sample(n, n %/% 20)] <- NA
  d$f[sample(n, n %/% 10)] <- NA
  list(data = d, eta = eta)
}

fit_gbm <- function(distribution, n = 400, seed = 1, ...) {
  s <- gbm_data(n, seed)
  d <- s$data
  d$y <- switch(distribution,
    gaussian = , laplace = s$eta + rnorm(n),
    bernoulli = , adaboost = rbinom(n, 1, stats::plogis(s$eta - 1)),
    poisson = rpois(n, exp(s$eta / 2)),
    multinomial = factor(cut(s$eta + rnorm(n), c(-Inf, 0, 1.5, Inf), labels = c("A", "B", "C")))
  )
  suppressWarnings(gbm::gbm(y ~ x1 + x2 + x3 + f + o, data = d, distribution = distribution,
    n.trees = 30, interaction.depth = 3, shrinkage = 0.2, n.minobsinnode = 5,
    bag.fraction = 0.8, ...))
}

# New data: the training columns plus values exactly at the split points, a
# factor level unknown to the model and rows with NAs.
gbm_newdata <- function(model, seed = 2) {
  d <- gbm_data(300, seed)$data
  # Split points of x1 (variable 0).
  splits <- unlist(lapply(model$trees, function(t) t[[2]][t[[1]] == 0L]))
  k <- seq_len(min(length(splits), 150L))
  d$x1[k] <- splits[k]
  d$f <- factor(as.character(d$f), levels = c(letters[1:6], "zz"))
  d$f[c(3, 7, 11)] <- "zz"
  d$o[c(5, 9)] <- NA
  d
}

test_that("gbm models compile and predict as predict.gbm (1e-12)", {
  skip_if_not_installed("gbm")
  for (distribution in c("gaussian", "bernoulli", "poisson", "laplace", "adaboost")) {
    model <- fit_gbm(distribution)
    nm <- native_model(model)
    expect_valid_native(nm)
    expect_identical(nm$features, c("x1", "x2", "x3", "f", "o"))
    expect_identical(nm$feature_levels[[4]], letters[1:6])
    expect_identical(nm$feature_levels[[5]], c("lo", "mid", "hi"))
    expect_null(nm$outputs)
    expect_identical(nm$rule, 1L)
    expect_false(nm$float32)
    expect_true(any(nm$cat_start >= 0L)) # factor splits are used
    expect_identical(length(nm$tree_start) - 1L, 30L)
    for (data in list(gbm_data(400, 1)$data, gbm_newdata(model))) {
      own <- own_predictions(model, data)
      ref <- ref_native_predict(nm, ref_native_matrix(nm, data))
      expect_equal(ref, own, tolerance = 1e-12, info = distribution)
      expect_false(anyNA(ref))
      # Summed from initF in tree order, as gbm does, it is the same number.
      expect_identical(ref_native_predict(nm, ref_native_matrix(nm, data), from_base = TRUE), own)
      if (has_native_engine()) {
        expect_equal(unname(as.matrix(native_engine_predict(nm, data))), unname(own),
                     tolerance = 1e-12, info = distribution)
      }
    }
  }
})

test_that("gbm: a value at the split goes right, NA and unknown levels take the missing node", {
  skip_if_not_installed("gbm")
  model <- fit_gbm("gaussian")
  nm <- native_model(model)
  d <- gbm_newdata(model)
  own <- own_predictions(model, d)
  # Rows 1.. hold x1 at split points: nudged down, they go left instead.
  splits <- unlist(lapply(model$trees, function(t) t[[2]][t[[1]] == 0L]))
  k <- seq_len(min(length(splits), 150L))
  d2 <- d
  d2$x1[k] <- d$x1[k] - 1e-9
  expect_false(isTRUE(all.equal(own_predictions(model, d2)[k, ], own[k, ])))
  expect_equal(ref_native_predict(nm, ref_native_matrix(nm, d2)), own_predictions(model, d2),
               tolerance = 1e-12)
  # An unknown level predicts like NA.
  d3 <- d
  d3$f[3] <- NA
  expect_equal(own_predictions(model, d3)[3, ], own[3, ])
})

test_that("gbm multinomial compiles to a softmax over the classes", {
  skip_if_not_installed("gbm")
  model <- fit_gbm("multinomial")
  nm <- native_model(model)
  expect_valid_native(nm)
  expect_identical(nm$outputs, c("A", "B", "C"))
  expect_identical(nm$transform, "softmax")
  expect_identical(ncol(nm$value), 3L)
  for (data in list(gbm_data(400, 1)$data, gbm_newdata(model))) {
    own <- own_predictions(model, data)
    expect_identical(colnames(own), nm$outputs)
    expect_equal(ref_native_predict(nm, ref_native_matrix(nm, data)), own, tolerance = 1e-12)
    if (has_native_engine()) {
      expect_equal(unname(as.matrix(native_engine_predict(nm, data))), unname(own), tolerance = 1e-12)
    }
  }
})

test_that("gbm: only numeric predictors, gbm.fit, and unsupported models", {
  skip_if_not_installed("gbm")
  set.seed(3)
  d <- data.frame(a = rnorm(300), b = rnorm(300))
  d$y <- d$a * d$b + rnorm(300)
  model <- suppressWarnings(gbm::gbm(y ~ ., data = d, distribution = "gaussian", n.trees = 20,
                                     interaction.depth = 2))
  nm <- native_model(model)
  expect_equal(ref_native_predict(nm, ref_native_matrix(nm, d)), own_predictions(model, d),
               tolerance = 1e-12)
  expect_false(any(nm$cat_start >= 0L))
  expect_identical(nm$cat_left, integer())

  fit <- suppressWarnings(gbm::gbm.fit(d[c("a", "b")], d$y, distribution = "gaussian",
                                       n.trees = 20, verbose = FALSE))
  nm <- native_model(fit)
  expect_equal(ref_native_predict(nm, ref_native_matrix(nm, d[c("a", "b")])),
               own_predictions(fit, d[c("a", "b")]), tolerance = 1e-12)

  # Non-syntactic names are data columns too.
  d2 <- d
  names(d2)[1] <- "a a"
  model <- suppressWarnings(gbm::gbm(y ~ ., data = d2, distribution = "gaussian", n.trees = 10))
  nm <- native_model(model)
  expect_identical(nm$features, c("a a", "b"))
  expect_equal(ref_native_predict(nm, ref_native_matrix(nm, d2)), own_predictions(model, d2),
               tolerance = 1e-12)

  # A formula term computed from the data is not a data column.
  model <- suppressWarnings(gbm::gbm(y ~ log(abs(a)) + b, data = d, distribution = "gaussian",
                                     n.trees = 5))
  expect_null(native_model(model))
  # An unknown distribution.
  model$distribution$name <- "something"
  expect_null(native_model(model))
})

# xgboost ---------------------------------------------------------------------

xgb_data <- function(n, seed) {
  set.seed(seed)
  X <- cbind(a = rnorm(n), b = runif(n), c = sample(0:4, n, TRUE), d = rnorm(n))
  eta <- X[, "a"] + X[, "b"] * X[, "c"] / 2 - X[, "d"]^2 / 2
  X[sample(length(X), length(X) %/% 10)] <- NA
  list(X = X, eta = eta)
}

fit_xgb <- function(objective, n = 500, seed = 1, nrounds = 25, ...) {
  s <- xgb_data(n, seed)
  y <- switch(objective,
    "reg:squarederror" = s$eta + rnorm(n),
    "binary:logistic" = , "binary:logitraw" = rbinom(n, 1, stats::plogis(s$eta)),
    "count:poisson" = rpois(n, exp(s$eta / 2)),
    "multi:softprob" = as.integer(cut(s$eta + rnorm(n), c(-Inf, -0.5, 0.5, Inf))) - 1L
  )
  params <- list(objective = objective, max_depth = 4, eta = 0.3, nthread = 1, ...)
  if (objective == "multi:softprob") params$num_class <- 3
  xgboost::xgb.train(params, xgboost::xgb.DMatrix(s$X, label = y, missing = NA),
                     nrounds = nrounds, verbose = 0)
}

# New data including values that equal a threshold in float but lie just
# below it in double (they go right in xgboost).
xgb_newdata <- function(model, seed = 2) {
  X <- xgb_data(300, seed)$X
  nm <- native_model(model)
  split <- nm$feature >= 0L
  thr <- nm$threshold[split]
  j <- nm$feature[split] + 1L
  k <- seq_len(min(length(thr), 100L))
  X[cbind(k, j[k])] <- thr[k] - abs(thr[k]) * 2^-27 # float(x) == thr, x < thr
  X[cbind(k + 100L, j[k])] <- thr[k]
  as.data.frame(X)
}

# xgboost predicts in float: agreement to a float's relative precision.
xgb_tolerance <- 1e-6

test_that("xgboost models compile and predict as predict.xgb.Booster (float precision)", {
  skip_if_not_installed("xgboost")
  for (objective in c("reg:squarederror", "binary:logistic", "binary:logitraw", "count:poisson")) {
    model <- fit_xgb(objective)
    nm <- native_model(model)
    expect_valid_native(nm)
    expect_identical(nm$features, c("a", "b", "c", "d"))
    expect_true(nm$float32)
    expect_identical(nm$rule, 1L)
    expect_null(nm$outputs)
    expect_identical(length(nm$tree_start) - 1L, 25L)
    for (data in list(as.data.frame(xgb_data(500, 1)$X), xgb_newdata(model))) {
      own <- own_predictions(model, data)
      ref <- ref_native_predict(nm, ref_native_matrix(nm, data))
      expect_false(anyNA(ref))
      expect_equal(ref, own, tolerance = xgb_tolerance, info = objective)
      if (has_native_engine()) {
        expect_equal(unname(as.matrix(native_engine_predict(nm, data))), unname(own),
                     tolerance = xgb_tolerance, info = objective)
      }
    }
  }
})

test_that("xgboost: summed in float from the base, the margins are xgboost's own", {
  skip_if_not_installed("xgboost")
  for (objective in c("reg:squarederror", "binary:logistic", "count:poisson", "multi:softprob")) {
    model <- fit_xgb(objective, nrounds = 60)
    nm <- native_model(model)
    data <- xgb_newdata(model)
    X <- ref_native_matrix(nm, data)
    margin <- predict(model, as.matrix(data), outputmargin = TRUE, reshape = TRUE)
    ref <- ref_native_predict(
      utils::modifyList(nm, list(transform = "identity")), X, from_base = TRUE, float_sum = TRUE
    )
    expect_identical(unname(ref), unname(as.matrix(margin)), info = objective)
    # And then the transform in double is within a float's rounding.
    expect_equal(ref_native_predict(nm, X, from_base = TRUE, float_sum = TRUE),
                 own_predictions(model, data), tolerance = 1e-7, info = objective)
  }
})

test_that("xgboost: float32 comparisons decide the values at thresholds", {
  skip_if_not_installed("xgboost")
  model <- fit_xgb("reg:squarederror")
  nm <- native_model(model)
  data <- xgb_newdata(model)
  own <- own_predictions(model, data)
  # Comparing in double sends the nudged values the wrong way.
  nm64 <- nm
  nm64$float32 <- FALSE
  wrong <- ref_native_predict(nm64, ref_native_matrix(nm64, data))
  expect_gt(max(abs(wrong - own)), 1e-3)
  expect_equal(ref_native_predict(nm, ref_native_matrix(nm, data)), own, tolerance = xgb_tolerance)
})

test_that("xgboost multi:softprob compiles to one output per class", {
  skip_if_not_installed("xgboost")
  model <- fit_xgb("multi:softprob")
  nm <- native_model(model)
  expect_valid_native(nm)
  expect_identical(nm$outputs, c("0", "1", "2"))
  expect_identical(nm$transform, "softmax")
  expect_identical(length(nm$tree_start) - 1L, 75L)
  for (data in list(as.data.frame(xgb_data(500, 1)$X), xgb_newdata(model))) {
    own <- own_predictions(model, data)
    expect_identical(colnames(own), nm$outputs)
    expect_equal(ref_native_predict(nm, ref_native_matrix(nm, data)), own, tolerance = xgb_tolerance)
    if (has_native_engine()) {
      expect_equal(unname(as.matrix(native_engine_predict(nm, data))), unname(own),
                   tolerance = xgb_tolerance)
    }
  }
})

test_that("xgboost: base_score, parallel trees and early stopping", {
  skip_if_not_installed("xgboost")
  data <- as.data.frame(xgb_data(500, 1)$X)
  check <- function(model) {
    nm <- native_model(model)
    expect_valid_native(nm)
    expect_equal(ref_native_predict(nm, ref_native_matrix(nm, data)),
                 own_predictions(model, data), tolerance = xgb_tolerance)
    nm
  }
  check(fit_xgb("binary:logistic", base_score = 0.2))
  check(fit_xgb("count:poisson", base_score = 3))
  check(fit_xgb("reg:squarederror", base_score = -2))
  check(fit_xgb("multi:softprob", num_parallel_tree = 2, nrounds = 5))
  check(fit_xgb("reg:squarederror", num_parallel_tree = 3, subsample = 0.5, nrounds = 4))
  # Trees of a single leaf.
  stumps <- xgboost::xgb.train(list(nthread = 1),
                               xgboost::xgb.DMatrix(as.matrix(data), label = rep(1, nrow(data))),
                               nrounds = 3, verbose = 0)
  expect_identical(check(stumps)$tree_start, 0:3)

  # Early stopping: predict() uses the first best_iteration iterations.
  s <- xgb_data(500, 1)
  y <- s$eta + rnorm(500, sd = 2)
  dtrain <- xgboost::xgb.DMatrix(s$X[1:250, ], label = y[1:250], missing = NA)
  dvalid <- xgboost::xgb.DMatrix(s$X[251:500, ], label = y[251:500], missing = NA)
  model <- xgboost::xgb.train(list(objective = "reg:squarederror", eta = 0.5, max_depth = 6, nthread = 1),
                              dtrain, nrounds = 100, watchlist = list(v = dvalid),
                              early_stopping_rounds = 3, verbose = 0)
  expect_lt(model$best_iteration, 100)
  nm <- check(model)
  expect_identical(length(nm$tree_start) - 1L, as.integer(model$best_iteration))
  # The adapter reports the iterations used, of those fitted.
  expect_identical(model_adapter(model)$iterations,
                   c(used = as.integer(model$best_iteration), fitted = as.integer(model$niter)))
})

test_that("xgboost: unsupported boosters and objectives give NULL", {
  skip_if_not_installed("xgboost")
  s <- xgb_data(200, 1)
  y <- as.integer(s$eta > 0)
  dtrain <- xgboost::xgb.DMatrix(s$X, label = y, missing = NA)
  fit <- function(...) xgboost::xgb.train(list(nthread = 1, ...), dtrain, nrounds = 3, verbose = 0)
  expect_null(native_model(fit(objective = "binary:logistic", booster = "gblinear")))
  expect_null(native_model(fit(objective = "binary:logistic", booster = "dart")))
  expect_null(native_model(fit(objective = "binary:hinge")))
  expect_null(native_model(fit(objective = "multi:softmax", num_class = 2)))
  # Without feature names, predict() reads columns by position.
  unnamed <- xgboost::xgb.train(list(nthread = 1), xgboost::xgb.DMatrix(unname(s$X), label = y),
                                nrounds = 2, verbose = 0)
  expect_null(native_model(unnamed))
})

test_that("gbm with cv.folds or train.fraction: every engine uses the iterations predict.gbm() uses", {
  skip_if_not_installed("gbm")
  set.seed(5)
  n <- 200
  d <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n))
  d$y <- d$a * d$b + d$c + rnorm(n)
  d$z <- rbinom(n, 1, stats::plogis(d$a + d$c))
  X <- d[c("a", "b", "c")]
  # (gbm reports each cross-validation fold.)
  quiet <- function(expr) {
    utils::capture.output(out <- suppressMessages(expr))
    out
  }
  fits <- list(
    cv = quiet(gbm::gbm(y ~ a + b + c, data = d, distribution = "gaussian", n.trees = 120, cv.folds = 3,
                  shrinkage = 0.3, interaction.depth = 2, n.cores = 1, verbose = FALSE)),
    test = gbm::gbm(z ~ a + b + c, data = d, distribution = "bernoulli", n.trees = 120, train.fraction = 0.6,
                    shrinkage = 0.3, interaction.depth = 2, verbose = FALSE)
  )
  for (method in names(fits)) {
    g <- fits[[method]]
    best <- gbm::gbm.perf(g, plot.it = FALSE, method = method)
    expect_lt(best, 120L)
    # predict.gbm() without n.trees says which it uses.
    expect_message(predict(g, X[1:2, ]), paste("Using", best, "trees"))
    expect_identical(model_adapter(g)$iterations, c(used = as.integer(best), fitted = 120L))
    expect_identical(length(native_model(g)$tree_start) - 1L, as.integer(best))
    pd <- model_profile(g, X, variables = "a", N = NULL, grid_points = 6)
    pp <- model_profile(g, X, variables = "a", N = NULL, grid_points = 6, engine = "predict")
    expect_identical(pd$engine, "native")
    own <- function(nd) suppressMessages(predict(g, nd, type = "response"))
    ref <- vapply(pd$grids$a, function(z) {
      nd <- X
      nd$a <- z
      mean(own(nd))
    }, numeric(1))
    expect_equal(pd$agr_profiles$`_yhat_`, ref, tolerance = 1e-12, info = method)
    expect_equal(pp$agr_profiles$`_yhat_`, ref, tolerance = 1e-12, info = method)
  }
  # Without them, every tree.
  g <- gbm::gbm(y ~ a + b + c, data = d, distribution = "gaussian", n.trees = 30, verbose = FALSE)
  expect_identical(model_adapter(g)$iterations, c(used = 30L, fitted = 30L))
  expect_output(print(model_adapter(fits$cv)), "iterations predicted: [0-9]+ of 120")
})
