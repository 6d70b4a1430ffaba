# The executor under a future plan (R/executor_future.R): every entry point
# predicts on the workers, with the numbers of the sequential plan, and a
# predict function's globals travel with it.

future_data <- function(n = 120, seed = 7) {
  set.seed(seed)
  data.frame(a = rnorm(n), b = runif(n), f = factor(sample(c("u", "v", "w"), n, TRUE)),
             i = sample(1:6, n, TRUE))
}

# A predict function that logs the process and size of each call: one file
# per call in the folder `log` (processes appending to one file can
# interleave their lines).
logging_predict <- function(log) {
  force(log)
  function(m, nd) {
    dir.create(log, showWarnings = FALSE)
    cat(Sys.getpid(), nrow(nd), "\n", file = tempfile("call", tmpdir = log))
    nd$a * nd$b + (nd$f == "v") * nd$i + sin(nd$a)
  }
}

# Predictions a result counts (over its profiles, for those made of several).
n_made <- function(res) {
  if (!is.null(res$n_predictions)) return(res$n_predictions)
  sum(vapply(res$profiles, `[[`, numeric(1), "n_predictions"))
}

# The calls logged since the last read (and the log emptied).
read_log <- function(log) {
  files <- list.files(log, full.names = TRUE)
  d <- do.call(rbind, lapply(files, function(f) {
    v <- scan(f, quiet = TRUE)
    data.frame(pid = v[1L], n = v[2L])
  }))
  unlink(files)
  if (is.null(d)) data.frame(pid = integer(), n = numeric()) else d
}

test_that("every entry point predicts on the workers, with the sequential plan's numbers", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- future_data()
  log <- tempfile()
  pf <- logging_predict(log)
  calls <- list(
    h = function() h_statistic(NULL, X, pf, N = NULL, pairs = 4),
    p2 = function() model_profile_2d(NULL, X, pf, variables = list(c("a", "b"), c("f", "i")),
                                     grid_points = 8, memory_budget = 0.05),
    a2 = function() model_profile_2d(NULL, X, pf, variables = c("a", "b"), type = "accumulated",
                                     grid = profile_grids(intervals = 5), memory_budget = 0.02),
    cmp = function() compare_profiles(NULL, X, pf, variables = c("a", "b", "f"), grid_points = 10,
                                      memory_budget = 0.05),
    hid = function() hidden_interactions(NULL, X, pf, variables = c("a", "b"), groups = profile_groups("f", min_size = 5), memory_budget = 0.02),
    grp = function() model_profile(NULL, X, pf, variables = c("a", "i"), groups = "f",
                                   type = "accumulated", grid = profile_grids(intervals = 6), memory_budget = 0.02)
  )
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  seq_res <- seq_log <- list()
  for (name in names(calls)) {
    seq_res[[name]] <- calls[[name]]()
    seq_log[[name]] <- read_log(log)
    expect_true(all(seq_log[[name]]$pid == Sys.getpid()))
  }
  future::plan("multisession", workers = 2)
  # (A round trip taken as free: every stack goes to the workers.)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  for (name in names(calls)) {
    res <- calls[[name]]()
    got <- read_log(log)
    # Apart from the two rows of the probe, every row is predicted on a
    # worker, and as many rows as sequentially.
    main <- got$pid == Sys.getpid()
    expect_equal(got$n[main], 2, info = name)
    expect_gte(length(unique(got$pid[!main])), 1L)
    expect_equal(sum(got$n), sum(seq_log[[name]]$n), info = name)
    expect_equal(sum(got$n[!main]), n_made(res), info = name)
    expect_identical(n_made(res), n_made(seq_res[[name]]), info = name)
    strip <- function(r) { r$call <- NULL; r }
    expect_identical(strip(unclass(res)), strip(unclass(seq_res[[name]])), info = name)
  }
})

test_that("h_statistic() predicts its tables on the workers (all of them, counted)", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- future_data(80)
  log <- tempfile()
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  # (Each call takes 20 ms at least, so that a fast machine's futures
  # overlap and both workers get some.)
  inner <- logging_predict(log)
  pf <- function(m, nd) {
    Sys.sleep(0.02)
    inner(m, nd)
  }
  h <- h_statistic(NULL, X, pf, N = NULL, pairs = 3, memory_budget = 0.05)
  got <- read_log(log)
  on_workers <- got$pid != Sys.getpid()
  expect_equal(sum(got$n[on_workers]), h$n_predictions)
  expect_gt(sum(on_workers), 2)
  expect_equal(length(unique(got$pid[on_workers])), 2L)
})

