# lightgbm boosters compiled to the flat tree-ensemble format
# (native_model.lgb.Booster()) predict what lightgbm's own predict() does.

skip_if_not_installed("lightgbm")

ns <- asNamespace("modelprofiles")
KZ <- 1.0000000180025095e-35 # lightgbm's kZeroThreshold (1e-35f)

lgb_fit <- function(X, y, params = list(), nrounds = 10L, categorical = NULL, ...) {
  ds <- lightgbm::lgb.Dataset(as.matrix(X), label = y, categorical_feature = categorical)
  params <- utils::modifyList(list(verbosity = -1L, num_threads = 1L, num_leaves = 7L,
                                   min_data_in_leaf = 5L), params)
  lightgbm::lgb.train(params = params, data = ds, nrounds = nrounds, ...)
}

# lightgbm's predict() on the model's columns, as a matrix.
lgb_own <- function(model, data, features) {
  p <- stats::predict(model, as.matrix(data[, features, drop = FALSE]))
  if (is.matrix(p)) unname(p) else matrix(p, ncol = 1L)
}

native_rows <- function(nm, data) {
  X <- ns$native_columns(nm, data)
  unname(ns$native_predict_rows(nm, X, data, NULL, integer(), list(), 2L))
}

# Compile (directly, and with every tree rebuilt by lgb_emit_tree()),
# predict `data`, and return the largest absolute difference from predict().
# Both conversions must give the same numbers, bit for bit.
lgb_check <- function(model, data, tol = 1e-12) {
  nm <- ns$native_compile(model)
  expect_s3_class(nm, "mp_native")
  own <- lgb_own(model, data, nm$features)
  mine <- native_rows(nm, data)
  expect_identical(dim(mine), dim(own))
  diff <- max(abs(mine - own))
  expect_true(is.finite(diff) && diff <= tol, label = paste("max difference", diff))
  text <- model$save_model_to_string(num_iteration = -1L)
  nm2 <- ns$lgb_native(text, best_iter = model$best_iter, general = TRUE)
  nm2$cache <- ns$native_pack(nm2)
  expect_identical(native_rows(nm2, data), mine)
  invisible(list(nm = nm, diff = diff, own = own, native = mine))
}

set.seed(20240601)
n <- 300L
train <- data.frame(
  x1 = rnorm(n),
  x2 = sample(c(0, 0, runif(30)), n, replace = TRUE),
  x3 = runif(n, -2, 2),
  x4 = rnorm(n)
)
train$x4[sample(n, 30L)] <- NA # a NaN missing type for x4
f_true <- with(train, x1 + 2 * (x2 == 0) + sin(2 * x3) + ifelse(is.na(x4), 1.5, x4))

# Data to predict: the training rows and rows of edge values (NA, zeros,
# values tiny enough for lightgbm to read as 0, +-kZ, huge values).
edge <- c(NA, 0, -0, 1e-40, -1e-40, KZ, -KZ, 2 * KZ, -2 * KZ, 1e-30, -1e-30, 1e300, -1e300, Inf, -Inf)
newdata <- rbind(train, data.frame(x1 = edge, x2 = rev(edge), x3 = edge, x4 = sample(edge)))
newdata$x1[1:10] <- NA # x1 had no NA in training: missing type None

test_that("regression objectives equal predict()", {
  for (obj in c("regression", "regression_l1", "huber", "fair", "quantile")) {
    m <- lgb_fit(train, f_true + rnorm(n, sd = 0.2), list(objective = obj))
    r <- lgb_check(m, newdata, tol = 0)
    expect_identical(r$nm$transform, "identity")
    expect_identical(r$nm$aggregate, "sum")
  }
  yc <- rpois(n, exp(f_true / 3))
  for (obj in c("poisson", "tweedie")) {
    m <- lgb_fit(train, yc, list(objective = obj))
    r <- lgb_check(m, newdata)
    expect_identical(r$nm$transform, "exp")
  }
  m <- lgb_fit(train, rgamma(n, 2, 2 / exp(f_true / 3)), list(objective = "gamma"))
  expect_identical(lgb_check(m, newdata)$nm$transform, "exp")
})

