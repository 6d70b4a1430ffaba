# The native engine inside the profiles: the same numbers as the predict()
# path for every estimator, and the choice of engine.

engine_pair <- function(fit, X, tol = 1e-12, ...) {
  for (type in c("partial", "conditional", "accumulated")) {
    a <- model_profile(fit, X, type = type, engine = "native", grid_points = 15, grid = profile_grids(intervals = 8), ...)
    b <- model_profile(fit, X, type = type, engine = "predict", grid_points = 15, grid = profile_grids(intervals = 8), ...)
    expect_equal(a$engine, "native")
    expect_equal(b$engine, "predict")
    expect_equal(a$agr_profiles, b$agr_profiles, tolerance = tol, info = type)
    if (!is.null(a$cp_profiles)) expect_equal(a$cp_profiles, b$cp_profiles, tolerance = tol)
    expect_equal(a$n_predictions, b$n_predictions)
  }
  v <- names(X)[vapply(X, is.numeric, logical(1))][1:2]
  for (type in c("partial", "accumulated")) {
    a <- model_profile_2d(fit, X, variables = v, type = type, engine = "native", grid_points = 6, grid = profile_grids(intervals = 5), ...)
    b <- model_profile_2d(fit, X, variables = v, type = type, engine = "predict", grid_points = 6, grid = profile_grids(intervals = 5), ...)
    expect_equal(a$agr_profiles, b$agr_profiles, tolerance = tol)
  }
}

engine_data <- function(n = 300) {
  set.seed(91)
  X <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n),
                  g = factor(sample(c("p", "q", "r"), n, TRUE)))
  y <- X$a * X$b + (X$g == "q") * X$c + rnorm(n, sd = 0.1)
  list(X = X, y = y)
}

test_that("ranger and randomForest: native equals predict for every estimator", {
  skip_if_not_installed("ranger")
  d <- engine_data()
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 30, num.threads = 1, seed = 1)
  engine_pair(fit, d$X)
  cls <- factor(ifelse(d$y > 0, "hi", "lo"))
  fitp <- ranger::ranger(x = d$X, y = cls, num.trees = 30, probability = TRUE, num.threads = 1, seed = 1)
  engine_pair(fitp, d$X)
  skip_if_not_installed("randomForest")
  rf <- randomForest::randomForest(x = d$X, y = d$y, ntree = 20)
  engine_pair(rf, d$X)
})

test_that("gbm and xgboost: native equals predict", {
  skip_if_not_installed("gbm")
  d <- engine_data()
  gb <- gbm::gbm(y ~ ., data = cbind(d$X, y = d$y), distribution = "gaussian", n.trees = 40,
                 interaction.depth = 3, n.minobsinnode = 5)
  engine_pair(gb, d$X)
  skip_if_not_installed("xgboost")
  Xn <- d$X[c("a", "b", "c")]
  xg <- xgboost::xgboost(data = as.matrix(Xn), label = d$y, nrounds = 30, verbose = 0,
                         params = list(nthread = 1, max_depth = 4))
  engine_pair(xg, Xn, tol = 1e-6)
})

test_that("the engine is chosen by support and by the scale of the predictions", {
  d <- engine_data(100)
  skip_if_not_installed("nnet")
  nn <- nnet::nnet(y ~ ., data = cbind(d$X, y = d$y), size = 2, linout = TRUE, trace = FALSE)
  expect_equal(model_profile(nn, d$X, variables = "a")$engine, "predict")
  expect_error(model_profile(nn, d$X, variables = "a", engine = "native"), "not supported")
  skip_if_not_installed("ranger")
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 10, num.threads = 1, seed = 1)
  expect_equal(model_profile(fit, d$X, variables = "a")$engine, "native")
  # A predict function on another scale keeps predict().
  scaled <- model_profile(fit, d$X, variables = "a",
                          predict_function = function(m, nd) 2 * predict(m, nd)$predictions)
  expect_equal(scaled$engine, "predict")
  expect_error(model_profile(fit, d$X, variables = "a", engine = "native",
                             predict_function = function(m, nd) 2 * predict(m, nd)$predictions),
               "model's own predict function only")
  # 1 and 2 threads give the same numbers.
  expect_identical(model_profile(fit, d$X, threads = 1)$agr_profiles,
                   model_profile(fit, d$X, threads = 2)$agr_profiles)
  expect_output(print(model_profile(fit, d$X, variables = "a")), "native engine")
})

