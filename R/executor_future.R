# The executor under a future::plan(): the chunks of a call's requests as
# one stream of futures, on the future package's exported API only
# (future(), resolved(), value(), cancel(), resetWorkers(), nbrOfWorkers(),
# nbrOfFreeWorkers(), getGlobalsAndPackages()).
#
# A future carries consecutive stacks of rows (of one or several chunks and
# requests: one stream for the whole call; the first and last possibly
# pieces of a stack) to a worker, with the model, the predict function and
# its globals, the background rows the stacks need and the profiled
# columns' values; the worker stacks and predicts them. Chunks are used in
# the order they were made, once all their stacks are in, so the numbers
# are the sequential plan's. A call starts in this process, timing its
# stacks, and turns to the workers only when what is left is worth it (the
# cost model, R/executor_cost.R). The state is the run's (new_run(),
# R/executor.R), extended by stream_new() and advanced by small steps.
# Sending a future and reading its value are not interrupted part way
# (suspendInterrupts()); on an interrupt or an error the futures in flight
# are cancelled (stream_abort()), which stops the workers of backends that
# can be interrupted; future starts them again when next needed.

# Number of workers of the current plan, or 1 when it is sequential or the
# future package is absent (then it is not loaded either).
plan_workers <- function() {
  if (!"future" %in% loadedNamespaces() && !requireNamespace("future", quietly = TRUE)) return(1L)
  if (inherits(future::plan(), "sequential")) return(1L)
  w <- suppressWarnings(as.numeric(future::nbrOfWorkers()))
  if (length(w) != 1L || is.na(w) || w < 1) return(1L)
  as.integer(min(w, max_futures_in_flight))
}

# ---- The stream ---------------------------------------------------------------

# Run the requests of a run (new_run()) as a stream: the run's state,
# with `collected`, the sequence numbers of the futures in the order they
# were collected.
stream_requests <- function(st) {
  st <- stream_new(st)
  on.exit(stream_abort(st), add = TRUE)
  on.exit(keep_learnt(st), add = TRUE)
  repeat {
    action <- next_action(st)
    if (action == "done") break
    if (action == "send") {
      suspendInterrupts(st <- send_batch(st))
    } else if (action == "wait") {
      i <- first_resolved(st$pending, cost_trip(st$cost))
      suspendInterrupts(st <- collect_batch(st, i))
    } else {
      st <- switch(action,
        finish = finish_request(st),
        use = use_chunk(st),
        local = predict_here(st),
        make = make_chunk(st),
        prepare = prepare_batch(st),
        stall = stall(st)
      )
    }
  }
  st
}

# The stream's part of the state: the chunks made and not used
# (`chunks`, by key, used in the order `order`), the stacks waiting to be
# predicted (`queue`, of `queued_rows` stacked rows), the batch made for
# the next free worker (`ahead`), the futures in flight (`pending`), the
# cost model (`cost`, R/executor_cost.R) and what the futures carry
# (`shipped`). `parallel`: the stacks go to the workers (else they are
# predicted here). (The requests under way, `active`, also count the
# chunks made of each.)
stream_new <- function(st) {
  cost <- new_cost(st$setup)
  W <- plan_workers()
  c(st, list(W = W, limit = W + 1L, parallel = identical(cost$forced, 0), cost = cost, shipped = NULL,
             sum_K = 0, chunks = list(), order = character(), n_chunks = 0L, made_rows = 0,
             made_units = 0L, queue = list(), queued_rows = 0, ahead = NULL, pending = list(),
             n_sent = 0L, collected = integer()))
}

# What the stream does next, in order of precedence: finish the first
# request once its chunks are used; use the first chunk once its stacks
# are in; then, with the workers, send a batch to a free worker, make the
# next one while they predict, or wait for one to come in; without them,
# predict the next stack here, or make the next chunk.
next_action <- function(st) {
  # (A worker waits for nothing that this process does: a batch made
  # ahead goes out first.)
  if (st$parallel && !is.null(st$ahead) && length(st$pending) < st$W && free_workers() >= 1) return("send")
  if (length(st$active) && st$active[[1L]]$used == st$active[[1L]]$req$K) return("finish")
  if (length(st$order) && st$chunks[[st$order[1L]]]$left == 0L) return("use")
  if (!st$parallel) {
    # (Before the first stack is timed, chunks are made ahead so that the
    # smallest of their stacks is the one timed.)
    if (st$cost$busy_rows <= 0 && length(st$queue) < probe_pool * st$W && can_make(st)) return("make")
    if (length(st$queue)) return("local")
    if (can_make(st)) return("make")
    return(stream_end(st))
  }
  more <- length(st$queue) > 0L || can_make(st)
  if (length(st$pending) < st$W) {
    if (!is.null(st$ahead)) {
      if (free_workers() >= 1) return("send")
      # (Every worker busy with futures that are not the stream's.)
      return(if (length(st$pending)) "wait" else "stall")
    }
    if (more) return("prepare")
  } else if (is.null(st$ahead) && more) {
    return("prepare")
  }
  if (length(st$pending)) return("wait")
  stream_end(st)
}

# Nothing left to do: the end of the stream, once every request is done.
stream_end <- function(st) {
  if (length(st$active) || length(st$order) || st$started < st$n) {
    stop("internal error: the stream of requests stalled", call. = FALSE)
  }
  "done"
}

# ---- What travels ----------------------------------------------------------------------

# The globals every future of a call carries: the model and the predict
# function, with the globals the function refers to (found as the future
# package finds them; the package's own predict function is made again on
# the worker, so that the model does not travel twice), the progressor,
# and the packages to load. The function's globals are found once per call
# of an entry point (setup$error_call, its frame; the values they have then),
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
  key <- setup$error_call
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
# CACHE (explicit): the predict function's globals, for the runs of
# requests of one call. Key: the entry point's frame (setup$error_call),
# held by a weak reference; value: list(fun, globals), used only while
# `fun` is the setup's predict function. One entry: the next call replaces
# it, and it goes with the call's frame; nothing to clear (see the section
# "Caches" of ?compile_model).
globals_cache <- new.env(parent = emptyenv())

# On a worker: stack each job's rows and predict them, reporting each
# one's progress; the predictions, the seconds they took and when they
# started.
predict_on_worker <- function(model, predict_function, part, jobs, amounts, progress) {
  started <- Sys.time()
  t0 <- proc.time()[[3L]]
  if (is.null(predict_function)) predict_function <- default_predict_function(model)
  ys <- vector("list", length(jobs))
  for (i in seq_along(jobs)) {
    ys[[i]] <- predict_function(model, stack_job(part, jobs[[i]], 1L))
    if (!is.null(progress) && amounts[i] > 0) progress(amount = amounts[i])
  }
  list(ys = ys, seconds = proc.time()[[3L]] - t0, started = started)
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
