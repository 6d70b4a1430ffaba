# ggplot2 pictures of profiles.

#' Plot profiles
#'
#' `plot()` and `autoplot()` draw one or more [model_profile()] results in one
#' ggplot2 chart that can be extended with the usual `+`. There is one panel
#' per variable (free x scales); numeric variables are drawn as lines,
#' categorical ones as points (side by side for several profiles, without
#' lines joining the levels, which have no order; ordered factors' levels
#' are joined), coloured by profile.
#' Profiles of different types or of different models are told apart in the
#' legend without relabelling: profiles of one model are named by their type,
#' with the model's label as the legend's title (as in Figure 18.5 of
#' *Explanatory Model Analysis*), profiles of different models by their
#' labels, and a mix by both.
#'
#' For a classifier the chart names the profiled class: in the subtitle
#' (`Probability of class "1"`) when every result drawn is of that class,
#' or in each legend entry when they differ; drawing one model for
#' different classes is a warning, and so is a DALEX result that looks like
#' the probability of the other class than ours (its profiles nearer 1
#' minus ours than ours). A multiclass result of subgroups draws the
#' subgroups in colour and the classes by line type. Legend entries that
#' would be equal are told apart by the setting that differs (rows, grid
#' points, engine) or by their place in the call.
#'
#' A chart says what it shows. Without `title`, a chart of profiles of one
#' type is titled with the type and, when there is one, the model
#' (`"Partial-dependence profile of lm"`; ICE charts `"ICE curves and
#' partial-dependence profile of lm"`; derivative ICE curves
#' `"Derivative ICE curves of lm"`), and a chart of several types of
#' one model with the types and the model; a title longer than a chart 7
#' inches wide holds (about 60 characters) is wrapped between words. The
#' legends stand side by side below the panels, or one above the other
#' where side by side they would pass the chart's edge at 7 inches. The
#' caption names the kind and level of every band drawn (`"Bands: 95%
#' analytic band (pointwise)"`, `"per-tree 2.5-97.5% spread"`, per
#' legend entry when they differ); a forest's per-tree spread (`bands =
#' "trees"`), which is not a confidence band, is drawn fainter with dashed
#' edges. Profiles that coincide in a panel (within 0.2% of
#' the chart's range of y) would hide one another: the later ones are
#' dashed there, and the caption says which coincide. The y axis of ICE
#' curves is `"prediction"`.
#'
#' `autoplot()` is ggplot2's generic (`ggplot2::autoplot()`, or `autoplot()`
#' once ggplot2 is attached); modelprofiles registers its methods but does not
#' load ggplot2 until a plot is drawn, so that computing profiles, on the main
#' process or on parallel workers, does not carry it.
#'
#' @section Kinds of plot:
#' * `geom = "aggregates"` (default): the profiles themselves.
#' * `geom = "profiles"`: the individual ICE (ceteris-paribus) curves, thin and
#'   translucent, at most `max_curves` of them (an evenly spaced selection of
#'   the background rows, so the picture does not depend on the random-number
#'   stream), with the aggregate profile on top. Needs `$cp_profiles`, which
#'   partial-dependence results (and kernel LD and AL results) keep.
#' * `geom = "points"`: as `"profiles"`, plus each background row's own
#'   value drawn on its curve.
#' * `geom = "bars"`: the profiles of categorical variables as bars, side by
#'   side for several profiles, as DALEX draws them (bands as error bars).
#' * `geom = "derivatives"`: derivative ICE curves (d-ICE, Goldstein et al.
#'   2015) of numeric variables. The upper row of panels shows the slope of
#'   each ICE curve at each grid point (of the least-squares line through
#'   the curve in a window of 5% of the grid on either side, which smooths
#'   the steps of tree models) and the slopes' weighted mean, thick, which
#'   for partial dependence is the slope of the profile; the lower row shows
#'   the slopes' weighted standard deviation over all the curves kept. Each
#'   panel has its own y scale (a slope is in units of its variable). Where the standard deviation is 0
#'   every curve has the same slope: the model is additive in the variable
#'   there; where it is large, the variable interacts with others.
#'
#' `center` anchors every ICE curve (and the aggregate) at 0: `"first"` at the
#' first grid point, `"middle"` at the grid point in the middle of the grid,
#' `"mean"` at the curve's own mean over the grid, or values of the
#' variables (`center = c(wt = 3, hp = 150)`) at those values (curves are
#' interpolated linearly between grid points, never extrapolated).
#' Centred ICE curves make differences in shape, i.e. interactions, visible.
#' `center = FALSE` is no centring and `center = TRUE` is `"mean"` (each
#' curve on its own mean, as DALEX's `center = TRUE` clusters them).
#'
#' @section DALEX results:
#' Results of `DALEX::model_profile()` can be drawn with the package's own,
#' in one chart: `plot(ours, dalex_result)` (or several of each, in any
#' order after the first). Their profiles, ICE curves and observations are
#' drawn as the package draws its own; when results of both packages are
#' drawn, DALEX's are named `"<type>, DALEX"` in the legend. The other way
#' round, `plot(dalex_result, ours)` is DALEX's plot method, which draws
#' ours too (see [as_dalex()]). `geom`, `variables` and
#' `variable_type` have DALEX's meaning.
#'
#' A rug at the bottom of each numeric panel shows the background rows'
#' values of the variable, so the reader sees where a profile rests on few
#' rows and where it extrapolates.
#'
#' Dates and date-times (`POSIXct`) are drawn on date and date-time axes
#' (ggplot2's `scale_x_date()` and `scale_x_datetime()`), time differences
#' (`difftime`) as numbers in their units.
#'
#' A chart has one kind of x axis: when numeric, date, date-time and
#' categorical variables are mixed, the numeric ones (or, without numeric
#' ones, those of the kind of the first variable) are drawn and the
#' caption names the others; a message, once per session, says how to
#' draw them (with `variables =`).
#'
#' @param object,x An `mp_profile` result.
#' @param ... More `mp_profile` results (or results of
#'   `DALEX::model_profile()`) to draw in the same chart.
#' @param geom `"aggregates"`, `"profiles"`, `"points"`, `"bars"` or
#'   `"derivatives"`.
#' @param variables Variables to draw (default: all).
#' @param variable_type `NULL` (the variables of one kind of x axis, see
#'   below), `"numerical"` or `"categorical"`: draw the variables of that
#'   kind, as DALEX's `variable_type`. `geom = "bars"` draws the
#'   categorical ones.
#' @param center `NULL` or `FALSE` (no centring), `"first"`, `"middle"`,
#'   `"mean"` (or `TRUE`), or values of the variables, one per variable
#'   drawn, named (`c(wt = 3, hp = 150)`; a single unnamed value when one
#'   variable is drawn; a list for Dates or date-times). Each value must lie
#'   within its variable's grid: curves are not extrapolated to their
#'   anchor. For `geom = "profiles"` and `"points"`.
#' @param max_curves Maximum number of ICE curves per variable and profile.
#' @param rug Draw a rug of the observed values?
#' @param bands Draw the profiles' bands (see the `bands` argument of
#'   [model_profile()]) where they have them: ribbons, or error bars over
#'   categorical variables, named in the caption. With `center`, the bands
#'   are those of the centred profile.
#' @param ncol Number of columns of panels.
#' @param scales `"free_x"` (shared y axis, the default) or `"free"`.
#' @param sort Order of the panels: `"none"` (the variables' order) or
#'   `"importance"` (decreasing importance, see [effect_sizes()], of the
#'   first result; its largest over its classes or subgroups).
#' @param title,subtitle Title and subtitle of the chart.
#' @returns A ggplot object.
#' @references Goldstein, A., Kapelner, A., Bleich, J. and Pitkin, E. (2015).
#'   Peeking inside the black box: visualizing statistical learning with
#'   plots of individual conditional expectation. *Journal of Computational
#'   and Graphical Statistics*, 24(1), 44--65. \doi{10.1080/10618600.2014.907095}
#' @examples
#' fit <- lm(mpg ~ wt * hp, data = mtcars)
#' X <- mtcars[c("wt", "hp")]
#' pd <- model_profile(fit, X)
#' ld <- model_profile(fit, X, type = "conditional")
#' al <- model_profile(fit, X, type = "accumulated", grid = profile_grids(intervals = 8))
#' plot(pd, ld, al)
#'
#' # Categorical variables as bars.
#' d <- transform(mtcars, cyl = factor(cyl))
#' fit2 <- lm(mpg ~ cyl + wt, data = d)
#' plot(model_profile(fit2, d[c("cyl", "wt")], variables = "cyl"), geom = "bars")
#'
#' # Also: ICE curves anchored at a typical car, whose slopes differ (wt
#' # and hp interact), plot(pd, geom = "profiles", center = c(wt = 3, hp =
#' # 150)); plot(pd, geom = "derivatives"), plot(pd, ld, al, sort =
#' # "importance"), and DALEX results in the same chart, plot(pd,
#' # DALEX::model_profile(explainer)) (see the vignettes).
#' @name plot.mp_profile
NULL

