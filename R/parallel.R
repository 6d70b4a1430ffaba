# Prediction chunks as futures, and progress.
#
# Every estimator predicts its stacked rows a chunk at a time, as a task
# (run_tasks(), or predict_chunks() for one): `make(k)` gives the specifications of chunk k (0-based
# source rows `src`, or NULL for all background rows in order; the profiled
# columns `js`; their values `vals`) and `use(k, ys)` receives its
# predictions, in order. With the sequential plan (the default, and whenever
# the future package is absent), or with the native engine, which runs on
# threads of its own, the chunks are predicted one after another in this
# process. With another future::plan(), consecutive chunks (the rows of four
# chunks of the budget's size) are a future: the model, the distinct
# background rows the chunks need and the profiled columns' values travel to
# the worker, which stacks and predicts them; one future per worker runs, the chunks of a call's variables are one
# stream, futures are collected as they come in, and the results are used
# in chunk order.
# The chunks are the same under every plan (their size follows the memory
# budget, not the number of workers), so the numbers are identical.

# Number of workers of the current plan, or 1 when it is sequential or the
# future package is absent (then it is not loaded either).
plan_workers <- function() {
  if (!"future" %in% loadedNamespaces() && !requireNamespace("future", quietly = TRUE)) return(1L)
  if (inherits(future::plan(), "sequential")) return(1L)
  w <- suppressWarnings(as.integer(future::nbrOfWorkers()))
  if (length(w) != 1L || is.na(w) || w < 1L) 1L else w
}

# A progressor (progressr, when installed) for `steps` steps, created in the
# frame `envir` (it ends with it); NULL without progressr. Silent unless the
# user has enabled a handler (progressr::handlers()).
new_progress <- function(steps, envir = parent.frame()) {
  if (!requireNamespace("progressr", quietly = TRUE) || steps < 1) return(NULL)
  progressr::progressor(steps = steps, envir = envir)
}

# Advance the progress of a call by `amount` steps.
tick <- function(ctx, amount = 1) {
  p <- ctx$progress
  if (!is.null(p)) p(amount = amount)
  invisible()
}

# Predict chunks 1..K in order; see the top of this file. `make(k)` returns
# a list of one or more chunk specifications (each list(src, js, vals)),
# predicted on the same worker; `use(k, ys)` gets the list of their
# prediction matrices. `weight` is the part of one progress step that the K
# chunks make together.
predict_chunks <- function(ctx, K, make, use, weight = 1) {
  run_task(ctx, chunk_task(K, make, use, weight = weight))
  invisible()
}

# A task: K chunks to predict (make() and use() as for predict_chunks()),
# and finish(), which gives the result once all of them are used. The
# estimators return tasks, so that under a plan one stream of chunks runs
# through all the variables of a call (run_tasks()).
chunk_task <- function(K, make, use, finish = function() NULL, weight = 1) {
  structure(list(K = as.integer(K), make = make, use = use, finish = finish, weight = weight),
            class = "modelprofiles_task")
}

is_task <- function(x) inherits(x, "modelprofiles_task")

# A result already there, as a task without chunks.
as_task <- function(x) if (is_task(x)) x else chunk_task(0L, NULL, NULL, function() x, weight = 0)

# The task whose result is f() of the result of `task` (or f(task) at once
# when it is a result already).
task_then <- function(task, f) {
  if (!is_task(task)) return(f(task))
  finish <- task$finish
  task$finish <- function() f(finish())
  task
}

# The result of one task.
run_task <- function(ctx, task) {
  out <- NULL
  run_tasks(ctx, 1L, function(i) task, function(i, res) out <<- res)
  out
}

