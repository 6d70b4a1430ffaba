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

test_that("a name R would match partially to a parameter is refused with the hint, at every entry point", {
  set.seed(1)
  d <- data.frame(x1 = runif(60), x2 = runif(60))
  fit <- lm(y ~ x1 * x2, transform(d, y = x1 * x2))
  calls <- list(
    h_statistic = quote(h_statistic(fit, d, variable = "x1")),
    model_profile_2d = quote(model_profile_2d(fit, d, variable = list(c("x1", "x2")))),
    find_regions = quote(find_regions(fit, d, variable = "x1")),
    compare_profiles = quote(compare_profiles(fit, d, variable = "x1")),
    model_profile = quote(model_profile(fit, d, variable = "x1")),
    # (`variable` would match four of predict_profile()'s parameters.)
    predict_profile = quote(predict_profile(fit, d[1, ], data = d, variable = "x1"))
  )
  for (fn in names(calls)) {
    e <- expect_error(eval(calls[[fn]]), class = "rlang_error")
    msg <- cli::ansi_strip(conditionMessage(e))
    expect_match(msg, "Unknown argument: `variable`", fixed = TRUE, label = fn)
    expect_match(msg, "did you mean `variables`?", fixed = TRUE, label = fn)
    expect_match(msg, paste0("?modelprofiles::", fn), fixed = TRUE, label = fn)
  }
  # Names in full still work.
  expect_s3_class(h_statistic(fit, d, variables = c("x1", "x2")), "mp_h_statistic")
})
