# Methods of mp_h_statistic (R/result_h_statistic.R): the data frames are
# the result's tables, print() shows them, the chart's bars are the H^2.

h_methods_fixture <- function() {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  h_statistic(fit, mtcars[c("wt", "hp", "qsec")])
}

test_that("as.data.frame() returns each table; total as label and h2", {
  h <- h_methods_fixture()
  expect_identical(as.data.frame(h), h$overall)
  expect_identical(as.data.frame(h, what = "pairwise"), h$pairwise)
  tot <- as.data.frame(h, what = "total")
  expect_identical(tot$label, names(h$total))
  expect_equal(tot$h2, unname(h$total))
  expect_error(as.data.frame(h, what = "nope"))
})

test_that("print() and summary() show the statistics and return their input", {
  h <- h_methods_fixture()
  out <- capture.output(ret <- print(h, n = 2))
  expect_identical(ret, h)
  expect_match(out[1], "<mp_h_statistic>", fixed = TRUE)
  expect_true(any(grepl(h$overall$variable[1], out, fixed = TRUE)))
  s <- summary(h)
  expect_s3_class(s, "summary_mp_h_statistic")
  expect_silent(capture.output(print(s)))
})

test_that("autoplot(): one bar per statistic with the value of H^2", {
  skip_if_not_installed("ggplot2")
  h <- h_methods_fixture()
  p <- ggplot2::autoplot(h, geom = "overall")
  bars <- ggplot2::layer_data(p, 1)
  expect_equal(nrow(bars), nrow(h$overall))
  expect_equal(sort(bars$x %||% bars$xmax), sort(h$overall$h2), tolerance = 1e-12)
  p2 <- plot(h, geom = "overall", n = 1)
  expect_equal(nrow(ggplot2::layer_data(p2, 1)), 1)
  expect_equal(ggplot2::layer_data(p2, 1)$x %||% ggplot2::layer_data(p2, 1)$xmax, max(h$overall$h2),
               tolerance = 1e-12)
  # `top`, n's old name, draws the same with a warning; not both.
  expect_warning(p3 <- plot(h, geom = "overall", top = 1), "`top` is deprecated; use `n`",
                 class = "modelprofiles_deprecated")
  expect_equal(ggplot2::layer_data(p3, 1), ggplot2::layer_data(p2, 1))
  expect_error(plot(h, geom = "overall", top = 1, n = 2), "old name of `n`")
})

test_that("results round-trip through new_mp_h_statistic(), which refuses a list without its fields", {
  fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
  h <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")])
  expect_identical(new_mp_h_statistic(unclass(h)), h)
  expect_error(new_mp_h_statistic(list(overall = 1)), "lacks pairwise")
})

test_that("the chart is titled with the model, and each panel says what its H^2 is a share of", {
  skip_if_not_installed("ggplot2")
  h <- h_methods_fixture()
  p <- plot(h)
  expect_identical(p$labels$title, "H-statistics of lm")
  expect_identical(plot(h, title = "mine")$labels$title, "mine")
  expect_identical(p$labels$x, "H\u00b2")
  # The strips: overall H^2_j of the prediction variance, pairwise H^2_jk of
  # the variance of the pair's joint effect (?h_statistic).
  strips <- p$facet$params$labeller(data.frame(statistic = c("overall", "pairwise")))[[1]]
  expect_identical(strips, c("overall H\u00b2: share of the prediction variance from the variable's interactions",
                             "pairwise H\u00b2: share of the variance of the pair's joint effect from their interaction"))
  expect_match(plot(h, geom = "overall")$labels$x, "^overall H\u00b2: share of the prediction variance")
  expect_match(plot(h, geom = "pairwise")$labels$x, "^pairwise H\u00b2: share of the variance of the pair's joint effect")
  # The bars are still the statistics.
  expect_equal(sort(ggplot2::layer_data(p, 1)$xmax), sort(c(h$overall$h2, h$pairwise$h2)), tolerance = 1e-12)
})
