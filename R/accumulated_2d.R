# Second-order accumulated local effects (Apley and Zhu, 2020, section 3;
# ALEPlot's algorithm): the pure interaction of two variables, with their
# first-order effects removed, for numeric x numeric and categorical x numeric
# pairs.

# js: the columns (the first may be categorical); levels: the first
# variable's levels in AL order, or NULL when it is numeric. Returns the
# values of the two axes and an array (axis 1 x axis 2 x outputs).
profile_accumulated_2d <- function(ctx, js, intervals, levels = NULL) {
  c1 <- ctx$data[[js[1]]]
  c2 <- ctx$data[[js[2]]]
  rows <- which(!is.na(c1) & !is.na(c2))
  w <- ctx$weights[rows]
  x2 <- as.double(c2[rows])
  z2 <- al_edges(x2, intervals, w)
  K2 <- length(z2) - 1L
  a2 <- cpp_interval_index(x2, z2, ctx$threads)
  if (is.null(levels)) {
    x1 <- as.double(c1[rows])
    z1 <- al_edges(x1, intervals, w)
    a1 <- cpp_interval_index(x1, z1, ctx$threads)
    delta <- corner_differences(ctx, js, rows, a1, a2, z1, z2)
    pos <- seq_along(rows)
  } else {
    z1 <- levels
    a1 <- match(as.character(c1[rows]), levels)
    delta <- level_corner_differences(ctx, js, rows, a1, a2, levels, z2)
    pos <- delta$pos
  }
  K1 <- length(z1) - 1L
  # Cells: pairs of intervals (or of adjacent levels) x intervals.
  cell <- delta$pair + K1 * (a2[pos] - 1L)
  b <- if (is.null(levels)) {
    matrix(tabulate_weighted(a1 + K1 * (a2 - 1L), w, K1 * K2), K1, K2)
  } else {
    matrix(tabulate_weighted(a1 + (K1 + 1L) * (a2 - 1L), w, (K1 + 1L) * K2), K1 + 1L, K2)
  }
  C <- ncol(delta$d)
  out <- array(0, c(length(z1), K2 + 1L, C))
  for (c in seq_len(C)) {
    s <- cpp_interval_sums(delta$d, cell, w[pos], K1 * K2, c - 1L)
    D <- matrix(s$sum / s$wsum, K1, K2)
    D <- fill_empty_cells(D, if (is.null(levels)) z1 else NULL, z2)
    out[, , c] <- if (is.null(levels)) center_ale_2d(D, b) else center_ale_2d_levels(D, b)
  }
  list(x1 = z1, x2 = z2, f = out, intervals = c(K1, K2))
}

tabulate_weighted <- function(index, w, n) {
  out <- numeric(n)
  s <- rowsum(w, index)
  out[as.integer(rownames(s))] <- s[, 1]
  out
}

# Numeric x numeric: each row's second difference over the corners of its
# cell, (f(z1+, z2+) - f(z1+, z2-)) - (f(z1-, z2+) - f(z1-, z2-)): four
# predictions per row, stacked.
corner_differences <- function(ctx, js, rows, a1, a2, z1, z2) {
  c1 <- ctx$data[[js[1]]]
  c2 <- ctx$data[[js[2]]]
  n <- length(rows)
  d <- matrix(0, n, n_outputs(ctx))
  v1 <- column_values(c1, z1)
  v2 <- column_values(c2, z2)
  chunks <- row_chunks(n, ctx$chunk_rows / 4)
  predict_chunks(ctx, length(chunks), function(k) {
    chunk <- chunks[[k]]
    lo1 <- a1[chunk]
    lo2 <- a2[chunk]
    vals <- list(pattern(v1, index = c(lo1, lo1, lo1 + 1L, lo1 + 1L)),
                 pattern(v2, index = c(lo2, lo2 + 1L, lo2, lo2 + 1L)))
    list(list(src = pattern(rows[chunk] - 1L, times = 4L), js = js, vals = vals))
  }, function(k, ys) {
    chunk <- chunks[[k]]
    m <- length(chunk)
    y <- ys[[1L]]
    q <- function(k) y[(k - 1L) * m + seq_len(m), , drop = FALSE]
    d[chunk, ] <<- (q(4L) - q(3L)) - (q(2L) - q(1L))
  })
  list(d = d, pair = a1)
}

# Categorical x numeric: for rows below the last level, the second
# difference between the next level up and the row's level; for rows above
# the first level, between the row's level and the next one down; pooled per
# pair of adjacent levels (ALEPlot's algorithm). The predictions at the row's
# own level serve both, so a row costs at most six predictions (ALEPlot
# makes eight).
level_corner_differences <- function(ctx, js, rows, o, a2, levels, z2) {
  c1 <- ctx$data[[js[1]]]
  c2 <- ctx$data[[js[2]]]
  K <- length(levels)
  n <- length(rows)
  C <- n_outputs(ctx)
  up <- which(o < K)
  down <- which(o > 1L)
  d_up <- matrix(0, length(up), C)
  d_down <- matrix(0, length(down), C)
  lo2 <- function(i) z2[a2[i]]
  hi2 <- function(i) z2[a2[i] + 1L]
  chunks <- row_chunks(n, ctx$chunk_rows / 6)
  predict_chunks(ctx, length(chunks), function(k) {
    chunk <- chunks[[k]]
    u <- chunk[o[chunk] < K]
    dn <- chunk[o[chunk] > 1L]
    src <- rows[c(chunk, chunk, u, u, dn, dn)] - 1L
    lev <- c(o[chunk], o[chunk], o[u] + 1L, o[u] + 1L, o[dn] - 1L, o[dn] - 1L)
    v2 <- c(lo2(chunk), hi2(chunk), lo2(u), hi2(u), lo2(dn), hi2(dn))
    list(list(src = src, js = js, vals = list(column_values(c1, levels[lev]), column_values(c2, v2))))
  }, function(k, ys) {
    chunk <- chunks[[k]]
    u <- chunk[o[chunk] < K]
    dn <- chunk[o[chunk] > 1L]
    y <- ys[[1L]]
    # The six blocks of y: own level at lo2, hi2; up; down.
    sizes <- rep(c(length(chunk), length(u), length(dn)), each = 2L)
    starts <- cumsum(c(0L, sizes))
    part <- function(k) y[starts[k] + seq_len(sizes[k]), , drop = FALSE]
    own <- part(2L) - part(1L)
    d_up[match(u, up), ] <<- (part(4L) - part(3L)) - own[match(u, chunk), , drop = FALSE]
    d_down[match(dn, down), ] <<- own[match(dn, chunk), , drop = FALSE] - (part(6L) - part(5L))
  })
  list(d = rbind(d_up, d_down), pair = c(o[up], o[down] - 1L), pos = c(up, down))
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
