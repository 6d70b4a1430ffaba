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