test_that("a predict function's global variables and helpers travel to the workers", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- future_data(60)
  # Defined in the global environment, as a user's script defines them.
  assign("mp_test_k", 3, envir = globalenv())
  assign("mp_test_helper", function(x) x * mp_test_k, envir = globalenv())
  on.exit(rm(list = c("mp_test_k", "mp_test_helper", "mp_test_pf"), envir = globalenv()), add = TRUE)
  assign("mp_test_pf", eval(quote(function(m, nd) mp_test_helper(nd$a) + nd$b), globalenv()),
         envir = globalenv())
  pf <- get("mp_test_pf", envir = globalenv())
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, memory_budget = 0.01, keep_ice = FALSE)
  future::plan("multisession", workers = 2)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  m <- model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, memory_budget = 0.01, keep_ice = FALSE)
  expect_identical(m$agr_profiles, s$agr_profiles)
  # The PD of a is 3 a + mean(b), of b the mean of 3 a plus b.
  a <- m$agr_profiles[m$agr_profiles$`_vname_` == "a", ]
  expect_equal(a$`_yhat_`, 3 * a$`_x_` + mean(X$b), tolerance = 1e-12)
})

# ---- Back-ends ---------------------------------------------------------------------

# The calls each back-end must run with the sequential plan's numbers: PD
# and AL of two variables, a 2-D PD and the H-statistics, through a
# logging predict function.
backend_calls <- function(X, pf) {
  list(
    pd = function() model_profile(NULL, X, pf, variables = c("a", "f"), N = NULL, grid_points = 9,
                                  memory_budget = 0.02),
    al = function() model_profile(NULL, X, pf, variables = c("a", "i"), type = "accumulated",
                                  grid = profile_grids(intervals = 6), memory_budget = 0.02, keep_ice = FALSE),
    p2 = function() model_profile_2d(NULL, X, pf, variables = c("a", "b"), grid_points = 6,
                                     memory_budget = 0.05),
    h = function() h_statistic(NULL, X, pf, N = NULL, pairs = 2)
  )
}

# Runs the calls under `set_plan()` (all stacks to the workers) and checks
# their numbers and counts against the sequential plan's, and that the
# workers, not this process, predicted.
expect_backend_identical <- function(set_plan, label) {
  X <- future_data(60)
  log <- tempfile()
  calls <- backend_calls(X, logging_predict(log))
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  seq_res <- lapply(calls, function(f) f())
  seq_n <- sum(read_log(log)$n)
  set_plan()
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  res <- lapply(calls, function(f) f())
  got <- read_log(log)
  main <- got$pid == Sys.getpid()
  expect_equal(got$n[main], rep(2, length(calls)), info = label)
  expect_gt(sum(got$n[!main]), 0)
  expect_equal(sum(got$n), seq_n, info = label)
  strip <- function(r) { r <- unclass(r); r$call <- NULL; r }
  for (name in names(calls)) {
    expect_identical(strip(res[[name]]), strip(seq_res[[name]]), info = paste(label, name))
  }
}

test_that("multisession workers give the sequential plan's numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  expect_backend_identical(function() future::plan("multisession", workers = 2), "multisession")
})

test_that("a cluster of PSOCK workers on this machine gives the sequential plan's numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_if_not_installed("parallelly")
  skip_on_cran()
  cl <- parallelly::makeClusterPSOCK(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  expect_backend_identical(function() future::plan(future::cluster, workers = cl), "cluster")
})

test_that("future.callr gives the sequential plan's numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_if_not_installed("future.callr")
  skip_on_cran()
  expect_backend_identical(function() future::plan(future.callr::callr, workers = 2), "callr")
})

test_that("future.mirai gives the sequential plan's numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_if_not_installed("future.mirai")
  skip_on_cran()
  expect_backend_identical(function() future::plan(future.mirai::mirai_multisession, workers = 2), "mirai")
})

# ---- A model that travels once to each worker -------------------------------------------

