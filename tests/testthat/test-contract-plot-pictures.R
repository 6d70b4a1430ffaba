# What a reader of the pictures relies on: centring at given values, the
# slopes of derivative ICE curves, legends, axes, 2-D tiles and palettes,
# and plotly.

lm_fixture <- function() {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  list(fit = fit, X = X, pd = model_profile(fit, X, variables = c("wt", "hp"), grid_points = 21))
}

test_that("center: a value per variable, each curve anchored there, never extrapolated", {
  f <- lm_fixture()
  b <- coef(f$fit)
  p <- plot(f$pd, geom = "profiles", center = c(wt = 3, hp = 150))
  ice <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  cu <- layer_of(p, "GeomLine")
  # lm in wt for each row: centred at wt = 3 the curve is (wt - 3) * slope.
  wt <- cu$`_vname_` == "wt"
  hp_of <- f$X$hp[as.integer(cu$`_ids_`[wt])]
  expect_equal(cu$`_yhat_`[wt], (cu$`_x_`[wt] - 3) * (b[["wt"]] + b[["wt:hp"]] * hp_of))
  hp <- cu$`_vname_` == "hp"
  wt_of <- f$X$wt[as.integer(cu$`_ids_`[hp])]
  expect_equal(cu$`_yhat_`[hp], (cu$`_x_`[hp] - 150) * (b[["hp"]] + b[["wt:hp"]] * wt_of))
  expect_equal(p$labels$caption, "Each curve minus its value at wt = 3, hp = 150")
  # The order of the names does not matter; a list is accepted.
  p2 <- plot(f$pd, geom = "profiles", center = list(hp = 150, wt = 3))
  expect_equal(layer_of(p2, "GeomLine")$`_yhat_`, cu$`_yhat_`)
  # One variable drawn: an unnamed value.
  p3 <- plot(f$pd, geom = "profiles", variables = "wt", center = 3)
  expect_equal(layer_of(p3, "GeomLine")$`_yhat_`, cu$`_yhat_`[wt])
  expect_snapshot(error = TRUE, {
    plot(f$pd, geom = "profiles", center = c(wt = 9, hp = 150))
    plot(f$pd, geom = "profiles", center = c(wt = 3))
    plot(f$pd, geom = "profiles", center = 3)
    plot(f$pd, geom = "profiles", center = c(wt = 3, hp = 150, disp = 100))
    plot(f$pd, geom = "profiles", center = c(wt = NA, hp = 150))
  })
})

