# The linear engine (R/native_linear.R): for lm and glm, a variable that
# enters the formula by name alone has an affine linear predictor, so two
# predictions per row give its whole ICE curve; the numbers equal the
# predict() path's.

linear_data <- function(n = 150, seed = 1) {
  set.seed(seed)
  d <- data.frame(a = rnorm(n), b = runif(n, 0.5, 2), f = factor(sample(letters[1:3], n, TRUE)),
                  i = sample(1:9, n, TRUE))
  d$y <- d$a + d$a * d$b + (d$f == "b") + log(d$i) + rnorm(n)
  d$c <- factor(ifelse(d$y + rnorm(n) > 1.5, "yes", "no"))
  d$k <- rpois(n, exp(0.3 * d$a + 0.2 * d$i / 3))
  d
}

# PD and ICE of the linear engine against the predict() path, and the
# number of predictions: 2 per row for each linear variable, G per row for
# the others.
expect_linear <- function(fit, X, linear, ...) {
  a <- model_profile(fit, X, N = NULL, grid_points = 12, ...)
  b <- model_profile(fit, X, N = NULL, grid_points = 12, engine = "predict", ...)
  expect_equal(a$engine, "native")
  expect_equal(b$engine, "predict")
  expect_equal(a$agr_profiles, b$agr_profiles, tolerance = 1e-12)
  expect_equal(a$cp_profiles, b$cp_profiles, tolerance = 1e-12)
  n <- nrow(X)
  G <- vapply(names(X), function(v) length(unique(b$agr_profiles$`_x_`[b$agr_profiles$`_vname_` == v])), numeric(1))
  expect_equal(a$n_predictions - b$n_predictions, sum(2 * n - G[linear] * n))
  invisible(a)
}

test_that("lm: interactions, factors and transformed terms", {
  d <- linear_data()
  X <- d[c("a", "b", "f", "i")]
  fit <- lm(y ~ a * b + f:a + log(i) + f, d)
  expect_equal(linear_model(fit)$variables, c("a", "b"))
  expect_linear(fit, X, c("a", "b"))
  # I(a^2) makes a non-linear; b still linear; weights change nothing.
  fit <- lm(y ~ a + I(a^2) + b:i + f, d, weights = d$b)
  expect_equal(linear_model(fit)$variables, c("b", "i"))
  expect_linear(fit, X, c("b", "i"))
  # A plain-R reference of the PD: the mean over the rows of the predictions.
  pd <- model_profile(fit, X, variables = "b", N = NULL, grid_points = 5)
  ref <- vapply(pd$agr_profiles$`_x_`, function(z) mean(predict(fit, transform(X, b = z))), numeric(1))
  expect_equal(pd$agr_profiles$`_yhat_`, ref, tolerance = 1e-12)
})

test_that("glm: binomial (both classes), poisson with an offset, custom predict functions", {
  d <- linear_data()
  X <- d[c("a", "b", "f", "i")]
  g <- glm(c ~ a * b + f + i, d, family = binomial)
  expect_linear(g, X, c("a", "b", "i"))
  expect_linear(g, X, c("a", "b", "i"), class = "no")
  # A user's function (probabilities as one column) is the model: predict(),
  # the same numbers.
  pf <- function(m, nd) predict(m, nd, type = "response")
  a <- model_profile(g, X, N = NULL, predict_function = pf)
  b <- model_profile(g, X, N = NULL, engine = "predict")
  expect_equal(a$engine, "predict")
  expect_equal(a$agr_profiles$`_yhat_`, b$agr_profiles$`_yhat_`, tolerance = 1e-12)
  # The link scale: predict() for "auto", an error for "native".
  link <- function(m, nd) predict(m, nd)
  expect_equal(model_profile(g, X, N = NULL, predict_function = link)$engine, "predict")
  expect_error(model_profile(g, X, N = NULL, predict_function = link, engine = "native"), "model's own predict function only")
  # Poisson with an offset in b: b is not linear, a and i are.
  p <- glm(k ~ a + i + f + offset(log(b)), d, family = poisson)
  expect_equal(linear_model(p)$variables, c("a", "i"))
  expect_linear(p, X, c("a", "i"))
  p2 <- glm(k ~ a + i, d, family = poisson, offset = log(b))
  expect_equal(linear_model(p2)$variables, c("a", "i"))
  expect_linear(p2, X, c("a", "i"))
})

test_that("the linear engine is for ICE curves only; missing values are still errors", {
  d <- linear_data()
  X <- d[c("a", "b", "f", "i")]
  fit <- lm(y ~ a + b + f + i, d)
  expect_equal(model_profile(fit, X, type = "accumulated")$engine, "predict")
  expect_error(model_profile(fit, X, type = "accumulated", engine = "native"), "not supported")
  expect_null(linear_model(lm(y ~ log(i) + f, d)))
  expect_null(linear_model(lm(cbind(y, a) ~ b, d)))
  X$b[3] <- NA
  expect_error(model_profile(fit, X, variables = "a"), "missing")
  expect_error(model_profile(fit, X, variables = "a", engine = "predict"), "missing")
})
