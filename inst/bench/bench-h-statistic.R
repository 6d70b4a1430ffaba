# Friedman's H-statistics: modelprofiles::h_statistic() against
# hstats::hstats() on the same model and rows, alternating runs, in one
# process; the numbers are checked to agree first.
#   Rscript inst/bench/bench-h-statistic.R [reps]
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
stopifnot(requireNamespace("hstats", quietly = TRUE), requireNamespace("ranger", quietly = TRUE))
set.seed(1)
n <- 500
X <- as.data.frame(matrix(rnorm(n * 8), n, dimnames = list(NULL, paste0("x", 1:8))))
y <- X$x1 * X$x2 + X$x3 + sin(X$x4) * X$x5 + rnorm(n)
fit <- ranger::ranger(x = X, y = y, num.trees = 100, num.threads = 1, seed = 1)
pf <- function(m, d) predict(m, d, num.threads = 1)$predictions
timed <- function(expr) {
  gc()
  t <- proc.time()[[3]]
  force(expr)
  proc.time()[[3]] - t
}
ours <- h_statistic(fit, X, predict_function = pf, N = NULL, pairs = 5, threads = 1)
theirs <- hstats::hstats(fit, X = X, pred_fun = pf, n_max = n, pairwise_m = 5, verbose = FALSE)
ref <- hstats::h2_overall(theirs, normalize = TRUE, squared = TRUE, zero = TRUE)$M[, 1]
stopifnot(isTRUE(all.equal(ours$overall$h2, unname(ref[ours$overall$variable]), tolerance = 1e-10)))
t_mp <- t_hs <- numeric(reps)
for (r in seq_len(reps)) {
  t_mp[r] <- timed(h_statistic(fit, X, predict_function = pf, N = NULL, pairs = 5, threads = 1))
  t_hs[r] <- timed(hstats::hstats(fit, X = X, pred_fun = pf, n_max = n, pairwise_m = 5, verbose = FALSE))
}
cat(sprintf("R %s; ranger 100 trees, %d rows, 8 variables, pairs among the top 5; %d alternating runs; %s\n",
            getRversion(), n, reps, format(Sys.time())))
cat(sprintf("modelprofiles: %s s (median %.1f); %s predictions\n", paste(round(t_mp, 1), collapse = ", "),
            median(t_mp), format(ours$n_predictions, big.mark = ",")))
cat(sprintf("hstats:        %s s (median %.1f)\n", paste(round(t_hs, 1), collapse = ", "), median(t_hs)))
cat(sprintf("hstats / modelprofiles: %.2f\n", median(t_hs) / median(t_mp)))
