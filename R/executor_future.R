# The executor under a future::plan(): the chunks of a call's requests as
# one stream of futures.
#
# Consecutive chunks of a request (the rows of up to setup$per_future
# chunks, fewer at the end so that the workers finish together) are one
# future: the model, the predict function with the globals it refers to,
# the distinct background rows the chunks need and the profiled columns'
# values travel to a worker, which stacks and predicts them. One future per
# worker is in flight; whichever is in first is collected and the next one
# sent at once, and results are used in order. The next request starts once
# every chunk of those under way is out, so that the workers do not wait
# for it to be set up; at most two are under way. Chunks that the native or
# linear engine evaluates are computed in this process.

# Number of workers of the current plan, or 1 when it is sequential or the
# future package is absent (then it is not loaded either).
plan_workers <- function() {
  if (!"future" %in% loadedNamespaces() && !requireNamespace("future", quietly = TRUE)) return(1L)
  if (inherits(future::plan(), "sequential")) return(1L)
  w <- suppressWarnings(as.integer(future::nbrOfWorkers()))
  if (length(w) != 1L || is.na(w) || w < 1L) 1L else w
}

# Run requests 1..n as a stream (see execute(), which gives start(r),
# use(r, k, ys, n_made, ticked) and finish(r)). Returns the sequence
# numbers of the futures in the order they were collected.
stream_requests <- function(setup, n, start, use, finish, progress) {
  W <- plan_workers()
  shipped <- worker_globals(setup, progress)
  active <- list() # requests started and not finished, in order
  ids <- integer() # their numbers
  pending <- list() # batches sent and not collected
  ready <- list() # batches collected (or computed here) and not used, by number
  n_sent <- n_used <- started <- 0L
  collected <- integer()
  rate <- NA_real_ # seconds per stacked row, from the batches collected
  start_next <- function() {
    if (started >= n || length(active) >= 2L) return(FALSE)
    started <<- started + 1L
    active[[length(active) + 1L]] <<- list(req = start(started), submitted = 0L, used = 0L)
    ids <<- c(ids, started)
    TRUE
  }
  # The first request under way with chunks not yet sent (NA: none).
  open_request <- function() Position(function(a) a$submitted < a$req$K, active)
  prepare <- function() {
    repeat {
      a <- open_request()
      if (!is.na(a)) break
      if (!start_next()) return(NULL)
    }
    ks <- batch_chunks(setup, active, a, started < n, W)
    active[[a]]$submitted <<- ks[length(ks)]
    list(id = ids[a], req = active[[a]]$req, ks = ks, chunks = lapply(ks, active[[a]]$req$make))
  }
  sending <- FALSE
  send <- function() {
    b <- prepare()
    if (is.null(b)) return(FALSE)
    n_sent <<- n_sent + 1L
    b$seq <- n_sent
    if (all(vapply(b$chunks, function(specs) is_direct_chunk(setup, b$req, specs), logical(1)))) {
      ready[[as.character(b$seq)]] <<- evaluate_batch(setup, b)
      return(TRUE)
    }
    # `sending` stays TRUE if an interrupt (or an error) cuts the send short.
    sending <<- TRUE
    pending[[length(pending) + 1L]] <<- send_batch(b, setup, shipped)
    sending <<- FALSE
    TRUE
  }
  on.exit(discard_futures(pending, cut = sending), add = TRUE)
  repeat {
    while (length(pending) < W && send()) NULL
    if (length(active) && active[[1L]]$used == active[[1L]]$req$K) {
      finish(ids[1L])
      active[[1L]] <- NULL
      ids <- ids[-1L]
      next
    }
    key <- as.character(n_used + 1L)
    if (!is.null(b <- ready[[key]])) {
      ready[[key]] <- NULL
      n_used <- n_used + 1L
      a <- match(b$id, ids)
      for (i in seq_along(b$ks)) {
        active[[a]]$used <- b$ks[i]
        use(b$id, b$ks[i], b$ys[[i]], attr(b$ys[[i]], "n"), ticked = !isTRUE(b$remote))
      }
      b <- NULL
      next
    }
    if (!length(pending)) break
    if (length(pending) >= W && is.na(open_request()) && start_next()) next
    i <- first_resolved(pending, rate)
    b <- pending[[i]]
    ys <- future::value(b$future)
    pending[[i]] <- NULL
    rate <- mean(c(rate[!is.na(rate)], (proc.time()[[3L]] - b$sent) / sum(b$n)))
    send()
    ready[[as.character(b$seq)]] <- collect_batch(setup, b, ys)
    collected <- c(collected, b$seq)
    b <- ys <- NULL
  }
  collected
}

