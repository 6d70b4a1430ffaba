# The executor: the code that predicts the profiles.
#
# Estimators describe what they need as requests: chunks of rows to
# predict, a reducer that turns each chunk's predictions into updates of
# named accumulators, and a finisher that turns these into the estimate.
# execute() runs the requests in order, in this process (the sequential
# plan, and every chunk the native or linear engine evaluates) or as a
# stream of futures (R/executor_future.R). Chunks are the same under every
# plan, and reduced in order, so the numbers are too.

# ---- Requests -------------------------------------------------------------------

# A request: `n_chunks` chunks; make(k) gives chunk k's specifications,
# reduce(k, ys) the updates for their predictions `ys` (one matrix per
# specification, a column per profiled output): a named list whose
# elements are added to the accumulators of those names, or placed into
# them (place()). init() makes the accumulators, finish(acc) the result.
# `native`, `linear`: the native engine may stand in for predict(), the
# linear one give ICE curves. `weight`: progress steps of the request.
new_request <- function(n_chunks, make, reduce, init = function() list(),
                        finish = function(acc) acc, native = TRUE, linear = FALSE,
                        weight = 1) {
  structure(list(K = as.integer(n_chunks), make = make, reduce = reduce, init = init,
                 finish = finish, native = native, linear = linear, weight = weight),
            class = "mp_request")
}

# A result that needs no predictions, as a request.
known_request <- function(value, weight = 1) {
  new_request(0L, NULL, NULL, finish = function(acc) value, weight = weight)
}

# Stacked rows: background rows `rows` (1-based; a vector, a pattern, or NULL
# for all of them in order) with columns `cols` set to `values` (one vector
# or pattern per column, one value per stacked row).
stack_spec <- function(rows, cols = integer(), values = list()) {
  list(kind = "stack", rows = rows, cols = as.integer(cols), values = values)
}

# ICE curves: each of the background rows `rows` (1-based) with columns
# `cols` set to each row of `grid` (a list of G values per column). Their
# predictions come observation-major (row i's G predictions consecutive),
# whatever the order they were made in: "observation" (stacked so) or
# "grid" (one block of rows per grid value, sharing the other columns).
curve_spec <- function(rows, cols, grid, order = "observation") {
  list(kind = "curve", rows = rows, cols = as.integer(cols), grid = grid, order = order)
}

# Weighted sums over background rows `rows` (weights w) of the predictions
# with columns `cols` (one or two) set to each of `grid` (a list of G values
# per column): a G x outputs matrix, from the native engine only.
sums_spec <- function(rows, cols, grid, w) {
  list(kind = "sums", rows = rows, cols = as.integer(cols), grid = grid, w = w)
}

# An update that places `value` at `at` along dimension `dim` (1: rows of a
# matrix; 2: the second dimension of a G x n x outputs array).
place <- function(value, at, dim = 1L) {
  structure(list(value = value, at = at, dim = dim), class = "mp_place")
}

# ---- Running requests ------------------------------------------------------------

# Run `requests` (or functions that make one when it starts) in order:
# their results, attribute "n_predictions" (per request).
execute <- function(setup, requests, progress = NULL) {
  st <- new_run(setup, requests, progress)
  st <- if (plan_workers() <= 1L) run_here(st) else stream_requests(st)
  structure(st$results, n_predictions = st$counts, collected = st$collected)
}

# The state of a run, one value that the steps below and the stream's
# take and return: results, predictions counted, the requests under way
# (`active`: request, accumulators, chunks made and used), the garbage
# left (bytes). Accumulators are the one mutable part (an environment per
# request): in a value, one as long as the background would be copied for
# every chunk.
new_run <- function(setup, requests, progress) {
  n <- length(requests)
  list(setup = setup, requests = requests, n = n, progress = progress,
       results = vector("list", n), counts = numeric(n), active = list(), started = 0L,
       garbage = 0)
}

# Every request in this process, chunk after chunk (the sequential plan).
run_here <- function(st) {
  for (r in seq_len(st$n)) {
    st <- start_request(st)
    req <- st$active[[1L]]$req
    for (k in seq_len(req$K)) {
      ys <- evaluate_chunk(st$setup, req, req$make(k))
      st <- use_predictions(st, 1L, k, ys, attr(ys, "n"))
      bytes <- chunk_garbage(st$setup, ys)
      ys <- NULL # (collectable)
      st <- add_garbage(st, bytes)
    }
    st <- finish_request(st)
  }
  st
}

