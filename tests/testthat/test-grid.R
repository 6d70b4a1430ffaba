# Type-safe grids: integer columns keep integer grid values (values that
# occur), Dates, date-times and time differences are profiled on their own
# scale, and the predict function gets columns of the classes it was
# trained on.

typed_setup <- function() {
  set.seed(11)
  n <- 160
  X <- data.frame(
    i = sample(1:5000, n),
    d = as.Date("2019-06-01") + sample(0:1500, n),
    t = as.POSIXct("2021-03-01 08:00:00", tz = "America/New_York") + runif(n, 0, 3e7),
    dt = as.difftime(runif(n, 0, 72), units = "hours"),
    x = rnorm(n)
  )
  # Numbers of the typed columns, for the reference computations.
  num <- function(nd) {
    data.frame(i = nd$i, d = as.numeric(nd$d), t = as.numeric(nd$t),
               dt = as.numeric(nd$dt, units = "hours"), x = nd$x)
  }
  g <- function(z) {
    sin(z$i / 900) + ((z$d - 18500) / 700)^2 + cos((z$t - 1.6146e9) / 6e6) +
      z$dt / 30 * z$x + z$x
  }
  seen <- new.env()
  seen$checked <- 0L
  # A model that checks the types of every column it gets.
  f <- function(m, nd) {
    stopifnot(is.integer(nd$i), inherits(nd$d, "Date"), inherits(nd$t, "POSIXct"),
              identical(attr(nd$t, "tzone"), "America/New_York"),
              inherits(nd$dt, "difftime"), identical(units(nd$dt), "hours"), is.double(nd$x))
    seen$checked <- seen$checked + 1L
    g(num(nd))
  }
  list(X = X, f = f, g = g, num = num, seen = seen)
}

# ICE curves computed from the numbers: row r at each grid value z (numbers).
ref_ice_num <- function(s, v, z) {
  N <- s$num(s$X)
  sapply(z, function(zz) {
    N[[v]] <- zz
    s$g(N)
  })
}

test_that("integer columns: grids of integers that occur; predict() gets integers", {
  s <- typed_setup()
  x <- s$X$i
  g <- profile_grid(x, 9)
  expect_type(g, "integer")
  expect_true(all(g %in% x))
  expect_identical(g, as.integer(quantile(x, seq(0, 1, length.out = 9), type = 1, names = FALSE)))
  gu <- profile_grid(x, 9, "uniform")
  expect_type(gu, "integer")
  expect_identical(gu, as.integer(unique(round(seq(min(x), max(x), length.out = 9)))))
  expect_type(profile_grid(x, 9, "distinct"), "integer")
  expect_identical(profile_grid(c(3L, 1L, 3L), 5), c(1L, 3L))
  # Every estimator: the type check in f() passes, and the grid is integer.
  for (cs in list(list(type = "partial"), list(type = "conditional", method = "kernel"),
                  list(type = "conditional", method = "interval", grid = profile_grids(intervals = 6)),
                  list(type = "accumulated", method = "interval", grid = profile_grids(intervals = 6)),
                  list(type = "accumulated", method = "kernel"))) {
    res <- do.call(function(...) model_profile(NULL, s$X, predict_function = s$f, variables = "i",
                                               N = NULL, grid_points = 21, ...), cs)
    expect_type(res$grids$i, "integer")
    expect_type(res$agr_profiles$`_x_`, "integer")
  }
  pd <- model_profile(NULL, s$X, predict_function = s$f, variables = "i", N = NULL, grid_points = 21)
  expect_equal(pd$agr_profiles$`_yhat_`, colMeans(ref_ice_num(s, "i", pd$grids$i)), tolerance = 1e-12)
  expect_true(all(pd$grids$i %in% x))
  # A kernel AL grid of whole numbers, evenly spaced as far as rounding goes.
  al <- model_profile(NULL, s$X, predict_function = s$f, variables = "i", type = "accumulated",
                      method = "kernel", N = NULL, grid_points = 25)
  expect_identical(al$grids$i, as.integer(unique(round(seq(min(x), max(x), length.out = 25)))))
  # A user's grid with fractions is used as given (as doubles).
  own <- model_profile(NULL, s$X, predict_function = function(m, nd) nd$i * 1, variables = "i",
                       N = NULL, variable_splits = list(i = c(10.5, 20)))
  expect_equal(own$agr_profiles$`_yhat_`, c(10.5, 20))
})

