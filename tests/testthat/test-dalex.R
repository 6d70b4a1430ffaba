# DALEX as a drop-in (R/dalex.R, R/plot_profile.R): DALEX's positional call and
# arguments, the same numbers as DALEX::model_profile(), results drawn by
# either package's plot method, explainer weights, and the order of
# attaching.

test_that("an explainer takes DALEX's positional order: model_profile(explainer, variables, N)", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  ex <- k$ex
  a <- model_profile(ex, "wt", grid_points = 4)
  expect_identical(a$variables, "wt")
  a <- model_profile(ex, c("wt", "hp"), 10, grid_points = 4)
  expect_identical(a$variables, c("wt", "hp"))
  expect_identical(a$N, 10L)
  expect_identical(model_profile(ex, "wt", NULL, grid_points = 4)$N, 32L)
  expect_identical(model_profile(ex, NULL, 12, grid_points = 4)$N, 12L)
  b <- model_profile(ex, variables = "hp", 10, grid_points = 4)
  expect_identical(b$variables, "hp")
  expect_identical(b$N, 10L)
  # A data frame given second is the background data, as for a model.
  d <- model_profile(ex, k$X[1:20, ], variables = "wt", grid_points = 4)
  expect_identical(d$N, 20L)
  # A plain model keeps the package's order: model_profile(fit, data, ...).
  m <- model_profile(k$fit, k$X, NULL, "wt", N = NULL, grid_points = 4)
  expect_identical(m$variables, "wt")
  expect_identical(m$N, 32L)
  expect_snapshot(model_profile(ex, "wt", 10, "partial"), error = TRUE)
  # Called from a function that passes its `...` on, or by do.call().
  f <- function(...) model_profile(...)
  expect_identical(f(ex, "wt", NULL, grid_points = 4)$N, 32L)
  g <- function(e, ...) model_profile(e, ...)
  r <- g(ex, c("hp", "wt"), 11, grid_points = 4)
  expect_identical(r$variables, c("hp", "wt"))
  expect_identical(r$N, 11L)
  expect_identical(g(ex, variables = "hp", 11, grid_points = 4)$N, 11L)
  expect_identical(do.call(model_profile, list(ex, "wt", 9, grid_points = 4))$N, 9L)
})

test_that("PD equals DALEX::model_profile() for numerical and categorical variables", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  ours <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  theirs <- DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  a <- agr_xy(ours$agr_profiles)
  b <- agr_xy(theirs$agr_profiles)
  expect_identical(a$v, b$v)
  expect_equal(a$x, b$x, tolerance = 1e-10)
  expect_equal(a$y, b$y, tolerance = 1e-10)
  # DALEX's variable_type.
  oc <- model_profile(k$ex, N = NULL, variable_type = "categorical")
  expect_identical(oc$variables, "cyl")
  tc <- DALEX::model_profile(k$ex, N = NULL, variable_type = "categorical")
  a <- agr_xy(oc$agr_profiles)
  b <- agr_xy(tc$agr_profiles)
  expect_identical(as.character(a$x), as.character(b$x))
  expect_equal(a$y, b$y, tolerance = 1e-10)
  expect_identical(model_profile(k$ex, N = 5, variable_type = "numerical", grid_points = 3)$variables, c("wt", "hp"))
  expect_snapshot({
    r <- model_profile(k$ex, c("wt", "cyl"), 5, variable_type = "numerical", grid_points = 3)
  })
  expect_identical(r$variables, "wt")
  expect_snapshot(model_profile(k$ex, "cyl", variable_type = "numerical"), error = TRUE)
  expect_snapshot(model_profile(k$ex, variable_type = "factors"), error = TRUE)
})

