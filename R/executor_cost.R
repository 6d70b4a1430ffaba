# The executor's cost model: what a run of requests knows of the time its
# work takes, one object (new_cost()) that the stream of futures
# (R/executor_future*.R) holds as `st$cost` and updates as it learns;
# its constants are in R/constants.R.
#
# - `busy` / `busy_rows`: seconds of prediction per stacked row, timed on
#   the call's first stack here, then on the workers (each future reports
#   its own seconds);
# - `overheads`: the round trips of the call's futures collected (seconds
#   from sending a future to its value, less the worker's own seconds);
# - before the first of them is in, `prior`: the round trip the last call
#   under the same plan learnt (plan_trips), or else the backend's prior
#   (plan_prior()), plus future_trip_per_byte a byte that every future
#   carries (`bytes`, the model and the predict function): a call learns
#   the plan's cost from its own first futures, measuring nothing apart.
# - `forced`: the option modelprofiles.future_overhead, a round trip set by
#   the user (0: every stack goes to the workers).
#
# Rules: a call turns to the workers when what is left of it gives two
# workers or more future_turn_trips round trips of work each
# (useful_workers()); a future carries the rows whose work keeps its round
# trip under future_overhead_share of it, as far as what is left allows
# (future_rows()).

new_cost <- function(setup) {
  learnt <- learnt_before(setup)
  list(forced = future_overhead_option(), busy = learnt$busy, busy_rows = learnt$busy_rows,
       overheads = learnt$overheads, prior = plan_trip() %||% plan_prior(), bytes = 0)
}

# Seconds of prediction a stacked row takes (0 before any was timed).
cost_rate <- function(cost) {
  if (cost$busy_rows > 0 && cost$busy > 0) cost$busy / cost$busy_rows else 0
}

# `seconds` of prediction timed for `rows` stacked rows (here or on a
# worker); `trip`: a future's round trip, when they came from one.
cost_learn <- function(cost, seconds, rows, trip = NULL) {
  cost$busy <- cost$busy + seconds
  cost$busy_rows <- cost$busy_rows + rows
  if (!is.null(trip)) cost$overheads <- c(cost$overheads, max(0, trip))
  cost
}

# Seconds a future's round trip costs in this call: the option's, or the
# median of those collected, or the prior (its fixed part) and this call's
# bytes.
cost_trip <- function(cost) {
  if (!is.null(cost$forced)) return(cost$forced)
  if (length(cost$overheads)) return(stats::median(cost$overheads))
  cost$prior + future_trip_per_byte * cost$bytes
}

# The fixed part of a round trip of the current plan's futures, before
# any was timed: a scheduler's job (future.batchtools) waits in a queue,
# a callr future starts an R process; other backends' workers are
# running R processes.
plan_prior <- function() {
  p <- future::plan("next")
  if (inherits(p, "batchtools")) return(future_trip_prior[["scheduler"]])
  if (inherits(p, "callr")) return(future_trip_prior[["process"]])
  future_trip_prior[["workers"]]
}

# The workers (of W) that `left` stacked rows keep busy: as many as get
# work of future_turn_trips round trips each (all of them when the round
# trip is taken as free, or before a row was timed). (Stacks are cut into
# pieces of any size, so the futures can carry that work, whatever the
# stacks.)
useful_workers <- function(cost, W, left) {
  trip <- cost_trip(cost)
  rate <- cost_rate(cost)
  if (trip <= 0 || rate <= 0) return(W)
  as.integer(max(1, min(W, floor(rate * left / (future_turn_trips * trip)))))
}

# Rows of the next future: `least`, those whose work keeps the round trip
# at most future_overhead_share of it (or, towards the end, the share of
# what is left of each worker it keeps busy, so that none waits), and
# `target`, more while much is left (half of each such worker's share, so
# that the futures get smaller towards the end and the workers finish
# together).
future_rows <- function(cost, W, left) {
  W <- useful_workers(cost, W, left)
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

# ---- What calls learnt ---------------------------------------------------------------

# What a stream learnt (seconds of prediction per row, the round trips of
# its futures), kept for the entry point's call (a weak reference keyed on
# its frame, setup$error_call: it goes with the call), whose next runs of
# requests start from it: they need not predict here first to know that
# they are worth the workers. The fixed part of its shortest round trip is
# kept for the plan (keep_plan_trip()): the first future on a worker also
# loads the model's package there, which the next calls do not pay again.
keep_learnt <- function(st) {
  cost <- st$cost
  if (is.null(cost$forced) && length(cost$overheads)) {
    keep_plan_trip(max(0, min(cost$overheads) - future_trip_per_byte * cost$bytes))
  }
  key <- st$setup$error_call
  if (!is.environment(key) || cost$busy_rows <= 0) return(invisible())
  learnt_cache$ref <- rlang::new_weakref(key, cost[c("busy", "busy_rows", "overheads")])
  invisible()
}

learnt_before <- function(setup) {
  none <- list(busy = 0, busy_rows = 0, overheads = numeric())
  key <- setup$error_call
  cached <- learnt_cache$ref
  if (!is.environment(key) || is.null(cached) || !identical(rlang::wref_key(cached), key)) return(none)
  rlang::wref_value(cached) %||% none
}
# CACHE (explicit): what a call's streams learnt of the workers. Key: the
# entry point's frame (setup$error_call), held by a weak reference; value:
# keep_learnt()'s timings. One entry, replaced by the next call and gone
# with the call's frame; nothing to clear.
learnt_cache <- new.env(parent = emptyenv())

# The fixed part of the round trip (less future_trip_per_byte a byte it
# carried) of the futures of the last call under the current plan, or
# NULL.
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
# the plan (plan_key(): its strategy and arguments, so that the same plan
# set again, with new workers of the same kind, is the same key); value:
# the fixed part of the shortest round trip of the last call's futures
# under it (which replaces the one before: a plan whose cost changed is
# learnt again by its next call). At most max_plan_trips plans, the most recent
# first. Only the first futures of a call use it (to decide whether to
# turn to the workers and how much a future carries); nothing to clear
# (`plan_trips$entries <- NULL` forgets every plan, as a new session).
plan_trips <- new.env(parent = emptyenv())

# A plan as a key: its strategy and arguments, not the backend it started
# (the same plan set again starts new workers of the same kind) nor the
# call that set it.
plan_key <- function(plan) {
  attr(plan, "backend") <- NULL
  attr(plan, "call") <- NULL
  plan
}
