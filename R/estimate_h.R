# The tables of partial dependences behind Friedman's H-statistics
# (h_statistic()): every background row with one or two columns set to each
# distinct value (or pair of values) that occurs among the rows.

# The distinct values (or tuples of values) of the columns js among the
# background rows: `first`, the first row with each, and `index`, which of
# them each row has. Values are compared exactly (NA included).
h_distinct <- function(setup, js) {
  key <- NULL
  for (j in js) {
    col <- setup$data[[j]]
    if (is.factor(col)) col <- as.integer(col)
    first <- which(!duplicated(col))
    code <- match(col, col[first])
    # (In doubles: the product of the numbers of values overflows an integer.)
    key <- if (is.null(key)) code else key + (code - 1) * as.double(max(key))
  }
  first <- which(!duplicated(key))
  list(first = first, index = match(key, key[first]))
}

# The tables of the columns (or pairs) in `sets`: table t is a G_t x n
# table, every background row i stacked G_t times (consecutively) with the
# columns sets[[t]] set to the values of rows first_t. The (row, table)
# blocks are packed in order into chunks of at most the chunk size (a
# block larger than that is a chunk of its own), so that small tables
# share predict() calls; with the native engine, a chunk holds one table's
# rows (their curves at the table's values, by the set walk). Returns the
# tables' descriptions and the pieces of each chunk: list(t, pos, chunk),
# the rows `pos` of table t.
h_tables <- function(setup, sets) {
  tables <- lapply(sets, function(js) {
    d <- h_distinct(setup, js)
    d$js <- js
    d$G <- length(d$first)
    d
  })
  size <- request_chunk_rows(setup)
  alone <- walks_observed(setup)
  pieces <- list()
  chunk <- 1
  used <- 0
  for (t in seq_along(tables)) {
    G <- tables[[t]]$G
    start <- 1L
    while (start <= setup$n) {
      room <- floor((size - used) / G)
      # A new chunk when this one is full, or for each table of the set walk.
      if (used > 0 && (room < 1 || (start == 1L && alone))) {
        chunk <- chunk + 1
        used <- 0
        next
      }
      end <- min(setup$n, start + max(room, 1) - 1)
      pieces[[length(pieces) + 1L]] <- list(t = t, pos = start:end, chunk = chunk)
      used <- used + G * (end - start + 1)
      start <- end + 1L
    }
  }
  list(tables = tables, chunks = unname(split(pieces, vapply(pieces, `[[`, numeric(1), "chunk"))))
}

# The names of the accumulators of quantity `what` of tables t, and the
# accumulators, `sizes` x `cols` zeros.
h_key <- function(what, t) paste0(what, t)
h_zeros <- function(sizes, what, cols) {
  stats::setNames(lapply(sizes, function(m) matrix(0, m, cols)), h_key(what, seq_along(sizes)))
}

# A chunk of pieces as one stack of rows: a column set by some pieces keeps,
# in the others, the rows' own values. A chunk of one table's rows is the
# curves of those rows over the table's values (which travel to a worker at
# the size of the rows, not of the stacked rows, and which the native
# engine walks as a set).
h_chunk_spec <- function(setup, tables, pieces) {
  if (length(pieces) == 1L) {
    p <- pieces[[1L]]
    tb <- tables[[p$t]]
    js <- sort(unique(tb$js))
    return(curve_spec(p$pos, js, lapply(js, function(j) setup$data[[j]][tb$first])))
  }
  rows <- unlist(lapply(pieces, function(p) rep(p$pos, each = tables[[p$t]]$G)))
  js <- sort(unique(unlist(lapply(pieces, function(p) tables[[p$t]]$js))))
  values <- lapply(js, function(j) {
    idx <- unlist(lapply(pieces, function(p) {
      tb <- tables[[p$t]]
      if (j %in% tb$js) rep(tb$first, times = length(p$pos)) else rep(p$pos, each = tb$G)
    }))
    setup$data[[j]][idx]
  })
  stack_spec(rows, js, values)
}