# Tasks 1..n, made by start(i) (a task or a result), their results given to
# done(i, result) in order. In this process (sequential plan, native
# engine), one task after another. Under a plan, their chunks are one
# stream: the next task starts (its grid, its intervals) once every chunk of
# the tasks before it has been submitted, so the workers do not wait for a
# task to be finished and the next one set up. At most two tasks are under
# way (the memory of one more task's vectors), and the chunks are used and
# the tasks finished in order, as in this process.
run_tasks <- function(ctx, n, start, done) {
  W <- if (is.null(ctx$native)) ctx$workers else 1L
  if (W <= 1L) {
    for (i in seq_len(n)) {
      task <- as_task(start(i))
      for (k in seq_len(task$K)) {
        task$use(k, predict_job(ctx, task$make(k)))
        tick(ctx, task$weight / task$K)
      }
      done(i, task$finish())
    }
    return(invisible())
  }
  # A future carries up to ctx$per_future consecutive chunks of a task (the
  # rows of 4 chunks of the budget's size, see new_context(); a round trip
  # costs about 45 ms: 25 to make and send a future, the rest to start it
  # and send its result back), with the memory of one chunk at a time on
  # the worker; at the end of a call, fewer, so that the workers finish
  # together. One future per worker is in flight. Whichever future is in
  # first is collected, and the next one sent at once, before any
  # predictions are used: waiting for the oldest kept a worker that had
  # finished first idle (1.4-3.5 s per worker in PD of 4 variables at 10^6
  # rows, 50 s). The results wait until those before them are in, and are
  # used in order. When the last chunks of the tasks under way are out, the
  # next task starts while the workers predict, not when one waits for it
  # (0.16 s for the grid of a variable at 10^6 rows). (Making the next
  # future while the workers predict, to send it at once, was not faster,
  # and its rows added to the main process's peak memory: 552 MiB against
  # 491 for AL of 3 variables at 10^6 rows.)
  active <- list() # tasks started and not finished, in order
  ids <- integer() # their numbers
  pending <- list() # futures of chunks submitted and not collected
  ready <- list() # futures collected and not used, by their number
  n_sent <- 0L # futures sent
  n_used <- 0L # futures used (in the order they were sent)
  started <- 0L
  per_future <- ctx$per_future
  rate <- NA_real_ # seconds per stacked row, from the futures collected
  start_next <- function() {
    if (started >= n || length(active) >= 2L) return(FALSE)
    started <<- started + 1L
    active[[length(active) + 1L]] <<- list(task = as_task(start(started)), submitted = 0L, used = 0L)
    ids <<- c(ids, started)
    TRUE
  }
  # The first task under way with chunks not yet submitted (NA: none).
  open_task <- function() Position(function(t) t$submitted < t$task$K, active)
  prepare <- function() {
    repeat {
      a <- open_task()
      if (!is.na(a)) break
      # Every chunk of the tasks under way is out: start the next task.
      if (!start_next()) return(NULL)
    }
    t <- active[[a]]
    # Chunks per future: per_future, and fewer at the end, so that the
    # workers finish together (once every task is started, half of each
    # worker's share of the chunks left, down to 1).
    left <- if (started < n) Inf else sum(vapply(active, function(t) t$task$K - t$submitted, numeric(1)))
    size <- max(1L, min(per_future, ceiling(left / (2 * W))))
    ks <- seq.int(t$submitted + 1L, min(t$task$K, t$submitted + size))
    active[[a]]$submitted <<- ks[length(ks)]
    list(chunks = lapply(ks, t$task$make), amount = t$task$weight / t$task$K, id = ids[a])
  }
  send <- function() {
    next_job <- prepare()
    if (is.null(next_job)) return(FALSE)
    # `sending` stays TRUE if an interrupt (or an error) cuts the send short.
    sending <<- TRUE
    f <- chunk_future(next_job$chunks, ctx, next_job$amount, next_job$id)
    n_sent <<- n_sent + 1L
    f$seq <- n_sent
    f$sent <- proc.time()[[3L]]
    pending[[length(pending) + 1L]] <<- f
    sending <<- FALSE
    TRUE
  }
  sending <- FALSE
  on.exit(discard_futures(pending, cut = sending), add = TRUE)
  repeat {
    while (length(pending) < W && send()) NULL
    if (length(active) && active[[1L]]$used == active[[1L]]$task$K) {
      res <- active[[1L]]$task$finish()
      i <- ids[1L]
      active[[1L]] <- NULL
      ids <- ids[-1L]
      done(i, res)
      res <- NULL
      next
    }
    key <- as.character(n_used + 1L)
    if (!is.null(f <- ready[[key]])) {
      ready[[key]] <- NULL
      n_used <- n_used + 1L
      a <- match(f$id, ids)
      for (ys_k in split(f$ys, rep(seq_along(f$per_chunk), f$per_chunk))) {
        k <- active[[a]]$used + 1L
        active[[a]]$used <- k
        active[[a]]$task$use(k, unname(ys_k))
      }
      f <- ys_k <- NULL
      next
    }
    if (!length(pending)) break
    if (length(pending) >= W && is.na(open_task()) && start_next()) next
    i <- first_resolved(pending, rate)
    f <- pending[[i]]
    ys <- future::value(f$future)
    pending[[i]] <- NULL
    r <- (proc.time()[[3L]] - f$sent) / sum(f$n)
    rate <- if (is.na(rate)) r else (rate + r) / 2
    send()
    f$ys <- Map(function(y, n) check_chunk(ctx, y, n), ys, f$n)
    f$future <- ys <- NULL
    ready[[as.character(f$seq)]] <- f
    ctx$collected <- c(ctx$collected, f$seq)
    f <- NULL
  }
  invisible()
}

