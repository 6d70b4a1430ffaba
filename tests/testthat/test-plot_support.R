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
  # Two PD profiles: the legend says the share is the largest of theirs.
  pd2 <- model_profile(NULL, s$d, predict_function = function(m, newdata) 2 * s$f(m, newdata), grid_points = 11,
                       keep_ice = FALSE, label = "twice")
  expect_match(plot(pd, pd2)$scales$get_scales("alpha")$name, "the largest\nshare, among the PD profiles", fixed = TRUE)
})

test_that("a single profile's chart shows the veil's legend (and only it); without the veil, no legend", {
  s <- diagonal_case()
  pd <- model_profile(NULL, s$d, predict_function = s$f, grid_points = 11, keep_ice = FALSE)
  p <- plot(pd)
  expect_identical(p$theme$legend.position, "bottom")
  expect_identical(p$guides$colour, "none")
  expect_match(p$scales$get_scales("alpha")$name, "^Shaded: the PD extrapolates")
  g <- ggplot2::ggplotGrob(p)
  expect_true(any(grepl("guide-box", g$layout$name)))
  b <- ggplot2::ggplot_build(p)
  # The legend's keys: over 50%, 75%, 100%.
  expect_identical(b$plot$scales$get_scales("alpha")$get_labels(), c("over 50%", "75%", "100%"))
  q <- plot(model_profile(NULL, s$d, predict_function = s$f, variables = "x3", grid_points = 11))
  expect_identical(q$theme$legend.position, "none")
  expect_identical(plot(pd, extrapolation = FALSE)$theme$legend.position, "none")
  # Two profiles: their own legend and the veil's.
  al <- model_profile(NULL, s$d, predict_function = s$f, type = "accumulated", grid = profile_grids(intervals = 10))
  two <- plot(pd, al)
  expect_identical(two$theme$legend.position, "bottom")
  expect_false(identical(two$guides$colour, "none"))
  expect_doppelganger("veil-single", p)
})

test_that("2-D charts grey the cells where the PD extrapolates, with a legend; off by argument", {
  s <- diagonal_case()
  p2 <- model_profile_2d(NULL, s$d, predict_function = s$f, variables = c("x1", "x2"), grid_points = 8)
  a <- p2$agr_profiles
  # The column where 1-D tables have it: after `_support_`.
  expect_identical(match("_extrapolation_", names(a)), match("_support_", names(a)) + 1L)
  p <- plot(p2)
  veil <- Filter(function(l) inherits(l$geom, "GeomRect") && identical(l$aes_params$fill, "white"), p$layers)
  expect_length(veil, 1L)
  ld <- ggplot2::layer_data(p, which(vapply(p$layers, function(l) identical(l$aes_params$fill, "white"), TRUE)))
  expect_equal(nrow(ld), sum(a$`_extrapolation_` > 0.5))
  expect_match(p$scales$get_scales("colour")$name, "PD extrapolates")
  expect_match(names(p$scales$get_scales("colour")$palette(1)) %||% p$scales$get_scales("colour")$get_labels(),
               "outside the data")
  off <- plot(p2, extrapolation = FALSE)
  expect_length(Filter(function(l) identical(l$aes_params$fill, "white"), off$layers), 0L)
  expect_error(plot(p2, extrapolation = "yes"), "extrapolation")
  # With bands, only the surface's panel is greyed.
  pb <- model_profile_2d(NULL, s$d, predict_function = s$f, variables = c("x1", "x2"), grid_points = 6,
                         bands = profile_bands("bootstrap", B = 10), seed = 1)
  lb <- ggplot2::layer_data(plot(pb), 3L)
  expect_equal(unique(as.integer(lb$PANEL)), 1L)
  expect_doppelganger("veil-2d", p)
})
