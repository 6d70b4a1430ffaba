# The native tree-ensemble engine (R/native.R, inst/include/modelprofiles/): compiled
# ranger and randomForest models predict what the models' own predict() does,
# and the one-walk ICE curves equal the row-by-row predictions bit for bit.

native_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  d <- data.frame(
    a = rnorm(n), b = runif(n),
    f = factor(sample(letters[1:5], n, TRUE)),
    i = sample(1:10, n, TRUE)
  )
  d$y <- d$a + 2 * (d$f %in% c("b", "d")) + d$i / 5 + rnorm(n)
  d$c2 <- factor(ifelse(d$a + (d$f == "c") + rnorm(n) > 0, "yes", "no"))
  d$c3 <- factor(ifelse(d$b > 0.6, "hi", ifelse(d$f %in% c("a", "e"), "mid", "lo")))
  d
}

# A prediction (vector, matrix, "votes" matrix) as a plain unnamed matrix.
plain <- function(y) {
  y <- as.matrix(y)
  matrix(as.double(y), nrow(y))
}

# The thresholds of the numeric splits on feature k (1-based, of nm$features)
# of a ranger or randomForest model, read from the fitted model.
split_thresholds <- function(fit, nm, k) {
  if (inherits(fit, "randomForest")) {
    f <- fit$forest
    inner <- f$nodestatus != -1L & f$bestvar == k
    return(if (f$ncat[k] == 1L) f$xbestsplit[inner] else numeric())
  }
  if (!inherits(fit, "ranger")) return(nm$threshold[nm$feature == k - 1L & nm$cat_start < 0L])
  f <- fit$forest
  unlist(Map(function(ch, v, s) s[v == k - 1L & !(ch[[1]] == 0 & ch[[2]] == 0)],
             f$child.nodeIDs, f$split.varIDs, f$split.values))
}

# Grid for feature k: thresholds the model splits on (values equal to them),
# data quantiles, and values below the minimum and above the maximum.
native_grid <- function(fit, nm, k, x) {
  thr <- split_thresholds(fit, nm, k)
  thr <- if (length(thr) > 0) sample(unique(thr), min(10L, length(unique(thr)))) else numeric()
  sort(unique(c(min(x) - 1, stats::quantile(x, c(0.1, 0.5, 0.9), names = FALSE), thr, max(x) + 1)))
}

# Check a model: predictions equal predict() to 1e-12 with the model's column
# names; 1 and 2 threads identical; ICE curves of every feature identical to
# the stacked predictions; for numeric `vars`, also equal to predict() on the
# stacked data frame.
expect_native <- function(fit, data, vars) {
  nm <- native_compile(fit)
  expect_s3_class(nm, "mp_native")
  X <- native_columns(nm, data)
  n <- nrow(data)
  pf <- default_predict_function(fit)
  ref <- pf(fit, data)
  y1 <- native_eval(nm, X, threads = 1L)
  y2 <- native_eval(nm, X, threads = 2L)
  expect_identical(y1, y2)
  expect_equal(plain(y1), plain(ref), tolerance = 1e-12)
  expect_identical(colnames(y1), colnames(ref))
  rows <- sort(sample(n, 25))
  for (v in vars) {
    k <- match(v, nm$features)
    x <- data[[v]]
    grid <- if (is.null(nm$feature_levels[[k]]) && !is.factor(x)) {
      native_grid(fit, nm, k, x)
    } else {
      as.double(rev(seq_along(levels(x))))
    }
    G <- length(grid)
    ice1 <- native_curves(nm, X, rows, k, grid, 1L)
    ice2 <- native_curves(nm, X, rows, k, grid, 2L)
    expect_identical(ice1, ice2)
    stacked <- native_eval(nm, X, rep(rows, each = G), k, list(rep(grid, times = length(rows))), 2L)
    # The set walk sums the same leaves in another order (setwalk.h).
    expect_equal(ice1, stacked, tolerance = 1e-12)
    expect_identical(dim(ice1), c(G * length(rows), ncol(y1)))
    if (is.numeric(x)) {
      nd <- data[rep(rows, each = G), , drop = FALSE]
      nd[[v]] <- rep(grid, times = length(rows))
      if (is.integer(x)) nd[[v]] <- as.double(nd[[v]])
      expect_equal(plain(ice1), plain(pf(fit, nd)), tolerance = 1e-12)
    }
  }
  invisible(nm)
}

