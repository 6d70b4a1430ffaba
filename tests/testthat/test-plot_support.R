# The veil where a PD profile extrapolates (R/plot_support.R).

test_that("plot() shades where the PD extrapolates, with a legend; off by argument", {
  s <- diagonal_case()
  pd <- model_profile(NULL, s$d, predict_function = s$f, grid_points = 11, keep_ice = FALSE)
  p <- plot(pd)
  rect <- Filter(function(l) inherits(l$geom, "GeomRect"), p$layers)
  expect_length(rect, 1L)
  ld <- ggplot2::layer_data(p, layer_at(p, "GeomRect"))
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

test_that("the veil lies behind the bands and curves, in three shades told apart", {
  s <- diagonal_case()
  pd <- model_profile(NULL, s$d, predict_function = s$f, grid_points = 11, bands = "analytic")
  al <- model_profile(NULL, s$d, predict_function = s$f, type = "accumulated", grid = profile_grids(intervals = 10))
  for (p in list(plot(pd), plot(pd, al), plot(pd, geom = "profiles", max_curves = 5))) {
    geoms <- vapply(p$layers, function(l) class(l$geom)[1L], "")
    # The first layer, under the ribbons and lines (issue 41: over them it
    # greyed the AL curves of a mixed chart).
    expect_identical(geoms[1L], "GeomRect")
    expect_identical(names(p$layers[[1L]]$data), c("_vname_", "lo", "hi", "share"))
    expect_false("GeomRect" %in% geoms[-1L])
    expect_true(all(c("GeomRibbon", "GeomLine") %in% geoms[-1L]))
  }
  # The AL profile's lines are drawn after (over) the veil, unchanged.
  p <- plot(pd, al)
  lines <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  expect_equal(sort(lines$y), sort(c(pd$agr_profiles$`_yhat_`, al$agr_profiles$`_yhat_`)))
  # The shades of the legend's keys (over 50%, 75%, 100%) over a quarter
  # of opacity apart, and each cell's between them by its share.
  veil <- p$scales$get_scales("alpha")
  keys <- veil$map(veil$get_breaks())
  expect_equal(keys, c(0.15, 0.425, 0.7))
  ld <- ggplot2::layer_data(p, 1L)
  share <- p$layers[[1L]]$data$share
  expect_equal(ld$alpha, 0.15 + 0.55 * (share - 0.5) / 0.5)
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
  veil <- Filter(function(l) "veil" %in% names(l$data), p$layers)
  expect_length(veil, 1L)
  ld <- ggplot2::layer_data(p, layer_at(p, "GeomRect", "veil"))
  expect_equal(nrow(ld), sum(a$`_extrapolation_` > 0.5))
  # Greyed cells: a nearly opaque light grey, no outlines (on any colour of
  # the surface's scale they read as greyed, where a white veil read as
  # paler colours of the scale, and outlined cells made a mesh); the
  # legend's key is the same grey, not an empty white box.
  expect_identical(veil[[1L]]$aes_params[c("fill", "alpha")], list(fill = "grey85", alpha = 0.85))
  expect_identical(unique(ld$colour), "transparent")
  g <- ggplot2::ggplotGrob(p)
  box <- g$grobs[[which(g$layout$name == "guide-box")]]
  keys <- box$grobs[[1L]]$grobs
  grey85 <- grDevices::adjustcolor("grey85", alpha.f = 0.85)
  expect_true(any(vapply(keys, function(k) identical(toupper(k$gp$fill %||% ""), toupper(grey85)),
                         logical(1))))
  expect_match(p$scales$get_scales("colour")$name, "PD extrapolates")
  expect_match(names(p$scales$get_scales("colour")$palette(1)) %||% p$scales$get_scales("colour")$get_labels(),
               "outside the data")
  off <- plot(p2, extrapolation = FALSE)
  expect_length(Filter(function(l) "veil" %in% names(l$data), off$layers), 0L)
  expect_error(plot(p2, extrapolation = "yes"), "extrapolation")
  # With bands, only the surface's panel is greyed.
  pb <- model_profile_2d(NULL, s$d, predict_function = s$f, variables = c("x1", "x2"), grid_points = 6,
                         bands = profile_bands("bootstrap", B = 10), seed = 1)
  qb <- plot(pb)
  lb <- ggplot2::layer_data(qb, layer_at(qb, "GeomRect", "veil"))
  expect_equal(unique(as.integer(lb$PANEL)), 1L)
  expect_doppelganger("veil-2d", p)
})
