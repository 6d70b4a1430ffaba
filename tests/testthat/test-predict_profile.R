# Ceteris-paribus profiles of chosen observations (R/predict_profile.R):
# ingredients' grids and table, held to the model's predict() and, when
# installed, to DALEX::predict_profile() and ingredients::ceteris_paribus().

pp_data <- function(n = 120) {
  set.seed(7)
  X <- data.frame(a = rnorm(n), b = runif(n), k = sample(1:9, n, TRUE),
                  f = factor(sample(c("u", "v", "w"), n, TRUE)))
  X$y <- X$a * X$b + X$k / 3 + (X$f == "v") + rnorm(n, sd = 0.1)
  X
}

# The ceteris-paribus table in plain R: for each variable and observation,
# the model's predictions with the variable set to each grid value.
pp_reference <- function(fit, obs, grids) {
  do.call(rbind, lapply(names(grids), function(v) {
    do.call(rbind, lapply(seq_len(nrow(obs)), function(i) {
      g <- grids[[v]]
      nd <- obs[rep(i, length(g)), , drop = FALSE]
      nd[[v]] <- if (is.factor(obs[[v]])) factor(as.character(g), levels(obs[[v]])) else g
      data.frame(`_vname_` = v, `_ids_` = rownames(obs)[i], `_yhat_` = unname(predict(fit, nd)),
                 check.names = FALSE, stringsAsFactors = FALSE)
    }))
  }))
}

test_that("one observation: ingredients' grids, its predictions, its point", {
  D <- pp_data()
  X <- D[c("a", "b", "k", "f")]
  fit <- lm(y ~ a * b + k + f, data = D)
  obs <- X[5, ]
  for (type in c("uniform", "quantiles")) {
    cp <- predict_profile(fit, obs, data = X, grid_points = 11, variable_splits_type = type)
    expect_s3_class(cp, c("mp_ice", "ceteris_paribus_explainer", "data.frame"), exact = TRUE)
    grids <- list(
      a = if (type == "uniform") seq(min(X$a), max(X$a), length.out = 11) else unique(unname(quantile(X$a, seq(0, 1, 0.1)))),
      b = if (type == "uniform") seq(min(X$b), max(X$b), length.out = 11) else unique(unname(quantile(X$b, seq(0, 1, 0.1)))),
      k = if (type == "uniform") seq(1, 9, length.out = 11) else unique(unname(quantile(X$k, seq(0, 1, 0.1)))),
      f = factor(c("u", "v", "w"))
    )
    ref <- pp_reference(fit, transform(obs, k = as.double(k)), grids)
    expect_identical(cp$`_vname_`, ref$`_vname_`)
    expect_identical(cp$`_ids_`, ref$`_ids_`)
    expect_equal(cp$`_yhat_`, ref$`_yhat_`, tolerance = 1e-12)
    # ingredients' wide columns: the grid on its own variable's rows, the
    # observation's value elsewhere; an integer column with fractions is
    # profiled as doubles.
    expect_equal(cp$a[cp$`_vname_` == "a"], grids$a)
    expect_true(all(cp$a[cp$`_vname_` != "a"] == obs$a))
    expect_true(is.double(cp$k))
    expect_identical(as.character(cp$f[cp$`_vname_` == "f"]), c("u", "v", "w"))
    # The observation with its own prediction.
    o <- attr(cp, "observations")
    expect_equal(o$`_yhat_`, unname(predict(fit, obs)), tolerance = 1e-12)
    expect_identical(o$`_ids_`, 1L)
    expect_identical(rownames(o), rownames(obs))
  }
  # The chart: each numeric variable's profile and the observation's point
  # at its own value and prediction.
  cp <- predict_profile(fit, obs, data = X, grid_points = 11)
  p <- plot(cp)
  pts <- ggplot2::layer_data(p, 2)
  expect_equal(sort(pts$x), sort(c(obs$a, obs$b, obs$k)))
  expect_equal(pts$y, rep(unname(predict(fit, obs)), 3), tolerance = 1e-12)
  pf <- plot(cp, variable_type = "categorical")
  expect_s3_class(pf, "ggplot")
})

test_that("several observations, chosen variables, given grids, an explainer", {
  D <- pp_data()
  X <- D[c("a", "b", "k", "f")]
  fit <- lm(y ~ a * b + k + f, data = D)
  obs <- X[c(3, 40, 77), ]
  cp <- predict_profile(fit, obs, "a", data = X, variable_splits = list(a = c(-1, 0, 1)))
  expect_equal(cp$`_yhat_`, pp_reference(fit, obs, list(a = c(-1, 0, 1)))$`_yhat_`, tolerance = 1e-12)
  expect_identical(unique(cp$`_ids_`), rownames(obs))
  # Every column of the observations is a column of the table, as in
  # ingredients' (the other variables at the observations' values).
  expect_identical(names(cp), c("_vname_", "_label_", "_ids_", "_x_", "_yhat_", "a", "b", "k", "f"))
  expect_identical(cp$f, obs$f[rep(1:3, each = 3)])
  expect_equal(attr(cp, "observations")$`_yhat_`, unname(predict(fit, obs)), tolerance = 1e-12)
  # with_obs adds the observations' own values to the grid.
  cpo <- predict_profile(fit, obs, "a", data = X, grid_points = 3, variable_splits_with_obs = TRUE)
  expect_equal(unique(cpo$`_x_`), sort(c(seq(min(X$a), max(X$a), length.out = 3), obs$a)))
  skip_if_not_installed("DALEX")
  ex <- DALEX::explain(fit, data = X, y = D$y, label = "lin", verbose = FALSE)
  cpe <- predict_profile(ex, obs, "a", variable_splits = list(a = c(-1, 0, 1)))
  expect_identical(unique(cpe$`_label_`), "lin")
  expect_equal(cpe$`_yhat_`, cp$`_yhat_`, tolerance = 1e-12)
})

