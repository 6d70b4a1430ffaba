# Methods of mp_slopes (R/result_slopes.R): the data frames are the
# result's tables, print() shows each variable, the chart draws the slopes.

slopes_fixture <- function() {
  set.seed(51)
  d <- data.frame(x = runif(300), z = runif(300), s = sample(c("a", "b"), 300, TRUE))
  f <- function(m, nd) ifelse(nd$s == "a", 1, -1) * nd$x + 0.5 * nd$z
  hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
                      grid_points = 3, variable_splits_type = "uniform")
}

test_that("as.data.frame() returns the summary or the slopes", {
  h <- slopes_fixture()
  expect_s3_class(h, "mp_slopes")
  expect_identical(as.data.frame(h), h$summary)
  expect_identical(as.data.frame(h, what = "slopes"), h$slopes)
  expect_error(as.data.frame(h, what = "nope"))
})

test_that("print() names every variable and returns its input", {
  h <- slopes_fixture()
  out <- capture.output(ret <- print(h))
  expect_identical(ret, h)
  for (v in h$summary$variable) expect_true(any(grepl(v, out, fixed = TRUE)))
})

test_that("plot() draws one point or bar per subgroup slope", {
  skip_if_not_installed("ggplot2")
  h <- slopes_fixture()
  p <- plot(h)
  expect_s3_class(p, "ggplot")
  ys <- unlist(lapply(seq_along(p$layers), function(i) {
    l <- ggplot2::layer_data(p, i)
    c(l$x, l$y, l$xmin, l$xmax)
  }))
  # The subgroup slopes of x (+- the grid's span) are among the values drawn.
  sx <- h$slopes$slope[h$slopes$variable == "x"]
  for (v in sx) expect_true(any(abs(ys - v) < 1e-8))
})

test_that("new_mp_slopes() refuses a list without the fields the methods read", {
  expect_error(new_mp_slopes(list()), "internal error: an mp_slopes lacks summary")
})
