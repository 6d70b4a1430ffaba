# Bands of accumulated-local profiles. An AL profile is a linear function
# of means of per-row contributions, given the edges and the counts that
# weigh its centring, plus the mean prediction it is shifted by (one
# variable). Analytic bands propagate each row's influence on those means
# through the map's matrix (linear_map()), keeping the covariance the
# centring and the shift bring; bootstrap bands recompute the profile with
# each resample's counts as weights.

# The standard errors of profile = A m (+ the mean prediction over rows
# with predictions f): from the contributions d (entries at rows `pos` of
# n rows, in groups `cell` with means m and weighted sizes wsum), the
# profile's map A (values x groups), the rows' weights w; f NULL for a
# profile without a shift; `shares`: each row's term through the weights
# of the centring (its value in the centring less the centring constant),
# or NULL; `by_count`: list(map = J, cell) when row r also moves the
# profile by w_r J[, cell_r] (through its cell's count, 2-D AL), or NULL.
linear_profile_se <- function(A, d, pos, cell, w, means, wsum, f = NULL, shares = NULL, by_count = NULL,
                              threads = 1L) {
  a <- w[pos] * (d - means[cell]) / wsum[cell]
  # Each group's mean gets its own small-sample factor n_eff / (n_eff - 1)
  # (as interval AL's intervals; a 2-D AL cell may hold a few rows), the
  # rest that of all rows (influence_se()).
  a <- a * sqrt(group_factors(cell, w[pos], wsum)[cell] / sample_factor(w))
  s <- NULL
  if (!is.null(f)) s <- w * (f - sum(w * f) / sum(w)) / sum(w)
  if (!is.null(shares)) s <- (s %||% 0) - w * shares / sum(w)
  if (!is.null(by_count)) {
    # Entries of a second map beside A.
    pos <- c(pos, seq_along(w))
    cell <- c(cell, ncol(A) + by_count$cell)
    a <- c(a, w)
    A <- cbind(A, by_count$map)
  }
  influence_se(influence_ss(A, length(w), pos = pos, cell = cell, a = a, s = s, threads = threads), w)
}

# The small-sample factor n_eff / (n_eff - 1) of Kish's effective size of
# rows with weights w (1 for a single row or less), and that of each group
# of entries (groups `cell`, weighted sizes wsum).
sample_factor <- function(w) {
  n_eff <- sum(w)^2 / sum(w^2)
  if (n_eff > 1 + 1e-9) n_eff / (n_eff - 1) else 1
}
group_factors <- function(cell, w, wsum) {
  n_eff <- wsum^2 / tabulate_weighted(cell, w^2, length(wsum))
  ifelse(!is.na(n_eff) & n_eff > 1 + 1e-9, n_eff / (n_eff - 1), 1)
}

# Bands of interval AL (accumulated_interval_request()) for output c:
# local effects dy of the rows (`rows`, in intervals k of K), their weights
# w, the interval sums s (interval_sums()), and the predictions f_obs at the
# rows of the shift (`observed`, weights w_obs). list(se) or list(reps).
al_interval_bands <- function(setup, dy, k, w, K, s, rows, f_obs, observed, w_obs, output) {
  if (setup$bands$moments) {
    A <- linear_map(function(m) accumulate_center(m, s$wsum), K)
    return(list(se = interval_al_se(A, dy, k, w, s, match(rows, observed), f_obs, w_obs)))
  }
  if (!setup$bands$resampled) return(list())
  sr <- resample_sums(setup, rows, dy, w, k, K)
  so <- resampled_predictions(setup, observed, f_obs, w_obs, output)
  reps <- vapply(seq_len(ncol(sr$sum)), function(b) {
    accumulate_center(resample_means(sr, b, s), sr$wsum[, b]) + so$sum[1L, b] / so$wsum[1L, b]
  }, numeric(K + 1L))
  list(reps = reps)
}

