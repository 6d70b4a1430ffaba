# Sampling bands of profiles, from what the estimators already hold (the
# ICE curves, each row's local effects, each row's weight), without a
# single extra prediction. The formulas are documented in ?profile_bands
# (R/bands_doc.R); here is the arithmetic that every estimator shares.
#
# A band setting is list(type = "none" | "analytic" | "bootstrap", level,
# B); the setup carries it, and for the bootstrap the resampling counts
# (`setup$resamples`, n x B: how often each background row is drawn in
# each of the B resamples), drawn once per call so that every variable,
# subgroup and estimator sees the same resamples.

# The kinds of bands: of the background rows' sampling (analytic,
# bootstrap) and of a forest's trees (trees, infjack).
band_kinds <- c("none", "analytic", "bootstrap", "trees", "infjack")

#' @rdname profile_bands
#' @param type The kind of bands: `"none"`, `"analytic"` (standard errors
#'   from the per-row contributions), `"bootstrap"` (`B` resamples of the
#'   background rows), or, for the partial dependence of a forest,
#'   `"trees"` or `"infjack"` (see [model_profile()]). Each entry point
#'   takes the kinds its `bands` argument lists.
#' @param level Confidence level of the pointwise bands, a number between
#'   0 and 1.
#' @param B Number of bootstrap resamples (at least 10); used by
#'   `type = "bootstrap"` only (`"trees"` takes every tree's profile).
#' @returns `profile_bands()`: a band setting, a list of class `mp_bands`
#'   with `type`, `level` and `B`.
#' @export
profile_bands <- function(type = c("bootstrap", "analytic", "none", "trees", "infjack"), level = 0.95, B = 200) {
  call <- rlang::current_env()
  type <- arg_one(type, eval(formals(profile_bands)$type), "type", call)
  structure(band_values(type, level, B, call), class = "mp_bands")
}

#' @export
print.mp_bands <- function(x, ...) {
  cli::cat_line("<mp_bands> ", if (x$type == "none") "no bands" else band_text(x))
  invisible(x)
}

# A band setting's values, checked: list(type, level, B); errors name
# `level` and `B`, the arguments of `call`.
band_values <- function(type, level, B, call) {
  if (!is.numeric(level) || length(level) != 1L || !is.finite(level) || level <= 0 || level >= 1) {
    cli::cli_abort("{.arg level} must be a single number between 0 and 1, such as 0.95, not {.val {format_value(level)}}.",
                   call = call)
  }
  # (B is the bootstrap's alone: other kinds keep the default, unchecked.)
  B <- if (type == "bootstrap") check_whole(B, "B", 10, call) else 200L
  list(type = type, level = as.double(level), B = B)
}

# The `bands` argument of an entry point, checked: a kind (a string) or a
# profile_bands() setting, of a kind in `types`. `level` and `B` are the
# deprecated arguments of the entry point (NULL when not given): with a
# kind, they set its level and number of resamples, as before. The
# internal setting, list(type, level, B), is what it always was.
check_bands <- function(bands, call, types = c("none", "analytic", "bootstrap"), level = NULL, B = NULL) {
  if (inherits(bands, "mp_bands")) {
    if (!is.null(level) || !is.null(B)) {
      cli::cli_abort(c(
        "Give {.arg level} and {.arg B} in {.arg bands}, not as arguments of their own.",
        i = "For example {.code bands = profile_bands(\"{bands$type}\", level = 0.9, B = 100)}."
      ), call = call)
    }
    if (!bands$type %in% types) {
      cli::cli_abort("{.arg bands} must be of type {.or {.val {types}}}, not {.val {bands$type}}.", call = call)
    }
    return(unclass(bands))
  }
  if (!is.character(bands)) {
    cli::cli_abort(c(
      "{.arg bands} must be a kind of bands, such as {.val bootstrap}, or a {.fn profile_bands} setting, not {.obj_type_friendly {bands}}.",
      i = "For example {.code bands = profile_bands(\"bootstrap\", level = 0.9, B = 100)}."
    ), call = call)
  }
  if (length(bands) > 1L && !identical(bands, types)) {
    cli::cli_abort(c(
      "{.arg bands} must be one kind of bands, not {length(bands)}: {.val {bands}}.",
      i = "One call draws one kind; e.g. {.code bands = {.val {bands[1L]}}}."
    ), call = call)
  }
  type <- rlang::arg_match0(bands[1L], types, arg_nm = "bands", error_call = call)
  band_values(type, level %||% 0.95, B %||% 200, call)
}