test_that("predict_on_worker() keeps a keyed model, takes it when it stays behind, and says when it lacks it", {
  old <- list(key = worker_model$key, model = worker_model$model)
  on.exit(list2env(old, envir = worker_model), add = TRUE)
  X <- data.frame(a = c(1, 2, 3), b = c(10, 20, 30))
  job <- job_rows(list(data = X, n = 3L), list(stack_spec(NULL, character(), list())))
  pf <- function(m, nd) m$k * nd$a + nd$b
  model <- list(k = 5)
  first <- predict_on_worker(model, pf, job$part, job$jobs, 1, NULL, key = "stream-1")
  expect_equal(as.numeric(first$ys[[1L]]), c(15, 30, 45))
  expect_identical(worker_model$key, "stream-1")
  # The model stays behind: the next future of the stream does without it.
  second <- predict_on_worker(NULL, pf, job$part, job$jobs, 1, NULL, key = "stream-1")
  expect_identical(second$ys, first$ys)
  # Another stream's key: nothing predicted, the worker says it lacks it.
  miss <- predict_on_worker(NULL, pf, job$part, job$jobs, 1, NULL, key = "stream-2")
  expect_true(miss$miss)
  expect_null(miss$ys)
  # Without a key, nothing is kept.
  worker_model$key <- NULL
  plain <- predict_on_worker(model, pf, job$part, job$jobs, 1, NULL)
  expect_null(worker_model$key)
})

test_that("the model travels once per worker only under plans that keep their workers, within the sizes", {
  skip_if_not_installed("future")
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  expect_false(worker_keeps(1e6))
  future::plan(future::cluster, workers = 1L)
  expect_true(worker_keeps(1e6))
  expect_false(worker_keeps(worker_model_least_bytes / 2))
  expect_false(worker_keeps(worker_model_bytes * 2))
  # (Keys differ between streams.)
  expect_false(identical(stream_key(), stream_key()))
})

test_that("a large model travels once to each worker of a call, with the sequential plan's numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  X <- future_data(300)
  log <- tempfile()
  # The model: 160 kB of numbers and an environment (a new one each time
  # the model is unserialized on a worker), which the predict function
  # tags once with a number of its own (a copy that arrives with the
  # tag of another process gets its own).
  model <- list(w = runif(2e4), tag = new.env())
  pf <- local({
    log <- log
    function(m, nd) {
      here <- paste0(Sys.getpid(), " ")
      if (!startsWith(m$tag$id %||% "", here)) m$tag$id <- paste0(here, sample.int(1e9, 1L))
      dir.create(log, showWarnings = FALSE)
      cat(Sys.getpid(), nrow(nd), m$tag$id, "\n", file = tempfile("call", tmpdir = log))
      nd$a * nd$b + (nd$f == "v") * nd$i + m$w[1L]
    }
  })
  read_tags <- function() {
    files <- list.files(log, full.names = TRUE)
    d <- do.call(rbind, lapply(files, function(f) read.table(f, col.names = c("pid", "n", "p", "tag"))))
    unlink(files)
    d
  }
  # (h_statistic() runs two streams of futures; the model stays on the
  # workers from the first to the second.)
  calls <- list(
    function() model_profile(model, X, pf, variables = c("a", "b", "f"), grid_points = 21),
    function() model_profile(model, X, pf, variables = c("a", "b", "f"), grid_points = 21),
    function() h_statistic(model, X, pf, N = 40, pairs = 2, seed = 1)
  )
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- lapply(calls, function(f) f())
  read_tags()
  future::plan("multisession", workers = 2)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  strip <- function(r) { r$call <- NULL; unclass(r) }
  for (k in seq_along(calls)) {
    m <- calls[[k]]()
    expect_identical(strip(m), strip(s[[k]]))
    got <- read_tags()
    w <- got[got$pid != Sys.getpid(), ]
    # Many futures, and one copy of the model on each worker that ran them
    # (one tag per worker; one more when the call's first two futures went
    # to the same worker, the first done before the second was sent).
    expect_gt(nrow(w), 4L)
    expect_lte(length(unique(w$tag)), length(unique(w$pid)) + 1L)
  }
})

test_that("a worker that lacks the model gets the future again with it", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  X <- future_data(200)
  model <- list(w = runif(2e4))
  pf <- function(m, nd) nd$a * nd$b + m$w[1L]
  call <- function() model_profile(model, X, pf, variables = c("a", "b"), grid_points = 11)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- call()
  future::plan("multisession", workers = 2)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  # Every future is sent as if the model had gone to both workers, so the
  # first on each worker misses it.
  misses <- new.env()
  misses$n <- 0L
  ns <- asNamespace("modelprofiles")
  suppressMessages({
    trace("launch", where = ns, print = FALSE, tracer = quote(st$carried <- st$W))
    trace("collect_batch", where = ns, print = FALSE,
          exit = bquote(if (isTRUE(res$miss)) assign("n", .(misses)$n + 1L, envir = .(misses))))
  })
  on.exit(suppressMessages({
    untrace("launch", where = ns)
    untrace("collect_batch", where = ns)
  }), add = TRUE)
  m <- call()
  expect_identical(m$agr_profiles, s$agr_profiles)
  expect_gte(misses$n, 1L)
})