test_that("derivative ICE curves: each curve's slope, their mean and sd", {
  f <- lm_fixture()
  b <- coef(f$fit)
  p <- plot(f$pd, geom = "derivatives")
  curves <- p$layers[[2]]$data
  wt <- curves$`_vname_` == "wt"
  hp_of <- f$X$hp[as.integer(curves$`_ids_`[wt])]
  # The slope of row i's curve in wt is b_wt + b_wt:hp * hp_i everywhere.
  expect_equal(curves$`_yhat_`[wt], b[["wt"]] + b[["wt:hp"]] * hp_of)
  # One slope at each grid point, per curve.
  n_grid <- table(f$pd$agr_profiles$`_vname_`)
  expect_equal(nrow(curves), sum(n_grid) * nrow(f$X))
  g <- sort(unique(f$pd$agr_profiles$`_x_`[f$pd$agr_profiles$`_vname_` == "wt"]))
  expect_equal(sort(unique(curves$`_x_`[wt])), g)
  k <- length(g)
  m <- p$layers[[3]]$data
  s <- p$layers[[4]]$data
  expect_equal(m$`_yhat_`[m$`_vname_` == "wt"], rep(b[["wt"]] + b[["wt:hp"]] * mean(f$X$hp), k))
  sd_pop <- sqrt(mean((f$X$hp - mean(f$X$hp))^2))
  expect_equal(s$`_yhat_`[s$`_vname_` == "wt"], rep(abs(b[["wt:hp"]]) * sd_pop, k))
  expect_equal(as.character(unique(s$`_row_`)), "sd of the slopes")
  # The mean slope is the slope of the PD profile.
  pd_wt <- f$pd$agr_profiles[f$pd$agr_profiles$`_vname_` == "wt", ]
  expect_equal(m$`_yhat_`[m$`_vname_` == "wt"], as.vector(slope_operator(pd_wt$`_x_`) %*% pd_wt$`_yhat_`))
  # The window's least-squares slope: of a parabola on an even grid, exactly
  # 2x where the window is symmetric; of neighbours at the ends of a short grid.
  x <- seq(0, 1, length.out = 41)
  A <- slope_operator(x)
  expect_equal(as.vector(A %*% x^2)[3:39], 2 * x[3:39])
  # (The middle: the least-squares line through (0, 0), (1, 2), (3, 3).)
  expect_equal(as.vector(slope_operator(c(0, 1, 3)) %*% c(0, 2, 3)), c(2, 13 / 14, 0.5))
  # Case weights: the weighted mean and sd.
  w <- seq_len(nrow(f$X))
  pw <- model_profile(f$fit, f$X, variables = "wt", grid_points = 5, weights = w)
  s <- plot(pw, geom = "derivatives")$layers[[4]]$data
  mu <- sum(w * f$X$hp) / sum(w)
  expect_equal(s$`_yhat_`, rep(abs(b[["wt:hp"]]) * sqrt(sum(w * (f$X$hp - mu)^2) / sum(w)), 5))
  # Built and drawn: two rows of panels, one column per variable.
  lay <- ggplot2::ggplot_build(p)$layout$layout
  expect_equal(nrow(lay), 4)
  expect_equal(as.character(lay$`_panel_`), c("wt", "hp", "wt: sd of the slopes", "hp: sd of the slopes"))
  expect_equal(p$facet$params$free, list(x = TRUE, y = TRUE))
  al <- model_profile(f$fit, f$X, variables = "wt", type = "accumulated")
  expect_snapshot(error = TRUE, {
    plot(al, geom = "derivatives")
    plot(f$pd, geom = "derivatives", center = "first")
  })
})

test_that("legends name the method of profiles of one type", {
  f <- lm_fixture()
  a1 <- model_profile(f$fit, f$X, variables = "wt", type = "accumulated", method = "interval")
  a2 <- model_profile(f$fit, f$X, variables = "wt", type = "accumulated", method = "kernel")
  p <- plot(a1, a2)
  expect_equal(levels(p$layers[[1]]$data$`_label_`),
               c("accumulated local, interval", "accumulated local, kernel"))
  expect_equal(p$labels$colour, "lm")
})

test_that("category labels are turned when they would overlap; numeric panels get few breaks", {
  d <- data.frame(size = factor(rep(c("Fair", "Good", "Very Good", "Premium", "Ideal"), 4)),
                  grade = factor(rep(c("I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"), length.out = 20)),
                  short = factor(rep(c("a", "b", "c"), length.out = 20)))
  pf <- function(m, newdata) as.integer(newdata$size) + as.integer(newdata$grade) + as.integer(newdata$short)
  pd <- model_profile(NULL, d, predict_function = pf)
  p <- plot(pd)
  expect_equal(p$guides$x$theme$angle %||% p$guides$x$angle, 35)
  p1 <- plot(pd, variables = "short")
  expect_null(p1$guides$x)
  f <- lm_fixture()
  pn <- plot(f$pd)
  breaks <- lapply(ggplot2::ggplot_build(pn)$layout$panel_params, function(pp) stats::na.omit(pp$x$breaks))
  expect_equal(lapply(breaks, as.vector), list(2:5, c(100, 200, 300)))
  expect_equal(as.numeric(pn$theme$panel.spacing.x), 1.1)
  # Room on the right for the last tick label.
  expect_equal(as.numeric(pn$theme$plot.margin), c(5.5, 14, 5.5, 5.5))
})

