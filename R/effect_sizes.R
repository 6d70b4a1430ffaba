#' Effect sizes and variable importance
#'
#' `effect_sizes()` measures how much each profiled variable moves the
#' prediction: the importance of Greenwell, Boehmke and McCarthy (2018) for
#' profiles of any type and, for accumulated-local (AL) profiles, the ALE
#' effect sizes of Okoli (2023). One row per variable and profile label
#' (class, subgroup), largest importance first.
#'
#' @section Importance:
#' Greenwell et al.'s "flatness" of a profile (vip's `"firm"` method): for a
#' numeric variable the standard deviation (`sd()`, divisor G - 1) of the
#' profile's values at its G grid points, for a categorical one the range
#' of its values over the levels divided by 4. It is defined for partial
#' dependence; for LD and AL profiles it is the same formula applied to
#' their values (for interval AL, at the K + 1 interval edges, which are
#' quantiles of the variable).
#'
#' @section ALE effect sizes:
#' Let g be the AL profile with the constant removed that makes its mean
#' over the data 0 (the "zeroed" ALE): at the edges z_0 < ... < z_K of
#' interval AL, with n_k the (weighted) number of rows in interval k (the
#' minimum in interval 1), the mean of the interval midpoints
#' m_k = (g(z_(k-1)) + g(z_k)) / 2 weighted by n_k is 0 (Apley's and
#' ALEPlot's centring, and 'ale''s). The profile modelprofiles reports is g
#' plus the mean prediction; the statistics are computed on g, recovered
#' from the profile itself with the n_k, so they do not depend on that
#' shift.
#' * **ALED** (ALE deviation) = sum_k n_k |m_k| / sum_k n_k, the weighted
#'   mean absolute deviation of the profile from the mean prediction, in
#'   units of the prediction.
#' * **ALER** (ALE range) = (min_k g(z_k), max_k g(z_k)), the largest
#'   effects down and up from the mean prediction.
#' * **NALED** and **NALER**: the same with every value a of g replaced by
#'   the percentile shift it makes from the median of a reference
#'   distribution r: with c = r - median(r), 50 times the share of the upper
#'   half c >= 0 that lies in \[0, a\] for a > 0, minus 50 times the share of
#'   the lower half c <= 0 that lies in \[a, 0\] for a < 0, and 0 for an a
#'   between the values of c just below and just above 0. NALED lies in
#'   \[0, 50\], NALER in \[-50, 50\], in percentiles.
#'
#' For a categorical variable, g is taken at the levels with their
#' frequencies as weights (no midpoints); for kernel-smoothed AL, at the
#' grid points with the number of rows nearest each (`_support_`) as
#' weights.
#'
#' What differs from the 'ale' package: its reference distribution is the
#' observed outcome for a numeric outcome and the predictions for a
#' classifier; a profile does not hold the outcome, so the default here is
#' the distribution of the model's predictions over the background rows
#' (`x$prediction_quantiles`, when the result holds it); give the outcome
#' as `reference` for 'ale''s numbers. Without either, NALED and NALER are
#' `NA`. With bootstrap bands, 'ale' reports the mean of the statistic over
#' the replicates as its estimate; here the estimate is the statistic of the
#' profile itself, and each replicate curve is centred on its own before
#' its statistics are taken.
#'
#' @section Bands:
#' When the profiles have bootstrap bands (`bands = "bootstrap"` of
#' [model_profile()], resampling the background rows, or [refit_bands()],
#' refitting the model, whose replicate profiles are in `x$replicates`),
#' each statistic is computed on every replicate curve, and its band is the
#' pair of percentiles of those values at level `x$bands$level` (columns
#' ending in `_lower` and `_upper`). The per-tree profiles of
#' `bands = "trees"` are not resamples and give no bands here.
#'
#' @param x An `mp_profile` result of [model_profile()].
#' @param reference For NALED and NALER: `NULL` (the distribution of the
#'   predictions, `x$prediction_quantiles`, when the result holds it), a
#'   numeric vector of values (such as the observed outcome) or a matrix or
#'   data frame with one column per profile label (or class).
#' @param bands Add percentile bands when the result has bootstrap
#'   replicates?
#' @param digits Significant digits shown by `print()`.
#' @param ... Unused.
#' @returns `effect_sizes()`: a data frame of class `mp_effects`, one row per variable and
#'   label, sorted by decreasing importance: `variable`, `label`, `kind`
#'   (`"numeric"` or `"categorical"`), `importance` and, for AL profiles,
#'   `aled`, `aler_min`, `aler_max`, `naled`, `naler_min`, `naler_max`; with
#'   bands, `<statistic>_lower` and `<statistic>_upper` for each. Its
#'   `print()` method shows each band as `[lower, upper]` after its
#'   statistic and returns `x` invisibly.
#' @references
#' Greenwell, B. M., Boehmke, B. C. and McCarthy, A. J. (2018). A simple and
#' effective model-based variable importance measure. arXiv:1805.04755.
#' \doi{10.48550/arXiv.1805.04755}
#'
#' Okoli, C. (2023). Statistical inference using machine learning and
#' classical techniques based on accumulated local effects (ALE).
#' arXiv:2310.09877. \doi{10.48550/arXiv.2310.09877}
#' @examples
#' fit <- lm(mpg ~ wt + hp, data = mtcars)
#' X <- mtcars[c("wt", "hp")]
#' al <- model_profile(fit, X, type = "accumulated", grid = profile_grids(intervals = 8))
#' effect_sizes(al, reference = mtcars$mpg)
#' effect_sizes(model_profile(fit, X))
#' @export
effect_sizes <- function(x, ...) UseMethod("effect_sizes")