test_that("ranger regression forests compile to the model's predictions", {
  skip_if_not_installed("ranger")
  d <- native_data()
  fit <- ranger::ranger(y ~ a + b + i, d, num.trees = 40, num.threads = 1, seed = 1)
  expect_native(fit, d, c("a", "b", "i"))
  fit <- ranger::ranger(x = d[c("a", "b", "i")], y = d$y, num.trees = 20, num.threads = 1, seed = 2)
  expect_native(fit, d, "a")
})

test_that("ranger probability forests: 2 and 3 classes", {
  skip_if_not_installed("ranger")
  d <- native_data()
  fit <- ranger::ranger(c2 ~ a + b + i, d, num.trees = 40, probability = TRUE, num.threads = 1, seed = 1)
  nm <- expect_native(fit, d, c("a", "i"))
  expect_identical(nm$outputs, c("no", "yes"))
  fit <- ranger::ranger(c3 ~ a + b + i, d, num.trees = 40, probability = TRUE, num.threads = 1, seed = 1)
  nm <- expect_native(fit, d, c("a", "b"))
  expect_identical(nm$outputs, c("hi", "lo", "mid"))
})

test_that("ranger factor predictors: ignore, order and partition", {
  skip_if_not_installed("ranger")
  d <- native_data()
  d$ch <- as.character(sample(c("u", "v", "w"), nrow(d), TRUE))
  for (m in c("ignore", "order", "partition")) {
    fit <- ranger::ranger(y ~ a + f + i + ch, d, num.trees = 40, respect.unordered.factors = m,
                          num.threads = 1, seed = 3)
    nm <- expect_native(fit, d, c("a", "f", "i"))
    # Only "partition" splits f by level masks (categorical splits); the
    # curves over its levels are predict()'s.
    kf <- match("f", nm$features)
    expect_identical(!fit$forest$is.ordered[kf], m == "partition")
    expect_true(any(unlist(fit$forest$split.varIDs) == kf - 1L))
    lv <- factor(rev(levels(d$f)), levels = levels(d$f))
    ice <- native_free_rows(nm, native_columns(nm, d), d, match("f", names(d)), list(lv), 1:9, 2L)
    nd <- d[rep(1:9, each = length(lv)), ]
    nd$f <- rep(lv, times = 9)
    expect_equal(unname(ice[, 1]), predict(fit, nd, num.threads = 1)$predictions, tolerance = 1e-12)
    fit <- ranger::ranger(c3 ~ a + f + b, d, num.trees = 40, respect.unordered.factors = m,
                          probability = TRUE, num.threads = 1, seed = 3)
    expect_native(fit, d, c("f", "b"))
  }
  # The wrappers take the columns' own values: a factor grid by level.
  fit <- ranger::ranger(y ~ a + f, d, num.trees = 30, respect.unordered.factors = "order",
                        num.threads = 1, seed = 4)
  nm <- native_compile(fit)
  X <- native_columns(nm, d)
  grid <- factor(c("e", "a", "c"), levels = levels(d$f))
  ice <- native_free_rows(nm, X, d, match("f", names(d)), list(grid), 1:7, 2L)
  nd <- d[rep(1:7, each = 3), ]
  nd$f <- rep(grid, times = 7)
  expect_equal(unname(ice[, 1]), predict(fit, nd, num.threads = 1)$predictions, tolerance = 1e-12)
  expect_equal(ice, native_predict_rows(nm, X, d, rep(1:7, each = 3), match("f", names(d)), list(nd$f), 1L),
               tolerance = 1e-12)
})