test_that("integer variables get whole-number ticks", {
  fit <- lm(mpg ~ carb + gear + wt, data = mtcars)
  pd <- model_profile(fit, mtcars[c("carb", "gear", "wt")], N = NULL)
  b <- ggplot2::ggplot_build(plot(pd))
  breaks <- lapply(b$layout$panel_params, function(pp) as.vector(stats::na.omit(pp$x$breaks)))
  # carb 1..8 and gear 3..5 (pretty breaks would be 2, 4, 6, 8 and 3, 3.5, ..., 5).
  expect_equal(breaks[[1]], c(2, 4, 6, 8))
  expect_equal(breaks[[2]], 3:5)
  # A continuous variable keeps scales' extended breaks, also when its
  # range has whole ends (min-max scaled, 0 to 1).
  expect_equal(modelprofiles:::axis_breaks(5L)(c(0.1, 0.93)), c(0, 0.25, 0.5, 0.75, 1))
  X <- data.frame(u = c(0, 1, runif(30)), k = rep(0:3, length.out = 32))
  pu <- model_profile(NULL, X, predict_function = function(m, d) d$u + d$k, N = NULL)
  bu <- lapply(ggplot2::ggplot_build(plot(pu))$layout$panel_params, function(pp) as.vector(stats::na.omit(pp$x$breaks)))
  expect_equal(bu, list(c(0, 0.25, 0.5, 0.75, 1), 0:3))
  # Breaks of whole-number panels from the expanded range (as ggplot2 gives
  # it): never fractional.
  for (r in list(c(0, 1), c(0, 2), c(3, 5), c(1, 8), c(0, 9), c(-2, 7), c(10, 13))) {
    lim <- r + c(-1, 1) * 0.05 * diff(r)
    br <- modelprofiles:::axis_breaks(5L, list(r))(lim)
    expect_true(all(br == round(br)), label = paste(r, collapse = "-"))
    expect_gte(length(br[br >= r[1] & br <= r[2]]), 2L)
  }
})

test_that("2-D tiles end at the grid's ends; signed AL is on a diverging scale centred at 0", {
  f <- lm_fixture()
  p2 <- model_profile_2d(f$fit, f$X, variables = list(c("wt", "hp")), grid_points = 8)
  tiles <- ggplot2::layer_data(plot(p2), 1)
  g <- p2$grids
  expect_equal(min(tiles$xmin), min(g$wt))
  expect_equal(max(tiles$xmax), max(g$wt))
  expect_equal(min(tiles$ymin), min(g$hp))
  expect_equal(max(tiles$ymax), max(g$hp))
  # Inner edges halfway between grid values.
  gw <- sort(g$wt)
  expect_setequal(unique(tiles$xmax), c((gw[-1] + gw[-8]) / 2, max(gw)))
  a2 <- model_profile_2d(f$fit, f$X, variables = list(c("wt", "hp")), type = "accumulated", grid = profile_grids(intervals = 6))
  pa <- plot(a2)
  sc <- ggplot2::ggplot_build(pa)$plot$scales$get_scales("fill")
  expect_equal(sc$map(0), "#F7F7F7")
  expect_equal(sc$map(-max(abs(a2$agr_profiles$`_yhat_`))), "#2166AC")
  expect_equal(sc$map(max(abs(a2$agr_profiles$`_yhat_`))), "#B2182B")
  # PD stays sequential (viridis).
  sp <- ggplot2::ggplot_build(plot(p2))$plot$scales$get_scales("fill")
  expect_false(identical(sp$map(mean(p2$agr_profiles$`_yhat_`)), "#F7F7F7"))
  pc <- plot(a2, geom = "contour", bins = 6)
  fills <- unique(ggplot2::layer_data(pc, 1)$fill)
  expect_true(all(fills %in% diverging_colours(6)))
  lev <- levels(ggplot2::layer_data(pc, 1)$level)
  expect_length(lev, 6)
  m <- max(abs(a2$agr_profiles$`_yhat_`))
  expect_match(lev[1], paste0("^[[(]", format(-m, digits = 4), ","), fixed = FALSE)
})

