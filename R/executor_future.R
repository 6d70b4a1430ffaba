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

# A future's round trip takes at most this share of the work it carries
# (where what is left of a call allows it).
future_overhead_share <- 0.05

# A call turns to the workers when what is left of it is worth at least
# this many round trips for each of two workers or more (at 4, 2 workers
# finish it 1.6 times faster than this process alone, as far as its
# predict() calls divide).
future_turn_trips <- 4

# A call's futures cost this many times the round trip of a future that
# does nothing (they load the package and stack rows on the worker, carry
# the predict function and a progressor: measured here, 2 to 3 times),
# until the call's own are in.
future_trip_factor <- 2

# Waiting for futures: pauses between polls, from the first to the longest.
future_poll_pause <- c(0.001, 0.02)

# The payload with which a plan's cost per byte is measured, and the round
# trip beyond which it is not (each future then costs more than its bytes).
future_probe_bytes <- 4 * 2^20
future_slow_trip <- 0.25

# Before a call's first stack is timed here, chunks are made until this
# many stacks per worker are queued (or the requests under way have no
# more), and the head of the smallest is timed: the workers wait for it.
probe_pool <- 4L

# The rows of that head: this share of the call's rows (so that the
# workers wait for 1/32 of the call at most, while a stack of tens of
# rows costs one more predict() call at most).
probe_divisor <- 32

# A stack is cut into pieces for the futures only where each keeps this
# many rows (a predict() call has its own cost).
future_min_piece <- 256

# Futures in flight at most (a scheduler's plan has unboundedly many
# workers).
max_futures_in_flight <- 32L

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
       gc_rows = 0)
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

# ---- Steps -------------------------------------------------------------------------

finish_request <- function(st, finish) {
  finish(st$active[[1L]]$id)
  st$active <- st$active[-1L]
  st
}

# The first chunk's predictions, combined per specification, to its
# request's reducer.
use_chunk <- function(st, use) {
  key <- st$order[1L]
  ch <- st$chunks[[key]]
  if (length(ch$todo)) ch$out[ch$todo] <- ch$combine(ch$ys)
  st$chunks[[key]] <- NULL
  st$order <- st$order[-1L]
  a <- request_at(st, ch$id)
  st$active[[a]]$used <- ch$k
  # Stacks report their progress (here or on the workers); a chunk without
  # stacks when it is used.
  use(ch$id, ch$k, structure(ch$out, n = ch$n), ch$n, ticked = !length(ch$todo))
  st
}

# The next chunk of the first request with chunks to make (or the next
# request started): what the native or linear engine gives is computed
# here at once, the rest queued as stacks.
make_chunk <- function(st, start) {
  a <- Position(function(x) x$made < x$req$K, st$active)
  if (is.na(a)) {
    st$started <- st$started + 1L
    req <- start(st$started)
    st$active[[length(st$active) + 1L]] <- list(id = st$started, req = req, made = 0L, used = 0L)
    st$sum_K <- st$sum_K + req$K
    return(st)
  }
  k <- st$active[[a]]$made + 1L
  st$active[[a]]$made <- k
  ch <- new_chunk(st$setup, st$active[[a]], k)
  st$n_chunks <- st$n_chunks + 1L
  key <- as.character(st$n_chunks)
  units <- lapply(ch$units, function(u) c(u, chunk = key))
  ch$units <- NULL
  st$chunks[[key]] <- ch
  st$order <- c(st$order, key)
  st$queue <- c(st$queue, units)
  st$queued_rows <- st$queued_rows + sum(unit_rows(units))
  st$made_rows <- st$made_rows + sum(unit_rows(units))
  st$made_units <- st$made_units + length(units)
  st
}

# Chunk k of a request under way: its specifications' predictions from the
# native or linear engine (`out`), and for the others (`todo`) the stacks
# to predict (`units`, each with its share of the chunk's progress) and
# combine(), which makes their matrices of the stacks' predictions (`ys`,
# `left` still to come). `n`: the predictions the chunk makes.
new_chunk <- function(setup, a, k) {
  req <- a$req
  specs <- req$make(k)
  out <- lapply(specs, function(s) direct_predictions(setup, req, s))
  todo <- which(vapply(out, is.null, logical(1)))
  n <- 0
  for (i in setdiff(seq_along(out), todo)) {
    n <- n + (attr(out[[i]], "n") %||% nrow(out[[i]]))
    attr(out[[i]], "n") <- NULL
  }
  ch <- list(id = a$id, k = k, out = out, todo = todo, combine = NULL, ys = list(),
             left = 0L, n = n, units = list())
  if (!length(todo)) return(ch)
  plan <- stack_plan(setup, specs[todo])
  rows <- vapply(plan$stacks, function(s) if (is.null(s$rows)) setup$n else pattern_length(s$rows),
                 numeric(1))
  amount <- req$weight / req$K / length(rows)
  ch$combine <- plan$combine
  ch$ys <- vector("list", length(rows))
  ch$got <- numeric(length(rows))
  ch$left <- length(rows)
  ch$n <- n + sum(rows)
  ch$units <- Map(function(s, i, r) list(s = i, spec = s, rows = r, from = 0, total = r, amount = amount),
                  plan$stacks, seq_along(rows), rows)
  ch
}

