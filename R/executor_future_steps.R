# The steps of the executor's stream of futures (stream_requests(),
# R/executor_future.R): use, make and predict chunks, batches of futures
# sent and collected.

# The first chunk's predictions, combined per specification, to its
# request's reducer.
use_chunk <- function(st) {
  key <- st$order[1L]
  ch <- st$chunks[[key]]
  if (length(ch$todo)) ch$out[ch$todo] <- ch$combine(ch$ys)
  st$chunks[[key]] <- NULL
  st$order <- st$order[-1L]
  # (Stacks report their progress; a chunk without stacks when used.)
  use_predictions(st, request_at(st, ch$id), ch$k, structure(ch$out, n = ch$n), ch$n,
                  ticked = !length(ch$todo))
}

# The next chunk of the first request with chunks to make (or the next
# request started): the native or linear engine's part computed here at
# once, the rest queued as stacks.
make_chunk <- function(st) {
  a <- Position(function(x) x$made < x$req$K, st$active)
  if (is.na(a)) {
    st <- start_request(st)
    st$sum_K <- st$sum_K + st$active[[length(st$active)]]$req$K
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

# Chunk k of a request under way: the native or linear engine's
# predictions (`out`), and for the other specifications (`todo`) the
# stacks to predict (`units`, each with its share of the chunk's
# progress) and combine() of their predictions (`ys`, `left` still to
# come). `n`: the predictions the chunk makes.
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
# the call is worth the workers; before any was timed, the head of the
# smallest stack (probe_rows()).
predict_here <- function(st) {
  st <- turn_parallel(st)
  if (st$parallel) return(st)
  i <- if (st$cost$busy_rows > 0) 1L else which.min(unit_rows(st$queue))
  cut <- split_unit(st$queue[[i]], probe_rows(st, st$queue[[i]]))
  u <- cut$head
  if (is.null(cut$rest)) st$queue <- st$queue[-i] else st$queue[[i]] <- cut$rest
  st$queued_rows <- st$queued_rows - u$rows
  t0 <- proc.time()[[3L]]
  y <- predict_frame(st$setup, stack_job(st$setup$data, piece_spec(u), st$setup$threads))
  st$cost <- cost_learn(st$cost, proc.time()[[3L]] - t0, u$rows)
  st <- place_piece(st, u, y)
  tick(st$progress, u$amount)
  # (The garbage collected as the sequential executor's, add_garbage().)
  bytes <- chunk_bytes(st$setup, u$rows, length(y))
  y <- NULL
  add_garbage(st, bytes)
}

# The stream turns to the workers when what is left of the call, at the
# seconds per row and per call measured so far, keeps two workers or more
# busy (useful_workers()).
turn_parallel <- function(st) {
  if (st$parallel || st$W <= 1L || !timed_enough(st$cost)) return(st)
  left <- rows_left(st)
  calls <- calls_left(st)
  # (What the futures carry, found in tens of milliseconds, is looked for
  # only when the round trip without it leaves the workers worth it.)
  if (useful_workers(st$cost, st$W, left, calls) < 2L) return(st)
  st <- with_shipped(st)
  if (useful_workers(st$cost, st$W, left, calls) >= 2L) st$parallel <- TRUE
  st
}

# The next batch for a worker (`ahead`): chunks are made until the queue
# holds a future's rows (future_rows()), then the stacks of a future taken
# from it (the last one cut to size), their rows gathered.
prepare_batch <- function(st) {
  st <- with_shipped(st)
  repeat {
    size <- future_rows(st$cost, st$W, rows_left(st), calls_left(st))
    if ((length(st$queue) && st$queued_rows >= size[["target"]]) || !can_make(st)) break
    st <- make_chunk(st)
  }
  if (!length(st$queue)) return(st)
  if (!can_make(st)) {
    # (Nothing more can be made now: what is queued and what the futures in
    # flight have left to do is shared among the workers, so that they end
    # together; not all of it to the free one.)
    share <- min(st$queued_rows, (st$queued_rows + in_flight_rows(st)) / st$W)
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

# Rows the futures in flight have yet to predict, at the rate timed: each
# future's rows less those its worker had time for since it was sent (less
# a round trip).
in_flight_rows <- function(st) {
  rate <- cost_rate(st$cost)
  if (!length(st$pending) || rate <= 0) return(0)
  now <- proc.time()[[3L]]
  trip <- cost_trip(st$cost)
  sum(vapply(st$pending, function(p) max(0, sum(unit_rows(p$units)) - max(0, now - p$sent - trip) / rate),
             numeric(1)))
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
  st$ahead <- NULL
  launch(st, b)
}

# Batch b sent as a future. When the workers keep the model, it travels
# with the first W futures only (sent one after another as the stream
# turns to the workers, each goes to a worker of its own), and with a
# batch that asks (b$carry: its worker lacked it).
launch <- function(st, b) {
  globals <- c(st$shipped$globals, list(part = b$part, jobs = b$jobs, amounts = b$amounts, key = st$key))
  if (!is.null(st$key)) {
    if (st$carried < st$W || isTRUE(b$carry)) st$carried <- st$carried + 1L else globals["model"] <- list(NULL)
  }
  # (The round trip counts from here: future() sends the globals.)
  sent <- proc.time()[[3L]]
  expr <- quote(get("predict_on_worker", envir = asNamespace("modelprofiles"))(
    model, predict_function, part, jobs, amounts, progress, key
  ))
  f <- future::future(expr, substitute = FALSE, globals = globals, packages = st$shipped$packages, seed = NULL,
                      lazy = FALSE)
  st$n_sent <- st$n_sent + 1L
  st$pending[[length(st$pending) + 1L]] <- list(future = f, units = b$units, seq = st$n_sent, sent = sent,
                                                batch = if (!is.null(st$key)) b)
  st
}

# The resolved future `i` of those in flight: its stacks' predictions
# checked and placed, its worker's time learnt. A worker that did not hold
# the model (a new one) gets the batch again, with the model.
collect_batch <- function(st, i) {
  p <- st$pending[[i]]
  res <- future::value(p$future)
  st$pending <- st$pending[-i]
  if (isTRUE(res$miss)) return(launch(st, c(p$batch, list(carry = TRUE))))
  rows <- unit_rows(p$units)
  # (The setup on the worker's clock: from the start of the future's
  # evaluation to that of its work.)
  setup <- as.numeric(res$started) - as.numeric(future::result(p$future)$started %||% res$started)
  st$cost <- cost_learn(st$cost, res$seconds, sum(rows), trip = proc.time()[[3L]] - p$sent - res$seconds,
                        setup = setup, calls = length(rows))
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