test_that("2-D AL of an additive model: no interaction, not rounding errors on a colour scale", {
  fit <- lm(mpg ~ wt + hp + qsec, data = mtcars)
  a2 <- model_profile_2d(fit, mtcars[c("wt", "hp", "qsec")], variables = list(c("wt", "hp")),
                         type = "accumulated", grid = profile_grids(intervals = 5))
  expect_lt(max(abs(a2$agr_profiles$`_yhat_`)), 1e-9)
  p <- plot(a2)
  expect_equal(unique(ggplot2::layer_data(p, 1)$fill), "#F7F7F7")
  expect_match(p$labels$subtitle, "no interaction")
  expect_match(plot(a2, geom = "contour")$labels$subtitle, "no interaction")
})

test_that("plots convert with plotly::ggplotly()", {
  skip_if_not_installed("plotly")
  f <- lm_fixture()
  ld <- model_profile(f$fit, f$X, variables = c("wt", "hp"), type = "conditional")
  n_traces <- function(p) length(plotly::plotly_build(plotly::ggplotly(p))$x$data)
  # Lines of PD and LD, and the rugs, in two panels.
  expect_gte(n_traces(plot(f$pd, ld)), 4)
  expect_gte(n_traces(plot(f$pd, geom = "profiles", center = c(wt = 3, hp = 150))), 2)
  expect_gte(n_traces(plot(f$pd, geom = "derivatives")), 3)
  d <- transform(mtcars, cyl = factor(cyl))
  pd <- model_profile(lm(mpg ~ cyl + wt, data = d), d[c("cyl", "wt")], variables = "cyl")
  expect_gte(n_traces(plot(pd, geom = "bars")), 1)
  p2 <- model_profile_2d(f$fit, f$X, variables = list(c("wt", "hp")), grid_points = 6)
  expect_gte(n_traces(plot(p2)), 1)
  # The profile's numbers reach the plotly figure.
  built <- plotly::plotly_build(plotly::ggplotly(plot(f$pd, variables = "wt", rug = FALSE)))
  y <- unlist(lapply(built$x$data, `[[`, "y"))
  want <- f$pd$agr_profiles$`_yhat_`[f$pd$agr_profiles$`_vname_` == "wt"]
  expect_true(all(vapply(want, function(v) any(abs(y - v) < 1e-9), logical(1))))
})