#' @rdname plot.mp_profile
#' @exportS3Method ggplot2::autoplot
autoplot.mp_profile <- function(object, ..., geom = c("aggregates", "profiles", "points", "bars", "derivatives"),
                                variables = NULL, variable_type = NULL, center = NULL, max_curves = 100,
                                rug = TRUE, bands = TRUE, ncol = NULL, scales = c("free_x", "free"),
                                title = NULL, subtitle = NULL, sort = c("none", "importance"), extrapolation = TRUE) {
  # Errors name the user's call: plot() (through plot.mp_profile()) or
  # autoplot().
  call <- get0(".mp_plot_call", parent.frame(), inherits = FALSE) %||% environment()
  geom <- rlang::arg_match(geom, error_call = call)
  scales <- rlang::arg_match(scales, error_call = call)
  sort <- rlang::arg_match(sort, error_call = call)
  check_plot_dots(list(...), "autoplot.mp_profile", call = call)
  if (!identical(max_curves, Inf)) check_whole(max_curves, "max_curves", 1, call, hint = "{.code Inf} draws every curve.")
  check_flag(rug, "rug", call)
  objs <- c(list(object), list(...))
  objs <- lapply(objs, function(o) if (is_dalex_result(o)) from_dalex(o, call = call) else o)
  is_prof <- vapply(objs, inherits, logical(1), "mp_profile")
  if (!all(is_prof)) {
    bad <- which(!is_prof)
    cli::cli_abort(c(
      "Every object to draw must be a {.fn model_profile} result (of modelprofiles or DALEX).",
      x = "{cli::qty(length(bad))}Argument{?s} {bad} {cli::qty(length(bad))}{?is/are} of class {.cls {unique(unlist(lapply(objs[bad], class)))}}."
    ), call = call)
  }
  if (geom == "derivatives") {
    if (!is.null(center) && !isFALSE(center)) {
      cli::cli_abort("{.arg center} does not apply to derivative ICE curves: slopes do not change with centring.",
                     call = call)
    }
    return(derivative_plot(objs, variables, max_curves, ncol, title, subtitle, call = call))
  }
  # DALEX's logical `center`: FALSE is none, TRUE each curve on its mean.
  if (isFALSE(center)) center <- NULL
  if (isTRUE(center)) center <- "mean"
  if (!is.null(center) && geom %in% c("aggregates", "bars")) {
    cli::cli_abort("{.arg center} applies to ICE curves: use {.code geom = \"profiles\"} or {.code \"points\"}.",
                   call = call)
  }
  check_center(center, call = call)
  variable_type <- check_variable_type(variable_type, call)
  if (geom == "bars") {
    if (identical(variable_type, "numerical")) {
      cli::cli_abort("{.code geom = \"bars\"} draws categorical variables; numerical ones are drawn as lines ({.code geom = \"aggregates\"}).",
                     call = call)
    }
    variable_type <- "categorical"
  }
  d <- profile_plot_data(objs, geom, variables, center, max_curves, rug, isTRUE(bands), sort, variable_type,
                         call = call)
  if (geom == "bars") {
    # Bars are told apart by fill alone: each subgroup and class its own.
    if (!is.null(d$channels)) {
      d$channels <- NULL
      d$entries <- levels(d$agr$`_label_`)
    }
    return(finish_plot(bar_plot(d), d, objs, center, scales, ncol, title, subtitle))
  }
  veil <- add_extrapolation_layer(ggplot2::ggplot(), d, objs, extrapolation, call)
  finish_plot(profile_layers(d, geom, veil), d, objs, center, scales, ncol, title, subtitle)
}

