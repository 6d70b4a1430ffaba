# Model uncertainty of a forest's profiles, from its trees. A forest that
# averages its trees (ranger, randomForest) has a PD that is the mean over
# the trees of each tree's own PD, so the native engine gives the per-tree
# PDs in one set walk (tree_partial()); their spread over the trees (their
# quantiles, as replicates) and, with the trees' in-bag counts, the
# infinitesimal-jackknife variance of the forest's PD
# (infjack_variance()) follow without new predictions. Both describe the
# randomness of the forest given the background rows, not the sampling of
# those rows (see ?profile_bands for the sampling bands).

#' Per-tree partial dependence of a forest
#'
#' For background rows `rows` of the setup (weights `w`), column `j` and grid
#' values `z_1..z_G`, `theta[g, t, c] = sum_i w_i T_t(x_i^{j = z_g}) / sum_i
#' w_i`, where `T_t` is tree t's prediction of output c on the scale where
#' the forest's prediction is the mean of the trees' (a ranger or
#' randomForest regression tree's leaf value, a probability tree's class
#' fractions, a randomForest classification tree's one-hot vote). The mean
#' over t is the forest's PD (to rounding).
#'
#' @param setup An `mp_setup` whose engine is the native one, for a forest
#'   that averages its trees.
#' @param j The profiled column of `setup$data`: position or name.
#' @param grid The G grid values (of the column's type, any order).
#' @param rows Background rows (1-based) to average over.
#' @returns A G x T x outputs array (T trees; outputs the setup's profiled
#'   outputs, named by their classes in the third dimension for a
#'   classifier).
#' @noRd
tree_partial <- function(setup, j, grid, rows = seq_len(setup$n)) {
  nm <- tree_forest(setup)
  j <- tree_column(setup, j)
  col <- setup$data[[j]]
  k <- match(names(setup$data)[j], nm$features)
  # A column the model does not read: every tree's curve is flat (k = NA
  # leaves no feature free in the walks).
  z <- if (is.na(k)) rep(0, length(grid)) else native_column(nm, k, column_values(col, grid), col)
  theta <- engine_tree_partial(setup, rows, k, z)
  theta <- theta[, , setup$outputs$columns, drop = FALSE]
  if (anyNA(theta)) native_missing(setup)
  dimnames(theta) <- list(NULL, NULL, setup$outputs$classes)
  theta
}

# The compiled forest of a setup, when its trees are averaged (mean
# aggregate, identity transform); a clear error otherwise.
tree_forest <- function(setup) {
  if (!inherits(setup, "mp_setup")) {
    cli::cli_abort("{.arg setup} must be an {.cls mp_setup}, not {.obj_type_friendly {setup}}.", call = NULL)
  }
  if (request_engine(setup) != "native") {
    cls <- class(setup$model)[1L]
    # (cli interpolates the message itself, not the text of a variable.)
    msg <- if (request_engine(setup, native = FALSE, linear = TRUE) == "linear") {
      "Per-tree profiles need the native tree engine; this setup evaluates a linear predictor, which has no trees."
    } else {
      "Per-tree profiles need the native tree engine; this setup calls {.fn predict} (engine {.val predict}, a {.arg predict_function} of your own, or a {.cls {cls}} model that the engine does not compile)."
    }
    cli::cli_abort(c(msg, i = "Use a ranger or randomForest forest with the model's own predict function."),
                   call = setup$error_call)
  }
  nm <- engine_model(setup)
  if (!identical(nm$aggregate, "mean") || !identical(nm$transform, "identity")) {
    cli::cli_abort(c(
      "A {.cls {class(setup$model)[1L]}} model adds up its trees (boosting): the spread of its trees is not an uncertainty of its profile.",
      i = "Per-tree profiles are for forests that average their trees (ranger, randomForest)."
    ), call = setup$error_call)
  }
  nm
}

