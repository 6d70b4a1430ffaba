# The executor's cost model, one object (new_cost()) that the stream of
# futures holds as `st$cost` and updates as it learns: `busy` seconds of
# prediction for `busy_rows` stacked rows in `calls` calls of the predict
# function (timed here on the call's first stack, then on the workers),
# `least` the fewest seconds a call took, `per_call` the setup's probe's;
# `overheads`, the round trips of the call's futures (from sending one to
# its value, less the worker's seconds), and `setups`, what the worker
# spent of each before its work; before the first is in, `prior` (the last
# call's under the plan, or the backend's) plus future_trip_per_byte a
# byte that every future carries (`bytes`); `once`, the bytes of a model
# that travels once to each worker (with_shipped()). `forced`: option
# modelprofiles.future_overhead.
new_cost <- function(setup) {
  learnt <- learnt_before(setup)
  c(learnt, list(forced = future_overhead_option(), per_call = setup$call_seconds %||% 0,
                 prior = plan_trip() %||% plan_prior(), bytes = 0, once = 0))
}

# Seconds of prediction a stacked row takes, predict()'s cost per call
# apart (0 before any was timed): counted as the rows', it can be many
# times their own (randomForest's: 12.5 ms a call, 2.1e-6 s a row) and
# send cheap calls to the workers.
cost_rate <- function(cost) {
  if (cost$busy_rows <= 0 || cost$busy <= 0) return(0)
  max(0, cost$busy - cost$calls * cost_call(cost)) / cost$busy_rows
}

# Seconds a call of the predict function costs besides its rows: the
# probe's (two rows cost little else), at most the fewest a call took.
cost_call <- function(cost) min(cost$per_call, cost$least)

# Has this process timed enough prediction to decide on the workers: at
# least a round trip's seconds, and future_least_timed unless the user set
# the round trip (option modelprofiles.future_overhead)? A stack of a few
# milliseconds is no measure on a busy machine (one slice of the processor
# lost to another process multiplies its seconds and sent a cheap call to
# the workers); until then the probes double.
timed_enough <- function(cost) {
  least <- if (is.null(cost$forced)) max(future_least_timed, cost_trip(cost)) else cost$forced
  cost$busy_rows > 0 && cost$busy >= least
}

# `seconds` of prediction timed for `rows` stacked rows in `calls` calls of
# the predict function (here or on a worker); `trip`: a future's round
# trip, when they came from one, of which the worker spent `setup` before
# its work.
cost_learn <- function(cost, seconds, rows, trip = NULL, setup = 0, calls = 1) {
  cost$busy <- cost$busy + seconds
  cost$busy_rows <- cost$busy_rows + rows
  cost$calls <- cost$calls + calls
  if (calls > 0) cost$least <- min(cost$least, seconds / calls)
  if (!is.null(trip)) {
    cost$overheads <- c(cost$overheads, max(0, trip))
    cost$setups <- c(cost$setups, min(max(0, trip), max(0, setup)))
  }
  cost
}

# Seconds a future's round trip costs in this call.
cost_trip <- function(cost) {
  if (!is.null(cost$forced)) return(cost$forced)
  if (length(cost$overheads)) return(stats::median(cost$overheads))
  cost$prior + future_trip_per_byte * cost$bytes
}

# The fixed part of a round trip of the plan's futures, before any was
# timed: a scheduler's job waits in a queue, a callr future starts an R
# process; other backends' workers are running R processes.
plan_prior <- function() {
  p <- future::plan("next")
  if (inherits(p, "batchtools")) return(future_trip_prior[["scheduler"]])
  if (inherits(p, "callr")) return(future_trip_prior[["process"]])
  future_trip_prior[["workers"]]
}

# The workers (of W) that `left` stacked rows in `calls` calls of the
# predict function keep busy: as many as get work of future_turn_trips
# round trips each, and of the model's travel to them when it goes once
# (all of them when the round trip is taken as free, or before a row was
# timed).
useful_workers <- function(cost, W, left, calls = 0) {
  trip <- cost_trip(cost)
  if (trip <= 0 || cost$busy_rows <= 0 || cost$busy <= 0) return(W)
  work <- cost_rate(cost) * left + cost_call(cost) * calls
  once <- if (is.null(cost$forced)) future_trip_per_byte * (cost$once %||% 0) else 0
  as.integer(max(1, min(W, floor(work / (future_turn_trips * trip + once)))))
}

