# Adapters of tree ensembles (R/adapter_trees.R): predictions equal the
# model's own predict(); helpers against plain values.

test_that("ranger regression and probability forests predict as predict()$predictions", {
  skip_if_not_installed("ranger")
  set.seed(1)
  f <- ranger::ranger(mpg ~ ., data = mtcars, num.trees = 20, num.threads = 1)
  a <- model_adapter(f)
  expect_equal(as.vector(a$predict(f, mtcars)),
               predict(f, mtcars, num.threads = 1)$predictions, tolerance = 1e-12)
  pf <- ranger::ranger(Species ~ ., data = iris, num.trees = 20, probability = TRUE, num.threads = 1)
  a <- model_adapter(pf)
  expect_identical(a$task, "classification")
  p <- a$predict(pf, iris)
  expect_equal(unname(as.matrix(p)), unname(predict(pf, iris, num.threads = 1)$predictions), tolerance = 1e-12)
})

test_that("randomForest regression predicts as predict()", {
  skip_if_not_installed("randomForest")
  set.seed(1)
  f <- randomForest::randomForest(mpg ~ ., data = mtcars, ntree = 20)
  expect_equal(as.vector(model_adapter(f)$predict(f, mtcars)), unname(predict(f, mtcars)))
})

test_that("boosting_iterations(): the best iteration when set, else all", {
  expect_equal(boosting_iterations(NULL, 50), c(used = 50L, fitted = 50L))
  expect_equal(boosting_iterations(20, 50), c(used = 20L, fitted = 50L))
  expect_equal(boosting_iterations(80, 50), c(used = 50L, fitted = 50L))
  expect_null(boosting_iterations(5, NULL))
  expect_null(boosting_iterations(5, 0))
})

test_that("JSON fields and feature columns are read by name", {
  json <- '{"learner":{"objective":{"name":"reg:squarederror"},"num_class":"3"}}'
  expect_identical(json_field(json, "num_class"), "3")
  expect_identical(json_field(json, "objective", object = TRUE), "reg:squarederror")
  expect_identical(json_field(json, "absent"), NA_character_)
  expect_identical(json_field(json, "absent", object = TRUE), NA_character_)
  # No configuration (xgboost absent or unreadable): NA.
  expect_identical(json_field(NA_character_, "num_class"), NA_character_)
  expect_identical(feature_columns(c("cutVery_Good", "x"), c("x", "cutVery Good")),
                   c("cutVery Good", "x"))
  X <- data.frame(b = 1:2, a = 3:4)
  expect_equal(feature_matrix(X, c("a", "b"), "booster"), as.matrix(X[c("a", "b")]))
  expect_error(feature_matrix(X, c("a", "q"), "booster"), "q")
})

test_that("xgboost regression predicts as predict()", {
  skip_if_not_installed("xgboost")
  X <- as.matrix(mtcars[-1])
  set.seed(1)
  b <- xgboost::xgboost(data = X, label = mtcars$mpg, nrounds = 5, verbose = 0, nthread = 1)
  expect_equal(as.vector(model_adapter(b)$predict(b, as.data.frame(X))), predict(b, X), tolerance = 1e-6)
})

test_that("the adapters carry the families' facts: native rows, in-bag counts, all columns", {
  skip_if_not_installed("ranger")
  skip_if_not_installed("randomForest")
  set.seed(1)
  rg <- ranger::ranger(mpg ~ ., data = mtcars, num.trees = 5, keep.inbag = TRUE, num.threads = 1)
  a <- model_adapter(rg)
  expect_identical(a$native_min_rows, 0)
  expect_true(a$all_columns)
  expect_identical(a$inbag_counts(rg), rg$inbag.counts)
  expect_length(a$inbag_counts(rg), 5L)
  rf <- randomForest::randomForest(mpg ~ ., data = mtcars, ntree = 5, keep.inbag = TRUE)
  a <- model_adapter(rf)
  expect_true(a$all_columns)
  expect_identical(dim(a$inbag_counts(rf)), c(32L, 5L))
  rf0 <- randomForest::randomForest(mpg ~ ., data = mtcars, ntree = 5)
  expect_null(model_adapter(rf0)$inbag_counts(rf0))
  lin <- model_adapter(lm(mpg ~ wt, mtcars))
  expect_null(lin$inbag_counts)
  expect_false(lin$all_columns)
  expect_identical(lin$native_min_rows, 0)
})

test_that("lightgbm's adapter compiles from 2000 stacked rows (engine = \"auto\")", {
  skip_if_not_installed("lightgbm")
  X <- as.matrix(mtcars[-1])
  b <- lightgbm::lgb.train(params = list(objective = "regression", num_leaves = 4, min_data_in_leaf = 5,
                                         verbose = -1, num_threads = 1),
                           data = lightgbm::lgb.Dataset(X, label = mtcars$mpg), nrounds = 3)
  expect_identical(model_adapter(b)$native_min_rows, 2000)
})
