# Friedman's H-statistics of interaction, as hstats::hstats() computes them.

#' Friedman's H-statistics of interaction
#'
#' `h_statistic()` measures how much of a model's predictions is due to
#' interactions, with the H-statistics of Friedman and Popescu (2008), in the
#' normalised and squared form of `hstats::hstats()` (Mayer, 2023): the
#' overall \eqn{H^2_j} of every variable (the share of the prediction
#' variance explained by the interactions of variable j with all others)
#' and the pairwise \eqn{H^2_{jk}} of the pairs among the `pairs` variables
#' with the strongest overall interaction. The numbers equal those of
#' `hstats::hstats()` on the same model, background rows and weights.
#'
#' @section Definitions:
#' For the n background rows \eqn{x_1, \dots, x_n} with weights
#' \eqn{w_i} (1 without `weights`), write \eqn{\bar a}{mean(a)} for the weighted mean
#' \eqn{\sum_i w_i a_i / \sum_i w_i}{sum_i w_i a_i / sum_i w_i} over the rows, and
#' \eqn{x_i^{S=z}}{x_i^{S=z}} for row i with the columns S set to z. Partial dependences are evaluated at the
#' rows' own values and centred:
#'
#' * \eqn{F(x_i) = f(x_i) - \bar f}{F(x_i) = f(x_i) - mean(f)}, the centred
#'   prediction;
#' * \eqn{F_j(x_i^j) = PD_j(x_i^j) - \overline{PD_j}}{F_j = PD_j - mean(PD_j)}
#'   with \eqn{PD_j(z) = \sum_k w_k f(x_k^{j=z}) / \sum_k w_k}{PD_j(z) = weighted mean_k f(x_k^{j=z})},
#'   the partial dependence on variable j;
#' * \eqn{F_{-j}(x_i^{-j})}{F_-j}, the same for the complement of j (all
#'   other columns of `data`, also those not in `variables`):
#'   \eqn{PD_{-j}(x_i^{-j}) = \sum_k w_k f(x_i^{j=x_k^j}) / \sum_k w_k}{PD_-j(x_i) = weighted mean_k f(x_i with x^j = x_k^j)};
#' * \eqn{F_{jk}}, the same for the pair (j, k).
#'
#' Then, as in `hstats::h2_overall()` and `hstats::h2_pairwise()` with their
#' defaults (`normalize = TRUE`, `squared = TRUE`):
#' \deqn{H^2_j = \frac{\overline{(F - F_j - F_{-j})^2}}{\overline{F^2}}, \qquad
#'   H^2_{jk} = \frac{\overline{(F_{jk} - F_j - F_k)^2}}{\overline{F_{jk}^2}}.}{H2_j = mean((F - F_j - F_-j)^2) / mean(F^2),
#'   H2_jk = mean((F_jk - F_j - F_k)^2) / mean(F_jk^2).}
#' The numerators are set to 0 when they are below `1e-10` (an absolute
#' threshold, hstats' `eps`) or not finite, and a ratio 0/0 (a zero
#' numerator over a zero denominator, e.g. a constant model) is 0. \eqn{H^2_j}
#' is the share of the prediction variance that the interactions of j with
#' the other variables explain; \eqn{H^2_{jk}} the share of the variance of
#' the pair's joint effect that their interaction explains. Take square
#' roots for Friedman's unsquared H. `$total` is hstats' `h2()`, the share of
#' the prediction variance not explained by the main effects of `variables`:
#' \eqn{\overline{(F - \sum_j F_j)^2} / \overline{F^2}}{mean((F - sum_j F_j)^2) / mean(F^2)}.
#'
#' @section Pairs:
#' As in hstats (`pairwise_m`), pairwise statistics are computed for the
#' pairs among the `pairs` variables with the largest overall numerator
#' \eqn{\overline{(F - F_j - F_{-j})^2}}{mean((F - F_j - F_-j)^2)}
#' (those above 0; for several classes, the union over the classes).
#' When fewer than `pairs` variables have a positive numerator, the others
#' (in the order of `variables`) fill the set and their pairs are reported
#' with \eqn{H^2_{jk} = 0} without being computed, as hstats reports them.
#' `pairs = 0` (or 1) skips the pairwise statistics.
#'
#' @section Computation:
#' Every partial dependence is evaluated at the values that occur among the
#' background rows (each distinct value, or pair of values, once; all
#' values are compared exactly, `NA` included): variable j costs n times
#' \eqn{u_j} predictions, \eqn{u_j} its number of distinct values, and one
#' table of them gives \eqn{PD_j} (means over the rows), \eqn{PD_{-j}}
#' (means over the values, weighted by how often each occurs) and the
#' predictions at the rows themselves (the table's cells at the rows' own
#' values): n times \eqn{\sum_j u_j}{sum_j u_j} predictions for the one-way
#' statistics, where hstats makes n times \eqn{1 + 2 \sum_j u_j}{1 + 2 sum_j u_j}
#' (it predicts the two tables separately and the rows once more). A pair
#' costs n times its number of distinct pairs of values, as in hstats. The tables are predicted in chunks of stacked
#' rows (each background row repeated over the values consecutively; the
#' tables of several variables share a chunk when they are small) under
#' `memory_budget`, so no table of n x n rows is built beyond one chunk;
#' the sums run in C++. `n_predictions` in the result counts the
#' predictions. The cost grows with \eqn{n^2}: `N` (hstats' `n_max`, 500 by
#' default as there) keeps it bounded.
#'
#' The native engine (tree ensembles) without bands makes no table: each tree's
#' leaf adds its value times the weight of the rows reaching it to the values
#' reaching it (the set walk at observed values), at a cost of n plus values.
#'
#' @section Bootstrap bands:
#' With `bands = "bootstrap"` (or `bands = profile_bands("bootstrap", level,
#' B)`), each statistic gets a percentile band at `level` (0.95) from `B`
#' (200) resamples of the background rows, drawn with
#' replacement after the draw of the `N` rows, from R's random-number
#' stream (reproducible with `seed`, the same for any number of threads and
#' under any [future::plan()]). A replicate is the exact bootstrap of the
#' estimator: every mean above is recomputed with row i weighing
#' \eqn{c_{ib} w_i}{c_ib w_i}, \eqn{c_{ib}}{c_ib} the number of times it is drawn in
#' resample b, which is the statistic of the resample's rows (each repeated
#' as often as drawn). The partial dependences of a resample are weighted
#' means over the same tables of predictions (a value that the resample
#' does not draw weighs 0 in \eqn{PD_{-j}}{PD_-j}); \eqn{f(x_i)} does not
#' change; the centring, the numerators and the denominators are recomputed
#' with the resample's weights. So the bands cost **no extra prediction**:
#' only sums over the tables already predicted, and memory for, per
#' variable, the \eqn{n \times B}{n x B} matrix of every row's resampled
#' \eqn{PD_{-j}}{PD_-j} (per class); a call whose bootstrap tables would
#' not fit in a third of `memory_budget` is refused before any prediction.
#' Which pairs are computed is the estimate's choice (the resamples do not
#' choose again); pairs reported as 0 without being computed have no
#' replicates and no band (`NA`). The band holds the resamples' percentiles
#' where at least half of them are defined. The bands hold the model fixed
#' and vary the background rows only; they are pointwise (one statistic at
#' a time). A statistic is never negative and its resamples add noise, so
#' near 0 the band lies above the estimate rather than around it.
#'
#' @inheritParams model_profile
#' @param ... Must be empty.
#' @param level,B Deprecated: give them in `bands`, as
#'   `bands = profile_bands("bootstrap", level = 0.9, B = 500)`. Still
#'   taken (by their full names), with a warning, for one release.
#' @param bands `"none"` or `"bootstrap"`: percentile bands of every
#'   statistic over `B` resamples of the background rows, from the tables
#'   already predicted (see the section on bootstrap bands); or a setting
#'   of [profile_bands()] of these kinds, with its level and number of
#'   resamples, such as `profile_bands("bootstrap", level = 0.9, B = 100)`.
#' @param variables Names of the variables whose H-statistics are computed,
#'   at least 2; `NULL` for every column of `data` (except a `weights`
#'   column named by `weights`). All columns of `data` are passed to the
#'   model either way.
#' @param pairs Number of variables (those with the strongest overall
#'   interaction) among which pairwise statistics are computed: up to
#'   `pairs * (pairs - 1) / 2` pairs; 0 or 1 for none. hstats' `pairwise_m`.
#' @param weights `NULL`, the name of a column of `data`, or a vector with one
#'   non-negative case weight per row of `data` (an explainer's `weights` by
#'   default): every mean above is then weighted, as `hstats::hstats(w = )`
#'   weights it (the partial dependences, their centring, the numerators and
#'   denominators). The `N` rows are drawn without weights and keep theirs;
#'   rows of weight 0 are left out, which changes nothing. With integer
#'   weights, a row of weight 2 gives what the row repeated twice gives.
#' @param class For classifiers whose predict function returns a column of
#'   probabilities per class: the class (name or column number), or several;
#'   by default the second of two classes, or every class of a multiclass
#'   model, each with its own statistics labelled `<label>.<class>` (see
#'   [default_predict_function()]). Pairs are chosen from the union over the
#'   classes of each class's strongest variables, as hstats chooses them.
#' @param N Number of background rows to sample when `data` has more
#'   (hstats' `n_max`); `NULL` uses all rows. The cost grows with the square
#'   of the number of rows.
#'
#' @returns An object of class `mp_h_statistic`: a list with
#'   * `overall`: a data frame with columns `variable`, `label` and `h2`,
#'     one row per variable (and class), the variables in decreasing order
#'     of \eqn{H^2_j} (summed over the classes of a multiclass model);
#'   * `pairwise`: a data frame with columns `variable1`, `variable2`,
#'     `label` and `h2`, sorted the same way (no rows when `pairs < 2`);
#'   * `total`: the share of the prediction variance not explained by the
#'     main effects, one per label (a named vector);
#'   * with `bands = "bootstrap"`, the columns `h2_lower` and `h2_upper`
#'     (the band at `level`) in `overall` and `pairwise`; `total_bands`, a
#'     data frame with columns `label`, `h2`, `h2_lower` and `h2_upper`, one
#'     row per label; `bands`, the setting (`list(type, level, B)`); and
#'     `replicates`, a list of matrices with a column per resample:
#'     `overall` and `pairwise` with a row per row of those tables (in their
#'     order), `total` with a row per label. Without bands, `total_bands`,
#'     `bands` and `replicates` are `NULL`;
#'   * `variables`, `pair_variables` (the variables whose pairs were
#'     computed), `label`, `labels` (one per class), `class`, `N` (rows used),
#'     `n_data`, `rows` (which rows of `data`), `weights` (of the background
#'     rows, or `NULL`), `n_predictions`, `threads` and `call`.
#'
#' @references
#' Friedman, J. H. and Popescu, B. E. (2008). Predictive learning via rule
#' ensembles. *The Annals of Applied Statistics*, 2(3), 916--954.
#' \doi{10.1214/07-AOAS148}
#'
#' Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
#' machine. *Annals of Statistics*, 29(5), 1189--1232.
#' \doi{10.1214/aos/1013203451}
#'
#' Mayer, M. (2023). hstats: Interaction Statistics. R package,
#' <https://github.com/ModelOriented/hstats>.
#'
#' @param engine `"auto"`, `"native"` or `"predict"`: how predictions are
#'   made, as in [model_profile()] (tree ensembles are evaluated by the
#'   package's C++ code with `"auto"`); `$engine` gives the one used.
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' h <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")])
#' h
#'
#' # Bootstrap bands, from the same predictions (drawn as error bars).
#' hb <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")], bands = profile_bands("bootstrap", B = 100),
#'                   seed = 1)
#' hb$overall
#' plot(hb)
#'
#' # A multiclass model: one statistic per class.
#' if (requireNamespace("nnet", quietly = TRUE)) {
#'   mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
#'   h_statistic(mn, iris[1:4], N = 60, seed = 1, pairs = 3)
#' }
#' @export
h_statistic <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                        N = 500, pairs = 5, bands = c("none", "bootstrap"),
                        label = NULL, seed = NULL, weights = NULL, class = NULL, threads = NULL,
                        memory_budget = getOption("modelprofiles.memory_budget", 256),
                        engine = c("auto", "native", "predict"), ..., level = NULL, B = NULL) {
  env <- environment()
  pairs <- check_whole(pairs, "pairs", 0, env)
  start <- start_call("h_statistic", env, list(...), x, data, predict_function, label, weights, threads,
                      memory_budget, seed, engine, bands, c("none", "bootstrap"), level, B)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  variables <- h_variables(inputs, variables, env)
  N <- check_N(N, env)
  setup <- new_setup(inputs, setup_rows(inputs, N, seed), class, start$engine)
  labels <- output_labels(setup)
  w <- setup$weights
  js <- match(variables, names(setup$data))
  m <- min(pairs, length(variables))
  boot <- setup$bands$resampled
  if (boot) {
    u <- vapply(js, function(j) length(h_distinct(setup, j)$first), numeric(1))
    check_h_bands_budget(setup, u, if (m >= 2L) choose(m, 2) else 0)
  }
  progress <- new_progress(2)
  one <- execute(setup, list(h_one_way_request(setup, js)), progress)
  n_predictions <- sum(attr(one, "n_predictions"))
  one <- one[[1L]]
  est <- h_overall_stats(one$fitted, stats::setNames(one$pd, variables), one$not, w)
  dimnames(est$num) <- dimnames(est$h2) <- list(variables, labels)
  total <- stats::setNames(est$total, labels)
  reps <- if (boot) h_overall_reps(setup, one)
  one$not_reps <- NULL
  pw <- h_pairwise(setup, est$num, est$Fj, variables, m, labels, progress, if (boot) one)
  level <- setup$bands$level
  overall <- h_long(est$h2, labels, reps$h2, level)
  names(overall)[1L] <- "variable"
  total_bands <- if (boot) h_long(rbind(total = total), labels, reps$total, level)[-1L]
  call <- match.call()
  new_mp_h_statistic(list(
      overall = h_drop_replicates(overall), pairwise = h_drop_replicates(pw$table), total = total,
      total_bands = total_bands,
      bands = band_report(setup),
      replicates = if (boot) {
        list(overall = attr(overall, "replicates"), pairwise = attr(pw$table, "replicates"),
             total = matrix(reps$total, length(labels), setup$bands$B, byrow = TRUE,
                            dimnames = list(labels, NULL)))
      },
      variables = variables,
      pair_variables = pw$variables, label = setup$label, labels = labels,
      class = setup$outputs$classes, N = setup$n, n_data = nrow(inputs$data), rows = setup$rows,
      weights = if (setup$weighted) setup$case_weights, n_predictions = n_predictions + pw$n_predictions,
      threads = setup$threads, engine = setup$engine, call = call
    ))
}