#' @export
effect_sizes.default <- function(x, ...) {
  cli::cli_abort("{.fn effect_sizes} takes a {.fn model_profile} result, not {.obj_type_friendly {x}}.")
}

#' @rdname effect_sizes
#' @export
effect_sizes.mp_profile <- function(x, reference = NULL, bands = TRUE, ...) {
  rlang::check_dots_empty()
  check_flag(bands, "bands", rlang::current_env())
  a <- x$agr_profiles
  keys <- unique(a[c("_vname_", "_label_")])
  refs <- reference_values(x, reference)
  reps <- if (isTRUE(bands)) profile_replicates(x)
  al <- identical(x$type, "accumulated")
  curves <- lapply(seq_len(nrow(keys)), function(k) {
    v <- keys$`_vname_`[k]
    idx <- which(a$`_vname_` == v & a$`_label_` == keys$`_label_`[k])
    kind <- if (column_kind(x$grids[[v]]) == "numeric") "numeric" else "categorical"
    list(v = v, label = keys$`_label_`[k], idx = idx, kind = kind,
         wts = if (al) al_weights(x, v, keys$`_label_`[k], a[idx, , drop = FALSE], kind))
  })
  uncounted <- al & vapply(curves, function(e) is.null(e$wts), logical(1))
  if (any(uncounted)) warn_missing_counts(unique(keys$`_vname_`[uncounted]))
  rows <- lapply(curves, function(e) {
    stat <- function(y) curve_statistics(y, e$kind, al, e$wts, refs[[e$label]])
    est <- stat(a$`_yhat_`[e$idx])
    lim <- if (!is.null(reps)) statistic_bands(reps$values[e$idx, , drop = FALSE], stat, reps$level)
    data.frame(variable = e$v, label = e$label, kind = e$kind, as.list(c(est, lim)),
               stringsAsFactors = FALSE)
  })
  out <- bind_rows(rows)
  out <- out[order(-out$importance, na.last = TRUE), , drop = FALSE]
  rownames(out) <- NULL
  new_mp_effects(out, type = x$type, level = if (!is.null(reps)) reps$level,
                 band_type = if (!is.null(reps)) reps$type, normalised = !is.null(refs))
}

# The statistics of one profile curve y (values at its grid points):
# importance, and for AL the ALE statistics with the weights `wts`
# (al_weights()) and the reference values `ref` (NULL: NALED, NALER NA).
curve_statistics <- function(y, kind, al, wts, ref) {
  imp <- if (kind == "categorical") {
    if (all(is.na(y))) NA_real_ else diff(range(y, na.rm = TRUE)) / 4
  } else if (sum(!is.na(y)) > 1L) {
    stats::sd(y, na.rm = TRUE)
  } else {
    NA_real_
  }
  c(importance = imp, if (al) ale_statistics(y, wts, ref))
}

# ALED, ALER, NALED and NALER of an AL curve y (see ?effect_sizes): `wts`
# is list(at = "edges", n = the K interval weights) for interval AL, or
# list(at = "points", n = one weight per value) for levels and kernel AL.
ale_statistics <- function(y, wts, ref) {
  none <- c(aled = NA_real_, aler_min = NA_real_, aler_max = NA_real_,
            naled = NA_real_, naler_min = NA_real_, naler_max = NA_real_)
  if (is.null(wts)) return(none)
  n <- wts$n
  dev <- if (wts$at == "edges") (y[-1L] + y[-length(y)]) / 2 else y
  ok <- !is.na(dev) & n > 0
  if (!any(ok)) return(none)
  centre <- sum(n[ok] * dev[ok]) / sum(n[ok])
  g <- y - centre
  dev <- dev[ok] - centre
  n <- n[ok]
  aler <- range(g, na.rm = TRUE)
  norm <- if (!is.null(ref)) percentile_shift(ref)
  out <- none
  out[c("aled", "aler_min", "aler_max")] <- c(sum(n * abs(dev)) / sum(n), aler)
  if (!is.null(norm)) {
    out[["naled"]] <- sum(n * abs(norm(dev))) / sum(n)
    out[c("naler_min", "naler_max")] <- norm(aler)
  }
  out
}

