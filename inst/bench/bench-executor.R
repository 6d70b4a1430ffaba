# Every entry point through the one executor: h_statistic(),
# model_profile_2d(), compare_profiles() and hidden_interactions() under the
# sequential plan and plan(multisession, workers = 2), on a predict-bound
# model (a randomForest of 300 trees through its own predict(), which runs
# on the calling thread alone). Runs interleaved, medians of `reps`, the
# speed-up, and whether the numbers are identical. The two workers are
# started once (a cluster kept across plan changes) and warmed up (the
# model's package loaded) before timing: starting R processes is not the
# executor's cost. (gc = FALSE: as multisession workers; a cluster plan's
# default collects garbage on the worker after every future, 0.4 s each
# here with future 1.80.)
#   Rscript inst/bench/bench-executor.R [reps]
suppressPackageStartupMessages({
  library(modelprofiles)
  library(randomForest)
  library(future)
})
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L

set.seed(1)
n <- 2000
X <- data.frame(x1 = rnorm(n), x2 = runif(n), x3 = rnorm(n), x4 = sample(1:8, n, TRUE),
                f = factor(sample(c("a", "b", "c"), n, TRUE)))
y <- X$x1 * X$x2 + sin(X$x3) + X$x4 / 4 + (X$f == "b") * X$x1 + rnorm(n, sd = 0.3)
fit <- randomForest(X, y, ntree = 300, maxnodes = 256)
# A user's predict function: the predict() path, whatever the plan.
pf <- function(m, nd) predict(m, nd)

calls <- list(
  h_statistic = function() h_statistic(fit, X, pf, N = 300, pairs = 4, seed = 1),
  model_profile_2d = function() model_profile_2d(fit, X, pf, N = 500, seed = 1, grid_points = 15,
                                                 variables = list(c("x1", "x2"), c("x3", "f"))),
  compare_profiles = function() compare_profiles(fit, X, pf, N = 500, seed = 1, grid_points = 30,
                                                 variables = c("x1", "x2", "x3")),
  hidden_interactions = function() hidden_interactions(fit, X, pf, N = 1000, seed = 1, groups = "f",
                                                       variables = c("x1", "x2", "x3"))
)

strip <- function(r) {
  r <- unclass(r)
  r$call <- NULL
  if (!is.null(r$profiles)) r$profiles <- lapply(r$profiles, function(p) { p$call <- NULL; unclass(p) })
  r
}
time_it <- function(f) {
  t <- system.time(res <- f())[["elapsed"]]
  list(t = t, res = res)
}

cl <- parallelly::makeClusterPSOCK(2)
on.exit(parallel::stopCluster(cl), add = TRUE)
workers <- function() plan(cluster, workers = cl, gc = FALSE)
workers()
invisible(calls$model_profile_2d())
rows <- list()
for (name in names(calls)) {
  seq_t <- par_t <- numeric()
  same <- TRUE
  for (r in seq_len(reps)) {
    plan(sequential)
    s <- time_it(calls[[name]])
    workers()
    m <- time_it(calls[[name]])
    seq_t <- c(seq_t, s$t)
    par_t <- c(par_t, m$t)
    same <- same && identical(strip(s$res), strip(m$res))
  }
  plan(sequential)
  rows[[name]] <- data.frame(entry = name, sequential_s = median(seq_t), workers2_s = median(par_t),
                             speedup = median(seq_t) / median(par_t), identical = same)
  print(rows[[name]], row.names = FALSE)
}
out <- do.call(rbind, rows)
cat("\nMedians of", reps, "interleaved runs; R", as.character(getRversion()),
    "; future", as.character(packageVersion("future")), "\n")
print(out, row.names = FALSE, digits = 3)
dir.create(file.path("inst", "bench", "results"), showWarnings = FALSE, recursive = TRUE)
writeLines(c(
  "# bench-executor.R: sequential vs 2 workers (plan(cluster) of 2 local R processes), randomForest 300 trees via predict()",
  paste("# medians of", reps, "interleaved runs,", format(Sys.Date())),
  utils::capture.output(print(out, row.names = FALSE, digits = 3))
), file.path("inst", "bench", "results", "bench-executor.txt"))