# The deprecated `level` and `B` arguments of an entry point (NULL when not
# given): one warning per call, of class "deprecated", that says how to
# give them in `bands`.
warn_band_args <- function(bands, level, B, call) {
  given <- c(level = !is.null(level), B = !is.null(B))
  if (!any(given) || inherits(bands, "mp_bands")) return(invisible())
  kind <- if (is.character(bands_kind(bands))) bands_kind(bands) else "bootstrap"
  args <- c(sprintf("\"%s\"", kind), if (given[["level"]]) paste("level =", format_value(level)),
            if (given[["B"]]) paste("B =", format_value(B)))
  nm <- names(given)[given]
  cli::cli_warn(c(
    "The {.arg {nm}} argument{?s} {?is/are} deprecated.",
    i = "Use {.code bands = profile_bands({paste(args, collapse = ', ')})}."
  ), class = c("modelprofiles_deprecated", "deprecated"), call = call)
}

# The kind of bands an entry point's `bands` argument asks for (before it
# is checked).
bands_kind <- function(bands) if (inherits(bands, "mp_bands")) bands$type else bands[1L]

# No bands: the setting of entry points that make none.
no_bands <- function() list(type = "none", level = 0.95, B = 0L)

band_type <- function(setup) setup$bands$type %||% "none"

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

# The standard errors of a profile that is a linear function of per-row
# contributions, from the sums over rows of their squared influences on
# each value of the profile (`ss`, influence_ss(); the influences sum to 0
# over rows), with the small-sample factor of the rows' weights w.
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

# ---- Bootstrap replicates ---------------------------------------------------------

# The resampling counts of background rows `rows` (m x B).
resample_counts <- function(setup, rows) {
  setup$resamples[rows, , drop = FALSE]
}

# ---- Band limits ------------------------------------------------------------------

# The replicates of estimates (an array with the replicates along its
# second dimension: G x B or G x B x outputs) as a matrix with a row per
# estimate (G fastest, then outputs, as as.vector(yhat)) and a column per
# replicate.
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

# The bands of weighted means of ICE curves (PD, kernel LD, 2-D PD) are
# accumulated chunk by chunk, as the means are, without keeping the
# curves. `spec`: list(w (the rows' weights), kernel (NULL, or list(z, x,
# dmin, bandwidth) for kernel weights times w)). Analytic: each chunk's
# moments (grid_moments(), about the chunk's first row), combined exactly
# at the end; bootstrap: the replicates' weighted sums, added up.

# Accumulators for n_chunks chunks of G grid points.
curve_band_init <- function(setup, G, n_chunks, spec) {
  C <- setup$n_outputs
  switch(band_type(setup),
    analytic = list(moments = matrix(0, n_chunks, 4L * G * C)),
    bootstrap = list(bnum = matrix(0, G, setup$bands$B * C),
                     bden = matrix(0, if (is.null(spec$kernel)) 1L else G, setup$bands$B)),
    list()
  )
}

