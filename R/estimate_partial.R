# Partial dependence (eq. 17.2), one and two variables, and the ICE-curve
# requests that PD and the kernel estimators share. Every estimator takes
# the setup and the background rows it averages over (`rows`, 1-based) and
# returns a request (R/executor.R) whose result is the estimate.

# ICE curves of columns `cols` over `grid` (a list with one vector of G
# values per column) for background rows `rows`, as a request:
# reduce_block(pos, y) gives the updates from the predictions y
# (observation-major, G x length(pos) rows) of rows[pos]; with `keep` the
# curves are kept too, as the accumulator `ice` (G x length(rows) x
# outputs), or the linear engine's `ice_a` and `ice_slope`. `bands`: NULL,
# or the spec of the means whose bands are accumulated (curve_band_init()).
# `affine`: reduce_block() takes the linear engine's affine curves as they
# come (else as their table).
curve_request <- function(setup, cols, grid, rows, reduce_block, init, finish, keep = FALSE,
                          native = TRUE, linear = FALSE, bands = NULL, affine = FALSE) {
  G <- length(grid[[1L]])
  n <- length(rows)
  lin <- request_engine(setup, native, linear, cols) == "linear"
  chunk_rows <- request_chunk_rows(setup, native, linear)
  order <- if (length(cols) == 1L) row_order(setup, n, native, linear) else "observation"
  # Stacked rows per background row: G, or the linear engine's 2 when its
  # curves are never made into a table (an identity link, no bands of rows).
  per_row <- if (lin && affine && linear_identity(setup) && !setup$bands$per_row) 2 else G
  chunks <- if (order == "grid") {
    # A block of rows per predict() call, its G x block table within a
    # quarter of the budget (of chunk_floor() rows at least).
    row_chunks(n, min(chunk_rows, max(chunk_floor(), budget_bytes(setup, "grid_block") / (8 * G))))
  } else {
    row_chunks(n, max(1, floor(chunk_rows / per_row)))
  }
  compact <- keep && lin
  new_request(
    length(chunks),
    make = function(k) {
      pos <- chunks[[k]]
      c(list(curve_spec(rows[pos], cols, grid, order)),
        if (!is.null(bands)) curve_band_specs(setup, rows[pos], cols, grid, bands$w[pos]))
    },
    reduce = function(k, ys) {
      pos <- chunks[[k]]
      y <- ys[[1L]]
      curves <- if (inherits(y, "mp_affine")) y
      if (!is.null(curves) && (!affine || (!is.null(bands) && band_needs_table(setup, curves)))) {
        y <- affine_values(curves)
      }
      upd <- reduce_block(pos, if (affine && !is.null(curves)) curves else y)
      if (compact) {
        upd$ice_a <- place(matrix(curves$a), pos)
        upd$ice_slope <- place(matrix(curves$slope), pos)
      } else if (keep) {
        upd$ice <- place(if (is.null(curves)) y else affine_values(curves), pos, dim = 2L)
      }
      if (!is.null(bands)) {
        row <- upd$moment_row
        upd$moment_row <- NULL
        upd <- c(upd, curve_band_update(setup, k, y, G, rows, pos, bands, row, ys[-1L]))
      }
      upd
    },
    init = function() {
      c(init(),
        if (compact) list(ice_a = matrix(0, n, 1L), ice_slope = matrix(0, n, 1L)),
        if (keep && !compact) list(ice = array(0, c(G, n, setup$n_outputs))),
        if (!is.null(bands)) curve_band_init(setup, G, length(chunks), bands))
    },
    finish = function(acc) {
      if (compact) {
        acc$ice <- linear_affine(setup, acc$ice_a[, 1L], acc$ice_slope[, 1L], grid[[1L]], 1L, NULL)
        acc$ice_a <- acc$ice_slope <- NULL
      }
      finish(acc)
    },
    native = native, linear = linear
  )
}

# Weighted sums over the rows of an observation-major table, per grid point
# and output: a G x outputs matrix.
table_sums <- function(setup, y, G, w) {
  out <- matrix(0, G, setup$n_outputs)
  for (c in seq_len(setup$n_outputs)) out[, c] <- grid_sums(y, G, w, setup$threads, c)
  out
}