# The normalisation of NALED and NALER by the reference values r: a
# function of effects a (deviations from the median) giving the percentile
# shift from the median, in [-50, 50] (see ?effect_sizes); NULL for fewer
# than two values.
percentile_shift <- function(r) {
  r <- r[!is.na(r)]
  if (length(r) < 2L) return(NULL)
  c0 <- r - stats::median(r)
  below <- c0[c0 < 0]
  above <- c0[c0 > 0]
  pre <- if (length(below)) max(below) else 0
  post <- if (length(above)) min(above) else 0
  lower <- sort(-c0[c0 <= 0])
  upper <- sort(c0[c0 >= 0])
  function(a) {
    out <- numeric(length(a))
    neg <- a < 0 & a < pre
    pos <- a > 0 & a > post
    out[neg] <- -50 * findInterval(-a[neg], lower) / length(lower)
    out[pos] <- 50 * findInterval(a[pos], upper) / length(upper)
    out[is.na(a)] <- NA_real_
    out
  }
}

# The weights of the values of an AL curve (rows d of agr_profiles):
# interval AL of a numeric variable, the weighted numbers of rows in its
# intervals (NULL when they cannot be known, see interval_counts());
# otherwise the rows at each level or nearest each grid point
# (`_support_`).
al_weights <- function(x, v, label, d, kind) {
  if (kind == "numeric" && identical(x$method, "interval")) {
    edges <- profile_numbers(x, v, d$`_x_`)
    n <- interval_counts(x, v, label, edges)
    if (is.null(n)) return(NULL)
    # A variable with two values (a 0/1 column) has one interval, whose
    # midpoint the centring puts at 0: its effect is that of its two
    # values, weighted by their rows, as for a factor.
    if (length(edges) == 2L) return(list(at = "points", n = edge_counts(x, v, label, edges)))
    return(list(at = "edges", n = n))
  }
  list(at = "points", n = as.double(d$`_support_`))
}

# The weighted numbers of background rows in the intervals between the
# edges (the minimum in the first; rows outside the edges left out), from
# the observed values of the rows of the label's part; NULL for a subgroup
# when the result does not record which rows are in it
# (`x$observed_group`).
interval_counts <- function(x, v, label, edges) {
  obs <- x$observed[[v]]
  if (is.null(obs) || anyNA(edges) || length(edges) < 2L) return(NULL)
  rows <- seq_along(obs)
  group <- x$label_parts$group[match(label, x$label_parts$label)]
  if (!is.null(x$groups) && length(group) && !is.na(group)) {
    if (is.null(x$observed_group)) return(NULL)
    rows <- which(x$observed_group == group)
  }
  w <- if (is.null(x$weights)) rep(1, length(rows)) else as.double(x$weights[rows])
  k <- interval_index(as.double(obs[rows]), edges, 1L)
  weighted_counts(k, w, length(edges) - 1L)
}

# The weighted numbers of the label's background rows at the two edges of a
# variable with one interval.
edge_counts <- function(x, v, label, edges) {
  obs <- as.double(x$observed[[v]])
  group <- x$label_parts$group[match(label, x$label_parts$label)]
  rows <- if (!is.null(x$groups) && length(group) && !is.na(group)) which(x$observed_group == group) else seq_along(obs)
  w <- if (is.null(x$weights)) rep(1, length(rows)) else as.double(x$weights[rows])
  vapply(edges, function(e) sum(w[obs[rows] == e]), numeric(1))
}

# A variable's `_x_` values as numbers: character `_x_` (results whose
# variables have mixed scales) read through the typed grid, else as
# numbers.
profile_numbers <- function(x, v, values) {
  if (!is.character(values)) return(as.double(values))
  grid <- x$grids[[v]]
  out <- as.double(grid)[match(values, as.character(grid))]
  miss <- is.na(out)
  out[miss] <- suppressWarnings(as.numeric(values[miss]))
  out
}

warn_missing_counts <- function(vars) {
  cli::cli_warn(c(
    "ALED, ALER, NALED and NALER of the subgroup AL profiles of {.field {vars}} are {.val {NA}}.",
    i = "Their interval counts need the subgroup of each background row, which this result does not hold."
  ), class = "modelprofiles_no_interval_counts")
}

