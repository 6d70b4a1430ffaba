# Plot data of profiles (R/plot_data.R): what is drawn is the result's
# numbers, the rug is the observed values.

test_that("the aggregates drawn are the result's profiles", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, variables = c("wt", "hp"), N = NULL)
  d <- profile_plot_data(list(pd), "aggregates", NULL, NULL, 10, rug = TRUE)
  ref <- pd$agr_profiles
  k <- match(paste(ref$`_vname_`, ref$`_x_`), paste(d$agr$`_vname_`, d$agr$`_x_`))
  expect_false(anyNA(k))
  expect_equal(d$agr$`_yhat_`[k], ref$`_yhat_`, tolerance = 1e-12)
  expect_true(d$numeric_x)
  expect_equal(nrow(d$rug), 2 * nrow(X))
  expect_setequal(d$rug$`_x_`[d$rug$`_vname_` == "wt"], X$wt)
})
