# Helpers of the stream of futures (R/executor_future_helpers.R): pieces of
# stacks cut and joined back as predict() gives the whole stack.

test_that("split_unit(): head and rest cover the unit's rows and amount", {
  u <- list(chunk = "c1", from = 10, rows = 8, amount = 4)
  s <- split_unit(u, 3)
  expect_equal(c(s$head$from, s$head$rows, s$head$amount), c(10, 3, 1.5))
  expect_equal(c(s$rest$from, s$rest$rows, s$rest$amount), c(13, 5, 2.5))
  whole <- split_unit(u, 8)
  expect_identical(whole$head, u)
  expect_null(whole$rest)
})

test_that("join_pieces(): the pieces' rows in place, as one matrix", {
  y <- matrix(as.double(1:14), 7, 2, dimnames = list(NULL, c("a", "b")))
  pieces <- list(list(from = 4, y = y[5:7, , drop = FALSE]), list(from = 0, y = y[1:4, , drop = FALSE]))
  expect_identical(join_pieces(pieces, 7), y)
})