test_that("randomForest regression and classification, formula and x/y", {
  skip_if_not_installed("randomForest")
  d <- native_data()
  d$o <- factor(sample(c("lo", "mid", "hi"), nrow(d), TRUE), levels = c("lo", "mid", "hi"), ordered = TRUE)
  d$l <- d$b > 0.5
  set.seed(5)
  fit <- randomForest::randomForest(y ~ a + b + f + i + o + l, d, ntree = 40)
  expect_native(fit, d, c("a", "b", "f", "i", "o"))
  fit <- randomForest::randomForest(d[c("a", "b", "f", "i", "o")], d$y, ntree = 40)
  expect_native(fit, d, c("a", "f", "o"))
  fit <- randomForest::randomForest(as.matrix(d[c("a", "b", "i")]), d$y, ntree = 30)
  expect_native(fit, d, c("a", "i"))
  fit <- randomForest::randomForest(c2 ~ a + b + f + i, d, ntree = 40)
  nm <- expect_native(fit, d, c("a", "f", "i"))
  expect_identical(nm$outputs, c("no", "yes"))
  fit <- randomForest::randomForest(d[c("a", "b", "f", "o")], d$c3, ntree = 40)
  nm <- expect_native(fit, d, c("b", "f", "o"))
  expect_identical(nm$outputs, c("hi", "lo", "mid"))
})

test_that("ICE grids in any order, with ties and missing values, as the stacked rows", {
  skip_if_not_installed("ranger")
  d <- native_data()
  fit <- ranger::ranger(c3 ~ a + b + i, d, num.trees = 30, probability = TRUE, num.threads = 1, seed = 6)
  nm <- native_compile(fit)
  X <- native_columns(nm, d)
  thr <- split_thresholds(fit, nm, 1L)[1:3]
  grid <- c(0.5, NaN, thr[2], -10, thr[1], 0.5, 10, thr[3])
  rows <- c(3L, 1L, 50L, 50L)
  ice <- native_curves(nm, X, rows, 1L, grid, 2L)
  stacked <- native_eval(nm, X, rep(rows, each = length(grid)), 1L,
                         list(rep(grid, times = length(rows))), 2L)
  expect_equal(ice, stacked, tolerance = 1e-12)
  expect_identical(is.na(ice), is.na(stacked))
  # A missing value cannot be routed in a ranger tree: NA.
  expect_true(all(is.na(ice[seq(2, nrow(ice), by = length(grid)), ])))
  expect_false(anyNA(ice[-seq(2, nrow(ice), by = length(grid)), ]))
  d$a[2] <- NA
  y <- native_eval(nm, native_columns(nm, d), 1:4, threads = 1L)
  expect_identical(is.na(y[, 1]), c(FALSE, TRUE, FALSE, FALSE))
})

test_that("ICE of a variable the model does not use is flat", {
  skip_if_not_installed("ranger")
  d <- native_data()
  fit <- ranger::ranger(y ~ a + i, d, num.trees = 10, num.threads = 1, seed = 7)
  nm <- native_compile(fit)
  X <- native_columns(nm, d)
  ice <- native_free_rows(nm, X, d, match("b", names(d)), list(c(0, 0.5, 1)), c(4L, 9L), 1L)
  y <- predict(fit, d[c(4, 9), ], num.threads = 1)$predictions
  expect_equal(unname(ice[, 1]), rep(y, each = 3), tolerance = 1e-12)
})

test_that("unsupported models and settings give NULL", {
  d <- native_data()
  expect_null(native_model(lm(y ~ a, d)))
  expect_null(native_compile(lm(y ~ a, d)))
  skip_if_not_installed("ranger")
  skip_if_not_installed("randomForest")
  expect_null(native_model(ranger::ranger(c3 ~ a + b, d, num.trees = 5, num.threads = 1)))
  expect_null(native_model(ranger::ranger(y ~ a + b, d, num.trees = 5, num.threads = 1,
                                          write.forest = FALSE)))
  set.seed(8)
  expect_null(native_model(randomForest::randomForest(y ~ a + b, d, ntree = 5, corr.bias = TRUE)))
  expect_null(native_model(randomForest::randomForest(d[c("a", "b")], ntree = 5)))
  d$big <- factor(sample(sprintf("l%02d", 1:40), nrow(d), TRUE))
  expect_null(native_model(randomForest::randomForest(y ~ a + big, d, ntree = 5)))
})