# The next request started (made, when a function), after the others.
start_request <- function(st) {
  st$started <- r <- st$started + 1L
  req <- st$requests[[r]]
  if (is.function(req)) req <- req()
  st$active[[length(st$active) + 1L]] <- list(id = r, req = req, made = 0L, used = 0L,
                                              acc = list2env(req$init(), parent = emptyenv()))
  st
}

# Chunk k's predictions `ys` (n_made) to the reducer of the request under
# way at `a`. `ticked`: progress reported here (else from the workers).
use_predictions <- function(st, a, k, ys, n_made, ticked = TRUE) {
  run <- st$active[[a]]
  st$counts[run$id] <- st$counts[run$id] + n_made
  st$active[[a]]$used <- k
  upd <- run$req$reduce(k, ys)
  acc <- run$acc
  for (nm in names(upd)) {
    u <- upd[[nm]]
    x <- acc[[nm]]
    acc[[nm]] <- NULL
    if (!inherits(u, "mp_place")) {
      x <- x + u
    } else if (u$dim == 1L) {
      x[u$at, ] <- u$value
    } else {
      x[, u$at, ] <- u$value
    }
    acc[[nm]] <- x
  }
  if (ticked) tick(st$progress, run$req$weight / run$req$K)
  st
}

# The first request under way, its chunks all used, finished.
finish_request <- function(st) {
  run <- st$active[[1L]]
  st$results[run$id] <- list(run$req$finish(as.list(run$acc, all.names = TRUE)))
  if (run$req$K == 0L) tick(st$progress, run$req$weight)
  st$active <- st$active[-1L]
  st
}

# The chunks' garbage (`bytes` more), collected once it fills gc_bytes
# (chunk_policy()): R would keep the garbage of many chunks otherwise.
add_garbage <- function(st, bytes) {
  st$garbage <- st$garbage + bytes
  if (st$garbage >= (st$setup$gc_bytes %||% Inf)) {
    collect_garbage(st$garbage)
    st$garbage <- 0
  }
  st
}

# The specifications of a chunk that the native or linear engine evaluates
# here, under any plan: list(out (their predictions, NULL for the others),
# todo (the others' positions), n (predictions made)).
direct_part <- function(setup, req, specs) {
  out <- lapply(specs, function(s) direct_predictions(setup, req, s))
  todo <- which(vapply(out, is.null, logical(1)))
  n <- 0
  for (i in setdiff(seq_along(out), todo)) {
    n <- n + (attr(out[[i]], "n") %||% nrow(out[[i]]))
    attr(out[[i]], "n") <- NULL
  }
  list(out = out, todo = todo, n = n)
}

# The predictions of one chunk in this process: a list of matrices, one per
# specification, with attributes "n", the predictions made, and
# "predicted", those of the predict function.
evaluate_chunk <- function(setup, req, specs) {
  d <- direct_part(setup, req, specs)
  out <- d$out
  predicted <- 0
  if (length(d$todo)) {
    plan <- stack_plan(setup, specs[d$todo])
    if (length(plan$stacks) == 1L) {
      # One stack: straight from the background rows.
      ys <- list(predict_frame(setup, stack_job(setup$data, plan$stacks[[1L]], setup$threads)))
    } else {
      # Several share their rows, stacked once.
      job <- job_rows(setup, plan$stacks)
      ys <- lapply(job$jobs, function(jb) predict_frame(setup, stack_job(job$part, jb, setup$threads)))
    }
    out[d$todo] <- plan$combine(ys)
    predicted <- sum(vapply(ys, nrow, numeric(1)))
  }
  structure(out, n = d$n + predicted, predicted = predicted)
}

# Between the steps of a call on many rows: collect what the step left (its
# vectors of the background's length), when one such vector is a sizeable
# share of what the chunks may leave.
collect_between <- function(setup) {
  if (8 * setup$n >= (setup$gc_bytes %||% Inf) / 4) collect_garbage(8 * setup$n)
  invisible()
}

