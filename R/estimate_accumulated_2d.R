# Second-order accumulated local effects (Apley and Zhu, 2020, section 3;
# ALEPlot's algorithm): the pure interaction of two variables, with their
# first-order effects removed, for numeric x numeric and categorical x
# numeric pairs.

# js: the columns (the first may be categorical); levels: the first
# variable's levels in AL order, or NULL when it is numeric. The rows with
# both variables observed are used. The result: list(x1, x2 (the axes'
# edges or levels), f (an axis 1 x axis 2 x outputs array), intervals).
accumulated_2d_request <- function(setup, js, intervals, levels = NULL) {
  c1 <- setup$data[[js[1L]]]
  c2 <- setup$data[[js[2L]]]
  rows <- which(!is.na(c1) & !is.na(c2))
  w <- at_rows(setup$weights, rows)
  x2 <- as.double(at_rows(c2, rows))
  z2 <- al_edges(x2, intervals, w)
  a2 <- interval_index(x2, z2, setup$threads)
  if (is.null(levels)) {
    x1 <- as.double(at_rows(c1, rows))
    z1 <- al_edges(x1, intervals, w)
    a1 <- interval_index(x1, z1, setup$threads)
    corners <- corner_chunks(setup, js, rows, a1, a2, z1, z2)
  } else {
    z1 <- levels
    a1 <- match(as.character(c1[rows]), levels)
    corners <- level_corner_chunks(setup, js, rows, a1, a2, levels, z2)
  }
  new_request(
    length(corners$chunks), make = corners$make, reduce = corners$reduce,
    init = function() list(d = matrix(0, corners$n_diff, setup$n_outputs)),
    finish = function(acc) {
      cl <- ale_2d_cells(corners, a1, a2, z1, z2, is.null(levels))
      bands <- if (setup$bands$per_row) lapply(seq_len(setup$n_outputs), function(c) {
        al_2d_bands(setup, acc$d[, c], corners$pos, cl, w, rows)
      })
      c(list(x1 = z1, x2 = z2, f = ale_2d_surface(acc$d, corners$pos, cl, w),
             intervals = c(length(z1) - 1L, length(z2) - 1L)), bind_output_bands(bands))
    }
  )
}

# The cells of a surface: each difference's `cell` (pairs of intervals, or
# of adjacent levels, x intervals: K1 x K2), each row's cell of the counts
# b (intervals, or levels, x intervals), `b_cell`, and counts_of(w) for
# weights w; the filling of empty cells and the centring.
ale_2d_cells <- function(corners, a1, a2, z1, z2, numeric_pair) {
  K1 <- length(z1) - 1L
  K2 <- length(z2) - 1L
  rows1 <- if (numeric_pair) K1 else K1 + 1L
  b_cell <- a1 + rows1 * (a2 - 1L)
  list(K1 = K1, K2 = K2, cell = corners$pair + K1 * (a2[corners$pos] - 1L), b_cell = b_cell,
       counts_of = function(w) matrix(tabulate_weighted(b_cell, w, rows1 * K2), rows1, K2),
       fill = function(D) fill_empty_cells(D, if (numeric_pair) z1 else NULL, z2),
       centre = if (numeric_pair) center_ale_2d else center_ale_2d_levels)
}

# The centred surface from the rows' second differences d (entries at rows
# `pos`) in cells `cl`.
ale_2d_surface <- function(d, pos, cl, w) {
  b <- cl$counts_of(w)
  out <- array(0, c(cl$K1 + 1L, cl$K2 + 1L, ncol(d)))
  for (c in seq_len(ncol(d))) {
    s <- interval_sums(d, cl$cell, w[pos], cl$K1 * cl$K2, c)
    out[, , c] <- cl$centre(cl$fill(matrix(s$sum / s$wsum, cl$K1, cl$K2)), b)
  }
  out
}

# The sums of the weights w (a vector, or a matrix with a row per index)
# per index 1..n.
tabulate_weighted <- function(index, w, n) {
  s <- rowsum(w, index)
  out <- matrix(0, n, NCOL(w))
  out[as.integer(rownames(s)), ] <- s
  if (is.matrix(w)) out else out[, 1L]
}

