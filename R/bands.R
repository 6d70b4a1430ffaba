# Bands of profiles: the band plan and the arithmetic every estimator
# shares. The sampling bands come from what the estimators hold, with no
# extra prediction; a forest's per-tree bands from a walk of its trees in
# the chunks of a PD (R/bands_trees.R). Formulas: ?profile_bands.

# ---- The band plan ------------------------------------------------------------

# The band plan of a setup (`setup$bands`, new_setup()): the setting
# list(type, level, B) and what estimators hand the plan's operations
# (ARCHITECTURE.md): `per_row`, each row's contributions; `moments`, each
# chunk's moments; `resampled`, the resamples' sums; `trees`, the per-tree walk.
band_plan <- function(setting) {
  type <- setting$type
  c(setting[c("type", "level", "B")],
    list(per_row = type %in% c("analytic", "bootstrap"), moments = type == "analytic",
         resampled = type == "bootstrap", trees = type %in% c("trees", "infjack")))
}

# The band setting a result reports (NULL without bands; for the trees'
# spread, B is the number of trees).
band_report <- function(setup, replicates = NULL) {
  b <- setup$bands
  if (b$type == "none") return(NULL)
  if (b$trees) b$B <- if (b$type == "trees") ncol(replicates) else NA_integer_
  b[c("type", "level", "B")]
}

# The band columns of an aggregated profile from its estimate e: `_se_`
# (analytic bands), `_lower_` and `_upper_`; bootstrap replicates go with
# the rows as attribute "replicates" (rows x B).
band_columns <- function(out, setup, e) {
  if (is.null(e$se) && is.null(e$reps)) return(out)
  reps <- if (!is.null(e$reps)) replicate_rows(e$reps)
  lim <- band_limits(e$yhat, setup$bands$level, e$se, reps)
  if (!is.null(e$se)) out$`_se_` <- as.vector(e$se)
  out$`_lower_` <- as.vector(lim$lower)
  out$`_upper_` <- as.vector(lim$upper)
  attr(out, "replicates") <- reps
  out
}

# ---- Standard errors -----------------------------------------------------------

# The standard error of a weighted mean m = sum(k y) / sum(k), from
# q = sum(k^2 (y - m)^2), K = sum(k) and K2 = sum(k^2): the linearised
# (sandwich) variance q / K^2 with the small-sample factor n_eff / (n_eff -
# 1) of Kish's effective sample size n_eff = K^2 / K2 (for equal weights,
# the familiar s / sqrt(n)). NA where n_eff is 1 (a single row) or less.
weighted_mean_se <- function(q, K, K2) {
  n_eff <- K^2 / K2
  out <- sqrt(n_eff / (n_eff - 1) * q) / K
  out[!(n_eff > 1 + 1e-9)] <- NA_real_
  out
}

# Standard errors of the weighted means over the columns of a G x m table
# Y, with row weights k, at the means `m` (G): G values.
table_se <- function(Y, k, m) {
  q <- as.vector(((Y - m)^2) %*% (k^2))
  weighted_mean_se(q, sum(k), sum(k^2))
}

# The standard errors of a profile linear in per-row contributions, from
# the sums over rows of their squared influences (`ss`, influence_ss()),
# with the small-sample factor of the rows' weights w.
influence_se <- function(ss, w) {
  n_eff <- sum(w)^2 / sum(w^2)
  if (!(n_eff > 1 + 1e-9)) return(rep(NA_real_, length(ss)))
  sqrt(n_eff / (n_eff - 1) * ss)
}

# The matrix of a linear map f from K values to profile values: column t
# is f of the t-th unit vector.
linear_map <- function(f, K) {
  vapply(seq_len(K), function(t) f(replace(numeric(K), t, 1)), numeric(length(f(numeric(K)))))
}

# ---- Band limits ------------------------------------------------------------------

