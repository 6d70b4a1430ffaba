# Clusters of ICE curves, subgroups from a vector, and the common AL shift.

test_that("k clusters of ICE curves: Ward's method on (centred) curves, weighted means", {
  set.seed(61)
  X <- data.frame(a = runif(80), b = runif(80), s = sample(c(-1, 1), 80, TRUE))
  pf <- function(m, d) d$a * d$s * 3 + d$b^2
  sp <- list(a = c(0, 0.25, 0.5, 0.75, 1), b = c(0, 0.5, 1))
  for (center in c(TRUE, FALSE)) {
    r <- model_profile(NULL, X, pf, variables = c("a", "b"), groups = profile_clusters(3, center = center), variable_splits = sp)
    # Reference: the rows' concatenated ICE curves.
    M <- cbind(ref_ice(function(d) pf(NULL, d), X, "a", sp$a), ref_ice(function(d) pf(NULL, d), X, "b", sp$b))
    D <- if (center) M - rowMeans(M) else M
    cl <- cutree(hclust(dist(D), method = "ward.D2"), 3)
    expect_equal(r$clusters$cluster, unname(cl))
    for (c in 1:3) {
      got <- r$agr_profiles[r$agr_profiles$`_cluster_` == c, ]
      expect_equal(got$`_yhat_`, colMeans(M[cl == c, , drop = FALSE]), tolerance = 1e-12)
      expect_equal(unique(got$`_label_`), paste0("model_", c))
    }
  }
  expect_equal(r$groups$sizes, as.vector(table(cl)))
  # Weighted cluster means.
  w <- rep(1:2, 40)
  rw <- model_profile(NULL, X, pf, variables = c("a", "b"), k = 3, variable_splits = sp, weights = w)
  clw <- rw$clusters$cluster
  got <- rw$agr_profiles[rw$agr_profiles$`_cluster_` == 1, ]
  expect_equal(got$`_yhat_`, colSums(w[clw == 1] * M[clw == 1, ]) / sum(w[clw == 1]), tolerance = 1e-12)
  # The ICE curves carry their cluster, and plots colour by it.
  expect_setequal(unique(r$cp_profiles$`_label_`), paste0("model_", 1:3))
  p <- plot(r, geom = "profiles")
  expect_equal(length(unique(ggplot2::layer_data(p, layer_at(p, column = "_label_"))$colour)), 3)
  expect_error(model_profile(NULL, X, pf, k = 2, type = "accumulated"), "partial")
  expect_error(model_profile(NULL, X, pf, k = 80), "smaller than the number")
  expect_error(model_profile(NULL, X, pf, k = 2, groups = "s"), "not both")
})

test_that("clusters equal DALEX's (up to their numbering)", {
  skip_if_not_installed("DALEX")
  set.seed(62)
  X <- data.frame(a = runif(60), b = runif(60), s = sample(c(-1, 1), 60, TRUE))
  pf <- function(m, d) d$a * d$s * 3 + d$b^2
  sp <- list(a = c(0, 0.25, 0.5, 0.75, 1), b = c(0, 0.5, 1))
  ex <- DALEX::explain(NULL, data = X, y = rep(0, 60), predict_function = pf, label = "m", verbose = FALSE)
  dx <- suppressWarnings(DALEX::model_profile(ex, variables = c("a", "b"), N = NULL, k = 3, variable_splits = sp))
  r <- model_profile(NULL, X, pf, variables = c("a", "b"), k = 3, variable_splits = sp, label = "m")
  curve_set <- function(a) {
    a <- as.data.frame(a)
    a <- a[order(a$`_label_`, a$`_vname_`, a$`_x_`), ]
    curves <- split(round(a$`_yhat_`, 10), a$`_label_`)
    unname(curves[order(vapply(curves, `[`, numeric(1), 1))])
  }
  expect_equal(curve_set(r$agr_profiles), curve_set(dx$agr_profiles))
})

test_that("subgroups from a vector; AL on a common shift", {
  set.seed(63)
  X <- data.frame(a = runif(300), h = rnorm(300))
  f <- function(d) d$a^2 * d$h + d$h
  pf <- function(m, nd) f(nd)
  g <- X$h > 0
  r <- model_profile(NULL, X, pf, variables = "a", type = "accumulated", groups = profile_groups(g, title = "h > 0"), grid = profile_grids(intervals = 5))
  expect_equal(r$groups$column, "h > 0")
  expect_equal(r$groups$levels, c("FALSE", "TRUE"))
  expect_equal(plot(r)$labels$colour, "model, by h > 0")
  common <- model_profile(NULL, X, pf, variables = "a", type = "accumulated", groups = profile_groups(g, al_shift = "common"),
                          grid = profile_grids(intervals = 5))
  a <- r$agr_profiles
  b <- common$agr_profiles
  for (lev in c("FALSE", "TRUE")) {
    expect_equal(b$`_yhat_`[b$`_groups_` == lev] - a$`_yhat_`[a$`_groups_` == lev],
                 rep(mean(f(X)) - r$mean_prediction[[paste0("model_", lev)]], sum(a$`_groups_` == lev)), tolerance = 1e-12)
  }
  expect_error(model_profile(NULL, X, pf, groups = c(TRUE, FALSE)), "one value per row")
})

test_that("profile_grid(): quantiles, uniform, distinct values", {
  x <- c(5, 1, 3, 3, 9, 7, 2, 8, 6, 4, 10)
  expect_equal(profile_grid(x, 3, "distinct"), c(1, 5, 10))
  expect_equal(profile_grid(x, 4, "distinct"), c(1, 4, 7, 10))
  expect_equal(profile_grid(x, 4, "uniform"), c(1, 4, 7, 10))
  expect_equal(profile_grid(x, 3), unname(quantile(x, c(0, 0.5, 1))))
  expect_equal(profile_grid(c(2, 1, 2), 5), c(1, 2))
  expect_equal(profile_grid(factor(c("b", "a", NA), levels = c("b", "a", "c")), na_level = TRUE), c("b", "a", NA))
  # Dates are profiled on their own scale (test-grid.R); other classes are not.
  expect_identical(profile_grid(as.Date("2020-01-01") + 1:3), as.Date("2020-01-01") + 1:3)
  expect_error(profile_grid(list(1, 2)), "numeric")
  expect_error(profile_grid(x, 1), "grid_points")
})
