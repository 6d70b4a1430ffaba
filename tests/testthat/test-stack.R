# Stacked rows (R/stack.R): patterns, and the rows a job needs, stacked once.

test_that("chunk patterns expand as rep() does", {
  x <- c(3L, 1L, 2L)
  expect_identical(expand(pattern(x, each = 2, times = 3)), rep(rep(x, each = 2), times = 3))
  expect_identical(expand(pattern(x, index = c(3L, 3L, 1L), times = 2)), rep(x[c(3, 3, 1)], 2))
  f <- factor(c("b", "a"), levels = c("a", "b", "z"))
  expect_identical(expand(pattern(f, each = 3)), rep(f, each = 3))
  expect_identical(expand(pattern(as.Date("2020-01-01") + 0:1, times = 2)), rep(as.Date("2020-01-01") + 0:1, 2))
  expect_equal(pattern_length(pattern(x, each = 2, times = 3)), 18)
  expect_equal(pattern_length(pattern(x, index = c(1L, 1L), times = 5)), 10)
  expect_identical(expand(x), x)
  expect_null(expand(NULL))
})

test_that("a job ships the distinct rows it needs and stacks what the specifications say", {
  d <- parallel_data(60)
  X <- d$X
  setup <- test_setup(NULL, function(m, nd) nd$a, X, 1)
  grid <- c(-1, 0, 2.5)
  rows <- c(5L, 10L, 11L, 31L) # increasing
  specs <- list(
    # Each row over the grid (ICE in observation order): shared, increasing.
    list(stack_spec(pattern(rows, each = 3L), 1L, list(pattern(grid, times = 4L)))),
    # The same rows at two grid values (grid order, a job per block).
    lapply(1:2, function(g) stack_spec(rows, 1L, list(pattern(grid[g], times = 4L)))),
    # Rows twice at interval edges (AL): a pattern of rows, values by index.
    list(stack_spec(pattern(rows, times = 2L), 4L,
                    list(pattern(c(1L, 5L, 9L), index = c(1L, 2L, 2L, 3L, 2L, 3L, 3L, 1L))))),
    # Unsorted rows with repeats, and two columns set.
    list(stack_spec(c(31L, 3L, 31L, 8L), c(1L, 3L),
                    list(c(1, 2, 3, 4), factor(c("a", "d", "a", "b"), levels = levels(X$f)))))
  )
  for (sp in specs) {
    job <- job_rows(setup, sp)
    need <- sort(unique(unlist(lapply(sp, function(s) expand(s$rows)))))
    expect_identical(nrow(as.data.frame(job$part)), length(need))
    for (i in seq_along(sp)) {
      s <- sp[[i]]
      direct <- stack_frame(setup$data, expand(s$rows), s$cols, lapply(s$values, expand), 1L)
      via_job <- stack_job(job$part, job$jobs[[i]], 1L)
      expect_identical(as.data.frame(via_job), as.data.frame(direct))
      # (The stacked rows are the rows asked for, checked independently.)
      ref <- X[expand(s$rows), ]
      for (q in seq_along(s$cols)) ref[[s$cols[q]]] <- expand(s$values[[q]])
      rownames(ref) <- NULL
      expect_identical(as.data.frame(direct), ref)
      expect_equal(job$n[i], nrow(ref))
    }
  }
  # Shared increasing rows stay a pattern (what travels is its size).
  job <- job_rows(setup, specs[[1]])
  expect_true(is_pattern(job$jobs[[1]]$rows))
  expect_true(is_pattern(job$jobs[[1]]$values[[1]]))
})

