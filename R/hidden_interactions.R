# Slopes of partial-dependence profiles, overall and in subgroups, with
# their standard errors from the rows' own slopes: flat averages that hide
# opposite movements, told from noise.

#' Hidden interactions: flat profiles that slope in opposite directions in subgroups
#'
#' A partial-dependence profile is an average, and an average can cancel two
#' movements in opposite directions: a variable that raises the prediction
#' in one subgroup and lowers it in another can have a flat profile overall
#' and look unimportant. `hidden_interactions()` computes, for each variable,
#' the slope of its partial-dependence profile (the profile at the last grid
#' point minus the profile at the first) over all background rows and within
#' each subgroup, each with its standard error, and flags the variables
#' whose subgroups slope in opposite directions while the overall slope is
#' small against them.
#'
#' Subgroups come from one or more groupings of the rows (`groups`): each
#' grouping splits the rows by its values (a numeric column with more than
#' `group_bins` distinct values into quantile bins, as in [model_profile()]),
#' and the subgroups of different groupings may overlap. Each subgroup is
#' named `<grouping> <value>`. Subgroups with fewer than `min_group_size`
#' background rows are not read (they are listed in `$left_out`). All
#' profiles use the same grid, the grid of the overall profile (give your
#' own with `variable_splits`, e.g. from [profile_grid()] on the training
#' rows), and the same background rows (`N` of the rows of `data`, all of
#' them when it has fewer). The ICE curves of the background rows are
#' predicted once: the overall profile and every subgroup's are weighted
#' means of them, so the subgroups cost no prediction of their own.
#'
#' @section Slopes and their standard errors:
#' The PD profile is the weighted mean of the ICE curves, so its slope is
#' the weighted mean of the rows' own slopes
#' \eqn{d_i = f(x_i^{j = z_G}) - f(x_i^{j = z_1})}{d_i = f(x_i with x_j = z_G) - f(x_i with x_j = z_1)}
#' (\eqn{z_1}{z_1} and \eqn{z_G}{z_G} the first and last grid points),
#' overall and within each subgroup. Its standard error is that of a
#' weighted mean of the \eqn{d_i}{d_i}, the linearised one with Kish's
#' small-sample factor of the analytic bands (see [profile_bands]):
#' \eqn{se^2 = \frac{n_{eff}}{n_{eff} - 1} \sum_i w_i^2 (d_i - s)^2 / W^2}{se^2 = n_eff / (n_eff - 1) * sum(w^2 (d - s)^2) / W^2},
#' \eqn{W = \sum_i w_i}{W = sum(w)}, \eqn{n_{eff} = W^2 / \sum_i w_i^2}{n_eff = W^2 / sum(w^2)}
#' over the rows of the subgroup, from the predictions already made. It is
#' the uncertainty of the sampling of the background rows (from the data,
#' or of the data from its population), with the model held fixed. The
#' intervals `lower`, `upper` are slope \eqn{\pm}{+/-}
#' `qnorm((1 + level) / 2)` standard errors, pointwise (their coverage is
#' measured by `inst/bench/bench-slope-coverage.R`).
#'
#' @section Rules:
#' `rule = "intervals"` (the default) flags a variable when both hold:
#' * some subgroup's slope is distinguishable from 0 above it, and another's
#'   below it: the two-sided test of a zero slope (\eqn{z}{z} = slope / se,
#'   normal) rejects at \eqn{1 - }`level` after **Holm's** (1979) step-down
#'   adjustment over every subgroup slope read (all variables times all
#'   subgroups), which keeps the chance of calling any zero subgroup slope
#'   non-zero at most \eqn{1 - }`level` however many are read; a slope
#'   with a standard error of 0 is distinguishable when it is not 0;
#' * the overall slope is small against them: its absolute value is below
#'   `ratio` times the smaller of the two opposing slopes in absolute value
#'   (the largest distinguishable positive slope and the most negative
#'   distinguishable negative one); with `ratio = 0.5`, the overall slope is
#'   less than half of the movement of either side.
#'
#' `rule = "thresholds"` is the rule of the published lesson that the
#' vignette `vignette("average-hides")` reproduces, without uncertainty: a
#' variable is flat when its absolute overall slope is below `flat`
#' \eqn{\times} `scale`, and flagged when it is flat and some subgroup's
#' slope is above `sloped` \eqn{\times} `scale`, another's below minus
#' that. The thresholds are fractions of the model's prediction scale, so
#' that they mean the same for a probability and for a price: by default 1
#' for a classifier's probabilities, else the standard deviation of the
#' predictions at the background rows (which costs one prediction per
#' row); `scale = 1` makes them absolute. Such thresholds flag noise (a
#' random grouping of a large sample slopes a little in every direction)
#' and miss large cancelling slopes whose sum is just above `flat`; the
#' standard errors are reported under both rules.
#'
#' @references
#' Holm, S. (1979). A simple sequentially rejective multiple test procedure.
#' *Scandinavian Journal of Statistics*, 6(2), 65--70.
#'
#' @inheritParams model_profile
#' @param groups The groupings of the rows: names of columns of `data`, a
#'   vector with one value per row of `data` (named after the expression
#'   given, e.g. `d$g`), or a named list (or data frame) of such vectors.
#' @param rule `"intervals"` (slopes distinguishable from 0, with Holm's
#'   adjustment) or `"thresholds"` (the published lesson's fixed
#'   thresholds): see the section on rules.
#' @param level The confidence level of the intervals, and `1 - level` the
#'   family-wise error rate of the tests of `rule = "intervals"`.
#' @param ratio For `rule = "intervals"`: the overall slope is small when
#'   its absolute value is below `ratio` times the smaller absolute value
#'   of the opposing subgroup slopes.
#' @param flat For `rule = "thresholds"`: a variable whose absolute overall
#'   slope is below `flat` times `scale` is flat.
#' @param sloped For `rule = "thresholds"`: a subgroup whose slope exceeds
#'   `sloped` times `scale` in absolute value slopes.
#' @param scale For `rule = "thresholds"`: the unit of `flat` and `sloped`,
#'   on the prediction scale: `NULL` (the default) for 1 with a classifier's
#'   probabilities and the (weighted) standard deviation of the predictions
#'   at the background rows otherwise, or a positive number (1: absolute
#'   thresholds).
#' @param min_group_size Subgroups with fewer background rows are not read.
#' @param N Number of background rows to sample when `data` has more; `NULL` uses all rows.
#' @param grid_points,variable_splits_type The grid, by default five values
#'   that occur (see [profile_grid()]).
#' @param ... Must be empty.
#' @returns An object of class `mp_slopes`: a list with
#'   * `summary`: one row per variable: `variable`, `slope` (overall), `se`,
#'     `lower`, `upper` (its interval), `highest` and `max_slope` (the first
#'     subgroup with the largest slope), `lowest` and `min_slope` (the first
#'     with the smallest), `gap` (`max_slope - min_slope`), `rising` and
#'     `falling` (the numbers of subgroups whose slope is distinguishable
#'     from 0, above and below), `flat` (the overall slope is small: under
#'     `"intervals"` against the opposing distinguishable slopes, `FALSE`
#'     without a pair of them; under `"thresholds"` below `flat` times
#'     `scale`) and `hidden` (flagged by the rule);
#'   * `slopes`: one row per subgroup (the first, `"all"`, for all rows) and
#'     variable: `subgroup`, `grouping`, `rows`, `variable`, `first`, `last`
#'     (the profile at the first and last grid points), `slope`, `se`,
#'     `lower`, `upper`, `p_value` (of a zero slope), and for subgroups
#'     `p_holm` (Holm's adjusted p-value) and `distinct` (`p_holm` below
#'     `1 - level`);
#'   * `left_out`: the subgroups not read and their numbers of rows;
#'   * `profiles`: the overall [model_profile()] result and one per grouping
#'     (made from the same ICE curves: their `n_predictions` are 0);
#'   * `rule`, `level`, `ratio`, `flat`, `sloped` (as given), `scale` (the
#'     unit used, with attribute `"source"`; `NULL` under `"intervals"`),
#'     `flat_abs`, `sloped_abs` (the thresholds on the prediction scale),
#'     `tests` (the number of subgroup slopes adjusted for), `min_group_size`,
#'     `grids`, `label`, `n_predictions` (all the predictions made).
#' @seealso [model_profile()] with `groups` for the profiles themselves.
#' @examples
#' # A model in which x moves the prediction up for one half of the rows and
#' # down for the other: its PD profile is flat.
#' set.seed(1)
#' d <- data.frame(x = runif(400), z = runif(400), s = sample(c("a", "b"), 400, TRUE))
#' f <- function(m, newdata) ifelse(newdata$s == "a", 1, -1) * newdata$x + newdata$z
#' h <- hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s")
#' h
#' plot(h)
#' # The lesson's rule, absolute thresholds without uncertainty.
#' hidden_interactions(NULL, d, predict_function = f, variables = c("x", "z"), groups = "s",
#'                     rule = "thresholds", scale = 1)
#' @export
hidden_interactions <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                                groups, N = 1000, rule = c("intervals", "thresholds"),
                                level = 0.95, ratio = 0.5, flat = 0.05, sloped = 0.02,
                                scale = NULL, min_group_size = 25,
                                grid_points = 5, variable_splits_type = "distinct",
                                variable_splits = NULL, group_bins = 3,
                                label = NULL, seed = NULL, weights = NULL, class = NULL,
                                threads = NULL,
                                memory_budget = getOption("modelprofiles.memory_budget", 256),
                                engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  check_entry(missing(x), ...length(), names(list(...)), "hidden_interactions", env)
  restore_seed <- seed_call(seed, env)
  on.exit(restore_seed(), add = TRUE)
  engine <- rlang::arg_match(engine, error_call = env)
  rule <- rlang::arg_match(rule, error_call = env)
  if (missing(groups) || is.null(groups)) {
    cli::cli_abort("{.arg groups} is missing: give the columns (or vectors) that define subgroups.", call = env)
  }
  thresholds <- list(flat = flat, sloped = sloped, ratio = ratio)
  for (th in names(thresholds)) {
    v <- thresholds[[th]]
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 0) {
      cli::cli_abort("{.arg {th}} must be a non-negative number.", call = env)
    }
  }
  if (!is.numeric(level) || length(level) != 1L || !is.finite(level) || level <= 0 || level >= 1) {
    cli::cli_abort("{.arg level} must be a single number between 0 and 1, such as 0.95.", call = env)
  }
  if (!is.null(scale) && (!is.numeric(scale) || length(scale) != 1L || !is.finite(scale) || scale <= 0)) {
    cli::cli_abort("{.arg scale} must be {.code NULL} or a positive number.", call = env)
  }
  unused <- if (rule == "intervals") {
    c("flat", "sloped", "scale")[c(!missing(flat), !missing(sloped), !is.null(scale))]
  } else {
    "ratio"[!missing(ratio)]
  }
  if (length(unused)) {
    cli::cli_inform(c(
      "{.arg {unused}} {?is/are} not read by {.code rule = \"{rule}\"}.",
      i = if (rule == "intervals") "{.arg flat}, {.arg sloped} and {.arg scale} are the thresholds of {.code rule = \"thresholds\"}." else
        "{.arg ratio} is read by {.code rule = \"intervals\"}."
    ))
  }
  inputs <- setup_inputs(x, data, predict_function, label, weights, threads, memory_budget, env)
  groupings <- resolve_groupings(groups, inputs$data, env, title = deparse1(call$groups))
  N <- check_N(N, env)
  grid_points <- check_whole(grid_points, "grid_points", 2, env)
  group_bins <- check_whole(group_bins, "group_bins", 2, env)
  min_group_size <- check_whole(min_group_size, "min_group_size", 1, env)
  variables <- profile_variables(inputs, variables, "partial", if (is.character(groups) && all(groups %in% names(inputs$data))) groups,
                                 names(variable_splits), env)
  s <- profile_settings("partial", grid_points = grid_points, splits_type = variable_splits_type,
                        splits = check_splits(variable_splits, inputs$data, variables, env))
  rows <- setup_rows(inputs, N, seed)
  s$native <- native_for(engine, "partial", "exact", length(rows), inputs)
  setup <- new_setup(inputs, rows, class, engine, linear = TRUE)
  if (setup$n_outputs > 1L) {
    cli::cli_abort(c(
      "Slopes are read one class at a time; the model has several.",
      i = "Choose one with {.arg class}."
    ), call = env)
  }
  # The subgroups of every grouping, as parts of the background rows.
  grouped <- lapply(stats::setNames(names(groupings), names(groupings)), function(name) {
    withCallingHandlers(
      group_parts(setup, groupings[[name]], group_bins, min_group_size, name),
      modelprofiles_small_groups = function(m) invokeRestart("muffleMessage")
    )
  })
  left_out <- data.frame(subgroup = character(), rows = integer(), stringsAsFactors = FALSE)
  for (name in names(grouped)) {
    info <- grouped[[name]]$info
    if (length(info$left_out)) {
      left_out <- rbind(left_out, data.frame(
        subgroup = paste(name, info$left_out), rows = info$left_out_sizes, stringsAsFactors = FALSE
      ))
    }
  }
  run <- run_slopes(setup, inputs, s, variables, grouped)
  overall <- profile_result(setup, inputs, s, variables, whole_part(setup), run$whole, call)
  profiles <- list(all = overall)
  for (name in names(grouped)) {
    profiles[[name]] <- profile_result(setup, inputs, s, overall$variables, grouped[[name]]$parts,
                                       run$groups[[name]], call, grouped[[name]]$info)
  }
  if (nrow(left_out)) {
    cli::cli_inform(c(
      "{nrow(left_out)} subgroup{?s} with fewer than {min_group_size} rows not read: {paste0(left_out$subgroup, ' (', left_out$rows, ')')}.",
      i = "Lower {.arg min_group_size} to read {cli::qty(nrow(left_out))}{?it/them}."
    ))
  }
  slopes <- slope_table(setup, run, grouped, overall$variables, level)
  scale <- if (rule == "thresholds") slope_scale(setup, scale, s$native)
  made <- run$whole$n_predictions + (attr(scale, "n_predictions") %||% 0)
  attr(scale, "n_predictions") <- NULL
  flat_abs <- if (rule == "thresholds") flat * c(scale)
  sloped_abs <- if (rule == "thresholds") sloped * c(scale)
  structure(
    list(
      summary = slope_summary(slopes, overall$variables, rule, ratio, flat_abs, sloped_abs),
      slopes = slopes, left_out = left_out, profiles = profiles,
      rule = rule, level = level, ratio = ratio, flat = flat, sloped = sloped, scale = scale,
      flat_abs = flat_abs, sloped_abs = sloped_abs, tests = sum(slopes$subgroup != "all"),
      min_group_size = min_group_size, grids = overall$grids, label = setup$label,
      n_predictions = made, call = call
    ),
    class = "mp_slopes"
  )
}

