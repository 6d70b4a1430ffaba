# model_profile() (R/model_profile.R): the entry point's PD and ICE against
# plain R over the model's own predict(), its arguments and its result.

test_that("PD and ICE of an lm equal plain-R means of predict() at the grid", {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  res <- model_profile(fit, X, variables = "wt", N = NULL, grid_points = 7)
  expect_s3_class(res, "mp_profile")
  grid <- res$grids[["wt"]]
  expect_length(grid, 7L)
  ice <- vapply(grid, function(z) {
    d <- X
    d$wt <- z
    predict(fit, d)
  }, numeric(nrow(X)))
  agr <- res$agr_profiles
  expect_equal(agr$`_x_`, grid)
  expect_equal(agr$`_yhat_`, colMeans(ice), tolerance = 1e-10)
  expect_identical(unique(agr$`_vname_`), "wt")
  expect_identical(unique(agr$`_label_`), "lm")
})

test_that("label, variables and N are honoured; the call is kept", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  res <- model_profile(fit, X, variables = c("hp", "wt"), label = "mine", N = 10, grid_points = 5)
  expect_setequal(unique(res$agr_profiles$`_vname_`), c("hp", "wt"))
  expect_identical(unique(res$agr_profiles$`_label_`), "mine")
  expect_true(is.call(res$call))
  # An additive model: the PD of wt is the line of its coefficient.
  a <- res$agr_profiles[res$agr_profiles$`_vname_` == "wt", ]
  expect_equal(diff(a$`_yhat_`) / diff(a$`_x_`), rep(coef(fit)[["wt"]], 4), tolerance = 1e-10)
})

test_that("N rows are sampled reproducibly under a seed", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  set.seed(1)
  a <- model_profile(fit, X, variables = "wt", N = 12)
  set.seed(1)
  b <- model_profile(fit, X, variables = "wt", N = 12)
  expect_identical(a$agr_profiles, b$agr_profiles)
})

test_that("errors name the argument", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  expect_error(model_profile(fit, mtcars[c("wt", "hp")], variables = "nope"), "nope")
  expect_error(model_profile(fit, mtcars[c("wt", "hp")], type = "nope"), "type")
})