# The variables of h_statistic(): at least 2, without infinite values.
h_variables <- function(inputs, variables, call) {
  explicit <- !is.null(variables)
  if (!explicit) variables <- setdiff(names(inputs$data), attr(inputs$weights, "column"))
  variables <- check_variables(variables, inputs$data, call)
  variables <- used_variables(inputs, variables, explicit, call)
  variables <- finite_variables(inputs$data, variables, explicit, call)
  if (length(variables) < 2L) {
    cli::cli_abort(
      "H-statistics need at least 2 variables; {.arg variables} has {length(variables)}: {.val {variables}}.",
      call = call
    )
  }
  variables
}

# Pairwise statistics among the m variables with the largest overall
# numerators: list(table (with bands, the columns h2_lower and h2_upper,
# and attribute "replicates"), variables (those computed), n_predictions).
# `one`: with bootstrap bands, the one-way tables (h_one_way_request()).
h_pairwise <- function(setup, num, Fj, variables, m, labels, progress, one = NULL) {
  table <- data.frame(variable1 = character(), variable2 = character(), label = character(),
                      h2 = numeric(), stringsAsFactors = FALSE)
  boot <- !is.null(one)
  B <- setup$bands$B
  if (m < 2L) {
    if (boot) {
      table$h2_lower <- numeric()
      table$h2_upper <- numeric()
      attr(table, "replicates") <- matrix(0, 0L, B)
    }
    return(list(table = table, variables = character(), n_predictions = 0))
  }
  w <- setup$weights
  pair_vars <- h_pair_candidates(num, m)
  shown <- pair_vars
  if (length(shown) < m) shown <- c(shown, utils::head(setdiff(variables, shown), m - length(shown)))
  shown <- variables[variables %in% shown]
  all_pairs <- utils::combn(shown, 2L, simplify = FALSE)
  keys <- vapply(all_pairs, paste, character(1), collapse = ":")
  h2 <- matrix(0, length(all_pairs), length(labels), dimnames = list(keys, labels))
  # Pairs reported as 0 without being computed have no replicates.
  reps <- if (boot) array(NA_real_, c(length(all_pairs), B, length(labels)))
  n_predictions <- 0
  if (length(pair_vars) >= 2L) {
    computed <- utils::combn(pair_vars, 2L, simplify = FALSE)
    js <- lapply(computed, function(pr) match(pr, names(setup$data)))
    out <- execute(setup, list(h_two_way_request(setup, js)), progress)
    n_predictions <- sum(attr(out, "n_predictions"))
    Fjk <- out[[1L]]
    at <- match(vapply(computed, paste, character(1), collapse = ":"), keys)
    for (a in seq_along(computed)) {
      pr <- computed[[a]]
      h2[at[a], ] <- h_pair_stat(Fjk[[a]], Fj[[pr[1L]]], Fj[[pr[2L]]], w)
    }
    if (boot) {
      pos <- lapply(computed, match, table = variables)
      reps[at, , ] <- h_pair_reps(setup, one, pos, attr(Fjk, "reps"))
    }
  }
  long <- h_long(h2, labels, reps, setup$bands$level)
  k <- match(long$term, rownames(h2))
  table <- data.frame(
    variable1 = vapply(all_pairs, `[`, character(1), 1L)[k],
    variable2 = vapply(all_pairs, `[`, character(1), 2L)[k],
    long[-1L], stringsAsFactors = FALSE
  )
  attr(table, "replicates") <- attr(long, "replicates")
  list(table = table, variables = pair_vars, n_predictions = n_predictions)
}