test_that("LD equals DALEX's conditional profile at its bandwidth, span times the grid's range", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  theirs <- DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, type = "conditional")
  bw <- vapply(k$sp, function(g) 0.25 * diff(range(g)), numeric(1))
  ours <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, type = "conditional",
                        bandwidth = bw)
  expect_equal(agr_xy(ours$agr_profiles)$y, agr_xy(theirs$agr_profiles)$y, tolerance = 1e-10)
  # DALEX's span gives that bandwidth.
  sp <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, type = "conditional", span = 0.25)
  expect_equal(sp$bandwidth, bw, tolerance = 1e-14)
  expect_equal(sp$agr_profiles$`_yhat_`, ours$agr_profiles$`_yhat_`, tolerance = 1e-14)
  theirs5 <- DALEX::model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"], type = "conditional", span = 0.5)
  sp5 <- model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"], type = "conditional", span = 0.5)
  expect_equal(sp5$agr_profiles$`_yhat_`, theirs5$agr_profiles$`_yhat_`, tolerance = 1e-10)
  # Without variable_splits: the range of the data, which the grid spans.
  d <- model_profile(k$ex, "wt", NULL, type = "conditional", span = 0.25, grid_points = 7)
  expect_equal(unname(d$bandwidth), 0.25 * diff(range(k$X$wt)), tolerance = 1e-14)
  expect_equal(range(d$grids$wt), range(k$X$wt))
  expect_snapshot(model_profile(k$ex, "wt", span = 0.25), error = TRUE)
  expect_snapshot(model_profile(k$ex, "wt", type = "accumulated", span = 0.25), error = TRUE)
  expect_error(model_profile(k$ex, "wt", type = "conditional", span = 0.25, bandwidth = 1), "not both")
  expect_error(model_profile(k$ex, "wt", type = "conditional", span = -1), "positive")
  # A categorical variable keeps its indicator weights.
  expect_identical(model_profile(k$ex, "cyl", NULL, type = "conditional", span = 0.25)$variables, "cyl")
})

test_that("the default bandwidth, Silverman's rule, not DALEX's span, is listed among the differences (trial 3)", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  own <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, type = "conditional")
  expect_equal(own$bandwidth, c(wt = stats::bw.nrd0(k$X$wt), hp = stats::bw.nrd0(k$X$hp)), tolerance = 1e-14)
  theirs <- DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, type = "conditional")
  expect_gt(max(abs(agr_xy(own$agr_profiles)$y - agr_xy(theirs$agr_profiles)$y)), 0.1)
  # The help page says so where it lists the differences from DALEX.
  rd <- tools::Rd_db("modelprofiles")[["model_profile.Rd"]]
  text <- paste(gsub("\\s+", " ", capture.output(tools::Rd2txt(rd, options = list(width = 1000)))), collapse = " ")
  differ <- sub(".*Where they differ, on purpose:", "", text)
  expect_match(differ, "the kernel's default bandwidth (LD profiles, and kernel AL) is Silverman's rule", fixed = TRUE)
  expect_match(differ, "DALEX's is 'span = 0.25' of the range of the variable's grid", fixed = TRUE)
})

test_that("center is DALEX's name for cluster_center", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  a <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, k = 3, center = FALSE)
  # (cluster_center is deprecated: groups = profile_clusters(3, center = FALSE).)
  expect_warning(b <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, k = 3, cluster_center = FALSE),
                 class = "modelprofiles_deprecated")
  expect_identical(a$agr_profiles, b$agr_profiles)
  c <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp, k = 3)
  expect_false(identical(a$agr_profiles$`_yhat_`, c$agr_profiles$`_yhat_`))
  # The clusters of curves by their values are DALEX's (up to numbering).
  theirs <- suppressWarnings(DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp,
                                                  k = 3, center = FALSE))
  curve_set <- function(a) {
    a <- as.data.frame(structure(a, class = "data.frame"))
    a <- a[order(a$`_label_`, a$`_vname_`, a$`_x_`), ]
    curves <- split(round(a$`_yhat_`, 8), a$`_label_`)
    unname(curves[order(vapply(curves, `[`, numeric(1), 1))])
  }
  expect_equal(curve_set(a$agr_profiles), curve_set(theirs$agr_profiles))
  expect_snapshot(model_profile(k$ex, "wt", k = 2, center = FALSE, cluster_center = TRUE), error = TRUE)
  expect_error(model_profile(k$ex, "wt", center = "yes"), "TRUE")
})