# Numeric x numeric: each row's second difference over the corners of its
# cell, (f(z1+, z2+) - f(z1+, z2-)) - (f(z1-, z2+) - f(z1-, z2-)): four
# predictions per row, stacked.
corner_chunks <- function(setup, js, rows, a1, a2, z1, z2) {
  v1 <- column_values(setup$data[[js[1L]]], z1)
  v2 <- column_values(setup$data[[js[2L]]], z2)
  chunks <- row_chunks(length(rows), request_chunk_rows(setup) / 4)
  list(
    chunks = chunks, n_diff = length(rows), pos = seq_along(rows), pair = a1,
    make = function(k) {
      chunk <- chunks[[k]]
      lo1 <- a1[chunk]
      lo2 <- a2[chunk]
      vals <- list(pattern(v1, index = c(lo1, lo1, lo1 + 1L, lo1 + 1L)),
                   pattern(v2, index = c(lo2, lo2 + 1L, lo2, lo2 + 1L)))
      list(stack_spec(pattern(rows[chunk], times = 4L), js, vals))
    },
    reduce = function(k, ys) {
      m <- length(chunks[[k]])
      y <- ys[[1L]]
      q <- function(k) y[(k - 1L) * m + seq_len(m), , drop = FALSE]
      list(d = place((q(4L) - q(3L)) - (q(2L) - q(1L)), chunks[[k]]))
    }
  )
}

# Categorical x numeric: for rows below the last level, the second
# difference between the next level up and the row's level; for rows above
# the first level, between the row's level and the next one down; pooled
# per pair of adjacent levels (ALEPlot's algorithm). The predictions at the
# row's own level serve both, so a row costs at most six predictions
# (ALEPlot makes eight). The differences are stored up-rows first.
level_corner_chunks <- function(setup, js, rows, o, a2, levels, z2) {
  c1 <- setup$data[[js[1L]]]
  c2 <- setup$data[[js[2L]]]
  K <- length(levels)
  up <- which(o < K)
  down <- which(o > 1L)
  lo2 <- function(i) z2[a2[i]]
  hi2 <- function(i) z2[a2[i] + 1L]
  chunks <- row_chunks(length(rows), request_chunk_rows(setup) / 6)
  parts <- function(chunk) list(u = chunk[o[chunk] < K], dn = chunk[o[chunk] > 1L])
  list(
    chunks = chunks, n_diff = length(up) + length(down), pos = c(up, down),
    pair = c(o[up], o[down] - 1L),
    make = function(k) {
      chunk <- chunks[[k]]
      p <- parts(chunk)
      src <- rows[c(chunk, chunk, p$u, p$u, p$dn, p$dn)]
      lev <- c(o[chunk], o[chunk], o[p$u] + 1L, o[p$u] + 1L, o[p$dn] - 1L, o[p$dn] - 1L)
      v2 <- c(lo2(chunk), hi2(chunk), lo2(p$u), hi2(p$u), lo2(p$dn), hi2(p$dn))
      list(stack_spec(src, js, list(column_values(c1, levels[lev]), column_values(c2, v2))))
    },
    reduce = function(k, ys) {
      chunk <- chunks[[k]]
      p <- parts(chunk)
      y <- ys[[1L]]
      # The six blocks of y: own level at lo2, hi2; up; down.
      sizes <- rep(c(length(chunk), length(p$u), length(p$dn)), each = 2L)
      starts <- cumsum(c(0L, sizes))
      block <- function(k) y[starts[k] + seq_len(sizes[k]), , drop = FALSE]
      own <- block(2L) - block(1L)
      d <- rbind((block(4L) - block(3L)) - own[match(p$u, chunk), , drop = FALSE],
                 own[match(p$dn, chunk), , drop = FALSE] - (block(6L) - block(5L)))
      list(d = place(d, c(match(p$u, up), length(up) + match(p$dn, down))))
    }
  )
}

