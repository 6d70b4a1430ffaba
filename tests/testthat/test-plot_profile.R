plot_fixture <- function() {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  list(
    fit = fit, X = X,
    pd = model_profile(fit, X, variables = c("wt", "hp")),
    ld = model_profile(fit, X, variables = c("wt", "hp"), type = "conditional"),
    al = model_profile(fit, X, variables = c("wt", "hp"), type = "accumulated", grid = profile_grids(intervals = 10))
  )
}

test_that("PD, LD and AL in one chart: one line per profile and panel, the right y", {
  f <- plot_fixture()
  p <- plot(f$pd, f$ld, f$al)
  expect_s3_class(p, "ggplot")
  lines <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  expect_equal(length(unique(lines$colour)), 3)
  expect_equal(length(unique(lines$PANEL)), 2)
  all_y <- c(f$pd$agr_profiles$`_yhat_`, f$ld$agr_profiles$`_yhat_`, f$al$agr_profiles$`_yhat_`)
  expect_equal(sort(lines$y), sort(all_y))
  b <- ggplot2::ggplot_build(p)
  expect_equal(levels(layer_of(b$plot, column = "_label_")$`_label_`),
               c("partial dependence", "local dependence", "accumulated local"))
  expect_equal(p$labels$colour, "lm")
  expect_equal(p$labels$y, "prediction")
  expect_equal(plot(f$pd)$labels$y, "average prediction")
  expect_equal(plot(f$al)$labels$y, "accumulated effect + mean")
  # Rug of the observed values, one mark per background row and variable.
  rug <- ggplot2::layer_data(p, layer_at(p, "GeomRug"))
  expect_equal(nrow(rug), 2 * nrow(f$X))
})

test_that("two models are told apart by their labels", {
  f <- plot_fixture()
  pd2 <- model_profile(f$fit, f$X, variables = "wt", label = "other")
  p <- plot(f$pd, pd2)
  lines <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  expect_equal(length(unique(lines$colour)), 2)
  expect_equal(levels(layer_of(p, column = "_label_")$`_label_`), c("lm", "other"))
  al2 <- model_profile(f$fit, f$X, variables = "wt", label = "other", type = "accumulated")
  p <- plot(f$pd, f$al, pd2, al2)
  expect_equal(levels(layer_of(p, column = "_label_")$`_label_`),
               c("lm (partial dependence)", "lm (accumulated local)",
                 "other (partial dependence)", "other (accumulated local)"))
  expect_equal(length(unique(ggplot2::layer_data(p, layer_at(p, "GeomLine"))$colour)), 4)
})

test_that("ICE curves: at most max_curves, aggregate on top, centring", {
  set.seed(1)
  X <- data.frame(a = runif(300), b = rnorm(300))
  pf <- function(m, newdata) newdata$a * newdata$b + newdata$a
  pd <- model_profile(NULL, X, predict_function = pf, variables = "a", grid_points = 11)
  p <- plot(pd, geom = "profiles", max_curves = 40)
  ice <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  expect_equal(length(unique(ice$group)), 40)
  expect_equal(nrow(ice), 40 * 11)
  top <- ggplot2::layer_data(p, layer_at(p, "GeomLine", n = 2))
  expect_equal(top$y, pd$agr_profiles$`_yhat_`)
  pc <- plot(pd, geom = "profiles", center = "first")
  ice <- ggplot2::layer_data(pc, layer_at(pc, "GeomLine"))
  expect_equal(ice$y[ice$x == min(ice$x)], rep(0, 100))
  top <- ggplot2::layer_data(pc, layer_at(pc, "GeomLine", n = 2))
  expect_equal(top$y, pd$agr_profiles$`_yhat_` - pd$agr_profiles$`_yhat_`[1])
  pm <- plot(pd, geom = "profiles", center = "mean", max_curves = 5)
  ice <- ggplot2::layer_data(pm, layer_at(pm, "GeomLine"))
  expect_equal(as.numeric(tapply(ice$y, ice$group, mean)), rep(0, 5), tolerance = 1e-12)
  pv <- plot(pd, geom = "profiles", center = 0.5, max_curves = 5)
  ice <- ggplot2::layer_data(pv, layer_at(pv, "GeomLine"))
  ids <- unique(ice$group)
  expect_length(ids, 5)
  expect_equal(pv$labels$y, "centred prediction")
  expect_equal(pv$labels$caption, "Each curve minus its value at a = 0.5")
  expect_equal(pc$labels$caption, "Each curve minus its value at the first grid point")
  expect_error(plot(pd, center = "first"), "ICE curves")
  expect_error(plot(pd, geom = "profiles", center = "median"), "center")
})

