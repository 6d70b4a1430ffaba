# What a chart of profiles says in words (R/plot_labels.R): the bands'
# kinds and levels, titles, coinciding profiles (issue 41, rows 2, 7, 9).

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
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`), c("lm, 95% analytic band", "lm, 90% bootstrap band"))
  expect_identical(p$labels$caption, paste0(
    "Bands: 95% analytic band, 90% bootstrap band (pointwise)\n",
    "Dashed: \"lm, 90% bootstrap band\" coincides with \"lm, 95% analytic band\""))
  # One result with bands, one without: each entry's band.
  p0 <- model_profile(fit, X, grid_points = 5, label = "plain")
  expect_identical(plot(pa, p0)$labels$caption,
                   "Bands (pointwise): lm: 95% analytic band\nDashed: \"plain\" coincides with \"lm\"")
  expect_identical(band_name(list(type = "trees", level = 0.9)), "per-tree 5-95% spread")
  expect_identical(band_name(list(type = "infjack", level = 0.95)), "95% infinitesimal-jackknife band")
  skip_if_not_installed("ranger")
  rf <- ranger::ranger(mpg ~ wt + hp, data = mtcars, num.trees = 40, seed = 1, num.threads = 1)
  pt <- model_profile(rf, X, variables = "wt", grid_points = 7, bands = "trees")
  pr <- model_profile(rf, X, variables = "wt", grid_points = 7, bands = "analytic")
  p <- plot(pt, pr)
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`),
                   c("ranger, per-tree 2.5-97.5% spread", "ranger, 95% analytic band"))
  expect_match(p$labels$caption, "Bands: per-tree 2.5-97.5% spread, 95% analytic band (pointwise, the trees' spread with dashed edges)",
               fixed = TRUE)
  # The analytic band a filled ribbon, the trees' spread fainter with
  # dashed edges at its limits: the first layers of the profiles (after the
  # veil where the PD extrapolates).
  geoms <- vapply(p$layers, function(l) class(l$geom)[1L], character(1))
  k <- layer_at(p, "GeomRibbon") + 0:3
  expect_identical(geoms[k], c("GeomRibbon", "GeomRibbon", "GeomLine", "GeomLine"))
  expect_true(all(geoms[seq_len(k[1L] - 1L)] == "GeomRect"))
  expect_identical(c(p$layers[[k[1]]]$aes_params$alpha, p$layers[[k[2]]]$aes_params$alpha), c(0.2, 0.07))
  expect_identical(p$layers[[k[3]]]$aes_params$linetype, "22")
  lower <- ggplot2::layer_data(p, k[3])
  ours <- pt$agr_profiles
  expect_equal(lower$y[!is.na(lower$y)], ours$`_lower_`)
  # The colours stay in the entries' order (the first layer with colour has
  # one entry's rows).
  cols <- ggplot2::ggplot_build(p)$plot$scales$get_scales("colour")$get_limits()
  expect_identical(cols, levels(layer_of(p, column = "_label_")$`_label_`))
})


