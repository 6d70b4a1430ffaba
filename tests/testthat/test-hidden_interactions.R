# Slopes and hidden interactions: a closed form, and every number of the
# lesson on partial dependence (seed 003) with its subscriber table and tree.

test_that("opposite slopes in two halves: a flat profile, flagged by both rules", {
  set.seed(51)
  d <- data.frame(x = runif(400), z = runif(400), s = sample(c("a", "b"), 400, TRUE))
  f <- function(m, nd) ifelse(nd$s == "a", 1, -1) * nd$x + 0.5 * nd$z
  h <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                           grid_points = 3, variable_splits_type = "uniform")
  s <- h$summary
  gx <- h$grids$x
  span <- gx[3] - gx[1]
  # Within a subgroup the slope is +-span; overall (mean(a) - mean(b)) * span.
  expect_equal(s$slope[1], (mean(d$s == "a") - mean(d$s == "b")) * span, tolerance = 1e-12)
  expect_equal(s$max_slope[1], span, tolerance = 1e-12)
  expect_equal(s$min_slope[1], -span, tolerance = 1e-12)
  expect_equal(s$highest[1], "s a")
  expect_equal(s$lowest[1], "s b")
  expect_equal(s$gap[1], 2 * span, tolerance = 1e-12)
  # The overall slope's standard error: the rows' own slopes are +-span.
  di <- ifelse(d$s == "a", span, -span)
  n <- nrow(d)
  expect_equal(s$se[1], sqrt(n / (n - 1) * sum((di - mean(di))^2)) / n, tolerance = 1e-12)
  expect_equal(s$upper[1] - s$lower[1], 2 * qnorm(0.975) * s$se[1], tolerance = 1e-12)
  # Each subgroup's rows slope alike: no spread, distinguishable from 0.
  sl <- h$slopes
  expect_true(all(sl$se[sl$variable == "x" & sl$subgroup != "all"] < 1e-12))
  expect_identical(sl$distinct[sl$variable == "x"], c(NA, TRUE, TRUE))
  expect_identical(c(s$rising[1], s$falling[1]), c(1L, 1L))
  expect_true(s$flat[1])
  expect_true(s$hidden[1])
  # z slopes alike in both halves: not hidden.
  expect_identical(c(s$rising[2], s$falling[2]), c(2L, 0L))
  expect_false(s$flat[2])
  expect_false(s$hidden[2])
  expect_equal(s$slope[2], 0.5 * (h$grids$z[3] - h$grids$z[1]), tolerance = 1e-12)
  expect_identical(h$rule, "intervals")
  expect_identical(h$tests, 4L)
  expect_null(h$scale)
  out <- capture.output(print(h))
  expect_match(out, "1 of 2 variables hidden", all = FALSE, fixed = TRUE)
  expect_match(out, "Holm-adjusted p-value below 0.05 over 4 subgroup slopes", all = FALSE, fixed = TRUE)
  expect_match(out, "Subgroups of x distinguishable from 0:", all = FALSE, fixed = TRUE)
  # The plot: the dots at the slopes, the bars their intervals, the overall
  # interval shaded.
  p <- plot(h)
  ld <- ggplot2::layer_data(p, 5)
  expect_equal(sort(ld$x), sort(c(-span, span)), tolerance = 1e-12)
  bars <- ggplot2::layer_data(p, 4)
  expect_equal(sort(bars$xmin), sort(sl$lower[sl$variable == "x" & sl$subgroup != "all"]), tolerance = 1e-12)
  shade <- ggplot2::layer_data(p, 1)
  expect_equal(c(shade$xmin, shade$xmax), c(s$lower[1], s$upper[1]), tolerance = 1e-12)
  expect_s3_class(plot(h, geom = "profiles"), "ggplot")
  # The lesson's rule: flat by an absolute threshold, sloped beyond another.
  expect_message(
    ht <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                              grid_points = 3, variable_splits_type = "uniform", ratio = 0.3,
                              rule = "thresholds", scale = 1),
    "`ratio` is not read by `rule = \"thresholds\"`", fixed = TRUE
  )
  expect_identical(ht$summary$slope, s$slope)
  expect_identical(ht$summary$hidden, c(TRUE, FALSE))
  expect_output(print(ht), "1 of them sloped in opposite directions")
  expect_message(hidden_interactions(NULL, d, predict_function = f, groups = "s", flat = 0.1, N = 200),
                 "`flat` is not read", fixed = TRUE)
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "nope"), "not in the data")
  expect_error(hidden_interactions(NULL, d, predict_function = f), "groups")
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", flat = -1), "non-negative")
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", ratio = -1), "non-negative")
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", level = 1), "between 0 and 1")
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", rule = "both"), "rule")
})

