# Slopes of partial-dependence profiles, overall and in subgroups: flat
# averages that hide opposite movements.

#' Hidden interactions: flat profiles that slope in opposite directions in subgroups
#'
#' A partial-dependence profile is an average, and an average can cancel two
#' movements in opposite directions: a variable that raises the prediction
#' in one subgroup and lowers it in another can have a flat profile overall
#' and look unimportant. `hidden_interactions()` computes, for each variable,
#' the slope of its partial-dependence profile, the profile at the last grid
#' point minus the profile at the first, over all background rows and within
#' each subgroup, and flags the variables that are flat overall
#' (\eqn{|slope| <} `flat` \eqn{\times} `scale`) but slope in opposite
#' directions in subgroups (some subgroup's slope above `sloped`
#' \eqn{\times} `scale`, another's below minus that). The thresholds are
#' fractions of the model's prediction scale, so that they mean the same for
#' a probability and for a price: by default 1 for a classifier's
#' probabilities, else the standard deviation of the predictions at the
#' background rows; `scale = 1` makes them absolute.
#'
#' Subgroups come from one or more groupings of the rows (`groups`): each
#' grouping splits the rows by its values (a numeric column with more than
#' `group_bins` distinct values into quantile bins, as in [model_profile()]),
#' and the subgroups of different groupings may overlap. Each subgroup is
#' named `<grouping> <value>`. Subgroups with fewer than `min_group_size`
#' background rows are not read (they are listed in `$left_out`). All
#' profiles use the same grid, the grid of the overall profile (give your
#' own with `variable_splits`, e.g. from [profile_grid()] on the training
#' rows), and the same background rows (`N` of the rows of `data`, all of them when it has fewer).
#'
#' @inheritParams model_profile
#' @param groups The groupings of the rows: names of columns of `data`, or
#'   a named list (or data frame) of vectors with one value per row of
#'   `data`.
#' @param flat A variable whose absolute overall slope is below `flat`
#'   times `scale` is flat.
#' @param sloped A subgroup whose slope exceeds `sloped` times `scale` in
#'   absolute value slopes.
#' @param scale The unit of `flat` and `sloped`, on the prediction scale:
#'   `NULL` (the default) for 1 with a classifier's probabilities and the
#'   (weighted) standard deviation of the predictions at the background
#'   rows otherwise, or a positive number (1: absolute thresholds).
#' @param min_group_size Subgroups with fewer background rows are not read.
#' @param N Number of background rows to sample when `data` has more; `NULL` uses all rows.
#' @param grid_points,variable_splits_type The grid, by default five values
#'   that occur (see [profile_grid()]).
#' @param ... Must be empty.
#' @returns An object of class `mp_slopes`: a list with
#'   * `summary`: one row per variable: `variable`, `slope` (overall), `flat`,
#'     `highest` and `max_slope` (the first subgroup with the largest
#'     slope), `lowest` and `min_slope` (the first with the smallest),
#'     `gap` (`max_slope - min_slope`) and `hidden` (flat, and sloped in
#'     opposite directions);
#'   * `slopes`: one row per subgroup (the first, `"all"`, for all rows) and
#'     variable: `subgroup`, `grouping`, `rows`, `variable`, `first`, `last`
#'     (the profile at the first and last grid points) and `slope`;
#'   * `left_out`: the subgroups not read and their numbers of rows;
#'   * `profiles`: the overall [model_profile()] result and one per grouping;
#'   * `flat`, `sloped` (as given), `scale` (the unit used, with attribute
#'     `"source"`), `flat_abs`, `sloped_abs` (the thresholds on the
#'     prediction scale), `min_group_size`, `grids`, `label`,
#'     `n_predictions` (all the predictions made, the scale's included).
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
#' @export
hidden_interactions <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                                groups, N = 1000, flat = 0.05, sloped = 0.02, scale = NULL,
                                min_group_size = 25,
                                grid_points = 5, variable_splits_type = "distinct",
                                variable_splits = NULL, group_bins = 3,
                                label = NULL, seed = NULL, weights = NULL, class = NULL,
                                threads = NULL,
                                memory_budget = getOption("modelprofiles.memory_budget", 256),
                                engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  check_entry(missing(x), ...length(), names(list(...)), "hidden_interactions", env)
  local_seed(seed, env)
  engine <- rlang::arg_match(engine, error_call = env)
  if (missing(groups) || is.null(groups)) {
    cli::cli_abort("{.arg groups} is missing: give the columns (or vectors) that define subgroups.", call = env)
  }
  for (th in c("flat", "sloped")) {
    v <- get(th)
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 0) {
      cli::cli_abort("{.arg {th}} must be a non-negative number.", call = env)
    }
  }
  if (!is.null(scale) && (!is.numeric(scale) || length(scale) != 1L || !is.finite(scale) || scale <= 0)) {
    cli::cli_abort("{.arg scale} must be {.code NULL} or a positive number.", call = env)
  }
  inputs <- setup_inputs(x, data, predict_function, label, weights, threads, memory_budget, env)
  groupings <- resolve_groupings(groups, inputs$data, env)
  N <- check_N(N, env)
  grid_points <- check_whole(grid_points, "grid_points", 2, env)
  group_bins <- check_whole(group_bins, "group_bins", 2, env)
  min_group_size <- check_whole(min_group_size, "min_group_size", 1, env)
  variables <- profile_variables(inputs, variables, "partial", if (is.character(groups)) groups,
                                 names(variable_splits), env)
  s <- profile_settings("partial", grid_points = grid_points, splits_type = variable_splits_type,
                        splits = check_splits(variable_splits, inputs$data, variables, env))
  rows <- setup_rows(inputs, N, seed)
  s$native <- native_for(engine, "partial", "exact", length(rows), inputs$model)
  setup <- new_setup(inputs, rows, class, engine, linear = TRUE)
  if (setup$n_outputs > 1L) {
    cli::cli_abort(c(
      "Slopes are read one class at a time; the model has several.",
      i = "Choose one with {.arg class}."
    ), call = env)
  }
  run <- run_profiles(setup, inputs, s, variables, whole_part(setup))
  overall <- profile_result(setup, inputs, s, variables, whole_part(setup), run, call)
  # Every subgroup's profile on the grid of the overall one.
  s$splits <- overall$grids
  profiles <- list(all = overall)
  left_out <- data.frame(subgroup = character(), rows = integer(), stringsAsFactors = FALSE)
  for (name in names(groupings)) {
    gp <- withCallingHandlers(
      group_parts(setup, groupings[[name]], group_bins, min_group_size, name),
      modelprofiles_small_groups = function(m) invokeRestart("muffleMessage")
    )
    run <- run_profiles(setup, inputs, s, overall$variables, gp$parts)
    profiles[[name]] <- profile_result(setup, inputs, s, overall$variables, gp$parts, run, call, gp$info)
    if (length(gp$info$left_out)) {
      left_out <- rbind(left_out, data.frame(
        subgroup = paste(name, gp$info$left_out), rows = gp$info$left_out_sizes,
        stringsAsFactors = FALSE
      ))
    }
  }
  if (nrow(left_out)) {
    cli::cli_inform(c(
      "{nrow(left_out)} subgroup{?s} with fewer than {min_group_size} rows not read: {paste0(left_out$subgroup, ' (', left_out$rows, ')')}.",
      i = "Lower {.arg min_group_size} to read {cli::qty(nrow(left_out))}{?it/them}."
    ))
  }
  slopes <- slope_table(profiles, overall$variables)
  scale <- slope_scale(setup, scale, s$native)
  made <- sum(vapply(profiles, `[[`, numeric(1), "n_predictions")) + (attr(scale, "n_predictions") %||% 0)
  attr(scale, "n_predictions") <- NULL
  structure(
    list(
      summary = slope_summary(slopes, overall$variables, flat * c(scale), sloped * c(scale)),
      slopes = slopes, left_out = left_out, profiles = profiles,
      flat = flat, sloped = sloped, scale = scale, flat_abs = flat * c(scale),
      sloped_abs = sloped * c(scale), min_group_size = min_group_size,
      grids = overall$grids, label = setup$label, n_predictions = made, call = call
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

# Slopes of every profile: one row per subgroup and variable.
slope_table <- function(profiles, variables) {
  out <- lapply(names(profiles), function(name) {
    p <- profiles[[name]]
    a <- p$agr_profiles
    sub <- if (is.null(p$groups)) "all" else paste(name, a$`_groups_`)
    keys <- unique(data.frame(subgroup = sub, variable = a$`_vname_`, stringsAsFactors = FALSE))
    sizes <- if (is.null(p$groups)) p$N else stats::setNames(p$groups$sizes, paste(name, p$groups$levels))
    do.call(rbind, lapply(seq_len(nrow(keys)), function(i) {
      sel <- sub == keys$subgroup[i] & a$`_vname_` == keys$variable[i]
      x <- a$`_x_`[sel]
      y <- a$`_yhat_`[sel]
      o <- if (is.numeric(x)) order(x) else seq_along(x)
      data.frame(
        subgroup = keys$subgroup[i], grouping = if (is.null(p$groups)) "all" else name,
        rows = unname(if (is.null(p$groups)) sizes else sizes[keys$subgroup[i]]),
        variable = keys$variable[i], first = y[o[1L]], last = y[o[length(o)]],
        slope = y[o[length(o)]] - y[o[1L]], stringsAsFactors = FALSE
      )
    }))
  })
  out <- do.call(rbind, out)
  out <- out[order(match(out$variable, variables)), , drop = FALSE]
  rownames(out) <- NULL
  out
}

slope_summary <- function(slopes, variables, flat, sloped) {
  out <- do.call(rbind, lapply(variables, function(v) {
    s <- slopes[slopes$variable == v, , drop = FALSE]
    all <- s$slope[s$subgroup == "all"]
    g <- s[s$subgroup != "all", , drop = FALSE]
    hi <- if (nrow(g)) which.max(g$slope) else NA
    lo <- if (nrow(g)) which.min(g$slope) else NA
    max_s <- if (nrow(g)) g$slope[hi] else NA_real_
    min_s <- if (nrow(g)) g$slope[lo] else NA_real_
    data.frame(
      variable = v, slope = all, flat = abs(all) < flat,
      highest = if (nrow(g)) g$subgroup[hi] else NA_character_, max_slope = max_s,
      lowest = if (nrow(g)) g$subgroup[lo] else NA_character_, min_slope = min_s,
      gap = max_s - min_s,
      hidden = abs(all) < flat && isTRUE(max_s > sloped) && isTRUE(min_s < -sloped),
      stringsAsFactors = FALSE
    )
  }))
  rownames(out) <- NULL
  out
}

#' @rdname hidden_interactions
#' @export
print.mp_slopes <- function(x, ...) {
  s <- x$summary
  n_flat <- sum(s$flat)
  n_sub <- length(unique(x$slopes$subgroup)) - 1L
  cli::cat_line("<mp_slopes> slopes of partial-dependence profiles for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  slope = profile at the last grid point minus at the first; ",
                n_sub, " subgroups read",
                if (nrow(x$left_out)) paste0("; ", nrow(x$left_out), " with fewer than ",
                                             x$min_group_size, " rows not read"))
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
  shown <- s
  num <- c("slope", "max_slope", "min_slope", "gap")
  shown[num] <- lapply(shown[num], function(v) formatC(v, digits = 4, format = "f", flag = "+"))
  shown$gap <- formatC(s$gap, digits = 4, format = "f")
  print(shown, row.names = FALSE)
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
#' @param geom `"slopes"`: a dot per subgroup and variable at its slope, the
#'   overall slope as a vertical line and the band \eqn{\pm}`sloped` shaded;
#'   `"profiles"`: the subgroups' profiles of the variables (by default the
#'   flagged ones, else all), the overall profile in black.
#' @details `plot()` draws the picture the numbers summarise: which
#'   subgroups pull a flat average up and which pull it down.
#' @exportS3Method ggplot2::autoplot
autoplot.mp_slopes <- function(object, ..., geom = c("slopes", "profiles"), variables = NULL) {
  type <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_slopes")
  s <- object$summary
  if (is.null(variables)) variables <- if (any(s$hidden)) s$variable[s$hidden] else s$variable
  unknown <- setdiff(variables, s$variable)
  if (length(unknown)) cli::cli_abort("No slopes of {.val {unknown}}.")
  if (type == "slopes") {
    d <- object$slopes[object$slopes$variable %in% variables & object$slopes$subgroup != "all", ]
    d$subgroup <- factor(d$subgroup, levels = rev(unique(d$subgroup)))
    d$variable <- factor(d$variable, levels = variables)
    all <- object$slopes[object$slopes$variable %in% variables & object$slopes$subgroup == "all", ]
    all$variable <- factor(all$variable, levels = variables)
    return(
      ggplot2::ggplot(d, ggplot2::aes(.data$slope, .data$subgroup)) +
        ggplot2::annotate("rect", xmin = -(object$sloped_abs %||% object$sloped),
                          xmax = object$sloped_abs %||% object$sloped,
                          ymin = -Inf, ymax = Inf, alpha = 0.12) +
        ggplot2::geom_vline(xintercept = 0, colour = "grey50") +
        ggplot2::geom_vline(data = all, ggplot2::aes(xintercept = .data$slope),
                            linetype = "dashed") +
        ggplot2::geom_segment(ggplot2::aes(x = 0, xend = .data$slope, yend = .data$subgroup),
                              colour = "grey60") +
        ggplot2::geom_point(ggplot2::aes(colour = .data$slope > 0), size = 2.5,
                            show.legend = FALSE) +
        ggplot2::facet_wrap(ggplot2::vars(.data$variable)) +
        ggplot2::labs(x = "slope (last grid point minus first)", y = NULL,
                      subtitle = paste0("Slopes of partial dependence by subgroup, ", object$label),
                      caption = paste0("dashed: all rows; shaded: |slope| <= ",
                                       format(signif(object$sloped_abs %||% object$sloped, 4)))) +
        ggplot2::theme_bw()
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
