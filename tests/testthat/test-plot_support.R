# The veil where a PD profile extrapolates (R/plot_support.R).

test_that("plot() shades where the PD extrapolates, with a legend; off by argument", {
  s <- diagonal_case()
  pd <- model_profile(NULL, s$d, predict_function = s$f, grid_points = 11, keep_ice = FALSE)
  p <- plot(pd)
  rect <- Filter(function(l) inherits(l$geom, "GeomRect"), p$layers)
  expect_length(rect, 1L)
  ld <- ggplot2::layer_data(p, length(p$layers))
  # One shaded cell per grid point of x1 and x2 (all over 0.5), none of x3.
  expect_equal(nrow(ld), 22L)
  expect_equal(sort(unique(ld$PANEL)), factor(1:2, levels = 1:3))
  expect_match(p$scales$get_scales("alpha")$name, "outside the data")
  expect_length(Filter(function(l) inherits(l$geom, "GeomRect"), plot(pd, extrapolation = FALSE)$layers), 0L)
  # No shading where no share passes the level, nor for AL.
  q <- plot(model_profile(NULL, s$d, predict_function = s$f, variables = "x3", grid_points = 11))
  expect_length(Filter(function(l) inherits(l$geom, "GeomRect"), q$layers), 0L)
  expect_error(plot(pd, extrapolation = NA), "extrapolation")
})