# Standard errors of interval AL, h = A m - c + the mean prediction, by
# linearisation: each row's influence on its interval's mean local effect
# (A[, k] w (d - m_k) / W_k), on the mean prediction (w (f - mean f) / W)
# and, through the interval shares that weigh the centring c, -w (mid_k -
# c) / W (mid_k the midpoint of the accumulated effects over interval k).
# The edges are sample quantiles, so the shares are not fixed: without this
# term the bands are too wide; centring the predictions within intervals
# as strata makes them far too narrow for correlated variables. Small-sample
# factors as linear_profile_se(). `at`: the interval rows' positions among
# the rows of the shift (f, weights w_f).
interval_al_se <- function(A, d, k, w, s, at, f, w_f) {
  K <- ncol(A)
  m <- s$sum / s$wsum
  acc <- c(0, cumsum(m))
  mid <- (acc[-1L] + acc[-(K + 1L)]) / 2
  centre <- sum(s$wsum * mid) / sum(s$wsum)
  e <- w_f * (f - sum(w_f * f) / sum(w_f)) / sum(w_f)
  e[at] <- e[at] - w * (mid[k] - centre) / sum(w)
  a <- w * (d - m[k]) / s$wsum[k]
  fk <- group_factors(k, w, s$wsum)
  f_all <- sample_factor(w_f)
  # sum over rows of (A[, k] a + e)^2: per interval A^2 S_aa + 2 A S_ae, plus S_ee.
  S_aa <- tabulate_weighted(k, a^2, K)
  S_ae <- tabulate_weighted(k, a * e[at], K)
  v <- (A^2) %*% (fk * S_aa) + 2 * A %*% (fk * S_ae) + f_all * sum(e^2)
  sqrt(pmax(as.vector(v), 0))
}

# Bands of AL of a categorical variable (accumulated_levels_request()) for
# output c: contributions d at entries `pos` (rows 1..n of `rows`) in pairs
# of adjacent levels `pair`, with their sums s (interval_sums()), the rows'
# levels o, weights w and predictions f, the levels' weights p (K).
al_levels_bands <- function(setup, d, s, pos, pair, o, w, f, p, rows, output) {
  K <- length(p)
  profile <- function(m, p) {
    g <- c(0, cumsum(m))
    g - sum(g * p) / sum(p)
  }
  if (setup$bands$moments) {
    A <- linear_map(function(m) profile(m, p), K - 1L)
    shares <- profile(s$sum / s$wsum, p)[o]
    return(list(se = linear_profile_se(A, d, pos, pair, w, s$sum / s$wsum, s$wsum, f, shares,
                                       threads = setup$threads)))
  }
  if (!setup$bands$resampled) return(list())
  # The resamples' pair sums, level weights and mean predictions.
  sp <- resample_sums(setup, rows[pos], d, w[pos], pair, K - 1L)
  ok <- which(!is.na(o))
  sl <- resample_sums(setup, rows[ok], NULL, w[ok], o[ok], K)
  sf <- resampled_predictions(setup, rows, f, w, output)
  reps <- vapply(seq_len(ncol(sp$sum)), function(b) {
    profile(resample_means(sp, b, s), sl$wsum[, b]) + sf$sum[1L, b] / sf$wsum[1L, b]
  }, numeric(K))
  list(reps = reps)
}

# The resamples' weighted sums of the predictions f (output `output`) at
# background rows `rows` with weights w, as resample_sums() gives them
# (1 x B), for the shift of AL: those over all rows are made once per call
# (setup$resampled_fitted, resampled_fitted()), being the same for every
# variable observed at every row.
resampled_predictions <- function(setup, rows, f, w, output) {
  all <- setup$resampled_fitted
  if (!is.null(all) && length(rows) == setup$n) {
    return(list(sum = all$sum[output, , drop = FALSE], wsum = all$wsum))
  }
  resample_sums(setup, rows, f, w)
}

# The setup with the resamples' sums of the predictions at all background
# rows (`fitted`, n x outputs), for bootstrap bands of AL profiles
# (resampled_predictions()).
resampled_fitted <- function(setup, fitted) {
  if (setup$bands$type != "bootstrap" || is.null(fitted) || anyNA(fitted)) return(setup)
  setup$resampled_fitted <- resample_sums(setup, seq_len(setup$n), fitted, setup$weights)
  setup
}

# Bands of kernel AL (accumulated_kernel_request()) for output c: the ICE
# curves Y (G x n) of the rows (values x, weights w, predictions f), the
# kernel weights times the rows' weights kw (G x n), the grid z, and the
# rows' terms in the centring (kernel_centring(): values within the grid
# and weights, 0 for rows outside it).
al_kernel_bands <- function(setup, Y, kw, z, x, w, f, rows, centring) {
  G <- length(z)
  dY <- Y[-1L, , drop = FALSE] - Y[-G, , drop = FALSE]
  kl <- kw[-1L, , drop = FALSE]
  xc <- centring$x
  inside <- centring$inside
  profile <- function(r, w) {
    g <- cumsum(c(0, r))
    g - sum(w * stats::approx(z, g, xc)$y) / sum(w)
  }
  if (setup$bands$moments) {
    den <- rowSums(kl)
    r <- rowSums(kl * dY) / den
    wc <- centring$w
    A <- linear_map(function(r) profile(r, wc), G - 1L)
    # (The centring weighs the rows' own values of the accumulated curve.)
    g <- cumsum(c(0, r))
    gx <- stats::approx(z, g, xc)$y
    s <- w * (f - sum(w * f) / sum(w)) / sum(w) - wc * (gx - sum(wc * gx) / sum(wc)) / sum(wc)
    ss <- influence_ss(A, length(w), Vt = kl * (dY - r) / den, s = s, threads = setup$threads)
    return(list(se = influence_se(ss, w)))
  }
  if (!setup$bands$resampled) return(list())
  counts <- setup$resamples[rows, , drop = FALSE]
  R <- resample_product(setup, kl * dY, rows) / resample_product(setup, kl, rows)
  reps <- vapply(seq_len(ncol(counts)), function(b) {
    cw <- counts[, b] * w
    profile(R[, b], cw * inside) + sum(cw * f) / sum(cw)
  }, numeric(G))
  list(reps = reps)
}