# Collect the garbage of about `made` bytes, and give the memory freed back
# to the system. A collection of the younger generations first (a few
# milliseconds); a full one (70 ms with ggplot2 loaded) only when that left
# more than half of `made` beyond the memory in use after the last
# collection (garbage that lived through R's own collections is older).
collect_garbage <- function(made) {
  used <- gc_used(gc(verbose = FALSE, full = FALSE))
  if (used - (gc_memory$used %||% 0) > made / 2) used <- gc_used(gc(verbose = FALSE, full = TRUE))
  gc_memory$used <- used
  release_memory()
  invisible()
}

# The process's memory in use after the last collection.
gc_memory <- new.env(parent = emptyenv())

# Bytes in use, from gc()'s table (Ncells and Vcells, in MiB).
gc_used <- function(g) sum(g[, 2L]) * 2^20

# The bytes a chunk leaves for the collector: the rows the predict function
# was given (the linear engine predicts stacked rows too, with their model
# matrix), and the predictions (chunk_bytes()).
chunk_garbage <- function(setup, ys) {
  framed <- if (is.null(setup$linear)) attr(ys, "predicted") else 2 * attr(ys, "n")
  chunk_bytes(setup, framed, sum(lengths(ys)))
}

# Bytes of `rows` stacked rows (at the setup's bytes a row) and `values`
# predictions with what the reduce derives from them (parts, differences,
# sums: about three times their size again).
chunk_bytes <- function(setup, rows, values) rows * (setup$row_bytes %||% 0) + 4 * 8 * values

# Specifications as stacks of rows for the predict function: `stacks`, and
# combine(ys), which turns the stacks' predictions into one matrix per
# specification (a curve made in grid order reordered observation-major).
stack_plan <- function(setup, specs) {
  parts <- lapply(specs, function(s) {
    if (s$kind == "curve" && s$order == "grid") return(grid_stacks(setup, s))
    list(as_stacked(s))
  })
  sizes <- lengths(parts)
  combine <- function(ys) {
    ends <- cumsum(sizes)
    lapply(seq_along(specs), function(i) {
      y <- ys[seq.int(ends[i] - sizes[i] + 1L, length.out = sizes[i])]
      if (specs[[i]]$kind != "curve" || specs[[i]]$order != "grid") return(y[[1L]])
      # One block of m rows per grid value: row r's prediction at grid
      # value g goes to row (r - 1) G + g.
      G <- sizes[i]
      m <- nrow(y[[1L]])
      out <- matrix(0, G * m, ncol(y[[1L]]))
      for (g in seq_len(G)) out[(seq_len(m) - 1L) * G + g, ] <- y[[g]]
      out
    })
  }
  list(stacks = unlist(parts, recursive = FALSE), combine = combine)
}

# A curve specification as one stack of rows, observation-major.
as_stacked <- function(spec) {
  if (spec$kind == "stack") return(spec)
  m <- length(spec$rows)
  G <- length(spec$grid[[1L]])
  stack_spec(pattern(spec$rows, each = G), spec$cols,
             lapply(spec$grid, function(g) pattern(g, times = m)))
}

# A curve specification in grid order: one stack per grid value, each the
# curve's rows (NULL when they are all background rows in order, so that
# their columns are shared) with the columns at that value.
grid_stacks <- function(setup, spec) {
  m <- length(spec$rows)
  rows <- source_rows(setup, spec$rows)
  lapply(seq_along(spec$grid[[1L]]), function(g) {
    stack_spec(rows, spec$cols, lapply(spec$grid, function(v) pattern(v[g], times = m)))
  })
}

# Background rows `rows`, or NULL when they are all of them in order.
source_rows <- function(setup, rows) {
  if (length(rows) == setup$n && (setup$n == 0L || rows[setup$n] == setup$n)) NULL else rows
}

# Predict one stacked data frame and check the result.
predict_frame <- function(setup, newdata) {
  y <- tryCatch(setup$predict_function(setup$model, newdata), error = function(e) {
    e$call <- NULL # (the user's error, without the package's internal call)
    # (Missing values, if any, are the likelier cause than the chunk's size.)
    where <- missing_where(setup$data[intersect(names(newdata)[vapply(newdata, anyNA, logical(1))],
                                                names(setup$data))])
    if (length(where)) {
      cli::cli_abort(c(
        "The predict function ({.arg predict_function}, or the model's {.fn predict}) failed on rows with missing values in {where}.",
        i = "Impute them, or drop those rows from {.arg data}, if the model cannot predict them."
      ), parent = e, call = setup$error_call)
    }
    cli::cli_abort(c(
      "The predict function ({.arg predict_function}, or the model's {.fn predict}) failed on a chunk of {nrow(newdata)} stacked row{?s}.",
      i = "It worked on a few rows of {.arg data}: if it fails only on many rows at once, lower {.arg memory_budget} (smaller chunks), or give a {.arg predict_function} that predicts them in parts."
    ), parent = e, call = setup$error_call)
  })
  check_chunk(setup, y, nrow(newdata))
}

