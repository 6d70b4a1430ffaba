# What the sampling bands cost: model_profile() with bands = "none",
# "analytic" and "bootstrap" (B = 200), interleaved, for PD (101 grid
# points), kernel LD (101 points) and interval AL (K = 40), all with their
# defaults otherwise, on
#   (a) a ranger forest of 100 trees fitted on 3,000 rows of 8 variables,
#       all 3,000 rows as background (N = NULL);
#   (b) an lm fitted on 50,000 rows of 8 variables, with N = NULL (all rows)
#       and with the default N = 1000.
# Each cell is the median of `runs` runs (elapsed and CPU seconds); the
# order of the three band kinds rotates from run to run. The bands make no
# prediction of their own: n_predictions must be equal across band kinds
# (checked). keep_ice = FALSE, so that the cost of keeping the ICE curves
# for the bands (the band plan's per_row) is part of what is measured.
#   R_LIBS=... Rscript inst/bench/bench-bands-cost.R   (BANDS_COST_RUNS, default 3)
# BANDS_COST_CONFIGS: which configurations (indices into `configs`, e.g.
# "2" for the lm on all 50,000 rows, the target of issue 32: bootstrap at
# most 1.5x the profile), BANDS_COST_TYPES which profile types (e.g.
# "PD,AL"); all by default. The bootstrap's replicates are also checked
# equal with 1 and 2 threads.
# With BANDS_COST_PROFILE=1, every cell where the analytic bands cost more
# than 10 % is profiled afterwards (Rprof, 4 calls each of "none" and
# "analytic"), and the functions whose total time differs most are printed:
# where the bands' time goes. (The notes at the end of the results file
# come from such a run.)
library(modelprofiles)
stopifnot(requireNamespace("ranger", quietly = TRUE))
runs <- as.integer(Sys.getenv("BANDS_COST_RUNS", 3))
out_file <- Sys.getenv("BANDS_COST_OUT", file.path("inst", "bench", "results", "bench-bands-cost.txt"))
threads <- 2L
timed <- function(expr) {
  gc()
  t <- proc.time()
  force(expr)
  d <- proc.time() - t
  c(elapsed = d[["elapsed"]], cpu = d[["user.self"]] + d[["sys.self"]])
}

set.seed(1)
make_data <- function(n) {
  X <- as.data.frame(matrix(rnorm(n * 8), n, dimnames = list(NULL, paste0("x", 1:8))))
  X$x2 <- 0.5 * X$x1 + X$x2
  y <- sin(X$x1) + X$x1 * X$x2 + X$x3^2 / 2 + X$x4 - X$x5 + 0.5 * X$x6 + rnorm(n, 0, 0.5)
  list(X = X, y = y)
}
d_rf <- make_data(3000)
rf <- ranger::ranger(x = d_rf$X, y = d_rf$y, num.trees = 100, num.threads = threads, seed = 1)
d_lm <- make_data(50000)
fit_lm <- lm(y ~ ., data = cbind(d_lm$X, y = d_lm$y))

configs <- list(
  list(model = "ranger, 100 trees, 3,000 rows", fit = rf, X = d_rf$X, N = NULL),
  list(model = "lm, 50,000 rows", fit = fit_lm, X = d_lm$X, N = NULL),
  list(model = "lm, 50,000 rows", fit = fit_lm, X = d_lm$X, N = 1000)
)
types <- c(PD = "partial", LD = "conditional", AL = "accumulated")
kinds <- c("none", "analytic", "bootstrap")

one_call <- function(cf, type, bands) {
  args <- list(cf$fit, cf$X, type = type, N = cf$N, bands = profile_bands(bands, B = 200), seed = 1,
               keep_ice = FALSE, threads = threads)
  if (is.null(cf$N)) args["N"] <- list(NULL)
  do.call(model_profile, args)
}