test_that("Date columns: profiled on the Date scale; the predict function gets Dates", {
  s <- typed_setup()
  x <- s$X$d
  g <- profile_grid(x, 11)
  expect_s3_class(g, "Date")
  expect_true(all(g %in% x))
  expect_equal(as.numeric(g), quantile(as.numeric(x), seq(0, 1, length.out = 11), type = 1, names = FALSE))
  expect_s3_class(profile_grid(x, 11, "uniform"), "Date")
  expect_equal(as.numeric(profile_grid(x, 11, "uniform")),
               unique(round(seq(min(as.numeric(x)), max(as.numeric(x)), length.out = 11))))
  # PD.
  s$seen$checked <- 0L
  pd <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", N = NULL, grid_points = 15)
  expect_gt(s$seen$checked, 0L)
  expect_s3_class(pd$agr_profiles$`_x_`, "Date")
  expect_s3_class(pd$cp_profiles$`_x_`, "Date")
  expect_identical(pd$grids$d, profile_grid(x, 15))
  expect_equal(pd$agr_profiles$`_yhat_`, colMeans(ref_ice_num(s, "d", as.numeric(pd$grids$d))),
               tolerance = 1e-12)
  expect_equal(pd$agr_profiles$`_support_`, tabulate(findInterval(
    as.numeric(x), c(-Inf, (as.numeric(g <- pd$grids$d)[-1] + as.numeric(g)[-15]) / 2, Inf)), 15))
  # LD kernel: Gaussian weights on the numeric scale (days), Silverman's
  # bandwidth of the days; reported at Dates.
  ld <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", type = "conditional",
                      N = NULL, grid_points = 15)
  z <- as.numeric(ld$grids$d)
  bw <- bw.nrd0(as.numeric(x))
  expect_equal(unname(ld$bandwidth), bw)
  ice <- ref_ice_num(s, "d", z)
  ref <- sapply(seq_along(z), function(k) {
    wk <- dnorm(z[k] - as.numeric(x), 0, bw)
    sum(wk * ice[, k]) / sum(wk)
  })
  expect_equal(ld$agr_profiles$`_yhat_`, ref, tolerance = 1e-10)
  expect_s3_class(ld$agr_profiles$`_x_`, "Date")
  # LD interval: the rows in Apley's interval of each grid point.
  li <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", type = "conditional",
                      method = "interval", grid = profile_grids(intervals = 5), N = NULL, grid_points = 9)
  e <- unique(c(min(as.numeric(x)), quantile(as.numeric(x), seq(0.2, 1, by = 0.2), type = 1, names = FALSE)))
  kx <- as.numeric(cut(as.numeric(x), e, include.lowest = TRUE))
  z <- as.numeric(li$grids$d)
  kz <- as.numeric(cut(z, e, include.lowest = TRUE))
  ice <- ref_ice_num(s, "d", z)
  expect_equal(li$agr_profiles$`_yhat_`, sapply(seq_along(z), function(k) mean(ice[kx == kz[k], k])),
               tolerance = 1e-12)
  # AL interval: ALEPlot's algorithm on the days, reported at Dates.
  al <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", type = "accumulated",
                      grid = profile_grids(intervals = 8), N = NULL)
  ref <- ref_al(function(nd) s$g(nd), s$num(s$X), "d", 8)
  expect_s3_class(al$agr_profiles$`_x_`, "Date")
  expect_equal(as.numeric(al$agr_profiles$`_x_`), ref$x)
  expect_equal(al$agr_profiles$`_yhat_` - al$mean_prediction, ref$f, tolerance = 1e-12)
  # AL kernel: an even grid of whole days.
  ak <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", type = "accumulated",
                      method = "kernel", N = NULL, grid_points = 20, bandwidth = 30)
  expect_s3_class(ak$grids$d, "Date")
  expect_equal(as.numeric(ak$grids$d), unique(round(seq(min(as.numeric(x)), max(as.numeric(x)), length.out = 20))))
  # A grid of Dates (from other rows, say) is used as given.
  own <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", N = NULL,
                       variable_splits = list(d = as.Date(c("2020-01-01", "2021-01-01"))))
  expect_identical(own$grids$d, as.Date(c("2020-01-01", "2021-01-01")))
  expect_equal(own$agr_profiles$`_yhat_`, colMeans(ref_ice_num(s, "d", as.numeric(own$grids$d))),
               tolerance = 1e-12)
  expect_error(model_profile(NULL, s$X, predict_function = s$f, variables = "d",
                             variable_splits = list(d = "2020-01-01")), "Date")
})