# The columns of `cols` (a named list) with missing values, each with its
# count of rows: "x1 (2 rows)".
missing_where <- function(cols) {
  n <- vapply(cols, function(x) sum(is.na(x)), numeric(1))
  n <- n[n > 0]
  if (length(n)) paste0(names(n), " (", n, " row", ifelse(n == 1, "", "s"), ")") else character()
}

# Check the predictions of n stacked rows (made here or on a worker): a
# matrix of the profiled outputs.
check_chunk <- function(setup, y, n) {
  y <- withCallingHandlers(
    check_predictions(y, n, call = setup$error_call,
                      classifier = identical(setup$adapter$task, "classification")),
    modelprofiles_missing_predictions = function(e) nonfinite_columns(setup, e)
  )
  if (ncol(y) != setup$n_columns) {
    cli::cli_abort("The predict function returned {ncol(y)} column{?s}, and {setup$n_columns} before.",
                   call = setup$error_call)
  }
  if (ncol(y) > 1L) y <- y[, setup$outputs$columns, drop = FALSE]
  y
}

# Missing predictions, when the background has missing or infinite values
# in some columns: an error that names those columns (the likely cause).
nonfinite_columns <- function(setup, e) {
  bad <- vapply(setup$data, function(col) is.numeric(col) && !all(is.finite(col)), logical(1))
  if (!any(bad)) return(invisible())
  counts <- vapply(setup$data[bad], function(col) sum(!is.finite(col)), numeric(1))
  # (The error's own lines, braces escaped for cli.)
  lines <- c(e$message, e$body)
  lines[] <- gsub("}", "}}", gsub("{", "{{", cli::ansi_strip(lines), fixed = TRUE), fixed = TRUE)
  cli::cli_abort(c(
    lines,
    i = "The background rows have missing or infinite values in {.field {names(setup$data)[bad]}} ({counts} row{?s}), which the model may not predict."
  ), call = setup$error_call)
}

# ---- Progress ---------------------------------------------------------------------

# A progressor (progressr, when installed) for `steps` steps, created in the
# frame `envir` (it ends with it); silent unless the user has enabled a
# handler (progressr::handlers()).
new_progress <- function(steps, envir = parent.frame()) {
  if (!requireNamespace("progressr", quietly = TRUE) || steps < 1) return(NULL)
  progressr::progressor(steps = steps, envir = envir)
}

tick <- function(progress, amount = 1) {
  if (!is.null(progress) && amount > 0) progress(amount = amount)
  invisible()
}

# ---- Chunks ---------------------------------------------------------------------------

# Split 1..n into as few consecutive chunks of at most `size` as the size
# allows, of equal sizes to a row (chunks predicted in parallel then take
# equally long). In doubles: n * k overflows an integer from 46,341 rows on.
row_chunks <- function(n, size) {
  n <- as.double(n)
  if (n < 1) return(list())
  size <- if (is.na(size) || size >= n) n else max(1, floor(size))
  k <- ceiling(n / size)
  # floor(i * n / k) exactly: i * q + floor(i * r / k) (n = q k + r).
  i <- seq_len(k)
  q <- floor(n / k)
  ends <- i * q + floor(i * (n - q * k) / k)
  ends[k] <- n
  starts <- c(1, ends[-k] + 1)
  lapply(seq_len(k), function(i) seq.int(starts[i], ends[i]))
}

# Group consecutive sizes into chunks whose total stays within `budget` (a
# single oversized item gets a chunk of its own): the chunk of each item.
cumsum_chunks <- function(sizes, budget) {
  id <- integer(length(sizes))
  cur <- 1L
  acc <- 0
  for (i in seq_along(sizes)) {
    if (acc > 0 && acc + sizes[i] > budget) {
      cur <- cur + 1L
      acc <- 0
    }
    acc <- acc + sizes[i]
    id[i] <- cur
  }
  id
}