test_that("slopes, standard errors and Holm's p-values against plain R, with weights and several groupings", {
  set.seed(54)
  n <- 300
  d <- data.frame(x = runif(n), z = runif(n), u = rnorm(n), s = sample(c("a", "b", "c"), n, TRUE))
  fx <- function(nd) sin(2 * nd$x) * (1 + nd$u) + nd$z * nd$x * (nd$s == "a") - nd$x^2 * nd$u
  f <- function(m, nd) fx(nd)
  w <- rep(c(1, 2, 0.5), length.out = n)
  groups <- list(s = d$s, high = d$z > 0.6)
  h <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = profile_groups(groups, min_size = 5),
                           weights = w, variable_splits = list(x = c(0.1, 0.4, 0.9), z = c(0.8, 0.2, 0.5)),
                           level = 0.9)
  # By hand: each row's slope from its curve at the smallest and largest
  # grid value (z does not move the rows of s b and s c: slope 0, se 0, p 1).
  ref_rows <- list(
    "all" = rep(TRUE, n), "s a" = d$s == "a", "s b" = d$s == "b", "s c" = d$s == "c",
    "high FALSE" = d$z <= 0.6, "high TRUE" = d$z > 0.6
  )
  zq <- qnorm(0.95)
  ref <- do.call(rbind, lapply(c("x", "z"), function(v) {
    lo <- if (v == "x") 0.1 else 0.2
    hi <- 0.9 * (v == "x") + 0.8 * (v == "z")
    d_lo <- d
    d_lo[[v]] <- lo
    d_hi <- d
    d_hi[[v]] <- hi
    di <- fx(d_hi) - fx(d_lo)
    do.call(rbind, lapply(names(ref_rows), function(g) {
      r <- ref_rows[[g]]
      k <- w[r]
      m <- sum(k * di[r]) / sum(k)
      ne <- sum(k)^2 / sum(k^2)
      se <- sqrt(ne / (ne - 1) * sum(k^2 * (di[r] - m)^2)) / sum(k)
      data.frame(subgroup = g, variable = v, rows = sum(r), first = sum(k * fx(d_lo)[r]) / sum(k),
                 slope = m, se = se, p = if (se == 0) as.numeric(m == 0) else 2 * pnorm(-abs(m / se)))
    }))
  }))
  sl <- h$slopes
  expect_identical(sl$subgroup, ref$subgroup)
  expect_identical(sl$variable, ref$variable)
  expect_identical(sl$rows, ref$rows)
  expect_equal(sl$first, ref$first, tolerance = 1e-12)
  expect_equal(sl$slope, ref$slope, tolerance = 1e-12)
  expect_equal(sl$se, ref$se, tolerance = 1e-12)
  expect_equal(sl$lower, ref$slope - zq * ref$se, tolerance = 1e-12)
  expect_equal(sl$upper, ref$slope + zq * ref$se, tolerance = 1e-12)
  expect_equal(sl$p_value, ref$p, tolerance = 1e-10)
  sub <- ref$subgroup != "all"
  expect_equal(sl$p_holm[sub], p.adjust(ref$p[sub], "holm"), tolerance = 1e-10)
  expect_identical(sl$distinct[sub], p.adjust(ref$p[sub], "holm") < 0.1)
  expect_identical(h$tests, 10L)
  # The subgroups' profiles are those of model_profile() within them (the
  # same curves, no prediction of their own).
  mp <- model_profile(NULL, d, predict_function = f, variables = "x", groups = profile_groups("s", min_size = 5), weights = w,
                      variable_splits = list(x = c(0.1, 0.4, 0.9)))
  a <- h$profiles$s$agr_profiles
  expect_equal(a$`_yhat_`[a$`_vname_` == "x"], mp$agr_profiles$`_yhat_`, tolerance = 1e-12)
  expect_identical(h$profiles$s$n_predictions, 0)
  expect_identical(h$n_predictions, h$profiles$all$n_predictions)
  expect_identical(h$n_predictions, n * 6)
})

