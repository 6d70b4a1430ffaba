# DALEX's plot method with our results (R/dalex_rbind.R): rbind() of
# DALEX's tables and ours, as ingredients' plot methods bind them.

test_that("plot(dalex_result, ours): DALEX's plot method draws both in one chart, for each geom", {
  skip_if_not_installed("DALEX")
  skip_if_not_installed("ingredients")
  k <- dalex_case()
  ours <- model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  theirs <- DALEX::model_profile(k$ex, c("wt", "hp"), NULL, variable_splits = k$sp)
  expect_s3_class(ours, c("mp_profile", "model_profile"), exact = TRUE)
  p <- plot(theirs, ours)
  d <- ggplot2::layer_data(p, 1)
  expect_identical(nrow(d), 22L)
  expect_length(unique(d$colour), 2L)
  # Same label: ours is told apart by the package that drew it.
  expect_setequal(unique(p$data$`_label_`), c("lm", "lm, modelprofiles"))
  by_colour <- split(d$y[order(d$PANEL, d$x)], d$colour[order(d$PANEL, d$x)])
  expect_equal(by_colour[[1]], by_colour[[2]], tolerance = 1e-10)
  # ICE curves of both (32 of each on 6 + 5 points), both aggregates on top,
  # the observations of DALEX's.
  pp <- plot(theirs, ours, geom = "profiles")
  cu <- ggplot2::layer_data(pp, 1)
  expect_identical(nrow(cu), 2L * 32L * 11L)
  expect_identical(nrow(ggplot2::layer_data(pp, 2)), 22L)
  expect_identical(nrow(ggplot2::layer_data(plot(theirs, ours, geom = "points"), 3)), 2L * 32L)
  # A categorical variable: ours as DALEX's bars next to theirs.
  tc <- DALEX::model_profile(k$ex, "cyl", NULL, variable_type = "categorical")
  oc <- model_profile(k$ex, c("cyl", "wt"), NULL, variable_splits = k$sp["wt"])
  bars <- ggplot2::layer_data(plot(tc, oc), 1)
  expect_identical(nrow(bars), 6L)
  expect_length(unique(bars$fill), 2L)
  # Tables of DALEX alone are bound as before.
  expect_identical(rbind(theirs$agr_profiles, theirs$agr_profiles),
                   rbind.data.frame(theirs$agr_profiles, theirs$agr_profiles))
})