# The unit of the thresholds (with attribute "source"): the one given, 1
# for a classifier's probabilities, else the weighted standard deviation of
# the predictions at the background rows (1 if they are all equal).
slope_scale <- function(setup, scale, native) {
  if (!is.null(scale)) return(structure(scale, source = "given"))
  if (identical(setup$adapter$task, "classification")) {
    return(structure(1, source = "probabilities"))
  }
  out <- execute(setup, list(fitted_request(setup, seq_len(setup$n), native)))
  y <- out[[1L]][, 1L]
  w <- setup$weights
  m <- sum(w * y) / sum(w)
  sd <- sqrt(sum(w * (y - m)^2) / sum(w))
  made <- sum(attr(out, "n_predictions"))
  if (!is.finite(sd) || sd <= 0) return(structure(1, source = "constant predictions", n_predictions = made))
  structure(sd, source = "sd of the predictions", n_predictions = made)
}

# ---- One pass over the ICE curves ------------------------------------------------

# The profiles of `variables` over all background rows and within the
# subgroups of every grouping (`grouped`: group_parts() per grouping), and
# each row's own slope, from one prediction of the ICE curves of every
# background row: list(whole (run_profiles()'s result for all rows),
# groups (one such per grouping, its profiles made of the same curves, no
# prediction of their own), d (per variable, the rows' slopes), ends (per
# variable, the positions of the first and last grid points)).
run_slopes <- function(setup, inputs, s, variables, grouped) {
  nm <- if (identical(s$splits_type, "splits")) splits_model(setup)
  grids <- profile_grids(inputs, s, variables, nm)
  js <- match(variables, names(setup$data))
  # Each background row's subgroup (part) in each grouping, 0 for none.
  codes <- lapply(grouped, function(gp) {
    k <- integer(setup$n)
    for (p in seq_along(gp$parts)) k[gp$parts[[p]]$rows] <- p
    k
  })
  makers <- lapply(seq_along(variables), function(i) {
    function() slope_request(setup, js[i], grids[[i]], codes, s$native)
  })
  res <- execute(setup, makers, new_progress(length(variables)))
  est <- function(f) stats::setNames(lapply(res, f), variables)
  steps <- if (!is.null(nm)) split_steps(nm)
  whole <- list(raw = list(est(function(e) e$whole)), grids = grids, bandwidth = list(), fitted = NULL,
                n_predictions = sum(attr(res, "n_predictions")), steps = steps)
  groups <- lapply(stats::setNames(names(grouped), names(grouped)), function(name) {
    raw <- lapply(seq_along(grouped[[name]]$parts), function(p) est(function(e) e$groups[[name]][[p]]))
    list(raw = raw, grids = grids, bandwidth = list(), fitted = NULL, n_predictions = 0, steps = steps)
  })
  list(whole = whole, groups = groups, d = est(function(e) e$d), ends = est(function(e) e$ends))
}

