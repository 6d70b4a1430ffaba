# The executor under a future::plan(): the chunks of a call's requests as
# one stream of futures, on the future package's exported API only. A
# future carries consecutive stacks of rows (the first and last possibly
# pieces of a stack) to a worker, with the model, the predict function and
# its globals, the background rows the stacks need and the profiled
# columns' values. Chunks are used in the order they were made, once all
# their stacks are in, so the numbers are the sequential plan's. A call
# starts in this process, timing its stacks, and turns to the workers only
# when what is left is worth it (R/executor_cost.R). Sending a future and
# reading its value are not interrupted part way (suspendInterrupts()); on
# an interrupt or an error the futures in flight are cancelled.

# Workers of the current plan: 1 when it is sequential or the future
# package is absent (then it is not loaded either).
plan_workers <- function() {
  if (!"future" %in% loadedNamespaces() && !requireNamespace("future", quietly = TRUE)) return(1L)
  if (inherits(future::plan(), "sequential")) return(1L)
  w <- suppressWarnings(as.numeric(future::nbrOfWorkers()))
  if (length(w) != 1L || is.na(w) || w < 1) return(1L)
  as.integer(min(w, max_futures_in_flight))
}

# ---- The stream ---------------------------------------------------------------

# Run the requests of a run (new_run()) as a stream: the run's state, with
# `collected`, the futures' sequence numbers in the order collected.
stream_requests <- function(st) {
  st <- stream_new(st)
  on.exit(stream_abort(st), add = TRUE)
  on.exit(keep_learnt(st), add = TRUE)
  on.exit(keep_key(st), add = TRUE)
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
# cost model (`cost`) and what the futures carry (`shipped`). `parallel`:
# the stacks go to the workers (else they are predicted here). `key`: the
# model's on the workers when they keep it, and `carried`, the futures sent
# with it.
stream_new <- function(st) {
  cost <- new_cost(st$setup)
  W <- plan_workers()
  c(st, list(W = W, limit = W + 1L, parallel = identical(cost$forced, 0), cost = cost, shipped = NULL,
             key = NULL, carried = 0L, sum_K = 0, chunks = list(), order = character(), n_chunks = 0L,
             made_rows = 0, made_units = 0L, queue = list(), queued_rows = 0, ahead = NULL, pending = list(),
             n_sent = 0L, collected = integer()))
}

# What the stream does next, in order of precedence: send a batch made
# ahead to a free worker (a worker waits for nothing this process does);
# finish the first request once its chunks are used; use the first chunk
# once its stacks are in; then, with the workers, send a batch, make the
# next one while they predict, or wait for one to come in; without them,
# predict the next stack here, or make the next chunk.
next_action <- function(st) {
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
# package finds them, once per call of an entry point; the package's own
# predict function is made again on the worker, so that the model does not
# travel twice), the progressor, and the packages to load.
worker_globals <- function(setup, progress) {
  own <- is_default_predictor(setup$predict_function)
  fun <- if (own) list(predict_function = NULL) else function_globals(setup)
  list(globals = c(list(model = setup$model, progress = progress), fun),
       packages = worker_packages(setup$model))
}

# The predict function of a setup with the globals it refers to, kept for
# the entry point's call (globals_cache, R/executor_cost.R).
function_globals <- function(setup) {
  cached <- call_cache_get(globals_cache, setup$error_call)
  if (identical(cached$fun, setup$predict_function)) return(cached$globals)
  env <- list2env(list(predict_function = setup$predict_function), parent = emptyenv())
  fun <- as.list(future::getGlobalsAndPackages(quote(predict_function), envir = env, globals = TRUE)$globals)
  if (is.null(fun$predict_function)) fun$predict_function <- setup$predict_function
  call_cache_set(globals_cache, setup$error_call, list(fun = setup$predict_function, globals = fun))
  fun
}

# On a worker: each job's rows stacked and predicted, with its progress;
# the predictions, the seconds they took and when they started. With
# `key` (a stream whose workers keep its model, worker_keeps()), the model
# is kept here under it when it travelled, or taken from here when it did
# not (`model` NULL): when this worker does not hold it, list(miss = TRUE)
# says so and nothing is predicted.
predict_on_worker <- function(model, predict_function, part, jobs, amounts, progress, key = NULL) {
  if (!is.null(key)) {
    if (is.null(model)) {
      if (!identical(worker_model$key, key)) return(list(miss = TRUE))
      model <- worker_model$model
    } else {
      # (One model at a time: the last stream's.)
      worker_model$key <- key
      worker_model$model <- model
    }
  }
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

# CACHE (explicit, on a worker): the model of the last stream whose futures
# it ran with a key (predict_on_worker()), so that a model travels once
# to each worker of a call, not with each future. Key: the stream's
# (stream_key()); value: its model; one entry, replaced by the next
# stream's; held until then (a worker of a plan that keeps its workers is
# an R process of the user's). Only models of at most worker_model_bytes.
worker_model <- new.env(parent = emptyenv())

# This process, among those of any plan: its machine and process id.
worker_id <- function() paste(Sys.info()[["nodename"]], Sys.getpid())

# Does a stream's model travel once per worker? When the plan's workers are
# R processes that run one future after another (a cluster, as
# multisession's are; not forked or new processes, where each future
# starts afresh), and the model is large enough for its travel to count,
# and small enough to be left on the workers (worker_model_bytes).
worker_keeps <- function(bytes) {
  inherits(future::plan("next"), "cluster") &&
    bytes >= worker_model_least_bytes && bytes <= worker_model_bytes
}

# A key for a stream's model on the workers, unique among this process's
# streams and the processes that share the workers.
stream_key <- function() {
  worker_model$streams <- (worker_model$streams %||% 0) + 1
  paste(worker_id(), format(as.numeric(Sys.time()), digits = 15), worker_model$streams)
}

# The key of the model on the workers and the futures that carried it, kept
# for the entry point's call (key_cache), so that the call's next streams
# (the runs of h_statistic(), compare_profiles(), ...) find it there.
keep_key <- function(st) {
  if (!is.null(st$key)) {
    call_cache_set(key_cache, st$setup$error_call,
                   list(model = st$setup$model, key = st$key, carried = st$carried))
  }
  invisible()
}

# A stream's key: the last stream's of the call, for the same model, or a
# new one.
stream_key_of <- function(st) {
  kept <- call_cache_get(key_cache, st$setup$error_call)
  if (!is.null(kept) && identical(kept$model, st$setup$model)) return(kept[c("key", "carried")])
  list(key = stream_key(), carried = 0L)
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

# ---- Pieces of stacks, rows left, free workers ------------------------------------

# A piece of a stack predicted (`y`, its rows' predictions): once all of
# the stack's pieces are in, they are its predictions, in order, as
# predict() gives them for the whole stack.
place_piece <- function(st, u, y) {
  ch <- st$chunks[[u$chunk]]
  s <- u$s
  if (u$rows < u$total) {
    ch$ys[[s]] <- c(ch$ys[[s]], list(list(from = u$from, y = y)))
    ch$got[s] <- ch$got[s] + u$rows
    y <- if (ch$got[s] >= u$total) join_pieces(ch$ys[[s]], u$total)
  }
  if (!is.null(y)) {
    ch$ys[[s]] <- y
    ch$left <- ch$left - 1L
  }
  st$chunks[[u$chunk]] <- ch
  st
}

join_pieces <- function(pieces, total) {
  first <- pieces[[1L]]$y
  y <- matrix(0, total, ncol(first), dimnames = list(NULL, colnames(first)))
  for (p in pieces) y[p$from + seq_len(nrow(p$y)), ] <- p$y
  y
}

# Unit `u` (a stack or a piece of one) cut after its first `k` rows:
# list(head, rest), rest NULL when k covers it. Progress is shared in
# proportion.
split_unit <- function(u, k) {
  if (k >= u$rows) return(list(head = u, rest = NULL))
  head <- u
  head$rows <- k
  head$amount <- u$amount * k / u$rows
  rest <- u
  rest$from <- u$from + k
  rest$rows <- u$rows - k
  rest$amount <- u$amount - head$amount
  list(head = head, rest = rest)
}

# The stack specification of a unit: the stack's, or of its piece, rows
# from + 1 to from + rows.
piece_spec <- function(u) {
  if (u$rows == u$total) return(u$spec)
  i <- u$from + seq_len(u$rows)
  rows <- u$spec$rows
  rows <- if (is.null(rows)) as.integer(i) else slice_values(rows, i)
  stack_spec(rows, u$spec$cols, lapply(u$spec$values, slice_values, i = i))
}

# Elements `i` of a vector or a pattern (a pattern of one value stays one).
slice_values <- function(p, i) {
  if (!is_pattern(p)) return(p[i])
  base <- if (is.null(p$index)) p$x else p$x[p$index]
  if (length(base) == 1L) return(pattern(base, times = length(i)))
  base[((i - 1) %% (length(base) * p$each)) %/% p$each + 1]
}

# Rows of the next stack predicted here until enough was timed: under a
# plan of several workers, 1/probe_divisor of the call's rows (as far as
# known) first, then as many as were timed (the probes double), while the
# workers wait; the whole stack when that leaves less than as much again
# of it.
probe_rows <- function(st, u) {
  if (timed_enough(st$cost) || st$W <= 1L) return(u$rows)
  k <- max(1, ceiling(rows_left(st) / probe_divisor), st$cost$busy_rows)
  if (u$rows < 2 * k) u$rows else k
}

unit_rows <- function(units) vapply(units, `[[`, numeric(1), "rows")

request_at <- function(st, id) match(id, vapply(st$active, `[[`, numeric(1), "id"))

# Can a chunk be made (of a request under way, or of one started now, up
# to `limit` requests under way)?
can_make <- function(st) {
  any(vapply(st$active, function(a) a$made < a$req$K, logical(1))) ||
    (st$started < st$n && length(st$active) < st$limit)
}

# Stacked rows left to predict, and the stacks (calls of the predict
# function): those queued, and those of the chunks and requests still to
# make, at the rows (stacks) per chunk and chunks per request so far.
rows_left <- function(st) left_to_predict(st, st$queued_rows, st$made_rows)

calls_left <- function(st) left_to_predict(st, length(st$queue), st$made_units)

left_to_predict <- function(st, queued, made) {
  if (!st$n_chunks) return(queued)
  per_chunk <- made / st$n_chunks
  unmade <- sum(vapply(st$active, function(a) a$req$K - a$made, numeric(1)))
  per_request <- if (st$started) st$sum_K / st$started else 0
  queued + per_chunk * (unmade + (st$n - st$started) * per_request)
}

# What every future of the call carries (worker_globals()), found once,
# and its size for the cost model; when the workers keep the model
# (worker_keeps()), its key, and the model's size apart (`once`: it
# travels once to each worker).
with_shipped <- function(st) {
  if (!is.null(st$shipped)) return(st)
  st$shipped <- worker_globals(st$setup, st$progress)
  g <- st$shipped$globals
  # (The model measured once: a large one's size takes a walk through it.)
  model <- as.numeric(utils::object.size(g$model))
  bytes <- as.numeric(utils::object.size(g[names(g) != "model"]))
  if (worker_keeps(model)) {
    st[c("key", "carried")] <- stream_key_of(st)
    st$cost$once <- if (st$carried < st$W) model else 0
  } else {
    bytes <- bytes + model
  }
  st$cost$bytes <- bytes
  st
}

# Free workers of the plan (Inf when the backend cannot tell).
free_workers <- function() {
  n <- tryCatch(suppressWarnings(as.numeric(future::nbrOfFreeWorkers())), error = function(e) Inf)
  if (length(n) != 1L || is.na(n)) Inf else n
}

# The position in `pending` of a future that is resolved, polled with
# pauses growing from future_poll_pause[1] to future_poll_pause[2], or to
# future_poll_share of the time the first has been out (it is collected at
# most that share late, a delay its round trip learns), or to a tenth of a
# longer round trip `trip`; up to a second (a scheduler's resolved() asks
# the scheduler). A poll takes about half a millisecond of this process per
# future; resolved() also relays the workers' progress. (Polls are not put
# off until a future's work may be done at the rate timed: a collection put
# off too long would be learnt as the plan's round trip.)
first_resolved <- function(pending, trip = 0) {
  pause <- future_poll_pause[1L]
  sent <- min(vapply(pending, `[[`, numeric(1), "sent"))
  repeat {
    for (i in seq_along(pending)) {
      if (isTRUE(future::resolved(pending[[i]]$future, timeout = 0))) return(i)
    }
    Sys.sleep(pause)
    out <- proc.time()[[3L]] - sent
    pause <- min(pause * 1.5, max(future_poll_pause[2L], trip / 10, future_poll_share * out), 1)
  }
}

# Futures left when a run stops early (an error, an interrupt): cancelled,
# which interrupts them where the backend can (multisession, multicore,
# callr, mirai; a cluster plan with interrupts = TRUE) and frees their
# workers; those already resolved are collected (so that their
# cancellation is not reported later).
stream_abort <- function(st) {
  fs <- lapply(st$pending, `[[`, "future")
  if (!length(fs)) return(invisible())
  try(future::cancel(fs), silent = TRUE)
  for (f in fs) {
    if (isTRUE(tryCatch(future::resolved(f, timeout = 0), error = function(e) FALSE))) {
      tryCatch(suppressWarnings(future::value(f, signal = FALSE)), error = function(e) NULL)
    }
  }
  try(future::resetWorkers(future::plan()), silent = TRUE)
  invisible()
}