# The first stack in the queue predicted here (timed), unless the rest of
# the call is worth the workers. Before any was timed, under a plan of
# several workers: the head of the smallest stack, probe_rows() of it (the
# workers wait for it).
predict_here <- function(st) {
  st <- turn_parallel(st)
  if (st$parallel) return(st)
  i <- if (st$busy_rows > 0) 1L else which.min(unit_rows(st$queue))
  cut <- split_unit(st$queue[[i]], probe_rows(st, st$queue[[i]]))
  u <- cut$head
  if (is.null(cut$rest)) st$queue <- st$queue[-i] else st$queue[[i]] <- cut$rest
  st$queued_rows <- st$queued_rows - u$rows
  t0 <- proc.time()[[3L]]
  y <- predict_frame(st$setup, stack_job(st$setup$data, piece_spec(u), st$setup$threads))
  st$busy <- st$busy + (proc.time()[[3L]] - t0)
  st$busy_rows <- st$busy_rows + u$rows
  st <- place_piece(st, u, y)
  tick(st$progress, u$amount)
  # As the sequential executor: the garbage of the predict function's
  # chunks is collected once per gc_rows rows.
  st$gc_rows <- st$gc_rows + u$rows
  if (st$gc_rows >= (st$setup$gc_rows %||% Inf)) {
    y <- NULL
    gc(verbose = FALSE)
    st$gc_rows <- 0
  }
  st
}

# The stream turns to the workers when what is left of the call, at the
# seconds per row measured so far, gives two workers or more work of at
# least future_turn_trips round trips each.
turn_parallel <- function(st) {
  if (st$parallel || st$W <= 1L || st$busy_rows <= 0) return(st)
  left <- rows_left(st)
  # (No plan's round trip takes less than a millisecond: a call smaller
  # than that does not measure the plan.)
  if (st$busy / st$busy_rows * left < 2 * future_turn_trips * 0.001) return(st)
  if (is.null(st$forced) && !length(st$overheads) && is.null(st$cost)) st$cost <- plan_cost()
  # The plan's round trip alone first: what the futures carry (the
  # predict function's globals, found in tens of milliseconds) is looked
  # for only when that leaves the workers worth it.
  if (useful_workers(st, left) < 2L) return(st)
  st <- with_shipped(st)
  if (useful_workers(st, left) >= 2L) st$parallel <- TRUE
  st
}

# The workers that `left` rows keep busy: as many as get work of
# future_turn_trips round trips each (all of them when the round trip is
# taken as free, or before a row was timed). (Stacks are cut into pieces of
# any size, so the futures can carry that work, whatever the stacks.)
useful_workers <- function(st, left) {
  trip <- future_overhead(st)
  if (trip <= 0 || st$busy_rows <= 0 || st$busy <= 0) return(st$W)
  rate <- st$busy / st$busy_rows
  as.integer(max(1, min(st$W, floor(rate * left / (future_turn_trips * trip)))))
}

# The next batch for a worker (`ahead`): chunks are made until the queue
# holds a future's rows (future_rows()), then the stacks of a future taken
# from it (the last one cut to size), their rows gathered.
prepare_batch <- function(st, start) {
  st <- with_overhead(st)
  repeat {
    size <- future_rows(st)
    if ((length(st$queue) && st$queued_rows >= size[["target"]]) || !can_make(st)) break
    st <- make_chunk(st, start)
  }
  if (!length(st$queue)) return(st)
  if (!can_make(st)) {
    # Nothing more can be made now (the requests under way are all made,
    # or no more may start until the first is done): what is queued is
    # shared among the free workers.
    share <- st$queued_rows / max(1L, st$W - length(st$pending))
    size[["target"]] <- min(size[["target"]], share)
  }
  take <- take_units(st$queue, size, st$setup$per_future %||% 1L)
  units <- st$queue[seq_len(take[["whole"]])]
  if (take[["whole"]] > 0L) st$queue <- st$queue[-seq_len(take[["whole"]])]
  if (take[["cut"]] > 0) {
    cut <- split_unit(st$queue[[1L]], take[["cut"]])
    units <- c(units, list(cut$head))
    st$queue[[1L]] <- cut$rest
  }
  st$queued_rows <- st$queued_rows - sum(unit_rows(units))
  job <- job_rows(st$setup, lapply(units, piece_spec))
  st$ahead <- list(units = lapply(units, `[`, c("chunk", "s", "rows", "from", "total")), part = job$part,
                   jobs = job$jobs, amounts = vapply(units, `[[`, numeric(1), "amount"))
  st
}