# The positions of the first and last points of a grid: the smallest and
# largest value of a numeric (or date, time) grid, the first and last level
# of a categorical one.
grid_ends <- function(grid) {
  if (column_kind(grid) == "numeric") {
    z <- as.double(unclass(grid))
    return(c(which.min(z), which.max(z)))
  }
  c(1L, length(grid))
}

# The request of the slopes of column j over `grid`: the ICE curves of all
# background rows, reduced chunk by chunk to the weighted sums of the
# overall profile, those of each subgroup of each grouping (`codes`: per
# grouping, each row's subgroup, 0 for none) and each row's slope.
slope_request <- function(setup, j, grid, codes, native) {
  G <- length(grid)
  n <- setup$n
  w <- setup$weights
  ends <- grid_ends(grid)
  sizes <- vapply(codes, function(k) max(0L, k), integer(1))
  keys <- paste0("group", seq_along(codes))
  curve_request(
    setup, j, list(column_values(setup$data[[j]], grid)), seq_len(n),
    reduce_block = function(pos, y) {
      if (inherits(y, "mp_affine") && !y$identity) y <- affine_values(y)
      wp <- w[pos]
      upd <- list(sums = curve_sums(setup, y, G, wp), d = place(matrix(row_slopes(y, G, ends)), pos))
      for (k in seq_along(codes)) {
        code <- codes[[k]][pos]
        S <- matrix(0, G, sizes[k])
        for (p in seq_len(sizes[k])) {
          sel <- which(code == p)
          if (length(sel)) S[, p] <- curve_sums(setup, curve_subset(y, G, sel), G, wp[sel])
        }
        upd[[keys[k]]] <- S
      }
      upd
    },
    init = function() {
      c(list(sums = matrix(0, G, 1L), d = matrix(0, n, 1L)),
        stats::setNames(lapply(sizes, function(L) matrix(0, G, L)), keys))
    },
    finish = function(acc) {
      groups <- lapply(seq_along(codes), function(k) {
        lapply(seq_len(sizes[k]), function(p) {
          r <- which(codes[[k]] == p)
          list(x = grid, yhat = acc[[keys[k]]][, p, drop = FALSE] / sum(w[r]), ice = NULL, ice_rows = r)
        })
      })
      list(whole = list(x = grid, yhat = acc$sums / sum(w), ice = NULL, ice_rows = seq_len(n)),
           groups = stats::setNames(groups, names(codes)), d = acc$d[, 1L], ends = ends)
    },
    native = native, linear = TRUE, affine = TRUE
  )
}