# ---- Parallelism that never hurts --------------------------------------------------------

# A cheap call (200 rows, 2 variables, 21 grid points) with the predict
# function wrap(logging_predict()) stays in this process under a plan of 2
# workers (started first when `warm`; round trips of `overhead` seconds
# when given; `again()` run before the call under the plan), with the
# sequential plan's numbers.
expect_stays_here <- function(wrap = identity, warm = FALSE, overhead = NULL, again = function() NULL) {
  X <- future_data(200)
  log <- tempfile()
  pf <- wrap(logging_predict(log))
  call <- function() model_profile(NULL, X, pf, variables = c("a", "f"), grid_points = 21)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- call()
  read_log(log)
  future::plan("multisession", workers = 2)
  # (The workers started, so that their start does not slow this process.)
  if (warm) future::value(list(future::future(1), future::future(2)))
  old_opt <- options(modelprofiles.future_overhead = overhead)
  on.exit(options(old_opt), add = TRUE)
  again()
  m <- call()
  got <- read_log(log)
  expect_true(all(got$pid == Sys.getpid()))
  expect_identical(m$agr_profiles, s$agr_profiles)
}

test_that("a cheap call under a plan stays in this process, with the same numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  expect_stays_here()
})

test_that("a first stack slowed by another process does not send a cheap call to the workers", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  # The first stack of the call (after the setup's probe of 2 rows) waits
  # 30 ms, as a stack of 150 rows does when another process takes a slice
  # of the processor: timed alone, its rows looked 30 times their cost, the
  # call's rest worth 2 workers, and its futures went out.
  first <- TRUE
  slowed <- function(inner) {
    function(m, nd) {
      if (first && nrow(nd) > 2L) {
        Sys.sleep(0.03)
        first <<- FALSE
      }
      inner(m, nd)
    }
  }
  expect_stays_here(slowed, warm = TRUE, again = function() first <<- TRUE)
})

test_that("a predict() of a large cost per call and cheap rows keeps a cheap call here (issue 40)", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  # 0.1 s a call, whatever its rows (randomForest's predict() costs 12.5 ms
  # a call and 2.1e-6 s a row). Round trips of 0.2 s: the first stack timed
  # (a 32nd of the rows, 0.1 s) counted as the rows' cost made the rest,
  # 3 s, worth 2 workers; the rows' own cost is a few milliseconds.
  costly_call <- function(inner) {
    function(m, nd) {
      Sys.sleep(0.1)
      inner(m, nd)
    }
  }
  expect_stays_here(costly_call, warm = TRUE, overhead = 0.2)
})

test_that("a predict-bound call turns to the workers, in futures worth their round trip", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  X <- future_data(1000)
  log <- tempfile()
  inner <- logging_predict(log)
  # 40 microseconds a row: 2 x 1,000 x 41 rows take 3.3 s, in chunks of
  # about 2,000 rows (0.5 MiB).
  pf <- function(m, nd) {
    Sys.sleep(4e-5 * nrow(nd))
    inner(m, nd)
  }
  call <- function() model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, grid_points = 41,
                                   keep_ice = FALSE, memory_budget = 0.5)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- call()
  seq_log <- read_log(log)
  future::plan("multisession", workers = 2)
  # The round trip as measured on a quiet machine (50 ms): the rule, not
  # the load of the machine running the tests, decides (a busy machine
  # measures round trips of a second and rightly keeps the work here).
  old_opt <- options(modelprofiles.future_overhead = 0.05)
  on.exit(options(old_opt), add = TRUE)
  m <- call()
  got <- read_log(log)
  expect_identical(m$agr_profiles, s$agr_profiles)
  # As many rows (stacks may be cut into pieces for the futures).
  expect_identical(sum(got$n), sum(seq_log$n))
  main <- got$pid == Sys.getpid()
  # This process predicted the probe and the first stacks (timed), the
  # workers most of the rows.
  expect_gt(sum(got$n[!main]), sum(got$n) / 2)
  expect_length(unique(got$pid[!main]), 2L)
})

