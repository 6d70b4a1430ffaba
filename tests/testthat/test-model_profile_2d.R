ref_pd2 <- function(f, X, v, g1, g2) {
  grid <- expand.grid(a = g1, b = g2, stringsAsFactors = FALSE)
  vapply(seq_len(nrow(grid)), function(k) {
    Xz <- X
    Xz[[v[1]]] <- if (is.factor(X[[v[1]]])) factor(grid$a[k], levels = levels(X[[v[1]]])) else grid$a[k]
    Xz[[v[2]]] <- if (is.factor(X[[v[2]]])) factor(grid$b[k], levels = levels(X[[v[2]]])) else grid$b[k]
    mean(f(Xz))
  }, numeric(1))
}

test_that("2-D PD equals the mean prediction over every pair of grid values", {
  set.seed(4)
  X <- data.frame(a = runif(60), b = rnorm(60), g = factor(sample(c("x", "y", "z"), 60, TRUE)))
  f <- function(d) d$a * d$b + sin(3 * d$a) * as.integer(d$g)
  pf <- function(m, newdata) f(newdata)
  r <- model_profile_2d(NULL, X, predict_function = pf, variables = c("a", "b"), grid_points = 7)
  d <- r$agr_profiles
  expect_equal(nrow(d), 49)
  expect_equal(d$`_yhat_`, ref_pd2(f, X, c("a", "b"), r$grids$a, r$grids$b), tolerance = 1e-12)
  expect_equal(d$`_x_`[1:7], r$grids$a)
  expect_equal(r$n_predictions, 49 * 60)
  r <- model_profile_2d(NULL, X, predict_function = pf, variables = list(c("a", "g"), c("g", "b")),
                        grid_points = 5)
  d <- as.data.frame(r)
  ag <- d[d$`_vname_` == "a", ]
  expect_equal(ag$`_x2_`, rep(c("x", "y", "z"), each = 5))
  expect_equal(ag$`_yhat_`, ref_pd2(f, X, c("a", "g"), r$grids$a, r$grids$g), tolerance = 1e-12)
  gb <- d[d$`_vname_` == "g", ]
  expect_equal(gb$`_yhat_`, ref_pd2(f, X, c("g", "b"), r$grids$g, r$grids$b), tolerance = 1e-12)
  expect_output(print(r), "two-variable partial dependence")
  # Threads and chunking do not change the numbers.
  r1 <- model_profile_2d(NULL, X, predict_function = pf, variables = c("a", "b"), threads = 1, grid_points = 6)
  r2 <- model_profile_2d(NULL, X, predict_function = pf, variables = c("a", "b"), threads = 2,
                         grid_points = 6, memory_budget = 0.01)
  expect_equal(r1$agr_profiles, r2$agr_profiles, tolerance = 1e-14)
})

test_that("2-D PD equals pdp::partial", {
  skip_if_not_installed("pdp")
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  r <- model_profile_2d(fit, X, variables = c("wt", "hp"), grid_points = 6)
  grid <- expand.grid(wt = r$grids$wt, hp = r$grids$hp)
  p <- pdp::partial(fit, pred.var = c("wt", "hp"), pred.grid = grid, train = X)
  key <- function(a, b) paste(format(a, digits = 15), format(b, digits = 15))
  ours <- r$agr_profiles
  expect_equal(ours$`_yhat_`, p$yhat[match(key(ours$`_x_`, ours$`_x2_`), key(p$wt, p$hp))],
               tolerance = 1e-12)
})

test_that("2-D input errors", {
  X <- data.frame(a = 1:5, b = c(2, 1, 3, 5, 4))
  pf <- function(m, newdata) newdata$a + newdata$b
  expect_error(model_profile_2d(NULL, X, predict_function = pf), "variables")
  expect_error(model_profile_2d(NULL, X, predict_function = pf, variables = "a"), "pair")
  expect_error(model_profile_2d(NULL, X, predict_function = pf, variables = c("a", "a")), "pair")
  expect_error(model_profile_2d(NULL, X, predict_function = pf, variables = c("a", "zz")), "zz")
})

test_that("pairs that put a numeric and a categorical variable in one position give character values, exact grids", {
  set.seed(4)
  X <- data.frame(a = rnorm(200), f = factor(sample(c("u", "v"), 200, TRUE)))
  fit <- lm(y ~ a * f, data = cbind(X, y = X$a * (X$f == "u") + rnorm(200)))
  one <- model_profile_2d(fit, X, variables = c("f", "a"), grid_points = 4)
  expect_type(one$agr_profiles$`_x_`, "character")
  expect_type(one$agr_profiles$`_x2_`, "double")
  both <- model_profile_2d(fit, X, variables = list(c("f", "a"), c("a", "f")), grid_points = 4)
  d <- both$agr_profiles
  expect_type(d$`_x2_`, "character")
  fa <- d[d$`_vname_` == "f", ]
  expect_equal(as.numeric(fa$`_x2_`), one$agr_profiles$`_x2_`, tolerance = 1e-14)
  expect_identical(fa$`_yhat_`, one$agr_profiles$`_yhat_`)
  # The exact grid values stay in $grids.
  expect_identical(both$grids$a, one$grids$a)
  expect_identical(as.numeric(fa$`_x2_`[seq(1, 8, by = 2)]), signif(both$grids$a, 15))
})
