# Cost of the extrapolation measure (issue 42, ?extrapolation): 1,000
# background rows, 51 grid points, 10 variables; the PD profile of an lm
# and of a 100-tree ranger forest (native engine) with the measure on and
# off, and the measure alone (as profile_result() runs it: the space, the
# threshold and the shares of every variable). Run:
# Rscript inst/bench/bench-extrapolation.R (with the package installed);
# results in inst/bench/results/bench-extrapolation.txt.
#
# The runs are interleaved (off, on, measure alone, off, on, ...) so that a
# change of the machine's load hits them alike; medians of CPU (user +
# system) and elapsed seconds, and the load average before and after, are
# reported. On a shared, loaded machine read the CPU medians and the
# ratios, not the absolute times.
library(modelprofiles)
set.seed(1)
n <- 1000
p <- 10
X <- as.data.frame(matrix(rnorm(n * p), n, p))
X$V2 <- X$V1 + rnorm(n, sd = 0.2)
y <- rowSums(X) + X$V1 * X$V3 + rnorm(n)
d <- cbind(X, y = y)
threads <- 1L
ns <- asNamespace("modelprofiles")
# Seconds per call of f, over `times` calls (the measure alone takes about
# 10 ms, and the processor's clock counts whole milliseconds: 10 calls
# make a millisecond 0.001 of the ranger ratio, not 0.01).
timed <- function(f) {
  times <- if (is.null(attr(f, "times"))) 1L else attr(f, "times")
  s <- proc.time()
  for (k in seq_len(times)) f()
  u <- proc.time() - s
  c(cpu = u[["user.self"]] + u[["sys.self"]], elapsed = u[["elapsed"]]) / times
}
# Interleaved runs of the functions `fs`, `reps` rounds (after one round
# of warming up); a data frame of medians.
interleaved <- function(fs, reps) {
  for (f in fs) f()
  t <- lapply(fs, function(f) matrix(NA_real_, reps, 2))
  for (r in seq_len(reps)) for (k in seq_along(fs)) t[[k]][r, ] <- timed(fs[[k]])
  data.frame(what = names(fs), threads = threads,
             cpu_median = vapply(t, function(m) stats::median(m[, 1]), 1),
             elapsed_median = vapply(t, function(m) stats::median(m[, 2]), 1), row.names = NULL)
}
pd_of <- function(fit, ext) {
  function() {
    withr::with_options(list(modelprofiles.extrapolation = ext),
                        model_profile(fit, X, grid_points = 51, N = n, keep_ice = FALSE, threads = threads))
  }
}
measure_of <- function(fit) {
  pd <- pd_of(fit, FALSE)()
  setup <- list(data = X, n = n, weights = rep(1, n), threads = threads, model = fit,
                predict_function = ns$default_predict_function(fit))
  structure(function() {
    space <- ns$support_space(setup, names(X), 0.95)
    ns$extrapolation_share(space, setup, names(X), pd$grids[names(X)], seq_len(n))
  }, times = 10L)
}
load0 <- readLines("/proc/loadavg")
fit_lm <- lm(y ~ ., data = d)
out <- interleaved(list(`lm PD, extrapolation off` = pd_of(fit_lm, FALSE),
                        `lm PD, extrapolation on` = pd_of(fit_lm, TRUE),
                        `measure alone` = measure_of(fit_lm)), reps = 41)
if (requireNamespace("ranger", quietly = TRUE)) {
  fit_rf <- ranger::ranger(y ~ ., data = d, num.trees = 100, seed = 1, num.threads = 1)
  stopifnot(unique(pd_of(fit_rf, FALSE)()$engine) == "native")
  out <- rbind(out, interleaved(list(`ranger PD (native), extrapolation off` = pd_of(fit_rf, FALSE),
                                     `ranger PD (native), extrapolation on` = pd_of(fit_rf, TRUE),
                                     `measure alone ` = measure_of(fit_rf)), reps = 15))
}
cat("load average before:", load0, "\n")
cat("load average after: ", readLines("/proc/loadavg"), "\n")
lanes <- if (exists("support_lanes", ns)) ns$support_lanes() else NA
cat("distances' lanes:", if (identical(lanes, 0L)) "the processor's most (4 with AVX, else 2)" else lanes, "\n")
print(out, row.names = FALSE, digits = 3)
m <- out$cpu_median
cat(sprintf("\nmeasure / lm PD (CPU medians): %.3f; (on - off) / off: %.3f\n", m[3] / m[1], (m[2] - m[1]) / m[1]))
if (nrow(out) > 3) {
  cat(sprintf("measure / ranger PD (CPU medians): %.3f; (on - off) / off: %.3f\n", m[6] / m[4], (m[5] - m[4]) / m[4]))
}
