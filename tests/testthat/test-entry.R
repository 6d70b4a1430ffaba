# The start the entry points share (R/entry.R, start_call()).

test_that("start_call() checks, sets the seed and hands back a function that restores the caller's stream", {
  X <- data.frame(a = rnorm(50), b = rnorm(50))
  fit <- lm(b ~ a, data = X)
  env <- environment()
  set.seed(5)
  before <- .Random.seed
  s <- start_call("model_profile", env, list(), fit, X, NULL, NULL, NULL, 1L, 256, seed = 1, engine = "auto",
                  bands = profile_bands("bootstrap", level = 0.9, B = 30),
                  types = c("none", "analytic", "bootstrap"))
  expect_identical(s$engine, "auto")
  expect_identical(s$inputs$bands, list(type = "bootstrap", level = 0.9, B = 30L))
  expect_identical(nrow(s$inputs$data), 50L)
  # The seed is set for the call: the stream is set.seed(1)'s.
  first <- runif(1)
  set.seed(1)
  expect_identical(first, runif(1))
  s$restore_seed()
  expect_identical(.Random.seed, before)
})

test_that("a failure after the seed was set leaves the caller's stream as it was", {
  X <- data.frame(a = rnorm(50), b = rnorm(50))
  fit <- lm(b ~ a, data = X)
  set.seed(9)
  before <- .Random.seed
  # The bands are checked after the seed is set.
  expect_error(model_profile(fit, X, seed = 1, bands = "bogus"), "bands")
  expect_identical(.Random.seed, before)
  expect_error(h_statistic(fit, X, seed = 1, bands = "analytic"), "bands")
  expect_identical(.Random.seed, before)
  # An unknown argument is named, with the entry point's help page.
  expect_error(compare_profiles(fit, X, grid_pionts = 5), "grid_pionts")
})
