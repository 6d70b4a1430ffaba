# Row and chunk indices past the range of an integer product: n * k (rows
# times chunks) passes 2^31 from n = 46,341 rows with n chunks, and at 10^7
# rows with 215 chunks.

test_that("row_chunks() covers 1..n in equal consecutive chunks past integer products", {
  row_chunks <- get("row_chunks", envir = asNamespace("modelprofiles"))
  for (n in c(1, 7, 46341, 1e7, .Machine$integer.max)) {
    for (size in c(1000, 13107, n - 1, n, Inf)) {
      if (n / max(1, size) > 1e5) next
      ch <- row_chunks(n, size)
      starts <- vapply(ch, `[`, numeric(1), 1L)
      ends <- vapply(ch, function(r) r[length(r)], numeric(1))
      sizes <- lengths(ch)
      expect_equal(starts[1L], 1)
      expect_equal(ends[length(ends)], n)
      expect_equal(starts[-1L], ends[-length(ends)] + 1)
      expect_lte(max(sizes), min(n, max(1, size)))
      expect_lte(max(sizes) - min(sizes), 1)
      expect_equal(length(ch), ceiling(n / min(n, max(1, size))))
    }
  }
  # A chunk's rows are floor(i * n / k), as when the product fits.
  expect_equal(row_chunks(10, 3), list(1:2, 3:5, 6:7, 8:10))
  expect_equal(row_chunks(0, 5), list())
})

test_that("profiles of 10^7 rows (N = NULL) run chunk by chunk within the memory budget", {
  skip_on_cran()
  set.seed(1)
  n <- 1e7
  d <- data.frame(x1 = runif(n), x2 = runif(n))
  pf <- function(m, newdata) newdata$x1 + 2 * newdata$x2
  # PD: 5 x 10^7 predictions, in chunks of at most 65,536 stacked rows
  # through the predict function, each row over the grid: 763 chunks of
  # 13,107 rows (n * k is 7.6e9). (In grid order, the default for this
  # model, 153 blocks of 65,536 rows: n * k is 1.5e9.)
  old <- options(modelprofiles.row_order = "observation")
  pd <- model_profile(NULL, d, pf, N = NULL, variables = "x1", grid_points = 5, keep_ice = FALSE)
  options(old)
  expect_equal(pd$N, n)
  expect_equal(pd$n_predictions, 5 * n)
  expect_equal(profile_of(pd)$`_yhat_`, pd$grids$x1 + 2 * mean(d$x2), tolerance = 1e-12)
  # Interval AL: two predictions per row (n * k is 3.1e9).
  al <- model_profile(NULL, d, pf, N = NULL, variables = "x1", type = "accumulated", grid = profile_grids(intervals = 5))
  y <- profile_of(al)$`_yhat_`
  expect_equal(diff(y), diff(al$grids$x1), tolerance = 1e-10)
  expect_equal(sum(al$agr_profiles$`_support_`), n)
  # Centred as ALEPlot centres an additive model's steps, on the mean prediction.
  x <- al$grids$x1
  k <- findInterval(d$x1, x, left.open = TRUE, rightmost.closed = TRUE)
  k[k == 0] <- 1
  counts <- tabulate(k, length(x) - 1L)
  mids <- (x[-1L] + x[-length(x)]) / 2
  expect_equal(y, x - sum(mids * counts) / n + mean(pf(NULL, d)), tolerance = 1e-10)
})

# The memory budget at 10^7 rows: each call runs in a fresh R process (so
# that its peak resident size is its own), with the data made, garbage
# collected and the peak reset (Linux: /proc/self/clear_refs) before the
# call. Its peak above that loaded state must stay within the budget plus
# the result's object.size() (which counts the observed columns the result
# shares with the data). lm (its linear engine for PD, predict() for the
# rest) and a ranger forest (native engine); PD, interval AL, kernel LD.
test_that("profiles of 10^7 rows stay within the memory budget (lm and ranger; PD, AL, kernel LD)", {
  skip_on_cran()
  skip_if_not(file.exists("/proc/self/clear_refs") && file.exists("/proc/self/status"))
  skip_if_not_installed("ranger")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script), add = TRUE)
  writeLines(c(
    "args <- commandArgs(TRUE)",
    "mib <- function(f) as.numeric(gsub('[^0-9]', '', grep(paste0('^', f, ':'), readLines('/proc/self/status'), value = TRUE))) / 1024",
    "suppressMessages(library(modelprofiles))",
    "set.seed(1)",
    "n <- 1e7",
    "d <- data.frame(x1 = runif(n), x2 = runif(n), x3 = runif(n), x4 = runif(n))",
    "small <- d[1:5000, ]",
    "small$y <- small$x1 + 2 * small$x2 * small$x3 + rnorm(5000, sd = 0.1)",
    "m <- if (args[1] == 'lm') lm(y ~ ., small) else ranger::ranger(y ~ ., small, num.trees = 10, max.depth = 8, num.threads = 1, seed = 1)",
    "gc(); gc()",
    "cat('5', file = '/proc/self/clear_refs')",
    "rss0 <- mib('VmRSS')",
    "r <- model_profile(m, d, N = NULL, variables = 'x1', type = args[2], method = if (args[2] == 'conditional') 'kernel', keep_ice = FALSE, grid_points = 11, threads = 2)",
    "cat('PEAK', mib('VmHWM') - rss0, as.numeric(object.size(r)) / 2^20, r$N, paste(unique(r$engine), collapse = ','), '\\n')"
  ), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  for (family in c("lm", "ranger")) {
    for (type in c("partial", "accumulated", "conditional")) {
      out <- system2(rscript, c(script, family, type), stdout = TRUE, stderr = TRUE)
      line <- grep("^PEAK", out, value = TRUE)
      expect_length(line, 1L)
      if (length(line) != 1L) next
      v <- strsplit(line, " ")[[1]]
      peak <- as.numeric(v[2])
      size <- as.numeric(v[3])
      expect_identical(as.numeric(v[4]), 1e7)
      if (family == "ranger") expect_identical(v[5], "native")
      expect_lte(peak, 256 + size, label = paste(family, type, "peak (MiB)"))
    }
  }
})