test_that("H-statistics: the native engine gives the predict path's numbers", {
  skip_if_not_installed("ranger")
  d <- engine_data(120)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 20, num.threads = 1, seed = 1)
  a <- h_statistic(fit, d$X, pairs = 3, engine = "native")
  b <- h_statistic(fit, d$X, pairs = 3, engine = "predict")
  expect_equal(a$engine, "native")
  expect_equal(a$overall, b$overall, tolerance = 1e-12)
  expect_equal(a$pairwise, b$pairwise, tolerance = 1e-12)
})

test_that("the native engine stands in for the package's own predict function only, calling predict() not once", {
  skip_if_not_installed("ranger")
  d <- engine_data(100)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 10, num.threads = 1, seed = 1)
  calls <- 0
  pf <- default_predict_function(fit)
  counting <- function(m, nd) {
    calls <<- calls + 1
    pf(m, nd)
  }
  # A function the user wrote (even one that gives the same numbers) is the
  # model: predict() for every prediction.
  a <- model_profile(fit, d$X, variables = c("a", "b"), predict_function = counting)
  expect_equal(a$engine, "predict")
  expect_gt(calls, 1)
  # The marked default: no call; the same numbers.
  traced <- structure(counting, modelprofiles_default = TRUE)
  calls <- 0
  b <- model_profile(fit, d$X, variables = c("a", "b"), predict_function = traced)
  expect_equal(b$engine, "native")
  expect_equal(calls, 0)
  expect_equal(a$agr_profiles, b$agr_profiles, tolerance = 1e-12)
  expect_true(isTRUE(attr(default_predict_function(fit), "modelprofiles_default")))
})

test_that("a ranger forest compiled straight into packed nodes lives in the session only", {
  skip_if_not_installed("ranger")
  d <- engine_data(100)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 10, num.threads = 1, seed = 1)
  nm <- native_compile(fit)
  expect_identical(nm$kind, "packed")
  X <- native_columns(nm, d$X)
  expect_equal(native_eval(nm, X, threads = 1L)[, 1],
               predict(fit, d$X, num.threads = 1)$predictions, tolerance = 1e-12)
  # Every tree is packed as grown: each one alone predicts what ranger's
  # own tree does.
  per_tree <- predict(fit, d$X, predict.all = TRUE, num.threads = 1)$predictions
  for (t in seq_len(fit$num.trees)) {
    one <- fit
    one$num.trees <- one$forest$num.trees <- 1
    for (el in c("child.nodeIDs", "split.varIDs", "split.values")) one$forest[[el]] <- fit$forest[[el]][t]
    expect_equal(native_eval(native_compile(one), X, threads = 1L)[, 1], per_tree[, t], tolerance = 1e-12)
  }
  reloaded <- unserialize(serialize(nm, NULL))
  expect_error(native_eval(reloaded, X, 1:5, threads = 1L), "no longer in memory")
})

# How many times `expr` compiles a model (native_compile() calls).
compiles <- function(expr) {
  counter <- new.env()
  counter$n <- 0
  suppressMessages(trace("native_compile", bquote(assign("n", get("n", .(counter)) + 1, envir = .(counter))),
                         print = FALSE, where = asNamespace("modelprofiles")))
  on.exit(suppressMessages(untrace("native_compile", where = asNamespace("modelprofiles"))), add = TRUE)
  force(expr)
  counter$n
}