# Weighted sums over the rows of a chunk's ICE curves (a table, or the
# linear engine's affine curves with an identity link), per grid point: a
# G x 1 matrix, as partial_request() sums them.
curve_sums <- function(setup, y, G, w) {
  if (inherits(y, "mp_affine")) affine_sums(y, w) else table_sums(setup, y, G, w)
}

# The curves of rows `sel` of a chunk.
curve_subset <- function(y, G, sel) {
  if (inherits(y, "mp_affine")) {
    y$a <- y$a[sel]
    y$slope <- y$slope[sel]
    return(y)
  }
  y[rep((sel - 1L) * G, each = G) + seq_len(G), , drop = FALSE]
}

# Each row's slope: its curve at the last grid point minus at the first
# (positions `ends`).
row_slopes <- function(y, G, ends) {
  if (inherits(y, "mp_affine")) {
    return((y$a + y$z[ends[2L]] * y$slope) - (y$a + y$z[ends[1L]] * y$slope))
  }
  at <- (seq_len(nrow(y) %/% G) - 1L) * G
  y[at + ends[2L], 1L] - y[at + ends[1L], 1L]
}

# ---- Slopes, their standard errors and the rules -------------------------------------

# Slopes of every profile, one row per subgroup and variable ("all" first,
# then each grouping's subgroups in order), with their standard errors,
# intervals at `level`, p-values of a zero slope and, over the subgroup
# slopes of all variables, Holm's adjusted p-values.
slope_table <- function(setup, run, grouped, variables, level) {
  z <- stats::qnorm((1 + level) / 2)
  w <- setup$weights
  one <- function(e, rows, v, subgroup, grouping, size) {
    ends <- run$ends[[v]]
    first <- e$yhat[ends[1L], 1L]
    last <- e$yhat[ends[2L], 1L]
    slope <- last - first
    d <- run$d[[v]][rows]
    k <- w[rows]
    se <- weighted_mean_se(sum(k^2 * (d - slope)^2), sum(k), sum(k^2))
    data.frame(subgroup = subgroup, grouping = grouping, rows = size, variable = v, first = first,
               last = last, slope = slope, se = se, lower = slope - z * se, upper = slope + z * se,
               p_value = zero_slope_p(slope, se), stringsAsFactors = FALSE)
  }
  out <- lapply(variables, function(v) {
    all <- one(run$whole$raw[[1L]][[v]], seq_len(setup$n), v, "all", "all", setup$n)
    subs <- lapply(names(grouped), function(name) {
      parts <- grouped[[name]]$parts
      do.call(rbind, lapply(seq_along(parts), function(p) {
        one(run$groups[[name]]$raw[[p]][[v]], parts[[p]]$rows, v, paste(name, parts[[p]]$level), name,
            length(parts[[p]]$rows))
      }))
    })
    do.call(rbind, c(list(all), subs))
  })
  out <- do.call(rbind, out)
  rownames(out) <- NULL
  sub <- out$subgroup != "all"
  out$p_holm <- NA_real_
  out$p_holm[sub] <- stats::p.adjust(out$p_value[sub], method = "holm")
  out$distinct <- NA
  out$distinct[sub] <- !is.na(out$p_holm[sub]) & out$p_holm[sub] < 1 - level
  out
}