# Replicates (G x B or G x B x outputs) as a matrix with a row per
# estimate (G fastest, then outputs, as as.vector(yhat)).
replicate_rows <- function(reps) {
  d <- dim(reps)
  matrix(aperm(array(reps, c(d[1L], d[2L], prod(d[-(1:2)]))), c(1L, 3L, 2L)), ncol = d[2L])
}

# Lower and upper limits at `level` around estimates `yhat` (any shape):
# yhat -/+ the normal quantile times `se`, or the percentiles of the
# replicates `reps` (replicate_rows()'s matrix, or an array it takes) where
# at least half of them are defined.
band_limits <- function(yhat, level, se = NULL, reps = NULL) {
  if (!is.null(se)) {
    z <- stats::qnorm((1 + level) / 2)
    return(list(lower = yhat - z * se, upper = yhat + z * se))
  }
  R <- if (length(dim(reps)) == 2L && nrow(reps) == length(yhat)) reps else replicate_rows(reps)
  a <- (1 - level) / 2
  # (= apply(R, 1, quantile, c(a, 1 - a), na.rm = TRUE, type = 7), NA where
  # fewer than half are defined; in C++.)
  lim <- row_quantiles(R, c(a, 1 - a))
  shape <- function(v) if (is.null(dim(yhat))) v else array(v, dim(yhat))
  list(lower = shape(lim[1L, ]), upper = shape(lim[2L, ]))
}

# ---- Bands of means of ICE curves ---------------------------------------------------

# The bands of weighted means of ICE curves (PD, kernel LD, 2-D PD),
# accumulated chunk by chunk without keeping the curves. `spec`: list(w
# (the rows' weights), kernel (NULL, or list(z, x, dmin, bandwidth) for
# kernel weights times w)). Analytic: each chunk's moments (grid_moments(),
# about its first row), combined exactly at the end; bootstrap: the
# replicates' weighted sums; per tree: each chunk's per-tree walk.

# Accumulators for n_chunks chunks of G grid points.
curve_band_init <- function(setup, G, n_chunks, spec) {
  C <- setup$n_outputs
  switch(setup$bands$type,
    analytic = list(moments = matrix(0, n_chunks, 4L * G * C)),
    bootstrap = list(bnum = matrix(0, G, setup$bands$B * C),
                     bden = matrix(0, if (is.null(spec$kernel)) 1L else G, setup$bands$B)),
    trees = , infjack = list(trees = 0),
    list()
  )
}

# What the plan adds to a chunk of curves: the per-tree walk.
curve_band_specs <- function(setup, rows, cols, grid, w) {
  if (setup$bands$trees) list(tree_spec(rows, cols, grid, w, count = FALSE))
}

# The updates of chunk k: predictions y (G x m per output, or the linear
# engine's affine curves of an identity link) of background rows rows[pos];
# `row`: the chunk's moments from a kernel reducer's pass
# (kernel_sums_moments()), or NULL; `walked`: curve_band_specs()' results.
curve_band_update <- function(setup, k, y, G, rows, pos, spec, row = NULL, walked = list()) {
  if (setup$bands$trees) return(list(trees = walked[[1L]]))
  w <- spec$w[pos]
  kern <- spec$kernel
  C <- setup$n_outputs
  if (setup$bands$moments) {
    v <- row %||% if (inherits(y, "mp_affine")) {
      affine_moments(y, w)
    } else {
      unlist(lapply(seq_len(C), function(c) grid_moments(y, G, w, setup$threads, c)), use.names = FALSE)
    }
    return(list(moments = place(matrix(v, 1L), k)))
  }
  if (!setup$bands$resampled) return(list())
  idx <- rows[pos]
  if (inherits(y, "mp_affine")) {
    # Identity-link affine curves a + z slope: their resampled weighted sums
    # are (sum c w a) + z (sum c w slope), without the G x rows table.
    s <- resample_sums(setup, idx, cbind(y$a, y$slope), w)
    num <- matrix(s$sum[1L, ], G, ncol(s$sum), byrow = TRUE) + outer(y$z, s$sum[2L, ])
    return(list(bnum = num, bden = s$wsum))
  }
  kw <- if (!is.null(kern)) kernel_weights(kern$z, kern$x[pos], kern$dmin, kern$bandwidth, setup$threads) * rep(w, each = G)
  num <- lapply(seq_len(C), function(c) {
    Y <- matrix(y[, c], G)
    if (is.null(kw)) resample_product(setup, Y, idx, w) else resample_product(setup, kw * Y, idx)
  })
  den <- if (is.null(kw)) resample_sums(setup, idx, NULL, w)$wsum else resample_product(setup, kw, idx)
  list(bnum = do.call(cbind, num), bden = den)
}

