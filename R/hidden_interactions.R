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
#'   given, e.g. `d$g`), or a named list (or data frame) of such vectors; or
#'   a [profile_groups()] setting of them, with the number of `bins` of a
#'   numeric column (3 by default) and the `min_size` of a subgroup read
#'   (25 rows by default; smaller subgroups are not read).
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
#' @param grid The grid: a number of grid points, or a [profile_grids()]
#'   setting, by default five values that occur (`points = 5`,
#'   `type = "distinct"`; see [profile_grid()]).
#' @param ... DALEX's names of the fields of `grid` (`grid_points`,
#'   `variable_splits_type`, `variable_splits`; see [profile_grids()]); the
#'   deprecated `group_bins` and `min_group_size`.
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
hidden_interactions <- function(x, data = NULL, predict_function = NULL, variables = NULL, groups, ...,
                                N = 1000, rule = c("intervals", "thresholds"),
                                level = 0.95, ratio = 0.5, flat = 0.05, sloped = 0.02, scale = NULL,
                                grid = profile_grids(), label = NULL, seed = NULL, weights = NULL, class = NULL,
                                threads = NULL, memory_budget = getOption("modelprofiles.memory_budget", 256),
                                engine = c("auto", "native", "predict")) {
  env <- environment()
  call <- user_call(env)
  title <- deparse1(substitute(groups))
  door <- front_door(list(...), "hidden_interactions", env)
  start <- start_call("hidden_interactions", env, list(), x, data, predict_function, label, weights,
                      threads, memory_budget, seed, engine)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  rule <- rlang::arg_match(rule, error_call = env)
  if (missing(groups) || is.null(groups)) {
    cli::cli_abort("{.arg groups} is missing: give the columns (or vectors) that define subgroups.", call = env)
  }
  g <- grid_settings(grid, door$grid, list(points = 5L, type = "distinct", splits = NULL), env)
  sub <- group_settings(groups, door, list(bins = 3L, min_size = 25L), env)
  if (inherits(groups, "mp_groups")) title <- sub$expr
  groups <- sub$by
  given <- c(flat = !missing(flat), sloped = !missing(sloped), ratio = !missing(ratio))
  check_slope_rule(rule, level, ratio, flat, sloped, scale, given, env)
  groupings <- resolve_groupings(groups, inputs$data, env, title = title)
  N <- check_N(N, env)
  min_group_size <- sub$min_size
  variables <- profile_variables(inputs, variables, "partial", if (is.character(groups) && all(groups %in% names(inputs$data))) groups,
                                 names(g$splits), env)
  s <- profile_settings("partial", grid_points = g$points, splits_type = g$type,
                        splits = check_splits(g$splits, inputs$data, variables, env))
  rows <- setup_rows(inputs, N, seed)
  s$native <- native_for(start$engine, "partial", "exact", length(rows), inputs)
  setup <- new_setup(inputs, rows, class, start$engine, linear = TRUE)
  if (setup$n_outputs > 1L) {
    cli::cli_abort(c(
      "Slopes are read one class at a time; the model has several.",
      i = "Choose one with {.arg class}."
    ), call = env)
  }
  # The subgroups of every grouping, as parts of the background rows.
  grouped <- lapply(stats::setNames(names(groupings), names(groupings)), function(name) {
    withCallingHandlers(
      group_parts(setup, groupings[[name]], sub$bins, min_group_size, name),
      modelprofiles_small_groups = function(m) invokeRestart("muffleMessage")
    )
  })
  left_out <- left_out_subgroups(grouped)
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
      i = "Lower {.code min_size} of {.fn profile_groups} to read {cli::qty(nrow(left_out))}{?it/them}."
    ))
  }
  slopes <- slope_table(setup, run, grouped, overall$variables, level)
  scale <- if (rule == "thresholds") slope_scale(setup, scale, s$native)
  made <- run$whole$n_predictions + (attr(scale, "n_predictions") %||% 0)
  attr(scale, "n_predictions") <- NULL
  flat_abs <- if (rule == "thresholds") flat * c(scale)
  sloped_abs <- if (rule == "thresholds") sloped * c(scale)
  new_mp_slopes(list(
      summary = slope_summary(slopes, overall$variables, rule, ratio, flat_abs, sloped_abs),
      slopes = slopes, left_out = left_out, profiles = profiles,
      rule = rule, level = level, ratio = ratio, flat = flat, sloped = sloped, scale = scale,
      flat_abs = flat_abs, sloped_abs = sloped_abs, tests = sum(slopes$subgroup != "all"),
      min_group_size = min_group_size, grids = overall$grids, label = setup$label,
      n_predictions = made, call = call
    ))
}

# The checks of hidden_interactions()'s rule and thresholds (`given`: which
# of flat, sloped and ratio the user gave), and the message naming those
# the rule does not read. `env`: the entry point's frame, for errors.
check_slope_rule <- function(rule, level, ratio, flat, sloped, scale, given, env) {
  thresholds <- list(flat = flat, sloped = sloped, ratio = ratio)
  for (th in names(thresholds)) {
    check_number(thresholds[[th]], function(x) x >= 0,
                 paste0("{.arg ", th, "} must be a non-negative number."), env)
  }
  check_number(level, function(x) x > 0 && x < 1,
               "{.arg level} must be a single number between 0 and 1, such as 0.95.", env)
  if (!is.null(scale)) {
    check_number(scale, function(x) is.finite(x) && x > 0,
                 "{.arg scale} must be {.code NULL} or a positive number.", env)
  }
  unused <- if (rule == "intervals") {
    c("flat", "sloped", "scale")[c(given[["flat"]], given[["sloped"]], !is.null(scale))]
  } else {
    "ratio"[given[["ratio"]]]
  }
  if (length(unused)) {
    cli::cli_inform(c(
      "{.arg {unused}} {?is/are} not read by {.code rule = \"{rule}\"}.",
      i = if (rule == "intervals") "{.arg flat}, {.arg sloped} and {.arg scale} are the thresholds of {.code rule = \"thresholds\"}." else
        "{.arg ratio} is read by {.code rule = \"intervals\"}."
    ))
  }
  invisible()
}

# The subgroups of every grouping left out for their size: a data frame of
# `subgroup` (the grouping's name and the subgroup's) and `rows`.
left_out_subgroups <- function(grouped) {
  left_out <- data.frame(subgroup = character(), rows = integer(), stringsAsFactors = FALSE)
  for (name in names(grouped)) {
    info <- grouped[[name]]$info
    if (length(info$left_out)) {
      left_out <- rbind(left_out, data.frame(
        subgroup = paste(name, info$left_out), rows = info$left_out_sizes, stringsAsFactors = FALSE
      ))
    }
  }
  left_out
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