test_that("coinciding profiles stay visible: dashed, with a note; others solid (row 7)", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, grid_points = 6)
  p <- plot(pd, pd)
  a <- layer_of(p, column = "_label_")
  expect_identical(unique(a$`_dash_`[a$`_label_` == "lm, result 1"]), "solid")
  expect_identical(unique(a$`_dash_`[a$`_label_` == "lm, result 2"]), "dashed")
  expect_identical(unique(ggplot2::layer_data(p, layer_at(p, "GeomLine"))$linetype), c("solid", "dashed"))
  expect_identical(p$labels$caption, "Dashed: \"lm, result 2\" coincides with \"lm, result 1\"")
  # Different profiles: solid, no note (LD differs from PD here).
  ld <- model_profile(fit, X, grid_points = 6, type = "conditional")
  p2 <- plot(pd, ld)
  expect_identical(unique(layer_of(p2, column = "_label_")$`_dash_`), "solid")
  expect_null(p2$labels$caption)
  # Equal in one panel only (wt: the step in hp averages out): dashed there
  # alone.
  f2 <- function(m, d) d$wt * 2
  f3 <- function(m, d) d$wt * 2 + (d$hp > 150) - mean(X$hp > 150)
  q <- plot(model_profile(NULL, X, predict_function = f2, grid_points = 6, label = "a"),
            model_profile(NULL, X, predict_function = f3, grid_points = 6, label = "b"))
  qa <- layer_of(q, column = "_label_")
  expect_identical(unique(qa$`_dash_`[qa$`_vname_` == "wt" & qa$`_label_` == "b"]), "dashed")
  expect_identical(unique(qa$`_dash_`[qa$`_vname_` == "hp" & qa$`_label_` == "b"]), "solid")
  expect_identical(q$labels$caption, "Dashed: \"b\" coincides with \"a\"")
  q2 <- plot(model_profile(NULL, X, predict_function = f2, grid_points = 6, label = "a"),
             model_profile(NULL, X, predict_function = function(m, d) d$wt * 2 + 1e-9 * d$hp, grid_points = 6,
                           label = "b"))
  expect_identical(q2$labels$caption, "Dashed: \"b\" coincides with \"a\"")
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


test_that("titles, ICE axes and date axes say what they show (row 9)", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, grid_points = 5)
  al <- model_profile(fit, X, type = "accumulated", intervals = 4)
  # A single profile: its type and model; several types: the legend names them.
  expect_identical(plot(pd)$labels$title, "Partial-dependence profile of lm")
  expect_identical(plot(al)$labels$title, "Accumulated-local profile of lm")
  expect_identical(plot(pd, geom = "profiles")$labels$title, "ICE curves and partial-dependence profile of lm")
  expect_identical(plot(pd, al)$labels$title, "Partial-dependence and accumulated-local profiles of lm")
  expect_identical(plot(pd, title = "mine")$labels$title, "mine")
  # ICE curves are predictions; centred ones centred predictions.
  expect_identical(plot(pd)$labels$y, "average prediction")
  expect_identical(plot(pd, geom = "profiles")$labels$y, "prediction")
  expect_identical(plot(pd, geom = "points")$labels$y, "prediction")
  expect_identical(plot(pd, geom = "profiles", center = "first")$labels$y, "centred prediction")
  # Date axes: room on the right for the last tick's label (half of
  # "Jan 2021" at the theme's 8.8 points is about 20 points).
  dd <- data.frame(day = as.Date("2020-01-01") + 0:365, z = sin(1:366))
  fd <- lm(y ~ day + z, data = transform(dd, y = as.numeric(day) %% 30 + z))
  pdd <- plot(model_profile(fd, dd, variables = "day", grid_points = 7))
  expect_identical(as.numeric(pdd$theme$plot.margin), c(5.5, 24, 5.5, 5.5))
  # Two date panels side by side: few enough labels that neighbours stay apart.
  dd$start <- as.Date("2020-01-01") + (0:365 * 7) %% 366
  f2 <- lm(y ~ day + start, data = transform(dd, y = as.numeric(day) %% 30 + as.numeric(start) / 50))
  b2 <- ggplot2::ggplot_build(plot(model_profile(f2, dd, variables = c("day", "start"), grid_points = 7)))
  n_breaks <- vapply(b2$layout$panel_params, function(pp) length(stats::na.omit(pp$x$breaks)), integer(1))
  expect_true(all(n_breaks >= 2L & n_breaks <= 4L))
})

