# Adapters of models inside frameworks (R/adapter_frameworks.R): the adapter
# names the model inside and says why the native engine does not stand in.

test_that("the adapter of a framework's model names the model inside and why it is not native", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("ranger")
  d <- frame_data()
  fit <- parsnip::fit(parsnip::set_engine(parsnip::rand_forest(mode = "regression", trees = 5), "ranger"),
                      y ~ a + b + c, data = d)
  ad <- model_adapter(fit)
  expect_true(ad$native)
  expect_true(ad$tree)
  expect_s3_class(ad$inner$model, "ranger")
  expect_null(ad$inner$why)
  expect_output(print(ad), "compiled trees of the <ranger> inside")
  # The forest's own bands come from the forest inside.
  fi <- parsnip::fit(parsnip::set_engine(parsnip::rand_forest(mode = "regression", trees = 10), "ranger",
                                         keep.inbag = TRUE, seed = 1), y ~ a + b + c, data = d)
  X <- d[c("a", "b", "c")]
  cols <- c("_yhat_", "_lower_", "_upper_")
  p <- model_profile(fi, X, variables = "a", N = NULL, grid_points = 4, bands = "infjack")
  q <- model_profile(fi$fit, X, variables = "a", N = NULL, grid_points = 4, bands = "infjack")
  expect_equal(p$agr_profiles[cols], q$agr_profiles[cols], tolerance = 1e-12)
  # A glm inside is not compiled: the reason is given.
  spec <- parsnip::set_engine(parsnip::logistic_reg(), "glm")
  gl <- parsnip::fit(spec, cls ~ a + b + c, data = d)
  expect_false(model_adapter(gl)$native)
  expect_match(model_adapter(gl)$inner$why, "<glm>")
  expect_output(print(model_adapter(gl)), "not native")
})