test_that("a random grouping of an lm with an interaction is not flagged (0 of 5 seeds, and all rows)", {
  flagged <- vapply(1:5, function(seed) {
    set.seed(seed)
    n <- 20000
    d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = rnorm(n))
    d$y <- d$x1 * d$x2 + d$x3 + rnorm(n)
    fit <- lm(y ~ x1 * x2 + x3, d)
    g <- sample(c("a", "b", "c", "d"), n, TRUE)
    h <- hidden_interactions(fit, d[1:3], groups = list(g = g), seed = seed)
    hn <- hidden_interactions(fit, d[1:3], groups = list(g = g), N = NULL)
    c(sum(h$summary$hidden), sum(hn$summary$hidden))
  }, numeric(2))
  expect_identical(sum(flagged), 0)
  # The lesson's thresholds flag this noise (a false positive).
  set.seed(1)
  n <- 20000
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = rnorm(n))
  d$y <- d$x1 * d$x2 + d$x3 + rnorm(n)
  fit <- lm(y ~ x1 * x2 + x3, d)
  g <- sample(c("a", "b", "c", "d"), n, TRUE)
  ht <- hidden_interactions(fit, d[1:3], groups = list(g = g), N = NULL, rule = "thresholds")
  expect_true(any(ht$summary$hidden))
})

test_that("a forest of y = 3 x1 s, s = +-1 by group, is flagged", {
  skip_if_not_installed("ranger")
  set.seed(2)
  n <- 2000
  d <- data.frame(x1 = runif(n), x2 = runif(n), x3 = runif(n), g = factor(sample(c("up", "down"), n, TRUE)))
  d$y <- 3 * d$x1 * ifelse(d$g == "up", 1, -1) + rnorm(n, sd = 0.5)
  rf <- ranger::ranger(y ~ x1 + x2 + x3 + g, d, num.trees = 100, num.threads = 1, seed = 1)
  X <- d[c("x1", "x2", "x3", "g")]
  h <- hidden_interactions(rf, X, groups = "g", variables = c("x1", "x2", "x3"), seed = 1)
  s <- h$summary
  expect_identical(s$variable[s$hidden], "x1")
  x1 <- s[s$variable == "x1", ]
  expect_gt(x1$max_slope, 2)
  expect_lt(x1$min_slope, -2)
  expect_lt(abs(x1$slope), 0.5 * min(x1$max_slope, -x1$min_slope))
  expect_identical(c(x1$rising, x1$falling), c(1L, 1L))
  # The native engine (the forest's own trees) and the predict path agree.
  hp <- hidden_interactions(rf, X, groups = "g", variables = c("x1", "x2", "x3"), seed = 1, engine = "predict")
  expect_equal(hp$slopes$slope, h$slopes$slope, tolerance = 1e-10)
  expect_equal(hp$slopes$se, h$slopes$se, tolerance = 1e-10)
})

# The example's helpers (subscriber_features(), the tree's predict() and
# print() methods) are in a script the package installs, not in its namespace.
source(system.file("examples", "subscriber.R", package = "modelprofiles"), local = TRUE)

