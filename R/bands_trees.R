# Model uncertainty of a forest's profiles, from its trees. A forest that
# averages its trees (ranger, randomForest) has a PD that is the mean of
# its trees' PDs, which the native engine gives in one set walk
# (tree_partial()) added to the chunks of a PD (tree_spec()); their spread
# (quantiles, as replicates) and, with the in-bag counts, the
# infinitesimal-jackknife variance follow without new predictions. Both
# describe the forest's randomness given the background rows.

# The per-tree walk of background rows `rows` (weights w), columns `cols`
# at `grid`: a specification of the executor's (native_trees()); `count`:
# it stands in for the profile's predictions, or goes beside its curves.
tree_spec <- function(rows, cols, grid, w, count) {
  list(kind = "trees", rows = rows, cols = as.integer(cols), grid = grid, w = w, count = count)
}

# Per-tree profiles as a G x T x outputs array.
tree_array <- function(theta) {
  if (is.matrix(theta) && is.numeric(theta)) return(array(theta, c(dim(theta), 1L)))
  if (is.array(theta) && is.numeric(theta) && length(dim(theta)) == 3L) return(theta)
  cli::cli_abort("{.arg theta} must be a G x trees matrix or a G x trees x outputs array.", call = NULL)
}

# The infinitesimal-jackknife variance of a forest's profile at each grid
# point (Wager, Hastie and Efron, 2014, JMLR 15, 1625-1651), as ranger's
# predict(se.method = "infjack") computes it, from per-tree profiles theta
# (a G x T matrix, or G x T x outputs) and in-bag counts `inbag` (a list of
# T vectors, ranger's, or an n x T matrix, randomForest's; N[i, t] the times
# row i was drawn for tree t): V_IJ(g) = sum_i Cov_t(N_it, theta_tg)^2
# (denominator T) minus the Monte Carlo bias n v_N / T^2 sum_t (theta_tg -
# mean_t theta_tg)^2, v_N the mean over rows of the variance of N[i, ] (for
# a bootstrap about 1: eq. (7), V_IJ-U); times 1 / (1 - mean(N))^2 for
# sampling without replacement. As in ranger, rows in the bag of every tree
# are left out and the variance may be negative; `calibrate` applies
# ranger's empirical-Bayes calibration (more than 20 grid points; draws
# random numbers). A vector of G for a matrix theta, else G x outputs.
infjack_variance <- function(theta, inbag, calibrate = FALSE) {
  single <- is.matrix(theta)
  theta <- tree_array(theta)
  d <- dim(theta)
  N <- inbag_matrix(inbag, d[2L])
  out <- matrix(NA_real_, d[1L], d[3L], dimnames = list(NULL, dimnames(theta)[[3L]]))
  for (k in seq_len(d[3L])) {
    pred <- matrix(theta[, , k], d[1L], d[2L])
    v <- ij_variance(pred, N)
    out[, k] <- if (isTRUE(calibrate)) ij_calibrate(v, pred, N) else v
  }
  if (single) out[, 1L] else out
}

# The in-bag counts as an n x T matrix of the rows that are out of the bag
# of some tree (ranger's predict() keeps only those).
inbag_matrix <- function(inbag, n_trees) {
  if (is.null(inbag)) {
    cli::cli_abort(c("The forest has no in-bag counts.",
                     i = "Grow it with {.code keep.inbag = TRUE} (ranger and randomForest)."), call = NULL)
  }
  if (is.list(inbag)) {
    if (length(unique(lengths(inbag))) > 1L) {
      cli::cli_abort("{.arg inbag} must hold one count per training row for every tree.", call = NULL)
    }
    inbag <- matrix(as.double(unlist(inbag, use.names = FALSE)), ncol = length(inbag))
  }
  if (!is.matrix(inbag) || !is.numeric(inbag) || ncol(inbag) != n_trees || anyNA(inbag)) {
    cli::cli_abort("{.arg inbag} must give counts for the {n_trees} trees of {.arg theta}.", call = NULL)
  }
  keep <- rowSums(inbag == 0) > 0
  if (!any(keep)) {
    cli::cli_abort("Every training row is in the bag of every tree: the infinitesimal jackknife needs out-of-bag rows.", call = NULL)
  }
  inbag[keep, , drop = FALSE]
}

# The bias-corrected IJ variance of the mean over the trees `used` of pred
# (G x T) with counts N (n x T), as ranger's rInfJack(): the covariance
# matrix product over all rows at once (n x G), the bias from the variance
# of the counts of the trees used, the inflation for subsampling from all.
ij_variance <- function(pred, N, used = seq_len(ncol(N))) {
  pred <- pred[, used, drop = FALSE]
  Nu <- N[, used, drop = FALSE]
  B <- length(used)
  centred <- pred - rowMeans(pred)
  Nbar <- rowMeans(Nu)
  # B * Cov_t(N_it, theta_tg): sum_t (N_it - Nbar_i) (theta_tg - mean_t theta_tg).
  C <- Nu %*% t(centred) - outer(Nbar, rowSums(centred))
  raw <- colSums(C^2) / B^2
  n_var <- mean(rowMeans(Nu^2) - Nbar^2)
  v <- raw - nrow(N) * n_var * rowSums(centred^2) / B^2
  if (max(N) == 1) v <- v / (1 - mean(N))^2
  v
}