# The globals every future of a call carries: the model and the predict
# function, with the globals the function refers to (found as the future
# package finds them; the package's own predict function is made again on
# the worker, so that the model does not travel twice), the progressor,
# and the packages to load.
worker_globals <- function(setup, progress) {
  own <- is_default_predictor(setup$predict_function)
  fun <- list()
  if (!own) {
    env <- list2env(list(predict_function = setup$predict_function), parent = emptyenv())
    fun <- future::getGlobalsAndPackages(quote(predict_function), envir = env, globals = TRUE)$globals
    fun <- as.list(fun)
    if (is.null(fun$predict_function)) fun$predict_function <- setup$predict_function
  }
  list(globals = c(list(model = setup$model, progress = progress), fun,
                   if (own) list(predict_function = NULL)),
       packages = worker_packages(setup$model))
}

# A batch as a future: its chunks' stacks, with the rows they need (not the
# stacked rows), go to one worker, which reports progress per chunk.
send_batch <- function(b, setup, shipped) {
  plans <- lapply(b$chunks, function(specs) stack_plan(setup, specs))
  per_chunk <- vapply(plans, function(p) length(p$stacks), numeric(1))
  job <- job_rows(setup, unlist(lapply(plans, `[[`, "stacks"), recursive = FALSE))
  amount <- b$req$weight / b$req$K
  # The worker finds predict_on_worker() in the package's namespace (an
  # internal function is not a global that futures carry). seed = NULL: a
  # predict() that draws random numbers (ranger's draws a seed) is not
  # reported as misusing them.
  expr <- quote(get("predict_on_worker", envir = asNamespace("modelprofiles"))(
    model, predict_function, part, jobs, ends, progress, amount
  ))
  f <- future::future(
    expr, substitute = FALSE,
    globals = c(shipped$globals, list(part = job$part, jobs = job$jobs,
                                      ends = cumsum(per_chunk), amount = amount)),
    packages = shipped$packages, seed = NULL, lazy = FALSE
  )
  # A launched future needs its globals no more, but keeps them until it is
  # collected: dropped, so that the rows of every future in flight do not
  # add to the main process's memory.
  if (is.environment(f) && is.character(f$state) && !identical(f$state, "created")) {
    f$globals <- NULL
  }
  b$future <- f
  b$plans <- plans
  b$per_chunk <- per_chunk
  b$n <- job$n
  b$remote <- TRUE
  b$sent <- proc.time()[[3L]]
  b$chunks <- NULL
  b
}

# A collected batch, its predictions checked, as one list per chunk (of one
# matrix per specification, with attribute "n") in b$ys.
collect_batch <- function(setup, b, ys) {
  ys <- Map(function(y, n) check_chunk(setup, y, n), ys, b$n)
  chunk_of <- rep(seq_along(b$plans), b$per_chunk)
  n_of <- vapply(split(b$n, chunk_of), sum, numeric(1))
  b$ys <- Map(function(p, y, n) structure(p$combine(unname(y)), n = n),
              b$plans, split(ys, chunk_of), n_of)
  b$future <- NULL
  b
}

# A batch of chunks that the native or linear engine evaluates, in this
# process.
evaluate_batch <- function(setup, b) {
  b$ys <- lapply(b$chunks, function(specs) evaluate_chunk(setup, b$req, specs))
  b$chunks <- NULL
  b
}

# The chunks of request a (of those under way) in its next batch:
# setup$per_future, and fewer at the end (once every request is started,
# half of each worker's share of the chunks left, down to 1) so that the
# workers finish together.
batch_chunks <- function(setup, active, a, more, W) {
  left <- if (more) Inf else sum(vapply(active, function(x) x$req$K - x$submitted, numeric(1)))
  size <- max(1L, min(setup$per_future, ceiling(left / (2 * W))))
  seq.int(active[[a]]$submitted + 1L, min(active[[a]]$req$K, active[[a]]$submitted + size))
}

# On a worker: stack each job's rows and predict them.
predict_on_worker <- function(model, predict_function, part, jobs, ends, progress, amount) {
  if (is.null(predict_function)) predict_function <- default_predict_function(model)
  out <- vector("list", length(jobs))
  for (i in seq_along(jobs)) {
    out[[i]] <- predict_function(model, stack_job(part, jobs[[i]], 1L))
    if (!is.null(progress) && i %in% ends) progress(amount = amount)
  }
  out
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

# The position of a batch in `pending` that is resolved, waiting for one.
# The oldest is waited for (on its worker's socket or process, where the
# backend's resolved() can wait), and the others are checked in between:
# every 50 ms once one of them may be done (at `rate` seconds per stacked
# row, 80% of its time). With a backend whose resolved() does not wait (a
# scheduler's, mirai's), this sleeps until a future may be done, then
# checks ever less often (from 20 ms up to every second).
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

# Futures left when a run stops early (an error, an interrupt): cancelled
# (which stops their workers) and collected where the future package can
# (>= 1.40), so that no worker stays busy with them. `cut`: the run stopped
# while a future was being sent; R answers Ctrl-C even in a blocking socket
# write, so a worker may hold part of a message and would wait forever: the
# plan's local workers are stopped (and started again when next used).
discard_futures <- function(pending, cut = FALSE) {
  if (!length(pending) && !cut) return(invisible())
  cancel <- get0("cancel", envir = asNamespace("future"), inherits = FALSE)
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