test_that("a model is compiled once within a call, and not kept after it", {
  skip_if_not_installed("ranger")
  d <- engine_data(100)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 10, num.threads = 1, seed = 1)
  store <- native_store()
  a <- native_compile_cached(fit, store)
  expect_true(identical(native_compile_cached(fit, store)$cache, a$cache))
  fit2 <- ranger::ranger(x = d$X, y = d$y, num.trees = 5, num.threads = 1, seed = 2)
  expect_false(identical(native_compile_cached(fit2, store)$cache, a$cache))
  expect_length(store$entries, 2L)
  # An equal copy (another object with the same content) is found too.
  copy <- fit
  copy$num.trees <- fit$num.trees
  expect_true(identical(native_compile_cached(copy, store)$cache, a$cache))
  # Another call, another store.
  expect_false(identical(native_compile_cached(fit, native_store())$cache, a$cache))
  # Subgroups and compare_profiles() (three estimators): one compilation a
  # call, and the predict path's numbers.
  expect_identical(compiles(g <- model_profile(fit, d$X, variables = "a", groups = "g", engine = "native")), 1)
  h <- model_profile(fit, d$X, variables = "a", groups = "g", engine = "predict")
  expect_equal(g$agr_profiles, h$agr_profiles, tolerance = 1e-12)
  expect_identical(compiles(cp <- compare_profiles(fit, d$X, variables = c("a", "b"), N = NULL,
                                                   engine = "native")), 1)
  cq <- compare_profiles(fit, d$X, variables = c("a", "b"), N = NULL, engine = "predict")
  expect_equal(cp$distances, cq$distances, tolerance = 1e-10)
  # Nothing outlives the call: the next one compiles again.
  expect_identical(compiles(model_profile(fit, d$X, variables = "a", engine = "native")), 1)
})

# An AL profile of every column through the native engine equals the predict
# path's; returns the profile.
al_native <- function(fit, X, tol = 1e-12, ...) {
  a <- model_profile(fit, X, type = "accumulated", grid = profile_grids(intervals = 10), N = NULL, engine = "native", ...)
  b <- model_profile(fit, X, type = "accumulated", grid = profile_grids(intervals = 10), N = NULL, engine = "predict", ...)
  expect_equal(a$engine, "native")
  expect_equal(a$agr_profiles, b$agr_profiles, tolerance = tol)
  a
}

test_that("compile_model() compiles once for many calls, with the same numbers", {
  skip_if_not_installed("ranger")
  d <- engine_data(200)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 10, num.threads = 1, seed = 1)
  expect_identical(compiles(cm <- compile_model(fit)), 1)
  expect_s3_class(cm, "mp_compiled")
  expect_identical(cm$model, fit)
  expect_identical(cm$trees, 10)
  expect_gt(cm$bytes, 0)
  expect_output(print(cm), "10 trees")
  expect_identical(compile_model(cm), cm)
  expect_identical(compiles({
    a <- al_native(cm, d$X)
    p1 <- model_profile(cm, d$X, variables = "a", engine = "native")
    h1 <- h_statistic(cm, d$X, variables = c("a", "b"), N = NULL)
  }), 0)
  p0 <- model_profile(fit, d$X, variables = "a", engine = "native")
  expect_identical(p1$agr_profiles, p0$agr_profiles)
  expect_identical(p1$label, p0$label)
  expect_equal(h1$h2_pairwise, h_statistic(fit, d$X, variables = c("a", "b"), N = NULL)$h2_pairwise)
  expect_error(compile_model(lm(y ~ a, cbind(d$X, y = d$y))), "cannot be compiled")
})

test_that("a changed model is never served a stale compilation", {
  skip_if_not_installed("ranger")
  d <- engine_data(200)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 10, num.threads = 1, seed = 1)
  a <- al_native(fit, d$X)
  # One leaf value changed: another object (R copies on modification).
  f <- fit$forest
  leaf <- which(f$child.nodeIDs[[1]][[1]] == 0 & f$child.nodeIDs[[1]][[2]] == 0)[1]
  fit$forest$split.values[[1]][leaf] <- fit$forest$split.values[[1]][leaf] + 100
  b <- al_native(fit, d$X)
  expect_false(isTRUE(all.equal(a$agr_profiles, b$agr_profiles)))
  nm <- native_compile_cached(fit, native_store())
  expect_equal(native_eval(nm, native_columns(nm, d$X))[, 1],
               predict(fit, d$X, num.threads = 1)$predictions, tolerance = 1e-12)
})

