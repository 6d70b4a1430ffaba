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

# ---- Charts name what they show (issue 41, rows 2, 7, 8, 9) -------------------

test_that("the caption names every band's kind and level; the trees' spread is drawn apart (row 2)", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pa <- model_profile(fit, X, grid_points = 5, bands = "analytic")
  pb <- model_profile(fit, X, grid_points = 5, bands = profile_bands("bootstrap", level = 0.9, B = 20), seed = 1)
  expect_identical(plot(pa)$labels$caption, "Bands: 95% analytic band (pointwise)")
  expect_identical(plot(pb)$labels$caption, "Bands: 90% bootstrap band (pointwise)")
  expect_null(plot(pa, bands = FALSE)$labels$caption)
  # Two kinds: the legend's entries name them (told apart by their bands).
  p <- plot(pa, pb)
  expect_identical(levels(p$layers[[1]]$data$`_label_`), c("lm, 95% analytic band", "lm, 90% bootstrap band"))
  expect_identical(p$labels$caption, paste0(
    "Bands: 95% analytic band, 90% bootstrap band (pointwise)\n",
    "Dashed: lm, 90% bootstrap band coincides with lm, 95% analytic band"))
  # One result with bands, one without: each entry's band.
  p0 <- model_profile(fit, X, grid_points = 5, label = "plain")
  expect_identical(plot(pa, p0)$labels$caption,
                   "Bands (pointwise): lm: 95% analytic band\nDashed: plain coincides with lm")
  expect_identical(band_name(list(type = "trees", level = 0.9)), "per-tree 5-95% spread")
  expect_identical(band_name(list(type = "infjack", level = 0.95)), "95% infinitesimal-jackknife band")
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(mpg ~ wt + hp, data = mtcars, num.trees = 40, seed = 1, num.threads = 1)
  pt <- model_profile(rf, X, variables = "wt", grid_points = 7, bands = "trees")
  pr <- model_profile(rf, X, variables = "wt", grid_points = 7, bands = "analytic")
  p <- plot(pt, pr)
  expect_identical(levels(p$layers[[1]]$data$`_label_`),
                   c("ranger, per-tree 2.5-97.5% spread", "ranger, 95% analytic band"))
  expect_match(p$labels$caption, "Bands: per-tree 2.5-97.5% spread, 95% analytic band (pointwise, the trees' spread with dashed edges)",
               fixed = TRUE)
  # The analytic band a filled ribbon, the trees' spread fainter with
  # dashed edges at its limits.
  geoms <- vapply(p$layers, function(l) class(l$geom)[1L], character(1))
  expect_identical(geoms[1:4], c("GeomRibbon", "GeomRibbon", "GeomLine", "GeomLine"))
  expect_identical(c(p$layers[[1]]$aes_params$alpha, p$layers[[2]]$aes_params$alpha), c(0.2, 0.07))
  expect_identical(p$layers[[3]]$aes_params$linetype, "22")
  lower <- ggplot2::layer_data(p, 3)
  ours <- pt$agr_profiles
  expect_equal(lower$y[!is.na(lower$y)], ours$`_lower_`)
  # The colours stay in the entries' order (the first layer with colour has
  # one entry's rows).
  cols <- ggplot2::ggplot_build(p)$plot$scales$get_scales("colour")$get_limits()
  expect_identical(cols, levels(p$layers[[1]]$data$`_label_`))
})

test_that("coinciding profiles stay visible: dashed, with a note; others solid (row 7)", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, grid_points = 6)
  p <- plot(pd, pd)
  a <- p$layers[[1]]$data
  expect_identical(unique(a$`_dash_`[a$`_label_` == "lm, result 1"]), "solid")
  expect_identical(unique(a$`_dash_`[a$`_label_` == "lm, result 2"]), "dashed")
  expect_identical(unique(ggplot2::layer_data(p, 1)$linetype), c("solid", "dashed"))
  expect_identical(p$labels$caption, "Dashed: lm, result 2 coincides with lm, result 1")
  # Different profiles: solid, no note (LD differs from PD here).
  ld <- model_profile(fit, X, grid_points = 6, type = "conditional")
  p2 <- plot(pd, ld)
  expect_identical(unique(p2$layers[[1]]$data$`_dash_`), "solid")
  expect_null(p2$labels$caption)
  # Equal in one panel only (wt: the step in hp averages out): dashed there
  # alone.
  f2 <- function(m, d) d$wt * 2
  f3 <- function(m, d) d$wt * 2 + (d$hp > 150) - mean(X$hp > 150)
  q <- plot(model_profile(NULL, X, predict_function = f2, grid_points = 6, label = "a"),
            model_profile(NULL, X, predict_function = f3, grid_points = 6, label = "b"))
  qa <- q$layers[[1]]$data
  expect_identical(unique(qa$`_dash_`[qa$`_vname_` == "wt" & qa$`_label_` == "b"]), "dashed")
  expect_identical(unique(qa$`_dash_`[qa$`_vname_` == "hp" & qa$`_label_` == "b"]), "solid")
  expect_identical(q$labels$caption, "Dashed: b coincides with a")
  q2 <- plot(model_profile(NULL, X, predict_function = f2, grid_points = 6, label = "a"),
             model_profile(NULL, X, predict_function = function(m, d) d$wt * 2 + 1e-9 * d$hp, grid_points = 6,
                           label = "b"))
  expect_identical(q2$labels$caption, "Dashed: b coincides with a")
  # Over categorical axes several entries' points are set side by side.
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pf <- function(m, newdata) newdata$x * as.integer(newdata$g)
  g1 <- model_profile(NULL, d, predict_function = pf, variables = "g", label = "one")
  g2 <- model_profile(NULL, d, predict_function = pf, variables = "g", label = "two")
  pg <- plot(g1, g2)
  pts <- ggplot2::layer_data(pg, which(vapply(pg$layers, function(l) class(l$geom)[1L], "") == "GeomPoint"))
  expect_identical(nrow(pts), 6L)
  expect_equal(sort(unique(round(pts$x - round(pts$x), 3))), c(-0.125, 0.125))
})

