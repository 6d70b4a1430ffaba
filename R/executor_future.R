# The executor under a future::plan(): the chunks of a call's requests as
# one stream of futures, on the future package's exported API only
# (future(), resolved(), value(), cancel(), resetWorkers(), nbrOfWorkers(),
# nbrOfFreeWorkers(), getGlobalsAndPackages()).
#
# A chunk's specifications are predicted as stacks of rows, one predict()
# call each in this process (R/executor.R); a future carries consecutive
# stacks (of one or several chunks, of one or several requests: one
# stream for the whole call), the first and last of them possibly pieces
# of a stack cut where the future's rows end, to a worker: the model, the
# predict function with the globals it refers to, the distinct background
# rows the stacks need and the profiled columns' values. The worker stacks
# and predicts them. Chunks are used in the order they were made, once all
# their stacks are in (a cut stack's pieces put together in order), so
# that the numbers are those of the sequential plan, whatever the plan and
# whichever future comes in first.
#
# Parallelism that never hurts: a call starts in this process, predicting
# stack after stack and timing them, and turns to the workers only when
# what is left of it gives two workers or more future_turn_trips round
# trips of work each (a round trip measured once per plan, plan_cost(),
# then from the call's futures); a cheap call stays here. A future
# carries the rows whose work keeps its round trip under
# future_overhead_share of it, as far as what is left allows. What a
# stream learnt (seconds per row, round trips) serves the entry point's
# next streams (keep_learnt()).
#
# The stream's state is one list (stream_new()) advanced by small steps
# (stream_requests()). Sending a future and reading one's value are not
# interrupted part way (suspendInterrupts()), so that no worker is left
# with half a message; on an interrupt or an error the futures in flight
# are cancelled (stream_abort()), which stops the workers of backends that
# can be interrupted (multisession, multicore, callr, mirai); future
# starts them again when they are next needed.

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

# Run requests 1..n as a stream (see execute(), which gives start(r),
# use(r, k, ys, n_made, ticked) and finish(r)). Returns the sequence
# numbers of the futures in the order they were collected.
stream_requests <- function(setup, n, start, use, finish, progress) {
  st <- stream_new(setup, n, progress)
  on.exit(stream_abort(st), add = TRUE)
  on.exit(keep_learnt(st), add = TRUE)
  repeat {
    action <- next_action(st)
    if (action == "done") break
    if (action == "send") {
      suspendInterrupts(st <- send_batch(st))
    } else if (action == "wait") {
      i <- first_resolved(st$pending, future_overhead(st))
      suspendInterrupts(st <- collect_batch(st, i))
    } else {
      st <- switch(action,
        finish = finish_request(st, finish),
        use = use_chunk(st, use),
        local = predict_here(st),
        make = make_chunk(st, start),
        prepare = prepare_batch(st, start),
        stall = stall(st)
      )
    }
  }
  st$collected
}

# The state of a stream: the requests under way (`active`, in order, each
# with the number of chunks made and used), the chunks made and not used
# (`chunks`, by key, used in the order `order`), the stacks waiting to be
# predicted (`queue`, of `queued_rows` stacked rows), the batch made for
# the next free worker (`ahead`),
# the futures in flight (`pending`), and what the stream learnt: seconds of
# prediction per stacked row (`busy` / `busy_rows`), the overheads of the
# futures collected. `parallel`: the stacks go to the workers (else they are
# predicted here).
stream_new <- function(setup, n, progress) {
  W <- plan_workers()
  forced <- future_overhead_option()
  learnt <- learnt_before(setup)
  list(setup = setup, n = n, W = W, limit = W + 1L, progress = progress,
       parallel = identical(forced, 0), forced = forced, cost = NULL, shipped = NULL,
       overheads = learnt$overheads, busy = learnt$busy, busy_rows = learnt$busy_rows,
       active = list(), started = 0L, sum_K = 0,
       chunks = list(), order = character(), n_chunks = 0L, made_rows = 0, made_units = 0L,
       queue = list(), queued_rows = 0, ahead = NULL, pending = list(), n_sent = 0L, collected = integer(),
       made = 0)
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
    if (st$busy_rows <= 0 && length(st$queue) < probe_pool * st$W && can_make(st)) return("make")
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

# ---- The cost of a plan's futures ------------------------------------------------------

# Per plan (keyed by the plan, plan_key(); the last few kept): the seconds of a
# future's round trip with nothing to do (`fixed`) and per byte it carries
# (`per_byte`), measured the first time a call considers the plan's
# workers.
plan_cost <- function() {
  key <- plan_key(future::plan("next"))
  for (e in plan_costs$entries) if (identical(e$plan, key, ignore.environment = TRUE)) return(e$cost)
  cost <- measure_plan_cost()
  plan_costs$entries <- c(list(list(plan = key, cost = cost)), utils::head(plan_costs$entries, 7L))
  cost
}
plan_costs <- new.env(parent = emptyenv())

# A plan as the key of its cost: its strategy and arguments, not the
# backend it started (the same plan set again starts new workers of the
# same kind) nor the call that set it.
plan_key <- function(plan) {
  attr(plan, "backend") <- NULL
  attr(plan, "call") <- NULL
  plan
}

# A future that does nothing, once to start the workers, then twice, timed
# (the faster); then one carrying future_probe_bytes, unless a round trip
# is already slow.
measure_plan_cost <- function() {
  round_trip <- function(payload) {
    t0 <- proc.time()[[3L]]
    suspendInterrupts(f <- future::future(quote(length(payload)), substitute = FALSE,
                                          globals = list(payload = payload), packages = character(),
                                          seed = NULL, lazy = FALSE))
    future::value(f)
    proc.time()[[3L]] - t0
  }
  first <- round_trip(NULL)
  if (first > future_slow_trip) return(list(fixed = first, per_byte = 0))
  fixed <- min(round_trip(NULL), round_trip(NULL))
  big <- round_trip(raw(future_probe_bytes))
  list(fixed = fixed, per_byte = max(0, big - fixed) / future_probe_bytes)
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
# one's progress; the predictions and the seconds they took.
predict_on_worker <- function(model, predict_function, part, jobs, amounts, progress) {
  t0 <- proc.time()[[3L]]
  if (is.null(predict_function)) predict_function <- default_predict_function(model)
  ys <- vector("list", length(jobs))
  for (i in seq_along(jobs)) {
    ys[[i]] <- predict_function(model, stack_job(part, jobs[[i]], 1L))
    if (!is.null(progress) && amounts[i] > 0) progress(amount = amounts[i])
  }
  list(ys = ys, seconds = proc.time()[[3L]] - t0)
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