# The reference values of NALED and NALER per profile label (a list named
# by x$labels), or NULL when there are none.
reference_values <- function(x, reference, call = rlang::caller_env()) {
  ref <- reference %||% x$prediction_quantiles
  if (is.null(ref)) return(NULL)
  if (is.data.frame(ref)) ref <- as.matrix(ref)
  if (!is.numeric(ref) && !is.logical(ref)) {
    cli::cli_abort("{.arg reference} must be numeric values, not {.obj_type_friendly {reference}}.", call = call)
  }
  if (sum(is.finite(ref)) < 2L) {
    cli::cli_abort(c(
      "{.arg reference} must hold at least 2 finite values, the predictions NALED and NALER are scaled by, not {.val {format_value(reference)}}.",
      i = "By default they are the quantiles of the predictions at the background rows."
    ), call = call)
  }
  if (!is.matrix(ref) || ncol(ref) == 1L) {
    return(stats::setNames(rep(list(as.double(ref)), length(x$labels)), x$labels))
  }
  cols <- colnames(ref)
  classes <- x$label_parts$class[match(x$labels, x$label_parts$label)]
  col <- match(x$labels, cols)
  col[is.na(col)] <- match(classes[is.na(col)], cols)
  if (anyNA(col)) {
    cli::cli_abort(c(
      "{.arg reference} has no column for {.val {x$labels[is.na(col)]}}.",
      i = "Its columns must be named by the profiles' labels or classes."
    ), call = call)
  }
  stats::setNames(lapply(col, function(j) as.double(ref[, j])), x$labels)
}

# Bootstrap replicates of the profile values (x$replicates, one row per
# row of agr_profiles: of the data, bands = "bootstrap", or of the model,
# refit_bands()), their band level and type, or NULL without them. (The
# per-tree profiles of bands = "trees" are not resamples, and give none.)
profile_replicates <- function(x) {
  R <- x$replicates
  if (is.null(R) || !isTRUE(x$bands$type %in% c("bootstrap", "refit"))) return(NULL)
  if (!is.matrix(R) || nrow(R) != nrow(x$agr_profiles) || ncol(R) < 2L) {
    cli::cli_abort("internal: x$replicates must be a matrix with one row per row of agr_profiles.")
  }
  list(values = R, level = x$bands$level %||% 0.95, type = x$bands$type)
}

# Percentile bands of the statistics `stat` of the replicate curves (the
# columns of R) at `level`: a named vector of <statistic>_lower and
# <statistic>_upper, NA where fewer than half the replicates give a value.
statistic_bands <- function(R, stat, level) {
  first <- stat(R[, 1L])
  S <- matrix(vapply(seq_len(ncol(R)), function(b) stat(R[, b]), first),
              ncol = ncol(R), dimnames = list(names(first), NULL))
  a <- (1 - level) / 2
  lim <- apply(S, 1L, function(s) {
    if (sum(!is.na(s)) < length(s) / 2) return(c(NA_real_, NA_real_))
    stats::quantile(s, c(a, 1 - a), na.rm = TRUE, names = FALSE, type = 7)
  })
  stats::setNames(as.vector(lim), paste0(rep(rownames(S), each = 2L), c("_lower", "_upper")))
}

# The variables `vars` ordered by decreasing importance in result x (the
# largest over its labels); variables x does not have keep their order,
# after the others.
importance_order <- function(x, vars) {
  eff <- suppressWarnings(effect_sizes(x, bands = FALSE))
  imp <- vapply(vars, function(v) {
    s <- eff$importance[eff$variable == v]
    if (!length(s) || all(is.na(s))) -Inf else max(s, na.rm = TRUE)
  }, numeric(1))
  vars[order(-imp, seq_along(vars))]
}

# The summary table `out` of summary.mp_profile() with the importance (and
# for AL, ALED and NALED) of each variable and label, and their percentile
# bands (<statistic>_lower, _upper) when the profile has bootstrap or
# refit replicates.
summary_effects <- function(object, out) {
  eff <- withCallingHandlers(
    effect_sizes(object, bands = TRUE),
    modelprofiles_no_interval_counts = function(w) tryInvokeRestart("muffleWarning")
  )
  m <- match(paste(out$variable, out$label, sep = "\r"), paste(eff$variable, eff$label, sep = "\r"))
  stats <- c("importance", if (identical(object$type, "accumulated")) c("aled", "naled"))
  for (s in stats) {
    for (f in paste0(s, c("", "_lower", "_upper"))) if (!is.null(eff[[f]])) out[[f]] <- eff[[f]][m]
  }
  attr(out, "level") <- attr(eff, "level")
  out
}