# The position of a future in `pending` that is resolved, waiting for one.
# The oldest is waited for (on its worker's socket or process, where the
# backend's resolved() can wait), and the others are checked in between:
# every 50 ms once one of them may be done (at `rate` seconds per stacked
# row, 80% of its time), so that a worker that finishes first does not wait
# for the one before it, and the checks take little of a core. With a
# backend whose resolved() does not wait (a scheduler's, mirai's), this
# sleeps until a future may be done, and then checks ever less often (from
# 20 ms up to every second).
first_resolved <- function(pending, rate = NA_real_) {
  if (length(pending) == 1L) return(1L)
  due <- if (is.na(rate)) rep(-Inf, length(pending)) else
    vapply(pending, function(f) f$sent + 0.8 * rate * sum(f$n), numeric(1))
  pause <- 0.02
  repeat {
    now <- proc.time()[[3L]]
    for (i in seq_along(pending)[-1L]) {
      if (future::resolved(pending[[i]]$future, timeout = 0)) return(i)
    }
    wait <- min(max(0.05, min(due[-1L]) - now), 1)
    if (future::resolved(pending[[1L]]$future, timeout = wait)) return(1L)
    later <- proc.time()[[3L]]
    if (later - now < 0.02) {
      if (later < min(due)) {
        Sys.sleep(max(0.02, min(min(due) - later, 1)))
      } else {
        Sys.sleep(pause)
        pause <- min(1, pause * 1.25)
      }
    }
  }
}

# Chunks as a future: the specifications of one or more chunks go to one
# worker, with the distinct source rows they need (not the stacked rows),
# the profiled columns' values, the model and the predict function (the
# package's own is made again on the worker, so that the model does not
# travel twice, in its closure). The worker stacks and predicts one
# specification at a time, and reports progress per chunk. `id`: the task
# the chunks belong to.
chunk_future <- function(chunks, ctx, amount, id) {
  per_chunk <- lengths(chunks)
  job <- job_rows(ctx, unlist(chunks, recursive = FALSE))
  own <- is_default_predictor(ctx$predict_function)
  # The worker finds predict_on_worker() in the package's namespace (an
  # internal function is not a global that futures carry). seed = NULL: a
  # predict() that draws random numbers (ranger's draws a seed) is not
  # reported as misusing them; a prediction that depends on them would not
  # be reproducible under any plan.
  expr <- quote(get("predict_on_worker", envir = asNamespace("modelprofiles"))(
    model, predict_function, part, jobs, ends, progress, amount
  ))
  f <- future::future(
    expr, substitute = FALSE,
    globals = list(
      model = ctx$model,
      predict_function = if (own) NULL else ctx$predict_function, part = job$part,
      jobs = job$jobs, ends = cumsum(per_chunk), progress = ctx$progress, amount = amount
    ),
    packages = worker_packages(ctx$model), seed = NULL, lazy = FALSE
  )
  # Once launched, a future needs its globals no more, but keeps them until
  # it is collected: the rows of every future in flight held this way took
  # the main process's peak 90 MiB over its budget (AL of 10 variables at
  # 10^6 rows: 550 MiB, 460 without). Dropped where the future is an
  # environment that has left its "created" state.
  if (is.environment(f) && is.character(f$state) && !identical(f$state, "created")) {
    f$globals <- NULL
  }
  list(future = f, n = job$n, per_chunk = per_chunk, id = id)
}