test_that("a malformed ranger forest is refused (NULL), not walked", {
  skip_if_not_installed("ranger")
  d <- native_data()
  fit <- ranger::ranger(y ~ a + f + b, d, num.trees = 3, respect.unordered.factors = "partition",
                        num.threads = 1, seed = 11)
  expect_s3_class(native_model(fit), "mp_native")
  f <- fit$forest
  ch <- f$child.nodeIDs[[2]]
  inner <- which(ch[[1]] != 0)
  corrupt <- function(el, value, i = inner[2], side = 1L) {
    bad <- fit
    if (el == "child") {
      bad$forest$child.nodeIDs[[2]][[side]][i] <- value
    } else {
      bad$forest[[el]][[2]][i] <- value
    }
    native_model(bad)
  }
  expect_null(corrupt("child", 0))                     # back to the root: not a tree
  expect_null(corrupt("child", ch[[1]][inner[3]]))     # a node reached twice
  expect_null(corrupt("child", length(ch[[1]]), side = 2L))  # outside the tree
  expect_null(corrupt("child", ch[[1]][inner[2]] + 0.5))  # not a whole number
  expect_null(corrupt("split.varIDs", 3))              # 3 features: 0, 1, 2
  expect_null(corrupt("split.varIDs", NaN))
  kf <- match("f", fit$forest$independent.variable.names) - 1L
  on_f <- which(f$split.varIDs[[2]] == kf & ch[[1]] != 0)
  on_a <- which(f$split.varIDs[[2]] != kf & ch[[1]] != 0)
  skip_if(length(on_f) == 0L || length(on_a) == 0L)
  expect_null(corrupt("split.values", NaN, on_a[1]))   # a numeric split without threshold
  expect_null(corrupt("split.values", -1, on_f[1]))    # a partition mask out of range
  expect_null(corrupt("split.values", 2^64, on_f[1]))
  bad <- fit
  bad$forest$split.varIDs <- bad$forest$split.varIDs[1:2]
  expect_null(native_model(bad))
  # A probability forest's leaf without the counts of its classes.
  fit <- ranger::ranger(c3 ~ a + b, d, num.trees = 3, probability = TRUE, num.threads = 1, seed = 12)
  expect_s3_class(native_model(fit), "mp_native")
  leaf <- which(fit$forest$child.nodeIDs[[1]][[1]] == 0)[1]
  bad <- fit
  bad$forest$terminal.class.counts[[1]][[leaf]] <- c(1, 0)
  expect_null(native_model(bad))
})

