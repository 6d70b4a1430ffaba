# Constructors of result classes (R/result_constructors.R): each result is
# made through its constructor, which refuses a list without its fields.

test_that("results round-trip through their constructors", {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  X <- mtcars[c("wt", "hp", "qsec")]
  h <- h_statistic(fit, X)
  expect_identical(new_mp_h_statistic(unclass(h)), h)
  p2 <- model_profile_2d(fit, X, variables = c("wt", "hp"), N = NULL, grid_points = 4)
  expect_identical(new_mp_profile_2d(unclass(p2)), p2)
})

test_that("a list without the fields the methods read is an internal error", {
  expect_error(new_mp_h_statistic(list(overall = 1)), "lacks pairwise")
  expect_error(new_mp_slopes(list()), "internal error: an mp_slopes lacks summary")
  expect_error(new_mp_comparison(structure(list(), class = "x")), "plain list")
  x <- new_mp_comparison(list(distances = data.frame(), profiles = list(), label = "m"))
  expect_s3_class(x, "mp_comparison")
})