# ranger's calibration of IJ variances v (of pred, G x T): the Monte Carlo
# noise of v estimated from the IJ of a random half of the trees, then an
# empirical-Bayes shrinkage of v over the grid points. Not for 20 points or
# fewer (ranger warns and keeps v); a failed fit keeps v with a warning.
ij_calibrate <- function(v, pred, N) {
  if (length(v) <= 20L) {
    cli::cli_warn("Calibration of the infinitesimal jackknife needs more than 20 grid points; the variances are not calibrated.", call = NULL)
    return(v)
  }
  B <- ncol(pred)
  # The same draws as ranger's sample(1:B, ceiling(B / 2)).
  half <- sample.int(B, ceiling(B / 2))
  delta <- length(half) / B
  noise <- (delta^2 + (1 - delta)^2) / (2 * (1 - delta)^2) * mean((ij_variance(pred, N, half) - v)^2)
  tryCatch(eb_calibrate(v, noise), error = function(e) {
    cli::cli_warn(c("The calibration of the infinitesimal jackknife failed; the variances are not calibrated.",
                    x = conditionMessage(e)), call = NULL)
    v
  })
}

# Posterior means of the true variances given v ~ N(true, noise), under a
# prior fitted to v by eb_prior(). ranger interpolates the posterior mean
# between the quartiles of v (its call quantile(vars, q = ...) does not
# set `probs`, so the default quartiles are used), and so does this.
eb_calibrate <- function(v, noise) {
  if (noise <= 0 || min(v) == max(v)) return(pmax(v, 0))
  sigma <- sqrt(noise)
  prior <- eb_prior(v, sigma)
  at <- unique(stats::quantile(v, names = FALSE))
  post <- vapply(at, function(x0) {
    p <- stats::dnorm((prior$x - x0) / sigma) * prior$g
    sum(p / sum(p) * prior$x)
  }, numeric(1))
  stats::approx(at, post, xout = v)$y
}

# Efron's (2014) g-modelling of the prior of the true variances (as
# ranger's gfit(), p = 2, 1000 bins, a uniform slab of 10%): on a grid x of
# 1000 points covering v and 0, a density exp(eta1 x + eta2 x^2) on x >= 0
# mixed with a uniform one, fitted by maximum likelihood of v under
# Gaussian noise sigma (the density convolved with the noise kernel,
# circularly, the kernel's mode at x = 0 rotated to the front).
eb_prior <- function(v, sigma, slab = 0.1) {
  s <- stats::sd(v)
  x <- seq(min(min(v) - 2 * s, 0), max(max(v) + 2 * s, s), length.out = ij_prior_points)
  pos <- as.numeric(x >= 0)
  zero <- max(which(x <= 0))
  kernel <- stats::dnorm(x / sigma) * (x[2L] - x[1L]) / sigma
  if (zero > 1L) kernel <- kernel[c(zero:length(x), seq_len(zero - 1L))]
  basis <- cbind(x * pos, x^2 * pos)
  prior_of <- function(eta) {
    raw <- exp(basis %*% eta) * pos
    list(raw = raw, g = (1 - slab) * raw / sum(raw) + slab * pos / sum(pos))
  }
  nll <- function(eta) {
    p <- prior_of(eta)
    if (sum(p$raw) == Inf || sum(p$raw) <= 100 * .Machine$double.eps) {
      return(ij_prior_penalty * (length(v) + sum(eta^2)))
    }
    f <- stats::convolve(p$g, kernel)
    sum(stats::approx(x, -log(pmax(f, 1e-7)), v)$y)
  }
  eta <- stats::nlm(nll, c(-1, -1))$estimate
  list(x = x, g = as.vector(prior_of(eta)$g))
}

# The in-bag counts of the setup's forest (its adapter's inbag_counts():
# ranger's inbag.counts, randomForest's inbag), for infjack_variance(); an
# error naming the fix when the forest was grown without them.
tree_inbag <- function(setup) {
  # (Of a framework's model, the forest inside it.)
  model <- setup$adapter$inner$model %||% setup$model
  counts <- setup$adapter$inbag_counts
  inbag <- if (is.function(counts)) counts(model)
  if (is.null(inbag)) {
    fix <- if (is.function(counts)) {
      "Grow the forest with {.code keep.inbag = TRUE}."
    } else {
      "Only ranger and randomForest forests keep in-bag counts."
    }
    cli::cli_abort(c("The infinitesimal jackknife needs the in-bag counts of the forest's trees, and this {.cls {class(model)[1L]}} model has none.",
                     i = fix), call = setup$error_call)
  }
  inbag
}

# The bands of a PD from the per-tree profiles theta (G x T x outputs):
# "trees", their percentiles (kept as replicates, one per tree);
# "infjack", the profile -/+ the normal quantile times the infinitesimal
# jackknife's standard error (negative variance estimates, which the bias
# correction can give, count as 0).
tree_bands <- function(setup, theta) {
  if (setup$bands$type == "trees") return(list(reps = theta))
  v <- infjack_variance(theta, tree_inbag(setup))
  list(se = matrix(sqrt(pmax(v, 0)), dim(theta)[1L]))
}
