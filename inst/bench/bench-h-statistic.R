# Friedman's H-statistics, in one run:
#  1. modelprofiles::h_statistic() against hstats::hstats() on the same
#     model and rows (a 300-tree ranger forest, 200 rows, 6 variables,
#     pairs among the top 5), both on one thread, runs alternating, medians
#     and their ratio; the numbers are checked to agree first (to 1e-10).
#     Skipped, with a note, when hstats is not installed.
#  2. The default call h_statistic(fit, X) on a 500-tree ranger forest
#     fitted on 10,000 rows (N = 500 of them, 8 variables), with the
#     default threads: elapsed and CPU seconds.
# The native engine evaluates the partial dependences at the observed
# values (and pairs) by the set walk (inst/include/modelprofiles/observed.h).
#   Rscript inst/bench/bench-h-statistic.R [reps] [results file]
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1]) else 5L
out_file <- if (length(args) >= 2L) args[2] else "inst/bench/results/bench-h-statistic.txt"
stopifnot(requireNamespace("ranger", quietly = TRUE))
lines <- character()
say <- function(...) {
  l <- sprintf(...)
  cat(l, "\n", sep = "")
  lines <<- c(lines, l)
}
# Elapsed and CPU (user + system, all threads) seconds of expr.
timed <- function(expr) {
  gc()
  t <- proc.time()
  force(expr)
  d <- proc.time() - t
  c(elapsed = d[["elapsed"]], cpu = d[["user.self"]] + d[["sys.self"]])
}
fmt <- function(x) paste(sprintf("%.2f", x), collapse = ", ")
load <- function() tryCatch(readLines("/proc/loadavg"), error = function(e) "unknown")
say("R %s; %s; load average at the start: %s", getRversion(), format(Sys.time()), load())

# ---- 1. Against hstats ------------------------------------------------------------
set.seed(1)
n <- 200
X <- as.data.frame(matrix(rnorm(n * 6), n, dimnames = list(NULL, paste0("x", 1:6))))
y <- X$x1 * X$x2 + X$x3 + sin(X$x4) * X$x5 + rnorm(n)
fit <- ranger::ranger(x = X, y = y, num.trees = 300, num.threads = 1, seed = 1)
pf <- function(m, d) predict(m, d, num.threads = 1)$predictions
ours <- function() h_statistic(fit, X, N = NULL, pairs = 5, threads = 1)
say("")
say("1. ranger 300 trees, %d rows, 6 variables, pairs among the top 5, one thread each; %d alternating runs", n, reps)
if (requireNamespace("hstats", quietly = TRUE)) {
  theirs <- function() hstats::hstats(fit, X = X, pred_fun = pf, n_max = n, pairwise_m = 5, verbose = FALSE)
  a <- ours()
  b <- theirs()
  ref <- hstats::h2_overall(b, normalize = TRUE, squared = TRUE, zero = TRUE)$M[, 1]
  stopifnot(isTRUE(all.equal(a$overall$h2, unname(ref[a$overall$variable]), tolerance = 1e-10)))
  refp <- hstats::h2_pairwise(b, normalize = TRUE, squared = TRUE, zero = TRUE)$M[, 1]
  keys <- paste(a$pairwise$variable1, a$pairwise$variable2, sep = ":")
  stopifnot(isTRUE(all.equal(a$pairwise$h2, unname(refp[keys]), tolerance = 1e-10)))
  t_mp <- t_hs <- matrix(0, reps, 2)
  for (r in seq_len(reps)) {
    t_mp[r, ] <- timed(ours())
    t_hs[r, ] <- timed(theirs())
  }
  say("modelprofiles %s (engine %s): elapsed %s s (median %.3f), CPU median %.3f s", packageVersion("modelprofiles"),
      a$engine, fmt(t_mp[, 1]), median(t_mp[, 1]), median(t_mp[, 2]))
  say("hstats %s:        elapsed %s s (median %.3f), CPU median %.3f s", packageVersion("hstats"),
      fmt(t_hs[, 1]), median(t_hs[, 1]), median(t_hs[, 2]))
  say("hstats / modelprofiles: %.1fx elapsed, %.1fx CPU (H^2 equal to 1e-10)",
      median(t_hs[, 1]) / median(t_mp[, 1]), median(t_hs[, 2]) / median(t_mp[, 2]))
} else {
  t_mp <- t(vapply(seq_len(reps), function(r) timed(ours()), numeric(2)))
  say("modelprofiles: elapsed %s s (median %.3f), CPU median %.3f s; hstats is not installed",
      fmt(t_mp[, 1]), median(t_mp[, 1]), median(t_mp[, 2]))
}

# ---- 2. The default call on a large forest ------------------------------------------
set.seed(2)
n_fit <- 10000
z1 <- rnorm(n_fit); z2 <- rnorm(n_fit); z3 <- rnorm(n_fit)
X2 <- data.frame(x1 = z1, x2 = 0.8 * z1 + 0.6 * z2, x3 = z3, x4 = 0.5 * z3 + sqrt(0.75) * rnorm(n_fit),
                 x5 = runif(n_fit, -2, 2), x6 = rexp(n_fit), x7 = rnorm(n_fit),
                 x8 = 0.6 * z1 + 0.8 * runif(n_fit, -1.7, 1.7))
y2 <- sin(X2$x1) + X2$x2 * X2$x3 + 0.5 * X2$x4^2 + X2$x5 + log1p(X2$x6) + 0.5 * X2$x7 * X2$x8 +
  rnorm(n_fit, sd = 0.3)
rf <- ranger::ranger(x = X2, y = y2, num.trees = 500, seed = 1)
h <- h_statistic(rf, X2, seed = 1)
t_def <- t(vapply(seq_len(reps), function(r) timed(h_statistic(rf, X2, seed = 1)), numeric(2)))
say("")
say("2. The default h_statistic(rf, X): ranger 500 trees fitted on %d rows, N = 500, 8 variables, %d pairs, threads %d; %d runs",
    n_fit, nrow(h$pairwise), h$threads, reps)
say("elapsed %s s (median %.2f); CPU %s s (median %.2f); %s predictions (engine %s)", fmt(t_def[, 1]),
    median(t_def[, 1]), fmt(t_def[, 2]), median(t_def[, 2]),
    format(h$n_predictions, big.mark = ",", scientific = FALSE), h$engine)
say("load average at the end: %s", load())
if (nzchar(out_file)) writeLines(lines, out_file)