test_that("bad input names the argument", {
  D <- pp_data()
  X <- D[c("a", "b", "k", "f")]
  fit <- lm(y ~ a * b + k + f, data = D)
  expect_error(predict_profile(fit), "`new_observation` is missing")
  expect_error(predict_profile(fit, X[1, ]), "`data` is needed for the grids")
  expect_error(predict_profile(fit, X[1, ], c("a", "b"), variable_splits = list(a = 1:2)),
               "`data` is needed for the grids of b")
  expect_error(predict_profile(fit, as.list(X[1, ]), data = X), "`new_observation` must be a data frame")
  expect_error(predict_profile(fit, X[0, ], data = X), "`new_observation` has no rows")
  expect_error(predict_profile(fit, X[1, ], "zz", data = X), "`variables` has name not in the data")
  expect_error(predict_profile(fit, X[1, ], data = X, type = "break_down"), "predict_parts")
  expect_error(predict_profile(fit, X[1, ], data = X, variable_splits_type = "foo"), "`variable_splits_type`")
  expect_error(predict_profile(fit, X[1, ], data = X, grid_points = 1), "`grid_points`")
  expect_error(predict_profile(fit, X[1, ], data = X, nope = 1), "nope")
  expect_identical(rlang::call_name(tryCatch(predict_profile(fit, X[1, ], data = X, grid_points = 1),
                                             error = function(e) e$call)), "predict_profile")
  # Observations that lack a column the model uses: `new_observation` is
  # named, with the columns it lacks, not `data` (trial 5).
  e <- tryCatch(predict_profile(fit, X[1, c("a", "k")], data = X), error = function(e) e)
  msg <- cli::ansi_strip(conditionMessage(e))
  expect_match(msg, "The model failed on `new_observation`, which lacks columns of `data`: b and f.", fixed = TRUE)
  expect_match(msg, "object 'b' not found", fixed = TRUE)
  expect_match(msg, "Give `new_observation` every column the model uses", fixed = TRUE)
  expect_no_match(msg, "rows of `data`.", fixed = TRUE)
  expect_identical(rlang::call_name(e$call), "predict_profile")
  # (A column the model does not use may be missing.)
  fit2 <- lm(y ~ a * b, data = D)
  cp <- predict_profile(fit2, X[1, c("a", "b")], data = X, grid_points = 3)
  expect_equal(cp$`_yhat_`[cp$`_vname_` == "a"],
               unname(predict(fit2, data.frame(a = seq(min(X$a), max(X$a), length.out = 3), b = X$b[1]))))
})

# DALEX's and ingredients' profiles keyed by variable and grid value.
keyed <- function(cp, vars) {
  do.call(rbind, lapply(vars, function(v) {
    r <- as.character(cp$`_vname_`) == v
    data.frame(v = v, x = as.character(cp[[v]][r]), ids = as.character(cp$`_ids_`[r]),
               yhat = cp$`_yhat_`[r], stringsAsFactors = FALSE)
  }))
}

test_that("equal to DALEX::predict_profile() on its example (johny_d)", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ingredients")
  ti <- DALEX::titanic_imputed
  fit <- glm(survived ~ ., data = ti, family = "binomial")
  ex <- DALEX::explain(fit, data = ti, verbose = FALSE)
  johny_d <- ti[24, c("gender", "age", "class", "embarked", "fare", "sibsp", "parch")]
  theirs <- DALEX::predict_profile(ex, johny_d)
  ours <- predict_profile(ex, johny_d)
  vars <- unique(as.character(theirs$`_vname_`))
  expect_setequal(unique(ours$`_vname_`), vars)
  a <- keyed(ours, vars)
  b <- keyed(theirs, vars)
  b <- b[match(paste(a$v, a$x), paste(b$v, b$x)), ]
  expect_false(anyNA(b$yhat))
  expect_identical(nrow(a), nrow(keyed(theirs, vars)))
  expect_equal(a$yhat, b$yhat, tolerance = 1e-12)
  expect_identical(a$ids, b$ids)
  expect_equal(attr(ours, "observations")$`_yhat_`, attr(theirs, "observations")$`_yhat_`, tolerance = 1e-12)
  # DALEX's own plot of ours, and ours.
  expect_s3_class(plot(ours), "ggplot")
  expect_s3_class(ingredients:::plot.ceteris_paribus_explainer(ours, variables = "age"), "ggplot")
})

