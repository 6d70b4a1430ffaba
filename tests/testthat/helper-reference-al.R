# Plain-R reference implementations (base R + stats only) of the accumulated
# local effects that ALEPlot 1.1 (Apley, CRAN archive) computes for
#   * a categorical variable:           ref_al_factor(X, J, pred, w, order)
#   * a pair of variables (2-D effect): ref_al_2d(X, J, pred, K, w)
# written from ALEPlot's algorithm, independently of the package's code.
#
# `pred(newdata)` returns numeric predictions; `J` holds column names. X must
# have no missing values. Columns that are factors, character or logical are
# categorical; other columns must be numeric.
#
# Case weights `w` (non-negative, one per row) follow "frequency weight"
# semantics: every mean becomes a weighted mean and every count a weight sum,
# including the quantiles, ecdfs and contingency tables used for the bins and
# the level order. A row of weight 2 therefore gives exactly what the same row
# duplicated gives (but see the note on equal weights below), and a weight of
# 0 removes the row. With w = NULL the functions reproduce ALEPlot::ALEPlot()
# (quantiles via stats::quantile).

# Weighted quantiles ---------------------------------------------------------
#
# Defined on the expanded sample in which x[i] appears w[i] times, so that
# integer weights give stats::quantile(rep(x, w), p, type = 1 or 7) bit for
# bit. Without weights, or with equal (positive) weights, they are
# stats::quantile(x, p) itself, so that ALEPlot is matched bit for bit and
# only relative weights matter. (The two rules disagree for equal integer
# weights c > 1: type 7 changes when every row is duplicated, and type 1 may
# too, where c * n * p and n * p round to opposite sides of an integer, e.g.
# n = 50, c = 3, p = seq(0.1, 1, length.out = 10)[7].)

# k-th smallest value (k real) of the expanded sample (w > 0): the first
# sorted value whose cumulative weight reaches k.
ref_order_stat <- function(x, w, k) {
  o <- order(x)
  cw <- cumsum(w[o])
  x[o][pmin(findInterval(k, cw, left.open = TRUE) + 1L, length(x))]
}

# Type 1: the inverse of the weighted ecdf, min{x : F_w(x) >= p}, i.e. the
# order statistic ceiling(W p) of the expanded sample of size W = sum(w).
wquantile1 <- function(x, w = NULL, p) {
  if (!is.null(w)) {
    x <- x[w > 0]
    w <- w[w > 0]
  }
  if (is.null(w) || all(w == w[1])) return(stats::quantile(x, p, type = 1, names = FALSE))
  ref_order_stat(x, w, p * sum(w))
}

# Type 7: interpolation between the order statistics floor(h) and
# ceiling(h), h = 1 + (W - 1) p, with stats::quantile's arithmetic.
wquantile7 <- function(x, w = NULL, p) {
  if (!is.null(w)) {
    x <- x[w > 0]
    w <- w[w > 0]
  }
  if (is.null(w) || all(w == w[1])) return(stats::quantile(x, p, type = 7, names = FALSE))
  h <- 1 + max(sum(w) - 1, 0) * p
  lo <- ref_order_stat(x, w, floor(h))
  hi <- ref_order_stat(x, w, ceiling(h))
  g <- h - floor(h)
  ifelse(g > 0 & hi != lo, (1 - g) * lo + g * hi, lo)
}

# Shared pieces ----------------------------------------------------------------

# Drop rows of zero weight (they are absent from the duplicated data).
ref_drop_zero_weight <- function(X, w) {
  if (is.null(w)) return(list(X = X, w = NULL, wt = rep(1, nrow(X))))
  stopifnot(length(w) == nrow(X), all(w >= 0))
  list(X = X[w > 0, , drop = FALSE], w = w[w > 0], wt = w[w > 0])
}

# Weighted sums of v over the cells (i, j) of a K1 x K2 grid (0 if empty).
ref_cell_sums <- function(v, i, j, K1, K2) {
  unname(tapply(v, list(factor(i, seq_len(K1)), factor(j, seq_len(K2))), sum, default = 0))
}

# ALEPlot's bin edges: the minimum and the type-1 quantiles at 1/K, ..., 1,
# duplicates dropped; and each value's bin (z[k-1], z[k]], the first closed.
ref_al_edges <- function(x, K, w) unique(c(min(x), wquantile1(x, w, seq(1 / K, 1, length.out = K))))
ref_al_bin <- function(x, z) pmax(1L, findInterval(x, z, left.open = TRUE))

# Matrix of the distances f(|M[i, ] - M[k, ]|) between the rows of M.
ref_pairwise <- function(M, f) {
  idx <- seq_len(nrow(M))
  outer(idx, idx, Vectorize(function(i, k) f(abs(M[i, ] - M[k, ]))))
}

