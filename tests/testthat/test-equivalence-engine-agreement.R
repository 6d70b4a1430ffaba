# Engine agreement: for every family with a native or linear engine, the
# native and predict() paths give the same numbers for PD, ICE, LD, AL, 2-D
# PD and 2-D AL, for every class, under the model's own class names; and
# both equal a brute-force computation from the model's own predict().

agreement_data <- function(n = 160, seed = 7) {
  set.seed(seed)
  X <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n))
  eta <- X$a * X$b + X$c
  list(X = X, eta = eta)
}

# Native and predict results of every estimator, all classes profiled.
expect_engines_agree <- function(fit, X, tol = 1e-12, class = NULL) {
  for (type in c("partial", "conditional", "accumulated")) {
    methods <- if (type == "partial") list(NULL) else list("kernel", "interval")
    for (m in methods) {
      args <- list(fit, X, type = type, method = m, N = NULL, grid_points = 7,
                   grid = profile_grids(intervals = 5), class = class)
      a <- do.call(model_profile, c(args, engine = "native"))
      b <- do.call(model_profile, c(args, engine = "predict"))
      info <- paste(type, m)
      expect_identical(a$engine, "native", info = info)
      expect_identical(b$engine, "predict", info = info)
      expect_identical(a$labels, b$labels, info = info)
      expect_identical(a$class, b$class, info = info)
      expect_equal(a$agr_profiles, b$agr_profiles, tolerance = tol, info = info)
      if (!is.null(a$cp_profiles)) expect_equal(a$cp_profiles, b$cp_profiles, tolerance = tol, info = info)
    }
  }
  # PD without curves: the set walk's weighted sums at the leaves, the same
  # for 1 and 2 threads.
  w <- seq(0.5, 2, length.out = nrow(X))
  args <- list(fit, X, N = NULL, grid_points = 7, keep_ice = FALSE, weights = w, class = class)
  a1 <- do.call(model_profile, c(args, engine = "native", threads = 1))
  a2 <- do.call(model_profile, c(args, engine = "native", threads = 2))
  b <- do.call(model_profile, c(args, engine = "predict"))
  expect_identical(a1$engine, "native")
  expect_identical(a1$agr_profiles, a2$agr_profiles)
  expect_equal(a1$agr_profiles, b$agr_profiles, tolerance = tol, info = "partial, weighted, no curves")
  for (type in c("partial", "accumulated")) {
    a <- model_profile_2d(fit, X, variables = c("a", "b"), type = type, N = NULL,
                          grid_points = 5, grid = profile_grids(intervals = 4), class = class, engine = "native")
    b <- model_profile_2d(fit, X, variables = c("a", "b"), type = type, N = NULL,
                          grid_points = 5, grid = profile_grids(intervals = 4), class = class, engine = "predict")
    expect_equal(a$agr_profiles, b$agr_profiles, tolerance = tol, info = type)
  }
}

# PD of variable v from the model's own predictions (`own(newdata)`: a
# matrix with a column per class, named, or a vector), per class.
brute_pd <- function(own, X, v, grid) {
  out <- lapply(grid, function(z) {
    Xz <- X
    Xz[[v]] <- z
    p <- own(Xz)
    if (is.null(dim(p))) mean(p) else colMeans(p)
  })
  do.call(rbind, out)
}

pd_by_class <- function(res, v) {
  d <- res$agr_profiles[res$agr_profiles$`_vname_` == v, ]
  split(d$`_yhat_`, factor(d$`_label_`, levels = res$labels))
}

test_that("ranger on a numeric 0/1 response whose first row is class 1: labels are the model's classes", {
  skip_if_not_installed("ranger")
  d <- agreement_data()
  y <- as.integer(d$eta > 0)
  y[1] <- 1L
  fit <- ranger::ranger(x = d$X, y = y, probability = TRUE, num.trees = 25, num.threads = 1, seed = 3)
  expect_identical(fit$forest$class.values[1], 1)
  expect_identical(model_adapter(fit)$classes, c("1", "0"))
  # The default profiles class "1" in both engines (PD native, AL predict).
  pd <- model_profile(fit, d$X, variables = "a", N = NULL, grid_points = 6)
  al <- model_profile(fit, d$X, variables = "a", N = NULL, type = "accumulated", engine = "predict")
  expect_identical(pd$engine, "native")
  expect_identical(al$engine, "predict")
  expect_identical(pd$class, "1")
  expect_identical(al$class, "1")
  grid <- pd$grids$a
  own <- function(nd) predict(fit, nd, num.threads = 1)$predictions
  ref <- brute_pd(own, d$X, "a", grid)
  # ranger's first column is class 1 (first appearance).
  expect_equal(pd$agr_profiles$`_yhat_`, ref[, 1], tolerance = 1e-12)
  # class = "0" is accepted and is the other column.
  p0 <- model_profile(fit, d$X, variables = "a", N = NULL, grid_points = 6, class = "0")
  expect_equal(p0$agr_profiles$`_yhat_`, ref[, 2], tolerance = 1e-12)
  # Rising in a (class 1 is more likely for larger a) in both engines.
  expect_gt(diff(range(pd$agr_profiles$`_yhat_`)), 0.05)
  expect_gt(tail(pd$agr_profiles$`_yhat_`, 1), pd$agr_profiles$`_yhat_`[1])
  expect_gt(tail(al$agr_profiles$`_yhat_`, 1), al$agr_profiles$`_yhat_`[1])
  # Two results of one model compare without a false distance.
  expect_engines_agree(fit, d$X)
  expect_engines_agree(fit, d$X, class = c("0", "1"))
})