test_that("an explainer's weights are used, said once a session", {
  skip_if_not_installed("DALEX")
  w <- rep(1:2, length.out = 32)
  k <- dalex_case(weights = w)
  rlang::reset_message_verbosity("modelprofiles_explainer_weights")
  expect_snapshot(a <- model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"]))
  expect_no_message(b <- model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"]))
  expect_identical(a$agr_profiles, b$agr_profiles)
  own <- model_profile(k$fit, k$X, variables = "wt", N = NULL, variable_splits = k$sp["wt"], weights = w)
  expect_equal(a$agr_profiles$`_yhat_`, own$agr_profiles$`_yhat_`, tolerance = 1e-12)
  # DALEX ignores them; weights of 1 give DALEX's numbers.
  theirs <- DALEX::model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"])
  expect_gt(max(abs(a$agr_profiles$`_yhat_` - theirs$agr_profiles$`_yhat_`)), 0.01)
  one <- model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"], weights = rep(1, 32))
  expect_equal(one$agr_profiles$`_yhat_`, theirs$agr_profiles$`_yhat_`, tolerance = 1e-10)
  # Equal weights do not change the numbers: no message.
  rlang::reset_message_verbosity("modelprofiles_explainer_weights")
  k1 <- dalex_case(weights = rep(3, 32))
  expect_no_message(model_profile(k1$ex, "wt", NULL, variable_splits = k$sp["wt"]))
})

test_that("plot(ours, DALEX's) draws both in one chart, for each geom", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  ours <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  theirs <- DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  p <- plot(ours, theirs)
  d <- ggplot2::layer_data(p, layer_at(p, column = "_label_"))
  expect_identical(nrow(d), 22L)
  expect_length(unique(d$colour), 2L)
  expect_equal(levels(layer_of(p, column = "_label_")$`_label_`), c("partial dependence", "partial dependence, DALEX"))
  expect_identical(p$labels$colour, "lm")
  # The two lines coincide.
  by_colour <- split(d$y, d$colour)
  expect_equal(by_colour[[1]], by_colour[[2]], tolerance = 1e-10)
  # And in the other order after the first, several of each.
  p2 <- plot(ours, theirs, theirs)
  expect_length(unique(ggplot2::layer_data(p2, layer_at(p2, column = "_label_"))$colour), 3L)
  # ICE curves of both: 32 curves each, on 6 + 5 grid points.
  pp <- plot(ours, theirs, geom = "profiles")
  cu <- ggplot2::layer_data(pp, layer_at(pp, column = "_label_"))
  expect_identical(nrow(cu), 2L * 32L * 11L)
  expect_length(unique(paste(cu$PANEL, cu$group)), 2L * 32L * 2L)
  pts <- ggplot2::layer_data(po <- plot(ours, theirs, geom = "points"), layer_at(po, "GeomPoint"))
  expect_identical(nrow(pts), 2L * 32L * 2L)
  # Subgroups of a DALEX result are named by their group.
  tg <- DALEX::model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"], groups = "cyl")
  pg <- plot(ours, tg, variables = "wt")
  expect_setequal(unique(as.character(layer_of(pg, column = "_label_")$`_label_`)),
                  c("partial dependence", paste0("partial dependence, DALEX: ", c(4, 6, 8))))
  expect_error(plot(ours, list(1)), "DALEX")
  expect_snapshot(plot(ours, facet_ncol = 1), error = TRUE)
})

test_that("geom = 'bars', variable_type and a logical center in plot()", {
  skip_if_not_installed("DALEX")
  k <- dalex_case()
  oc <- model_profile(k$ex, "cyl", NULL)
  tc <- DALEX::model_profile(k$ex, "cyl", NULL, variable_type = "categorical")
  p <- plot(oc, tc, geom = "bars")
  d <- ggplot2::layer_data(p, 1)
  expect_s3_class(p$layers[[1]]$geom, "GeomCol")
  expect_identical(nrow(d), 6L)
  expect_length(unique(d$fill), 2L)
  expect_equal(d$ymin, rep(0, 6))
  by_fill <- split(d$y, d$fill)
  expect_equal(by_fill[[1]], by_fill[[2]], tolerance = 1e-10)
  # Side by side: the bars of one level do not overlap.
  expect_true(all(d$xmax[1:3] <= d$xmin[4:6] + 1e-12 | d$xmin[1:3] >= d$xmax[4:6] - 1e-12))
  all3 <- model_profile(k$ex, NULL, NULL, variable_splits = k$sp)
  expect_identical(unique(as.character(plot(all3, geom = "bars")$layers[[1]]$data$`_vname_`)), "cyl")
  expect_identical(unique(as.character(plot(all3, variable_type = "categorical")$layers[[1]]$data$`_vname_`)), "cyl")
  expect_silent(p <- plot(all3, variable_type = "numerical"))
  expect_setequal(unique(as.character(layer_of(p, column = "_label_")$`_vname_`)), c("wt", "hp"))
  expect_error(plot(all3, geom = "bars", variable_type = "numerical"), "categorical")
  expect_error(plot(model_profile(k$ex, "wt", 5, grid_points = 3), geom = "bars"), "No categorical")
  # center = TRUE is "mean", FALSE none.
  pd <- model_profile(k$ex, "wt", NULL, variable_splits = k$sp["wt"])
  expect_equal(ggplot2::layer_data(plot(pd, geom = "profiles", center = TRUE), 1),
               ggplot2::layer_data(plot(pd, geom = "profiles", center = "mean"), 1))
  expect_equal(ggplot2::layer_data(plot(pd, geom = "profiles", center = FALSE), 1),
               ggplot2::layer_data(plot(pd, geom = "profiles"), 1))
})

test_that("as_dalex(): DALEX's and ingredients' plot methods draw ours as their own", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ingredients")
  k <- dalex_case()
  ours <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  theirs <- DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  dx <- as_dalex(ours)
  expect_s3_class(dx, "model_profile")
  expect_s3_class(dx$agr_profiles, c("aggregated_profiles_explainer", "partial_dependence_explainer", "data.frame"),
                  exact = TRUE)
  expect_named(dx$agr_profiles, names(theirs$agr_profiles))
  expect_s3_class(dx$cp_profiles, c("ceteris_paribus_explainer", "data.frame"), exact = TRUE)
  # Every column of the data, as DALEX's.
  expect_named(dx$cp_profiles, names(theirs$cp_profiles))
  expect_identical(dx$cp_profiles$cyl[dx$cp_profiles$`_vname_` == "wt"],
                   theirs$cp_profiles$cyl[theirs$cp_profiles$`_vname_` == "wt"])
  # DALEX's plot of each: the same layers, the same numbers.
  for (geom in c("aggregates", "profiles", "points")) {
    a <- ggplot2::ggplot_build(plot(dx, geom = geom))$data
    b <- ggplot2::ggplot_build(plot(theirs, geom = geom))$data
    expect_identical(lengths(a), lengths(b))
    for (i in seq_along(a)) {
      sa <- a[[i]][order(a[[i]]$PANEL, a[[i]]$x, a[[i]]$y), c("x", "y", "PANEL")]
      sb <- b[[i]][order(b[[i]]$PANEL, b[[i]]$x, b[[i]]$y), c("x", "y", "PANEL")]
      rownames(sa) <- rownames(sb) <- NULL
      expect_equal(sa, sb, tolerance = 1e-10)
    }
  }
  # DALEX's plot, both results in one chart (told apart by their labels).
  p <- plot(theirs, as_dalex(ours, label = "lm, modelprofiles"))
  d <- ggplot2::layer_data(p, 1)
  expect_identical(nrow(d), 22L)
  expect_length(unique(d$colour), 2L)
  # ingredients' own plot methods.
  expect_equal(ggplot2::layer_data(plot(dx$agr_profiles))[c("x", "y")],
               ggplot2::layer_data(plot(theirs$agr_profiles))[c("x", "y")], tolerance = 1e-10)
  # Categorical variables: DALEX's bars.
  oc <- model_profile(k$ex, NULL, NULL, variable_splits = k$sp)
  expect_snapshot(dc <- as_dalex(oc))
  expect_identical(unique(dc$agr_profiles$`_vname_`), c("wt", "hp"))
  dcat <- as_dalex(oc, variable_type = "categorical")
  tcat <- DALEX::model_profile(k$ex, "cyl", NULL, variable_type = "categorical")
  bars <- ggplot2::layer_data(plot(tcat, as_dalex(oc, variable_type = "categorical", label = "mp")), 1)
  expect_identical(nrow(bars), 6L)
  expect_length(unique(bars$fill), 2L)
  expect_equal(ggplot2::layer_data(plot(dcat))$y, ggplot2::layer_data(plot(tcat))$y, tolerance = 1e-10)
  # AL: DALEX's class.
  al <- model_profile(k$ex, "wt", NULL, type = "accumulated", grid = profile_grids(intervals = 5))
  expect_s3_class(as_dalex(al)$agr_profiles, "accumulated_dependence_explainer")
  expect_null(as_dalex(al)$cp_profiles)
  expect_error(as_dalex(theirs), "model_profile")
})

