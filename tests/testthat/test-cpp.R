# The C++ boundary (R/cpp.R): 1-based indices in, the numbers of plain R out.

test_that("the 1-based wrappers agree with plain R", {
  set.seed(5)
  G <- 4
  m <- 6
  y <- cbind(rnorm(G * m), rnorm(G * m))
  w <- runif(m)
  for (c in 1:2) {
    ref <- vapply(seq_len(G), function(g) sum(w * y[(seq_len(m) - 1) * G + g, c]), numeric(1))
    expect_equal(grid_sums(y, G, w, 2L, c), ref, tolerance = 1e-14)
  }
  x <- c(0.5, 1, 2.5, 3, -1, 7)
  edges <- c(0.5, 1.5, 3, 6)
  expect_identical(interval_index(x, edges, 1L), c(1L, 1L, 2L, 2L, NA, NA))
  k <- c(1L, 3L, 1L, 2L)
  yy <- matrix(c(1, 2, 3, 4, 10, 20, 30, 40), 4)
  s <- interval_sums(yy, k, c(1, 1, 2, 1), 3L, 2L)
  expect_equal(s$sum, c(10 + 60, 40, 20))
  expect_equal(s$wsum, c(3, 1, 1))
  off <- c(0L, 2L, 2L, 4L)
  g <- group_sums(yy, c(1, 2, 3, 4), off, 1L, 1L)
  expect_equal(g$sum, c(1 + 4, 0, 9 + 16))
  expect_equal(g$wsum, c(3, 0, 7))
  expect_equal(nearest_dist(c(0, 2.2), c(5, 1, 2)), c(1, 0.2), tolerance = 1e-15)
  # Against the distances themselves: ties, duplicated grid points, points
  # outside the values, in any order.
  set.seed(4)
  for (r in 1:20) {
    x <- round(rnorm(sample(1:200, 1)), sample(0:3, 1))
    z <- c(round(rnorm(15, sd = 2), 1), x[1], min(x) - 1, max(x) + 1, 0, 0)
    expect_identical(nearest_dist(z, x), vapply(z, function(g) min(abs(g - x)), 0))
  }
  d <- data.frame(a = 1:5, b = letters[1:5], stringsAsFactors = FALSE)
  out <- stack_frame(unclass_frame(d), c(5L, 1L, 5L), 2L, list(c("x", "y", "z")), 1L)
  expect_identical(out$a, c(5L, 1L, 5L))
  expect_identical(out$b, c("x", "y", "z"))
  expect_identical(stack_frame(unclass_frame(d))$a, 1:5)
})

test_that("the exports take 0-based indices, which the wrappers make from 1-based ones", {
  set.seed(2)
  n <- 7
  B <- 3
  counts <- matrix(sample(0:2, n * B, TRUE), n, B)
  storage.mode(counts) <- "integer"
  idx <- c(7L, 1L, 4L)
  y <- matrix(rnorm(3), 3)
  w <- c(0.5, 1, 2)
  got <- resample_sums(list(resamples = counts, threads = 1L), idx, y, w)
  expect_equal(as.vector(got$sum), colSums(counts[idx, ] * w * y[, 1]), tolerance = 1e-14)
  expect_equal(as.vector(got$wsum), colSums(counts[idx, ] * w), tolerance = 1e-14)
  M <- matrix(rnorm(6), 2, 3)
  expect_equal(resample_product(list(resamples = counts, threads = 1L), M, idx, w), M %*% (counts[idx, ] * w),
               tolerance = 1e-14)
  # Row n (1-based) is in range for the wrapper, out of range for the export.
  expect_error(cpp_resample_product(M, counts, idx, w, 1L), "row index out of range")
  A <- matrix(c(1, 2, 3, 4), 2)
  expect_equal(influence_ss(A, 2L, pos = c(2L, 1L), cell = c(2L, 2L), a = c(1, -1)),
               c(A[, 2]^2 + A[, 2]^2), tolerance = 1e-14)
  expect_error(cpp_influence_ss(A, matrix(0, 2, 0), 2L, 1L, 1, numeric(), 2L, 1L), "row out of range")
  curves <- rbind(c(-1, -1, 1, 1), c(1, 1, -1, -1))
  s <- best_split(curves, rep(1, 4), c(4L, 3L, 2L, 1L), c(4, 3, 2, 1), 1)
  expect_identical(s$k, 2L)
  expect_equal(c(s$within, s$total), c(0, 8))
  expect_error(cpp_best_split(curves, rep(1, 4), 4L, c(4, 3, 2, 1), 1), "row out of range")
  # A reader of a model format says why it cannot read what it is given.
  expect_type(xgb_read(as.raw(1:3), 2L), "character")
})
