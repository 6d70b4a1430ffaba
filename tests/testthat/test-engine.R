# The engine as a plan (R/engine.R): request_engine() alone decides which
# engine makes a request's predictions, from the setup's engines and what
# the request allows.

test_that("request_engine(): native for trees, linear for a linear variable's curves, else predict()", {
  skip_if_not_installed("randomForest")
  d <- parallel_data(120)
  X <- d$X
  fit_lm <- lm(y ~ a + b + f + log(i), cbind(X, y = d$y))
  inputs <- setup_inputs(fit_lm, X, NULL, NULL, NULL, 1L, 8, environment())
  rows <- seq_len(nrow(X))
  lin <- new_setup(inputs, rows, engine = "auto", linear = TRUE)
  expect_identical(linear_model(fit_lm)$variables, c("a", "b"))
  # The linear engine gives ICE curves of one of its variables, when the
  # request allows them; nothing else.
  expect_identical(request_engine(lin), "predict")
  expect_identical(request_engine(lin, linear = TRUE), "linear")
  expect_identical(request_engine(lin, linear = TRUE, cols = 2L), "linear")
  expect_identical(request_engine(lin, native = FALSE, linear = TRUE, cols = 1L), "linear")
  # i enters through log(i), f as a factor; two columns are not one
  # variable's curves.
  expect_identical(request_engine(lin, linear = TRUE, cols = 4L), "predict")
  expect_identical(request_engine(lin, linear = TRUE, cols = 3L), "predict")
  expect_identical(request_engine(lin, linear = TRUE, cols = 1:2), "predict")
  expect_true(linear_identity(lin))
  # engine = "predict": neither.
  pred <- new_setup(inputs, rows, engine = "predict", linear = TRUE)
  expect_identical(request_engine(pred, linear = TRUE, cols = 1L), "predict")
  expect_false(linear_identity(pred))
  # A forest: the native engine for every request that allows it.
  set.seed(1)
  rf <- randomForest::randomForest(X, d$y, ntree = 5)
  nat <- new_setup(setup_inputs(rf, X, NULL, NULL, NULL, 1L, 8, environment()), rows, engine = "native")
  expect_identical(request_engine(nat), "native")
  expect_identical(request_engine(nat, linear = TRUE, cols = 1L), "native")
  expect_identical(request_engine(nat, native = FALSE, linear = TRUE, cols = 1L), "predict")
})

test_that("row order: observation order for trees, direct engines and small backgrounds", {
  X <- data.frame(a = rnorm(3000), b = rnorm(3000))
  fit <- lm(a ~ b, X)
  s <- test_setup(fit, function(m, nd) predict(m, nd), X)
  expect_identical(row_order(s, 3000), "grid")
  expect_identical(row_order(s, grid_order_rows - 1), "observation")
  # The linear engine's curves, where the request allows them, are made in
  # observation order; a request that does not allow them predicts.
  lin <- new_setup(setup_inputs(fit, X, NULL, NULL, NULL, 1L, 256, environment()), seq_len(3000),
                   engine = "auto", linear = TRUE)
  expect_identical(request_engine(lin, linear = TRUE), "linear")
  expect_identical(row_order(lin, 3000, linear = TRUE), "observation")
  expect_identical(row_order(lin, 3000), "grid")
  expect_identical(request_chunk_rows(lin, linear = TRUE), lin$chunk_rows_direct)
  expect_identical(request_chunk_rows(lin), lin$chunk_rows_predict)
  old <- options(modelprofiles.row_order = "observation")
  on.exit(options(old))
  expect_identical(row_order(s, 3000), "observation")
})
