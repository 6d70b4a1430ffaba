# Interrupts: a long PD (lm through predict(), 200,000 rows at 301 points,
# 3 variables) is sent SIGINT (what Ctrl-C sends) after 6 seconds, under the
# sequential plan and plan(multisession, workers = 2). Reported: how long
# the run took to stop, that no result was assigned, and (multisession) how
# soon a new future runs on the workers afterwards.
#   Rscript inst/bench/bench-interrupt.R
args <- commandArgs(trailingOnly = TRUE)
if (length(args) && args[1] == "child") {
  suppressPackageStartupMessages(library(modelprofiles))
  plan_name <- args[2]
  out <- args[3]
  set.seed(1)
  n <- 200000
  X <- data.frame(a = rnorm(n), b = rnorm(n), c = rnorm(n))
  fit <- lm(y ~ a * b + c, data = cbind(X, y = rnorm(n)))
  if (plan_name == "multisession") {
    future::plan(future::multisession, workers = 2)
    invisible(future::value(future::future(NULL)))
  }
  writeLines(as.character(Sys.getpid()), paste0(out, ".pid"))
  res <- NULL
  stopped <- tryCatch({
    res <- model_profile(fit, X, N = NULL, grid_points = 301, engine = "predict",
                         memory_budget = 32, keep_ice = FALSE)
    NA_real_
  }, interrupt = function(e) as.numeric(Sys.time()))
  after <- NA_real_
  if (plan_name == "multisession") {
    t0 <- proc.time()[[3]]
    invisible(future::value(future::future(Sys.getpid())))
    after <- proc.time()[[3]] - t0
  }
  saveRDS(list(stopped = stopped, assigned = !is.null(res), future_after = after), out)
  quit(save = "no")
}

rscript <- file.path(R.home("bin"), "Rscript")
me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
rows <- list()
for (plan_name in c("sequential", "multisession")) {
  out <- tempfile(fileext = ".rds")
  system2(rscript, c(me, "child", plan_name, out), wait = FALSE)
  while (!file.exists(paste0(out, ".pid"))) Sys.sleep(0.1)
  pid <- as.integer(readLines(paste0(out, ".pid")))
  Sys.sleep(6)
  sent <- as.numeric(Sys.time())
  tools::pskill(pid, tools::SIGINT)
  for (i in 1:600) if (file.exists(out)) break else Sys.sleep(0.1)
  r <- readRDS(out)
  rows[[plan_name]] <- data.frame(
    plan = plan_name, stopped_after_s = round(r$stopped - sent, 3),
    result_assigned = r$assigned, next_future_s = round(r$future_after, 2)
  )
}
cat(sprintf("R %s; %s\n", getRversion(), format(Sys.time())))
tab <- do.call(rbind, rows)
print(tab, row.names = FALSE)
if (any(tab$result_assigned))
  cat("A run finished before the signal: it did not test an interrupt.\n")
