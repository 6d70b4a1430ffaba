# Scale out: PD and AL of 10 variables over 1,000,000 background rows with a
# predict-bound model (a ranger forest through its own predict(), one thread
# per process), under the sequential plan and plan(multisession, workers = 2),
# in one run: seconds, the speed-up, identical numbers, and the peak memory
# of the main process against the memory budget plus the data.
#   Rscript inst/bench/bench-parallel.R [rows] [budget_MiB]
# Each configuration runs in a fresh R process (so that its peak memory is
# its own); this script is both the driver and (with "run") the child.
args <- commandArgs(trailingOnly = TRUE)

# Column by column (no matrix copy, so that the data's own size is the
# memory it takes).
make_data <- function(n) {
  set.seed(1)
  X <- as.data.frame(stats::setNames(lapply(1:10, function(i) rnorm(n)), paste0("x", 1:10)))
  y <- X$x1 * X$x2 + sin(X$x3) + X$x4 - X$x5 + rnorm(n)
  list(X = X, y = y)
}

# Resident memory of this process now and at its peak (Linux), in MiB.
rss <- function() {
  s <- readLines("/proc/self/status")
  get <- function(key) as.numeric(gsub("[^0-9]", "", s[startsWith(s, key)])) / 1024
  c(now = get("VmRSS:"), peak = get("VmHWM:"))
}

if (length(args) && args[1] == "run") {
  # Child: one configuration.
  plan_name <- args[2]
  n <- as.integer(args[3])
  budget <- as.numeric(args[4])
  out <- args[5]
  suppressPackageStartupMessages({
    library(modelprofiles)
    library(ranger)
  })
  train <- make_data(20000)
  fit <- ranger(x = train$X, y = train$y, num.trees = 30, max.depth = 8, num.threads = 1, seed = 1)
  rm(train)
  gc()
  base <- rss()[["now"]]
  X <- make_data(n)$X
  data_mib <- as.numeric(utils::object.size(X)) / 2^20
  if (plan_name == "multisession") future::plan(future::multisession, workers = 2)
  pf <- function(m, d) predict(m, d, num.threads = 1)$predictions
  # Before timing, a run on 100,000 rows under the same plan and budget: the
  # workers start and load modelprofiles and ranger, and every process's R
  # heap grows to the size of a chunk (a fresh process collects garbage far
  # more often at first), as in a session that has made a profile before.
  warm <- X[1:100000, ]
  invisible(model_profile(fit, warm, predict_function = pf, N = NULL, variables = "x1",
                          grid_points = 5, keep_ice = FALSE, memory_budget = budget, engine = "predict"))
  invisible(model_profile(fit, warm, predict_function = pf, N = NULL, variables = "x1",
                          type = "accumulated", intervals = 20, memory_budget = budget, engine = "predict"))
  rm(warm)
  gc(reset = TRUE)
  t0 <- proc.time()[[3]]
  pd <- model_profile(fit, X, predict_function = pf, N = NULL, grid_points = 5, keep_ice = FALSE,
                      memory_budget = budget, engine = "predict")
  t_pd <- proc.time()[[3]] - t0
  t0 <- proc.time()[[3]]
  al <- model_profile(fit, X, predict_function = pf, N = NULL, type = "accumulated", intervals = 20,
                      memory_budget = budget, engine = "predict")
  t_al <- proc.time()[[3]] - t0
  heap <- sum(gc()[, 6L]) # max used since the reset, MiB (Ncells and Vcells)
  # The workers' peaks: one future on each (both wait, so that neither
  # worker takes both).
  workers <- NULL
  if (plan_name == "multisession") {
    fs <- lapply(1:2, function(i) future::future({
      Sys.sleep(2)
      s <- readLines("/proc/self/status")
      as.numeric(gsub("[^0-9]", "", s[startsWith(s, "VmHWM:")])) / 1024
    }, seed = NULL))
    workers <- vapply(fs, future::value, numeric(1))
  }
  saveRDS(list(pd = pd$agr_profiles, al = al$agr_profiles, t_pd = t_pd, t_al = t_al,
               base = base, peak = rss()[["peak"]], heap = heap, data = data_mib,
               predictions = pd$n_predictions + al$n_predictions, workers = workers), out)
  quit(save = "no")
}

# Driver.
n <- if (length(args) >= 1) as.integer(args[1]) else 1000000L
budget <- if (length(args) >= 2) as.numeric(args[2]) else 256
rscript <- file.path(R.home("bin"), "Rscript")
me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
res <- list()
for (plan_name in c("sequential", "multisession")) {
  out <- tempfile(fileext = ".rds")
  status <- system2(rscript, c(me, "run", plan_name, n, budget, out))
  if (status != 0) stop("the ", plan_name, " run failed")
  res[[plan_name]] <- readRDS(out)
}
s <- res$sequential
m <- res$multisession
stopifnot(identical(s$pd, m$pd), identical(s$al, m$al))
row <- function(name, r) {
  data.frame(plan = name, pd_seconds = round(r$t_pd, 1), al_seconds = round(r$t_al, 1),
             total = round(r$t_pd + r$t_al, 1),
             speedup = round((s$t_pd + s$t_al) / (r$t_pd + r$t_al), 2),
             peak_rss_mib = round(r$peak), before_data_mib = round(r$base),
             data_mib = round(r$data), budget_mib = budget,
             within = r$peak <= r$base + r$data + budget,
             r_heap_peak_mib = round(r$heap))
}
tab <- rbind(row("sequential", s), row("multisession, 2 workers", m))
options(width = 200)
cat(sprintf("R %s; %s rows, 10 variables; ranger 30 trees (depth 8) through predict(), 1 thread per process;\n",
            getRversion(), format(n, big.mark = ",")))
cat(sprintf("PD at 5 points and AL with 20 intervals for all 10 variables; %s predictions; numbers identical: TRUE; %s\n",
            format(s$predictions, big.mark = ","), format(Sys.time())))
print(tab, row.names = FALSE)
cat(sprintf("Peak memory of the 2 workers: %s MiB (each holds R, modelprofiles and ranger, and predicts one chunk at a time).\n",
            paste(round(m$workers), collapse = " and ")))