# A request over packed tables: reduce_piece(t, pos, y) gives the updates of
# table t's rows pos from their predictions y.
h_request <- function(setup, packed, reduce_piece, init, finish) {
  tables <- packed$tables
  chunks <- packed$chunks
  new_request(
    length(chunks),
    make = function(k) list(h_chunk_spec(setup, tables, chunks[[k]])),
    reduce = function(k, ys) {
      pieces <- chunks[[k]]
      sizes <- vapply(pieces, function(p) tables[[p$t]]$G * length(p$pos), numeric(1))
      end <- cumsum(sizes)
      upd <- list()
      for (a in seq_along(pieces)) {
        r <- seq.int(end[a] - sizes[a] + 1, end[a])
        upd <- c(upd, reduce_piece(pieces[[a]]$t, pieces[[a]]$pos, ys[[1L]][r, , drop = FALSE]))
      }
      upd
    },
    init = init, finish = finish
  )
}

# One-way quantities of each column j in js, from one table per column (the
# u distinct values of x^j among the rows, for every row i). Of this u x n
# table, PD_j(value) is the weighted mean over the rows (weights w_i),
# PD_-j(row i) the weighted mean over the values (weights: the summed w_i
# of the rows with that value), and f(x_i) the cell of row i at its own
# value. Result: per column the n x outputs matrices pd (PD_j at the rows'
# own values) and not (PD_-j), and `fitted`, the predictions at the rows.
# With bootstrap bands (R/bands_h.R), also per column the resampled PD_j
# at the values (`pd_reps`, u x (B outputs)), the values of the rows
# (`index`) and the resampled PD_-j (`not_reps`, n x (B outputs)).
h_one_way_request <- function(setup, js) {
  boot <- setup$bands$resampled
  if (!boot && walks_observed(setup)) return(h_one_way_walk(setup, js))
  n <- setup$n
  C <- setup$n_outputs
  w <- setup$weights
  cw <- if (boot) h_resampled_weights(setup)
  BC <- if (boot) setup$bands$B * C
  packed <- h_tables(setup, as.list(js))
  tables <- lapply(packed$tables, function(tb) {
    tb$W <- as.vector(rowsum(w, tb$index, reorder = TRUE))
    # The value weights of each resample (u x B).
    if (boot) tb$Wb <- tabulate_weighted(tb$index, cw, tb$G)
    tb
  })
  G <- vapply(tables, `[[`, numeric(1), "G")
  h_request(
    setup, packed,
    reduce_piece = function(t, pos, y) {
      tb <- tables[[t]]
      G <- tb$G
      m <- length(pos)
      off <- G * (0:m)
      Wm <- rep(tb$W, times = m)
      not <- matrix(0, m, C)
      for (c in seq_len(C)) not[, c] <- group_sums(y, Wm, off, setup$threads, c)$sum / sum(tb$W)
      upd <- stats::setNames(list(table_sums(setup, y, G, w[pos]), place(not, pos)),
                             h_key(c("sums", "not"), t))
      if (boot) {
        upd[[h_key("sums_reps", t)]] <- h_boot_sums(setup, y, G, cw[pos, , drop = FALSE])
        upd[[h_key("not_reps", t)]] <- place(h_boot_not(setup, y, G, tb$Wb), pos)
      }
      if (t == 1L) upd$fitted <- place(y[G * (seq_len(m) - 1L) + tb$index[pos], , drop = FALSE], pos)
      upd
    },
    init = function() {
      N <- rep(n, length(G))
      c(list(fitted = matrix(0, n, C)), h_zeros(G, "sums", C), h_zeros(N, "not", C),
        if (boot) c(h_zeros(G, "sums_reps", BC), h_zeros(N, "not_reps", BC)))
    },
    finish = function(acc) {
      ts <- seq_along(tables)
      pd <- lapply(ts, function(t) {
        acc[[h_key("sums", t)]][tables[[t]]$index, , drop = FALSE] / sum(w)
      })
      out <- list(pd = pd, not = unname(acc[h_key("not", ts)]), fitted = acc$fitted)
      if (boot) {
        out$pd_reps <- lapply(ts, function(t) h_boot_pd(setup, acc[[h_key("sums_reps", t)]], cw))
        out$not_reps <- unname(acc[h_key("not_reps", ts)])
        out$index <- lapply(tables, `[[`, "index")
      }
      out
    }
  )
}