test_that("binary classification equals predict(), with its sigmoid", {
  yb <- as.integer(f_true + rnorm(n) > 1)
  m <- lgb_fit(train, yb, list(objective = "binary"))
  r <- lgb_check(m, newdata)
  expect_identical(r$nm$transform, "logistic")
  expect_null(r$nm$outputs)
  expect_true(all(r$own > 0 & r$own < 1))
  # A sigmoid of 2 scales the leaf values exactly; 0.7 to about 1e-16.
  lgb_check(lgb_fit(train, yb, list(objective = "binary", sigmoid = 2)), newdata, tol = 1e-12)
  r <- lgb_check(lgb_fit(train, yb, list(objective = "binary", sigmoid = 0.7)), newdata, tol = 1e-14)
  # cross_entropy: the logistic of the raw score.
  lgb_check(lgb_fit(train, plogis(f_true - 1), list(objective = "cross_entropy")), newdata)
})

test_that("multiclass (softmax) equals predict(), outputs named 0..K-1", {
  yk <- as.integer(cut(f_true + rnorm(n, sd = 0.5), 3L)) - 1L
  m <- lgb_fit(train, yk, list(objective = "multiclass", num_class = 3L))
  r <- lgb_check(m, newdata)
  expect_identical(r$nm$transform, "softmax")
  expect_identical(r$nm$outputs, c("0", "1", "2"))
  expect_identical(ncol(r$own), 3L)
  expect_identical(length(r$nm$tree_start) - 1L, 30L)
  expect_equal(rowSums(r$native), rep(1, nrow(newdata)))
})

test_that("missing types None, NaN and Zero are routed as predict() does", {
  y <- f_true + rnorm(n, sd = 0.2)
  m <- lgb_fit(train, y, list(objective = "regression"), nrounds = 15L)
  text <- m$save_model_to_string(num_iteration = -1L)
  dt <- as.integer(unlist(strsplit(sub("decision_type=", "", regmatches(
    text, gregexpr("decision_type=[^\n]*", text))[[1L]]), " ")))
  expect_true(any((dt %/% 4L) %% 4L == 0L)) # None
  expect_true(any((dt %/% 4L) %% 4L == 2L)) # NaN
  lgb_check(m, newdata, tol = 0)
  # zero_as_missing: zeros (and NaN) to the default child.
  mz <- lgb_fit(train, y, list(objective = "regression", zero_as_missing = TRUE), nrounds = 15L)
  text <- mz$save_model_to_string(num_iteration = -1L)
  expect_match(text, "decision_type=[^\n]*\\b(4|6)\\b")
  r <- lgb_check(mz, newdata, tol = 0)
  # NA in the predictions' data, none in the native ones.
  expect_false(anyNA(r$native))
})

test_that("the number of iterations is predict()'s: best_iter after early stopping", {
  y <- f_true + rnorm(n, sd = 1)
  ds <- lightgbm::lgb.Dataset(as.matrix(train), label = y)
  valid <- lightgbm::lgb.Dataset.create.valid(
    ds, as.matrix(train[1:100, ]), label = f_true[1:100] + rnorm(100, sd = 1)
  )
  m <- lightgbm::lgb.train(
    params = list(objective = "regression", verbosity = -1L, num_threads = 1L,
                  learning_rate = 0.5, num_leaves = 15L),
    data = ds, nrounds = 200L, valids = list(v = valid), early_stopping_rounds = 3L
  )
  expect_true(m$best_iter > 0L && m$best_iter < m$current_iter())
  r <- lgb_check(m, newdata, tol = 0)
  expect_identical(length(r$nm$tree_start) - 1L, as.integer(m$best_iter))
  expect_identical(model_adapter(m)$iterations,
                   c(used = as.integer(m$best_iter), fitted = as.integer(m$current_iter())))
  # All iterations would differ.
  all_iter <- stats::predict(m, as.matrix(newdata), num_iteration = m$current_iter())
  expect_false(isTRUE(all.equal(as.vector(r$native), all_iter)))
})