test_that("date-times and time differences: their time zone and units are kept", {
  s <- typed_setup()
  for (ty in c("partial", "conditional", "accumulated")) {
    res <- model_profile(NULL, s$X, predict_function = s$f, variables = c("t", "dt"), type = ty,
                         N = NULL, grid_points = 12, grid = profile_grids(intervals = 6))
    a <- res$agr_profiles
    # Two scales: `_x_` is character, each grid keeps its class.
    expect_type(a$`_x_`, "character")
    expect_s3_class(res$grids$t, "POSIXct")
    expect_identical(attr(res$grids$t, "tzone"), "America/New_York")
    expect_s3_class(res$grids$dt, "difftime")
    expect_identical(units(res$grids$dt), "hours")
    # One scale: `_x_` keeps the class and time zone.
    one <- model_profile(NULL, s$X, predict_function = s$f, variables = "t", type = ty,
                         N = NULL, grid_points = 12, grid = profile_grids(intervals = 6))
    expect_s3_class(one$agr_profiles$`_x_`, "POSIXct")
    expect_identical(attr(one$agr_profiles$`_x_`, "tzone"), "America/New_York")
    expect_equal(one$agr_profiles$`_yhat_`, a$`_yhat_`[a$`_vname_` == "t"], tolerance = 1e-12)
  }
  # Quantiles of a date-time (type 7) on its seconds.
  tt <- s$X$t
  expect_equal(as.numeric(profile_grid(tt, 7)), quantile(as.numeric(tt), seq(0, 1, length.out = 7), names = FALSE))
  pd <- model_profile(NULL, s$X, predict_function = s$f, variables = "dt", N = NULL, grid_points = 7)
  expect_equal(pd$agr_profiles$`_yhat_`, colMeans(ref_ice_num(s, "dt", as.numeric(pd$grids$dt))),
               tolerance = 1e-12)
  # A grid of time differences in other units is converted to the column's.
  own <- model_profile(NULL, s$X, predict_function = s$f, variables = "dt", N = NULL,
                       variable_splits = list(dt = as.difftime(c(1, 2), units = "days")))
  expect_equal(as.numeric(own$grids$dt), c(24, 48))
  expect_identical(units(own$grids$dt), "hours")
  # Dates and numbers in one result: character `_x_`, as for categorical.
  mix <- model_profile(NULL, s$X, predict_function = s$f, variables = c("d", "x"), N = NULL, grid_points = 5)
  expect_type(mix$agr_profiles$`_x_`, "character")
  expect_identical(mix$agr_profiles$`_x_`[1:5], as.character(mix$grids$d))
  # The same class everywhere: `_x_` keeps it.
  both <- model_profile(NULL, transform(s$X, d2 = d + 10), predict_function = function(m, nd) {
    as.numeric(nd$d) + as.numeric(nd$d2)
  }, variables = c("d", "d2"), N = NULL, grid_points = 5)
  expect_s3_class(both$agr_profiles$`_x_`, "Date")
})

