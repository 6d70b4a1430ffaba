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

test_that("2-D bands are drawn (a panel of the half-width) and printed (row 3)", {
  fit <- lm(mpg ~ (wt + hp) * qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  p2 <- model_profile_2d(fit, X, variables = list(c("wt", "hp")), grid_points = 6, bands = "analytic")
  a <- p2$agr_profiles
  # The analytic band of a 2-D PD cell: the ICE values' standard error, by hand.
  grid <- expand.grid(wt = sort(unique(a$`_x_`)), hp = sort(unique(a$`_x2_`)))
  k <- match(paste(grid$wt, grid$hp), paste(a$`_x_`, a$`_x2_`))
  se <- vapply(seq_len(nrow(grid)), function(i) {
    y <- predict(fit, transform(X, wt = grid$wt[i], hp = grid$hp[i]))
    sd(y) / sqrt(length(y))
  }, numeric(1))
  expect_equal((a$`_upper_`[k] - a$`_lower_`[k]) / 2, qnorm(0.975) * se, tolerance = 1e-10)
  p <- plot(p2)
  geoms <- vapply(p$layers, function(l) class(l$geom)[1L], character(1))
  h <- p$layers[[which(geoms == "GeomRect")[2]]]$data
  expect_equal(h$`_half_`, (a$`_upper_` - a$`_lower_`) / 2)
  expect_identical(levels(h$`_panel_`), c("partial dependence", "95% analytic band: half-width"))
  expect_identical(nrow(ggplot2::ggplot_build(p)$layout$layout), 2L)
  expect_identical(ggplot2::ggplot_build(p)$plot$scales$get_scales("alpha")$name, "half-width")
  expect_identical(nrow(ggplot2::ggplot_build(plot(p2, bands = FALSE))$layout$layout), 1L)
  expect_identical(nrow(ggplot2::ggplot_build(plot(p2, geom = "contour"))$layout$layout), 2L)
  half <- (a$`_upper_` - a$`_lower_`) / 2
  expect_output(print(p2), paste0("bands: 95% pointwise, analytic standard errors; half-width median ",
                                  format(median(half), digits = 3), ", largest ", format(max(half), digits = 3)),
                fixed = TRUE)
  # Without bands, no bands line.
  expect_false(any(grepl("bands:", capture.output(print(model_profile_2d(fit, X, variables = list(c("wt", "hp")),
                                                                            grid_points = 4))))))
  a2 <- model_profile_2d(fit, X, variables = list(c("wt", "hp")), type = "accumulated", intervals = 4,
                         bands = profile_bands("bootstrap", level = 0.9, B = 20), seed = 1)
  pa <- plot(a2)
  expect_identical(levels(pa$layers[[length(pa$layers) - 1L]]$data$`_panel_`),
                   c("interaction effect", "90% bootstrap band: half-width"))
  expect_doppelganger("pd-2d-bands", p)
})
