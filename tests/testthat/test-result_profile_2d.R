# The mp_profile_2d class (R/result_profile_2d.R): its constructor and its
# plots.

test_that("2-D results round-trip through new_mp_profile_2d()", {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  p2 <- model_profile_2d(fit, X, variables = c("wt", "hp"), N = NULL, grid_points = 4)
  expect_identical(new_mp_profile_2d(unclass(p2)), p2)
  expect_error(new_mp_profile_2d(list(agr_profiles = p2$agr_profiles)), "lacks type, pairs")
})

test_that("2-D plots: tiles cover the grid, contours, factors", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  r <- model_profile_2d(fit, X, variables = c("wt", "hp"), grid_points = 5)
  p <- plot(r)
  tiles <- ggplot2::layer_data(p, 1)
  expect_equal(nrow(tiles), 25)
  expect_equal(sort(tiles$xmin[tiles$ymin == min(tiles$ymin)])[-1],
               sort((r$grids$wt[-1] + r$grids$wt[-5]) / 2))
  expect_true(is.function(p$scales$get_scales("fill")$palette))
  pc <- plot(r, geom = "contour")
  expect_s3_class(pc$layers[[1]]$geom, "GeomContourFilled")
  d <- data.frame(a = runif(20), g = factor(rep(c("u", "v"), 10)))
  rg <- model_profile_2d(NULL, d, predict_function = function(m, newdata) newdata$a * as.integer(newdata$g),
                         variables = c("a", "g"), grid_points = 4)
  tiles <- ggplot2::layer_data(plot(rg), 1)
  expect_equal(sort(unique(tiles$ymin)), c(0.5, 1.5))
  expect_error(plot(rg, geom = "contour"), "numeric")
  expect_doppelganger("pd-2d-tiles", p)
})