test_that("a model using some features, data columns in another order", {
  X <- data.frame(a = rnorm(n), b = rnorm(n), unused = 1, c = rnorm(n))
  m <- lgb_fit(X, 2 * X$a - X$c + rnorm(n, sd = 0.1), list(objective = "regression"))
  nm <- ns$native_compile(m)
  expect_identical(nm$features, c("a", "b", "unused", "c"))
  expect_false(2L %in% nm$feature) # "unused" (0-based 2) is never split on
  # The data: other column order, an extra column.
  data <- data.frame(extra = letters[1:20], c = rnorm(20), unused = rnorm(20),
                     b = rnorm(20), a = rnorm(20))
  own <- lgb_own(m, data, c("a", "b", "unused", "c"))
  expect_identical(native_rows(nm, data), own)
  # ICE over the unused column: flat, equal to the predictions.
  Xn <- ns$native_columns(nm, data)
  ice <- ns$native_free_rows(nm, Xn, data, 3L, list(c(-5, 0, 5)), 1:4, 2L)
  expect_identical(unname(ice), own[rep(1:4, each = 3L), , drop = FALSE])
})

test_that("model.matrix() columns with spaces: lightgbm's names with '_', native and predict() alike", {
  # lightgbm writes "cutVery Good" as the feature "cutVery_Good".
  set.seed(7)
  d <- data.frame(carat = runif(300), cut = factor(sample(c("Fair", "Very Good", "Ideal"), 300, TRUE)))
  y <- 3 * d$carat + (d$cut == "Very Good") + rnorm(300, sd = 0.1)
  X <- model.matrix(~ carat + cut - 1, data = d)
  expect_true("cutVery Good" %in% colnames(X))
  m <- lgb_fit(X, y, list(objective = "regression"), nrounds = 20L)
  expect_true("cutVery_Good" %in% ns$native_compile(m)$features)
  expect_identical(ns$feature_columns(c("carat", "cutVery_Good", "gone"), colnames(X)),
                   c("carat", "cutVery Good", "gone"))
  for (engine in c("native", "predict")) {
    pd <- model_profile(m, X, variables = c("carat", "cutVery Good"), N = NULL, grid_points = 4,
                        engine = engine)
    expect_identical(pd$engine, engine)
    # The profile at each grid point: the mean of predict() over the rows
    # with the column set to it.
    for (v in pd$variables) {
      a <- pd$agr_profiles[pd$agr_profiles$`_vname_` == v, ]
      ref <- vapply(a$`_x_`, function(z) {
        Z <- X
        Z[, v] <- z
        mean(stats::predict(m, Z))
      }, numeric(1))
      expect_equal(a$`_yhat_`, ref, tolerance = 1e-12)
    }
  }
  # The "Very Good" indicator matters (by about 1).
  vg <- pd$agr_profiles[pd$agr_profiles$`_vname_` == "cutVery Good", "_yhat_"]
  expect_gt(diff(vg), 0.5)
  # Through a DALEX explainer too.
  skip_if_not_installed("DALEX")
  ex <- DALEX::explain(m, data = X, y = y, label = "lgb", verbose = FALSE)
  expect_equal(model_profile(ex, "cutVery Good", NULL)$agr_profiles$`_yhat_`, vg, tolerance = 1e-12)
})

test_that("ICE curves equal the predictions of stacked rows (the set walk, to 1e-12)", {
  yk <- as.integer(cut(f_true + rnorm(n, sd = 0.5), 3L)) - 1L
  models <- list(
    lgb_fit(train, f_true, list(objective = "regression", zero_as_missing = TRUE)),
    lgb_fit(train, yk, list(objective = "multiclass", num_class = 3L), nrounds = 5L)
  )
  rows <- c(1L, 5L, 301L, 305L, nrow(newdata))
  for (m in models) {
    nm <- ns$native_compile(m)
    X <- ns$native_columns(nm, newdata)
    for (j in 1:4) {
      grid <- c(sort(unique(c(quantile(train[[j]], 0:8 / 8, na.rm = TRUE), 0, -0, KZ, -KZ, 1e-40))), NA)
      ice <- ns$native_free_rows(nm, X, newdata, j, list(grid), rows, 2L)
      G <- length(grid)
      stacked <- ns$native_predict_rows(nm, X, newdata, rep(rows, each = G), j,
                                        list(rep(grid, times = length(rows))), 2L)
      # The set walk sums the same leaves in another order (setwalk.h).
      expect_equal(ice, stacked, tolerance = 1e-12)
      expect_identical(is.na(ice), is.na(stacked))
      d <- newdata[rep(rows, each = G), ]
      d[[j]] <- rep(grid, times = length(rows))
      own <- lgb_own(m, d, nm$features)
      expect_true(max(abs(unname(stacked) - own)) <= 1e-12)
    }
  }
})

