test_that("default predictions: lm and glm on the response scale", {
  fit <- glm(am ~ wt + hp, data = mtcars, family = binomial)
  X <- mtcars[c("wt", "hp")]
  res <- model_profile(fit, X, variables = "wt", grid_points = 5)
  expect_equal(res$agr_profiles$`_yhat_`,
               ref_pd(function(d) predict(fit, d, type = "response"), X, "wt", res$grids$wt),
               tolerance = 1e-12)
  expect_true(all(res$agr_profiles$`_yhat_` > 0 & res$agr_profiles$`_yhat_` < 1))
  expect_equal(res$label, "glm")
})

test_that("default predictions: ranger regression and probability forests", {
  skip_if_not_installed("ranger")
  set.seed(1)
  d <- data.frame(y = rnorm(100), a = rnorm(100), b = rnorm(100))
  fit <- ranger::ranger(y ~ ., data = d, num.trees = 20, num.threads = 1, seed = 1)
  X <- d[c("a", "b")]
  res <- model_profile(fit, X, variables = "a", grid_points = 6)
  expect_equal(res$agr_profiles$`_yhat_`,
               ref_pd(function(nd) predict(fit, nd, num.threads = 1)$predictions, X, "a", res$grids$a),
               tolerance = 1e-12)
  d$c <- factor(ifelse(d$a + rnorm(100) > 0, "yes", "no"))
  fit <- ranger::ranger(c ~ a + b, data = d, num.trees = 20, probability = TRUE, num.threads = 1, seed = 1)
  res <- model_profile(fit, X, variables = "a", grid_points = 6)
  expect_equal(res$agr_profiles$`_yhat_`,
               ref_pd(function(nd) predict(fit, nd, num.threads = 1)$predictions[, 2], X, "a", res$grids$a),
               tolerance = 1e-12)
  fit <- ranger::ranger(c ~ a + b, data = d, num.trees = 5, num.threads = 1)
  expect_error(model_profile(fit, X), "probability = TRUE")
})

test_that("default predictions: randomForest and gbm", {
  skip_if_not_installed("randomForest")
  set.seed(2)
  d <- data.frame(a = rnorm(80), b = rnorm(80))
  d$y <- factor(ifelse(d$a > 0, "p", "n"))
  fit <- randomForest::randomForest(y ~ a + b, data = d, ntree = 20)
  X <- d[c("a", "b")]
  res <- model_profile(fit, X, variables = "a", grid_points = 4)
  expect_equal(res$agr_profiles$`_yhat_`,
               ref_pd(function(nd) predict(fit, nd, type = "prob")[, 2], X, "a", res$grids$a))
  skip_if_not_installed("gbm")
  d$z <- d$a * 2 + rnorm(80)
  g <- gbm::gbm(z ~ a + b, data = d, distribution = "gaussian", n.trees = 30,
                interaction.depth = 2, n.minobsinnode = 5)
  res <- model_profile(g, X, variables = "b", grid_points = 4)
  expect_equal(res$agr_profiles$`_yhat_`,
               ref_pd(function(nd) predict(g, nd, n.trees = 30), X, "b", res$grids$b))
})

test_that("a two-column probability matrix gives the second class", {
  X <- data.frame(a = 1:10 / 10, b = 1)
  pf <- function(m, newdata) cbind(no = 1 - newdata$a, yes = newdata$a)
  res <- model_profile(NULL, X, predict_function = pf, variables = "a", grid_points = 3)
  expect_equal(res$agr_profiles$`_yhat_`, res$grids$a)
})

test_that("default predictions: xgboost with matrix data", {
  skip_if_not_installed("xgboost")
  set.seed(3)
  m <- matrix(rnorm(300), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- m[, "a"] * 2 + m[, "b"] + rnorm(100)
  fit <- xgboost::xgboost(data = m, label = y, nrounds = 10, verbose = 0,
                          params = list(nthread = 1, max_depth = 3))
  res <- model_profile(fit, m, variables = "a", grid_points = 5)
  X <- as.data.frame(m)
  expect_equal(res$agr_profiles$`_yhat_`,
               ref_pd(function(d) predict(fit, as.matrix(d)), X, "a", res$grids$a),
               tolerance = 1e-6)
})

test_that("a predict function of the wrong length: the error names predict_function and what it must return (trial 4)", {
  fit <- lm(mpg ~ wt + hp, mtcars)
  X <- mtcars[c("wt", "hp")]
  e <- tryCatch(model_profile(fit, X, predict_function = function(m, d) predict(m)), error = function(e) e)
  msg <- cli::ansi_strip(conditionMessage(e))
  expect_match(msg, "The predict function returned 32 values for 2 rows of `newdata`.", fixed = TRUE)
  expect_match(msg, "`predict_function` must be a `function(model, newdata)` that returns one prediction per row of `newdata`",
               fixed = TRUE)
  expect_match(msg, "`predict(model)` without it returns the training rows' fitted values", fixed = TRUE)
  expect_identical(rlang::call_name(e$call), "model_profile")
  # Too few: the rule, without the hint about newdata.
  msg <- cli::ansi_strip(conditionMessage(tryCatch(model_profile(fit, X, predict_function = function(m, d) 1),
                                                   error = function(e) e)))
  expect_match(msg, "returned 1 value for 2 rows of `newdata`.*`predict_function` must be")
  expect_no_match(msg, "training rows")
})