test_that("observed points sit on their own ICE curves", {
  X <- data.frame(a = c(0.1, 0.5, 0.9, 0.3), b = c(1, 2, 3, 4))
  pf <- function(m, newdata) newdata$a * newdata$b
  pd <- model_profile(NULL, X, predict_function = pf, variables = "a",
                      variable_splits = list(a = c(0, 0.5, 1)))
  p <- plot(pd, geom = "points")
  pts <- ggplot2::layer_data(p, layer_at(p, "GeomPoint"))
  expect_equal(nrow(pts), 4)
  # The model is linear in a for each row, so the point is the prediction.
  expect_equal(sort(pts$y), sort(X$a * X$b))
})

test_that("categorical profiles are points, mixed kinds draw the numeric ones", {
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pf <- function(m, newdata) newdata$x * as.integer(newdata$g)
  pd <- model_profile(NULL, d, predict_function = pf)
  # (The message is once per session; here every time.)
  old_verbosity <- options(rlib_message_verbosity = "verbose")
  on.exit(options(old_verbosity), add = TRUE)
  expect_message(p <- plot(pd), "numeric variables")
  expect_equal(unique(as.character(p$layers[[1]]$data$`_vname_`)), "x")
  pg <- plot(pd, variables = "g")
  pts <- ggplot2::layer_data(pg, 1)
  expect_equal(pts$y, profile_of(pd, "g")$`_yhat_`)
  expect_equal(nrow(pts), 3)
  expect_error(plot(pd, variables = "nope"), "nope")
  expect_error(plot(pd, 1), "model_profile")
})

test_that("options: variables, facets, scales, titles and colour scales", {
  f <- plot_fixture()
  p <- plot(f$pd, f$al, variables = "wt", ncol = 1, scales = "free",
            title = "Weight", subtitle = "PD and AL") +
    ggplot2::scale_colour_brewer(palette = "Dark2")
  expect_equal(p$labels$title, "Weight")
  expect_equal(p$labels$subtitle, "PD and AL")
  lines <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  expect_equal(length(unique(lines$PANEL)), 1)
  expect_equal(sort(unique(lines$colour)), sort(c("#1B9E77", "#D95F02")))
  expect_equal(p$facet$params$free, list(x = TRUE, y = TRUE))
  expect_equal(ggplot2::autoplot(f$pd)$labels, plot(f$pd)$labels)
})

test_that("plot snapshots", {
  f <- plot_fixture()
  expect_doppelganger("pd-ld-al", plot(f$pd, f$ld, f$al))
  expect_doppelganger("ice-centred", plot(f$pd, geom = "profiles", center = "first"))
  expect_doppelganger("ice-points", plot(f$pd, geom = "points"))
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pd <- model_profile(NULL, d, predict_function = function(m, newdata) newdata$x * as.integer(newdata$g),
                      variables = "g")
  expect_doppelganger("factor", plot(pd))
  expect_doppelganger("ice-derivatives", plot(f$pd, geom = "derivatives", max_curves = 20))
  d <- data.frame(size = factor(rep(c("Fair", "Good", "Very Good", "Premium", "Ideal"), 4)),
                  grade = factor(rep(c("I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"), length.out = 20)),
                  w = seq(0, 1, length.out = 20))
  pf <- function(m, newdata) as.integer(newdata$size) + as.integer(newdata$grade) / 2 + newdata$w
  pd <- model_profile(NULL, d, predict_function = pf, variables = c("size", "grade"))
  expect_doppelganger("factor-long-levels", plot(pd))
})

test_that("unknown plot arguments name themselves", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  pd <- model_profile(fit, mtcars[c("wt", "hp")], grid_points = 5)
  expect_error(plot(pd, facet_ncol = 2), "facet_ncol")
  expect_error(plot(pd, color = "red"), "Unknown argument.*color")
  expect_s3_class(plot(pd, ncol = 1), "ggplot")
  h <- h_statistic(fit, mtcars[c("wt", "hp")], pairs = 1, N = NULL)
  expect_error(plot(h, color = "red"), "color")
})

test_that("geom = 'points' with subgroups and clusters: each row's point on its own curve", {
  set.seed(2)
  X <- data.frame(a = runif(40), b = runif(40), g = factor(sample(c("u", "v"), 40, TRUE)))
  fit <- lm(y ~ a * b + g, data = cbind(X, y = X$a * X$b + rnorm(40)))
  # Grids from the minimum to the maximum: the lm is linear in a, so a row's
  # prediction lies on its ICE curve, interpolated exactly.
  sp <- list(a = range(X$a), b = range(X$b))
  for (res in list(model_profile(fit, X, variables = c("a", "b"), N = NULL, variable_splits = sp, groups = "g"),
                   model_profile(fit, X, variables = c("a", "b"), N = NULL, variable_splits = sp, k = 2))) {
    p <- plot(res, geom = "points")
    pts <- ggplot2::layer_data(p, layer_at(p, "GeomPoint"))
    expect_identical(nrow(pts), 2L * 40L)
    own <- layer_of(p, "GeomPoint")
    expect_equal(sort(own$`_yhat_`[own$`_vname_` == "a"]), sort(unname(predict(fit, X))), tolerance = 1e-12)
    expect_equal(sort(own$`_x_`[own$`_vname_` == "b"]), sort(X$b))
  }
})

