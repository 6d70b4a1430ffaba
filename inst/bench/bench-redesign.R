# Before and after a change of the package's structure (issue 39: bands,
# engine and budget as plans): the same workloads with two libraries, each
# holding a modelprofiles, in one run. Every timing is a fresh R process;
# the libraries alternate within each replicate (before, after, after,
# before, ...) so that changes in the machine's speed hit both alike.
# Medians of `reps`, elapsed and CPU seconds, and the ratio after / before.
#   BENCH_LIBS="before=/lib/a,after=/lib/b" Rscript inst/bench/bench-redesign.R [reps]
# The parallel workloads have their own script, bench-parallel-first.R,
# which takes the same BENCH_LIBS.
args <- commandArgs(trailingOnly = TRUE)
workloads <- c("native_pd", "predict_pd", "lm_pd", "native_al", "predict_al", "ice")

if (length(args) && args[1] == "run") {
  # Child: one workload, one library (the first on .libPaths()).
  workload <- args[2]
  out <- args[3]
  suppressPackageStartupMessages(library(modelprofiles))
  set.seed(1)
  n <- 10000
  X <- data.frame(x1 = rnorm(n), x2 = runif(n), x3 = rnorm(n), x4 = rexp(n),
                  x5 = rnorm(n), x6 = runif(n, -2, 2))
  X$x2 <- X$x2 + 0.3 * X$x1
  y <- X$x1 * X$x2 + sin(X$x3) + log1p(X$x4) + X$x5 * X$x6 + rnorm(n, sd = 0.3)
  d <- cbind(X, y = y)
  rf <- ranger::ranger(y ~ ., d, num.trees = 100, seed = 1, num.threads = 1)
  lmfit <- lm(y ~ x1 * x2 + x3 + x4 + x5 * x6, d)
  big <- X[rep(seq_len(n), 10), ]
  big$x1 <- big$x1 + rnorm(nrow(big), sd = 0.01)
  call <- switch(workload,
    native_pd = function() model_profile(rf, X, N = 1000, threads = 1, engine = "native"),
    predict_pd = function() model_profile(rf, X, N = 300, threads = 1, engine = "predict"),
    lm_pd = function() model_profile(lmfit, big, N = NULL, threads = 1),
    native_al = function() model_profile(rf, X, type = "accumulated", N = NULL, threads = 1,
                                         engine = "native"),
    predict_al = function() model_profile(rf, X, type = "accumulated", N = NULL, threads = 1,
                                          engine = "predict"),
    ice = function() model_profile(rf, X, N = 200, keep_ice = TRUE, threads = 1,
                                   engine = "native"))
  invisible(call())  # the first call warms caches the package keeps per session
  gc()
  p0 <- proc.time()
  r <- call()
  p1 <- proc.time()
  el <- p1[["elapsed"]] - p0[["elapsed"]]
  cpu <- sum((p1 - p0)[c("user.self", "sys.self")])
  agr <- r$agr_profiles
  saveRDS(list(elapsed = el, cpu = cpu, yhat = agr[["_yhat_"]]), out)
  quit(save = "no")
}

reps <- if (length(args)) as.integer(args[1]) else 5L
libs_spec <- Sys.getenv("BENCH_LIBS")
if (!nzchar(libs_spec)) stop("set BENCH_LIBS=\"before=/lib/a,after=/lib/b\"")
libs <- vapply(strsplit(strsplit(libs_spec, ",")[[1]], "="), `[`, "", 2)
names(libs) <- vapply(strsplit(strsplit(libs_spec, ",")[[1]], "="), `[`, "", 1)
script <- normalizePath(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
rows <- list()
yhat <- list()
for (r in seq_len(reps)) {
  for (w in workloads) {
    order <- if (r %% 2) names(libs) else rev(names(libs))
    for (lib in order) {
      out <- tempfile(fileext = ".rds")
      env <- c(paste0("R_LIBS=", libs[[lib]], ":", Sys.getenv("R_LIBS")))
      status <- system2(file.path(R.home("bin"), "Rscript"), c(shQuote(script), "run", w, out),
                        env = env, stdout = FALSE, stderr = FALSE)
      if (status != 0 || !file.exists(out)) stop("workload ", w, " failed with ", lib)
      res <- readRDS(out)
      rows[[length(rows) + 1]] <- data.frame(rep = r, workload = w, lib = lib,
                                             elapsed = res$elapsed, cpu = res$cpu)
      yhat[[paste(w, lib)]] <- res$yhat
    }
  }
}
runs <- do.call(rbind, rows)
med <- aggregate(cbind(elapsed, cpu) ~ workload + lib, runs, median)
wide <- reshape(med, idvar = "workload", timevar = "lib", direction = "wide")
a <- names(libs)[1]
b <- names(libs)[2]
wide$ratio_elapsed <- wide[[paste0("elapsed.", b)]] / wide[[paste0("elapsed.", a)]]
wide$ratio_cpu <- wide[[paste0("cpu.", b)]] / wide[[paste0("cpu.", a)]]
wide$same_numbers <- vapply(wide$workload, function(w) {
  isTRUE(all.equal(yhat[[paste(w, a)]], yhat[[paste(w, b)]], tolerance = 1e-12))
}, logical(1))
cat(sprintf("bench-redesign: %d replicates, %s; load average %s\n", reps, format(Sys.time()),
            paste(readLines("/proc/loadavg"), collapse = " ")))
cat(sprintf("libraries: %s\n", libs_spec))
print(wide[order(wide$workload), ], row.names = FALSE, digits = 3)
