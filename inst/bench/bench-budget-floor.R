# A tiny memory budget against the default (issue 40, item 2): chunks have
# min_chunk_rows rows at least whatever the budget, so memory_budget = 0.01
# costs at most 3 times the default budget's time (target). Runs alternate
# (default, 0.01, default, ...) in one process; medians of `reps`, elapsed
# and CPU (user + system) seconds. Each 0.01 result is checked against the
# default's (the same numbers to 1e-14).
#   Rscript inst/bench/bench-budget-floor.R [reps]
library(modelprofiles)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
set.seed(1)
n <- 1e5
L <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n), x4 = rnorm(n))
y <- L$x1 + L$x2^2 + L$x1 * L$x3 + rnorm(n)
timed <- function(expr) {
  g <- system.time(expr)
  c(elapsed = g[["elapsed"]], cpu = g[["user.self"]] + g[["sys.self"]])
}
fit_lm <- lm(y ~ x1 + x2 + x3 + x4, data = cbind(L, y = y))
fit_lm2 <- lm(y ~ x1 + I(x2^2) + x1:x3 + x4, data = cbind(L, y = y))
Lr <- L[1:20000, ]
fit_rf <- ranger::ranger(x = Lr, y = y[1:20000], num.trees = 100, seed = 1, num.threads = 2, verbose = FALSE)
cases <- list(
  "lm, 100,000 rows, x1 (linear engine)" = function(b) {
    model_profile(fit_lm, L, variables = "x1", N = NULL, memory_budget = b)
  },
  "lm, 100,000 rows, x2 squared (predict(), grid order)" = function(b) {
    model_profile(fit_lm2, L, variables = "x2", N = NULL, memory_budget = b)
  },
  "ranger 100 trees fitted on 20,000 rows, predict() path, N = 1000" = function(b) {
    model_profile(fit_rf, Lr, variables = "x1", engine = "predict", seed = 1, memory_budget = b)
  },
  "ranger 100 trees, native engine, 20,000 rows" = function(b) {
    model_profile(fit_rf, Lr, variables = "x1", N = NULL, engine = "native", memory_budget = b)
  }
)
cat(sprintf("modelprofiles %s | R %s | %s\n\n", utils::packageVersion("modelprofiles"),
            getRversion(), format(Sys.time(), tz = "UTC", usetz = TRUE)))
quiet <- function(expr) {
  w <- character()
  out <- withCallingHandlers(expr, warning = function(x) {
    w <<- c(w, conditionMessage(x))
    invokeRestart("muffleWarning")
  }, message = function(m) invokeRestart("muffleMessage"))
  list(out = out, warnings = w)
}
for (nm in names(cases)) {
  run <- cases[[nm]]
  invisible(quiet(run(256)))
  res <- NULL
  for (r in seq_len(reps)) for (b in c(256, 0.01)) {
    t <- timed(q <- quiet(run(b)))
    if (b == 256) ref <- q$out else {
      stopifnot(length(q$warnings) == 1L,
                isTRUE(all.equal(q$out$agr_profiles, ref$agr_profiles, tolerance = 1e-14)))
      warning_text <- q$warnings
    }
    res <- rbind(res, data.frame(budget = b, elapsed = t[["elapsed"]], cpu = t[["cpu"]]))
  }
  med <- aggregate(cbind(elapsed, cpu) ~ budget, res, stats::median)
  med <- med[order(-med$budget), ]
  med$x_elapsed <- med$elapsed / med$elapsed[1L]
  med$x_cpu <- med$cpu / med$cpu[1L]
  cat("##", nm, sprintf("(median of %d interleaved runs, seconds)\n", reps))
  print(med, row.names = FALSE, digits = 3)
  cat("warning:", gsub("\n", " ", cli::ansi_strip(warning_text)), "\n\n")
}