# The caption: where centred curves are anchored, why profiles are drawn
# without curves, the bands' kinds and levels, coinciding profiles and
# variables left out (NULL when none).
chart_caption <- function(d) {
  lines <- c(center_caption(d$center), d$note)
  # (Lines wrapped to the width of a chart of 7 inches.)
  if (length(lines)) paste(unlist(lapply(lines, strwrap, width = 120, exdent = 2)), collapse = "\n")
}

# Panels, labels, legend and theme of a plot of profiles.
finish_plot <- function(p, d, objs, center, scales, ncol, title, subtitle) {
  entries <- d$entries
  # (One profile's own legend is not drawn; the veil's is, see plot_support.R.)
  own <- if (length(entries) > 1L) legend_guide(entries) else "none"
  veil <- has_veil(p)
  p <- p + x_axis_scale(d, ncol)
  p + ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = scales, ncol = ncol) +
    ggplot2::labs(x = NULL, y = y_label(d$types, d$center, d$ice), colour = legend_title(objs, d$labels, d$channels),
                  fill = legend_title(objs, d$labels, d$channels), linetype = "class", shape = "class",
                  title = title %||% d$title, subtitle = subtitle %||% d$subtitle, caption = chart_caption(d)) +
    ggplot2::guides(colour = own, fill = own,
                    linetype = ggplot2::guide_legend(title.position = "top", order = 2),
                    shape = ggplot2::guide_legend(title.position = "top", order = 2)) +
    profile_theme(entries, d$x_kind, legend = length(entries) > 1L || veil) +
    # (Legends one above the other where side by side they would pass the
    # edge of the chart.)
    if (!legends_fit(p, d, legend_title(objs, d$labels, d$channels))) {
      ggplot2::theme(legend.box = "vertical", legend.box.just = "left", legend.spacing.y = ggplot2::unit(0, "pt"),
                     legend.margin = ggplot2::margin(2, 5.5, 2, 5.5))
    }
}