# The overall and total statistics for row weights w (the estimate's, or a
# resample's): from the predictions at the rows `fitted` (n x outputs),
# each variable's PD at the rows' own values `pd` and PD_-j `not` (lists
# of n x outputs matrices). Returns num and h2 (variables x outputs), total
# (one per output) and Fj (the centred PD_j, named as pd).
h_overall_stats <- function(fitted, pd, not, w) {
  f <- h_center(fitted, w)
  mean_f2 <- weighted_col_means(f^2, w)
  Fj <- lapply(pd, h_center, w = w)
  num <- matrix(0, length(pd), ncol(fitted))
  for (a in seq_along(pd)) {
    num[a, ] <- h_zap(weighted_col_means((f - Fj[[a]] - h_center(not[[a]], w))^2, w))
  }
  h2 <- h_ratio(num, matrix(mean_f2, nrow(num), ncol(num), byrow = TRUE))
  total <- h_ratio(h_zap(weighted_col_means((f - Reduce(`+`, Fj))^2, w)), mean_f2)
  list(num = num, h2 = h2, total = total, Fj = Fj)
}

# The pairwise statistic (one per output) of a pair with PD `pd_jk` at the
# rows' own pairs (n x outputs) and centred one-way PDs Fj and Fk, for row
# weights w.
h_pair_stat <- function(pd_jk, Fj, Fk, w) {
  F2 <- h_center(pd_jk, w)
  h_ratio(h_zap(weighted_col_means((F2 - Fj - Fk)^2, w)), weighted_col_means(F2^2, w))
}

# An n x outputs matrix centred with its weighted column means (hstats'
# wcenter()).
h_center <- function(M, w) M - rep(weighted_col_means(M, w), each = nrow(M))

# hstats' .zap_small(): numerators below eps (absolute) or not finite are 0.
h_zap <- function(x, eps = h_eps) {
  x[abs(x) < eps | !is.finite(x)] <- 0
  x
}

# Normalised statistic: num / denom, with 0/0 (NaN) reported as 0.
h_ratio <- function(num, denom) {
  out <- num / denom
  out[is.nan(out)] <- 0
  out
}

# hstats' get_v(): per output, the (at most m) variables with the largest
# positive numerators (ties in the order of the variables); their union
# over the outputs, in the order of the variables.
h_pair_candidates <- function(num, m) {
  v <- rownames(num)
  cand <- unlist(lapply(seq_len(ncol(num)), function(c) {
    pos <- which(num[, c] > 0)
    v[utils::head(pos[order(-num[pos, c])], m)]
  }))
  v[v %in% cand]
}
