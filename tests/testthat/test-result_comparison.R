# The mp_comparison class (R/result_comparison.R): its constructor and
# summary().

test_that("a list without the fields the methods read is an internal error", {
  expect_error(new_mp_comparison(structure(list(), class = "x")), "plain list")
  x <- new_mp_comparison(list(distances = data.frame(), profiles = list(), label = "m"))
  expect_s3_class(x, "mp_comparison")
  expect_error(new_mp_comparison(list(distances = data.frame())), "lacks profiles, label")
})

test_that("summary() prints each distance with its percentile band of the replicates", {
  set.seed(2)
  d <- data.frame(x1 = runif(150), x3 = runif(150))
  d$x2 <- d$x1 + rnorm(150, sd = 0.1)
  f <- function(m, newdata) 2 * newdata$x1 + newdata$x3^2 + newdata$x1 * newdata$x3
  cmp <- compare_profiles(NULL, d, predict_function = f, N = NULL, grid_points = 6, grid = profile_grids(intervals = 5),
                          bands = profile_bands("bootstrap", B = 30), seed = 1)
  old <- options(width = 400)
  on.exit(options(old))
  out <- capture.output(print(summary(cmp)))
  expect_match(out[1], "95% bootstrap percentile bands")
  for (i in seq_len(nrow(cmp$distances))) {
    line <- out[grepl(paste0("^\\s*", cmp$distances$variable[i], " "), out)]
    nums <- as.numeric(regmatches(line, gregexpr("-?[0-9]+\\.?[0-9]*(e-?[0-9]+)?", line))[[1]])
    for (dn in c("pd_al", "ld_al", "pd_ld")) {
      lim <- quantile(cmp$replicates[[dn]][i, ], c(0.025, 0.975), type = 7, names = FALSE)
      expect_true(any(abs(nums - signif(lim[1], 4)) <= 1e-12), info = paste(i, dn, "lower"))
      expect_true(any(abs(nums - signif(lim[2], 4)) <= 1e-12), info = paste(i, dn, "upper"))
      expect_equal(cmp$distances[[paste0(dn, "_lower")]][i], lim[1])
    }
  }
})