# A vector given by its pattern, rep(rep(x[index], each = each), times =
# times) (`index` optional): stacked rows and their values are mostly
# patterns (each row over the grid; the grid over the rows), which travel to
# workers and wait in job lists at the size of the pattern, not of the
# stacked rows. expand() makes the vector (and leaves other vectors alone).
pattern <- function(x, each = 1L, times = 1L, index = NULL) {
  structure(list(x = x, index = index, each = as.integer(each), times = as.integer(times)),
            class = "modelprofiles_pattern")
}

is_pattern <- function(x) inherits(x, "modelprofiles_pattern")

expand <- function(p) {
  if (!is_pattern(p)) return(p)
  v <- if (is.null(p$index)) p$x else p$x[p$index]
  if (p$each != 1L) v <- rep(v, each = p$each)
  if (p$times != 1L) v <- rep(v, times = p$times)
  v
}

pattern_length <- function(p) {
  if (!is_pattern(p)) return(length(p))
  length(if (is.null(p$index)) p$x else p$index) * p$each * p$times
}

# The rows a job's specifications need, stacked once: `part`, the distinct
# source rows (the background itself when a specification takes all rows),
# and per specification its rows of `part` (0-based, a vector or a pattern;
# NULL for all of them in order, which then share part's columns), its
# 0-based columns and values, and `n`, its number of stacked rows. When the
# specifications share one source (a vector, or a pattern of it, of
# increasing rows), those rows are `part` and the pattern stays a pattern.
job_rows <- function(ctx, specs) {
  srcs <- lapply(specs, `[[`, "src")
  all_rows <- any(vapply(srcs, is.null, logical(1)))
  # The rows of each source: a vector, or the rows of a pattern without an
  # index (NULL otherwise).
  cores <- lapply(srcs, function(s) if (!is_pattern(s)) s else if (is.null(s$index)) s$x)
  # Runs of specifications with the same source (the chunks of a job, one
  # after another); when their rows, run after run, increase, they are
  # `part` as they are, and each source is a compact sequence into it
  # (a pattern of it when the rows repeat).
  first <- !c(FALSE, vapply(seq_along(srcs)[-1L], function(i) identical(srcs[[i]], srcs[[i - 1L]]), logical(1)))
  rows <- if (!all_rows && !any(vapply(cores, is.null, logical(1)))) unlist(cores[first], use.names = FALSE)
  if (!is.null(rows) && !is.unsorted(rows, strictly = TRUE)) {
    off <- cumsum(c(0L, lengths(cores[first])))[cumsum(first)]
    # All the background rows, in order: the background itself.
    all_rows <- length(rows) == length(ctx$ids) && rows[length(rows)] == length(rows) - 1L
    srcs <- Map(function(s, core, o) {
      rel <- seq.int(o, length.out = length(core))
      if (is_pattern(s) && (s$each != 1L || s$times != 1L)) return(pattern(rel, s$each, s$times))
      # All of part in order: NULL, so that stacking shares its columns.
      if (length(core) < length(rows)) rel
    }, srcs, cores, off)
  } else {
    srcs <- lapply(srcs, expand)
    rows <- if (all_rows) seq_along(ctx$ids) - 1L else sort(unique(unlist(srcs)))
    srcs <- lapply(srcs, function(s) {
      i <- if (is.null(s)) NULL else match(s, rows) - 1L
      if (!is.null(i) && length(i) == length(rows) && all(i == seq_along(rows) - 1L)) NULL else i
    })
  }
  jobs <- Map(function(s, i) list(src = i, js = as.integer(s$js) - 1L, vals = s$vals), specs, srcs)
  part <- if (all_rows) ctx$data else unclass_frame(cpp_stack_frame(ctx$data, rows, integer(), list(), ctx$threads))
  n <- vapply(jobs, function(jb) if (is.null(jb$src)) length(rows) else pattern_length(jb$src), numeric(1))
  list(part = part, jobs = jobs, n = n)
}