# Do the legends fit side by side under the panels of a chart 7 inches wide
# (about 6.2 inches)? Each legend's width estimated from its text (about
# 0.065 inch a character of a label, 0.33 a key, 0.08 a character of the
# title's longest line; measured at the theme's sizes): the entries', the
# classes' (line type) and the veil's (alpha).
legends_fit <- function(p, d, title) {
  inches <- function(title, labels) {
    max(max(c(0, nchar(strsplit(title %||% "", "\n", fixed = TRUE)[[1]]))) * 0.08,
        sum(nchar(labels)) * 0.065 + length(labels) * 0.33)
  }
  rows <- if (sum(nchar(d$entries)) > 60) 2 else 1
  w <- c(inches(title, d$entries) / rows, if (!is.null(d$channels)) inches("class", d$channels$classes))
  veil <- p$scales$get_scales("alpha")
  if (!is.null(veil)) w <- c(w, inches(veil$name, veil$get_labels(veil$get_breaks())))
  sum(w) + 0.15 * (length(w) - 1L) <= 6.2
}

# The theme of charts of profiles: the legend below when it tells several
# profiles apart, light strips, room between panels.
profile_theme <- function(entries, x_kind = "numeric", legend = length(entries) > 1L) {
  ggplot2::theme_bw() +
    ggplot2::theme(
      legend.position = if (legend) "bottom" else "none",
      strip.background = ggplot2::element_rect(fill = "grey95"),
      panel.grid.minor = ggplot2::element_blank()
    ) +
    panel_room(x_kind)
}

# Room between panels (so that their end tick labels do not meet), and on
# the right for the half of the last tick label that passes the panel's
# edge (dates' and date-times' labels are wider than numbers').
panel_room <- function(x_kind = "numeric") {
  ggplot2::theme(panel.spacing.x = ggplot2::unit(1.1, "lines"),
                 plot.margin = ggplot2::margin(5.5, switch(x_kind, Date = 24, POSIXct = 32, 14), 5.5, 5.5))
}

# The x axis of the panels: few enough breaks for neighbouring panels'
# labels to stay apart; category labels turned when they would overlap.
x_axis_scale <- function(d, ncol) {
  n_panels <- length(unique(as.character(d$agr$`_vname_`)))
  cols <- if (is.null(ncol)) ceiling(sqrt(n_panels)) else min(ncol, n_panels)
  if (d$x_kind == "numeric") {
    return(ggplot2::scale_x_continuous(breaks = axis_breaks(if (cols >= 3L) 4L else 5L, whole_ranges(d)),
                                       expand = ggplot2::expansion(mult = 0.05)))
  }
  if (d$x_kind %in% c("Date", "POSIXct")) {
    # Fewer date labels where panels stand side by side.
    scale <- if (d$x_kind == "Date") ggplot2::scale_x_date else ggplot2::scale_x_datetime
    return(scale(breaks = scales::breaks_pretty(if (cols >= 2L) 4L else 5L)))
  }
  if (d$x_kind != "categorical") return(NULL)
  if (!category_labels_overlap(d$agr, cols)) return(NULL)
  ggplot2::guides(x = ggplot2::guide_axis(angle = 35))
}