test_that("ranger on 0/1/2 and factor responses: every class in both engines, by name", {
  skip_if_not_installed("ranger")
  d <- agreement_data()
  y3 <- cut(d$eta, c(-Inf, -0.5, 0.5, Inf), labels = FALSE) - 1L
  y3[1] <- 2L
  fit <- ranger::ranger(x = d$X, y = y3, probability = TRUE, num.trees = 25, num.threads = 1, seed = 3)
  classes <- model_adapter(fit)$classes
  expect_identical(classes, as.character(fit$forest$class.values))
  expect_identical(classes[1], "2")
  pd <- model_profile(fit, d$X, variables = "b", N = NULL, grid_points = 5)
  expect_identical(pd$class, classes)
  own <- function(nd) predict(fit, nd, num.threads = 1)$predictions
  ref <- brute_pd(own, d$X, "b", pd$grids$b)
  got <- pd_by_class(pd, "b")
  for (k in seq_along(classes)) expect_equal(got[[k]], ref[, k], tolerance = 1e-12)
  expect_engines_agree(fit, d$X)
  # A factor response whose first row is its last level.
  yf <- factor(c("lo", "mid", "hi")[y3 + 1L], levels = c("lo", "mid", "hi"))
  fitf <- ranger::ranger(x = d$X, y = yf, probability = TRUE, num.trees = 25, num.threads = 1, seed = 3)
  expect_identical(model_adapter(fitf)$classes, levels(yf))
  expect_identical(model_adapter(fitf)$classes, colnames(predict(fitf, d$X[1:2, ])$predictions))
  expect_engines_agree(fitf, d$X, class = c("hi", "lo"))
})

test_that("randomForest: regression and classification agree across engines", {
  skip_if_not_installed("randomForest")
  d <- agreement_data()
  set.seed(2)
  rf <- randomForest::randomForest(x = d$X, y = d$eta, ntree = 15)
  expect_engines_agree(rf, d$X)
  yf <- factor(ifelse(d$eta > 0, "yes", "no"), levels = c("yes", "no"))
  yf[1] <- "no"
  rfc <- randomForest::randomForest(x = d$X, y = yf, ntree = 15)
  expect_identical(model_adapter(rfc)$classes, c("yes", "no"))
  pd <- model_profile(rfc, d$X, variables = "c", N = NULL, grid_points = 5)
  expect_identical(pd$class, "no")
  ref <- brute_pd(function(nd) predict(rfc, nd, type = "prob"), d$X, "c", pd$grids$c)
  expect_equal(pd$agr_profiles$`_yhat_`, ref[, "no"], tolerance = 1e-12)
  expect_engines_agree(rfc, d$X)
})

test_that("gbm: gaussian, bernoulli and multinomial agree across engines", {
  skip_if_not_installed("gbm")
  d <- agreement_data()
  df <- cbind(d$X, y = d$eta)
  set.seed(4)
  g <- gbm::gbm(y ~ a + b + c, data = df, distribution = "gaussian", n.trees = 20,
                interaction.depth = 2, bag.fraction = 1, n.minobsinnode = 5)
  expect_engines_agree(g, d$X)
  df$y <- as.integer(d$eta > 0)
  gb <- gbm::gbm(y ~ a + b + c, data = df, distribution = "bernoulli", n.trees = 20,
                 interaction.depth = 2, bag.fraction = 1, n.minobsinnode = 5)
  expect_engines_agree(gb, d$X)
  df$y <- factor(cut(d$eta, c(-Inf, -0.5, 0.5, Inf), labels = c("u", "v", "w")))
  gm <- suppressWarnings(gbm::gbm(y ~ a + b + c, data = df, distribution = "multinomial",
                                  n.trees = 15, interaction.depth = 2, bag.fraction = 1,
                                  n.minobsinnode = 5))
  expect_identical(model_adapter(gm)$classes, c("u", "v", "w"))
  pd <- model_profile(gm, d$X, variables = "a", N = NULL, grid_points = 4)
  expect_identical(pd$class, c("u", "v", "w"))
  expect_engines_agree(gm, d$X)
})

