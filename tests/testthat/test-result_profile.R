test_that("print, summary and as.data.frame", {
  fit <- lm(mpg ~ wt * hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X)
  out <- capture.output(print(pd))
  expect_match(out[1], "partial-dependence profiles of 2 variables for \"lm\"")
  expect_true(any(grepl("predictions: ", out)))
  s <- summary(pd)
  expect_s3_class(s, "summary_mp_profile")
  expect_equal(s$variable[1], c("wt", "hp")[which.max(c(
    sd(profile_of(pd, "wt")$`_yhat_`), sd(profile_of(pd, "hp")$`_yhat_`)
  ))])
  expect_equal(s$points, c(29, 22)[match(s$variable, c("wt", "hp"))])
  expect_output(print(s), "largest importance first")
  expect_identical(as.data.frame(pd), pd$agr_profiles)
  expect_identical(as.data.frame(pd, what = "cp_profiles"), as.data.frame(pd$cp_profiles))
  expect_identical(class(as.data.frame(pd, what = "cp_profiles")), "data.frame")
  al <- model_profile(fit, X, type = "accumulated")
  expect_error(as.data.frame(al, what = "cp_profiles"), "no ICE curves")
  # DALEX's class after ours: our methods first, and DALEX's plot method
  # counts ours among the results it draws (test-dalex.R).
  expect_identical(class(pd), c("mp_profile", "model_profile"))
})

test_that("new_mp_profile() makes every mp_profile: model_profile(), refit_bands(), DALEX's", {
  fit <- lm(mpg ~ wt + hp, data = mtcars)
  X <- mtcars[c("wt", "hp")]
  pd <- model_profile(fit, X, grid_points = 5)
  expect_identical(new_mp_profile(unclass(pd)), pd)
  rb <- refit_bands(pd, function(d) lm(mpg ~ wt + hp, data = d), mtcars, background = X, B = 10, seed = 1)
  expect_identical(new_mp_profile(unclass(rb)), rb)
  expect_identical(dim(rb$replicates), c(10L, 10L))
  fd <- modelprofiles:::from_dalex(as_dalex(pd))
  expect_identical(new_mp_profile(unclass(fd)), fd)
  expect_identical(fd$agr_profiles$`_yhat_`, pd$agr_profiles$`_yhat_`)
  # DALEX's results need less (no counts, engine or call; no `_support_`)...
  expect_null(fd$N)
  expect_false("_support_" %in% names(fd$agr_profiles))
  # ... ours all of it.
  expect_error(new_mp_profile(unclass(fd)[setdiff(names(fd), "source")]), "lacks N, n_data, n_predictions")
  expect_error(new_mp_profile(unclass(fd)[setdiff(names(fd), "grids")]), "lacks grids")
  bad <- unclass(rb)
  bad$replicates <- bad$replicates[-1, ]
  expect_error(new_mp_profile(bad), "replicates")
})
