# The executor under a future::plan(): the chunks of a call's requests as
# one stream of futures.
#
# Consecutive chunks of a request (the rows of up to setup$per_future
# chunks, fewer at the end so that the workers finish together) are one
# future: the model, the predict function with the globals it refers to,
# the distinct background rows the chunks need and the profiled columns'
# values travel to a worker, which stacks and predicts them. One future per
# worker is in flight; whichever is in first is collected, the next one
# (made while the workers predicted) sent at once, and results are used in
# order. Requests start while the workers predict, so that they do not
# wait for one to be set up; at most one more than the workers are under
# way. Chunks that the native or linear engine evaluates are computed in
# this process.

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
#
# A worker that is free gets the next batch at once: while the workers
# predict, this process uses the batches that are in, finishes requests,
# starts the next one and gathers the rows of the next batch (`ahead`, the
# rows of one future more than are in flight), so that between two futures
# a worker waits only for the next one to be sent. Up to W + 1 requests
# are under way (one per future in flight, and the one whose batch is made
# ahead). Batches computed here (native, linear) are made one at a time,
# and used before the next.
stream_requests <- function(setup, n, start, use, finish, progress) {
  W <- plan_workers()
  shipped <- worker_globals(setup, progress)
  limit <- W + 1L
  active <- list() # requests started and not finished, in order
  ids <- integer() # their numbers
  pending <- list() # batches sent and not collected
  ready <- list() # batches collected (or computed here) and not used, by number
  ahead <- NULL # the next batch for a worker, its rows gathered
  n_made <- n_used <- started <- 0L
  collected <- integer()
  rate <- NA_real_ # seconds per stacked row, from the batches collected
  start_next <- function() {
    if (started >= n || length(active) >= limit) return(FALSE)
    started <<- started + 1L
    active[[length(active) + 1L]] <<- list(req = start(started), submitted = 0L, used = 0L)
    ids <<- c(ids, started)
    TRUE
  }
  # The first request under way with chunks not yet sent (NA: none).
  open_request <- function() Position(function(a) a$submitted < a$req$K, active)
  # The next batch (NULL: none can be made now): its chunks' rows gathered
  # for a worker, or, when the native or linear engine evaluates them all,
  # computed here and ready (then list(done = TRUE)).
  make_batch <- function() {
    repeat {
      a <- open_request()
      if (!is.na(a)) break
      if (!start_next()) return(NULL)
    }
    ks <- batch_chunks(setup, active, a, started < n, W)
    active[[a]]$submitted <<- ks[length(ks)]
    n_made <<- n_made + 1L
    b <- list(id = ids[a], req = active[[a]]$req, ks = ks, seq = n_made,
              chunks = lapply(ks, active[[a]]$req$make))
    if (all(vapply(b$chunks, function(specs) is_direct_chunk(setup, b$req, specs), logical(1)))) {
      ready[[as.character(b$seq)]] <<- evaluate_batch(setup, b)
      return(list(done = TRUE))
    }
    pack_batch(setup, b)
  }
  # Free workers get batches, the one made ahead first, until none is left
  # or one was computed here (it is used first).
  sending <- FALSE
  fill <- function() {
    while (length(pending) < W) {
      b <- ahead
      ahead <<- NULL
      if (is.null(b)) b <- make_batch()
      if (is.null(b) || isTRUE(b$done)) break
      # `sending` stays TRUE if an interrupt (or an error) cuts the send short.
      sending <<- TRUE
      pending[[length(pending) + 1L]] <<- send_batch(b, shipped)
      sending <<- FALSE
    }
    invisible()
  }
  on.exit(discard_futures(pending, cut = sending), add = TRUE)
  repeat {
    fill()
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
    # Every worker busy: the next batch is made while they predict.
    if (length(pending) >= W && is.null(ahead)) {
      b <- make_batch()
      if (!is.null(b)) {
        if (!isTRUE(b$done)) ahead <- b
        b <- NULL
        next
      }
    }
    if (!length(pending)) break
    i <- first_resolved(pending, rate)
    b <- pending[[i]]
    ys <- future::value(b$future)
    pending[[i]] <- NULL
    rate <- mean(c(rate[!is.na(rate)], (proc.time()[[3L]] - b$sent) / sum(b$n)))
    fill()
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
# and the packages to load. The function's globals are found once per call
# of an entry point (setup$call, its frame; the values they have then),
# not again for each of its runs of requests.
worker_globals <- function(setup, progress) {
  own <- is_default_predictor(setup$predict_function)
  fun <- list()
  if (!own) fun <- function_globals(setup)
  list(globals = c(list(model = setup$model, progress = progress), fun,
                   if (own) list(predict_function = NULL)),
       packages = worker_packages(setup$model))
}

# The predict function of a setup with the globals it refers to, kept for
# the entry point's call (a weak reference keyed on its frame: they go with
# it) and the same function.
function_globals <- function(setup) {
  key <- setup$call
  cached <- globals_cache$ref
  if (is.environment(key) && !is.null(cached) && identical(rlang::wref_key(cached), key)) {
    value <- rlang::wref_value(cached)
    if (identical(value$fun, setup$predict_function)) return(value$globals)
  }
  env <- list2env(list(predict_function = setup$predict_function), parent = emptyenv())
  fun <- future::getGlobalsAndPackages(quote(predict_function), envir = env, globals = TRUE)$globals
  fun <- as.list(fun)
  if (is.null(fun$predict_function)) fun$predict_function <- setup$predict_function
  if (is.environment(key)) {
    globals_cache$ref <- rlang::new_weakref(key, list(fun = setup$predict_function, globals = fun))
  }
  fun
}
globals_cache <- new.env(parent = emptyenv())

# A batch's chunks as the stacks of rows a worker predicts: the rows they
# need (not the stacked rows) and their jobs, with the plans that combine
# the jobs' predictions into each chunk's.
pack_batch <- function(setup, b) {
  plans <- lapply(b$chunks, function(specs) stack_plan(setup, specs))
  per_chunk <- vapply(plans, function(p) length(p$stacks), numeric(1))
  b$job <- job_rows(setup, unlist(lapply(plans, `[[`, "stacks"), recursive = FALSE))
  b$plans <- plans
  b$per_chunk <- per_chunk
  b$n <- b$job$n
  b$chunks <- NULL
  b
}

# A packed batch as a future: its chunks' stacks go to one worker, which
# reports progress per chunk.
send_batch <- function(b, shipped) {
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
    globals = c(shipped$globals, list(part = b$job$part, jobs = b$job$jobs,
                                      ends = cumsum(b$per_chunk), amount = amount)),
    packages = shipped$packages, seed = NULL, lazy = FALSE
  )
  # A launched future needs its globals no more, but keeps them until it is
  # collected: dropped, so that the rows of every future in flight do not
  # add to the main process's memory.
  if (is.environment(f) && is.character(f$state) && !identical(f$state, "created")) {
    f$globals <- NULL
  }
  b$future <- f
  b$job <- NULL
  b$remote <- TRUE
  b$sent <- proc.time()[[3L]]
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
# On the sockets of a cluster's workers (multisession, cluster), this waits
# on all of them at once: whichever worker sends first (a result, or a
# progress message, which resolved() reads) wakes it. Otherwise the oldest
# is waited for (on its worker's process, where the backend's resolved()
# can wait), and the others are checked in between: every 50 ms once one
# of them may be done (at `rate` seconds per stacked row, 80% of its time).
# With a backend whose resolved() does not wait (a scheduler's, mirai's),
# this sleeps until a future may be done, then checks ever less often (from
# 20 ms up to every second).
first_resolved <- function(pending, rate = NA_real_) {
  if (length(pending) == 1L) return(1L)
  cons <- worker_sockets(pending)
  if (!is.null(cons)) {
    i <- first_on_sockets(pending, cons)
    if (!is.na(i)) return(i)
  }
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

# The socket connections of the workers of `pending` (futures of a
# cluster backend, future >= 1.40), or NULL.
worker_sockets <- function(pending) {
  cons <- lapply(pending, function(b) {
    f <- b$future
    if (!inherits(f, "ClusterFuture") || !is.numeric(f[["node"]])) return(NULL)
    node <- tryCatch(f[["backend"]][["workers"]][[f[["node"]]]], error = function(e) NULL)
    con <- if (is.list(node)) node[["con"]]
    if (inherits(con, "sockconn")) con
  })
  if (!any(vapply(cons, is.null, logical(1)))) cons
}

# The first of `pending` to be resolved, waiting on their workers' sockets
# `cons` at once; NA when a socket cannot be waited on.
first_on_sockets <- function(pending, cons) {
  # (A result read before, with a progress message, is in already.)
  for (i in seq_along(pending)) {
    if (future::resolved(pending[[i]]$future, timeout = 0)) return(i)
  }
  repeat {
    has <- tryCatch(socketSelect(cons, write = FALSE, timeout = 1), error = function(e) NULL)
    if (length(has) != length(cons)) return(NA_integer_)
    for (i in which(has)) {
      if (future::resolved(pending[[i]]$future, timeout = 0)) return(i)
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