test_that("xgboost: a booster changed in place or refitted is compiled again", {
  skip_if_not_installed("xgboost")
  store <- native_store()
  d <- engine_data(300)
  X <- d$X[c("a", "b", "c")]
  M <- as.matrix(X)
  dtrain <- xgboost::xgb.DMatrix(M, label = d$y)
  fit <- xgboost::xgb.train(params = list(max_depth = 3, eta = 0.3, nthread = 1), data = dtrain,
                            nrounds = 5, verbose = 0)
  cm <- compile_model(fit)
  a <- al_native(cm, X, tol = 1e-6)
  expect_identical(compiles(native_compile_cached(fit, store)), 1)
  expect_identical(compiles(native_compile_cached(fit, store)), 0)
  # Another booster in the same variable.
  fit <- xgboost::xgb.train(params = list(max_depth = 2, eta = 0.5, nthread = 1), data = dtrain,
                            nrounds = 5, verbose = 0)
  expect_identical(compiles(nm <- native_compile_cached(fit, store)), 1)
  expect_equal(native_eval(nm, native_columns(nm, X))[, 1], predict(fit, M), tolerance = 1e-6)
  # More rounds trained into the same handle: the R object is unchanged, the
  # booster is not.
  before <- native_eval(nm, native_columns(nm, X))[, 1]
  cm2 <- compile_model(fit)
  for (i in 5:7) xgboost:::xgb.iter.update(fit$handle, dtrain, i)
  expect_identical(compiles(nm2 <- native_compile_cached(fit, store)), 1)
  # A compile_model() of the booster before it changed is not used.
  expect_identical(compiles(al_native(cm2, X, tol = 1e-6)), 1)
  y2 <- native_eval(nm2, native_columns(nm2, X))[, 1]
  expect_false(isTRUE(all.equal(before, y2)))
  expect_equal(y2, predict(fit, M), tolerance = 1e-6)
})

test_that("lightgbm: a booster updated in place is compiled again", {
  skip_if_not_installed("lightgbm")
  store <- native_store()
  d <- engine_data(300)
  X <- d$X[c("a", "b", "c")]
  M <- as.matrix(X)
  ds <- lightgbm::lgb.Dataset(M, label = d$y)
  fit <- lightgbm::lgb.train(params = list(objective = "regression", num_leaves = 7, verbose = -1,
                                           num_threads = 1, min_data_in_leaf = 5),
                             data = ds, nrounds = 4)
  y0 <- native_eval(native_compile_cached(fit, store), M)[, 1]
  expect_identical(compiles(y <- native_eval(native_compile_cached(fit, store), M)[, 1]), 0)
  expect_identical(y, y0)
  # The same R6 object (identical() to itself) with one more iteration.
  fit$update()
  expect_identical(compiles(nm <- native_compile_cached(fit, store)), 1)
  y1 <- native_eval(nm, M)[, 1]
  expect_false(isTRUE(all.equal(y0, y1)))
  expect_equal(y1, predict(fit, M), tolerance = 1e-12)
  fit$rollback_one_iter()
  expect_identical(native_eval(native_compile_cached(fit, store), M)[, 1], y0)
  al_native(fit, X)
})

test_that("the native engine's memory comes off the chunks' budget", {
  skip_if_not_installed("ranger")
  d <- engine_data(2000)
  fit <- ranger::ranger(x = d$X, y = d$y, num.trees = 50, num.threads = 1, seed = 1)
  inputs <- setup_inputs(fit, d$X, NULL, NULL, NULL, 1L, 8, environment())
  rows <- seq_len(nrow(d$X))
  s_pred <- new_setup(inputs, rows, engine = "predict")
  s_nat <- new_setup(inputs, rows, engine = "native")
  nat <- s_nat$native
  size <- native_size(nat$model)
  # Double columns are read in place; only the others are converted.
  expect_identical(nat$bytes, size[["bytes"]] + 8 * 2000 * sum(!vapply(d$X, is.double, TRUE)))
  expect_identical(nat$leaves_bytes, 4 * 2000 * 50)
  # What is left, a third per chunk, at the native engine's bytes per
  # stacked row (its predictions and their copy, value and source row),
  # not a data frame's.
  # (The rows' weights, a double each, are held too.)
  avail <- max(8 * 2^20 - 8 * 2000 - nat$bytes - nat$leaves_bytes, 2^21)
  expect_equal(s_nat$chunk_rows_direct,
               floor(avail / 3 / (native_row_bytes * (s_nat$n_columns + 2))), tolerance = 1)
  per_row <- (8 * 2^20 - 8 * 2000) / 3 / s_pred$chunk_rows_direct
  expect_equal(s_nat$chunk_rows_predict, min(floor(avail / 3 / per_row), max_chunk_rows), tolerance = 1)
  # Leaves over their share of the budget are not kept.
  small <- setup_inputs(fit, d$X, NULL, NULL, NULL, 1L, 1, environment())
  expect_identical(new_setup(small, rows, engine = "native")$native$leaves_bytes, 0)
})