lesson_setup <- function() {
  train <- subscribers[subscribers$split == "train", ]
  test <- subscribers[subscribers$split == "test", ]
  vars <- c("mean_consumption", "volatility", "household", "satisfaction", "period")
  list(
    train = train, test = test, vars = vars,
    grids = lapply(train[vars], profile_grid, grid_points = 5, variable_splits_type = "distinct"),
    groups = list(
      region = test$region_name,
      tariff = cut(test$mean_consumption, c(-Inf, 10, 25, Inf), labels = c("10", "25", "40")),
      household = cut(test$household, c(-Inf, 2, 4, Inf), labels = c("1-2", "3-4", "5+")),
      readings = factor(ifelse(test$period <= 2, "few", "all"), levels = c("few", "all"))
    ),
    pf = function(m, d) predict(m, subscriber_features(d))
  )
}

test_that("the lesson's table, tree, baseline and accuracy", {
  s <- lesson_setup()
  expect_equal(as.vector(table(subscribers$split)), c(756, 252, 252))
  expect_equal(sprintf("%.4f", mean(s$test$suspicious == 0)), "0.7579")
  expect_equal(sprintf("%.4f", mean((predict(subscriber_tree, s$test) > 0.5) == s$test$suspicious)), "0.7897")
  # per_person is consistent with its sources, with the lesson's rounding.
  expect_identical(subscriber_features(subscribers)$per_person, subscribers$per_person)
  # The script's print() method: 95 nodes, 48 leaves; depth 1 shows 3 lines.
  out <- capture.output(print(subscriber_tree, depth = 1))
  expect_identical(out[1], "<subscriber_tree> classification tree for `suspicious`: 95 nodes, 48 leaves, depth 6")
  expect_length(grep("n = ", out), 3L)
  expect_match(out[length(out)], "92 deeper nodes")
  expect_error(predict(subscriber_tree, s$test["household"]), "no column")
})

test_that("the lesson's partial dependence at its five-point grids", {
  s <- lesson_setup()
  pd <- model_profile(subscriber_tree, s$test, predict_function = s$pf, variables = s$vars,
                      N = NULL, variable_splits = s$grids)
  lesson <- list(
    mean_consumption = c("0:0.0848", "15.23:0.1380", "19.51:0.2234", "23.81:0.2250", "42.9:0.3838"),
    volatility = c("0:0.1374", "5.52:0.1374", "9.89:0.1945", "15.64:0.3158", "40.57:0.7731"),
    household = c("1:0.2546", "2:0.2510", "3:0.2274", "4:0.2165", "6:0.2477"),
    satisfaction = c("1:0.2926", "2:0.2588", "3:0.2315", "4:0.2354", "5:0.2460"),
    period = c("1:0.2491", "2:0.2491", "3:0.2491")
  )
  for (v in s$vars) {
    p <- profile_of(pd, v)
    expect_equal(paste0(as.character(p$`_x_`), ":", sprintf("%.4f", p$`_yhat_`)), lesson[[v]], label = v)
  }
})

test_that("the lesson's slopes, flat columns, opposite subgroups and gaps", {
  s <- lesson_setup()
  expect_message(
    h <- hidden_interactions(subscriber_tree, s$test, predict_function = s$pf, variables = s$vars,
                             groups = s$groups, variable_splits = s$grids, rule = "thresholds", scale = 1),
    "tariff 10 \\(12\\)"
  )
  sm <- h$summary
  expect_equal(sprintf("%+.4f", sm$slope), c("+0.2990", "+0.6357", "-0.0069", "-0.0466", "+0.0000"))
  expect_equal(sm$variable[sm$flat], c("household", "satisfaction", "period"))
  expect_equal(sm$variable[sm$hidden], c("household", "satisfaction"))
  hs <- sm[sm$hidden, ]
  expect_equal(hs$highest, c("tariff 40", "region east"))
  expect_equal(sprintf("%+.4f", hs$max_slope), c("+0.1301", "+0.0278"))
  expect_equal(hs$lowest, c("region east", "tariff 40"))
  expect_equal(sprintf("%+.4f", hs$min_slope), c("-0.1891", "-0.1911"))
  expect_equal(sprintf("%.4f", hs$gap), c("0.3192", "0.2189"))
  # The lesson's subgroup slope table (household, satisfaction; period is 0).
  table_lesson <- rbind(
    "region north" = c("+0.0916", "-0.1146"), "region south" = c("-0.0477", "-0.0108"),
    "region east" = c("-0.1891", "+0.0278"), "region west" = c("-0.0442", "-0.0313"),
    "region central" = c("+0.0522", "-0.0573"), "tariff 25" = c("-0.0264", "-0.0143"),
    "tariff 40" = c("+0.1301", "-0.1911"), "household 1-2" = c("-0.0354", "-0.0665"),
    "household 3-4" = c("+0.0049", "-0.0533"), "household 5+" = c("+0.0040", "+0.0205"),
    "readings few" = c("+0.0155", "-0.0359"), "readings all" = c("-0.0183", "-0.0520")
  )
  sl <- h$slopes
  for (j in 1:2) {
    v <- c("household", "satisfaction")[j]
    got <- sl[sl$variable == v & sl$subgroup != "all", ]
    expect_equal(got$subgroup, rownames(table_lesson))
    expect_equal(sprintf("%+.4f", got$slope), unname(table_lesson[, j]), label = v)
  }
  expect_true(all(sl$slope[sl$variable == "period"] == 0))
  expect_equal(h$left_out, data.frame(subgroup = "tariff 10", rows = 12L))
  expect_equal(length(unique(sl$subgroup)) - 1L, 12)
})