test_that("a piece of a stack is the stack's rows from..to, for every kind of stack", {
  X <- future_data(30)
  setup <- list(data = X, n = nrow(X), threads = 1L)
  G <- 4L
  rows <- c(2L, 5L, 9L, 11L, 20L)
  grid <- list(c(-1, 0, 0.5, 2))
  specs <- c(
    list(as_stacked(curve_spec(rows, 1L, grid))),
    grid_stacks(setup, curve_spec(seq_len(30), 1L, grid, order = "grid")),
    list(stack_spec(pattern(rows, times = 3L), c(1L, 3L),
                    list(pattern(c(0.1, 0.2, 0.3), each = 5L), factor(rep(c("u", "w", "v"), 5), levels(X$f)))))
  )
  for (spec in specs) {
    L <- if (is.null(spec$rows)) nrow(X) else pattern_length(spec$rows)
    whole <- stack_job(X, spec, 1L)
    for (ab in list(c(1, 1), c(2, 7), c(L - 3, L), c(3, L))) {
      u <- list(spec = spec, from = ab[1] - 1, rows = ab[2] - ab[1] + 1, total = L)
      piece <- stack_job(X, piece_spec(u), 1L)
      expect_identical(piece, whole[seq.int(ab[1], ab[2]), , drop = FALSE] |> `rownames<-`(NULL))
    }
  }
  # Pieces in any order make the stack's predictions.
  y <- matrix(as.numeric(1:20), 10, 2, dimnames = list(NULL, c("p", "q")))
  pieces <- list(list(from = 6, y = y[7:10, , drop = FALSE]), list(from = 0, y = y[1:6, , drop = FALSE]))
  expect_identical(join_pieces(pieces, 10), y)
})

test_that("the variables of a call share one stream: stacks cut into pieces, the sequential numbers", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  X <- future_data(600)
  log <- tempfile()
  # A microsecond a row (13 ms a stack), so that a fast machine's futures
  # overlap and both workers get some.
  inner <- logging_predict(log)
  pf <- function(m, nd) {
    Sys.sleep(1e-6 * nrow(nd))
    inner(m, nd)
  }
  # One stack of 600 x 21 rows per variable (600 x 6 for i), one chunk each.
  call <- function() model_profile(NULL, X, pf, variables = c("a", "b", "i"), N = NULL, grid_points = 21,
                                   keep_ice = FALSE, memory_budget = 64)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- call()
  seq_log <- read_log(log)
  future::plan("multisession", workers = 2)
  # A round trip of 0.1 ms: the futures are sized by balance alone (a
  # quarter of what is left, then less).
  old_opt <- options(modelprofiles.future_overhead = 1e-4)
  on.exit(options(old_opt), add = TRUE)
  m <- call()
  got <- read_log(log)
  expect_identical(m$agr_profiles, s$agr_profiles)
  expect_identical(m$n_predictions, s$n_predictions)
  main <- got$pid == Sys.getpid()
  expect_equal(sum(got$n), sum(seq_log$n))
  # This process predicted the probe's two rows and the first 1/32 of the
  # rows (timed); the workers the rest.
  expect_lte(sum(got$n[main]), 2 + ceiling(sum(seq_log$n) / 32))
  # Stacks of 12,600 rows, cut: more predict() calls than stacks,
  # some smaller than a stack, on both workers.
  work <- got$n[!main]
  expect_gt(length(work), 3L)
  expect_true(any(work < 600 * 21))
  expect_length(unique(got$pid[!main]), 2L)
})

# ---- Interrupts --------------------------------------------------------------------------