# The updates of chunk k: predictions y (G x m per output, or the linear
# engine's affine curves of an identity link, for the bootstrap) of
# background rows rows[pos]; `row`: the chunk's moments, which a kernel reducer computes
# in the pass of its sums (kernel_sums_moments()), or NULL for row weights.
curve_band_update <- function(setup, k, y, G, rows, pos, spec, row = NULL) {
  type <- band_type(setup)
  w <- spec$w[pos]
  kern <- spec$kernel
  C <- setup$n_outputs
  if (type == "analytic") {
    v <- row %||% if (inherits(y, "mp_affine")) {
      affine_moments(y, w)
    } else {
      unlist(lapply(seq_len(C), function(c) grid_moments(y, G, w, setup$threads, c)), use.names = FALSE)
    }
    return(list(moments = place(matrix(v, 1L), k)))
  }
  if (type != "bootstrap") return(list())
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
# with row weights w, without their G x rows table: about the first row's
# curve, each row's difference is da + z ds, so the moments are quadratics
# in z of five sums over the rows.
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
  B <- setup$bands$B
  den <- acc$bden[rep_len(seq_len(nrow(acc$bden)), G), , drop = FALSE]
  reps <- array(acc$bnum, c(G, B, C)) / rep(den, times = C)
  list(reps = reps)
}

# Keep the ICE curves of a request for its bands (kernel AL, whose bands
# need each row's curve), even when they are not kept for the result?
curves_for_bands <- function(setup) band_type(setup) %in% c("analytic", "bootstrap")

# Bands (list(se) or list(reps)) set to NA at the grid points `bad`.
na_where <- function(bands, bad) {
  if (!is.null(bands$se)) bands$se[bad, ] <- NA_real_
  if (!is.null(bands$reps)) bands$reps[bad, , ] <- NA_real_
  bands
}

# ---- Bands of group means -------------------------------------------------------------

# The bands of weighted means over consecutive groups of values (group g
# holds y[offsets[g] + 1 .. offsets[g + 1]], of background rows `rows`,
# weights w; `means`: the groups' means): list(se (groups)) or list(reps
# (groups x B)), or an empty list.
group_bands <- function(setup, y, w, offsets, means, rows) {
  type <- band_type(setup)
  sizes <- diff(offsets)
  if (type == "analytic") {
    d <- group_sums((y - rep(means, sizes))^2, w^2, offsets, setup$threads)
    return(list(se = weighted_mean_se(d$sum, weighted_counts(rep(seq_along(sizes), sizes), w, length(sizes)), d$wsum)))
  }
  if (type != "bootstrap") return(list())
  s <- resample_sums(setup, rows, y, w, rep(seq_along(sizes), sizes), length(sizes))
  reps <- s$sum / s$wsum
  reps[sizes == 0L, ] <- NA_real_
  list(reps = reps)
}

# Group bands (group_bands(), one per output) as accumulator updates placed
# at grid points `at`: se into a G x outputs matrix, reps into a
# G x (B outputs) one.
place_bands <- function(bands, at) {
  if (!length(bands) || !length(bands[[1L]])) return(list())
  if (!is.null(bands[[1L]]$se)) return(list(se = place(do.call(cbind, lapply(bands, `[[`, "se")), at)))
  list(reps = place(do.call(cbind, lapply(bands, `[[`, "reps")), at))
}

# The accumulators of placed bands, and the bands they make (se, or reps
# as G x B x outputs).
init_bands <- function(setup, G) {
  switch(band_type(setup),
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
# number to `digits` significant digits.
interval_text <- function(est, lower, upper, digits = 4) {
  # (Each number on its own: format() of a column would pad all of them
  # to the longest one's digits, printing rounded values with false zeros.)
  f <- function(v) vapply(signif(v, digits), format, character(1), digits = digits)
  paste0(f(est), " [", f(lower), ", ", f(upper), "]")
}

# A band setting in words, for print methods.
band_text <- function(b) {
  what <- switch(b$type,
    analytic = "analytic standard errors",
    bootstrap = paste(b$B, "bootstrap resamples of the background rows"),
    trees = paste("percentiles of", b$B, "trees' profiles"),
    infjack = "infinitesimal jackknife over the trees",
    refit = paste(b$B, "refits of the model"),
    b$type
  )
  paste0(format(100 * b$level), "% pointwise, ", what)
}