test_that("thresholds are fractions of the prediction scale: a price model is flagged", {
  set.seed(52)
  d <- data.frame(x = runif(400), z = runif(400), s = sample(c("a", "b"), 400, TRUE))
  # Prices: x moves them by +-20,000 in the two halves, z by 50,000.
  f <- function(m, nd) 2e5 + ifelse(nd$s == "a", 2e4, -2e4) * nd$x + 5e4 * nd$z
  h <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                           grid_points = 3, variable_splits_type = "uniform", N = NULL, rule = "thresholds")
  y <- f(NULL, d)
  sd_y <- sqrt(mean((y - mean(y))^2))
  expect_equal(c(h$scale), sd_y, tolerance = 1e-12)
  expect_identical(attr(h$scale, "source"), "sd of the predictions")
  expect_equal(h$flat_abs, 0.05 * sd_y, tolerance = 1e-12)
  expect_equal(h$sloped_abs, 0.02 * sd_y, tolerance = 1e-12)
  expect_identical(h$summary$hidden, c(TRUE, FALSE))
  expect_output(print(h), paste0("flat: |slope| < 0.05 x ", format(signif(sd_y, 4))), fixed = TRUE)
  # Absolute thresholds (scale = 1) flag nothing on a price scale.
  h1 <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                            grid_points = 3, variable_splits_type = "uniform", N = NULL, scale = 1,
                            rule = "thresholds")
  expect_identical(h1$summary$hidden, c(FALSE, FALSE))
  expect_identical(h1$summary$slope, h$summary$slope)
  expect_output(print(h1), "flat: |slope| < 0.05 overall", fixed = TRUE)
  # The shaded band of the plot is the absolute one.
  ld <- ggplot2::layer_data(plot(h), 1)
  expect_equal(ld$xmax, 0.02 * sd_y, tolerance = 1e-12)
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", scale = 0, rule = "thresholds"),
               "positive number")
})

test_that("a classifier's thresholds are on the probability scale", {
  skip_if_not_installed("ranger")
  set.seed(53)
  d <- data.frame(x = runif(300), z = runif(300), s = factor(sample(c("a", "b"), 300, TRUE)))
  d$y <- factor(ifelse(d$x + d$z + rnorm(300, sd = 0.3) > 1, "yes", "no"))
  fit <- ranger::ranger(y ~ x + z + s, data = d, probability = TRUE, num.trees = 20, seed = 1,
                        num.threads = 1)
  h <- hidden_interactions(fit, d[c("x", "z", "s")], variables = c("x", "z"), groups = "s", N = NULL,
                           rule = "thresholds")
  expect_identical(c(h$scale), 1)
  expect_identical(attr(h$scale, "source"), "probabilities")
  expect_identical(h$flat_abs, 0.05)
})