test_that("as_dalex() of subgroups and clusters: each observation on its own curve", {
  set.seed(3)
  X <- data.frame(a = rnorm(60), b = runif(60), f = factor(sample(c("u", "v", "w"), 60, TRUE)))
  fit <- lm(y ~ a * b + f, data = cbind(X, y = X$a * X$b + (X$f == "v") + rnorm(60)))
  for (res in list(model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, groups = "f"),
                   model_profile(fit, X, variables = c("a", "b"), N = NULL, grid_points = 5, k = 2))) {
    cp <- as_dalex(res)$cp_profiles
    expect_identical(class(cp), c("ceteris_paribus_explainer", "data.frame"))
    expect_identical(nrow(cp), nrow(res$cp_profiles))
    obs <- attr(cp, "observations")
    # lm is linear in a, given b: its curve interpolates the prediction.
    expect_equal(obs$`_yhat_`, unname(predict(fit, X[as.integer(rownames(obs)), ])), tolerance = 1e-10)
  }
})

test_that("whichever package is attached last owns model_profile(); both orders work for an explainer", {
  skip_if_not_installed("DALEX")
  skip_on_cran()
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script), add = TRUE)
  run <- function(first, second) {
    writeLines(c(
      sprintf("suppressPackageStartupMessages({library(%s); library(%s)})", first, second),
      "ex <- DALEX::explain(lm(mpg ~ wt + hp, data = mtcars), data = mtcars[c('wt', 'hp')],",
      "  y = mtcars$mpg, label = 'lm', verbose = FALSE)",
      "sp <- list(wt = c(2, 3, 4))",
      "a <- model_profile(ex, 'wt', NULL, variable_splits = sp)",
      "b <- modelprofiles::model_profile(ex, 'wt', NULL, variable_splits = sp)",
      "c <- DALEX::model_profile(ex, 'wt', NULL, variable_splits = sp)",
      "cat(class(a)[1], class(b)[1], class(c)[1], sep = '\\n')",
      "cat(format(c(b$agr_profiles[['_yhat_']], c$agr_profiles[['_yhat_']]), digits = 17), sep = '\\n')"
    ), script)
    system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script), stdout = TRUE, stderr = TRUE,
            env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  }
  last_dalex <- run("modelprofiles", "DALEX")
  expect_null(attr(last_dalex, "status"))
  expect_identical(last_dalex[1:3], c("model_profile", "mp_profile", "model_profile"))
  y <- as.numeric(last_dalex[4:9])
  expect_equal(y[1:3], y[4:6], tolerance = 1e-12)
  last_ours <- run("DALEX", "modelprofiles")
  expect_null(attr(last_ours, "status"))
  expect_identical(last_ours[1:3], c("mp_profile", "mp_profile", "model_profile"))
  # Attaching the second package says who owns model_profile(), and how to
  # reach modelprofiles' for a model and data when DALEX masks it.
  said <- function(first, second) {
    writeLines(c(sprintf("library(%s)", first), sprintf("library(%s)", second)), script)
    system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script), stdout = TRUE, stderr = TRUE,
            env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  }
  expect_true(any(grepl("modelprofiles::model_profile(fit, data)", said("modelprofiles", "DALEX"), fixed = TRUE)))
  expect_true(any(grepl("DALEX's own is DALEX::model_profile()", said("DALEX", "modelprofiles"), fixed = TRUE)))
})