# Partial dependence of each pair (two column indices) at the rows' own
# pairs of values: a list of n x outputs matrices; with bootstrap bands,
# the list has attribute "reps": per pair, list(pd_reps (the resampled PD
# at the pairs of values, u x (B outputs)), index (the rows' pairs)).
h_two_way_request <- function(setup, pairs) {
  boot <- setup$bands$resampled
  if (!boot && walks_observed(setup)) return(h_two_way_walk(setup, pairs))
  C <- setup$n_outputs
  w <- setup$weights
  cw <- if (boot) h_resampled_weights(setup)
  packed <- h_tables(setup, pairs)
  tables <- packed$tables
  h_request(
    setup, packed,
    reduce_piece = function(t, pos, y) {
      G <- tables[[t]]$G
      upd <- stats::setNames(list(table_sums(setup, y, G, w[pos])), h_key("sums", t))
      if (boot) upd[[h_key("sums_reps", t)]] <- h_boot_sums(setup, y, G, cw[pos, , drop = FALSE])
      upd
    },
    init = function() {
      G <- vapply(tables, `[[`, numeric(1), "G")
      c(h_zeros(G, "sums", C), if (boot) h_zeros(G, "sums_reps", setup$bands$B * C))
    },
    finish = function(acc) {
      out <- lapply(seq_along(tables), function(t) {
        acc[[h_key("sums", t)]][tables[[t]]$index, , drop = FALSE] / sum(w)
      })
      if (boot) {
        attr(out, "reps") <- lapply(seq_along(tables), function(t) {
          list(pd_reps = h_boot_pd(setup, acc[[h_key("sums_reps", t)]], cw),
               index = tables[[t]]$index)
        })
      }
      out
    }
  )
}

# ---- The set walk at observed points ----------------------------------------

# Without bootstrap bands (which read every cell of the tables), the native
# engine gives the sums of the tables by the set walk at the observed
# values (inst/include/modelprofiles/observed.h), without making them: a
# tree's leaf adds its value times the weights of the rows that reach it
# to the values (or pairs) that reach it.

# h_one_way_request() by the set walk: a chunk per column, its PD_j at the
# values, every row's PD_-j and, of the first, the predictions at the rows.
h_one_way_walk <- function(setup, js) {
  n <- setup$n
  C <- setup$n_outputs
  w <- setup$weights
  rows <- seq_len(n)
  tables <- lapply(js, function(j) {
    tb <- h_distinct(setup, j)
    tb$W <- as.vector(rowsum(w, tb$index, reorder = TRUE))
    tb
  })
  new_request(
    length(js),
    make = function(t) {
      tb <- tables[[t]]
      list(observed_spec(rows, js[t], list(setup$data[[js[t]]][tb$first]), w, tb$W, fitted = t == 1L))
    },
    reduce = function(t, ys) {
      y <- ys[[1L]]
      upd <- stats::setNames(list(y$points[tables[[t]]$index, , drop = FALSE] / sum(w),
                                  y$rows / sum(tables[[t]]$W)), h_key(c("pd", "not"), t))
      if (t == 1L) upd$fitted <- y$fitted
      upd
    },
    init = function() {
      c(list(fitted = matrix(0, n, C)), h_zeros(rep(n, length(js)), "pd", C),
        h_zeros(rep(n, length(js)), "not", C))
    },
    finish = function(acc) {
      ts <- seq_along(js)
      list(pd = unname(acc[h_key("pd", ts)]), not = unname(acc[h_key("not", ts)]),
           fitted = acc$fitted)
    }
  )
}

# h_two_way_request() by the set walk: a chunk per pair, its PD at the
# pairs of values that occur.
h_two_way_walk <- function(setup, pairs) {
  w <- setup$weights
  rows <- seq_len(setup$n)
  tables <- lapply(pairs, function(js) h_distinct(setup, js))
  new_request(
    length(pairs),
    make = function(t) {
      first <- tables[[t]]$first
      list(observed_spec(rows, pairs[[t]], lapply(pairs[[t]], function(j) setup$data[[j]][first]), w))
    },
    reduce = function(t, ys) {
      pd <- ys[[1L]]$points[tables[[t]]$index, , drop = FALSE] / sum(w)
      stats::setNames(list(pd), h_key("pd", t))
    },
    init = function() h_zeros(rep(setup$n, length(pairs)), "pd", setup$n_outputs),
    finish = function(acc) unname(acc[h_key("pd", seq_along(pairs))])
  )
}