test_that("categorical splits are tables, category 0 left by copies of subtrees", {
  X <- data.frame(x1 = rnorm(n), cat = sample(0:7, n, replace = TRUE), x2 = train$x2)
  eff <- c(0.5, -1, 2, 0, 1.5, -0.5, 1, -2)
  y <- X$x1 + eff[X$cat + 1L] + 2 * (X$x2 == 0) + rnorm(n, sd = 0.1)
  # cat values lightgbm casts to int (-0.5 -> 0, 1.7 -> 1), negative, unseen,
  # huge, NA.
  data <- rbind(X, data.frame(x1 = 0.1, x2 = c(0, 0.5),
                              cat = c(-0.5, 0.5, 1.7, -1, -1.5, 7.99, 8, 40, 1e10, NA, 1e-40, -Inf)))
  for (zam in c(FALSE, TRUE)) {
    m <- lgb_fit(X, y, list(objective = "regression", max_cat_to_onehot = 2L, cat_smooth = 1,
                            min_data_per_group = 5L, zero_as_missing = zam),
                 nrounds = 15L, categorical = "cat")
    r <- lgb_check(m, data, tol = 0)
    expect_true(any(r$nm$cat_start >= 0L))
  }
})

# A model text with trees written here, loaded into lightgbm: splits that
# training seldom makes (thresholds at and around +-kZ and 0, Zero splits
# with the default child on either side, categorical splits with category 0
# and long bitsets), checked on a grid of edge values of both features.
lgb_tree_text <- function(i, feature, threshold, decision_type, left, right, leaf,
                          cat_boundaries = NULL, cat_threshold = NULL) {
  L <- length(leaf)
  num <- function(x) paste(sprintf("%.17g", x), collapse = " ")
  ints <- function(x) paste(x, collapse = " ")
  lines <- c(
    paste0("Tree=", i), paste0("num_leaves=", L),
    paste0("num_cat=", if (is.null(cat_boundaries)) 0L else length(cat_boundaries) - 1L),
    paste0("split_feature=", ints(feature)), paste0("split_gain=", ints(rep(1, L - 1L))),
    paste0("threshold=", num(threshold)), paste0("decision_type=", ints(decision_type)),
    paste0("left_child=", ints(left)), paste0("right_child=", ints(right)),
    paste0("leaf_value=", num(leaf)), paste0("leaf_weight=", ints(rep(1, L))),
    paste0("leaf_count=", ints(rep(1, L))), paste0("internal_value=", ints(rep(0, L - 1L))),
    paste0("internal_weight=", ints(rep(1, L - 1L))), paste0("internal_count=", ints(rep(1, L - 1L))),
    if (!is.null(cat_boundaries)) {
      c(paste0("cat_boundaries=", ints(cat_boundaries)), paste0("cat_threshold=", ints(cat_threshold)))
    },
    "is_linear=0", "shrinkage=1"
  )
  paste0(paste(lines, collapse = "\n"), "\n\n\n")
}

lgb_model_text <- function(trees, features = c("a", "b"), objective = "regression") {
  paste0(paste(c(
    "tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
    paste0("max_feature_idx=", length(features) - 1L), paste0("objective=", objective),
    paste0("feature_names=", paste(features, collapse = " ")),
    paste0("feature_infos=", paste(rep("[-10:10]", length(features)), collapse = " ")),
    paste0("tree_sizes=", paste(nchar(trees), collapse = " ")), ""
  ), collapse = "\n"), "\n", paste(trees, collapse = ""), "end of trees\n\n",
  "feature_importances:\n\nparameters:\nend of parameters\n\npandas_categorical:null\n")
}

