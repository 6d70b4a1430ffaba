# The steps of the stream of futures (R/executor_future_steps.R): how many
# stacks a future takes, whole or cut, against the rule written by hand.

unit <- function(rows, chunk = "c1") list(rows = rows, chunk = chunk)

test_that("take_units(): whole stacks up to the target, a stack cut when both pieces are large", {
  size <- c(target = 1000, least = 0)
  # 300 + 300 rows, then 1,000 more: 400 of the third are cut off, its
  # 600 left both at least future_min_piece (256).
  q <- list(unit(300), unit(300), unit(1000))
  expect_equal(take_units(q, size, 1L), c(whole = 2, cut = 400))
  # The third would leave 100 (under 256) after a cut of 400: not cut;
  # taking it whole overshoots by 100 less than the 400 short: taken.
  q <- list(unit(300), unit(300), unit(500))
  expect_equal(take_units(q, size, 1L), c(whole = 3, cut = 0))
  # A first stack larger than the target is cut to it.
  expect_equal(take_units(list(unit(5000)), size, 1L), c(whole = 0, cut = 1000))
})

test_that("take_units(): at most per_future chunks once they hold the least rows", {
  size <- c(target = 1e6, least = 100)
  q <- list(unit(200, "a"), unit(200, "b"), unit(200, "c"))
  expect_equal(take_units(q, size, 2L), c(whole = 2, cut = 0))
  expect_equal(take_units(q, size, 3L), c(whole = 3, cut = 0))
})
