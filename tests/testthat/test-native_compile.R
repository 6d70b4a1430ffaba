# Compiling models for the native engine (R/native_compile.R): a compiled
# model predicts as the model, and compile_model() lets calls share it.

test_that("compile_model() of a ranger forest gives the profiles of predict()", {
  skip_if_not_installed("ranger")
  set.seed(4)
  f <- ranger::ranger(mpg ~ wt + hp + qsec, data = mtcars, num.trees = 25, num.threads = 1)
  X <- mtcars[c("wt", "hp", "qsec")]
  cm <- compile_model(f)
  expect_s3_class(cm, "mp_compiled")
  expect_output(print(cm))
  a <- model_profile(cm, X, variables = "wt", N = NULL, grid_points = 6, engine = "native")
  b <- model_profile(f, X, variables = "wt", N = NULL, grid_points = 6, engine = "predict")
  expect_identical(a$engine, "native")
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-10)
})