test_that("stacked rows keep the classes, time zones and units of every column", {
  s <- typed_setup()
  X <- s$X
  X$f <- factor(sample(c("a", "b"), nrow(X), TRUE))
  X$it <- structure(18000L + seq_len(nrow(X)), class = "Date")
  cols <- unclass(X)
  attr(cols, "row.names") <- NULL
  rows <- c(5L, 1L, 5L, 10L)
  out <- modelprofiles:::stack_frame(cols, rows, 5L, list(c(1, 2, 3, 4)), 1L)
  for (v in setdiff(names(X), "x")) {
    expect_identical(out[[v]], X[[v]][rows], info = v)
  }
  expect_identical(attr(out$t, "tzone"), "America/New_York")
  expect_identical(units(out$dt), "hours")
  expect_type(out$it, "integer")
  # Profiled columns: column_values() gives the column's class.
  v <- modelprofiles:::column_values(X$t, c(0, 1))
  expect_identical(attributes(v), attributes(X$t))
  v <- modelprofiles:::column_values(X$it, c(18001, 18002))
  expect_type(v, "integer")
  expect_s3_class(v, "Date")
})

test_that("H-statistics, comparisons and 2-D profiles accept Dates", {
  s <- typed_setup()
  h <- h_statistic(NULL, s$X, predict_function = s$f, N = 40, seed = 1, pairs = 0)
  expect_setequal(h$overall$variable, names(s$X))
  cmp <- compare_profiles(NULL, s$X, predict_function = s$f, variables = c("d", "x"), N = NULL,
                          grid_points = 11, grid = profile_grids(intervals = 6))
  expect_true(all(is.finite(cmp$distances$pd_al)))
  # The PD profile read at the rows' own Dates (linear interpolation in days).
  pd <- cmp$profiles$pd
  a <- pd$agr_profiles[pd$agr_profiles$`_vname_` == "d", ]
  at <- approx(as.numeric(pd$grids$d), a$`_yhat_`, as.numeric(s$X$d), rule = 2)$y
  expect_equal(modelprofiles:::profile_at(pd, "d", pd$labels, s$X$d), at)
  p2 <- model_profile_2d(NULL, s$X, predict_function = s$f, variables = c("d", "x"), N = NULL,
                         grid_points = 4)
  expect_equal(p2$agr_profiles$`_yhat_`, as.vector(sapply(p2$grids$x, function(xx) {
    sapply(p2$grids$d, function(dd) {
      Y <- s$X
      Y$d <- dd
      Y$x <- xx
      mean(s$f(NULL, Y))
    })
  })), tolerance = 1e-12)
  expect_equal(sum(p2$agr_profiles$`_support_`), nrow(s$X))
})

test_that("plots of Dates and date-times have date axes", {
  s <- typed_setup()
  pd <- model_profile(NULL, s$X, predict_function = s$f, variables = "d", N = NULL, grid_points = 20)
  for (geom in c("aggregates", "profiles", "points")) {
    p <- plot(pd, geom = geom, max_curves = 10)
    b <- ggplot2::ggplot_build(p)
    expect_s3_class(b$layout$panel_scales_x[[1]], "ScaleContinuousDate")
    # The profile is drawn at the grid's days.
    line <- b$data[[if (geom == "aggregates") 1L else 2L]]
    expect_equal(sort(unique(line$x)), as.numeric(pd$grids$d))
  }
  # Centred at a Date.
  p <- plot(pd, geom = "profiles", center = as.Date("2020-06-01"), max_curves = 5)
  expect_s3_class(ggplot2::ggplot_build(p)$layout$panel_scales_x[[1]], "ScaleContinuousDate")
  tp <- model_profile(NULL, s$X, predict_function = s$f, variables = "t", N = NULL, grid_points = 20)
  b <- ggplot2::ggplot_build(plot(tp, model_profile(NULL, s$X, predict_function = s$f, variables = "t",
                                                    type = "accumulated", N = NULL)))
  expect_s3_class(b$layout$panel_scales_x[[1]], "ScaleContinuousDatetime")
  expect_identical(b$layout$panel_scales_x[[1]]$timezone, "America/New_York")
  # Mixed kinds: the numeric variables are drawn, with a message for the
  # others (once per session: here every time) and a caption naming them.
  old_verbosity <- options(rlib_message_verbosity = "verbose")
  on.exit(options(old_verbosity), add = TRUE)
  mix <- model_profile(NULL, s$X, predict_function = s$f, variables = c("d", "x", "t"), N = NULL,
                       grid_points = 5)
  expect_message(p <- plot(mix), "numeric variables")
  expect_identical(levels(layer_of(p, column = "_label_")$`_vname_`), "x")
  # Of a mixed result, the Dates alone: read back on the Date scale.
  p <- plot(mix, variables = "d")
  expect_s3_class(ggplot2::ggplot_build(p)$layout$panel_scales_x[[1]], "ScaleContinuousDate")
  expect_equal(ggplot2::layer_data(p, layer_at(p, column = "_label_"))$x, as.numeric(mix$grids$d))
  expect_message(p <- plot(mix, variables = c("d", "t")), "date variables")
  expect_identical(p$labels$caption, "Not drawn (another kind of x axis): t")
})