test_that("kZeroThreshold and the double below -kZ", {
  expect_identical(KZ, readBin(writeBin(1e-35, raw(), size = 4L), "double", size = 4L))
  expect_identical(ns$LGB_KZ, KZ)
  expect_identical(floor(log2(KZ)), -117) # so its ulp is 2^-169
  expect_identical(ns$LGB_KZ_BELOW, -KZ - 2^-169)
  expect_identical(ns$lgb_below(c(1, 2, 3, 8)), c(1 - 2^-53, 2 - 2^-52, 3 - 2^-51, 8 - 2^-50))
})

test_that("written trees: every split kind on a grid of edge values", {
  b0 <- KZ / 2
  trees <- c(
    # Zero, default right, threshold 5 (zeros go right, (kZ, 5] left): rebuilt.
    lgb_tree_text(0, c(0, 0, 1), c(5, -KZ, 0), c(4, 2, 6), c(1, -1, -3), c(2, -2, -4), 1:4),
    # NaN type with a threshold inside (0, kZ); None at -3.
    lgb_tree_text(1, c(1, 0), c(b0, -3), c(10, 0), c(-1, -2), c(1, -3), c(10, 20, 30)),
    # Zero, default left, threshold -3 (zeros left, (-3, -kZ) right): rebuilt,
    # with a Zero split on the same feature below it.
    lgb_tree_text(2, c(0, 0, 1), c(-3, 2, -KZ), c(6, 4, 4), c(1, -1, -3), c(2, -2, -4),
                  c(100, 200, 300, 400)),
    # None and NaN at 0, -kZ, kZ, the double below -kZ.
    lgb_tree_text(3, c(0, 1, 0, 1), c(0, -KZ, KZ, -(KZ + 2^-169)), c(0, 2, 8, 10),
                  c(1, -1, -3, -4), c(2, 3, -2, -5), c(1, 2, 3, 4, 5) * 1000),
    # Zero splits whose default child borders zero: direct.
    lgb_tree_text(4, c(0, 1), c(-KZ, 1), c(4, 6), c(-1, -2), c(1, -3), c(0.5, 0.25, 0.125))
  )
  features <- c("a", "b")
  m <- lightgbm::lgb.load(model_str = lgb_model_text(trees, features))
  vals <- c(-Inf, -1e300, -10, -3, -2, -1, -2 * KZ, -(KZ + 2^-169), -KZ, -KZ / 2, -1e-40, 0,
            1e-40, b0, KZ, 2 * KZ, 1, 2, 5, 6, 1e300, Inf, NA)
  grid <- expand.grid(a = vals, b = vals)
  r <- lgb_check(m, grid, tol = 0)
  # Trees 0 and 2 are rebuilt with copies; the others keep their nodes.
  sizes <- diff(r$nm$tree_start)
  expect_identical(sizes[c(2L, 4L, 5L)], c(5L, 9L, 5L))
  expect_true(all(sizes[c(1L, 3L)] > 7L))
})

test_that("written trees: categorical splits with category 0 and long bitsets", {
  # Bitsets (32-bit words): {0, 2, 33} (two words); {1, 3}; {0}; {0, 1, 2}.
  words <- c(2^0 + 2^2, 2^1, 2^1 + 2^3, 1, 7)
  trees <- c(
    # cat {0, 2, 33} then, on the left, cat {1, 3} on the same feature.
    lgb_tree_text(0, c(0, 0, 1), c(0, 1, 0), c(1, 1, 2), c(1, -1, -3), c(2, -2, -4),
                  c(1, 2, 3, 4), cat_boundaries = c(0, 2, 3), cat_threshold = words[1:3]),
    # cat {0}; cat {0, 1, 2}.
    lgb_tree_text(1, c(0, 0), c(0, 1), c(1, 1), c(1, -1), c(-2, -3), c(10, 20, 30),
                  cat_boundaries = c(0, 1, 2), cat_threshold = words[4:5]),
    # cat {1, 3} (category 0 right): a table.
    lgb_tree_text(2, 0, 0, 1, -1, -2, c(100, 200), cat_boundaries = c(0, 1),
                  cat_threshold = words[3])
  )
  m <- lightgbm::lgb.load(model_str = lgb_model_text(trees))
  vals <- c(-Inf, -2, -1, -0.5, -1e-40, 0, 1e-40, 0.5, 1, 1.5, 2, 2.99, 3, 4, 32, 33, 33.5, 34,
            64, 1e10, Inf, NA)
  grid <- expand.grid(a = vals, b = c(-1, 0, 1, NA))
  r <- lgb_check(m, grid, tol = 0)
  expect_identical(diff(r$nm$tree_start)[3L], 3L)
})