test_that("a DALEX result that looks like another class is not subtitled with ours (row 7)", {
  lr <- glm(am ~ wt + hp, data = mtcars, family = binomial)
  p1 <- model_profile(lr, mtcars[c("wt", "hp")], variables = "wt", grid_points = 5)
  a <- p1$agr_profiles[c("_vname_", "_label_", "_x_", "_yhat_", "_ids_")]
  a$`_yhat_` <- 1 - a$`_yhat_`
  class(a) <- c("aggregated_profiles_explainer", "partial_dependence_explainer", "data.frame")
  theirs <- structure(list(agr_profiles = a, cp_profiles = NULL), class = "model_profile")
  expect_warning(p <- plot(p1, theirs), "another class")
  expect_null(p$labels$subtitle)
  expect_identical(levels(p$layers[[1]]$data$`_label_`),
                   c("partial dependence, class 1", "partial dependence, DALEX, likely another class"))
  # DALEX's result of our class: one class, in the subtitle.
  a$`_yhat_` <- p1$agr_profiles$`_yhat_`
  same <- structure(list(agr_profiles = a, cp_profiles = NULL), class = "model_profile")
  expect_identical(plot(p1, same)$labels$subtitle, "Probability of class \"1\"")
})

test_that("the note that a chart has one kind of x axis is given once per session; the caption names what is left out (row 8)", {
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pf <- function(m, newdata) newdata$x * as.integer(newdata$g)
  pd <- model_profile(NULL, d, predict_function = pf)
  withr::local_options(rlib_message_verbosity = "default")
  env <- get("message_freq_env", envir = asNamespace("rlang"))
  if (exists("modelprofiles_one_x_axis", envir = env, inherits = FALSE)) rm("modelprofiles_one_x_axis", envir = env)
  expect_message(p1 <- plot(pd), "one kind of x axis")
  expect_no_message(p2 <- plot(pd))
  expect_identical(p1$labels$caption, "Not drawn (another kind of x axis): g")
  expect_identical(p2$labels$caption, p1$labels$caption)
})

test_that("titles, factor points, ICE axes and date axes say what they show (row 9)", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, grid_points = 5)
  al <- model_profile(fit, X, type = "accumulated", intervals = 4)
  # A single profile: its type and model; several types: the legend names them.
  expect_identical(plot(pd)$labels$title, "Partial-dependence profile of lm")
  expect_identical(plot(al)$labels$title, "Accumulated-local profile of lm")
  expect_identical(plot(pd, geom = "profiles")$labels$title, "ICE curves and partial-dependence profile of lm")
  expect_null(plot(pd, al)$labels$title)
  expect_identical(plot(pd, title = "mine")$labels$title, "mine")
  # ICE curves are predictions; centred ones centred predictions.
  expect_identical(plot(pd)$labels$y, "average prediction")
  expect_identical(plot(pd, geom = "profiles")$labels$y, "prediction")
  expect_identical(plot(pd, geom = "points")$labels$y, "prediction")
  expect_identical(plot(pd, geom = "profiles", center = "first")$labels$y, "centred prediction")
  # Unordered factors: points, no line joining the levels; ordered ones joined.
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pf <- function(m, newdata) newdata$x * as.integer(newdata$g)
  pg <- plot(model_profile(NULL, d, predict_function = pf, variables = "g"))
  geoms <- vapply(pg$layers, function(l) class(l$geom)[1L], character(1))
  lines <- ggplot2::layer_data(pg, which(geoms == "GeomLine"))
  expect_identical(nrow(lines), 0L)
  expect_identical(nrow(ggplot2::layer_data(pg, which(geoms == "GeomPoint"))), 3L)
  pi <- plot(model_profile(NULL, d, predict_function = pf, variables = "g"), geom = "profiles")
  gi <- vapply(pi$layers, function(l) class(l$geom)[1L], character(1))
  expect_true(all(vapply(which(gi == "GeomLine"), function(i) nrow(ggplot2::layer_data(pi, i)), integer(1)) == 0L))
  do <- transform(d, g = factor(g, ordered = TRUE))
  po <- plot(model_profile(NULL, do, predict_function = pf, variables = "g"))
  go <- vapply(po$layers, function(l) class(l$geom)[1L], character(1))
  expect_identical(nrow(ggplot2::layer_data(po, which(go == "GeomLine"))), 3L)
  # Date axes: room on the right for the last tick's label, half of
  # "Jan 2021" at the theme's size.
  dd <- data.frame(day = as.Date("2020-01-01") + 0:365, z = sin(1:366))
  fd <- lm(y ~ day + z, data = transform(dd, y = as.numeric(day) %% 30 + z))
  pdd <- plot(model_profile(fd, dd, variables = "day", grid_points = 7))
  expect_identical(as.numeric(pdd$theme$plot.margin), c(5.5, 24, 5.5, 5.5))
  half_label <- grid::convertWidth(grid::grobWidth(grid::textGrob("Jan 2021", gp = grid::gpar(fontsize = 8.8))),
                                   "pt", valueOnly = TRUE) / 2
  expect_lt(half_label, 24)
  expect_gt(half_label, 14)
})
