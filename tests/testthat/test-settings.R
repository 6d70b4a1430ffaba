# Settings objects of grids and subgroups (R/settings.R): checked fields,
# printing, the entry point's defaults for fields not given, and each
# field given once.

settings_case <- function() {
  set.seed(11)
  X <- data.frame(x1 = runif(120), x2 = runif(120), g = factor(sample(c("a", "b", "c"), 120, TRUE)),
                  h = rnorm(120))
  pf <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "b") * nd$x1 + nd$h
  list(X = X, pf = pf)
}

test_that("profile_grids() checks its fields and leaves the rest to the entry point", {
  g <- profile_grids(points = 5, type = "uniform")
  expect_s3_class(g, "mp_grids")
  expect_identical(g$points, 5L)
  expect_null(g$intervals)
  expect_error(profile_grids(points = 1), "`points` must be a whole number from 2")
  expect_error(profile_grids(type = "spline"), "type")
  expect_error(profile_grids(splits = list(1:3)), "named list")
  expect_error(profile_grids(na_level = NA), "`na_level` must be `TRUE` or `FALSE`")
  expect_output(print(g), "<mp_grids> points = 5; type = uniform")
  expect_output(print(profile_grids()), "<mp_grids> default grids")
  expect_error(profile_groups(), "`by` is missing")
  expect_error(profile_groups("g", bins = 1), "`bins` must be a whole number from 2")
  expect_error(profile_groups("g", al_shift = "none"), "al_shift")
  expect_output(print(profile_groups("g", min_size = 5)), "<mp_groups> by = g; min_size = 5")
  expect_error(profile_clusters(1), "`k` must be a whole number from 2")
  expect_error(profile_clusters(), "`k` is missing")
  expect_output(print(profile_clusters(3)), "<mp_clusters> k = 3; center = TRUE")
})

test_that("a grid setting gives the numbers of the old arguments, with the entry point's defaults", {
  k <- settings_case()
  run <- function(...) model_profile(NULL, k$X, k$pf, N = NULL, ...)
  # PD: 101 points by default; `grid = 7` is 7 points.
  a <- run(variables = "x1")
  expect_identical(length(a$grids$x1), 101L)
  expect_identical(run(variables = "x1", grid = 7)$agr_profiles,
                   run(variables = "x1", grid = profile_grids(points = 7))$agr_profiles)
  # Interval AL: 40 intervals by default, K of the setting otherwise; the
  # edges are ALEPlot's, from the rows' quantiles.
  al <- run(variables = "x1", type = "accumulated", grid = profile_grids(intervals = 6))
  ref <- unique(c(min(k$X$x1), stats::quantile(k$X$x1, seq(1 / 6, 1, length.out = 6), type = 1, names = FALSE)))
  expect_equal(al$grids$x1, ref, tolerance = 1e-15)
  expect_identical(length(run(variables = "x1", type = "accumulated")$grids$x1), 41L)
  # 2-D: 21 points and 10 intervals by default.
  p2 <- model_profile_2d(NULL, k$X, k$pf, variables = c("x1", "x2"), N = NULL)
  expect_identical(lengths(p2$grids), c(x1 = 21L, x2 = 21L))
  a2 <- model_profile_2d(NULL, k$X, k$pf, variables = c("x1", "x2"), N = NULL, type = "accumulated")
  expect_identical(unname(unlist(a2$intervals)), c(10L, 10L))
  # A field the entry point does not take, and a field given twice.
  expect_error(compare_profiles(NULL, k$X, k$pf, grid = profile_grids(type = "uniform")),
               "does not apply here")
  expect_error(run(variables = "x1", grid_points = 5, grid = profile_grids(points = 7)),
               "`grid_points` and `grid` both give `profile_grids\\(points = \\)`")
  expect_error(model_profile_2d(NULL, k$X, k$pf, variables = c("x1", "x2"), grid = profile_grids(type = "splits")),
               "split values")
})

test_that("subgroup and cluster settings give the numbers of the old arguments", {
  k <- settings_case()
  run <- function(...) model_profile(NULL, k$X, k$pf, N = NULL, variables = "x1", grid = 6, ...)
  g <- run(groups = profile_groups("h", bins = 2, min_size = 5))
  expect_length(unique(g$agr_profiles$`_groups_`), 2L)
  # Within each subgroup, PD is the mean of its rows' predictions.
  lo <- k$X$h <= stats::median(k$X$h)
  first <- g$agr_profiles[g$agr_profiles$`_groups_` == unique(g$agr_profiles$`_groups_`)[1], ]
  ref <- vapply(first$`_x_`, function(z) mean(k$pf(NULL, transform(k$X[lo, ], x1 = z))), numeric(1))
  expect_equal(first$`_yhat_`, ref, tolerance = 1e-12)
  # A vector's title.
  v <- run(groups = profile_groups(k$X$g, title = "letters"))
  expect_identical(v$groups$column, "letters")
  # Clusters: the setting is DALEX's k and center.
  expect_identical(run(groups = profile_clusters(2, center = FALSE))$agr_profiles,
                   run(k = 2, center = FALSE)$agr_profiles)
  expect_error(run(groups = "g", k = 2), "Give `groups` or `k`, not both")
  expect_error(run(groups = profile_groups("g", al_shift = "common"), type = "partial", k = 2),
               "Give `groups` or `k`")
  expect_error(run(type = "accumulated", groups = profile_clusters(2)), "partial")
  expect_error(hidden_interactions(NULL, k$X, k$pf, groups = profile_clusters(2)), "profile_clusters")
  expect_error(hidden_interactions(NULL, k$X, k$pf, groups = profile_groups("g", al_shift = "common")),
               "does not apply here")
})

test_that("find_regions() and hidden_interactions() take the grid setting as DALEX's names", {
  k <- settings_case()
  fr <- function(...) find_regions(NULL, k$X, k$pf, variables = "x1", N = NULL, ...)
  a <- fr(grid = profile_grids(points = 11, type = "uniform"))
  b <- fr(grid_points = 11, variable_splits_type = "uniform")
  expect_identical(a$splits, b$splits)
  expect_identical(a$grids, b$grids)
  expect_equal(a$grids$x1, seq(min(k$X$x1), max(k$X$x1), length.out = 11), tolerance = 1e-14)
  expect_error(fr(grid = profile_grids(type = "splits")), "not \"splits\"")
  expect_error(fr(intervals = 5), "Unknown argument")
  hi <- function(...) hidden_interactions(NULL, k$X, k$pf, variables = c("x1", "x2"), groups = "g", N = NULL, ...)
  h1 <- hi(grid = profile_grids(points = 4, type = "uniform"))
  expect_identical(h1$grids, hi(grid_points = 4, variable_splits_type = "uniform")$grids)
  expect_length(h1$grids$x1, 4L)
})