# grid_moments() of identity-link affine curves a + z slope (one output)
# without their table: about the first row's curve, each row's difference
# is da + z ds, so the moments are quadratics in z of five sums.
affine_moments <- function(curves, w) {
  z <- curves$z
  k2 <- w^2
  da <- curves$a - curves$a[1L]
  ds <- curves$slope - curves$slope[1L]
  q2 <- sum(k2 * da^2) + 2 * z * sum(k2 * da * ds) + z^2 * sum(k2 * ds^2)
  c(curves$a[1L] + z * curves$slope[1L], sum(k2 * da) + z * sum(k2 * ds), pmax(q2, 0),
    rep(sum(k2), length(z)))
}

# The bands at the end: the means yhat (G x outputs), their weights' sums
# W (one, or G for kernel weights): list(se) or list(reps).
curve_band_finish <- function(setup, acc, yhat, W) {
  if (!is.null(acc$trees)) return(tree_bands(setup, acc$trees / W))
  G <- nrow(yhat)
  C <- ncol(yhat)
  if (!is.null(acc$moments)) {
    se <- matrix(NA_real_, G, C)
    for (c in seq_len(C)) {
      at <- (c - 1L) * 4L * G
      part <- function(i) acc$moments[, at + (i - 1L) * G + seq_len(G), drop = FALSE]
      d <- part(1L) - rep(yhat[, c], each = nrow(acc$moments))
      q <- colSums(part(3L) + 2 * d * part(2L) + d^2 * part(4L))
      se[, c] <- weighted_mean_se(q, W, colSums(part(4L)))
    }
    return(list(se = se))
  }
  if (is.null(acc$bnum)) return(list())
  den <- acc$bden[rep_len(seq_len(nrow(acc$bden)), G), , drop = FALSE]
  list(reps = array(acc$bnum, c(G, setup$bands$B, C)) / rep(den, times = C))
}

# Do the bands need the table of the linear engine's affine curves? Not
# those of an identity link (curve_band_update()).
band_needs_table <- function(setup, curves) setup$bands$per_row && !curves$identity

# ---- Bands of the native engine's sums ------------------------------------------------

# The native engine's weighted sums at `grid` when no row's contribution
# is needed: of the predictions, or each tree's (the per-tree walk). At the
# end, the profile yhat (the trees' mean) and its bands (weights' sum W).
band_sums_spec <- function(setup, rows, cols, grid, w) {
  if (setup$bands$trees) tree_spec(rows, cols, grid, w, count = TRUE) else sums_spec(rows, cols, grid, w)
}

band_sums_update <- function(setup, y) if (setup$bands$trees) list(trees = y) else list(sums = y)

band_sums_finish <- function(setup, acc, W) {
  if (!setup$bands$trees) return(list(yhat = acc$sums / W))
  theta <- acc$trees / W
  c(list(yhat = matrix(apply(theta, c(1L, 3L), mean), dim(theta)[1L])), tree_bands(setup, theta))
}

# Bands (list(se) or list(reps)) set to NA at the grid points `bad`.
na_where <- function(bands, bad) {
  if (!is.null(bands$se)) bands$se[bad, ] <- NA_real_
  if (!is.null(bands$reps)) bands$reps[bad, , ] <- NA_real_
  bands
}