test_that("labels written into agr_profiles (the book's relabelling) are the legend's entries", {
  f <- plot_fixture()
  pd <- f$pd
  al <- f$al
  pd$agr_profiles$`_label_` <- "partial"
  al$agr_profiles$`_label_` <- "accumulated"
  p <- plot(pd, al)
  lines <- ggplot2::layer_data(p, layer_at(p, "GeomLine"))
  expect_length(unique(lines$colour), 2L)
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`), c("partial", "accumulated"))
  expect_equal(sort(lines$y), sort(c(pd$agr_profiles$`_yhat_`, al$agr_profiles$`_yhat_`)))
  # The ICE curves of a relabelled result follow its new label.
  pc <- plot(pd, geom = "profiles")
  expect_identical(unique(as.character(layer_of(pc, "GeomLine")$`_label_`)), "partial")
  expect_identical(unique(as.character(layer_of(pc, "GeomLine", n = 2)$`_label_`)), "partial")
})

test_that("profiles without ICE curves are drawn alone for geom = 'profiles' and 'points', saying why", {
  f <- plot_fixture()
  expect_snapshot(p <- plot(f$al, geom = "profiles"))
  expect_length(p$layers, 2L) # the profile and the rug
  expect_equal(sort(ggplot2::layer_data(p, 1)$y), sort(f$al$agr_profiles$`_yhat_`))
  # The chart itself says why (a message is easily missed).
  expect_identical(p$labels$caption,
                   "No ICE curves: interval AL predicts each row only at the edges of its interval (method = \"kernel\" keeps curves)")
  expect_message(p <- plot(f$al, geom = "points"), "drawn without them")
  expect_length(p$layers, 2L)
  expect_match(p$labels$caption, "No ICE curves: interval AL", fixed = TRUE)
  # Centred: both captions, one a line.
  p <- suppressMessages(plot(f$al, geom = "profiles", center = "first"))
  expect_identical(strsplit(p$labels$caption, "\n")[[1]][1], "Each curve minus its value at the first grid point")
  expect_null(plot(f$al)$labels$caption)
  # With curves of another result: those curves, and both profiles.
  expect_message(p <- plot(f$pd, f$al, geom = "profiles"), "Interval AL")
  cu <- layer_of(p, "GeomLine")
  expect_identical(unique(as.character(cu$`_label_`)), "partial dependence")
  expect_identical(nrow(cu), nrow(as.data.frame(f$pd$cp_profiles)))
  expect_length(unique(ggplot2::layer_data(p, layer_at(p, "GeomLine", n = 2))$colour), 2L)
  pd0 <- model_profile(f$fit, f$X, variables = "wt", keep_ice = FALSE)
  expect_snapshot(p <- plot(pd0, geom = "profiles"))
})

test_that("results of different classes of one model in one chart: a warning, also when the legend names them", {
  skip_if_not_installed("nnet")
  fit <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  a <- model_profile(fit, iris[1:4], variables = "Sepal.Length", class = "setosa", grid_points = 5)
  b <- model_profile(fit, iris[1:4], variables = "Sepal.Length", class = "virginica", grid_points = 5)
  expect_warning(p <- plot(a, b), "mixes classes of one model: \"multinom\" is drawn for classes \"setosa\" and \"virginica\"")
  expect_length(unique(ggplot2::layer_data(p, layer_at(p, "GeomLine"))$colour), 2L)
  # One class twice, or all classes in one result: no warning.
  expect_no_warning(plot(a, a))
  expect_no_warning(plot(model_profile(fit, iris[1:4], variables = "Sepal.Length", grid_points = 5)))
})

test_that("plot snapshots: bands named, coinciding profiles, date axis", {
  f <- plot_fixture()
  pa <- model_profile(f$fit, f$X, variables = c("wt", "hp"), bands = "analytic", grid_points = 21)
  pb <- model_profile(f$fit, f$X, variables = c("wt", "hp"), grid_points = 21,
                      bands = profile_bands("bootstrap", level = 0.8, B = 30), seed = 1)
  expect_doppelganger("bands-named", plot(pa, pb))
  expect_doppelganger("coinciding", plot(f$pd, f$pd))
  d <- data.frame(day = as.Date("2020-01-01") + 0:365, z = sin(1:366))
  fd <- lm(y ~ day + z, data = transform(d, y = as.numeric(day) %% 30 + z))
  expect_doppelganger("date-axis", plot(model_profile(fd, d, variables = "day", grid_points = 7), geom = "profiles", max_curves = 10))
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(mpg ~ wt + hp + qsec, data = mtcars, num.trees = 50, seed = 1, num.threads = 1)
  expect_doppelganger("bands-trees", plot(model_profile(rf, f$X, variables = c("wt", "hp"), bands = "trees")))
})
