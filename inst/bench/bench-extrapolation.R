# Cost of the extrapolation measure (issue 42, ?extrapolation): 1,000
# background rows, 51 grid points, 10 variables; the PD profile of an lm
# and of a 100-tree ranger forest with the measure on and off, and the
# measure alone. Run: Rscript inst/bench/bench-extrapolation.R (with the
# package installed); results in inst/bench/results/bench-extrapolation.txt.
library(modelprofiles)
set.seed(1)
n <- 1000
p <- 10
X <- as.data.frame(matrix(rnorm(n * p), n, p))
X$V2 <- X$V1 + rnorm(n, sd = 0.2)
y <- rowSums(X) + X$V1 * X$V3 + rnorm(n)
d <- cbind(X, y = y)
fit_lm <- lm(y ~ ., data = d)
reps <- 15
# Elapsed and CPU (user + system) seconds, the least and the median over
# `reps` runs (on a loaded machine the CPU time is the steadier measure).
best <- function(expr) {
  e <- substitute(expr)
  env <- parent.frame()
  t <- vapply(seq_len(reps), function(r) {
    s <- proc.time()
    eval(e, env)
    u <- proc.time() - s
    c(u[["elapsed"]], u[["user.self"]] + u[["sys.self"]])
  }, numeric(2))
  c(elapsed_min = min(t[1, ]), elapsed_median = stats::median(t[1, ]),
    cpu_min = min(t[2, ]), cpu_median = stats::median(t[2, ]))
}
run <- function(fit, ext, threads) {
  withr::with_options(list(modelprofiles.extrapolation = ext),
                      model_profile(fit, X, grid_points = 51, N = n, keep_ice = FALSE, threads = threads))
}
# The measure alone, as profile_result() runs it (space, threshold and
# shares of every variable).
measure <- function(threads) {
  pd <- run(fit_lm, FALSE, threads)
  ns <- asNamespace("modelprofiles")
  setup <- list(data = X, n = n, weights = rep(1, n), threads = threads, model = fit_lm,
                predict_function = ns$default_predict_function(fit_lm))
  function() {
    space <- ns$support_space(setup, names(X), 0.95)
    ns$extrapolation_share(space, setup, names(X), pd$grids[names(X)], seq_len(n))
  }
}
out <- c()
for (threads in c(1L, 2L)) {
  m <- measure(threads)
  out <- rbind(out,
    data.frame(what = "measure alone", threads = threads, t(best(m()))),
    data.frame(what = "lm PD, extrapolation = FALSE", threads = threads, t(best(run(fit_lm, FALSE, threads)))),
    data.frame(what = "lm PD, extrapolation = TRUE", threads = threads, t(best(run(fit_lm, TRUE, threads)))))
}
if (requireNamespace("ranger", quietly = TRUE)) {
  fit_rf <- ranger::ranger(y ~ ., data = d, num.trees = 100, seed = 1)
  reps <- 3
  rf <- function(ext, threads, engine = "auto") {
    withr::with_options(list(modelprofiles.extrapolation = ext),
                        model_profile(fit_rf, X, grid_points = 51, keep_ice = FALSE, engine = engine,
                                      threads = threads))
  }
  for (threads in c(1L, 2L)) {
    out <- rbind(out,
      data.frame(what = "ranger PD (native), extrapolation = FALSE", threads = threads, t(best(rf(FALSE, threads)))),
      data.frame(what = "ranger PD (native), extrapolation = TRUE", threads = threads, t(best(rf(TRUE, threads)))))
  }
  reps <- 1
  out <- rbind(out, data.frame(what = "ranger PD (predict), extrapolation = FALSE", threads = 2L,
                               t(best(rf(FALSE, 2L, "predict")))))
}
cat("load average:", tryCatch(readLines("/proc/loadavg"), error = function(e) "?"), "\n")
print(out, row.names = FALSE, digits = 3)