# ALEPlot's order of the levels of the factor X[[J]] (all levels present):
# sum over the other columns of a distance between the levels' conditional
# distributions of that column, then sort the levels by their coordinate in a
# one-dimensional classical MDS of the summed distances. Distances:
#   numeric column: Kolmogorov-Smirnov, max |F_a(q) - F_b(q)| over the 100
#     type-7 quantiles q of the column (F_a = weighted ecdf within level a);
#   categorical column: total variation, sum |P(x = c | a) - P(x = c | b)| / 2.
ref_level_order <- function(X, J, w, wt) {
  g <- X[[J]]
  D <- 0
  for (v in setdiff(names(X), J)) {
    x <- X[[v]]
    D <- D + if (is.factor(x) || is.character(x) || is.logical(x)) {
      tab <- tapply(wt, list(g, x), sum, default = 0)
      ref_pairwise(tab / rowSums(tab), function(d) sum(d) / 2)
    } else {
      q <- wquantile7(x, w, seq(0, 1, length.out = 100))
      cdf <- rowsum(wt * outer(x, q, "<="), g) / rowsum(wt, g)[, 1]
      ref_pairwise(cdf, max)
    }
  }
  # order() is stable: exact ties keep the original level order, as ALEPlot's
  # sort(index.return = TRUE).
  order(stats::cmdscale(D, k = 1))
}

# Replace NA cells of Delta by the value of the nearest non-NA cell, the cells
# sitting at coordinates (u[row], v[col]) (ALEPlot: yaImpute::ann, k = 1).
# Squared distances are computed as ANN does, (q1 - p1)^2 + (q2 - p2)^2, so
# the nearest cell is ANN's whenever it is unique. Exact ties are broken
# towards the first non-empty cell in column-major order; ANN keeps the first
# candidate its kd-tree search visits, which matches no simple rule. The
# number of empty cells with tied nearest cells is returned as attribute
# "nn_ties": where it is 0, the result is ALEPlot's.
ref_fill_nearest <- function(Delta, u, v) {
  empty <- which(is.na(Delta), arr.ind = TRUE)
  full <- which(!is.na(Delta), arr.ind = TRUE)
  d2 <- outer(u[empty[, 1]], u[full[, 1]], "-")^2 + outer(v[empty[, 2]], v[full[, 2]], "-")^2
  Delta[empty] <- Delta[full[apply(d2, 1, which.min), , drop = FALSE]]
  structure(Delta, nn_ties = sum(rowSums(d2 == apply(d2, 1, min)) > 1))
}

# Cumulative sums down the rows, then along the columns.
ref_cumsum2 <- function(M) {
  for (i in seq_len(nrow(M))[-1]) M[i, ] <- M[i, ] + M[i - 1, ]
  for (j in seq_len(ncol(M))[-1]) M[, j] <- M[, j] + M[, j - 1]
  M
}
ref_diff_rows <- function(M) M[-1, , drop = FALSE] - M[-nrow(M), , drop = FALSE]
ref_diff_cols <- function(M) M[, -1, drop = FALSE] - M[, -ncol(M), drop = FALSE]
ref_mid_rows <- function(M) (M[-1, , drop = FALSE] + M[-nrow(M), , drop = FALSE]) / 2
ref_mid_cols <- function(M) (M[, -1, drop = FALSE] + M[, -ncol(M), drop = FALSE]) / 2

# First-order ALE of a factor -----------------------------------------------------

# Returns list(levels, f): the levels present, in ALEPlot's MDS order (or in
# `order`, e.g. levels() of an ordered factor, on which ALEPlot 1.1 itself
# fails), and the centred effect at each.
ref_al_factor <- function(X, J, pred, w = NULL, order = NULL) {
  d <- ref_drop_zero_weight(X, w)
  X <- d$X
  wt <- d$wt
  stopifnot(is.factor(X[[J]]))
  X[[J]] <- droplevels(X[[J]]) # as ALEPlot (this also changes the factor passed to pred)
  lev <- if (is.null(order)) levels(X[[J]])[ref_level_order(X, J, d$w, wt)] else
    order[order %in% levels(X[[J]])]
  r <- match(X[[J]], lev) # rank of each row's level
  stopifnot(!anyNA(r))
  K <- length(lev)

  # Effect of the step from level k to k + 1, estimated on the rows at level
  # k (moved up) and at level k + 1 (moved down), pooled.
  move <- function(rows, k) {
    Xn <- X[rows, , drop = FALSE]
    Xn[[J]][] <- lev[k]
    pred(Xn)
  }
  y <- pred(X)
  up <- which(r < K)
  dn <- which(r > 1)
  diffs <- c(move(up, r[up] + 1) - y[up], y[dn] - move(dn, r[dn] - 1))
  step <- c(r[up], r[dn] - 1)
  ws <- c(wt[up], wt[dn])
  delta <- rowsum(ws * diffs, step)[, 1] / rowsum(ws, step)[, 1]

  # Accumulate from the first level; centre on the (weighted) level frequencies.
  f <- c(0, cumsum(delta))
  p <- rowsum(wt, r)[, 1] / sum(wt)
  list(levels = lev, f = unname(f - sum(f * p)))
}

# Second-order ALE ---------------------------------------------------------------

