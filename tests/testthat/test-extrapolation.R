# The extrapolation measure (R/extrapolation.R, support.h) against a
# brute-force implementation of its definition and where the truth is known.

# The definition, computed point by point in plain R: the space of
# ?extrapolation (numeric columns over their weighted sd with divisor
# sum(w), categorical by mismatch 1, NA against a value a mismatch), each
# row's nearest other row, the weighted type-7 q-quantile, and for every
# evaluation point its nearest row other than its own.
brute_extrapolation <- function(X, v, grid, w = rep(1, nrow(X)), q = 0.95, v2 = NULL, grid2 = NULL) {
  n <- nrow(X)
  num <- vapply(X, is.numeric, logical(1))
  sds <- vapply(names(X)[num], function(c) {
    x <- X[[c]]
    ok <- !is.na(x)
    m <- sum(w[ok] * x[ok]) / sum(w[ok])
    s <- sqrt(sum(w[ok] * (x[ok] - m)^2) / sum(w[ok]))
    if (s > 0) s else 1
  }, numeric(1))
  d2 <- function(a, b) {
    # a: a one-row list of values; b: the data frame.
    out <- numeric(n)
    for (c in names(X)) {
      if (num[[c]]) {
        x <- b[[c]] / sds[[c]]
        y <- a[[c]] / sds[[c]]
        t <- (y - x)^2
        t[is.na(x) != is.na(y)] <- 1
        t[is.na(x) & is.na(y)] <- 0
      } else {
        x <- as.character(b[[c]])
        y <- as.character(a[[c]])
        t <- ifelse(is.na(x) & is.na(y), 0, ifelse(is.na(x) | is.na(y), 1, as.numeric(x != y)))
      }
      out <- out + t
    }
    out
  }
  r2 <- vapply(seq_len(n), function(i) min(d2(X[i, , drop = FALSE], X)[-i]), numeric(1))
  t2 <- if (all(w == 1)) unname(quantile(r2, q, type = 7)) else {
    # Weighted type 7 of replicated rows (integer weights in these tests).
    unname(quantile(rep(r2, w), q, type = 7))
  }
  cells <- if (is.null(v2)) lapply(seq_along(grid), function(g) stats::setNames(list(grid[g]), v)) else {
    unlist(lapply(seq_along(grid2), function(g2) lapply(seq_along(grid), function(g1) {
      stats::setNames(list(grid[g1], grid2[g2]), c(v, v2))
    })), recursive = FALSE)
  }
  vapply(cells, function(cell) {
    out <- vapply(seq_len(n), function(i) {
      a <- X[i, , drop = FALSE]
      for (nm in names(cell)) a[[nm]] <- cell[[nm]]
      min(d2(a, X)[-i]) > t2 * (1 + 1e-10) + 1e-12
    }, logical(1))
    sum(w * out) / sum(w)
  }, numeric(1))
}

ext_of <- function(res, v) res$agr_profiles$`_extrapolation_`[res$agr_profiles$`_vname_` == v]

test_that("the measure equals the brute-force definition to 1e-12 (numeric, factor, NA, weights)", {
  set.seed(42)
  n <- 60
  X <- data.frame(a = rnorm(n), b = rnorm(n), g = factor(sample(c("p", "q", "r"), n, TRUE)))
  X$b <- X$b + X$a
  X$a[c(3, 17)] <- NA
  X$g[5] <- NA
  f <- function(m, d) d$b + ifelse(is.na(d$a), 0, d$a)
  res <- model_profile(list(), X, predict_function = f, grid_points = 7, threads = 1, keep_ice = FALSE)
  for (v in c("a", "b", "g")) {
    grid <- res$grids[[v]]
    expect_equal(ext_of(res, v), brute_extrapolation(X, v, grid), tolerance = 1e-12, info = v)
  }
  # Case weights weigh the rows in the quantile and the shares.
  w <- rep(1:3, length.out = n)
  rw <- model_profile(list(), X, predict_function = f, grid_points = 7, weights = w, threads = 1)
  expect_equal(ext_of(rw, "b"), brute_extrapolation(X, "b", rw$grids$b, w = w), tolerance = 1e-12)
  # Another quantile.
  rq <- withr::with_options(list(modelprofiles.extrapolation = 0.8),
                            model_profile(list(), X, predict_function = f, grid_points = 7, threads = 1))
  expect_equal(ext_of(rq, "a"), brute_extrapolation(X, "a", rq$grids$a, q = 0.8), tolerance = 1e-12)
  expect_equal(rq$extrapolation$q, 0.8)
})