# The stacks from the head of the queue that make a future of about
# size[["target"]] rows: c(whole, the number taken whole, cut, the rows
# cut from the next one, 0 for none). A stack is cut when both its pieces
# keep future_min_piece rows; else taken whole unless it would overshoot
# the target by as much as the future falls short of it, or more. At least
# one stack or piece; from at most `per_future` chunks (the setup's) once
# they hold size[["least"]] rows, which keep the round trip's share down;
# from at most max_chunks_per_future chunks.
take_units <- function(queue, size, per_future) {
  rows <- 0
  chunks <- character()
  take <- 0L
  for (u in queue) {
    if (!u$chunk %in% chunks) {
      if (length(chunks) >= max_chunks_per_future) break
      if (take > 0L && length(chunks) >= per_future && rows >= size[["least"]]) break
      chunks <- c(chunks, u$chunk)
    }
    need <- ceiling(size[["target"]] - rows)
    if (need >= future_min_piece && u$rows - need >= future_min_piece) {
      return(c(whole = take, cut = need))
    }
    if (take > 0L && rows + u$rows / 2 >= size[["target"]]) break
    take <- take + 1L
    rows <- rows + u$rows
    if (rows >= size[["target"]]) break
  }
  c(whole = take, cut = 0)
}

# The batch made ahead, as a future on a free worker. The worker finds
# predict_on_worker() in the package's namespace (an internal function is
# not a global that futures carry). seed = NULL: a predict() that draws
# random numbers (ranger's draws a seed) is not reported as misusing them.
send_batch <- function(st) {
  st <- with_shipped(st)
  b <- st$ahead
  # (The round trip counts from here: future() sends the globals.)
  sent <- proc.time()[[3L]]
  expr <- quote(get("predict_on_worker", envir = asNamespace("modelprofiles"))(
    model, predict_function, part, jobs, amounts, progress
  ))
  f <- future::future(
    expr, substitute = FALSE,
    globals = c(st$shipped$globals, list(part = b$part, jobs = b$jobs, amounts = b$amounts)),
    packages = st$shipped$packages, seed = NULL, lazy = FALSE
  )
  st$n_sent <- st$n_sent + 1L
  # When it may be done, at the seconds per row so far (80% of them).
  expected <- if (st$busy_rows > 0) 0.8 * st$busy / st$busy_rows * sum(unit_rows(b$units)) else 0
  st$pending[[length(st$pending) + 1L]] <- list(future = f, units = b$units, seq = st$n_sent,
                                                sent = sent, due = sent + expected)
  st$ahead <- NULL
  st
}

# The value of the resolved future `i` of those in flight: its stacks'
# predictions checked and placed, its worker's time learnt.
collect_batch <- function(st, i) {
  p <- st$pending[[i]]
  res <- future::value(p$future)
  st$pending <- st$pending[-i]
  rows <- unit_rows(p$units)
  st$overheads <- c(st$overheads, max(0, proc.time()[[3L]] - p$sent - res$seconds))
  st$busy <- st$busy + res$seconds
  st$busy_rows <- st$busy_rows + sum(rows)
  for (j in seq_along(p$units)) {
    st <- place_piece(st, p$units[[j]], check_chunk(st$setup, res$ys[[j]], rows[j]))
  }
  st$collected <- c(st$collected, p$seq)
  st
}

# Every worker busy with futures that are not the stream's: wait a moment.
stall <- function(st) {
  Sys.sleep(future_poll_pause[2L])
  st
}

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
# its frame, setup$call: it goes with the call), whose next runs of
# requests start from it: they need not predict here first to know that
# they are worth the workers.
keep_learnt <- function(st) {
  key <- st$setup$call
  if (!is.environment(key) || st$busy_rows <= 0) return(invisible())
  learnt_cache$ref <- rlang::new_weakref(key, st[c("busy", "busy_rows", "overheads")])
  invisible()
}

learnt_before <- function(setup) {
  none <- list(busy = 0, busy_rows = 0, overheads = numeric())
  key <- setup$call
  cached <- learnt_cache$ref
  if (!is.environment(key) || is.null(cached) || !identical(rlang::wref_key(cached), key)) return(none)
  rlang::wref_value(cached) %||% none
}
learnt_cache <- new.env(parent = emptyenv())

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