test_that("native and predict() PD agree to 1e-12 when the predict path takes several chunks", {
  skip_if_not_installed("ranger")
  set.seed(71)
  n <- 1500
  X <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n))
  y <- X$x1 * X$x2 + sin(3 * X$x3) + rnorm(n, sd = 0.2)
  fit <- ranger::ranger(x = X, y = y, num.trees = 30, seed = 1, num.threads = 1)
  # 1,500 rows x 101 points: more stacked rows than one predict() chunk.
  expect_gt(n * 101, max_chunk_rows)
  a <- model_profile(fit, X, N = NULL, grid_points = 101, keep_ice = FALSE, engine = "native", threads = 2)
  b <- model_profile(fit, X, N = NULL, grid_points = 101, keep_ice = FALSE, engine = "predict", threads = 2)
  expect_identical(a$engine, "native")
  expect_identical(b$engine, "predict")
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-12)
})

test_that("a framework's model: features renamed to the data's columns, outputs reordered or complemented", {
  skip_if_not_installed("xgboost")
  set.seed(4)
  n <- 150
  M <- matrix(rnorm(2 * n), n, 2, dimnames = list(NULL, c("f1", "f2")))
  X <- data.frame(a = M[, 1], b = M[, 2])
  fit <- function(label, ...) {
    xgboost::xgb.train(params = list(max_depth = 2, eta = 0.5, nthread = 1, ...),
                       data = xgboost::xgb.DMatrix(M, label = label), nrounds = 5, verbose = 0)
  }
  m3 <- fit(sample(0:2, n, TRUE), objective = "multi:softprob", num_class = 3)
  features <- c(f1 = "a", f2 = "b")
  # Class "C" is output 2, "A" output 0, "B" output 1.
  fw <- native_framework(native_compile(m3), list(features = features, outputs = multiclass_outputs(c(2, 0, 1))),
                         c("C", "A", "B"))
  expect_identical(fw$features, c("a", "b"))
  expect_identical(fw$outputs, c("C", "A", "B"))
  own <- predict(m3, M, reshape = TRUE)
  expect_equal(unname(native_eval(fw, native_columns(fw, X))), unname(own[, c(3, 1, 2)]), tolerance = 1e-6)
  # A binary booster's one probability, of the first class: the second is 1 - p.
  mb <- fit(as.numeric(M[, 1] + rnorm(n) > 0), objective = "binary:logistic")
  fb <- native_framework(native_compile(mb), list(features = features, outputs = binary_outputs(TRUE)),
                         c("yes", "no"))
  p <- predict(mb, M)
  expect_equal(unname(native_eval(fb, native_columns(fb, X))), cbind(p, 1 - p), tolerance = 1e-6,
               ignore_attr = TRUE)
  fb2 <- native_framework(native_compile(mb), list(outputs = binary_outputs(FALSE)), c("no", "yes"))
  expect_equal(unname(native_eval(fb2, native_columns(fb2, as.data.frame(M)))), cbind(1 - p, p),
               tolerance = 1e-6, ignore_attr = TRUE)
  # What cannot be: a feature the framework makes, a regression's complement.
  expect_match(native_framework(native_compile(m3), list(features = c(f1 = "a")), NULL), "f2")
  mr <- fit(M[, 1], objective = "reg:squarederror")
  expect_match(native_framework(native_compile(mr), list(outputs = binary_outputs(TRUE)), c("u", "v")),
               "no one probability")
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(x = X, y = factor(sample(c("u", "v", "w"), n, TRUE)), probability = TRUE,
                       num.trees = 3, num.threads = 1)
  expect_match(native_framework(native_compile(rf), list(outputs = multiclass_outputs(c("w", "v", "u"))),
                                c("w", "v", "u")), "cannot be reordered")
})
