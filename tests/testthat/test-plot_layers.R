# Layers of charts of profiles (R/plot_layers.R): factor profiles as
# points, side by side, lines only for ordered levels (issue 41, row 9).

test_that("factor profiles are points without lines joining unordered levels (row 9)", {
  # Unordered factors: points, no line joining the levels; ordered ones joined.
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pf <- function(m, newdata) newdata$x * as.integer(newdata$g)
  pg <- plot(model_profile(NULL, d, predict_function = pf, variables = "g"))
  geoms <- vapply(pg$layers, function(l) class(l$geom)[1L], character(1))
  expect_false("GeomLine" %in% geoms)
  pts <- ggplot2::layer_data(pg, which(geoms == "GeomPoint"))
  # The PD of x * level number at each level: mean(x) = 3.5 times 1, 2, 3.
  expect_equal(pts$y, 3.5 * 1:3)
  # ICE: each of the 6 rows' prediction at each level, x_i times its number.
  pc <- plot(model_profile(NULL, d, predict_function = pf, variables = "g"), geom = "profiles")
  gc <- vapply(pc$layers, function(l) class(l$geom)[1L], character(1))
  ice <- ggplot2::layer_data(pc, which(gc == "GeomPoint")[1L])
  expect_equal(sort(ice$y), sort(outer(1:6, 1:3)))
  pi <- plot(model_profile(NULL, d, predict_function = pf, variables = "g"), geom = "profiles")
  gi <- vapply(pi$layers, function(l) class(l$geom)[1L], character(1))
  expect_false("GeomLine" %in% gi)
  do <- transform(d, g = factor(g, ordered = TRUE))
  po <- plot(model_profile(NULL, do, predict_function = pf, variables = "g"))
  go <- vapply(po$layers, function(l) class(l$geom)[1L], character(1))
  expect_identical(nrow(ggplot2::layer_data(po, which(go == "GeomLine"))), 3L)
})