test_that("a malformed randomForest forest is refused (NULL), not walked", {
  skip_if_not_installed("randomForest")
  d <- native_data()
  set.seed(3)
  fit <- randomForest::randomForest(y ~ a + b + f, d, ntree = 3)
  expect_s3_class(native_model(fit), "mp_native")
  f <- fit$forest
  inner <- which(f$nodestatus[, 2] != -1L)
  leaf <- which(f$nodestatus[seq_len(f$ndbigtree[2]), 2] == -1L)
  corrupt <- function(el, value, i) {
    bad <- fit
    bad$forest[[el]][i, 2] <- value
    native_model(bad)
  }
  expect_null(corrupt("leftDaughter", 1L, inner[2]))                  # back to the root
  expect_null(corrupt("leftDaughter", f$leftDaughter[inner[3], 2], inner[2]))  # reached twice
  expect_null(corrupt("rightDaughter", f$ndbigtree[2] + 1L, inner[1]))  # outside the tree
  expect_null(corrupt("bestvar", 4L, inner[1]))                       # 3 variables
  expect_null(corrupt("bestvar", 0L, inner[1]))
  num <- inner[f$bestvar[inner, 2] != match("f", rownames(fit$importance))]
  expect_null(corrupt("xbestsplit", NaN, num[1]))                     # no threshold
  on_f <- inner[f$bestvar[inner, 2] == match("f", rownames(fit$importance))]
  skip_if(length(on_f) == 0L)
  expect_null(corrupt("xbestsplit", -1, on_f[1]))                     # a mask out of range
  bad <- fit
  bad$forest$ndbigtree[2] <- f$nrnodes + 1L
  expect_null(native_model(bad))
  # A classification leaf naming no class.
  fit <- randomForest::randomForest(c3 ~ a + b, d, ntree = 3)
  expect_s3_class(native_model(fit), "mp_native")
  bad <- fit
  lf <- which(bad$forest$nodestatus[, 1] == -1L)[1]
  bad$forest$nodepred[lf, 1] <- 4L
  expect_null(native_model(bad))
})

test_that("native_columns maps factor levels by name, reads double columns in place, and names missing variables", {
  skip_if_not_installed("ranger")
  d <- native_data()
  fit <- ranger::ranger(y ~ a + f, d, num.trees = 5, respect.unordered.factors = "order",
                        num.threads = 1, seed = 9)
  nm <- native_compile(fit)
  d2 <- d[1:4, ]
  d2$f <- factor(as.character(d2$f), levels = rev(c(levels(d$f), "zz")))
  X <- native_columns(nm, d2)
  expect_identical(X[[2]], as.double(match(as.character(d2$f), nm$feature_levels[[2]])))
  expect_identical(attr(X, "n"), 4L)
  # The double column is the data's own vector, not a copy; only the factor
  # is converted.
  expect_identical(rlang::obj_address(X[[1]]), rlang::obj_address(d2$a))
  expect_identical(native_columns_bytes(nm, d2), 8 * 4)
  d2$f[1] <- "zz"
  expect_true(is.na(native_columns(nm, d2)[[2]][1]))
  expect_error(native_columns(nm, d["a"]), "lack")
})

# A random forest in the flat format exercising what ranger and randomForest
# do not: missing-value children (left, right, a subtree of their own, or
# none), rule 1 (x < t), single precision, sums with a base, transforms,
# categorical splits with codes beyond cat_len, and several outputs.
random_native <- function(n_trees, K, rule, float32, aggregate, transform, seed) {
  set.seed(seed)
  e <- new.env()
  e$feature <- e$left <- e$right <- e$missing <- e$cat_start <- e$cat_len <- integer()
  e$threshold <- double()
  e$cat_left <- integer()
  e$value <- list()
  grow <- function(depth) {
    i <- length(e$feature) + 1L
    e$feature[i] <- -1L
    e$threshold[i] <- 0
    e$left[i] <- e$right[i] <- e$missing[i] <- e$cat_start[i] <- -1L
    e$cat_len[i] <- 0L
    e$value[[i]] <- round(rnorm(K), 3)
    if (depth <= 0 || runif(1) < 0.15) return(i - 1L)
    f <- sample(0:2, 1)
    e$feature[i] <- f
    if (f == 2L) {
      len <- sample(2:4, 1)
      e$cat_start[i] <- length(e$cat_left)
      e$cat_len[i] <- len
      e$cat_left <- c(e$cat_left, sample(0:1, len, TRUE))
    } else {
      e$threshold[i] <- sample(c(-1, -0.5, 0, 0.1, 0.5, 1), 1)
    }
    e$left[i] <- grow(depth - 1)
    e$right[i] <- grow(depth - 1)
    e$missing[i] <- switch(sample(4, 1), -1L, e$left[i], e$right[i], grow(depth - 2))
    i - 1L
  }
  starts <- 0L
  for (t in seq_len(n_trees)) {
    grow(5)
    starts <- c(starts, length(e$feature))
  }
  value <- do.call(rbind, e$value)
  new_native(
    features = c("u", "v", "w"), feature_levels = list(NULL, NULL, c("a", "b", "c", "d", "e")),
    tree_start = starts, feature = e$feature, threshold = e$threshold, left = e$left,
    right = e$right, missing = e$missing, cat_start = e$cat_start, cat_len = e$cat_len,
    cat_left = e$cat_left, rule = rule, value = value, aggregate = aggregate,
    base = seq_len(K) / 10, transform = transform, float32 = float32,
    outputs = if (K > 1) paste0("k", seq_len(K)) else NULL, source = "test"
  )
}