test_that("equal to ingredients::ceteris_paribus() on its example", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ingredients")
  titanic <- na.omit(DALEX::titanic)
  fit <- glm(survived == "yes" ~ gender + age + fare, data = titanic, family = "binomial")
  ex <- DALEX::explain(fit, data = titanic[, -9], y = titanic$survived == "yes", verbose = FALSE)
  theirs <- ingredients::ceteris_paribus(ex, titanic[1, ])
  ours <- predict_profile(ex, titanic[1, ], variable_splits_type = "quantiles")
  vars <- unique(as.character(theirs$`_vname_`))
  a <- keyed(ours, vars)
  b <- keyed(theirs, vars)
  expect_identical(nrow(a), nrow(b))
  b <- b[match(paste(a$v, a$x), paste(b$v, b$x)), ]
  expect_equal(a$yhat, b$yhat, tolerance = 1e-12)
  # Its further idioms: the profile of several passengers, aggregated.
  sel <- titanic[c(1, 5, 9, 20, 33), ]
  cp <- predict_profile(ex, sel, "age", variable_splits_type = "quantiles")
  ref <- ingredients::ceteris_paribus(ex, sel, variables = "age")
  expect_equal(ingredients::aggregate_profiles(cp)$`_yhat_`, ingredients::aggregate_profiles(ref)$`_yhat_`,
               tolerance = 1e-12)
  p <- plot(cp) + ingredients::show_observations(cp, variables = "age") +
    ingredients::show_rugs(cp, variables = "age", color = "red")
  expect_silent(ggplot2::ggplot_build(p))
})

test_that("picture: one observation's profiles with its point marked", {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  cp <- predict_profile(fit, X["Fiat 128", ], data = X, grid_points = 21)
  expect_doppelganger("predict-profile-one-observation", plot(cp))
})

test_that("missing values are named by column and row count, and in new_observation by that argument", {
  skip_if_not_installed("ranger")
  set.seed(5)
  d <- data.frame(x1 = runif(80), x2 = runif(80), x3 = runif(80))
  rf <- ranger::ranger(y ~ ., transform(d, y = x1 + x2), num.trees = 10, seed = 1)
  dn <- d
  dn$x2[c(3, 10)] <- NA
  dn$x3[5] <- NA
  e <- expect_error(model_profile(rf, dn, variables = "x1", N = NULL), class = "rlang_error")
  msg <- cli::ansi_strip(conditionMessage(e))
  expect_match(msg, "missing values in x2 (2 rows) and x3 (1 row)", fixed = TRUE)
  expect_match(msg, "drop those rows from `data`", fixed = TRUE)
  o <- d[1, ]
  o$x2 <- NA
  e <- expect_error(predict_profile(rf, o, data = d, variables = "x1"), class = "rlang_error")
  msg <- cli::ansi_strip(conditionMessage(e))
  expect_match(msg, "The model cannot predict `new_observation`: it has missing values in x2.", fixed = TRUE)
  # Not the model's own message, which counted the rows profiled (the one
  # observation twice) and blamed `data`.
  expect_no_match(msg, "rows)", fixed = TRUE)
  expect_no_match(msg, "from `data`", fixed = TRUE)
  # Through predict(): the chunk's failure names the missing values, not
  # the chunk's size.
  e <- expect_error(model_profile(rf, dn, variables = "x1", N = NULL, engine = "predict"), class = "rlang_error")
  msg <- cli::ansi_strip(conditionMessage(e))
  expect_match(msg, "failed on rows with missing values in x2 (2 rows) and x3 (1 row)", fixed = TRUE)
  expect_no_match(msg, "memory_budget", fixed = TRUE)
})

test_that("a name of no column lists the data's columns that the model uses, not new_observation's others", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  obs <- cbind(mtcars["Fiat 128", c("wt", "hp")], weight = 2, extra = "note")
  e <- expect_error(predict_profile(fit, obs, variables = "typo", data = X), "`variables` has name not in the data")
  msg <- cli::ansi_strip(conditionMessage(e))
  expect_match(msg, "Columns of `data` that can be profiled: \"wt\" and \"hp\".", fixed = TRUE)
  expect_no_match(msg, "extra|weight|qsec")
  # The suggestion is of those columns only: "weigh" is nearest "weight",
  # which the model does not use; "hpp" is nearest "hp".
  expect_no_match(cli::ansi_strip(conditionMessage(expect_error(
    predict_profile(fit, obs, variables = "weigh", data = X)))), "Did you mean")
  expect_match(cli::ansi_strip(conditionMessage(expect_error(
    predict_profile(fit, obs, variables = "hpp", data = X)))), "Did you mean \"hp\" for \"hpp\"?", fixed = TRUE)
  # With the user's predict function the model's columns are not known: the
  # observations' columns that the data has.
  e <- expect_error(predict_profile(NULL, obs, variables = "typo", data = X,
                                    predict_function = function(m, newdata) newdata$wt))
  expect_match(cli::ansi_strip(conditionMessage(e)), "can be profiled: \"wt\" and \"hp\".", fixed = TRUE)
})