test_that("two-variable PD carries the measure, equal to brute force", {
  set.seed(7)
  n <- 40
  X <- data.frame(a = rnorm(n), g = factor(sample(c("p", "q"), n, TRUE)), c = runif(n))
  X$c <- X$c + X$a
  f <- function(m, d) d$a * d$c
  p2 <- model_profile_2d(list(), X, predict_function = f, variables = list(c("a", "c"), c("g", "a")),
                         grid_points = 5, threads = 1)
  ag <- p2$agr_profiles
  sel <- ag$`_vname_` == "a" & ag$`_vname2_` == "c"
  expect_equal(ag$`_extrapolation_`[sel],
               brute_extrapolation(X, "a", p2$grids$a, v2 = "c", grid2 = p2$grids$c), tolerance = 1e-12)
  sel <- ag$`_vname_` == "g" & ag$`_vname2_` == "a"
  expect_equal(ag$`_extrapolation_`[sel],
               brute_extrapolation(X, "g", levels(X$g), v2 = "a", grid2 = p2$grids$a), tolerance = 1e-12)
})

test_that("the measure does not depend on the number of threads or the order of the rows", {
  set.seed(3)
  n <- 400
  X <- data.frame(a = rnorm(n), b = rnorm(n), g = factor(sample(letters[1:3], n, TRUE)))
  X$b <- X$b + 2 * X$a
  f <- function(m, d) d$a + d$b
  r1 <- model_profile(list(), X, predict_function = f, grid_points = 9, threads = 1)
  r2 <- model_profile(list(), X, predict_function = f, grid_points = 9, threads = 2)
  expect_identical(r1$agr_profiles$`_extrapolation_`, r2$agr_profiles$`_extrapolation_`)
  o <- sample(n)
  r3 <- model_profile(list(), X[o, ], predict_function = f, grid_points = 9, threads = 2)
  expect_equal(r3$agr_profiles$`_extrapolation_`, r1$agr_profiles$`_extrapolation_`, tolerance = 1e-12)
  # The kept ICE points' verdicts average to the share.
  b <- modelprofiles:::ice_blocks(r1$cp_profiles)[[1L]]
  expect_equal(rowMeans(matrix(as.integer(b$outside), nrow(b$outside))), ext_of(r1, b$v), tolerance = 1e-12)
})

test_that("independent variables: the share stays near the tail probability", {
  set.seed(11)
  n <- 1000
  X <- data.frame(x1 = runif(n), x2 = runif(n))
  f <- function(m, d) d$x1 + d$x2
  res <- model_profile(list(), X, predict_function = f, grid_points = 21, threads = 2)
  s <- ext_of(res, "x1")
  # 0.05 on average over the interior (each grid value's share varies with
  # the density of x1 near it); more at the two ends, where the data thin
  # out.
  info <- paste(round(s, 3), collapse = " ")
  expect_lt(abs(mean(s[2:20]) - 0.05), 0.015, label = info)
  expect_true(all(s[2:20] < 0.12), info = info)
  expect_true(all(s < 0.3), info = info)
})

test_that("x2 = x1 + noise: the share of x1's profile is the share of rows whose x2 is far from z", {
  set.seed(12)
  n <- 1000
  shares <- list()
  for (sd in c(0.02, 0.1, 0.3)) {
    x1 <- runif(n)
    X <- data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = sd))
    f <- function(m, d) d$x1 + d$x2
    res <- model_profile(list(), X, predict_function = f, grid_points = 21, threads = 2, keep_ice = FALSE)
    s <- ext_of(res, "x1")
    z <- res$grids$x1
    if (sd == 0.02) {
      # A point (z, x2_i) is inside only where rows lie near it: where x2_i
      # is within a few noise sds of z. The share of rows whose x2 is far
      # from z (beyond 3 sds) is the truth, up to the threshold's width.
      far <- vapply(z, function(v) mean(abs(X$x2 - v) > 3 * sd), numeric(1))
      expect_lt(max(abs(s - far)), 0.1)
      expect_gt(min(s), 0.8)
      expect_gt(min(s[c(1, 21)]), 0.95)
    }
    shares[[as.character(sd)]] <- mean(s)
  }
  # Falling toward the independent case (0.05) as the noise grows.
  expect_gt(shares[["0.02"]], shares[["0.1"]])
  expect_gt(shares[["0.1"]], shares[["0.3"]])
  expect_gt(shares[["0.3"]], 0.1)
})