# The spec's prediction, in plain R.
ref_native <- function(nm, X) {
  f32 <- function(x) readBin(writeBin(x, raw(), size = 4), "double", n = length(x), size = 4)
  K <- ncol(nm$value)
  n_trees <- length(nm$tree_start) - 1L
  out <- matrix(0, nrow(X), K)
  for (i in seq_len(nrow(X))) {
    s <- if (nm$aggregate == "sum") nm$base else rep(0, K)
    for (t in seq_len(n_trees)) {
      node <- nm$tree_start[t]
      while (node >= 0 && nm$feature[node + 1] >= 0) {
        x <- X[i, nm$feature[node + 1] + 1]
        if (is.na(x)) {
          node <- nm$missing[node + 1]
          next
        }
        if (nm$cat_start[node + 1] >= 0) {
          go_left <- x >= 1 && x <= nm$cat_len[node + 1] &&
            nm$cat_left[nm$cat_start[node + 1] + x] == 1L
        } else {
          thr <- nm$threshold[node + 1]
          if (nm$float32) {
            x <- f32(x)
            thr <- f32(thr)
          }
          go_left <- if (nm$rule == 0L) x <= thr else x < thr
        }
        node <- if (go_left) nm$left[node + 1] else nm$right[node + 1]
      }
      s <- s + if (node < 0) NA else nm$value[node + 1, ]
    }
    m <- if (nm$aggregate == "mean") s / n_trees + nm$base else s
    out[i, ] <- switch(nm$transform,
      identity = m, exp = exp(m), logistic = 1 / (1 + exp(-m)),
      softmax = exp(m - max(m)) / sum(exp(m - max(m)))
    )
  }
  out
}