# A job predicted in this process: one specification straight from the
# background (or by the native engine); several share their rows, stacked
# once (a block of rows over each grid value).
predict_job <- function(ctx, specs) {
  if (length(specs) == 1L || !is.null(ctx$native)) {
    return(lapply(specs, function(s) predict_stacked(ctx, expand(s$src), s$js, lapply(s$vals, expand))))
  }
  job <- job_rows(ctx, specs)
  lapply(job$jobs, function(jb) predict_frame(ctx, stack_job(job$part, jb, ctx$threads)))
}

# The stacked rows of one job specification (0-based rows of `part` and
# columns; rows and values possibly patterns).
stack_job <- function(part, jb, threads) {
  cpp_stack_frame(part, expand(jb$src), jb$js, lapply(jb$vals, expand), threads)
}

# Packages a worker loads: this one, and the one whose predict() method the
# model's class dispatches to (so that the method is registered there).
worker_packages <- function(model) {
  pkgs <- "modelprofiles"
  for (cl in class(model)) {
    m <- utils::getS3method("predict", cl, optional = TRUE)
    if (is.null(m)) next
    ns <- environmentName(environment(m))
    if (nzchar(ns) && !ns %in% c("base", "stats", "R_GlobalEnv")) pkgs <- c(pkgs, ns)
    break
  }
  unique(pkgs)
}

# On a worker: stack each job's rows and predict them.
predict_on_worker <- function(model, predict_function, part, jobs, ends, progress, amount) {
  if (is.null(predict_function)) predict_function <- default_predict_function(model)
  out <- vector("list", length(jobs))
  for (i in seq_along(jobs)) {
    out[[i]] <- predict_function(model, stack_job(part, jobs[[i]], 1L))
    # Progress as each chunk is done.
    if (!is.null(progress) && i %in% ends) progress(amount = amount)
  }
  out
}

# Futures left when a run stops early (an error, an interrupt): cancelled
# (which stops their workers) and collected, where the future package can
# (>= 1.40), so that no worker stays busy with them; the workers start
# again with the next future. Without cancel(), waiting for them would
# delay an interrupt: each worker is free again when its future is done.
# `cut`: the run stopped while a future was being sent. R answers Ctrl-C
# even in a blocking socket write (suspendInterrupts() does not hold it
# there), so the worker may have part of a message, and the next future on
# it waited forever (1 interrupt in 5, 4 s into bench-interrupt.R). Which
# worker is not known: all of the plan's local workers are stopped (an
# error before the send began costs only their restart).
discard_futures <- function(pending, cut = FALSE) {
  if (!length(pending) && !cut) return(invisible())
  ns <- asNamespace("future")
  cancel <- get0("cancel", envir = ns, inherits = FALSE)
  if (!is.null(cancel)) {
    for (f in lapply(pending, `[[`, "future")) {
      try(cancel(f), silent = TRUE)
      try(suppressWarnings(future::value(f, signal = FALSE)), silent = TRUE)
    }
  }
  if (cut) stop_workers()
  invisible()
}

# Stops the local workers of the current plan's backend (future >= 1.40,
# which starts a stopped worker again when it is next used).
stop_workers <- function() {
  backend <- tryCatch(future::plan("backend"), error = function(e) NULL)
  if (!inherits(backend, "ClusterFutureBackend") ||
      !requireNamespace("parallelly", quietly = TRUE)) {
    return(invisible())
  }
  kill <- get0("killNode", envir = asNamespace("parallelly"), inherits = FALSE)
  if (is.null(kill)) return(invisible())
  for (node in backend[["workers"]]) try(suppressWarnings(kill(node)), silent = TRUE)
  invisible()
}
