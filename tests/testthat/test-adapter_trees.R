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
  expect_identical(json_string_field(json, "num_class"), "3")
  expect_identical(json_object_name(json, "objective"), "reg:squarederror")
  expect_identical(json_string_field(json, "absent"), NA_character_)
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
