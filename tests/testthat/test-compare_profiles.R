# PD vs LD vs AL distances.

test_that("distances: zero for an additive linear model, LD borrows a correlated effect", {
  set.seed(71)
  x1 <- runif(400)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(400, sd = 0.1), x3 = runif(400))
  f <- function(m, nd) 2 * nd$x1 - nd$x3
  cmp <- compare_profiles(NULL, d, predict_function = f, grid_points = 21, intervals = 10)
  ds <- cmp$distances
  # Linear and additive: PD and AL are the same line.
  expect_equal(ds$pd_al, rep(0, 3), tolerance = 1e-12)
  # x2 is not in the model: PD and AL are flat; LD follows x1.
  expect_equal(ds$variable[1], "x2")
  expect_equal(ds$al_range[ds$variable == "x2"], 0)
  # The distance by hand: LD at the rows' values, centred, against a flat AL.
  ld <- cmp$profiles$ld
  a <- ld$agr_profiles[ld$agr_profiles$`_vname_` == "x2", ]
  g <- approx(a$`_x_`, a$`_yhat_`, d$x2, rule = 2)$y
  expect_equal(ds$ld_al[1], sqrt(mean((g - mean(g))^2)), tolerance = 1e-12)
  expect_equal(ds$pd_ld[1], ds$ld_al[1], tolerance = 1e-12)
  expect_gt(ds$ld_al[1], 0.3)
  expect_output(print(cmp), "ld_al")
  expect_s3_class(plot(cmp), "ggplot")
  pd <- ggplot2::layer_data(plot(cmp, geom = "distances"))
  expect_equal(nrow(pd), 9)
})

test_that("an interaction with a correlated variable separates PD from AL", {
  set.seed(72)
  x1 <- runif(500)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(500, sd = 0.05), g = factor(sample(c("a", "b"), 500, TRUE)))
  f <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "a")
  cmp <- compare_profiles(NULL, d, predict_function = f, N = 300, seed = 1)
  ds <- cmp$distances
  expect_true(all(ds$pd_al[ds$variable != "g"] > 0.01))
  # The three profiles use the same rows.
  p <- cmp$profiles
  expect_identical(p$pd$rows, p$al$rows)
  expect_identical(p$pd$rows, p$ld$rows)
  # A factor's profiles are compared level by level: here they agree.
  expect_equal(ds$pd_al[ds$variable == "g"], 0, tolerance = 1e-12)
  expect_error(compare_profiles(NULL, d, predict_function = f, foo = 1), "Unknown argument")
})

test_that("integer weights equal replicated rows: distances and the three profiles", {
  set.seed(73)
  n <- 200
  x1 <- runif(n)
  d <- data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = 0.1), g = factor(sample(c("a", "b", "c"), n, TRUE)))
  w <- sample(1:4, n, TRUE)
  dup <- d[rep(seq_len(n), w), ]
  f <- function(m, nd) nd$x1 * nd$x2 + (nd$g == "a") * nd$x1 + sin(3 * nd$x2)
  wt <- compare_profiles(NULL, d, predict_function = f, N = NULL, weights = w, grid_points = 15,
                         intervals = 8)
  rp <- compare_profiles(NULL, dup, predict_function = f, N = NULL, grid_points = 15, intervals = 8)
  expect_identical(wt$distances[c("variable", "label")], rp$distances[c("variable", "label")])
  for (k in c("pd_al", "ld_al", "pd_ld", "al_range")) {
    expect_equal(wt$distances[[k]], rp$distances[[k]], tolerance = 1e-12, label = k)
  }
  for (k in c("pd", "ld", "al")) {
    expect_equal(wt$profiles[[k]]$agr_profiles, rp$profiles[[k]]$agr_profiles, tolerance = 1e-12,
                 label = k)
    expect_equal(wt$profiles[[k]]$grids, rp$profiles[[k]]$grids, tolerance = 1e-12, label = k)
  }
  expect_equal(wt$profiles$ld$bandwidth, rp$profiles$ld$bandwidth, tolerance = 1e-12)
  # The profiles and distances are not trivial, and the weights matter:
  # without them every distance moves (the LD ones by 0.01 to 0.03).
  expect_true(all(wt$distances$ld_al > 0.05))
  expect_true(all(wt$distances$al_range > 0.5))
  un <- compare_profiles(NULL, d, predict_function = f, N = NULL, grid_points = 15, intervals = 8)
  expect_true(all(abs(un$distances$ld_al - wt$distances$ld_al) > 0.005))
  # The weighted distance by hand, for x1: the profiles read at the rows'
  # values (linear interpolation), centred, weighted root-mean-square.
  at <- function(res) {
    a <- res$agr_profiles[res$agr_profiles$`_vname_` == "x1", ]
    approx(res$grids$x1, a$`_yhat_`, d$x1, rule = 2)$y
  }
  cen <- function(g) g - sum(w * g) / sum(w)
  dist <- function(g, h) sqrt(sum(w * (cen(g) - cen(h))^2) / sum(w))
  p <- lapply(wt$profiles, at)
  x1_row <- wt$distances[wt$distances$variable == "x1", ]
  expect_equal(x1_row$pd_al, dist(p$pd, p$al), tolerance = 1e-12)
  expect_equal(x1_row$ld_al, dist(p$ld, p$al), tolerance = 1e-12)
  expect_equal(x1_row$pd_ld, dist(p$pd, p$ld), tolerance = 1e-12)
})
