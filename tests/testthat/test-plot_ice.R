# plot() of ICE curves (R/plot_ice.R): the curves of each variable, as
# ingredients' plot of ceteris-paribus profiles draws them, the rows' own
# points, and ingredients' layers added to it.

ice_data <- function(n = 300) {
  set.seed(11)
  X <- data.frame(a = rnorm(n), b = runif(n), f = factor(sample(c("u", "v", "w"), n, TRUE)))
  X$y <- X$a * X$b + (X$f == "v") + rnorm(n)
  X
}

test_that("plot() of the curves draws each variable's curves, as ingredients' plot does", {
  D <- ice_data(30)
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  res <- model_profile(fit, X, N = NULL, grid_points = 5)
  cp <- res$cp_profiles
  p <- plot(cp)
  expect_s3_class(p, "ggplot")
  ld <- ggplot2::layer_data(p, 1)
  # The numeric variables (as ingredients' default), every row's curve.
  expect_identical(nrow(ld), sum(cp$`_vname_` %in% c("a", "b")))
  expect_equal(sort(ld$y), sort(cp$`_yhat_`[cp$`_vname_` %in% c("a", "b")]), tolerance = 1e-12)
  expect_identical(p$labels$y, "prediction")
  # The categorical one as points, unjoined.
  pf <- plot(cp, variable_type = "categorical")
  expect_s3_class(pf$layers[[1]]$geom, "GeomPoint")
  expect_identical(nrow(ggplot2::layer_data(pf, 1)), sum(cp$`_vname_` == "f"))
  # A few rows: their own points are marked, at their predictions.
  p3 <- plot(cp, max_curves = 3, variables = "a")
  pts <- ggplot2::layer_data(p3, 2)
  obs <- attr(cp, "observations")
  expect_identical(nrow(pts), 3L)
  shown <- obs[obs$`_ids_` %in% res$rows[unique(round(seq(1, 30, length.out = 3)))], ]
  expect_equal(sort(pts$x), sort(shown$a))
  expect_equal(sort(pts$y), sort(unname(predict(fit, D[shown$`_ids_`, ]))), tolerance = 1e-12)
  # The profile added as ingredients adds it: a line per variable, at PD.
  if (requireNamespace("ingredients", quietly = TRUE)) {
    q <- plot(cp) + ingredients::show_aggregated_profiles(res$agr_profiles[res$agr_profiles$`_vname_` != "f", ])
    agr <- ggplot2::layer_data(q, 2)
    expect_equal(sort(agr$y), sort(res$agr_profiles$`_yhat_`[res$agr_profiles$`_vname_` != "f"]), tolerance = 1e-12)
  }
  # ingredients' other arguments: bars or lines for categories, columns of panels.
  expect_s3_class(plot(cp, variable_type = "categorical", categorical_type = "bars")$layers[[1]]$geom, "GeomCol")
  expect_s3_class(plot(cp, variable_type = "categorical", categorical_type = "lines")$layers[[1]]$geom, "GeomLine")
  expect_identical(plot(cp, facet_ncol = 1)$facet$params$ncol, 1L)
  expect_error(plot(cp, cp), "draws one set of curves")
  expect_error(plot(cp, categorical_type = "pie"), "categorical_type")
  expect_error(plot(cp, variables = "zz"), "variables")
  expect_error(plot(cp, max_curves = 0), "max_curves")
  expect_error(plot(cp, variable_type = "num"), "variable_type")
})

test_that("plot() of curves of both kinds says, once a session, which variables it leaves out and how to draw them", {
  D <- ice_data(30)
  fit <- lm(y ~ a * b + f, data = D)
  cp <- model_profile(fit, D[c("a", "b", "f")], N = NULL, grid_points = 5)$cp_profiles
  old <- options(rlib_message_verbosity = "verbose")
  on.exit(options(old), add = TRUE)
  expect_message(plot(cp), "Drawing the numerical variables; a chart has one kind of x axis")
  expect_message(plot(cp), "Draw \"f\" with `plot\\(x, variable_type = \"categorical\"\\)`")
  expect_message(plot(cp, variable_type = "categorical"), "Draw \"a\" and \"b\" with")
  # Nothing left out, nothing said.
  expect_no_message(plot(cp, variables = c("a", "b")))
})

test_that("panels follow the order of the user's variables (trial 9)", {
  D <- ice_data(30)
  fit <- lm(y ~ a * b + f, data = D)
  X <- D[c("a", "b", "f")]
  cp <- predict_profile(fit, X[3, ], data = X, grid_points = 5)
  p <- plot(cp, variables = c("b", "a"))
  b <- ggplot2::ggplot_build(p)
  expect_identical(levels(b$layout$layout$`_vname_`), c("b", "a"))
  # Panel 1 is b's profile, the model's predictions over b's grid.
  lines <- b$data[[1]]
  grid_b <- seq(min(X$b), max(X$b), length.out = 5)
  expect_equal(lines$x[lines$PANEL == 1], grid_b)
  expect_equal(lines$y[lines$PANEL == 1], unname(predict(fit, transform(X[rep(3, 5), ], b = grid_b))),
               tolerance = 1e-12)
  # The observation's point on each panel at its own value.
  pts <- b$data[[2]]
  expect_equal(pts$x[order(pts$PANEL)], c(X$b[3], X$a[3]))
  expect_identical(levels(ggplot2::ggplot_build(plot(cp, variables = c("a", "b")))$layout$layout$`_vname_`),
                   c("a", "b"))
  # (And the profiles' own order without `variables`.)
  cp2 <- predict_profile(fit, X[3, ], variables = c("b", "a"), data = X, grid_points = 5)
  expect_identical(levels(ggplot2::ggplot_build(plot(cp2))$layout$layout$`_vname_`), c("b", "a"))
  expect_doppelganger("ice-variables-in-user-order", p)
})
