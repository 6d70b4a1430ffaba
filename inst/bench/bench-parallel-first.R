# The parallel ratios of the first and the second call under a new plan, in
# one run (issue 40, item 3): four entry points on a predict-bound model (a
# randomForest through engine = "predict"; h_statistic() too, so that its
# tables are predicted, not walked natively), sequentially and with
# plan(multisession, workers = 2), the workers started and warmed (each has
# loaded modelprofiles and randomForest) before timing.
#
# Each replicate is a fresh R process (so that its first call under the
# plan is a session's first: nothing the package keeps across calls is
# there yet); in it, for one entry point: the sequential call, then the
# plan set and warmed, its first call, its second call, and the sequential
# call again (its time: the median of the two). Replicates of the entry
# points interleaved (entry 1, 2, 3, 4, then again), medians reported: the
# machine is shared and noisy. Also reported, per entry point: the futures
# of the first and second call (`futures`), the median round trip of the
# first call's futures (seconds from sending one to its value, less the
# worker's own time, as the stream learns it: `call_trip_s`), and a
# future's fixed cost on the plan, measured apart here: the round trip of
# a future that does nothing (`empty_trip_s`) and of one carrying the
# model (`model_trip_s`, as each of a call's futures does).
#   [BENCH_SCALE=4] Rscript inst/bench/bench-parallel-first.R [reps]
# To compare versions in one run, interleaved: BENCH_LIBS="before=/lib/a,after=/lib/b"
# (each a library holding a modelprofiles).
args <- commandArgs(trailingOnly = TRUE)
entries <- c("model_profile", "model_profile_2d", "h_statistic", "compare_profiles")

if (length(args) && args[1] == "run") {
  # Child: one replicate of one entry point.
  entry <- args[2]
  out <- args[3]
  suppressPackageStartupMessages({
    library(modelprofiles)
    library(future)
  })
  set.seed(1)
  # BENCH_SCALE = k: k times the rows and background rows (calls about k
  # times longer; 4 gives calls of about 1.5 s on a quiet machine).
  k <- as.numeric(Sys.getenv("BENCH_SCALE", "1"))
  n <- 2000 * k
  X <- data.frame(x1 = rnorm(n), x2 = runif(n), x3 = rnorm(n), x4 = sample(1:8, n, TRUE),
                  x5 = rnorm(n), f = factor(sample(c("a", "b", "c"), n, TRUE)))
  y <- X$x1 * X$x2 + sin(X$x3) + X$x4 / 4 + (X$f == "b") * X$x1 + X$x5 + rnorm(n, sd = 0.3)
  fit <- randomForest::randomForest(X, y, ntree = 100)
  calls <- list(
    model_profile = function() model_profile(fit, X, N = 600 * k, seed = 1, grid_points = 41, engine = "predict",
                                             variables = c("x1", "x2", "x3"), keep_ice = FALSE),
    model_profile_2d = function() model_profile_2d(fit, X, N = 400 * k, seed = 1, grid_points = 12,
                                                   engine = "predict",
                                                   variables = list(c("x1", "x2"), c("x3", "f"))),
    h_statistic = function() h_statistic(fit, X, N = 90 * k, pairs = 3, seed = 1, engine = "predict"),
    compare_profiles = function() compare_profiles(fit, X, N = 600 * k, seed = 1, grid_points = 30,
                                                   engine = "predict", variables = c("x1", "x2", "x3"))
  )
  f <- calls[[entry]]
  strip <- function(r) {
    if (is.environment(r)) return(NULL)
    if (!is.list(r)) return(r)
    r <- unclass(r)
    r$call <- NULL
    lapply(r, strip)
  }
  timed <- function() {
    t0 <- proc.time()[[3L]]
    res <- f()
    list(t = proc.time()[[3L]] - t0, res = res)
  }
  # (The process warmed too: its R heap grown, the model's predict() run.)
  invisible(f())
  s1 <- timed()
  plan(multisession, workers = 2)
  # Warmed: each worker has loaded modelprofiles and randomForest (two
  # futures at once go to different workers).
  fs <- lapply(1:2, function(i) future({
    loadNamespace("modelprofiles")
    loadNamespace("randomForest")
    Sys.sleep(0.3)
  }, seed = NULL))
  invisible(value(fs))
  # The round trips of the call's futures, as the stream learnt them (in
  # st$cost$overheads, or st$overheads before R/executor_cost.R).
  trips_seen <- new.env()
  suppressMessages(trace("collect_batch", where = asNamespace("modelprofiles"), print = FALSE,
                         exit = bquote({
                           st_ <- returnValue()
                           assign("trips", st_$cost$overheads %||% st_$overheads, envir = .(trips_seen))
                         })))
  trips <- function() {
    v <- trips_seen$trips
    trips_seen$trips <- NULL
    v
  }
  first <- timed()
  trips1 <- trips()
  second <- timed()
  trips2 <- trips()
  # A future's fixed cost on this plan: the round trip of a future that
  # does nothing, and of one that carries the model (as each of the call's
  # futures does); medians of 5.
  trip <- function(payload) {
    t0 <- proc.time()[[3L]]
    value(future(length(payload), globals = list(payload = payload), seed = NULL))
    proc.time()[[3L]] - t0
  }
  trip_empty <- stats::median(replicate(5, trip(NULL)))
  trip_model <- stats::median(replicate(5, trip(fit)))
  plan(sequential)
  s2 <- timed()
  same <- identical(strip(s1$res), strip(first$res), ignore.environment = TRUE) &&
    identical(strip(s1$res), strip(second$res), ignore.environment = TRUE)
  saveRDS(list(seq = c(s1$t, s2$t), first = first$t, second = second$t, same = same,
               trips1 = trips1, trips2 = trips2, trip_empty = trip_empty, trip_model = trip_model), out)
  quit(save = "no")
}