test_that("a factor that fixes a numeric variable's range: the points outside are found", {
  set.seed(13)
  n <- 600
  g <- factor(sample(c("low", "high"), n, TRUE))
  X <- data.frame(g = g, x = ifelse(g == "low", runif(n, 0, 1), runif(n, 2, 3)), u = runif(n))
  f <- function(m, d) d$x + d$u
  res <- model_profile(list(), X, predict_function = f, grid_points = 31, threads = 2, keep_ice = TRUE)
  z <- res$grids$x
  s <- ext_of(res, "x")
  # At z in [0, 1] the "high" rows' points are outside, and vice versa; in
  # the gap (1, 2) every point is.
  share_high <- mean(X$g == "high")
  inner_low <- z > 0.1 & z < 0.9
  inner_high <- z > 2.1 & z < 2.9
  # (Plus about 5% of the others' points, the tail probability.)
  expect_equal(s[inner_low], rep(share_high + 0.05 * (1 - share_high), sum(inner_low)), tolerance = 0.05)
  expect_equal(s[inner_high], rep(1 - share_high + 0.05 * share_high, sum(inner_high)), tolerance = 0.05)
  # Row by row, in the ICE curves' verdicts.
  b <- Filter(function(b) b$v == "x", modelprofiles:::ice_blocks(res$cp_profiles))[[1L]]
  rows_high <- X$g[b$ids] == "high"
  out <- matrix(as.integer(b$outside), nrow(b$outside))
  expect_gt(mean(out[inner_low, rows_high]), 0.95)
  expect_lt(mean(out[inner_low, !rows_high]), 0.1)
  # The factor's profile: setting g to "low" for rows with x in [2, 3].
  sg <- ext_of(res, "g")
  truth <- c(high = 1 - share_high + 0.05 * share_high, low = share_high + 0.05 * (1 - share_high))
  expect_equal(sg, truth[as.character(res$grids$g)], tolerance = 0.05, ignore_attr = TRUE)
})

test_that("the option off leaves the column out; bad values are clear errors", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  off <- withr::with_options(list(modelprofiles.extrapolation = FALSE),
                             model_profile(fit, mtcars[c("wt", "hp")], grid_points = 5))
  expect_null(off$agr_profiles$`_extrapolation_`)
  expect_null(off$extrapolation)
  on <- model_profile(fit, mtcars[c("wt", "hp")], grid_points = 5)
  expect_equal(on$agr_profiles[names(off$agr_profiles)], off$agr_profiles)
  expect_equal(on$extrapolation$variables, c("wt", "hp"))
  al <- model_profile(fit, mtcars[c("wt", "hp")], type = "accumulated", grid = profile_grids(intervals = 5))
  expect_null(al$agr_profiles$`_extrapolation_`)
  withr::local_options(modelprofiles.extrapolation = 2)
  expect_snapshot(model_profile(fit, mtcars[c("wt", "hp")]), error = TRUE)
})

test_that("the space is the model's variables when its family tells them", {
  d <- transform(mtcars, cyl = factor(cyl))
  fit <- lm(mpg ~ wt + cyl, data = d)
  res <- model_profile(fit, d[c("wt", "cyl", "hp", "qsec")], variables = "wt", grid_points = 5)
  expect_equal(res$extrapolation$variables, c("wt", "cyl"))
})