# Column j of the background as a position, from a position or a name.
tree_column <- function(setup, j) {
  cols <- names(setup$data)
  pos <- NA_integer_
  if (length(j) == 1L && is.character(j)) pos <- match(j, cols)
  if (length(j) == 1L && is.numeric(j) && j %in% seq_along(cols)) pos <- as.integer(j)
  if (is.na(pos)) {
    cli::cli_abort("{.arg j} must name one column of the data, or give its position.", call = setup$error_call)
  }
  pos
}

# Per-tree profiles as a G x T x outputs array.
tree_array <- function(theta) {
  if (is.matrix(theta) && is.numeric(theta)) return(array(theta, c(dim(theta), 1L)))
  if (is.array(theta) && is.numeric(theta) && length(dim(theta)) == 3L) return(theta)
  cli::cli_abort("{.arg theta} must be a G x trees matrix or a G x trees x outputs array.", call = NULL)
}

#' Infinitesimal-jackknife variance of a forest's profile
#'
#' The variance over the forest's bootstrap (or subsample) draws of the
#' forest's profile at each grid point, by the infinitesimal jackknife of
#' Wager, Hastie and Efron (2014), from per-tree profiles `theta` (T trees)
#' and in-bag counts `N` (n training rows x T; `N[i, t]` the times row i was
#' drawn for tree t), as ranger's `predict(type = "se", se.method =
#' "infjack")` computes it for predictions:
#'
#' `V_IJ(g) = sum_i Cov_t(N_it, theta_tg)^2`, the covariance over the trees
#' with denominator T; minus the Monte Carlo bias
#' `n * v_N / T^2 * sum_t (theta_tg - mean_t theta_tg)^2`, `v_N` the mean over
#' the rows of the variance over the trees of `N[i, ]` (denominator T); for a
#' bootstrap `v_N` is about 1 and this is eq. (7) of the paper, `V_IJ-U`.
#' Sampling without replacement (all counts 0 or 1) multiplies the result by
#' `1 / (1 - mean(N))^2`. As in ranger, the rows that are in the bag of every
#' tree are left out (n counts the others) and the variance may be negative
#' (Monte Carlo noise with few trees); `calibrate = TRUE` applies ranger's
#' empirical-Bayes calibration (Efron's g-modelling over the grid points,
#' the noise scale from the trees drawn at random to half), which gives
#' non-negative values, needs more than 20 grid points and draws random
#' numbers.
#'
#' @param theta Per-tree profiles: a G x T matrix, or the G x T x outputs
#'   array of `tree_partial()`.
#' @param inbag In-bag counts: a list of T vectors of n counts (ranger's
#'   `inbag.counts`) or an n x T matrix (randomForest's `inbag`).
#' @param calibrate Apply ranger's calibration?
#' @returns The variances: a vector of G for a matrix `theta`, else a G x
#'   outputs matrix (columns named by the third dimension of `theta`).
#' @references Wager, S., Hastie, T. and Efron, B. (2014). Confidence
#'   intervals for random forests: the jackknife and the infinitesimal
#'   jackknife. *Journal of Machine Learning Research* 15, 1625-1651.
#' @noRd
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
  x <- seq(min(min(v) - 2 * s, 0), max(max(v) + 2 * s, s), length.out = 1000L)
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
      return(1000 * (length(v) + sum(eta^2)))
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

# The bands of a PD estimate e from the forest's trees: "trees", the
# percentiles of the per-tree profiles (kept as replicates, one per tree);
# "infjack", the profile -/+ the normal quantile times the infinitesimal
# jackknife's standard error (negative variance estimates, which the bias
# correction can give, count as 0). An estimate without its profile
# (e$yhat NULL) gets the mean of the per-tree profiles.
tree_bands <- function(setup, j, grid, rows, e) {
  theta <- tree_partial(setup, j, grid, rows)
  if (is.null(e$yhat)) {
    # The forest's PD, the mean of its trees' (partial_request()).
    e$yhat <- matrix(apply(theta, c(1L, 3L), mean), dim(theta)[1L])
  }
  if (band_type(setup) == "trees") {
    e$reps <- theta
    return(e)
  }
  v <- infjack_variance(theta, tree_inbag(setup))
  e$se <- matrix(sqrt(pmax(v, 0)), nrow(e$yhat))
  e
}
