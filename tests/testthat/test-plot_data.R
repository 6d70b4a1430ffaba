# Plot data of profiles (R/plot_data.R): what is drawn is the result's
# numbers, the rug is the observed values.

test_that("the aggregates drawn are the result's profiles", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, variables = c("wt", "hp"), N = NULL)
  d <- profile_plot_data(list(pd), "aggregates", NULL, NULL, 10, rug = TRUE)
  ref <- pd$agr_profiles
  k <- match(paste(ref$`_vname_`, ref$`_x_`), paste(d$agr$`_vname_`, d$agr$`_x_`))
  expect_false(anyNA(k))
  expect_equal(d$agr$`_yhat_`[k], ref$`_yhat_`, tolerance = 1e-12)
  expect_true(d$numeric_x)
  expect_equal(nrow(d$rug), 2 * nrow(X))
  expect_setequal(d$rug$`_x_`[d$rug$`_vname_` == "wt"], X$wt)
})

# ---- Charts name what they show (issue 41, rows 7 and 8) -----------------------

test_that("a DALEX result that looks like another class is not subtitled with ours (row 7)", {
  lr <- glm(am ~ wt + hp, data = mtcars, family = binomial)
  p1 <- model_profile(lr, mtcars[c("wt", "hp")], variables = "wt", grid_points = 5)
  a <- p1$agr_profiles[c("_vname_", "_label_", "_x_", "_yhat_", "_ids_")]
  a$`_yhat_` <- 1 - a$`_yhat_`
  class(a) <- c("aggregated_profiles_explainer", "partial_dependence_explainer", "data.frame")
  theirs <- structure(list(agr_profiles = a, cp_profiles = NULL), class = "model_profile")
  expect_warning(p <- plot(p1, theirs), "another class")
  expect_null(p$labels$subtitle)
  expect_identical(levels(layer_of(p, column = "_label_")$`_label_`),
                   c("partial dependence, class 1", "partial dependence, DALEX, likely another class"))
  # DALEX's result of our class: one class, in the subtitle.
  a$`_yhat_` <- p1$agr_profiles$`_yhat_`
  same <- structure(list(agr_profiles = a, cp_profiles = NULL), class = "model_profile")
  expect_identical(plot(p1, same)$labels$subtitle, "Probability of class \"1\"")
})

test_that("the note that a chart has one kind of x axis is given once per session; the caption names what is left out (row 8)", {
  d <- data.frame(x = 1:6, g = factor(c("a", "b", "c", "a", "b", "c")))
  pf <- function(m, newdata) newdata$x * as.integer(newdata$g)
  pd <- model_profile(NULL, d, predict_function = pf)
  old_verbosity <- options(rlib_message_verbosity = "default")
  on.exit(options(old_verbosity), add = TRUE)
  env <- get("message_freq_env", envir = asNamespace("rlang"))
  if (exists("modelprofiles_one_x_axis", envir = env, inherits = FALSE)) rm("modelprofiles_one_x_axis", envir = env)
  expect_message(p1 <- plot(pd), "one kind of x axis")
  expect_no_message(p2 <- plot(pd))
  expect_identical(p1$labels$caption, "Not drawn (another kind of x axis): g")
  expect_identical(p2$labels$caption, p1$labels$caption)
})