test_that("print(), summary() and compare_profiles() say where the PD extrapolates", {
  s <- diagonal_case()
  pd <- model_profile(NULL, s$d, predict_function = s$f, grid_points = 11, keep_ice = FALSE)
  a <- pd$agr_profiles
  over <- a$`_extrapolation_` > 0.5
  expect_true(all(over[a$`_vname_` %in% c("x1", "x2")]))
  expect_false(any(over[a$`_vname_` == "x3"]))
  out <- capture.output(print(pd))
  expect_true(any(grepl("x1: .* to ", out)))
  sm <- summary(pd)
  g <- pd$grids$x1
  expect_equal(sm$extrapolated[sm$variable == "x1"], paste0(format(g[1], digits = 4), " to ", format(g[11], digits = 4)))
  expect_equal(sm$extrapolated[sm$variable == "x3"], "")
  cmp <- compare_profiles(NULL, s$d, predict_function = s$f, grid_points = 11, grid = profile_grids(intervals = 10))
  dd <- cmp$distances
  expect_equal(dd$pd_al_extrapolated[dd$variable == "x1"], 1)
  expect_match(paste(capture.output(print(cmp)), collapse = "\n"), "differ mostly where the PD extrapolates")
})


test_that("kept ICE curves carry each point's verdict, whose weighted mean is the profile's share", {
  set.seed(14)
  n <- 300
  X <- data.frame(a = runif(n), g = factor(sample(c("p", "q"), n, TRUE)))
  X$b <- X$a + rnorm(n, sd = 0.05)
  w <- sample(1:3, n, TRUE)
  f <- function(m, d) d$a + d$b
  res <- model_profile(list(), X, predict_function = f, grid_points = 9, weights = w, threads = 2)
  cp <- res$cp_profiles
  expect_identical(names(cp)[1:6], c("_vname_", "_label_", "_ids_", "_x_", "_yhat_", "_extrapolation_"))
  expect_type(cp$`_extrapolation_`, "integer")
  expect_setequal(unique(cp$`_extrapolation_`), 0:1)
  for (v in c("a", "b", "g")) {
    d <- as.data.frame(cp[cp$`_vname_` == v, ])
    # (Weighted by the rows' case weights: _ids_ are the rows of X.)
    share <- vapply(split(d, as.character(d$`_x_`)), function(s) sum(w[s$`_ids_`] * s$`_extrapolation_`) / sum(w[s$`_ids_`]),
                    numeric(1))
    a <- res$agr_profiles[res$agr_profiles$`_vname_` == v, ]
    expect_equal(unname(share[as.character(a$`_x_`)]), a$`_extrapolation_`, tolerance = 1e-12, info = v)
  }
  # Rows read one by one equal the column read whole.
  idx <- c(7, 1, 500, nrow(cp))
  expect_identical(cp[idx, "_extrapolation_"], cp$`_extrapolation_`[idx])
  # Without the measure, no column.
  off <- withr::with_options(list(modelprofiles.extrapolation = FALSE),
                             model_profile(list(), X, predict_function = f, grid_points = 9))
  expect_false("_extrapolation_" %in% names(off$cp_profiles))
})

test_that("above the row limit a seeded subsample estimates the share within its binomial error", {
  set.seed(15)
  n <- 6000
  x1 <- runif(n)
  X <- data.frame(x1 = x1, x2 = x1 + rnorm(n, sd = 0.1), x3 = runif(n))
  f <- function(m, d) d$x1 + d$x2 + d$x3
  run <- function() {
    model_profile(list(), X, predict_function = f, N = NULL, variables = c("x1", "x3"), grid_points = 11,
                  keep_ice = TRUE, threads = 2)
  }
  full <- run()
  # The same call with a limit of 2,000 rows: a subsample of 2,000 rows.
  ns <- asNamespace("modelprofiles")
  unlockBinding("extrapolation_max_rows", ns)
  old <- ns$extrapolation_max_rows
  assign("extrapolation_max_rows", 2000L, envir = ns)
  on.exit({
    assign("extrapolation_max_rows", old, envir = ns)
    lockBinding("extrapolation_max_rows", ns)
  })
  expect_silent(sub <- run())
  sub2 <- withr::with_seed(99, run())
  expect_identical(sub$agr_profiles$`_extrapolation_`, sub2$agr_profiles$`_extrapolation_`)
  expect_equal(sub$extrapolation$rows, 2000)
  expect_equal(sub$extrapolation$of, n)
  expect_equal(sub$extrapolation$threshold, full$extrapolation$threshold)
  p <- full$agr_profiles$`_extrapolation_`
  s <- sub$agr_profiles$`_extrapolation_`
  # A sample of 2,000 of 6,000 rows without replacement: the binomial
  # standard error with the finite-population correction; 4 of them.
  se <- sqrt(p * (1 - p) / 2000 * (n - 2000) / (n - 1))
  expect_true(all(abs(s - p) <= 4 * se + 1e-12), info = paste(round(s - p, 4), collapse = " "))
  expect_gt(max(abs(s - p)), 0)
  # The subsample's verdicts are the full measure's; the other rows' NA.
  v_full <- full$cp_profiles$`_extrapolation_`
  v_sub <- sub$cp_profiles$`_extrapolation_`
  ok <- !is.na(v_sub)
  expect_equal(mean(ok), 2000 / n)
  expect_identical(v_sub[ok], v_full[ok])
  expect_output(print(sub), "estimated on a random subsample of 2,000 of the 6,000 background rows")
})

