# Columns the model does not use: left out of the default variables with a
# message for models that name their variables; flat profiles marked in
# print() and summary() for every model.

test_that("a formula model's unused columns are left out, with one message", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  expect_snapshot(pd <- model_profile(fit, mtcars, grid_points = 5))
  expect_equal(pd$variables, c("hp", "wt"))
  ref <- model_profile(fit, mtcars, variables = c("hp", "wt"), grid_points = 5)
  expect_equal(pd$agr_profiles, ref$agr_profiles)
  expect_message(model_profile(fit, mtcars, grid_points = 5), class = "modelprofiles_unused_variable")
  # Data with only the model's columns: no message.
  expect_no_message(model_profile(fit, mtcars[c("wt", "hp")], grid_points = 5))
  # The user's data are not modified.
  d <- mtcars
  model_profile(fit, d, grid_points = 5)
  expect_identical(d, mtcars)
})

test_that("a named unused variable is kept, its flat profile said in a message, print() and summary()", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  expect_snapshot(pd <- model_profile(fit, mtcars, variables = c("wt", "qsec"), grid_points = 5))
  expect_equal(pd$variables, c("wt", "qsec"))
  q <- pd$agr_profiles$`_yhat_`[pd$agr_profiles$`_vname_` == "qsec"]
  expect_equal(q, rep(mean(predict(fit, mtcars)), 5))
  expect_equal(flat_variables(pd), "qsec")
  s <- summary(pd)
  expect_equal(s$flat[s$variable == "qsec"], TRUE)
  expect_equal(s$flat[s$variable == "wt"], FALSE)
  expect_output(print(pd), "flat \\(the predictions do not change with it; a column the model does not use\\?\\): qsec")
  expect_output(print(s), "Flat profiles \\(the predictions do not change with it\\): qsec\\.")
})

test_that("the variables of forests, gam and multinom; a user's predict function is taken as it is", {
  skip_if_not_installed("ranger")
  set.seed(1)
  d <- data.frame(a = runif(60), b = runif(60), id = 1:60)
  d$y <- d$a + 2 * d$b + rnorm(60, sd = 0.1)
  rf <- ranger::ranger(y ~ a + b, data = d, num.trees = 20, seed = 1)
  expect_equal(model_variables(rf), c("a", "b"))
  expect_message(pd <- model_profile(rf, d, grid_points = 4), "Leaving out id and y")
  expect_equal(pd$variables, c("a", "b"))
  rfx <- ranger::ranger(x = d[c("a", "b")], y = d$y, num.trees = 20, seed = 1)
  expect_equal(model_variables(rfx), c("a", "b"))
  # A predict function of the user's may read any column: all are profiled.
  f <- function(m, newdata) predict(m, newdata)$predictions + newdata$id
  expect_no_message(pd <- model_profile(rf, d, predict_function = f, grid_points = 4))
  expect_equal(pd$variables, c("a", "b", "id", "y"))
  expect_equal(flat_variables(pd), "y")
  skip_if_not_installed("randomForest")
  rfo <- randomForest::randomForest(x = d[c("a", "b")], y = d$y, ntree = 10)
  expect_equal(model_variables(rfo), c("a", "b"))
  rff <- randomForest::randomForest(y ~ b, data = d, ntree = 10)
  expect_equal(model_variables(rff), "b")
  skip_if_not_installed("mgcv")
  g <- mgcv::gam(y ~ s(a) + b, data = d)
  expect_equal(sort(model_variables(g)), c("a", "b"))
  m <- nnet::multinom(Species ~ Sepal.Length + Petal.Width, data = iris, trace = FALSE)
  expect_equal(model_variables(m), c("Sepal.Length", "Petal.Width"))
  expect_null(model_variables(function(x) x))
})

test_that("h_statistic() and compare_profiles() leave unused columns out too", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  expect_message(h <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")]), "Leaving out qsec")
  expect_setequal(h$variables %||% unique(h$overall$variable), c("wt", "hp"))
  expect_message(cp <- compare_profiles(fit, mtcars[c("wt", "hp", "qsec")]), "Leaving out qsec")
  expect_error(model_profile(fit, mtcars[c("qsec", "disp")]), "No column of `data` is a variable of the model")
})

test_that("flat profiles of a black box are marked per variable, over every class", {
  X <- data.frame(a = seq(0, 1, length.out = 20), b = rep(1:4, 5), z = rnorm(20))
  f <- function(m, newdata) cbind(no = 1 - plogis(newdata$a), yes = plogis(newdata$a) + 0 * newdata$b)
  pd <- model_profile(NULL, X, predict_function = f, grid_points = 5)
  expect_equal(flat_variables(pd), c("b", "z"))
  expect_output(print(pd), "them; a column the model does not use\\?\\): b, z")
  # A profile on a large scale with a small real effect is not flat.
  g <- function(m, newdata) 1e6 + 1e-3 * newdata$a
  expect_equal(flat_variables(model_profile(NULL, X, predict_function = g, grid_points = 5)), c("b", "z"))
})