test_that("plot(as_dalex(x), geom = 'profiles') in a fresh session with DALEX attached draws ingredients' chart", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ingredients")
  skip_on_cran()
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script), add = TRUE)
  writeLines(c(
    "suppressPackageStartupMessages(library(DALEX))",
    "fit <- lm(mpg ~ wt + hp, data = mtcars)",
    "x <- modelprofiles::model_profile(fit, mtcars[c('wt', 'hp')], N = NULL, grid_points = 5)",
    "cat(isNamespaceLoaded('ingredients'), '\\n')",
    "p <- plot(modelprofiles::as_dalex(x), geom = 'profiles')",
    "cat(class(p)[2], nrow(ggplot2::layer_data(p, 1)), '\\n')"
  ), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script), stdout = TRUE, stderr = TRUE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  expect_null(attr(out, "status"))
  expect_identical(trimws(out), c("FALSE", "ggplot 320"))
})

test_that("DALEX's documented plot() calls (?DALEX::model_profile, ?DALEX::plot.model_profile) draw: 15 of 15", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ranger")
  skip_on_cran()
  titanic_imputed <- DALEX::titanic_imputed
  explain <- function(...) DALEX::explain(..., verbose = FALSE)
  set.seed(1)
  titanic_glm_model <- glm(survived ~ ., data = titanic_imputed, family = "binomial")
  explainer_glm <- explain(titanic_glm_model, data = titanic_imputed)
  titanic_ranger_model <- ranger::ranger(survived ~ ., data = titanic_imputed, num.trees = 50,
                                         probability = TRUE, num.threads = 1)
  explainer_ranger <- explain(titanic_ranger_model, data = titanic_imputed)
  quietly <- function(expr) suppressMessages(expr)
  glm_fare <- quietly(model_profile(explainer_glm, "fare"))
  all_vars <- quietly(model_profile(explainer_ranger))
  age_fare <- quietly(model_profile(explainer_ranger, type = "partial", variables = c("age", "fare")))
  k3 <- quietly(model_profile(explainer_ranger, type = "partial", k = 3))
  by_gender <- quietly(model_profile(explainer_ranger, type = "partial", groups = "gender"))
  al <- quietly(model_profile(explainer_ranger, type = "accumulated"))
  ranger_fare <- quietly(model_profile(explainer_ranger, "fare"))
  calls <- list(
    quote(plot(glm_fare)),
    quote(plot(all_vars, geom = "profiles")),
    quote(plot(age_fare, variables = c("age", "fare"), geom = "points")),
    quote(plot(k3, geom = "profiles")),
    quote(plot(by_gender, geom = "profiles")),
    quote(plot(al, geom = "profiles")),
    quote(plot(ranger_fare, glm_fare)),
    quote(plot(all_vars)),
    quote(plot(all_vars, geom = "aggregates")),
    quote(plot(k3)),
    quote(plot(k3, geom = "points")),
    quote(plot(by_gender)),
    quote(plot(by_gender, geom = "points")),
    quote(plot(al)),
    quote(plot(al, geom = "points"))
  )
  numeric_vars <- c("age", "fare", "sibsp", "parch")
  drawn <- 0L
  for (cl in calls) {
    p <- quietly(eval(cl))
    b <- ggplot2::ggplot_build(p)
    expect_gt(nrow(b$data[[1]]), 0L)
    panels <- as.character(unique(layer_of(b$plot, column = "_label_")$`_vname_`))
    expect_true(all(panels %in% numeric_vars), label = deparse(cl))
    drawn <- drawn + 1L
  }
  expect_identical(drawn, 15L)
  # What they draw: clusters and subgroups are told apart (3 and 2 lines a
  # panel), with each observation's point on its curve; two models, two
  # colours.
  expect_length(unique(ggplot2::layer_data(p3 <- quietly(plot(k3)), layer_at(p3, column = "_label_"))$colour), 3L)
  pts <- ggplot2::layer_data(pb <- quietly(plot(by_gender, geom = "points")), layer_at(pb, "GeomPoint"))
  # (At most max_curves = 100 curves a variable, of both subgroups.)
  expect_identical(nrow(pts), 4L * 100L)
  expect_length(unique(ggplot2::layer_data(p2 <- plot(ranger_fare, glm_fare), layer_at(p2, column = "_label_"))$colour), 2L)
})

