# Helpers of the executor's stream of futures (R/executor_future.R):
# pieces of stacks, rows left, what futures carry, free workers, the end
# of a stream.

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
  if (st$cost$busy_rows > 0 || st$W <= 1L) return(u$rows)
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

# What every future of the call carries (worker_globals()), found once,
# and its size, for the cost model.
with_shipped <- function(st) {
  if (!is.null(st$shipped)) return(st)
  st$shipped <- worker_globals(st$setup, st$progress)
  st$cost$bytes <- as.numeric(utils::object.size(st$shipped$globals))
  st
}

# Free workers of the plan (Inf when the backend cannot tell).
free_workers <- function() {
  n <- tryCatch(suppressWarnings(as.numeric(future::nbrOfFreeWorkers())), error = function(e) Inf)
  if (length(n) != 1L || is.na(n)) Inf else n
}

# The position in `pending` of a future that is resolved: they are polled
# with pauses from future_poll_pause[1] growing to future_poll_pause[2],
# or to future_poll_share of the time the first has been out (so that it
# is collected at most that share of its time late, the delay that its
# round trip learns), or, for a plan whose round trip `trip` is longer, to
# a tenth of it; up to a second (a scheduler's resolved() asks the
# scheduler). A poll of resolved() takes about half a millisecond of this
# process per future, which the workers' cores would otherwise have.
# resolved() also relays the workers' progress. (Polls are not put off
# until a future's work may be done, at the seconds per row timed: that
# rate, timed on a small stack, counts predict()'s cost per call as if it
# were per row, up to several times the rate of a future's larger stacks,
# and a collection put off so long was learnt as the plan's round trip.)
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