test_that("an interrupt stops a run under multisession at once, and a new future runs soon after", {
  skip_if_not_installed("future", "1.40.0")
  skip_if_not_installed("callr")
  skip_on_cran()
  skip_on_os("windows")
  ready <- tempfile()
  child <- callr::r_bg(function(ready) {
    library(modelprofiles)
    future::plan(future::multisession, workers = 2)
    invisible(future::value(future::future(NULL)))
    set.seed(1)
    X <- data.frame(a = rnorm(2000), b = rnorm(2000))
    # 8 s of predictions sequentially, 4 s on the workers.
    pf <- function(m, nd) {
      Sys.sleep(2e-5 * nrow(nd))
      nd$a + nd$b
    }
    options(modelprofiles.future_overhead = 0)
    writeLines("go", ready)
    res <- NULL
    stopped <- tryCatch({
      res <- model_profile(NULL, X, pf, N = NULL, grid_points = 101, keep_ice = FALSE, memory_budget = 1)
      NA_real_
    }, interrupt = function(e) as.numeric(Sys.time()))
    t0 <- as.numeric(Sys.time())
    pid <- future::value(future::future(Sys.getpid(), seed = NULL))
    list(stopped = stopped, assigned = !is.null(res), next_future = as.numeric(Sys.time()) - t0,
         pid = pid, me = Sys.getpid())
  }, args = list(ready = ready), libpath = .libPaths())
  on.exit(child$kill(), add = TRUE)
  for (i in 1:300) if (file.exists(ready) || !child$is_alive()) break else Sys.sleep(0.1)
  expect_true(file.exists(ready))
  # Futures in flight on both workers.
  Sys.sleep(2)
  sent <- as.numeric(Sys.time())
  child$interrupt()
  child$wait(60000)
  r <- child$get_result()
  expect_false(r$assigned)
  expect_lt(r$stopped - sent, 1)
  expect_lt(r$next_future, 5)
  expect_false(r$pid == r$me)
})

test_that("the workers report progress per predict() call, adding up to one step per variable", {
  skip_if_not_installed("future", "1.40.0")
  skip_if_not_installed("progressr")
  skip_on_cran()
  X <- future_data(300)
  pf <- function(m, nd) nd$a * nd$b + nd$i
  opts <- options(progressr.enable = TRUE, modelprofiles.future_overhead = 0)
  on.exit(options(opts), add = TRUE)
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  count <- 0
  amount <- 0
  withCallingHandlers(
    model_profile(NULL, X, pf, variables = c("a", "b", "i"), type = "accumulated", N = NULL,
                  memory_budget = 0.01),
    progression = function(cond) {
      if (identical(cond$type, "update")) {
        count <<- count + 1
        amount <<- amount + cond$amount
      }
    }
  )
  expect_equal(amount, 3, tolerance = 1e-8)
  expect_gt(count, 3)
})

test_that("an error on a worker is the user's error, and the workers serve the next call", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  X <- future_data(300)
  # The probe's two rows predict; stacks with a at its largest values fail.
  pf <- function(m, nd) {
    if (any(nd$a > 2.5)) stop("boom on a worker")
    nd$a * nd$b
  }
  opts <- options(modelprofiles.future_overhead = 0)
  on.exit(options(opts), add = TRUE)
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  expect_error(model_profile(NULL, X, pf, variables = c("b", "a"), N = NULL, memory_budget = 0.01,
                             keep_ice = FALSE),
               "boom on a worker")
  t0 <- proc.time()[[3L]]
  pids <- unlist(future::value(lapply(1:2, function(i) future::future({ Sys.sleep(0.5); Sys.getpid() }, seed = NULL))))
  expect_lt(proc.time()[[3L]] - t0, 10)
  expect_false(any(pids == Sys.getpid()))
  ok <- function(m, nd) nd$a * nd$b
  m <- model_profile(NULL, X, ok, variables = c("b", "a"), N = NULL, memory_budget = 0.01, keep_ice = FALSE)
  future::plan("sequential")
  s <- model_profile(NULL, X, ok, variables = c("b", "a"), N = NULL, memory_budget = 0.01, keep_ice = FALSE)
  expect_identical(m$agr_profiles, s$agr_profiles)
})

# ---- Pieces of stacks, cut and joined back as predict() gives the whole stack ----

test_that("split_unit(): head and rest cover the unit's rows and amount", {
  u <- list(chunk = "c1", from = 10, rows = 8, amount = 4)
  s <- split_unit(u, 3)
  expect_equal(c(s$head$from, s$head$rows, s$head$amount), c(10, 3, 1.5))
  expect_equal(c(s$rest$from, s$rest$rows, s$rest$amount), c(13, 5, 2.5))
  whole <- split_unit(u, 8)
  expect_identical(whole$head, u)
  expect_null(whole$rest)
})

test_that("join_pieces(): the pieces' rows in place, as one matrix", {
  y <- matrix(as.double(1:14), 7, 2, dimnames = list(NULL, c("a", "b")))
  pieces <- list(list(from = 4, y = y[5:7, , drop = FALSE]), list(from = 0, y = y[1:4, , drop = FALSE]))
  expect_identical(join_pieces(pieces, 7), y)
})