test_that("unsupported boosters give NULL", {
  y <- f_true + rnorm(n, sd = 0.2)
  yk <- as.integer(cut(y, 3L)) - 1L
  expect_null(ns$native_model(lgb_fit(train, yk, list(objective = "multiclassova", num_class = 3L), nrounds = 3L)))
  expect_null(ns$native_model(lgb_fit(train, plogis(y), list(objective = "cross_entropy_lambda"), nrounds = 3L)))
  expect_null(ns$native_model(lgb_fit(train, y, list(objective = "regression", reg_sqrt = TRUE), nrounds = 3L)))
  expect_null(ns$native_model(lgb_fit(train, y, list(objective = "regression", linear_tree = TRUE), nrounds = 3L)))
  rf <- list(objective = "multiclass", num_class = 3L, boosting = "rf", bagging_fraction = 0.5,
             bagging_freq = 1L)
  expect_null(ns$native_model(lgb_fit(train, yk, rf, nrounds = 3L)))
  # No feature names: predict() reads the columns by position.
  ds <- lightgbm::lgb.Dataset(unname(as.matrix(train)), label = y)
  m <- lightgbm::lgb.train(params = list(objective = "regression", verbosity = -1L, num_threads = 1L),
                           data = ds, nrounds = 3L)
  expect_null(ns$native_model(m))
  # A sigmoid that the model text prints rounded.
  m <- lgb_fit(train, as.integer(y > 1), list(objective = "binary", sigmoid = 1 / 3), nrounds = 3L)
  expect_null(ns$native_model(m))
})

test_that("rebuilt trees beyond the node budget give NULL", {
  m <- lgb_fit(train, f_true, list(objective = "regression", zero_as_missing = TRUE))
  text <- m$save_model_to_string(num_iteration = -1L)
  # With every tree rebuilt, the budget counts all nodes.
  total <- length(ns$lgb_native(text, general = TRUE)$feature)
  expect_s3_class(ns$lgb_native(text, general = TRUE, max_rebuilt = total), "mp_native")
  expect_error(ns$lgb_native(text, general = TRUE, max_rebuilt = total - 1L), class = "lgb_refuse")
})

test_that("rf boosting of one output averages the trees", {
  rf <- list(objective = "regression", boosting = "rf", bagging_fraction = 0.5, bagging_freq = 1L,
             feature_fraction = 0.8)
  r <- lgb_check(lgb_fit(train, f_true, rf, nrounds = 10L), newdata)
  expect_identical(r$nm$aggregate, "mean")
})

test_that("dart and goss boosters predict the sum of their stored trees", {
  y <- f_true + rnorm(n, sd = 0.2)
  lgb_check(lgb_fit(train, y, list(objective = "regression", boosting = "dart", drop_rate = 0.3),
                    nrounds = 10L), newdata, tol = 0)
  lgb_check(lgb_fit(train, y, list(objective = "regression", data_sample_strategy = "goss"),
                    nrounds = 10L), newdata, tol = 0)
})

test_that("a saved and reloaded booster converts the same", {
  m <- lgb_fit(train, f_true, list(objective = "regression"))
  m2 <- lightgbm::lgb.load(model_str = m$save_model_to_string())
  expect_identical(native_rows(ns$native_compile(m2), newdata),
                   native_rows(ns$native_compile(m), newdata))
})
