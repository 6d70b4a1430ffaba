# LightGBM's trees rebuilt for the native format (R/native_lightgbm_trees.R):
# subtrees joined and flattened into preorder arrays, walked by hand.

# Walk a flattened tree (0-based children) for the value of one x.
walk_flat <- function(t, x) {
  i <- 0L
  while (t$feature[i + 1L] >= 0L) {
    xv <- x[t$feature[i + 1L] + 1L]
    i <- if (is.nan(xv)) t$missing[i + 1L] else if (xv <= t$threshold[i + 1L]) t$left[i + 1L] else t$right[i + 1L]
  }
  t$value[i + 1L]
}

test_that("lgb_join() and lgb_flatten(): a preorder tree that predicts as the splits say", {
  # x1 <= 0.5 ? (x2 <= 2 ? 10 : 20) : 30; NaN of x1 to the right, of x2 to the left.
  inner <- lgb_join(1, 2, NULL, lgb_leaf(10), lgb_leaf(20), nan_left = 1)
  tree <- lgb_join(0, 0.5, NULL, inner, lgb_leaf(30), nan_left = 0)
  t <- lgb_flatten(tree)
  expect_equal(t$feature, c(0L, 1L, -1L, -1L, -1L))
  expect_equal(t$left, c(1L, 2L, -1L, -1L, -1L))
  expect_equal(t$right, c(4L, 3L, -1L, -1L, -1L))
  ref <- function(x) if (is.nan(x[1]) || x[1] > 0.5) 30 else if (is.nan(x[2]) || x[2] <= 2) 10 else 20
  for (x in list(c(0, 1), c(0, 3), c(1, 0), c(NaN, 1), c(0.2, NaN), c(0.5, 2))) {
    expect_equal(walk_flat(t, x), ref(x))
  }
})

test_that("lgb_table(): the 0/1 table of the categories listed", {
  expect_identical(lgb_table(c(2L, 5L)), c(0L, 1L, 0L, 0L, 1L))
  expect_identical(lgb_table(integer()), integer())
})