test_that("the getting-started vignette's plot(ours, theirs): DALEX's equal line stays visible (row 7)", {
  skip_if_not_installed("DALEX")
  ex <- DALEX::explain(lm(mpg ~ wt * hp, data = mtcars), data = mtcars[c("wt", "hp")], y = mtcars$mpg,
                       label = "lm", verbose = FALSE)
  ours <- model_profile(ex, c("wt", "hp"), NULL)
  theirs <- DALEX::model_profile(ex, c("wt", "hp"), NULL)
  p <- plot(ours, theirs)
  a <- layer_of(p, column = "_label_")
  expect_identical(unique(a$`_dash_`[a$`_label_` == "partial dependence, DALEX"]), "dashed")
  expect_identical(p$labels$caption, "Dashed: \"partial dependence, DALEX\" coincides with \"partial dependence\"")
})

# The widths, in inches, of a chart's legends and title and of the span of
# its panels (on which the legends are centred), drawn at width x height.
chart_widths <- function(p, width = 7, height = 5) {
  grDevices::pdf(NULL, width = width, height = height)
  on.exit(grDevices::dev.off())
  g <- ggplot2::ggplotGrob(p)
  inches <- function(u) sum(grid::convertWidth(u, "in", valueOnly = TRUE))
  box <- g$grobs[which(g$layout$name == "guide-box")]
  panels <- g$layout[grepl("^panel", g$layout$name), ]
  title <- g$grobs[[which(g$layout$name == "title")]]
  c(legend = if (length(box) && inherits(box[[1]], "gtable")) inches(box[[1]]$widths) else 0, title = inches(grid::grobWidth(title)),
    panels = width - inches(g$widths[-(min(panels$l):max(panels$r))]))
}

test_that("three types of one model: a title, and legends that fit at 7 x 5 inches (trial 7)", {
  set.seed(4)
  n <- 300
  X <- data.frame(x1 = runif(n, 0, 10), x2 = runif(n, 0, 10))
  X$x2 <- X$x2 + X$x1 # (correlated: PD extrapolates, its veil and legend are drawn)
  fit <- lm(y ~ x1 * x2, data = transform(X, y = x1 * x2 + rnorm(n)))
  args <- list(fit, X, label = "ranger", grid_points = 11, N = NULL)
  pd <- do.call(model_profile, args)
  ld <- do.call(model_profile, c(args, type = "conditional"))
  al <- model_profile(fit, X, label = "ranger", N = NULL, type = "accumulated")
  p <- plot(pd, ld, al)
  expect_identical(p$labels$title, "Partial-dependence, local-dependence and accumulated-local\nprofiles of ranger")
  expect_identical(p$labels$colour, "ranger")
  expect_true(any(vapply(p$scales$scales, function(s) any(grepl("extrapolates", s$name)), logical(1))))
  w <- chart_widths(p)
  expect_lte(w[["legend"]], w[["panels"]])
  expect_lte(w[["title"]], w[["panels"]])
  # (Side by side, the two legends were wider than the panels.)
  side <- chart_widths(p + ggplot2::theme(legend.box = "horizontal"))
  expect_gt(side[["legend"]], side[["panels"]])
  expect_doppelganger("three-types-one-model", p)
})

test_that("the ICE chart's title is one line where it fits at 7 inches, else wrapped at a word (trial 8)", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, grid_points = 5, label = "ranger")
  p <- plot(pd, geom = "profiles")
  expect_identical(p$labels$title, "ICE curves and partial-dependence profile of ranger")
  w <- chart_widths(p)
  expect_lte(w[["title"]], w[["panels"]])
  # A long label: lines of at most 60 characters, broken between words.
  long <- model_profile(fit, X, grid_points = 5, label = "a random forest of 500 trees on the Boston data")
  title <- plot(long, geom = "profiles")$labels$title
  lines <- strsplit(title, "\n", fixed = TRUE)[[1]]
  expect_identical(paste(lines, collapse = " "),
                   "ICE curves and partial-dependence profile of a random forest of 500 trees on the Boston data")
  expect_true(all(nchar(lines) <= 60L))
  w <- chart_widths(plot(long, geom = "profiles"))
  expect_lte(w[["title"]], w[["panels"]])
})