# The two-sided normal p-value of a zero slope: 1 for a slope of 0 with a
# standard error of 0, 0 for another slope with a standard error of 0, NA
# without a standard error (a single row).
zero_slope_p <- function(slope, se) {
  if (is.na(se)) return(NA_real_)
  if (se == 0) return(if (slope == 0) 1 else 0)
  2 * stats::pnorm(-abs(slope / se))
}

# One row per variable: the overall slope and its interval, the extreme
# subgroups, the numbers of subgroups distinguishably rising and falling,
# and the rule's `flat` and `hidden`.
slope_summary <- function(slopes, variables, rule, ratio, flat, sloped) {
  out <- do.call(rbind, lapply(variables, function(v) {
    s <- slopes[slopes$variable == v, , drop = FALSE]
    a <- s[s$subgroup == "all", , drop = FALSE]
    all <- a$slope
    g <- s[s$subgroup != "all", , drop = FALSE]
    hi <- if (nrow(g)) which.max(g$slope) else NA
    lo <- if (nrow(g)) which.min(g$slope) else NA
    max_s <- if (nrow(g)) g$slope[hi] else NA_real_
    min_s <- if (nrow(g)) g$slope[lo] else NA_real_
    up <- g$slope[g$distinct & g$slope > 0]
    down <- g$slope[g$distinct & g$slope < 0]
    if (rule == "thresholds") {
      is_flat <- abs(all) < flat
      hidden <- is_flat && isTRUE(max_s > sloped) && isTRUE(min_s < -sloped)
    } else {
      is_flat <- length(up) > 0L && length(down) > 0L && abs(all) < ratio * min(max(up), -min(down))
      hidden <- is_flat
    }
    data.frame(
      variable = v, slope = all, se = a$se, lower = a$lower, upper = a$upper,
      highest = if (nrow(g)) g$subgroup[hi] else NA_character_, max_slope = max_s,
      lowest = if (nrow(g)) g$subgroup[lo] else NA_character_, min_slope = min_s,
      gap = max_s - min_s, rising = length(up), falling = length(down),
      flat = is_flat, hidden = hidden, stringsAsFactors = FALSE
    )
  }))
  rownames(out) <- NULL
  out
}

