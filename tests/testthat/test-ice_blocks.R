# The storage of mp_ice (R/ice_blocks.R): a block of G x rows x outputs
# curves reads as the long frame, all rows or some, against plain R.

test_that("a block's columns are the long frame's, in grid, row, output order", {
  G <- 3L; ids <- c(7L, 9L); labels <- c("p", "q")
  vals <- array(as.double(1:12), c(G, length(ids), length(labels)))
  b <- ice_block("x", labels, ids, c(0.1, 0.2, 0.3), vals)
  expect_equal(ice_block_rows(b), 12)
  ref <- expand.grid(x = c(0.1, 0.2, 0.3), id = ids, label = labels, stringsAsFactors = FALSE)
  expect_equal(ice_block_column(b, "_x_"), ref$x)
  expect_equal(ice_block_column(b, "_ids_"), ref$id)
  expect_equal(ice_block_column(b, "_label_"), ref$label)
  expect_equal(ice_block_column(b, "_yhat_"), as.double(1:12))
  r <- c(2L, 5L, 12L)
  for (nm in c("_x_", "_ids_", "_label_", "_yhat_")) {
    expect_equal(ice_block_column(b, nm, r), ice_block_column(b, nm)[r])
  }
  expect_identical(ice_block_array(b), vals)
})

test_that("an mp_ice of blocks reads as one long frame", {
  b1 <- ice_block("x", "m", 1:2, c(0, 1), array(c(1, 2, 3, 4), c(2, 2, 1)))
  b2 <- ice_block("z", "m", 1:2, c(5, 6, 7), array(as.double(1:6), c(3, 2, 1)))
  ice <- new_mp_ice(list(b1, b2))
  d <- as.data.frame(ice)
  expect_equal(nrow(d), 4 + 6)
  expect_equal(d$`_vname_`, rep(c("x", "z"), c(4, 6)))
  expect_equal(d$`_yhat_`, c(1, 2, 3, 4, 1:6))
})