# Rows of the next future: `least`, those whose work keeps the round trip
# at most future_overhead_share of it (or, towards the end, the share of
# what is left of each worker it keeps busy, so that none waits), and
# `target`, more while much is left (half of each such worker's share, so
# that the futures get smaller towards the end and the workers finish
# together).
future_rows <- function(cost, W, left, calls = 0) {
  W <- useful_workers(cost, W, left, calls)
  least <- 0
  rate <- cost_rate(cost)
  if (rate > 0) least <- min(cost_trip(cost) / future_overhead_share / rate, left / W)
  c(least = least, target = max(least, left / (2 * W)))
}

# option modelprofiles.future_overhead: seconds a future's round trip
# costs (0: every stack goes to the workers, as small as balance allows);
# NULL (the default) learns it from the call's futures.
future_overhead_option <- function() {
  x <- getOption("modelprofiles.future_overhead")
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x >= 0) as.numeric(x)
}

# What a stream learnt, kept for the entry point's call (whose next runs
# of requests need not time a stack here first), and for the plan the
# fixed part of its shortest round trip less the worker's setup (a call's
# first future on a worker attaches the packages there, which the next
# calls do not pay again; with as many futures as workers, each does).
keep_learnt <- function(st) {
  cost <- st$cost
  if (is.null(cost$forced) && length(cost$overheads)) {
    keep_plan_trip(max(0, min(cost$overheads - cost$setups) - future_trip_per_byte * cost$bytes))
  }
  if (cost$busy_rows > 0) {
    call_cache_set(learnt_cache, st$setup$error_call,
                   cost[c("busy", "busy_rows", "calls", "least", "overheads", "setups")])
  }
  invisible()
}

learnt_before <- function(setup) {
  call_cache_get(learnt_cache, setup$error_call) %||%
    list(busy = 0, busy_rows = 0, calls = 0, least = Inf, overheads = numeric(), setups = numeric())
}

# CACHES (explicit) of a call: learnt_cache, what its streams learnt of the
# workers (keep_learnt()), globals_cache, its predict function's globals
# (function_globals(), R/executor_future.R), and key_cache, the key of its
# model on the workers (keep_key(), R/executor_future.R). Key: the entry
# point's frame (setup$error_call), held by a weak reference; one entry each,
# replaced by the next call and gone with the call's frame; nothing to
# clear (see the section "Caches" of ?compile_model).
learnt_cache <- new.env(parent = emptyenv())
globals_cache <- new.env(parent = emptyenv())
key_cache <- new.env(parent = emptyenv())

# The value kept in `cache` for the call whose frame is `key`, or NULL.
call_cache_get <- function(cache, key) {
  ref <- cache$ref
  if (is.environment(key) && !is.null(ref) && identical(rlang::wref_key(ref), key)) rlang::wref_value(ref)
}

call_cache_set <- function(cache, key, value) {
  if (is.environment(key)) cache$ref <- rlang::new_weakref(key, value)
  invisible()
}

# The fixed part of the round trip of the last call's futures under the
# current plan, or NULL.
plan_trip <- function() {
  key <- plan_key(future::plan("next"))
  for (e in plan_trips$entries) if (identical(e$plan, key, ignore.environment = TRUE)) return(e$trip)
  NULL
}

keep_plan_trip <- function(trip) {
  key <- plan_key(future::plan("next"))
  keep <- Filter(function(e) !identical(e$plan, key, ignore.environment = TRUE), plan_trips$entries)
  plan_trips$entries <- c(list(list(plan = key, trip = trip)), utils::head(keep, max_plan_trips - 1L))
  invisible()
}
# CACHE (explicit, for the session): the round trips learnt per plan. Key:
# plan_key() (the same plan set again is the same key); value: the fixed
# part of the shortest round trip of the last call's futures under it. At
# most max_plan_trips plans, the most recent first; read only for a call's
# first futures; `plan_trips$entries <- NULL` forgets them all.
plan_trips <- new.env(parent = emptyenv())

# A plan as a key: its strategy and arguments, not the backend it started
# (the same plan set again starts new workers of the same kind) nor the
# call that set it.
plan_key <- function(plan) {
  attr(plan, "backend") <- NULL
  attr(plan, "call") <- NULL
  plan
}
