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