test_that("the column scans for many rows equal R's own computations, bit for bit", {
  set.seed(3)
  for (n in c(1, 2, 5, 17, 100, 1001)) {
    for (r in 1:12) {
      x <- if (r %% 3 == 0) round(rnorm(n), 1) else rnorm(n)
      p <- sort(c(0, 1, runif(8), 0.5, 1 / 3))
      w <- sample(c(0.5, 1, 2, 3), n, TRUE)
      expect_identical(column_quantiles(x, p, 7L), stats::quantile(x, p, names = FALSE))
      expect_identical(column_quantiles(x, p, 1L), stats::quantile(x, p, type = 1, names = FALSE))
      # The weighted quantiles: the sample with each value repeated w times.
      o <- order(x)
      xs <- x[o]
      cw <- cumsum(w[o])
      nth <- function(k) xs[pmin(findInterval(k, cw, left.open = TRUE) + 1L, length(xs))]
      expect_identical(weighted_quantile1(x, w, p), nth(cw[length(cw)] * p))
      index <- 1 + (cw[length(cw)] - 1) * p
      lo <- floor(index)
      h <- index - lo
      qs <- nth(lo)
      hi <- nth(ceiling(index))
      i <- which(index > lo & hi != qs)
      qs[i] <- (1 - h[i]) * qs[i] + h[i] * hi[i]
      expect_identical(weighted_quantile7(x, w, p), qs)
      M <- matrix(rnorm(2 * n), n)
      expect_identical(weighted_col_means(M, w), colSums(w * M) / sum(w))
      expect_identical(weighted_quantile7(M, w, p, 2L), weighted_quantile7(M[, 2], w, p))
      # Few distinct values: those of unique(), sorted; NULL past the limit.
      expect_identical(cpp_distinct_upto(x, 2000L), sort(unique(x)))
      if (length(unique(x)) > 3L) expect_null(cpp_distinct_upto(x, 3L))
      # Support counts: findInterval() with the last interval closed.
      v <- sort(c(stats::quantile(x, c(0.1, 0.5, 0.9), names = FALSE), min(x) - 1, max(x)))
      k <- findInterval(x, v, rightmost.closed = TRUE)
      expect_identical(cpp_interval_counts(x, v, NULL), as.double(tabulate(k[k >= 1 & k < length(v)], length(v) - 1L)))
      expect_equal(cpp_interval_counts(x, v, w), vapply(seq_len(length(v) - 1L), function(j) sum(w[k == j]), 0))
    }
  }
  expect_identical(cpp_count_infinite(c(1, Inf, NA, -Inf, NaN, 0)), 2)
  expect_identical(cpp_interval_counts(c(NA, 0, 1, 2, 3), c(1, 2, 3), NULL), c(1, 2))
  expect_true(cpp_all_same(c(2, 2, 2)))
  expect_false(cpp_all_same(c(2, 2, NA)))
})

test_that("profile_grid()'s type is the deprecated name of variable_splits_type", {
  x <- c(1, 2, 4, 7, 11, 16, 22)
  expect_equal(profile_grid(x, 3, variable_splits_type = "distinct"), c(1, 7, 22))
  expect_equal(profile_grid(x, 3, variable_splits_type = "uniform"), c(1, 11.5, 22))
  expect_warning(g <- profile_grid(x, 3, type = "distinct"),
                 "`type` is deprecated; use `variable_splits_type`", class = "modelprofiles_deprecated")
  expect_equal(g, c(1, 7, 22))
  expect_error(profile_grid(x, 3, "uniform", type = "distinct"), "old name of `variable_splits_type`")
})
