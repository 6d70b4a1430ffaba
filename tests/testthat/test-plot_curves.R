# Centring and ICE curves of the plot data (R/plot_curves.R): anchors as
# plain R takes them, centred curves start at 0 with the model's slopes.

test_that("curve_anchors(): mean, first, middle and interpolation at a value", {
  Y <- cbind(c(1, 2, 4), c(0, 3, 9))
  x <- c(0, 1, 3)
  expect_equal(curve_anchors(Y, x, "mean"), colMeans(Y))
  expect_equal(curve_anchors(Y, x, "first"), Y[1, ])
  expect_equal(curve_anchors(Y, x, "middle"), Y[2, ])
  expect_equal(curve_anchors(Y, x, 2), c(3, 6))
})

test_that("centred ICE curves start at 0 and keep their differences", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, variables = "wt", N = NULL)
  d <- profile_plot_data(list(pd), "profiles", NULL, "first", max_curves = 5, rug = FALSE)
  expect_equal(length(unique(d$curves$`_ids_`)), 5)
  first <- d$curves[!duplicated(d$curves$`_ids_`), ]
  expect_equal(first$`_yhat_`, rep(0, 5), tolerance = 1e-12)
  # Slopes of each curve are those of the model at its row.
  for (id in unique(d$curves$`_ids_`)) {
    cur <- d$curves[d$curves$`_ids_` == id, ]
    hp <- X$hp[as.integer(id)]
    slope <- coef(fit)[["wt"]] + coef(fit)[["wt:hp"]] * hp
    expect_equal(diff(cur$`_yhat_`) / diff(cur$`_x_`), rep(slope, nrow(cur) - 1), tolerance = 1e-8)
  }
})
