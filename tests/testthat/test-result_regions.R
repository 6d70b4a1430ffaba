# The mp_regions class (R/result_regions.R): its constructor and methods.

test_that("find_regions() results round-trip through new_mp_regions()", {
  set.seed(1)
  d <- data.frame(x1 = runif(300, -1, 1), x2 = runif(300, -1, 1))
  f <- function(m, newdata) newdata$x1 * sign(newdata$x2)
  r <- find_regions(NULL, d, f, variables = "x1", grid_points = 5)
  expect_identical(new_mp_regions(unclass(r)), r)
  expect_error(new_mp_regions(list(agr_profiles = r$agr_profiles)), "internal error: an mp_regions lacks splits")
  expect_error(new_mp_regions(r), "plain list")
})

test_that("mp_regions prints with cli and draws by autoplot(), which plot() calls", {
  set.seed(1)
  d <- data.frame(x1 = runif(300, -1, 1), x2 = runif(300, -1, 1))
  f <- function(m, newdata) newdata$x1 * sign(newdata$x2)
  r <- find_regions(NULL, d, f, variables = "x1", grid_points = 5)
  out <- capture.output(print(r))
  expect_match(out[1L], "^<mp_regions> .*: regions of 1 variable \\(300 background rows, splits 2 deep at most\\)$")
  expect_identical(out[2L], "")
  expect_match(out[3L], "^x1: heterogeneity .* of the curves' variation\\); 2 regions explain 100.0% of it\\.$")
  expect_match(out[4L], "^  \\[all rows\\] split on x2 <= .* explained$")
  expect_length(out, 4L)
  p <- ggplot2::autoplot(r)
  expect_s3_class(p, "ggplot")
  expect_identical(ggplot2::layer_data(plot(r), 2L), ggplot2::layer_data(p, 2L))
  expect_identical(nrow(ggplot2::layer_data(p, 2L)), nrow(r$agr_profiles))
})
