# Bootstrap bands of the H-statistics cost no prediction: h_statistic() on
# a ranger forest with and without bands = "bootstrap" (B = 200), for the
# default engine (the native one for ranger) and for predict(); the
# predictions counted must be equal, and the estimates equal (to 1e-12).
#   Rscript inst/bench/bench-h-bands.R [reps]
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
stopifnot(requireNamespace("ranger", quietly = TRUE))
set.seed(1)
n <- 1000
X <- as.data.frame(matrix(rnorm(n * 6), n, dimnames = list(NULL, paste0("x", 1:6))))
y <- X$x1 * X$x2 + X$x3 + sin(X$x4) * X$x5 + rnorm(n)
fit <- ranger::ranger(x = X, y = y, num.trees = 100, num.threads = 1, seed = 1)
timed <- function(expr) {
  gc()
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
run <- function(engine, bands) {
  h_statistic(fit, X, N = 500, seed = 1, pairs = 5, engine = engine, bands = profile_bands(bands, B = 200))
}
cat(sprintf("R %s; ranger 100 trees, %d rows, 6 variables, N = 500, pairs among the top 5, B = 200; %d alternating runs; %s\n",
            getRversion(), n, reps, format(Sys.time())))
for (engine in c("auto", "predict")) {
  h0 <- run(engine, "none")
  h1 <- run(engine, "bootstrap")
  # (Without bands the native engine sums by the set walk, with them it
  # walks the tables: equal to rounding.)
  stopifnot(identical(h0$n_predictions, h1$n_predictions),
            isTRUE(all.equal(h0$overall, h1$overall[names(h0$overall)], tolerance = 1e-12)),
            isTRUE(all.equal(h0$total, h1$total, tolerance = 1e-12)))
  t0 <- t1 <- numeric(reps)
  for (r in seq_len(reps)) {
    t0[r] <- timed(run(engine, "none"))
    t1[r] <- timed(run(engine, "bootstrap"))
  }
  cat(sprintf("engine %s (%s): %s predictions either way\n", engine, h0$engine,
              format(h0$n_predictions, big.mark = ",", scientific = FALSE)))
  cat(sprintf("  no bands:  %s s (median %.2f)\n", paste(round(t0, 2), collapse = ", "), median(t0)))
  cat(sprintf("  bootstrap: %s s (median %.2f); ratio %.2f\n", paste(round(t1, 2), collapse = ", "),
              median(t1), median(t1) / median(t0)))
}