# PD of columns js (one or two) over `grid` (a list of G values per
# column): finish(e) makes the estimate from e = list(yhat (G x outputs),
# ice, and the bands' se or reps). Without curves and bands of rows, the
# native engine's set walk gives each chunk's weighted sums (or each
# tree's, band_sums_spec()): chunks of a native_sums_chunks-th of the rows
# (native_sums_min_rows at least), for progress and interrupts, which
# depend on the rows only, not the threads.
pd_request <- function(setup, js, grid, rows, finish, keep = FALSE, native = TRUE, linear = FALSE) {
  G <- length(grid[[1L]])
  w <- at_rows(setup$weights, rows)
  if (keep || setup$bands$per_row || request_engine(setup, native) != "native") {
    return(curve_request(
      setup, js, grid, rows,
      reduce_block = function(pos, y) {
        list(sums = if (inherits(y, "mp_affine")) affine_sums(y, w[pos]) else table_sums(setup, y, G, w[pos]))
      },
      init = function() list(sums = matrix(0, G, setup$n_outputs)),
      finish = function(acc) {
        yhat <- acc$sums / sum(w)
        finish(c(list(yhat = yhat, ice = acc$ice), curve_band_finish(setup, acc, yhat, sum(w))))
      },
      keep = keep, native = native, linear = linear, bands = list(w = w), affine = TRUE
    ))
  }
  chunks <- row_chunks(length(rows), max(native_sums_min_rows, ceiling(length(rows) / native_sums_chunks)))
  new_request(
    length(chunks),
    make = function(k) list(band_sums_spec(setup, rows[chunks[[k]]], js, grid, w[chunks[[k]]])),
    reduce = function(k, ys) band_sums_update(setup, ys[[1L]]),
    init = function() c(list(sums = matrix(0, G, setup$n_outputs)), curve_band_init(setup, G, length(chunks), NULL)),
    finish = function(acc) {
      e <- band_sums_finish(setup, acc, sum(w))
      finish(c(e[1L], list(ice = NULL), e[-1L]))
    },
    native = TRUE
  )
}

# PD of column j over `grid`: list(x, yhat (G x outputs), ice, ice_rows,
# and the bands' se or reps).
partial_request <- function(setup, j, grid, rows, keep_ice = FALSE, native = TRUE, linear = TRUE) {
  pd_request(setup, j, list(column_values(setup$data[[j]], grid)), rows, keep = keep_ice, native = native,
             linear = linear, finish = function(e) c(list(x = grid, yhat = e$yhat, ice = e$ice, ice_rows = rows), e[-(1:2)]))
}

# PD over all pairs of g1 x g2 (g1 fastest), each row stacked over the pair
# grid: list(x1, x2, yhat (G1 G2 x outputs), and the bands' se or reps).
partial_2d_request <- function(setup, js, g1, g2, rows = seq_len(setup$n)) {
  grid <- list(column_values(setup$data[[js[1L]]], rep(g1, times = length(g2))),
               column_values(setup$data[[js[2L]]], rep(g2, each = length(g1))))
  pd_request(setup, js, grid, rows, function(e) c(list(x1 = g1, x2 = g2, yhat = e$yhat), e[-(1:2)]))
}

# Predictions at background rows `rows` (increasing, distinct): a request
# whose result is a length(rows) x outputs matrix (the mean prediction of
# AL, the rows of LD for categorical variables).
fitted_request <- function(setup, rows, native = TRUE) {
  chunks <- row_chunks(length(rows), request_chunk_rows(setup, native))
  new_request(
    length(chunks),
    make = function(k) list(stack_spec(source_rows(setup, rows[chunks[[k]]]))),
    reduce = function(k, ys) list(fitted = place(ys[[1L]], chunks[[k]])),
    init = function() list(fitted = matrix(0, length(rows), setup$n_outputs)),
    finish = function(acc) acc$fitted, native = native, weight = 0
  )
}