# The group means of resample b (column b of the sums sr), an empty group
# keeping the full sample's mean (sums s): a resample that leaves out every
# row of an interval says nothing about its local effect (its weight in the
# centring is then 0).
resample_means <- function(sr, b, s) {
  m <- sr$sum[, b] / sr$wsum[, b]
  empty <- !(sr$wsum[, b] > 0)
  m[empty] <- s$sum[empty] / s$wsum[empty]
  m
}

# Bands of a second-order AL surface (ale_2d_surface()) for one output:
# the rows' second differences d (entries at rows `pos` of `rows`, in the
# cells of `cl`, ale_2d_cells()), the rows' weights w. Cells without rows
# take the value of their nearest cell with rows (`src`, the fill applied
# to the cells' indices), for every resample.
#
# Analytic: the surface is linear in the cell means given b, and a ratio
# of b-weighted sums in b (the removal of the first-order effects and the
# centring weigh the cells by their counts); b is a sample of counts, so a
# row moves the surface both through its cell's mean and through its
# cell's count: w_i dS/db_{c(i)} (the Jacobian J of the surface in b at the
# sample's means, by the complex step, exact to rounding). S is
# homogeneous of degree 0 in b, so sum_i w_i J[, c(i)] = J b = 0: these
# terms are centred. Leaving them out (b held fixed) makes the bands far
# too narrow: a surface whose second differences do not vary within cells
# (x1 x2) would have bands of width 0.
al_2d_bands <- function(setup, d, pos, cl, w, rows) {
  KK <- cl$K1 * cl$K2
  s <- interval_sums(matrix(d), cl$cell, w[pos], KK)
  b <- cl$counts_of(w)
  present <- tabulate(cl$cell, KK) > 0
  src <- as.vector(cl$fill(matrix(ifelse(present, seq_len(KK), NA_real_), cl$K1, cl$K2)))
  surface <- function(m, b) cl$centre(matrix(m[src], cl$K1, cl$K2), b)
  if (setup$bands$moments) {
    full <- which(s$wsum > 0)
    A <- linear_map(function(m) surface(replace(numeric(KK), full, m), b), length(full))
    m <- replace(numeric(KK), full, (s$sum / s$wsum)[full])
    J <- count_jacobian(function(b) surface(m, b), b)
    return(list(se = linear_profile_se(A, d, pos, match(cl$cell, full), w, (s$sum / s$wsum)[full],
                                       s$wsum[full], by_count = list(map = J, cell = cl$b_cell),
                                       threads = setup$threads)))
  }
  if (!setup$bands$resampled) return(list())
  counts <- setup$resamples[rows, , drop = FALSE]
  sc <- resample_sums(setup, rows[pos], d, w[pos], cl$cell, KK)
  reps <- vapply(seq_len(ncol(counts)), function(r) {
    as.vector(surface(resample_means(sc, r, s), cl$counts_of(counts[, r] * w)))
  }, numeric(length(surface(numeric(KK), b))))
  list(reps = reps)
}

# The Jacobian of a surface S(b) (values x cells of b) at the counts b, by
# the complex step: Im S(b + i h e_c) / h, exact to rounding for a rational
# function of b (no difference of nearby values); columns of cells without
# rows are 0 (no row moves them). S is homogeneous of degree 0 in b, so it
# is differentiated at b / sum(b) (counts of any scale, weights down to the
# smallest doubles) and the derivative divided by sum(b).
count_jacobian <- function(S, b) {
  total <- sum(b)
  p <- b / total
  h <- 1e-20
  V <- length(S(p))
  J <- matrix(0, V, length(b))
  for (c in which(b > 0)) {
    pc <- p + 0i
    pc[c] <- complex(real = p[c], imaginary = h)
    J[, c] <- Im(as.vector(S(pc))) / h / total
  }
  J
}
