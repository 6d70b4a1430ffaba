# Adapters of linear and additive models (R/adapter_linear.R): each adapter's
# predictions are the model's own predict() on the response scale, with
# classes named as the model names them.

adapter_predict <- function(model, newdata) {
  a <- model_adapter(model)
  a$predict(model, newdata)
}

test_that("lm and a Gaussian glm: the model's predict(), with the linear engine allowed", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  expect_true(model_adapter(fit)$linear)
  expect_equal(adapter_predict(fit, mtcars), predict(fit, mtcars))
  g <- glm(mpg ~ wt + hp, data = mtcars)
  expect_equal(adapter_predict(g, mtcars), unname(predict(g, mtcars, type = "response")))
})

test_that("a binomial glm: both classes' probabilities, named by binomial_classes()", {
  d <- transform(mtcars, am_f = factor(am, labels = c("auto", "manual")), am_l = am == 1)
  g <- glm(am_f ~ wt, family = binomial, data = d)
  a <- model_adapter(g)
  expect_identical(a$task, "classification")
  expect_identical(a$classes, c("auto", "manual"))
  p <- a$predict(g, d)
  q <- unname(predict(g, d, type = "response"))
  expect_equal(unname(p[, "manual"]), q)
  expect_equal(unname(p[, "auto"]), 1 - q)
  expect_identical(binomial_classes(glm(am_l ~ wt, family = binomial, data = d)), c("FALSE", "TRUE"))
  expect_identical(binomial_classes(glm(am ~ wt, family = binomial, data = d)), c("0", "1"))
  d$cyl_f <- factor(d$cyl)
  expect_identical(binomial_classes(suppressWarnings(glm(cyl_f ~ wt, family = binomial, data = d))),
                   c("4", "not 4"))
})

test_that("multinom: the probabilities of predict(type = 'probs'), two classes too", {
  skip_if_not_installed("nnet")
  m <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
  p <- adapter_predict(m, iris)
  expect_equal(p, predict(m, iris, type = "probs"))
  iris2 <- droplevels(iris[iris$Species != "setosa", ])
  m2 <- nnet::multinom(Species ~ Sepal.Length, data = iris2, trace = FALSE)
  p2 <- adapter_predict(m2, iris2)
  q <- predict(m2, iris2, type = "probs")
  expect_equal(unname(p2[, 2]), unname(q))
  expect_equal(colnames(p2), levels(iris2$Species))
})

test_that("glmnet_rows(): the fit's columns by name, absent ones an error", {
  X <- data.frame(b = 1:3, a = 4:6, z = 7:9)
  expect_equal(glmnet_rows(X, c("a", "b")), as.matrix(X[c("a", "b")]))
  expect_error(glmnet_rows(X, c("a", "q")), "q")
})
