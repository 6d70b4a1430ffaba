# PD vs LD vs AL distances.

test_that("distances: zero for an additive linear model, LD borrows a correlated effect", {
  set.seed(71)
  x1 <- runif(400)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(400, sd = 0.1), x3 = runif(400))
  f <- function(m, nd) 2 * nd$x1 - nd$x3
  cmp <- compare_profiles(NULL, d, predict_function = f, grid_points = 21, intervals = 10)
  ds <- cmp$distances
  # Linear and additive: PD and AL are the same line.
  expect_equal(ds$pd_al, rep(0, 3), tolerance = 1e-12)
  # x2 is not in the model: PD and AL are flat; LD follows x1.
  expect_equal(ds$variable[1], "x2")
  expect_equal(ds$al_range[ds$variable == "x2"], 0)
  # The distance by hand: LD at the rows' values, centred, against a flat AL.
  ld <- cmp$profiles$ld
  a <- ld$agr_profiles[ld$agr_profiles$`_vname_` == "x2", ]
  g <- approx(a$`_x_`, a$`_yhat_`, d$x2, rule = 2)$y
  expect_equal(ds$ld_al[1], sqrt(mean((g - mean(g))^2)), tolerance = 1e-12)
  expect_equal(ds$pd_ld[1], ds$ld_al[1], tolerance = 1e-12)
  expect_gt(ds$ld_al[1], 0.3)
  expect_output(print(cmp), "ld_al")
  expect_s3_class(plot(cmp), "ggplot")
  pd <- ggplot2::layer_data(plot(cmp, geom = "distances"))
  expect_equal(nrow(pd), 9)
})

test_that("an interaction with a correlated variable separates PD from AL", {
  set.seed(72)
  x1 <- runif(500)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(500, sd = 0.05), g = factor(sample(c("a", "b"), 500, TRUE)))
  f <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "a")
  cmp <- compare_profiles(NULL, d, predict_function = f, N = 300, seed = 1)
  ds <- cmp$distances
  expect_true(all(ds$pd_al[ds$variable != "g"] > 0.01))
  # The three profiles use the same rows.
  p <- cmp$profiles
  expect_identical(p$pd$rows, p$al$rows)
  expect_identical(p$pd$rows, p$ld$rows)
  # A factor's profiles are compared level by level: here they agree.
  expect_equal(ds$pd_al[ds$variable == "g"], 0, tolerance = 1e-12)
  expect_error(compare_profiles(NULL, d, predict_function = f, foo = 1), "Unknown argument")
})