#' @rdname hidden_interactions
#' @export
print.mp_slopes <- function(x, ...) {
  s <- x$summary
  rule <- x$rule %||% "thresholds"
  n_sub <- length(unique(x$slopes$subgroup)) - 1L
  fmt <- function(v) formatC(v, digits = 4, format = "f", flag = "+")
  level <- x$level %||% 0.95
  cli::cat_line("<mp_slopes> slopes of partial-dependence profiles for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  slope = profile at the last grid point minus at the first; ",
                n_sub, " subgroups read",
                if (nrow(x$left_out)) paste0("; ", nrow(x$left_out), " with fewer than ",
                                             x$min_group_size, " rows not read"))
  if (rule == "thresholds") {
    n_flat <- sum(s$flat)
    sc <- x$scale %||% 1
    unit <- if (identical(attr(sc, "source"), "given") && sc == 1) "" else {
      paste0(" x ", format(signif(sc, 4)), " (", attr(sc, "source") %||% "scale", ")")
    }
    thr <- function(f, a) {
      if (nzchar(unit)) paste0(f, unit, " = ", format(signif(a, 4))) else format(f)
    }
    cli::cat_line("  flat: |slope| < ", thr(x$flat, x$flat_abs %||% x$flat), " overall; sloped: |slope| > ",
                  thr(x$sloped, x$sloped_abs %||% x$sloped), " in a subgroup")
    cli::cat_line("  ", n_flat, " flat variable", if (n_flat != 1L) "s", ", ",
                  sum(s$hidden), " of them sloped in opposite directions in subgroups")
    shown <- s[c("variable", "slope", "flat", "highest", "max_slope", "lowest", "min_slope", "gap", "hidden")]
    num <- c("slope", "max_slope", "min_slope")
    shown[num] <- lapply(shown[num], fmt)
    shown$gap <- formatC(s$gap, digits = 4, format = "f")
    print(shown, row.names = FALSE)
    if (!is.null(s$se)) {
      cli::cat_line("  (standard errors and ", format(100 * level), "% intervals of every slope in $slopes)")
    }
    return(invisible(x))
  }
  cli::cat_line("  ", format(100 * level), "% intervals: slope +/- ", format(signif(stats::qnorm((1 + level) / 2), 3)),
                " standard errors of the rows' own slopes")
  cli::cat_line("  distinguishable from 0: Holm-adjusted p-value below ", format(1 - level), " over ",
                x$tests, " subgroup slopes (", length(s$variable), " variable", if (length(s$variable) != 1L) "s",
                " x ", n_sub, " subgroups)")
  cli::cat_line("  hidden: subgroup slopes distinguishable from 0 in both directions, and |overall slope| < ",
                format(x$ratio), " x the smaller of the largest of each")
  cli::cat_line("  ", sum(s$hidden), " of ", nrow(s), " variable", if (nrow(s) != 1L) "s", " hidden")
  interval <- function(lo, hi) paste0("[", fmt(lo), ", ", fmt(hi), "]")
  shown <- data.frame(variable = s$variable, slope = fmt(s$slope), interval = interval(s$lower, s$upper),
                      highest = s$highest, max_slope = fmt(s$max_slope), lowest = s$lowest,
                      min_slope = fmt(s$min_slope), rising = s$rising, falling = s$falling,
                      hidden = s$hidden, stringsAsFactors = FALSE)
  names(shown)[3L] <- paste0(format(100 * level), "% interval")
  print(shown, row.names = FALSE)
  for (v in s$variable[s$hidden]) {
    g <- x$slopes[x$slopes$variable == v & x$slopes$subgroup != "all", , drop = FALSE]
    g <- g[g$distinct %in% TRUE, , drop = FALSE]
    cli::cat_line("Subgroups of ", v, " distinguishable from 0:")
    out <- data.frame(subgroup = g$subgroup, rows = g$rows, slope = fmt(g$slope),
                      interval = interval(g$lower, g$upper),
                      p_holm = format.pval(g$p_holm, digits = 2), stringsAsFactors = FALSE)
    names(out)[4L] <- paste0(format(100 * level), "% interval")
    print(out, row.names = FALSE)
  }
  invisible(x)
}