test_that("the scale of a numeric column is its weighted standard deviation over observed values", {
  support_scale <- get("support_scale", envir = asNamespace("modelprofiles"))
  set.seed(9)
  for (n in c(7, 70000)) { # one block of rows, and two
    x <- rnorm(n, 5, 3)
    x[sample(n, 5)] <- NA
    w <- runif(n)
    ok <- !is.na(x)
    m <- sum(w[ok] * x[ok]) / sum(w[ok])
    expect_equal(support_scale(x, w), sqrt(sum(w[ok] * (x[ok] - m)^2) / sum(w[ok])), tolerance = 1e-13)
    xi <- sample(c(1:9, NA), n, TRUE)
    ok <- !is.na(xi)
    m <- sum(w[ok] * xi[ok]) / sum(w[ok])
    expect_equal(support_scale(xi, w), sqrt(sum(w[ok] * (xi[ok] - m)^2) / sum(w[ok])), tolerance = 1e-13)
  }
  # A compact sequence (ALTREP, read element by element), and a constant
  # column, scaled by 1.
  s <- seq_len(70001)
  expect_equal(support_scale(s, rep(1, 70001)), sqrt(sum((s - mean(s))^2) / 70001), tolerance = 1e-13)
  expect_identical(support_scale(rep(2, 9), rep(1, 9)), 1)
})

test_that("the verdicts are main's before the SIMD distances, bit for bit, in every lane width", {
  # fixtures/extrapolation-before.rds: the fingerprints of
  # fixtures/extrapolation-cases.R's cases (1,000 rows and 10 variables,
  # missing values, a factor, weights, one variable, discrete columns,
  # subgroups, 12,000 rows subsampled, an odd number of rows; 1 and 2
  # threads) computed by main at c4db4b3, before the row distances went two
  # (SSE2) or four (AVX) reference rows at a time. Each width is held to
  # them: 1 (the scalar loop), 2 and 4 (2 where the processor has no AVX).
  source(test_path("fixtures", "extrapolation-cases.R"), local = TRUE)
  before <- readRDS(test_path("fixtures", "extrapolation-before.rds"))
  for (lanes in c(0, 1, 2, 4)) {
    now <- withr::with_options(list(modelprofiles.support_lanes = lanes), extrapolation_cases())
    expect_identical(names(now), names(before))
    for (k in names(before)) {
      expect_identical(now[[k]]$share, before[[k]]$share, info = paste(k, lanes))
      expect_identical(now[[k]]$outside, before[[k]]$outside, info = paste(k, lanes))
    }
  }
  # The reference distances themselves, bit for bit across widths (rows not
  # a multiple of 4, so every width has a tail).
  set.seed(5)
  X <- data.frame(matrix(rnorm(203 * 7), 203, 7))
  setup <- list(data = X, n = 203, weights = rep(1, 203), threads = 2L)
  space <- support_space(setup, names(X), 0.95)
  r2 <- lapply(c(1, 2, 4), function(lanes) {
    withr::with_options(list(modelprofiles.support_lanes = lanes), support_reference_distances(space, space$ref, 2L))
  })
  expect_length(r2[[1]], 203)
  expect_identical(r2[[2]], r2[[1]])
  expect_identical(r2[[3]], r2[[1]])
})