test_that("xgboost: regression, binary:logistic and multi:softprob agree to float precision", {
  skip_if_not_installed("xgboost")
  d <- agreement_data()
  X <- as.matrix(d$X)
  fit <- function(label, ...) {
    xgboost::xgb.train(params = list(max_depth = 3, eta = 0.3, nthread = 1, ...),
                       data = xgboost::xgb.DMatrix(X, label = label), nrounds = 15, verbose = 0)
  }
  # xgboost predicts in single precision: the engines agree to float
  # rounding of the leaf sums (about 1e-7 relative).
  expect_engines_agree(fit(d$eta, objective = "reg:squarederror"), d$X, tol = 1e-6)
  expect_engines_agree(fit(as.numeric(d$eta > 0), objective = "binary:logistic"), d$X, tol = 1e-6)
  y3 <- cut(d$eta, c(-Inf, -0.5, 0.5, Inf), labels = FALSE) - 1
  m <- fit(y3, objective = "multi:softprob", num_class = 3)
  expect_identical(model_adapter(m)$classes, c("0", "1", "2"))
  pd <- model_profile(m, d$X, variables = "a", N = NULL, grid_points = 4, engine = "predict")
  expect_identical(pd$class, c("0", "1", "2"))
  ref <- brute_pd(function(nd) predict(m, as.matrix(nd), reshape = TRUE), d$X, "a", pd$grids$a)
  got <- pd_by_class(pd, "a")
  for (k in 1:3) expect_equal(got[[k]], ref[, k], tolerance = 1e-12)
  expect_engines_agree(m, d$X, tol = 1e-6)
})

test_that("lm and glm (binomial, poisson, Gamma): the linear engine equals predict()", {
  d <- agreement_data()
  df <- cbind(d$X, y = d$eta)
  lin <- lm(y ~ a * b + c, data = df)
  for (fit in list(
    lin,
    glm(I(y > 0) ~ a + b + c, data = df, family = binomial),
    glm(rpois(nrow(df), exp(0.3 * y)) ~ a + b * c, data = df, family = poisson),
    glm(rgamma(nrow(df), 2, 2 / exp(0.2 * y)) ~ a + b, data = df, family = Gamma(link = "log"))
  )) {
    a <- model_profile(fit, d$X, N = NULL, grid_points = 9, engine = "native")
    b <- model_profile(fit, d$X, N = NULL, grid_points = 9, engine = "predict")
    expect_identical(a$engine, "native")
    expect_identical(a$labels, b$labels)
    expect_equal(a$agr_profiles, b$agr_profiles, tolerance = 1e-12)
    expect_equal(a$cp_profiles, b$cp_profiles, tolerance = 1e-12)
    pf <- default_predict_function(fit)
    ref <- brute_pd(function(nd) pf(fit, nd), d$X, "b", a$grids$b)
    got <- pd_by_class(a, "b")[[1]]
    expect_equal(got, if (is.matrix(ref) && ncol(ref) == 2) ref[, 2] else as.vector(ref), tolerance = 1e-12)
  }
  bin <- glm(I(y > 0) ~ a + b + c, data = df, family = binomial)
  expect_identical(model_profile(bin, d$X, variables = "a", grid_points = 3)$class, "TRUE")
})

test_that("lightgbm: regression, binary and multiclass agree exactly across engines", {
  skip_if_not_installed("lightgbm")
  d <- agreement_data()
  M <- as.matrix(d$X)
  fit <- function(label, ...) {
    lightgbm::lgb.train(params = list(num_leaves = 7, min_data_in_leaf = 5, verbose = -1,
                                      num_threads = 1, ...),
                        data = lightgbm::lgb.Dataset(M, label = label), nrounds = 10)
  }
  # lightgbm predicts in double precision, in the order the converter sums.
  expect_engines_agree(fit(d$eta, objective = "regression"), d$X)
  expect_engines_agree(fit(as.numeric(d$eta > 0), objective = "binary"), d$X)
  y3 <- cut(d$eta, c(-Inf, -0.5, 0.5, Inf), labels = FALSE) - 1
  m <- fit(y3, objective = "multiclass", num_class = 3)
  expect_identical(model_adapter(m)$classes, c("0", "1", "2"))
  pd <- model_profile(m, d$X, variables = "c", N = NULL, grid_points = 4)
  expect_identical(pd$engine, "native")
  ref <- brute_pd(function(nd) predict(m, as.matrix(nd)), d$X, "c", pd$grids$c)
  got <- pd_by_class(pd, "c")
  for (k in 1:3) expect_equal(got[[k]], ref[, k], tolerance = 1e-12)
  expect_engines_agree(m, d$X)
})