only <- Sys.getenv("BANDS_COST_CONFIGS")
if (nzchar(only)) configs <- configs[as.integer(strsplit(only, ",")[[1]])]
only <- Sys.getenv("BANDS_COST_TYPES")
if (nzchar(only)) types <- types[strsplit(only, ",")[[1]]]
res <- list()
for (ci in seq_along(configs)) {
  cf <- configs[[ci]]
  for (tn in names(types)) {
    # The bootstrap's numbers do not depend on the number of threads.
    threads <- 1L
    b1 <- one_call(cf, types[[tn]], "bootstrap")
    threads <- 2L
    b2 <- one_call(cf, types[[tn]], "bootstrap")
    stopifnot(identical(b1$replicates, b2$replicates), identical(b1$agr_profiles, b2$agr_profiles))
    one_call(cf, types[[tn]], "none") # warm-up (compilation of the forest, caches)
    times <- array(NA_real_, c(runs, length(kinds), 2), list(NULL, kinds, c("elapsed", "cpu")))
    n_pred <- setNames(numeric(length(kinds)), kinds)
    yhat <- list()
    for (r in seq_len(runs)) {
      order <- kinds[(seq_along(kinds) + r - 2L) %% length(kinds) + 1L]
      for (b in order) {
        tt <- timed(p <- one_call(cf, types[[tn]], b))
        times[r, b, ] <- tt
        n_pred[[b]] <- p$n_predictions
        yhat[[b]] <- p$agr_profiles$`_yhat_`
      }
    }
    stopifnot(length(unique(n_pred)) == 1L)
    stopifnot(isTRUE(all.equal(yhat$none, yhat$analytic)), isTRUE(all.equal(yhat$none, yhat$bootstrap)))
    med <- apply(times, c(2, 3), median)
    res[[length(res) + 1L]] <- data.frame(
      model = cf$model, N = if (is.null(cf$N)) "NULL (all)" else format(cf$N), type = tn,
      none = round(med["none", "elapsed"], 3), analytic = round(med["analytic", "elapsed"], 3),
      bootstrap = round(med["bootstrap", "elapsed"], 3),
      `analytic/none` = round(med["analytic", "elapsed"] / med["none", "elapsed"], 2),
      `bootstrap/none` = round(med["bootstrap", "elapsed"] / med["none", "elapsed"], 2),
      `cpu a/n` = round(med["analytic", "cpu"] / med["none", "cpu"], 2),
      `cpu b/n` = round(med["bootstrap", "cpu"] / med["none", "cpu"], 2),
      n_predictions = n_pred[["none"]], check.names = FALSE
    )
    print(res[[length(res)]], row.names = FALSE)
  }
}
tab <- do.call(rbind, res)

# Where the analytic bands' time goes: the functions whose total time
# (Rprof, 4 calls) grows most from bands = "none" to "analytic".
profile_cell <- function(cf, type) {
  prof <- function(bk) {
    f <- tempfile()
    Rprof(f, interval = 0.01)
    for (i in 1:4) one_call(cf, type, bk)
    Rprof(NULL)
    bt <- summaryRprof(f)$by.total
    setNames(bt$total.time, gsub('"', "", rownames(bt)))
  }
  a <- prof("none")
  b <- prof("analytic")
  fn <- union(names(a), names(b))
  d <- data.frame(fun = fn, none = unname(a[fn]), analytic = unname(b[fn]))
  d[is.na(d)] <- 0
  d$extra <- d$analytic - d$none
  d <- d[order(-d$extra), ]
  head(d[d$extra >= 0.03, ], 20)
}
if (identical(Sys.getenv("BANDS_COST_PROFILE"), "1")) {
  for (i in which(tab$`analytic/none` > 1.1)) {
    cf <- configs[[match(paste(tab$model[i], tab$N[i]),
                         vapply(configs, function(c) paste(c$model, if (is.null(c$N)) "NULL (all)" else format(c$N)), ""))]]
    cat(sprintf("\n%s, N = %s, %s: seconds over 4 calls\n", tab$model[i], tab$N[i], tab$type[i]))
    print(profile_cell(cf, types[[tab$type[i]]]), row.names = FALSE)
  }
}
options(width = 200)
lines <- c(
  "What the sampling bands cost (inst/bench/bench-bands-cost.R)",
  sprintf("%s; R %s; modelprofiles %s; %d threads; median of %d interleaved runs; load average at the end %s.",
          format(Sys.Date()), getRversion(), utils::packageVersion("modelprofiles"), threads, runs,
          tryCatch(paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "),
                   error = function(e) "?")),
  "PD and LD at 101 grid points (LD by kernel), AL by intervals (K = 40); 8 variables; keep_ice = FALSE;",
  "bootstrap B = 200. Seconds are elapsed; 'cpu a/n', 'cpu b/n' are the same ratios of CPU seconds.",
  "n_predictions is the same for every band kind (checked), as are the profiles.",
  "",
  capture.output(print(tab, row.names = FALSE, right = FALSE))
)
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
writeLines(lines, out_file)
saveRDS(tab, sub("\\.txt$", ".rds", out_file))
cat(lines, sep = "\n")
