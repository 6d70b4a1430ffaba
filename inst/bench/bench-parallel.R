# Scale out: PD and AL of 10 variables over 1,000,000 background rows with a
# predict-bound model through its own predict(), under the sequential plan
# and plan(multisession, workers = 2), in one run: seconds, the speed-up,
# identical numbers, and the peak memory of the main process against the
# memory budget plus the data. Two forests of 30 trees with at most 256
# leaves each:
# - randomForest: its predict() runs on the calling thread alone, so two
#   workers are two busy threads on the two cores;
# - ranger (num.threads = 1): its predict() still starts a thread for the
#   trees while the calling thread waits on a condition variable that the
#   tree thread signals after every tree and every row (and checks for
#   interrupts each time), so two workers are four threads on two cores.
#   Measured alone here, about 4,800 context switches per 65,536-row call;
#   two processes predicting side by side lost 8% of their rows per second
#   each (randomForest: none).
#   Rscript inst/bench/bench-parallel.R [rows] [budget_MiB] [models]
# `models`: comma-separated, "randomForest,ranger" by default.
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
  model <- args[6]
  suppressPackageStartupMessages(library(modelprofiles))
  train <- make_data(20000)
  set.seed(1)
  fit <- switch(model,
    ranger = ranger::ranger(x = train$X, y = train$y, num.trees = 30, max.depth = 8, num.threads = 1, seed = 1),
    randomForest = randomForest::randomForest(x = train$X, y = train$y, ntree = 30, maxnodes = 256)
  )
  pf <- if (model == "ranger") function(m, d) predict(m, d, num.threads = 1)$predictions else function(m, d) predict(m, d)
  rm(train)
  gc()
  base <- rss()[["now"]]
  X <- make_data(n)$X
  data_mib <- as.numeric(utils::object.size(X)) / 2^20
  if (plan_name == "multisession") future::plan(future::multisession, workers = 2)
  # Before timing, a run on (at most) 100,000 rows under the same plan and
  # budget: the workers start and load modelprofiles and the model's
  # package, and every process's R heap grows to the size of a chunk (a
  # fresh process collects garbage far more often at first), as in a
  # session that has made a profile before.
  warm <- X[seq_len(min(n, 100000)), ]
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
models <- if (length(args) >= 3) strsplit(args[3], ",")[[1]] else c("randomForest", "ranger")
rscript <- file.path(R.home("bin"), "Rscript")
me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
options(width = 200)
describe <- c(randomForest = "randomForest 30 trees (at most 256 leaves) through predict()",
              ranger = "ranger 30 trees (depth 8) through predict(num.threads = 1)")
unknown <- setdiff(models, names(describe))
if (length(unknown)) stop("unknown model: ", paste(unknown, collapse = ", "), "; use randomForest and/or ranger")
for (model in models) {
  res <- list()
  for (plan_name in c("sequential", "multisession")) {
    out <- tempfile(fileext = ".rds")
    status <- system2(rscript, c(me, "run", plan_name, n, budget, out, model))
    if (status != 0) stop("the ", plan_name, " run of ", model, " failed")
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
  cat(sprintf("R %s; %s rows, 10 variables; %s;\n",
              getRversion(), format(n, big.mark = ","), describe[[model]]))
  cat(sprintf("PD at 5 points and AL with 20 intervals for all 10 variables; %s predictions; numbers identical: TRUE; %s\n",
              format(s$predictions, big.mark = ","), format(Sys.time())))
  print(tab, row.names = FALSE)
  cat(sprintf("Peak memory of the 2 workers: %s MiB (each holds R, modelprofiles and %s, and predicts one chunk at a time).\n\n",
              paste(round(m$workers), collapse = " and "), model))
}
