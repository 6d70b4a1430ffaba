# Helpers of the executor's stream of futures (R/executor_future.R):
# pieces of stacks, rows left, overheads, free workers, the end of a stream.

# ---- Helpers ------------------------------------------------------------------------

# A piece of a stack predicted (`y`, its rows' predictions): once all of
# the stack's pieces are in, they are its predictions, in order, as
# predict() gives them for the whole stack.
place_piece <- function(st, u, y) {
  ch <- st$chunks[[u$chunk]]
  s <- u$s
  if (u$rows == u$total) {
    ch$ys[[s]] <- y
  } else {
    ch$ys[[s]] <- c(ch$ys[[s]], list(list(from = u$from, y = y)))
    ch$got[s] <- ch$got[s] + u$rows
    if (ch$got[s] < u$total) {
      st$chunks[[u$chunk]] <- ch
      return(st)
    }
    ch$ys[[s]] <- join_pieces(ch$ys[[s]], u$total)
  }
  ch$left <- ch$left - 1L
  st$chunks[[u$chunk]] <- ch
  st
}

join_pieces <- function(pieces, total) {
  first <- pieces[[1L]]$y
  y <- matrix(0, total, ncol(first), dimnames = list(NULL, colnames(first)))
  for (p in pieces) y[p$from + seq_len(nrow(p$y)), ] <- p$y
  y
}

# Unit `u` (a stack or a piece of one) cut after its first `k` rows: list(head,
# rest), rest NULL when k covers it. Progress is shared in proportion.
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

# Rows of the first stack predicted here before any was timed: under a
# plan of several workers, 1/probe_divisor of the rows of the call (as far
# as they are known), while the workers wait; the whole stack when that
# leaves less than as much again of it (or no workers).
probe_rows <- function(st, u) {
  if (st$busy_rows > 0 || st$W <= 1L) return(u$rows)
  k <- max(1, ceiling(rows_left(st) / probe_divisor))
  if (u$rows < 2 * k) u$rows else k
}

unit_rows <- function(units) vapply(units, `[[`, numeric(1), "rows")

request_at <- function(st, id) match(id, vapply(st$active, `[[`, numeric(1), "id"))

# Can a chunk be made (of a request under way, or of one started now, up
# to W + 1 requests under way)?
can_make <- function(st) {
  any(vapply(st$active, function(a) a$made < a$req$K, logical(1))) ||
    (st$started < st$n && length(st$active) < st$limit)
}

# Stacked rows left to predict (not yet sent): those queued, and, at the
# rows per chunk and chunks per request so far, those of the chunks and
# requests still to make.
rows_left <- function(st) {
  queued <- st$queued_rows
  if (!st$n_chunks) return(queued)
  per_chunk <- st$made_rows / st$n_chunks
  unmade <- sum(vapply(st$active, function(a) a$req$K - a$made, numeric(1)))
  per_request <- if (st$started) st$sum_K / st$started else 0
  queued + per_chunk * (unmade + (st$n - st$started) * per_request)
}

# Rows of the next future: `least`, those whose work keeps the round trip
# at most future_overhead_share of it (or, towards the end, the share of
# what is left of each worker it keeps busy, so that none waits), and
# `target`, more while much is left (half of each such worker's share, so
# that the futures get smaller towards the end and the workers finish
# together).
future_rows <- function(st) {
  left <- rows_left(st)
  W <- useful_workers(st, left)
  least <- 0
  if (st$busy_rows > 0 && st$busy > 0) {
    least <- future_overhead(st) / future_overhead_share / (st$busy / st$busy_rows)
    least <- min(least, left / W)
  }
  c(least = least, target = max(least, left / (2 * W)))
}

# Seconds a future's round trip costs in this call: the option's, or the
# median of those collected, or, from the plan's round trip and its cost
# for the bytes that every future carries, future_trip_factor times that.
future_overhead <- function(st) {
  if (!is.null(st$forced)) return(st$forced)
  if (length(st$overheads)) return(stats::median(st$overheads))
  if (is.null(st$cost)) return(0)
  future_trip_factor * (st$cost$fixed + st$cost$per_byte * (st$shipped_bytes %||% 0))
}

with_overhead <- function(st) {
  if (!is.null(st$forced) || length(st$overheads)) return(st)
  st <- with_shipped(st)
  if (is.null(st$cost)) st$cost <- plan_cost()
  st
}

# option modelprofiles.future_overhead: seconds a future's round trip
# costs (0: every stack goes to the workers, as small as balance allows);
# NULL (the default) measures it once per plan.
future_overhead_option <- function() {
  x <- getOption("modelprofiles.future_overhead")
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x >= 0) as.numeric(x)
}

with_shipped <- function(st) {
  if (!is.null(st$shipped)) return(st)
  st$shipped <- worker_globals(st$setup, st$progress)
  st$shipped_bytes <- as.numeric(utils::object.size(st$shipped$globals))
  st
}

# Free workers of the plan (Inf when the backend cannot tell).
free_workers <- function() {
  n <- tryCatch(suppressWarnings(as.numeric(future::nbrOfFreeWorkers())), error = function(e) Inf)
  if (length(n) != 1L || is.na(n)) Inf else n
}

# The position in `pending` of a future that is resolved. Until the first
# of them may be done (`due`), this sleeps (a second at a time); then it
# polls them with pauses from future_poll_pause[1] growing to
# future_poll_pause[2] (or, for a plan whose round trip `trip` is longer,
# to a tenth of it, up to a second: a scheduler's resolved() asks the
# scheduler). A poll of resolved() takes about half a millisecond of this
# process per future, which the workers' cores would otherwise have.
# resolved() also relays the workers' progress.
first_resolved <- function(pending, trip = 0) {
  pause <- future_poll_pause[1L]
  longest <- min(1, max(future_poll_pause[2L], trip / 10))
  due <- min(vapply(pending, function(p) p$due %||% 0, numeric(1)))
  repeat {
    for (i in seq_along(pending)) {
      if (isTRUE(future::resolved(pending[[i]]$future, timeout = 0))) return(i)
    }
    early <- due - proc.time()[[3L]]
    if (early > pause) {
      Sys.sleep(min(1, early))
    } else {
      Sys.sleep(pause)
      pause <- min(longest, pause * 1.5)
    }
  }
}

# Futures left when a run stops early (an error, an interrupt): cancelled,
# which interrupts them where the backend can (multisession, multicore,
# callr, mirai; a cluster plan with interrupts = TRUE) and frees their
# workers, which future starts again when they are next needed. Those
# already resolved are collected (so that their cancellation is not
# reported later); a worker that cannot be interrupted finishes its future
# first.
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

# What a stream learnt (seconds of prediction per row, the overheads of
# its futures), kept for the entry point's call (a weak reference keyed on
# its frame, setup$error_call: it goes with the call), whose next runs of
# requests start from it: they need not predict here first to know that
# they are worth the workers.
keep_learnt <- function(st) {
  key <- st$setup$error_call
  if (!is.environment(key) || st$busy_rows <= 0) return(invisible())
  learnt_cache$ref <- rlang::new_weakref(key, st[c("busy", "busy_rows", "overheads")])
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
