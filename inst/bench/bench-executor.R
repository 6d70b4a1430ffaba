# Every entry point through the one executor, under the sequential plan and
# plan(multisession, workers = 2), in one run:
# - predict-bound: model_profile(), model_profile_2d(), h_statistic(),
#   compare_profiles() and hidden_interactions() with a predict function
#   whose cost grows with its rows (20 microseconds a row, slept, so that
#   the measurement does not depend on what else runs on the machine's
#   cores, plus a cheap linear formula);
# - cheap: a default lm call (model_profile(fit, X), which the linear
#   engine and small predict() calls answer in milliseconds): the executor
#   must keep it in this process (target: at least 0.9x sequential).
# Runs interleaved, medians of `reps`, the speed-up, whether the numbers
# are identical, how many of the stacked rows the workers predicted, and
# the main process's CPU seconds sequentially over those under the plan
# (for the cheap call, whose elapsed time on a shared machine varies by
# more than the executor's cost).
# The workers are started and warmed up (the plan's round trip measured,
# the package loaded) before timing: starting R processes is not the
# executor's cost.
#   Rscript inst/bench/bench-executor.R [reps]
suppressPackageStartupMessages({
  library(modelprofiles)
  library(future)
})
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L

set.seed(1)
n <- 2000
X <- data.frame(x1 = rnorm(n), x2 = runif(n), x3 = rnorm(n), x4 = sample(1:8, n, TRUE),
                f = factor(sample(c("a", "b", "c"), n, TRUE)))
y <- X$x1 * X$x2 + sin(X$x3) + X$x4 / 4 + (X$f == "b") * X$x1 + rnorm(n, sd = 0.3)
# The rows each call predicts and where (this process or a worker), from
# a log that the predict function appends to: one file per call.
log_dir <- tempfile("bench-executor")
dir.create(log_dir)
per_row <- 2e-5
pf <- function(m, nd) {
  Sys.sleep(per_row * nrow(nd))
  cat(Sys.getpid(), nrow(nd), "\n", file = tempfile("call", tmpdir = log_dir))
  nd$x1 * nd$x2 + sin(nd$x3) + nd$x4 / 4 + (nd$f == "b") * nd$x1
}
read_log <- function() {
  files <- list.files(log_dir, full.names = TRUE)
  v <- vapply(files, function(f) scan(f, quiet = TRUE), numeric(2))
  unlink(files)
  if (!length(files)) return(c(rows = 0, workers = 0))
  c(rows = sum(v[2, ]), workers = sum(v[2, v[1, ] != Sys.getpid()]))
}

calls <- list(
  model_profile = function() model_profile(NULL, X, pf, N = 1000, seed = 1, grid_points = 41,
                                           variables = c("x1", "x2", "x3"), keep_ice = FALSE),
  model_profile_2d = function() model_profile_2d(NULL, X, pf, N = 500, seed = 1, grid_points = 15,
                                                 variables = list(c("x1", "x2"), c("x3", "f"))),
  h_statistic = function() h_statistic(NULL, X, pf, N = 300, pairs = 4, seed = 1),
  compare_profiles = function() compare_profiles(NULL, X, pf, N = 1000, seed = 1, grid_points = 30,
                                                 variables = c("x1", "x2", "x3")),
  hidden_interactions = function() hidden_interactions(NULL, X, pf, N = 2000, seed = 1, groups = "f",
                                                       variables = c("x1", "x2", "x3"))
)
fit <- lm(y ~ x1 * x2 + x3 + x4 + f, data = cbind(X, y = y))
cheap <- function() model_profile(fit, X, seed = 1)

# Results compared without the call, and without the environments they
# hold (a cache, the environments of functions): the numbers.
strip <- function(r) {
  if (is.environment(r)) return(NULL)
  if (!is.list(r)) return(r)
  r <- unclass(r)
  r$call <- NULL
  lapply(r, strip)
}
time_it <- function(f, times = 1L) {
  read_log()
  t <- system.time(for (i in seq_len(times)) res <- f())
  list(t = t[["elapsed"]] / times, cpu = (t[["user.self"]] + t[["sys.self"]]) / times, res = res,
       log = read_log())
}
# Two workers, warmed: each has loaded modelprofiles (two futures at once
# go to different workers).
workers <- function() {
  plan(multisession, workers = 2)
  fs <- lapply(1:2, function(i) future({ loadNamespace("modelprofiles"); Sys.sleep(0.2) }, seed = NULL))
  invisible(value(fs))
}

workers()
invisible(calls$model_profile_2d())
invisible(cheap())
rows <- list()
bench <- function(name, f, times = 1L, reps = 3L) {
  seq_t <- par_t <- seq_cpu <- par_cpu <- numeric()
  same <- TRUE
  on_workers <- NA
  for (r in seq_len(reps)) {
    plan(sequential)
    s <- time_it(f, times)
    workers()
    m <- time_it(f, times)
    seq_t <- c(seq_t, s$t)
    par_t <- c(par_t, m$t)
    seq_cpu <- c(seq_cpu, s$cpu)
    par_cpu <- c(par_cpu, m$cpu)
    same <- same && identical(strip(s$res), strip(m$res), ignore.environment = TRUE)
    on_workers <- m$log[["workers"]] / m$log[["rows"]]
  }
  plan(sequential)
  data.frame(entry = name, sequential_s = median(seq_t), workers2_s = median(par_t),
             speedup = median(seq_t) / median(par_t), identical = same,
             rows_on_workers = round(on_workers, 3),
             main_cpu_ratio = median(seq_cpu) / median(par_cpu))
}
for (name in names(calls)) {
  rows[[name]] <- bench(name, calls[[name]], reps = reps)
  print(rows[[name]], row.names = FALSE)
}
# The cheap call takes milliseconds: timed over 20 calls at a time, and
# twice as many runs (the machine's noise is of its size).
rows$cheap <- bench("cheap lm (default call)", cheap, times = 20L, reps = 2L * reps)
print(rows$cheap, row.names = FALSE)

out <- do.call(rbind, rows)
header <- c(
  "# bench-executor.R: sequential vs plan(multisession, workers = 2); a predict function of 20 us a row (slept)",
  paste0("# medians of ", reps, " interleaved runs (", 2L * reps, " of 20 calls for the cheap one), ", format(Sys.Date()), "; R ", getRversion(),
         ", future ", packageVersion("future"), "; load average ",
         paste(utils::head(strsplit(readLines("/proc/loadavg"), " ")[[1L]], 3L), collapse = " "))
)
cat("\n", header, sep = "\n")
print(out, row.names = FALSE, digits = 3)
dir.create(file.path("inst", "bench", "results"), showWarnings = FALSE, recursive = TRUE)
writeLines(c(header, utils::capture.output(print(out, row.names = FALSE, digits = 3))),
           file.path("inst", "bench", "results", "bench-executor.txt"))

# The memory budget in the same run: peak memory of PD, AL and kernel LD
# (lm, ranger) at 10^6 and 10^7 rows against budget + result
# (bench-memory.R, a fresh process per case; results/bench-memory.txt).
# Set BENCH_EXECUTOR_MEMORY=false to leave it out.
if (!identical(Sys.getenv("BENCH_EXECUTOR_MEMORY"), "false")) {
  system2(file.path(R.home("bin"), "Rscript"), file.path("inst", "bench", "bench-memory.R"))
}