#' @rdname hidden_interactions
#' @param row.names,optional Ignored.
#' @param what `"summary"` (a row per variable) or `"slopes"` (a row per
#'   subgroup and variable).
#' @export
as.data.frame.mp_slopes <- function(x, row.names = NULL, optional = FALSE, ...,
                                    what = c("summary", "slopes")) {
  x[[match.arg(what)]]
}

#' @rdname hidden_interactions
#' @param object An `mp_slopes` result.
#' @param geom `"slopes"`: a dot per subgroup and variable at its slope with
#'   its interval, the overall slope as a dashed vertical line; with
#'   `rule = "intervals"` the overall slope's interval is shaded and the
#'   dots are coloured by whether the slope is distinguishable from 0
#'   (rising, falling); with `"thresholds"` the band \eqn{\pm}`sloped` is
#'   shaded. `"profiles"`: the subgroups' profiles of the variables (by
#'   default the flagged ones, else all), the overall profile in black.
#' @details `plot()` draws the picture the numbers summarise: which
#'   subgroups pull a flat average up and which pull it down, and how sure
#'   each slope is.
#' @exportS3Method ggplot2::autoplot
autoplot.mp_slopes <- function(object, ..., geom = c("slopes", "profiles"), variables = NULL) {
  type <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_slopes")
  s <- object$summary
  if (is.null(variables)) variables <- if (any(s$hidden)) s$variable[s$hidden] else s$variable
  unknown <- setdiff(variables, s$variable)
  if (length(unknown)) cli::cli_abort("No slopes of {.val {unknown}}.")
  rule <- object$rule %||% "thresholds"
  level <- format(100 * (object$level %||% 0.95))
  if (type == "slopes") {
    d <- object$slopes[object$slopes$variable %in% variables & object$slopes$subgroup != "all", ]
    d$subgroup <- factor(d$subgroup, levels = rev(unique(d$subgroup)))
    d$variable <- factor(d$variable, levels = variables)
    all <- object$slopes[object$slopes$variable %in% variables & object$slopes$subgroup == "all", ]
    all$variable <- factor(all$variable, levels = variables)
    if (rule == "thresholds") {
      band <- object$sloped_abs %||% object$sloped
      shade <- ggplot2::annotate("rect", xmin = -band, xmax = band, ymin = -Inf, ymax = Inf, alpha = 0.12)
      d$status <- factor(ifelse(d$slope > band, "above the band", ifelse(d$slope < -band, "below the band", "within the band")),
                         levels = c("above the band", "within the band", "below the band"))
      caption <- paste0("dashed: all rows; shaded: |slope| <= ", format(signif(band, 4)),
                        "; bars: ", level, "% intervals")
    } else {
      shade <- ggplot2::geom_rect(data = all, ggplot2::aes(xmin = .data$lower, xmax = .data$upper),
                                  ymin = -Inf, ymax = Inf, alpha = 0.12, inherit.aes = FALSE)
      d$status <- factor(ifelse(d$distinct %in% TRUE & d$slope > 0, "rising",
                                ifelse(d$distinct %in% TRUE & d$slope < 0, "falling", "not distinguishable from 0")),
                         levels = c("rising", "not distinguishable from 0", "falling"))
      caption <- paste0("dashed: all rows (shaded: its ", level, "% interval); bars: ", level,
                        "% intervals\ncoloured: distinguishable from 0, with Holm's adjustment over ",
                        object$tests, " slopes")
    }
    colours <- stats::setNames(c("#B2182B", "grey55", "#2166AC"), levels(d$status))
    return(
      ggplot2::ggplot(d, ggplot2::aes(.data$slope, .data$subgroup)) +
        shade +
        ggplot2::geom_vline(xintercept = 0, colour = "grey50") +
        ggplot2::geom_vline(data = all, ggplot2::aes(xintercept = .data$slope),
                            linetype = "dashed") +
        ggplot2::geom_linerange(ggplot2::aes(xmin = .data$lower, xmax = .data$upper, colour = .data$status),
                                na.rm = TRUE) +
        ggplot2::geom_point(ggplot2::aes(colour = .data$status), size = 2.5) +
        ggplot2::scale_colour_manual(values = colours, drop = FALSE) +
        ggplot2::facet_wrap(ggplot2::vars(.data$variable)) +
        ggplot2::labs(x = "slope (last grid point minus first)", y = NULL, colour = NULL,
                      subtitle = paste0("Slopes of partial dependence by subgroup, ", object$label),
                      caption = caption) +
        ggplot2::theme_bw() +
        ggplot2::theme(legend.position = "bottom")
    )
  }
  curves <- do.call(rbind, lapply(names(object$profiles), function(name) {
    p <- object$profiles[[name]]
    a <- p$agr_profiles[p$agr_profiles$`_vname_` %in% variables, , drop = FALSE]
    data.frame(
      variable = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`,
      subgroup = if (is.null(p$groups)) "all" else paste(name, a$`_groups_`),
      stringsAsFactors = FALSE
    )
  }))
  curves$variable <- factor(curves$variable, levels = variables)
  all <- curves[curves$subgroup == "all", ]
  sub <- curves[curves$subgroup != "all", ]
  sub$subgroup <- factor(sub$subgroup, levels = unique(sub$subgroup))
  ggplot2::ggplot(sub, ggplot2::aes(.data$x, .data$yhat, group = .data$subgroup)) +
    ggplot2::geom_line(ggplot2::aes(colour = .data$subgroup)) +
    ggplot2::geom_line(data = all, colour = "black", linewidth = 1.2) +
    ggplot2::facet_wrap(ggplot2::vars(.data$variable), scales = "free_x") +
    ggplot2::labs(x = NULL, y = "average prediction", colour = "subgroup",
                  subtitle = paste0("Partial dependence by subgroup, ", object$label,
                                    "; black: all rows")) +
    ggplot2::theme_bw()
}

#' @rdname hidden_interactions
#' @export
plot.mp_slopes <- function(x, ...) autoplot.mp_slopes(x, ...)