# Driver.
reps <- if (length(args)) as.integer(args[1]) else 3L
rscript <- file.path(R.home("bin"), "Rscript")
me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
libs <- Sys.getenv("BENCH_LIBS")
libs <- if (nzchar(libs)) strsplit(strsplit(libs, ",")[[1L]], "=") else list(c("this", ""))
versions <- vapply(libs, `[`, character(1), 1L)
res <- list()
for (r in seq_len(reps)) {
  for (entry in entries) {
    for (v in seq_along(libs)) {
      out <- tempfile(fileext = ".rds")
      env <- if (nzchar(libs[[v]][2L])) paste0("R_LIBS=", libs[[v]][2L]) else character()
      status <- system2(rscript, c(me, "run", entry, out), env = env)
      if (status != 0) stop("the run of ", entry, " failed")
      key <- paste(versions[v], entry)
      res[[key]] <- c(res[[key]], list(readRDS(out)))
      cat(".")
    }
  }
}
cat("\n")
rows <- lapply(names(res), function(key) {
  x <- res[[key]]
  entry <- key
  seq_t <- vapply(x, function(v) stats::median(v$seq), numeric(1))
  first <- vapply(x, `[[`, numeric(1), "first")
  second <- vapply(x, `[[`, numeric(1), "second")
  trips <- unlist(lapply(x, `[[`, "trips1"))
  nfut <- vapply(x, function(v) length(v$trips1), numeric(1))
  nfut2 <- vapply(x, function(v) length(v$trips2), numeric(1))
  data.frame(entry = entry, sequential_s = median(seq_t), first_s = median(first), second_s = median(second),
             ratio_first = median(seq_t) / median(first), ratio_second = median(seq_t) / median(second),
             futures = paste0(median(nfut), "/", median(nfut2)),
             call_trip_s = if (length(trips)) median(trips) else NA,
             empty_trip_s = median(vapply(x, `[[`, numeric(1), "trip_empty")),
             model_trip_s = median(vapply(x, `[[`, numeric(1), "trip_model")),
             identical = all(vapply(x, `[[`, logical(1), "same")))
})
out <- do.call(rbind, rows)
header <- c(
  sprintf("# bench-parallel-first.R: randomForest (100 trees, %s rows) through engine = \"predict\";",
          format(2000 * as.numeric(Sys.getenv("BENCH_SCALE", "1")), big.mark = ",")),
  "# sequential vs plan(multisession, workers = 2) (warmed), first and second call of a fresh R session",
  paste0("# medians of ", reps, " interleaved replicates (a fresh process each), ", format(Sys.time()), "; R ",
         getRversion(), ", future ", packageVersion("future"), "; load average ",
         paste(utils::head(strsplit(readLines("/proc/loadavg"), " ")[[1L]], 3L), collapse = " "))
)
options(width = 200)
cat(header, sep = "\n")
print(out, row.names = FALSE, digits = 3)
dir.create(file.path("inst", "bench", "results"), showWarnings = FALSE, recursive = TRUE)
cat(c(header, utils::capture.output(print(out, row.names = FALSE, digits = 3)), ""),
    file = file.path("inst", "bench", "results", "bench-parallel-first.txt"), sep = "\n", append = TRUE)
