# The steps of the executor's stream of futures (stream_requests() in
# R/executor_future.R): finish, use, make and predict chunks, batches of
# futures sent and collected.

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
  d <- direct_part(setup, req, specs)
  ch <- list(id = a$id, k = k, out = d$out, todo = d$todo, combine = NULL, ys = list(),
             left = 0L, n = d$n, units = list())
  if (!length(d$todo)) return(ch)
  plan <- stack_plan(setup, specs[d$todo])
  rows <- vapply(plan$stacks, function(s) if (is.null(s$rows)) setup$n else pattern_length(s$rows),
                 numeric(1))
  amount <- req$weight / req$K / length(rows)
  ch$combine <- plan$combine
  ch$ys <- vector("list", length(rows))
  ch$got <- numeric(length(rows))
  ch$left <- length(rows)
  ch$n <- d$n + sum(rows)
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
  # stacks is collected once it reaches gc_bytes (see chunk_garbage()).
  st$made <- st$made + u$rows * (st$setup$row_bytes %||% 0) + 4 * 8 * length(y)
  if (st$made >= (st$setup$gc_bytes %||% Inf)) {
    y <- NULL
    collect_garbage(st$made)
    st$made <- 0
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
  # than that does not measure the plan. A round trip set by the option
  # is not measured: the rule alone decides.)
  if (is.null(st$forced) && st$busy / st$busy_rows * left < 2 * future_turn_trips * 0.001) return(st)
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
