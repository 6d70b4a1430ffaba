# The native engine's set walk at observed points (R/engine_native_observed.R,
# inst/include/modelprofiles/observed.h): its sums against the full table
# of the model's own predict(), for one and two free variables, the
# identity and other transforms, missing values and factors; the same
# numbers for 1 and 2 threads.

# The sums of the set walk at observed points (native_observed_sums())
# against the full table of the model's own predict(): every row with the
# columns js set to every point, P x n predictions.
observed_reference <- function(predict_fun, X, js, pts, w, v) {
  n <- nrow(X)
  P <- nrow(pts)
  stacked <- X[rep(seq_len(n), each = P), , drop = FALSE]
  for (q in seq_along(js)) stacked[[js[q]]] <- pts[[q]][rep(seq_len(P), times = n)]
  y <- as.matrix(predict_fun(stacked))
  lapply(seq_len(ncol(y)), function(k) {
    Y <- matrix(y[, k], P, n)  # point x row
    list(points = as.vector(Y %*% w), rows = as.vector(crossprod(Y, v)))
  })
}

# (xgboost's predict() returns single-precision predictions: tol 1e-6.)
expect_observed <- function(nm, predict_fun, X, js, w, v, pairs_only = FALSE, tol = 1e-12) {
  pts <- unique(X[js])
  Xn <- native_columns(nm, X)
  k <- match(js, nm$features)
  z <- lapply(seq_along(js), function(q) native_column(nm, k[q], pts[[q]], X[[js[q]]]))
  vv <- if (pairs_only) NULL else v[seq_len(nrow(pts))]
  got1 <- native_observed_sums(nm, Xn, seq_len(nrow(X)), w, k, z, vv, 1L)
  got2 <- native_observed_sums(nm, Xn, seq_len(nrow(X)), w, k, z, vv, 2L)
  # The same numbers for any number of threads.
  expect_identical(got1, got2)
  ref <- observed_reference(predict_fun, X, js, pts, w, v[seq_len(nrow(pts))])
  for (c in seq_along(ref)) {
    scale <- sum(w) * max(1, abs(ref[[c]]$points))
    expect_lt(max(abs(got1$points[, c] - ref[[c]]$points)) / scale, tol)
    if (!pairs_only) {
      expect_lt(max(abs(got1$rows[, c] - ref[[c]]$rows)) / (sum(vv) * max(1, abs(ref[[c]]$rows))), tol)
    }
  }
}

test_that("the set walk at observed points equals the model's own predictions (ranger, regression and probabilities)", {
  skip_if_not_installed("ranger")
  set.seed(11)
  n <- 60
  X <- data.frame(a = round(rnorm(n), 1), b = runif(n), c = rnorm(n), f = factor(sample(letters[1:4], n, TRUE)))
  y <- X$a * X$b + (X$f %in% c("a", "c")) * X$c + rnorm(n, sd = 0.2)
  w <- runif(n, 0.5, 2)
  v <- runif(n, 0.1, 3)
  fit <- ranger::ranger(x = X, y = y, num.trees = 25, seed = 1, num.threads = 1,
                        respect.unordered.factors = "partition")
  nm <- native_compile(fit)
  pf <- function(d) predict(fit, d, num.threads = 1)$predictions
  expect_observed(nm, pf, X, "a", w, v)
  expect_observed(nm, pf, X, "f", w, v)
  expect_observed(nm, pf, X, c("a", "b"), w, v)
  expect_observed(nm, pf, X, c("c", "f"), w, v, pairs_only = TRUE)
  cls <- factor(ifelse(y > 0.5, "hi", ifelse(y < -0.5, "lo", "mid")))
  pr <- ranger::ranger(x = X, y = cls, num.trees = 20, probability = TRUE, seed = 1, num.threads = 1)
  nmp <- native_compile(pr)
  pfp <- function(d) predict(pr, d, num.threads = 1)$predictions[, nmp$outputs]
  expect_observed(nmp, pfp, X, "b", w, v)
  expect_observed(nmp, pfp, X, c("a", "c"), w, v, pairs_only = TRUE)
})