# ALEPlot's second-order effect for J = c(j1, j2): numeric x numeric, or
# factor x numeric (j1 the factor). Returns list(x1, x2, f, nn_ties): x1, x2
# and f match ALEPlot's x.values[[1]], x.values[[2]] and f.values (x1: the
# MDS-ordered levels when j1 is a factor); nn_ties counts the empty cells
# whose nearest non-empty cell is tied (see ref_fill_nearest()).
ref_al_2d <- function(X, J, pred, K, w = NULL) {
  d <- ref_drop_zero_weight(X, w)
  X <- d$X
  wt <- d$wt
  x2 <- X[[J[2]]]
  z2 <- ref_al_edges(x2, K, d$w)
  K2 <- length(z2) - 1
  a2 <- ref_al_bin(x2, z2)
  v <- (z2[-1] + z2[-(K2 + 1)]) / 2 / (max(z2) - min(z2)) # cell centres, normalised
  # Model at the rows `rows` with j1 set to `x1` and j2 to `x2`.
  at <- function(rows, x1, x2) {
    Xn <- X[rows, , drop = FALSE]
    if (is.factor(Xn[[J[1]]])) Xn[[J[1]]][] <- x1 else Xn[[J[1]]] <- x1
    Xn[[J[2]]] <- x2
    pred(Xn)
  }
  # Weighted mean second differences per cell; empty cells take the value of
  # the nearest non-empty cell.
  cell_means <- function(diffs, ws, i, j, K1, u) {
    W <- ref_cell_sums(ws, i, j, K1, K2)
    Delta <- ref_cell_sums(ws * diffs, i, j, K1, K2) / W
    Delta[W == 0] <- NA
    ref_fill_nearest(Delta, u, v)
  }

  if (is.factor(X[[J[1]]])) {
    X[[J[1]]] <- droplevels(X[[J[1]]])
    lev <- levels(X[[J[1]]])[ref_level_order(X, J[1], d$w, wt)]
    r <- match(X[[J[1]]], lev)
    K1 <- length(lev)
    # Second difference over the level step k -> k + 1 and the row's j2-bin,
    # on the rows at level k (up) and at level k + 1 (down), pooled per step.
    second_diff <- function(rows, k) {
      rise <- function(level) at(rows, level, z2[a2[rows] + 1]) - at(rows, level, z2[a2[rows]])
      rise(lev[k + 1]) - rise(lev[k])
    }
    up <- which(r < K1)
    dn <- which(r > 1)
    Delta <- cell_means(c(second_diff(up, r[up]), second_diff(dn, r[dn] - 1)), wt[c(up, dn)],
                        c(r[up], r[dn] - 1), a2[c(up, dn)], K1 - 1, seq_len(K1 - 1) / (K1 - 1))
    fJ <- rbind(0, cbind(0, ref_cumsum2(Delta))) # accumulated: K1 levels x (K2 + 1) j2-edges
    b <- ref_cell_sums(wt, r, a2, K1, K2) # weight of each level x j2-bin
    # Remove the main effects implied by fJ: for j2, its increments averaged
    # over the levels; for j1, the step increments (mean of the two j2-edges
    # of a bin) averaged with weights (b[k, ] + b[k + 1, ]) / 2.
    f2 <- c(0, cumsum(colSums(b * ref_diff_cols(fJ)) / colSums(b)))
    bs <- ref_mid_rows(b)
    f1 <- c(0, cumsum(rowSums(bs * ref_mid_cols(ref_diff_rows(fJ))) / rowSums(bs)))
    fJ <- fJ - outer(f1, f2, "+")
    fJ <- fJ - sum(b * ref_mid_cols(fJ)) / sum(b)
    return(list(x1 = lev, x2 = z2, f = fJ, nn_ties = attr(Delta, "nn_ties")))
  }

  x1 <- X[[J[1]]]
  z1 <- ref_al_edges(x1, K, d$w)
  K1 <- length(z1) - 1
  a1 <- ref_al_bin(x1, z1)
  # Second difference over each row's cell: the rise across its j2-bin at the
  # upper minus that at the lower j1-edge.
  rows <- seq_len(nrow(X))
  rise <- function(x1) at(rows, x1, z2[a2 + 1]) - at(rows, x1, z2[a2])
  diffs <- rise(z1[a1 + 1]) - rise(z1[a1])
  Delta <- cell_means(diffs, wt, a1, a2, K1, (z1[-1] + z1[-(K1 + 1)]) / 2 / (max(z1) - min(z1)))
  fJ <- rbind(0, cbind(0, ref_cumsum2(Delta))) # accumulated, at the (K1 + 1) x (K2 + 1) edges
  b <- ref_cell_sums(wt, a1, a2, K1, K2)
  # Remove the main effects implied by fJ: its increments along one variable,
  # averaged over the two edges of each bin of the other, weighted by b.
  f1 <- c(0, cumsum(rowSums(b * ref_mid_cols(ref_diff_rows(fJ))) / rowSums(b)))
  f2 <- c(0, cumsum(colSums(b * ref_mid_rows(ref_diff_cols(fJ))) / colSums(b)))
  fJ <- fJ - outer(f1, f2, "+")
  fJ <- fJ - sum(b * ref_mid_rows(ref_mid_cols(fJ))) / sum(b)
  list(x1 = z1, x2 = z2, f = fJ, nn_ties = attr(Delta, "nn_ties"))
}
