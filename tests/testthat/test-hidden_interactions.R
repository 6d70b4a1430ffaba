# Slopes and hidden interactions: a closed form, and every number of the
# lesson on partial dependence (seed 003) with its subscriber table and tree.

test_that("opposite slopes in two halves: a flat profile, flagged", {
  set.seed(51)
  d <- data.frame(x = runif(400), z = runif(400), s = sample(c("a", "b"), 400, TRUE))
  f <- function(m, nd) ifelse(nd$s == "a", 1, -1) * nd$x + 0.5 * nd$z
  h <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                           grid_points = 3, variable_splits_type = "uniform", scale = 1)
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
  expect_true(s$hidden[1])
  expect_false(s$flat[2])
  expect_false(s$hidden[2])
  expect_equal(s$slope[2], 0.5 * (h$grids$z[3] - h$grids$z[1]), tolerance = 1e-12)
  expect_output(print(h), "1 of them sloped in opposite directions")
  p <- plot(h)
  ld <- ggplot2::layer_data(p, 5)
  expect_equal(sort(ld$x), sort(c(-span, span)), tolerance = 1e-12)
  expect_s3_class(plot(h, geom = "profiles"), "ggplot")
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "nope"), "not in the data")
  expect_error(hidden_interactions(NULL, d, predict_function = f), "groups")
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", flat = -1), "non-negative")
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
    grids = lapply(train[vars], profile_grid, grid_points = 5, type = "distinct"),
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
                             groups = s$groups, variable_splits = s$grids, scale = 1),
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
                           grid_points = 3, variable_splits_type = "uniform", N = NULL)
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
                            grid_points = 3, variable_splits_type = "uniform", N = NULL, scale = 1)
  expect_identical(h1$summary$hidden, c(FALSE, FALSE))
  expect_identical(h1$summary$slope, h$summary$slope)
  expect_output(print(h1), "flat: |slope| < 0.05 overall", fixed = TRUE)
  # The shaded band of the plot is the absolute one.
  ld <- ggplot2::layer_data(plot(h), 1)
  expect_equal(ld$xmax, 0.02 * sd_y, tolerance = 1e-12)
  expect_error(hidden_interactions(NULL, d, predict_function = f, groups = "s", scale = 0), "positive number")
})

test_that("a classifier's thresholds are on the probability scale", {
  skip_if_not_installed("ranger")
  set.seed(53)
  d <- data.frame(x = runif(300), z = runif(300), s = factor(sample(c("a", "b"), 300, TRUE)))
  d$y <- factor(ifelse(d$x + d$z + rnorm(300, sd = 0.3) > 1, "yes", "no"))
  fit <- ranger::ranger(y ~ x + z + s, data = d, probability = TRUE, num.trees = 20, seed = 1,
                        num.threads = 1)
  h <- hidden_interactions(fit, d[c("x", "z", "s")], variables = c("x", "z"), groups = "s", N = NULL)
  expect_identical(c(h$scale), 1)
  expect_identical(attr(h$scale, "source"), "probabilities")
  expect_identical(h$flat_abs, 0.05)
})