test_that("the set walk at observed points sends missing values to the missing child and finishes other transforms (gbm)", {
  skip_if_not_installed("gbm")
  set.seed(12)
  n <- 50
  X <- data.frame(a = round(rnorm(n), 1), b = runif(n), c = rnorm(n))
  X$a[c(3, 9, 20)] <- NA
  X$c[c(5, 9)] <- NA
  w <- runif(n, 0.5, 2)
  v <- runif(n, 0.1, 3)
  d <- cbind(X, y = X$b + ifelse(is.na(X$a), 1, X$a) * X$b + rnorm(n, sd = 0.2))
  g <- gbm::gbm(y ~ ., data = d, distribution = "gaussian", n.trees = 30, interaction.depth = 3,
                shrinkage = 0.2, bag.fraction = 1, n.minobsinnode = 3)
  nm <- native_compile(g)
  pf <- function(dd) predict(g, dd, n.trees = 30)
  expect_observed(nm, pf, X, "a", w, v)
  expect_observed(nm, pf, X, c("a", "c"), w, v)
  d$y <- as.integer(d$y > median(d$y))
  gb <- gbm::gbm(y ~ ., data = d, distribution = "bernoulli", n.trees = 30, interaction.depth = 3,
                 shrinkage = 0.2, bag.fraction = 1, n.minobsinnode = 3)
  nmb <- native_compile(gb)
  pfb <- function(dd) predict(gb, dd, n.trees = 30, type = "response")
  expect_observed(nmb, pfb, X, "a", w, v)
  expect_observed(nmb, pfb, X, "c", w, v)
  expect_observed(nmb, pfb, X, c("a", "b"), w, v, pairs_only = TRUE)
})

test_that("the set walk at observed points equals xgboost's own predictions (single precision, missing values, softmax)", {
  skip_if_not_installed("xgboost")
  set.seed(14)
  n <- 50
  X <- data.frame(a = round(rnorm(n), 1), b = runif(n), c = rnorm(n))
  X$a[c(2, 11)] <- NA
  X$c[7] <- NA
  M <- as.matrix(X)
  w <- runif(n, 0.5, 2)
  v <- runif(n, 0.1, 3)
  y <- ifelse(is.na(X$a), 0, X$a) * X$b + rnorm(n, sd = 0.2)
  xr <- xgboost::xgb.train(params = list(max_depth = 3, eta = 0.3, nthread = 1),
                           data = xgboost::xgb.DMatrix(M, label = y), nrounds = 15)
  pf <- function(d) predict(xr, as.matrix(d))
  nm <- native_compile(xr)
  expect_observed(nm, pf, X, "a", w, v, tol = 1e-6)
  expect_observed(nm, pf, X, c("a", "c"), w, v, tol = 1e-6)
  xb <- xgboost::xgb.train(params = list(max_depth = 3, eta = 0.3, nthread = 1, objective = "binary:logistic"),
                           data = xgboost::xgb.DMatrix(M, label = as.integer(y > median(y))), nrounds = 15)
  nmb <- native_compile(xb)
  pfb <- function(d) predict(xb, as.matrix(d))
  expect_observed(nmb, pfb, X, "c", w, v, tol = 1e-6)
  expect_observed(nmb, pfb, X, c("a", "b"), w, v, pairs_only = TRUE, tol = 1e-6)
  xm <- xgboost::xgb.train(params = list(max_depth = 2, eta = 0.3, nthread = 1, objective = "multi:softprob", num_class = 3),
                           data = xgboost::xgb.DMatrix(M, label = as.integer(cut(y, 3)) - 1L), nrounds = 10)
  nmm <- native_compile(xm)
  pfm <- function(d) matrix(predict(xm, as.matrix(d)), ncol = 3, byrow = TRUE)
  expect_observed(nmm, pfm, X, "a", w, v, tol = 1e-6)
})