# The breaks of a numeric panel (about n of them, scales' extended
# breaks): whole numbers for the panel of an integer variable (0, 2, 4, 6,
# not 0, 2.5, 5, 7.5), one whose values drawn span one of `whole` (the
# ranges of the variables whose drawn values are all whole numbers).
# ggplot2 gives the panel's range expanded by 5% on either side
# (x_axis_scale()).
axis_breaks <- function(n, whole = list()) {
  force(n)
  force(whole)
  function(lim) {
    breaks <- scales::extended_breaks(n = n)(lim)
    if (length(lim) != 2L || !all(is.finite(lim)) || all(breaks == round(breaks))) return(breaks)
    r <- lim + c(1, -1) * 0.05 * diff(lim) / 1.1
    tol <- 1e-9 * max(1, abs(r))
    if (!any(vapply(whole, function(w) all(abs(w - r) <= tol), logical(1)))) return(breaks)
    r <- round(r)
    breaks <- scales::extended_breaks(n = n, Q = c(1, 5, 2, 4, 3))(r)
    if (any(breaks != round(breaks))) breaks <- seq(r[1L], r[2L])
    breaks
  }
}

# The ranges of the x values drawn in each panel whose values are all whole
# numbers (profiles, curves, points and rug).
whole_ranges <- function(d) {
  x <- c(split(as.double(d$agr$`_x_`), as.character(d$agr$`_vname_`)),
         if (!is.null(d$rug)) split(as.double(d$rug$`_x_`), as.character(d$rug$`_vname_`)),
         if (!is.null(d$curves)) split(as.double(d$curves$`_x_`), as.character(d$curves$`_vname_`)))
  x <- lapply(split(x, names(x)), function(v) unlist(v, use.names = FALSE))
  x <- lapply(x, function(v) v[is.finite(v)])
  whole <- vapply(x, function(v) length(v) > 0L && all(v == round(v)), logical(1))
  unname(lapply(x[whole], range))
}

# Would the category labels of a panel overlap? An estimate for a chart
# about 7 inches wide: the labels' widths (about 0.075 inch per character at
# the theme's size, plus a gap) against the panel's width.
category_labels_overlap <- function(agr, cols) {
  panel_in <- (7 - 0.6) / cols - 0.25
  by_var <- split(as.character(agr$`_x_`), as.character(agr$`_vname_`))
  need <- vapply(by_var, function(x) {
    lev <- unique(x)
    length(lev) * max(nchar(lev, keepNA = FALSE) * 0.075 + 0.12)
  }, numeric(1))
  any(need > panel_in)
}

legend_guide <- function(entries) {
  ggplot2::guide_legend(nrow = if (sum(nchar(entries)) > 60) ceiling(length(entries) / 2) else 1,
                        title.position = "top", order = 1)
}

#' @rdname plot.mp_profile
#' @export
plot.mp_profile <- function(x, ...) {
  .mp_plot_call <- environment()
  autoplot.mp_profile(x, ...)
}

# Named arguments in a plot method's `...` are misspelt or unknown ones
# (`facet_ncol`, `color`): an error that names them and the method's own.
check_plot_dots <- function(dots, method, call = rlang::caller_env()) {
  nms <- names(dots)
  if (is.null(nms)) return(invisible())
  results <- vapply(dots, inherits, logical(1), c("mp_profile", "mp_profile_2d", "model_profile"))
  bad <- nms[nzchar(nms) & !results]
  if (!length(bad)) return(invisible())
  known <- setdiff(names(formals(get(method))), c("object", "..."))
  # DALEX's (ingredients') names of arguments that are here under others.
  dalex <- c(facet_ncol = "ncol", facet_scales = "scales")
  renamed <- intersect(bad, names(dalex))
  hint <- if (length(renamed)) {
    c(i = paste0("DALEX's ", paste0("{.arg ", renamed, "} is {.arg ", dalex[renamed], "}", collapse = ", "), " here."))
  }
  cli::cli_abort(c(
    "Unknown argument{?s} to {.fn plot}: {.arg {bad}}.",
    i = "{.fn plot} of this result takes {.arg {known}}.",
    hint
  ), call = call)
}