# Cells without rows take the value of the nearest cell with rows, by the
# distance between cell midpoints scaled by each axis' range (ALEPlot's
# rule; the first axis of a categorical pair is the pair's index over the
# number of pairs). Ties go to the first such cell in column-major order.
fill_empty_cells <- function(D, z1, z2) {
  empty <- which(is.na(D), arr.ind = TRUE)
  if (!nrow(empty)) return(D)
  full <- which(!is.na(D), arr.ind = TRUE)
  coord1 <- if (is.null(z1)) seq_len(nrow(D)) / nrow(D) else
    (z1[-1L] + z1[-length(z1)]) / 2 / (max(z1) - min(z1))
  coord2 <- (z2[-1L] + z2[-length(z2)]) / 2 / (max(z2) - min(z2))
  for (e in seq_len(nrow(empty))) {
    d2 <- (coord1[full[, 1]] - coord1[empty[e, 1]])^2 + (coord2[full[, 2]] - coord2[empty[e, 2]])^2
    D[empty[e, 1], empty[e, 2]] <- D[full[which.min(d2), , drop = FALSE]]
  }
  D
}

# Cumulative sums over both axes: out[i, j] = sum(D[1:i, 1:j]).
cumsum_2d <- function(D) {
  for (j in seq_len(ncol(D))[-1L]) D[, j] <- D[, j] + D[, j - 1L]
  for (i in seq_len(nrow(D))[-1L]) D[i, ] <- D[i, ] + D[i - 1L, ]
  D
}

# Accumulate cell effects D (K1 x K2) over both axes, remove the two
# first-order effects (b-weighted means of the differences along each axis)
# and centre with the b-weighted mean over cells; b: weighted row counts.
center_ale_2d <- function(D, b) {
  K1 <- nrow(D)
  K2 <- ncol(D)
  f <- matrix(0, K1 + 1L, K2 + 1L)
  f[-1L, -1L] <- cumsum_2d(D)
  d1 <- f[-1L, , drop = FALSE] - f[-(K1 + 1L), , drop = FALSE]
  f1 <- c(0, cumsum(rowSums(b * (d1[, -1L, drop = FALSE] + d1[, -(K2 + 1L), drop = FALSE]) / 2) / rowSums(b)))
  d2 <- f[, -1L, drop = FALSE] - f[, -(K2 + 1L), drop = FALSE]
  f2 <- c(0, cumsum(colSums(b * (d2[-1L, , drop = FALSE] + d2[-(K1 + 1L), , drop = FALSE]) / 2) / colSums(b)))
  f <- f - outer(f1, rep(1, K2 + 1L)) - outer(rep(1, K1 + 1L), f2)
  corners <- (f[-(K1 + 1L), -(K2 + 1L)] + f[-(K1 + 1L), -1L] + f[-1L, -(K2 + 1L)] + f[-1L, -1L]) / 4
  f - sum(b * corners) / sum(b)
}

# The same for a categorical first axis: D holds the pairs of adjacent
# levels (K - 1 x K2), b the levels (K x K2).
center_ale_2d_levels <- function(D, b) {
  K1 <- nrow(b)
  K2 <- ncol(b)
  f <- matrix(0, K1, K2 + 1L)
  f[-1L, -1L] <- cumsum_2d(D)
  d2 <- f[, -1L, drop = FALSE] - f[, -(K2 + 1L), drop = FALSE]
  f2 <- c(0, cumsum(colSums(b * d2) / colSums(b)))
  bave <- (b[-1L, , drop = FALSE] + b[-K1, , drop = FALSE]) / 2
  d1 <- f[-1L, , drop = FALSE] - f[-K1, , drop = FALSE]
  f1 <- c(0, cumsum(rowSums(bave * (d1[, -1L, drop = FALSE] + d1[, -(K2 + 1L), drop = FALSE]) / 2) / rowSums(bave)))
  f <- f - outer(f1, rep(1, K2 + 1L)) - outer(rep(1, K1), f2)
  f - sum(b * (f[, -(K2 + 1L), drop = FALSE] + f[, -1L, drop = FALSE]) / 2) / sum(b)
}