test_that("a DALEX result of the other class of a classifier is a warning, not a silent mirror image", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ranger")
  set.seed(5)
  d <- data.frame(x = runif(300), z = runif(300))
  d$y <- as.numeric(runif(300) < d$x)
  # ranger orders the columns of a 0/1 response as the classes first appear:
  # "1" first, so DALEX's second column is the probability of "0".
  d <- d[order(-d$y), ][c(1, sample(2:300)), ]
  m <- ranger::ranger(y ~ x + z, data = d, num.trees = 30, probability = TRUE, num.threads = 1, seed = 1)
  expect_identical(colnames(m$predictions), c("1", "0"))
  ex <- DALEX::explain(m, data = d[c("x", "z")], y = d$y, label = "forest", verbose = FALSE)
  ours <- model_profile(ex, "x", NULL, grid_points = 11)
  theirs <- DALEX::model_profile(ex, "x", NULL, grid_points = 11)
  expect_identical(ours$class, "1")
  expect_snapshot(p <- plot(ours, theirs))
  # The chart does not claim our class for DALEX's line: each entry names its own.
  expect_null(p$labels$subtitle)
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`),
                   c("partial dependence, class 1", "partial dependence, DALEX, likely another class"))
  # Ours of class "0" is DALEX's: no warning.
  ours0 <- model_profile(ex, "x", NULL, grid_points = 11, class = "0")
  expect_no_warning(plot(ours0, theirs))
  xy <- agr_xy(ours0$agr_profiles)
  expect_equal(xy$y, stats::approx(theirs$agr_profiles$`_x_`, theirs$agr_profiles$`_yhat_`, xy$x)$y,
               tolerance = 1e-10)
})

# ---- The front door (front_door(), model_profile.explainer(), the generic)

error_call_name <- function(expr) {
  e <- tryCatch(expr, error = function(e) e)
  rlang::call_name(e$call)
}

front_case <- function() {
  set.seed(21)
  X <- data.frame(x1 = runif(150), x2 = runif(150), g = factor(sample(c("a", "b", "c"), 150, TRUE)))
  X$g[c(4, 7)] <- NA
  pf <- function(m, nd) nd$x1 * nd$x2 + ifelse(is.na(nd$g), 2, nd$g == "b") * nd$x1
  list(X = X, pf = pf)
}

test_that("the old arguments give the settings' numbers, with one deprecation warning each", {
  k <- front_case()
  mp <- function(...) suppressMessages(model_profile(NULL, k$X, k$pf, N = NULL, ...))
  # (Counting the deprecation warnings; rows left out for a missing value
  # are warned of by both calls.)
  deprecations <- function(expr) {
    n <- 0L
    value <- withCallingHandlers(expr, warning = function(w) {
      if (inherits(w, "modelprofiles_deprecated")) n <<- n + 1L
      invokeRestart("muffleWarning")
    })
    list(value = value, n = n)
  }
  same <- function(old, new) {
    d <- deprecations(old)
    expect_identical(d$n, 1L)
    expect_identical(d$value$agr_profiles, suppressWarnings(new)$agr_profiles)
  }
  expect_warning(mp(variables = "x1", type = "accumulated", intervals = 6), class = "modelprofiles_deprecated")
  expect_warning(mp(variables = "x1", type = "accumulated", intervals = 6),
                 "`intervals` is deprecated; use `grid = profile_grids\\(intervals = \\)`")
  same(mp(variables = "x1", type = "accumulated", intervals = 6),
       mp(variables = "x1", type = "accumulated", grid = profile_grids(intervals = 6)))
  same(mp(variables = "g", type = "accumulated", level_order = "levels"),
       mp(variables = "g", type = "accumulated", grid = profile_grids(level_order = "levels")))
  same(mp(variables = "g", na_level = TRUE), mp(variables = "g", grid = profile_grids(na_level = TRUE)))
  same(mp(variables = "x1", grid_points = 5, groups = "x1", group_bins = 2),
       mp(variables = "x1", grid_points = 5, groups = profile_groups("x1", bins = 2)))
  same(mp(variables = "x1", grid_points = 5, groups = "g", min_group_size = 50),
       mp(variables = "x1", grid_points = 5, groups = profile_groups("g", min_size = 50)))
  same(mp(variables = "x1", grid_points = 5, groups = k$X$x2 > 0.5, group_title = "high"),
       mp(variables = "x1", grid_points = 5, groups = profile_groups(k$X$x2 > 0.5, title = "high")))
  same(mp(variables = "x1", type = "accumulated", groups = "g", al_shift = "common"),
       mp(variables = "x1", type = "accumulated", groups = profile_groups("g", al_shift = "common")))
  same(mp(variables = "x1", grid_points = 5, k = 2, cluster_center = FALSE),
       mp(variables = "x1", grid_points = 5, groups = profile_clusters(2, center = FALSE)))
  # Two old arguments: a warning each; level and B, one for both (as before).
  expect_identical(deprecations(mp(variables = "g", type = "accumulated", intervals = 5,
                                   level_order = "levels"))$n, 2L)
  d <- deprecations(mp(variables = "x1", bands = "bootstrap", level = 0.9, B = 20, seed = 1))
  expect_identical(d$n, 1L)
  expect_identical(d$value$agr_profiles,
                   mp(variables = "x1", bands = profile_bands("bootstrap", 0.9, 20), seed = 1)$agr_profiles)
  # The other entry points.
  two <- function(...) model_profile_2d(NULL, k$X, k$pf, variables = c("x1", "g"), N = NULL, type = "accumulated", ...)
  d <- deprecations(two(intervals = 4, level_order = "levels"))
  expect_identical(d$n, 2L)
  expect_identical(d$value$agr_profiles,
                   suppressWarnings(two(grid = profile_grids(intervals = 4, level_order = "levels")))$agr_profiles)
  cp <- function(...) compare_profiles(NULL, k$X, k$pf, variables = c("x1", "x2"), N = NULL, grid_points = 5, ...)
  same(cp(intervals = 4), cp(grid = profile_grids(intervals = 4)))
  hi <- function(...) hidden_interactions(NULL, k$X, k$pf, variables = "x1", N = NULL, ...)
  same(hi(groups = "g", min_group_size = 50), hi(groups = profile_groups("g", min_size = 50)))
  # An old argument and the setting's field: an error.
  expect_error(expect_warning(mp(variables = "x1", intervals = 5, grid = profile_grids(intervals = 6)),
                              class = "modelprofiles_deprecated"),
               "`intervals` and `grid` both give")
})

test_that("DALEX's names give the settings' numbers, without a warning", {
  k <- front_case()
  mp <- function(...) suppressMessages(model_profile(NULL, k$X, k$pf, N = NULL, variables = "x1", ...))
  quiet <- function(a, b) {
    expect_no_warning(a)
    expect_identical(a$agr_profiles, b$agr_profiles)
  }
  quiet(mp(grid_points = 7, variable_splits_type = "uniform"), mp(grid = profile_grids(7, "uniform")))
  sp <- list(x1 = c(0.2, 0.5, 0.7))
  quiet(mp(variable_splits = sp), mp(grid = profile_grids(splits = sp)))
  quiet(mp(variable_splits = NULL, k = NULL, grid_points = 6), mp(grid = 6))
  quiet(mp(k = 2, center = FALSE, grid_points = 5), mp(groups = profile_clusters(2, FALSE), grid = 5))
  # DALEX's center without k changes nothing, as in DALEX.
  quiet(mp(center = FALSE, grid_points = 5), mp(grid = 5))
  quiet(mp(type = "conditional", span = 0.25, grid_points = 5),
        mp(type = "conditional", bandwidth = 0.25 * diff(range(k$X$x1)), grid = 5))
  expect_no_warning(mp(variable_type = "numerical", grid_points = 5))
  # The other entry points take DALEX's names of the grid too.
  expect_no_warning(model_profile_2d(NULL, k$X, k$pf, variables = c("x1", "x2"), N = NULL, grid_points = 4,
                                     variable_splits_type = "uniform"))
})

test_that("names are matched in full: a near miss is an error naming the argument meant", {
  k <- front_case()
  expect_snapshot(error = TRUE, {
    model_profile(NULL, k$X, k$pf, variable = "x1")
    model_profile(NULL, k$X, k$pf, n = 100)
    model_profile(NULL, k$X, k$pf, grid_pionts = 5)
    model_profile(NULL, k$X, k$pf, variables = "x1", keep = FALSE)
    model_profile(NULL, k$X, k$pf, NULL, "partial", NULL, "x1")
    model_profile_2d(NULL, k$X, k$pf, variables = c("x1", "x2"), n = 10)
    compare_profiles(NULL, k$X, k$pf, interval = 5)
  })
  # Not reached silently: `n` is never na_level, `k` never keep_ice, `var`
  # never variables.
  expect_error(model_profile(NULL, k$X, k$pf, variables = "g", n = 100), "did you mean `N`")
  expect_error(model_profile(NULL, k$X, k$pf, var = "x1"), "did you mean `variables`")
  cl <- model_profile(NULL, k$X, k$pf, variables = "x1", N = NULL, grid_points = 4, k = 2)
  expect_length(unique(cl$agr_profiles$`_label_`), 2L)
  expect_identical(error_call_name(model_profile(NULL, k$X, k$pf, variable = "x1")), "model_profile")
})

test_that("an explainer's front door maps DALEX's positions to names, and errors name the user's call", {
  k <- front_case()
  ex <- structure(list(model = NULL, data = k$X, predict_function = k$pf, label = "m"), class = "explainer")
  a <- model_profile(ex, "x1", NULL, grid_points = 4)
  b <- model_profile(NULL, k$X, k$pf, variables = "x1", N = NULL, grid = 4, label = "m")
  expect_identical(a$agr_profiles, b$agr_profiles)
  expect_identical(model_profile(ex, NULL, 20, grid_points = 4, seed = 1)$N, 20L)
  expect_identical(model_profile(ex, k$X[1:30, ], grid_points = 4)$N, 30L)
  expect_identical(model_profile(ex, k$X[1:30, ], "x2", grid_points = 4)$variables, "x2")
  expect_identical(model_profile(ex, N = 25, k$X[1:30, ], grid_points = 4, seed = 1)$N, 25L)
  expect_identical(error_call_name(model_profile(ex, "zz")), "model_profile")
  expect_identical(error_call_name(model_profile(ex, "x1", 10, "partial")), "model_profile")
  expect_error(model_profile(ex, k$X, data = k$X), "given twice")
  # The result's call is the user's.
  expect_identical(rlang::call_name(a$call), "model_profile")
  expect_identical(formals(modelprofiles:::model_profile.explainer)$N, formals(modelprofiles:::model_profile.default)$N)
})

test_that("exported functions have at most 20 formals", {
  ns <- asNamespace("modelprofiles")
  fns <- c(getNamespaceExports(ns), "model_profile.default", "model_profile.explainer")
  n <- vapply(fns, function(f) {
    f <- get(f, envir = ns)
    if (is.function(f)) length(formals(f)) else 0L
  }, integer(1))
  expect_identical(n[["model_profile.default"]], 20L)
  # A known debt: hidden_interactions() (21: the five parameters of its
  # two rules, which a setting of the rule would hold).
  over <- n[n > 20L]
  expect_identical(names(over), "hidden_interactions")
  expect_lte(n[["hidden_interactions"]], 21L)
})