test_that("a classifier's profiled class is named: in the subtitle, or in each entry when they differ (with a warning)", {
  lr <- glm(am ~ wt + hp, data = mtcars, family = binomial)
  X <- mtcars[c("wt", "hp")]
  p1 <- model_profile(lr, X, variables = "wt", grid_points = 5)
  p0 <- model_profile(lr, X, variables = "wt", grid_points = 5, class = "0")
  expect_identical(p1$task, "classification")
  expect_identical(plot(p1)$labels$subtitle, "Probability of class \"1\"")
  expect_identical(plot(p1, subtitle = "mine")$labels$subtitle, "mine")
  expect_match(plot(p1, geom = "derivatives")$labels$subtitle, "(probability of class \"1\")", fixed = TRUE)
  expect_snapshot(p <- plot(p1, p0))
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`), c("glm, class 1", "glm, class 0"))
  expect_null(p$labels$subtitle)
  # The two are mirror images: P(0) = 1 - P(1).
  y <- with(ggplot2::layer_data(p, layer_at(p, "GeomLine")), split(y, colour))
  expect_equal(y[[1]] + y[[2]], rep(1, 5), tolerance = 1e-12)
  # A regression has no class to name; an output column of several is named.
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  expect_null(plot(model_profile(fit, X, grid_points = 5))$labels$subtitle)
  m2 <- lm(cbind(mpg, qsec) ~ wt + hp, data = mtcars)
  expect_identical(plot(model_profile(m2, X, variables = "wt", grid_points = 5))$labels$subtitle, "Output \"qsec\"")
  # Multiclass: the classes are the legend's entries, no subtitle.
  skip_if_not_installed("nnet")
  mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  pm <- plot(model_profile(mn, iris[1:4], variables = "Petal.Length", grid_points = 5))
  expect_null(pm$labels$subtitle)
  expect_identical(levels(layer_of(pm, column = "_label_")$`_label_`), c("setosa", "versicolor", "virginica"))
})

test_that("equal legend entries are told apart by what differs, never '#1'", {
  f <- lm_fixture()
  pd7 <- model_profile(f$fit, f$X, variables = c("wt", "hp"), grid_points = 7)
  p <- plot(f$pd, pd7)
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`), c("lm, 21 grid points", "lm, 7 grid points"))
  p <- plot(f$pd, f$pd)
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`), c("lm, result 1", "lm, result 2"))
  pd10 <- model_profile(f$fit, f$X, variables = c("wt", "hp"), grid_points = 21, N = 10, seed = 1)
  expect_identical(levels(layer_of(plot(f$pd, pd10), column = "_label_")$`_label_`), c("lm, 32 rows", "lm, 10 rows"))
})

test_that("multiclass profiles of subgroups: colour for the subgroup, line type for the class", {
  skip_if_not_installed("nnet")
  mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  d <- transform(iris, long = factor(ifelse(Sepal.Length > 5.8, "long", "short")))
  r <- model_profile(mn, d, variables = c("Petal.Length", "Sepal.Width"), groups = "long", N = NULL,
                     grid_points = 9)
  p <- plot(r)
  ld <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  # 2 subgroups x 3 classes x 2 panels, each its own line.
  expect_length(unique(ld$colour), 2L)
  expect_length(unique(ld$linetype), 3L)
  expect_length(unique(paste(ld$PANEL, ld$group)), 12L)
  a <- layer_of(p, "GeomLine")
  expect_identical(levels(a$`_colour_`), c("long", "short"))
  expect_identical(levels(a$`_linetype_`), c("setosa", "versicolor", "virginica"))
  # Each line is its subgroup's and class's profile.
  ours <- r$agr_profiles
  key <- r$label_parts$label[r$label_parts$group == "long" & r$label_parts$class == "virginica"]
  expect_equal(a$`_yhat_`[a$`_colour_` == "long" & a$`_linetype_` == "virginica"],
               ours$`_yhat_`[ours$`_label_` == key])
  expect_identical(p$labels$colour, "multinom, by long")
  expect_identical(p$labels$linetype, "class")
  # ICE curves take the line type too; bars tell each pair apart by fill.
  expect_length(unique(ggplot2::layer_data(pr <- plot(r, geom = "profiles"), layer_at(pr, "GeomLine"))$linetype), 3L)
  expect_doppelganger("multiclass-subgroups", p)
})

test_that("pictures: a classifier's class in the subtitle, integer axes", {
  lr <- glm(vs ~ mpg + carb, data = mtcars, family = binomial)
  pd <- model_profile(lr, mtcars[c("mpg", "carb")], N = NULL)
  expect_doppelganger("classifier-integer-axis", plot(pd))
})

test_that("a date variable's centre outside its grid is reported in dates", {
  d <- data.frame(day = as.Date("2020-01-01") + 0:365, z = sin(1:366))
  fit <- lm(y ~ day + z, data = transform(d, y = as.numeric(day) %% 30 + z))
  pd <- model_profile(fit, d, variables = "day", grid_points = 5)
  expect_snapshot(plot(pd, geom = "profiles", center = 3), error = TRUE)
  expect_snapshot(plot(pd, geom = "profiles", center = as.Date("2021-06-01")), error = TRUE)
  p <- plot(pd, geom = "profiles", center = as.Date("2020-07-01"))
  expect_equal(p$labels$caption, "Each curve minus its value at day = 2020-07-01")
})