# ---- Bands of group means -------------------------------------------------------------

# The bands of weighted means over consecutive groups of values (group g
# holds y[offsets[g] + 1 .. offsets[g + 1]], of background rows `rows`,
# weights w, means `means`): list(se) or list(reps (groups x B)), or list().
group_bands <- function(setup, y, w, offsets, means, rows) {
  sizes <- diff(offsets)
  if (setup$bands$moments) {
    d <- group_sums((y - rep(means, sizes))^2, w^2, offsets, setup$threads)
    return(list(se = weighted_mean_se(d$sum, weighted_counts(rep(seq_along(sizes), sizes), w, length(sizes)), d$wsum)))
  }
  if (!setup$bands$resampled) return(list())
  s <- resample_sums(setup, rows, y, w, rep(seq_along(sizes), sizes), length(sizes))
  reps <- s$sum / s$wsum
  reps[sizes == 0L, ] <- NA_real_
  list(reps = reps)
}

# Per-output bands (lists of se vectors or reps matrices) as one estimate's
# se (values x outputs) or reps (values x B x outputs).
bind_output_bands <- function(bands) {
  if (!length(bands) || !length(bands[[1L]])) return(list())
  if (!is.null(bands[[1L]]$se)) return(list(se = do.call(cbind, lapply(bands, `[[`, "se"))))
  reps <- lapply(bands, `[[`, "reps")
  list(reps = array(unlist(reps), c(dim(reps[[1L]]), length(reps))))
}

# Group bands (one per output) as accumulator updates placed at grid points
# `at`: se into a G x outputs matrix, reps into a G x (B outputs) one.
place_bands <- function(bands, at) {
  lapply(bind_output_bands(bands), function(b) place(matrix(b, nrow(b)), at))
}

# The accumulators of placed bands, and the bands they make (se, or reps
# as G x B x outputs).
init_bands <- function(setup, G) {
  switch(setup$bands$type,
    analytic = list(se = matrix(NA_real_, G, setup$n_outputs)),
    bootstrap = list(reps = matrix(NA_real_, G, setup$bands$B * setup$n_outputs)),
    list()
  )
}

finish_bands <- function(setup, acc) {
  if (!is.null(acc$reps)) {
    return(list(reps = array(acc$reps, c(nrow(acc$reps), setup$bands$B, setup$n_outputs))))
  }
  if (!is.null(acc$se)) list(se = acc$se) else list()
}

# The resampling counts (n x B integers) within a quarter of the budget.
check_resamples_budget <- function(n, B, budget, call) {
  bytes <- 4 * as.double(n) * B
  if (bytes > budget_bytes(NULL, "resamples", budget)) {
    budget_abort("The resamples of bootstrap bands over {n} background rows with {.arg B} = {B} need",
                 bytes, "resamples", budget,
                 "Lower {.arg N} or {.arg B}, raise {.arg memory_budget}, or use {.code bands = \"analytic\"}.", call)
  }
}

# The bands of means of ICE curves need one variable's curves (G x m x
# outputs) in memory, within the budget.
check_band_curves <- function(setup, v, G, m) {
  bytes <- 8 * as.double(G) * m * setup$n_outputs
  if (bytes > budget_bytes(setup, "band_curves")) {
    budget_abort("The bands of {.field {v}} need its ICE curves in memory, which need",
                 bytes, "band_curves", setup$memory_budget,
                 "Lower {.arg N} or {.arg grid_points}, or raise {.arg memory_budget}.", setup$error_call)
  }
}

# Estimates with their bands as text, "estimate [lower, upper]", each
# number to `digits` significant digits, formatted on its own (format() of
# a column would pad all to the longest one's digits: false zeros).
interval_text <- function(est, lower, upper, digits = 4) {
  f <- function(v) vapply(signif(v, digits), format, character(1), digits = digits)
  paste0(f(est), " [", f(lower), ", ", f(upper), "]")
}