test_that("the flat format's rules: missing values, rule, float32, sums, transforms, categories", {
  settings <- list(
    list(1L, 0L, FALSE, "mean", "identity"),
    list(1L, 1L, TRUE, "sum", "logistic"),
    list(1L, 1L, FALSE, "sum", "exp"),
    list(3L, 0L, TRUE, "sum", "softmax"),
    list(3L, 1L, FALSE, "mean", "identity")
  )
  set.seed(10)
  d <- data.frame(u = sample(c(-1, -0.5, 0, 0.1, 0.1 + 1e-9, 0.5, 1, rnorm(20)), 200, TRUE),
                  v = rnorm(200), w = factor(sample(c("a", "b", "c", "d", "e"), 200, TRUE)))
  d$u[sample(200, 20)] <- NA
  d$v[sample(200, 20)] <- NA
  d$w[sample(200, 20)] <- NA
  for (s in seq_along(settings)) {
    a <- settings[[s]]
    nm <- random_native(15, a[[1]], a[[2]], a[[3]], a[[4]], a[[5]], seed = s)
    nm <- structure(c(unclass(nm), list(cache = native_pack(nm))), class = "mp_native")
    cols <- native_columns(nm, d)
    X <- do.call(cbind, cols)
    y <- native_eval(nm, X, threads = 2L)
    expect_equal(unname(y), ref_native(nm, X), tolerance = 1e-12)
    # The columns in place (as the engine reads them) and the matrix agree.
    expect_identical(native_eval(nm, cols, threads = 2L), y)
    expect_identical(colnames(y), nm$outputs)
    no_cache <- nm
    no_cache$cache <- NULL
    expect_identical(native_eval(no_cache, X, threads = 1L), y)
    # The leaves of the rows: the same predictions, for the rows as they are.
    leaves <- native_leaves(nm, X, 2L)
    expect_identical(native_eval_cached(nm, X, NULL, integer(), list(), leaves, 1L), y)
    expect_identical(native_eval_cached(nm, X, 200:1, integer(), list(), leaves, 2L),
                     native_eval(nm, X, 200:1, threads = 1L))
    # Leaves of other data or of another model are not used; a model without
    # a kept packing has none.
    expect_null(native_eval_cached(nm, X + 0, NULL, integer(), list(), leaves, 1L))
    other <- nm
    other$cache <- native_pack(nm)
    expect_null(native_eval_cached(other, X, NULL, integer(), list(), leaves, 1L))
    expect_error(native_leaves(no_cache, X, 1L), "kept packing")
    rows <- c(1:12, which(is.na(d$u))[1:3], which(is.na(d$v))[1:3])
    grids <- list(
      c(NaN, -2, -1, -0.5, 0, 0.1, 0.1 + 1e-9, 0.3, 0.5, 1, 2, 0.1),
      c(1, -1, 0.1, 0, NaN, 0.5, -0.5),
      c(0, 5, 1, 2, 3, 4, NaN, 6, 2)
    )
    for (k in 1:3) {
      grid <- grids[[k]]
      G <- length(grid)
      ice <- native_curves(nm, X, rows, k, grid, 2L)
      src <- rep(rows, each = G)
      vals <- rep(grid, times = length(rows))
      y <- native_eval(nm, X, src, k, list(vals), 1L)
      expect_equal(ice, y, tolerance = 1e-12)
      # From the leaves of the rows, with 1 and 2 threads.
      expect_identical(native_eval_cached(nm, X, src, k, list(vals), leaves, 1L), y)
      expect_identical(native_eval_cached(nm, X, src, k, list(vals), leaves, 2L), y)
      expect_identical(ice, native_curves(no_cache, X, rows, k, grid, 1L))
      Xs <- X[src, , drop = FALSE]
      Xs[, k] <- vals
      expect_equal(unname(ice), ref_native(nm, Xs), tolerance = 1e-12)
    }
  }
})

test_that("malformed models are refused, not walked", {
  # A "fitted model" whose converter returns the given flat arrays.
  registerS3method("native_model", "mp_test_model", function(model, fingerprint = NULL) model$nm,
                   envir = asNamespace("modelprofiles"))
  as_model <- function(nm) structure(list(nm = nm), class = "mp_test_model")
  nm <- random_native(2, 1L, 0L, FALSE, "mean", "identity", seed = 1)
  expect_type(native_compile(as_model(nm))$cache, "externalptr")
  bad <- nm
  inner <- which(bad$feature >= 0)[2]
  bad$left[inner] <- bad$tree_start[1]
  expect_error(native_compile(as_model(bad)), "malformed.*(reached twice|outside)")
  X <- matrix(0, 2, 3)
  expect_error(native_eval(bad, X, threads = 1L), "native model")
  expect_error(native_curves(bad, X, 1:2, 1L, c(0, 1), 1L), "native model")
  bad <- nm
  bad$feature[which(bad$feature >= 0)[1]] <- 7L
  expect_error(native_compile(as_model(bad)), "malformed.*feature index")
  bad <- nm
  bad$right[inner] <- length(bad$feature)
  expect_error(native_compile(as_model(bad)), "malformed.*outside")
  bad <- nm
  bad$tree_start[2] <- length(bad$feature) + 5L
  expect_error(native_compile(as_model(bad)), "malformed")
  # A stale cache (the arrays changed) is not used.
  nm$cache <- native_pack(nm)
  changed <- nm
  changed$value <- changed$value + 1
  y <- native_eval(changed, X, threads = 1L)
  expect_equal(unname(y), ref_native(changed, X), tolerance = 1e-12)
})
