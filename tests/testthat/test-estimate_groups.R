test_that("subgroup PD is the PD over each subgroup's rows, on the shared grid", {
  set.seed(12)
  X <- data.frame(a = runif(200), b = rnorm(200), g = factor(sample(c("u", "v"), 200, TRUE)))
  f <- function(d) d$a * ifelse(d$g == "u", 1, -1) + d$b
  pf <- function(m, newdata) f(newdata)
  r <- model_profile(NULL, X, predict_function = pf, variables = "a", groups = "g",
                     grid_points = 6, label = "m")
  a <- r$agr_profiles
  expect_equal(unique(a$`_label_`), c("m_u", "m_v"))
  expect_equal(unique(a$`_groups_`), c("u", "v"))
  for (lev in c("u", "v")) {
    Xg <- X[X$g == lev, ]
    expect_equal(a$`_yhat_`[a$`_groups_` == lev], ref_pd(f, Xg, "a", r$grids$a), tolerance = 1e-12)
  }
  # Opposite slopes cancel in the overall PD.
  all <- model_profile(NULL, X, predict_function = pf, variables = "a", grid_points = 6)
  expect_equal(all$agr_profiles$`_yhat_`,
               (sum(X$g == "u") * a$`_yhat_`[a$`_groups_` == "u"] +
                  sum(X$g == "v") * a$`_yhat_`[a$`_groups_` == "v"]) / 200, tolerance = 1e-12)
  expect_equal(sort(unique(r$cp_profiles$`_ids_`)), 1:200)
  p <- plot(r)
  expect_equal(length(unique(ggplot2::layer_data(p, layer_at(p, column = "_label_"))$colour)), 2)
})

test_that("subgroup AL uses each subgroup's edges and is centred within it", {
  set.seed(13)
  X <- data.frame(a = runif(300), h = rnorm(300))
  f <- function(d) d$a^2 * d$h + d$h
  pf <- function(m, newdata) f(newdata)
  r <- model_profile(NULL, X, predict_function = pf, variables = "a", groups = profile_groups("h", bins = 3),
                     type = "accumulated", grid = profile_grids(intervals = 8), label = "m")
  a <- r$agr_profiles
  g <- cut(X$h, unique(quantile(X$h, seq(0, 1, length.out = 4))), include.lowest = TRUE, dig.lab = 4)
  expect_equal(unique(a$`_groups_`), levels(g))
  for (lev in levels(g)) {
    Xg <- X[g == lev, ]
    ref <- ref_al(f, Xg, "a", 8)
    expect_equal(a$`_x_`[a$`_groups_` == lev], ref$x)
    expect_equal(a$`_yhat_`[a$`_groups_` == lev], ref$f + mean(f(Xg)), tolerance = 1e-12)
  }
  expect_equal(unname(r$mean_prediction), as.numeric(tapply(f(X), g, mean)), tolerance = 1e-12)
})

test_that("small and missing subgroups are reported, not drawn silently", {
  X <- data.frame(a = runif(40), g = c(rep("big", 35), rep("small", 3), NA, NA))
  pf <- function(m, newdata) newdata$a
  expect_warning(
    expect_message(
      r <- model_profile(NULL, X, predict_function = pf, variables = "a", groups = "g"),
      "small"
    ),
    "missing"
  )
  expect_equal(r$groups$levels, "big")
  expect_equal(r$groups$left_out, "small")
  expect_error(model_profile(NULL, X, predict_function = pf, groups = "nope"), "groups")
  expect_error(suppressWarnings(suppressMessages(
    model_profile(NULL, X, predict_function = pf, groups = profile_groups("g", min_size = 100))
  )), "No subgroup")
})

test_that("print and summary of subgroup profiles", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  r <- model_profile(fit, mtcars[c("wt", "hp", "cyl")], variables = c("wt", "hp"), groups = profile_groups("cyl", min_size = 5),
                     type = "accumulated", grid = profile_grids(intervals = 5))
  out <- capture.output(print(r))
  expect_true(any(grepl("subgroups of cyl: 4 \\(11 rows\\), 6 \\(7 rows\\), 8 \\(14 rows\\)", out)))
  s <- summary(r)
  expect_equal(nrow(s), 6)
  expect_setequal(s$label, c("lm_4", "lm_6", "lm_8"))
  a <- r$agr_profiles
  d <- a[a$`_vname_` == "wt" & a$`_label_` == "lm_6", "_yhat_"]
  expect_equal(s$yhat_range[s$variable == "wt" & s$label == "lm_6"], diff(range(d)))
})

test_that("LD and AL skip a variable that is constant within a subgroup, with a message", {
  set.seed(14)
  X <- data.frame(a = c(rep(0, 20), runif(20)), b = runif(40))
  pf <- function(m, d) d$a + d$b
  g <- rep(c("const", "varies"), each = 20)
  expect_message(r <- model_profile(NULL, X, pf, variables = c("a", "b"), type = "accumulated",
                                    groups = g, grid = profile_grids(intervals = 4)),
                 "single value in subgroup")
  a <- r$agr_profiles
  expect_setequal(unique(a$`_groups_`[a$`_vname_` == "a"]), "varies")
  expect_setequal(unique(a$`_groups_`[a$`_vname_` == "b"]), c("const", "varies"))
  expect_message(model_profile(NULL, X, pf, variables = "a", type = "conditional", groups = g),
                 "not profiled there")
  expect_error(suppressMessages(model_profile(NULL, X[1:20, ], pf, variables = "a", type = "conditional",
                                              groups = g[1:20])),
               "constant|single value")
})

test_that("a misspelt groups column gets the nearest column's name (trial 6)", {
  fit <- lm(mpg ~ wt + hp, mtcars)
  X <- mtcars[c("wt", "hp", "cyl")]
  msg <- cli::ansi_strip(conditionMessage(tryCatch(model_profile(fit, X, groups = "cyll"), error = function(e) e)))
  expect_match(msg, "`groups` names no column of `data`: \"cyll\".", fixed = TRUE)
  expect_match(msg, "Did you mean \"cyl\" for \"cyll\"?", fixed = TRUE)
  # No near name: the columns there are.
  msg <- cli::ansi_strip(conditionMessage(tryCatch(model_profile(fit, X, groups = "zzzz"), error = function(e) e)))
  expect_match(msg, "The data has \"wt\", \"hp\", and \"cyl\"", fixed = TRUE)
  expect_error(hidden_interactions(fit, X, groups = c("cyll", "hp")), "Did you mean \"cyl\" for \"cyll\"")
  # The same for variables, and for the ICE subgroups of the Boston trial.
  expect_error(model_profile(fit, X, variables = c("wtt", "hp")), "Did you mean \"wt\" for \"wtt\"")
  skip_if_not_installed("MASS")
  b <- MASS::Boston
  b$chas <- factor(b$chas)
  expect_error(model_profile(lm(medv ~ ., b), b[-14], variables = "lstat", groups = "chass"),
               "Did you mean \"chas\" for \"chass\"")
})
