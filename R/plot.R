# ggplot2 pictures of profiles.

#' Plot profiles
#'
#' `plot()` and `autoplot()` draw one or more [model_profile()] results in one
#' ggplot2 chart that can be extended with the usual `+`. There is one panel
#' per variable (free x scales); numeric variables are drawn as lines,
#' categorical ones as points joined by thin lines, coloured by profile.
#' Profiles of different types or of different models are told apart in the
#' legend without relabelling: profiles of one model are named by their type,
#' with the model's label as the legend's title (as in Figure 18.5 of
#' *Explanatory Model Analysis*), profiles of different models by their
#' labels, and a mix by both.
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
#'
#' `center` anchors every ICE curve (and the aggregate) at 0: `"first"` at the
#' first grid point, `"middle"` at the grid point in the middle of the grid,
#' `"mean"` at the curve's own mean over the grid, or a number at that value
#' of the variable (curves are interpolated linearly between grid points).
#' Centred ICE curves make differences in shape, i.e. interactions, visible.
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
#' ones, those of the kind of the first variable) are drawn and a message
#' names the others (draw them with `variables =`).
#'
#' @param object,x An `mp_profile` result.
#' @param ... More `mp_profile` results to draw in the same chart.
#' @param geom `"aggregates"`, `"profiles"` or `"points"`.
#' @param variables Variables to draw (default: all).
#' @param center `NULL` (no centring), `"first"`, `"middle"`, `"mean"` or a
#'   number (or a Date or date-time, for such variables); for
#'   `geom = "profiles"` and `"points"`.
#' @param max_curves Maximum number of ICE curves per variable and profile.
#' @param rug Draw a rug of the observed values?
#' @param ncol Number of columns of panels.
#' @param scales `"free_x"` (shared y axis, the default) or `"free"`.
#' @param title,subtitle Title and subtitle of the chart.
#' @returns A ggplot object.
#' @examples
#' fit <- lm(mpg ~ wt * hp, data = mtcars)
#' X <- mtcars[c("wt", "hp")]
#' pd <- model_profile(fit, X)
#' ld <- model_profile(fit, X, type = "conditional")
#' al <- model_profile(fit, X, type = "accumulated", intervals = 8)
#' plot(pd, ld, al)
#' plot(pd, geom = "profiles", center = "first")
#' @name plot.mp_profile
NULL

#' @rdname plot.mp_profile
#' @exportS3Method ggplot2::autoplot
autoplot.mp_profile <- function(object, ..., geom = c("aggregates", "profiles", "points"),
                                variables = NULL, center = NULL, max_curves = 100,
                                rug = TRUE, ncol = NULL, scales = c("free_x", "free"),
                                title = NULL, subtitle = NULL) {
  geom <- match.arg(geom)
  scales <- match.arg(scales)
  check_plot_dots(list(...), "autoplot.mp_profile")
  objs <- c(list(object), list(...))
  is_prof <- vapply(objs, inherits, logical(1), "mp_profile")
  if (!all(is_prof)) {
    cli::cli_abort("Every object to draw must be a {.fn model_profile} result; argument{?s} {which(!is_prof)} {?is/are} not.")
  }
  if (!is.null(center) && geom == "aggregates") {
    cli::cli_abort("{.arg center} applies to ICE curves: use {.code geom = \"profiles\"} or {.code \"points\"}.")
  }
  check_center(center)
  labels <- profile_labels(objs)
  kinds <- variable_kinds(objs)
  vars <- names(kinds)
  if (!is.null(variables)) {
    unknown <- setdiff(variables, vars)
    if (length(unknown)) {
      cli::cli_abort("No profile of {.val {unknown}} to draw; the profiles have {.val {vars}}.")
    }
    vars <- intersect(variables, vars)
  }
  if (length(unique(kinds[vars])) > 1L) {
    # One kind of x axis: the numeric variables, else those of the first's kind.
    drawn <- if (any(kinds[vars] == "numeric")) "numeric" else kinds[[vars[1L]]]
    others <- vars[kinds[vars] != drawn]
    shown <- switch(drawn, numeric = "numeric", Date = "date", POSIXct = "date-time", categorical = "categorical")
    # One call per kind of the others.
    calls <- vapply(split(others, kinds[others]), function(v) {
      paste0("plot(x, variables = c(", paste0('"', v, '"', collapse = ", "), "))")
    }, character(1))
    cli::cli_inform(c(
      "Drawing the {shown} variables; a chart has one kind of x axis.",
      i = "Draw {.val {others}} with {.code {calls}}."
    ))
    vars <- vars[kinds[vars] == drawn]
  }
  # The kind of the x axis: "numeric", "Date", "POSIXct" (continuous) or
  # "categorical"; `_x_` is made of that kind (plot_x()).
  x_kind <- structure(kinds[[vars[1L]]], tz = x_tz(objs, vars))
  numeric_x <- x_kind != "categorical"

  agr <- do.call(rbind, lapply(seq_along(objs), function(i) {
    d <- objs[[i]]$agr_profiles
    d <- d[d$`_vname_` %in% vars, c("_vname_", "_label_", "_x_", "_yhat_"), drop = FALSE]
    d$`_label_` <- unname(shown_labels(objs[[i]], labels[i], length(objs))[d$`_label_`])
    d$`_x_` <- plot_x(d$`_x_`, x_kind)
    d
  }))
  agr <- order_vars(fix_x(agr, numeric_x, objs, vars), vars)

  p <- ggplot2::ggplot()
  curves <- NULL
  if (geom != "aggregates") {
    curves <- order_vars(ice_curves(objs, labels, vars, max_curves, x_kind), vars)
    if (!is.null(center)) {
      curves <- center_curves(curves, center)
      agr <- center_curves(agr, center)
    }
    p <- p + ggplot2::geom_line(
      data = curves,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]],
                   group = interaction(.data[["_label_"]], .data[["_ids_"]])),
      # Fewer curves, each more opaque.
      linewidth = 0.3, alpha = curve_alpha(curves), na.rm = TRUE
    )
  }
  entries <- unique(unlist(lapply(seq_along(objs), function(i) {
    shown_labels(objs[[i]], labels[i], length(objs))
  }), use.names = FALSE))
  agr$`_label_` <- factor(agr$`_label_`, levels = entries)
  if (numeric_x) {
    p <- p + ggplot2::geom_line(
      data = agr,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]]),
      linewidth = if (geom == "aggregates") 0.9 else 1.2, na.rm = TRUE
    )
  } else {
    p <- p + ggplot2::geom_line(
      data = agr,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]],
                   group = .data[["_label_"]]),
      linewidth = 0.4, alpha = 0.6, na.rm = TRUE
    ) + ggplot2::geom_point(
      data = agr,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]]),
      size = 2.5, na.rm = TRUE
    )
  }
  if (geom == "points") {
    pts <- order_vars(observed_points(objs, labels, vars, curves, x_kind), vars)
    p <- p + ggplot2::geom_point(
      data = pts,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]]),
      size = 0.9, alpha = 0.7, na.rm = TRUE
    )
  }
  if (rug && numeric_x) {
    rd <- order_vars(rug_data(objs, vars, x_kind), vars)
    if (nrow(rd)) {
      p <- p + ggplot2::geom_rug(
        data = rd, ggplot2::aes(x = .data[["_x_"]]), inherit.aes = FALSE,
        alpha = 0.25, sides = "b", length = ggplot2::unit(0.02, "npc"), na.rm = TRUE
      )
    }
  }
  types <- unique(vapply(objs, function(o) o$type, character(1)))
  p + ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = scales, ncol = ncol) +
    ggplot2::labs(x = NULL, y = y_label(types, center), colour = legend_title(objs, labels),
                  title = title, subtitle = subtitle) +
    ggplot2::guides(colour = ggplot2::guide_legend(
      nrow = if (sum(nchar(entries)) > 60) ceiling(length(entries) / 2) else 1,
      title.position = "top"
    )) +
    ggplot2::theme_bw() +
    ggplot2::theme(
      legend.position = if (length(entries) > 1L) "bottom" else "none",
      strip.background = ggplot2::element_rect(fill = "grey95"),
      panel.grid.minor = ggplot2::element_blank()
    )
}

#' @rdname plot.mp_profile
#' @export
plot.mp_profile <- function(x, ...) {
  autoplot.mp_profile(x, ...)
}

# Panels in the order of the variables.
order_vars <- function(d, vars) {
  d$`_vname_` <- factor(as.character(d$`_vname_`), levels = vars)
  d
}

# Legend entries that tell the profiles apart, and the legend's title: the
# models' labels; or, when one model is shown through profiles of different
# types, the types (the model's label becomes the title); or both.
profile_labels <- function(objs) {
  labels <- vapply(objs, function(o) o$label, character(1))
  types <- vapply(objs, function(o) legend_type(o$type), character(1))
  title <- NULL
  if (anyDuplicated(labels)) {
    if (length(unique(labels)) == 1L && !anyDuplicated(types)) {
      title <- labels[1L]
      labels <- types
    } else {
      labels <- paste0(labels, " (", types, ")")
    }
  }
  if (anyDuplicated(labels)) labels <- make.unique(labels, sep = " #")
  attr(labels, "title") <- title
  labels
}

# Legend entries of one result, named by the `_label_` values in its data:
# its label; for subgroups or classes, the group and class (prefixed by the
# label when several results are drawn).
shown_labels <- function(o, label, n_objs) {
  parts <- o$label_parts
  if (is.null(parts)) {
    internal <- unique(c(o$agr_profiles$`_label_`, o$cp_profiles$`_label_`))
    return(stats::setNames(rep(label, length(internal)), internal))
  }
  shown <- vapply(seq_len(nrow(parts)), function(i) {
    pieces <- c(parts$group[i], parts$class[i])
    pieces <- pieces[!is.na(pieces)]
    if (!length(pieces)) return(label)
    shown <- paste(pieces, collapse = ", ")
    if (n_objs > 1L) paste0(label, ": ", shown) else shown
  }, character(1))
  stats::setNames(shown, parts$label)
}

legend_title <- function(objs, labels) {
  if (length(objs) == 1L && !is.null(objs[[1]]$groups)) {
    return(paste0(objs[[1]]$label, ", by ", objs[[1]]$groups$column,
                  if (any(!is.na(objs[[1]]$label_parts$class))) " and class"))
  }
  if (length(objs) == 1L && any(!is.na(objs[[1]]$label_parts$class))) {
    return(paste0(objs[[1]]$label, ", class"))
  }
  attr(labels, "title")
}

legend_type <- function(type) {
  switch(type, partial = "partial dependence", conditional = "local dependence",
         accumulated = "accumulated local")
}

# The kind of x axis of each variable: "numeric" (numbers, and time
# differences as numbers in their units), "Date", "POSIXct" or
# "categorical", from its grid.
variable_kinds <- function(objs) {
  kinds <- character()
  for (o in objs) {
    for (v in o$variables) {
      g <- o$grids[[v]]
      kinds[[v]] <- if (column_kind(g) != "numeric") "categorical" else
        if (inherits(g, "Date")) "Date" else if (inherits(g, "POSIXct")) "POSIXct" else "numeric"
    }
  }
  kinds
}

# The time zone of the date-time axis: of the first drawn grid that has one.
x_tz <- function(objs, vars) {
  for (o in objs) {
    for (v in intersect(vars, o$variables)) {
      tz <- attr(o$grids[[v]], "tzone")
      if (!is.null(tz)) return(tz[1L])
    }
  }
  ""
}

# Values of one result's `_x_` (or observed values) for an axis of kind
# `kind` (see x_kind in autoplot.mp_profile()): numbers; Dates or date-times,
# kept as they are (read back from text when the result's `_x_` is
# character, its variables' scales being mixed); text for categorical axes.
plot_x <- function(x, kind) {
  switch(as.character(kind),
    categorical = as.character(x),
    Date = if (inherits(x, "Date")) x else as.Date(as.character(x)),
    POSIXct = if (inherits(x, "POSIXct")) x else as.POSIXct(as.character(x), tz = attr(kind, "tz")),
    if (is.character(x)) as.numeric(x) else as.double(x)
  )
}

# `_x_` as numbers (or Dates, date-times), or as a factor with the levels in
# grid order.
fix_x <- function(d, numeric_x, objs, vars) {
  if (!numeric_x) {
    lev <- unique(unlist(lapply(objs, function(o) lapply(o$grids[vars], as.character)), use.names = FALSE))
    d$`_x_` <- factor(as.character(d$`_x_`), levels = lev)
  }
  d
}

check_center <- function(center, call = rlang::caller_env()) {
  if (is.null(center)) return(invisible())
  ok <- (is.character(center) && length(center) == 1L && center %in% c("first", "middle", "mean")) ||
    ((is.numeric(center) || inherits(center, c("Date", "POSIXct"))) && length(center) == 1L && is.finite(center))
  if (!ok) {
    cli::cli_abort("{.arg center} must be {.val first}, {.val middle}, {.val mean} or a number.", call = call)
  }
}

# Evenly spaced selection of at most `max_curves` ICE curves per profile.
ice_curves <- function(objs, labels, vars, max_curves, x_kind, call = rlang::caller_env()) {
  out <- lapply(seq_along(objs), function(i) {
    cp <- objs[[i]]$cp_profiles
    if (is.null(cp)) {
      cli::cli_abort(c(
        "Profile {.val {labels[i]}} has no ICE curves to draw.",
        i = "ICE curves are kept for partial dependence and the kernel methods (see {.arg keep_ice})."
      ), call = call)
    }
    cp <- cp[cp$`_vname_` %in% vars, , drop = FALSE]
    ids <- unique(cp$`_ids_`)
    if (length(ids) > max_curves) {
      ids <- ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
      cp <- cp[cp$`_ids_` %in% ids, , drop = FALSE]
    }
    cp$`_label_` <- unname(shown_labels(objs[[i]], labels[i], length(objs))[cp$`_label_`])
    cp$`_x_` <- plot_x(cp$`_x_`, x_kind)
    cp[c("_vname_", "_label_", "_ids_", "_x_", "_yhat_")]
  })
  fix_x(do.call(rbind, out), x_kind != "categorical", objs, vars)
}

# Subtract from each curve its value at the anchor.
center_curves <- function(d, center, call = rlang::caller_env()) {
  key <- paste(d$`_vname_`, d$`_label_`, if (is.null(d$`_ids_`)) 0 else d$`_ids_`, sep = "\r")
  idx <- split(seq_len(nrow(d)), key)
  for (r in idx) {
    x <- d$`_x_`[r]
    y <- d$`_yhat_`[r]
    anchor <- if (identical(center, "mean")) {
      mean(y, na.rm = TRUE)
    } else if (identical(center, "first")) {
      y[1L]
    } else if (identical(center, "middle")) {
      y[ceiling(length(y) / 2)]
    } else if (!is.factor(x)) {
      stats::approx(as.double(x), y, xout = as.double(center), rule = 2)$y
    } else {
      cli::cli_abort("A numeric {.arg center} needs numeric variables.", call = call)
    }
    d$`_yhat_`[r] <- y - anchor
  }
  d
}

# Each background row's own value of the variable, on its (drawn) ICE curve.
observed_points <- function(objs, labels, vars, curves, x_kind) {
  numeric_x <- x_kind != "categorical"
  key <- paste(curves$`_vname_`, curves$`_label_`, curves$`_ids_`, sep = "\r")
  curves$`_vname_` <- as.character(curves$`_vname_`)
  idx <- split(seq_len(nrow(curves)), key)
  out <- lapply(names(idx), function(k) {
    r <- idx[[k]]
    c1 <- curves[r[1L], ]
    o <- objs[[match(c1$`_label_`, labels)]]
    own <- o$observed[[c1$`_vname_`]][match(c1$`_ids_`, o$rows)]
    if (is.na(own)) return(NULL)
    y <- if (numeric_x) {
      stats::approx(as.double(curves$`_x_`[r]), curves$`_yhat_`[r], xout = as.double(plot_x(own, x_kind)), rule = 2)$y
    } else {
      curves$`_yhat_`[r][match(as.character(own), as.character(curves$`_x_`[r]))]
    }
    data.frame(`_vname_` = c1$`_vname_`, `_label_` = c1$`_label_`,
               `_x_` = plot_x(own, x_kind),
               `_yhat_` = y, check.names = FALSE, stringsAsFactors = FALSE)
  })
  pts <- do.call(rbind, out)
  if (!numeric_x) pts$`_x_` <- factor(pts$`_x_`, levels = levels(curves$`_x_`))
  pts
}

# Observed values for the rug: from the first profile that has each variable.
rug_data <- function(objs, vars, x_kind) {
  out <- lapply(vars, function(v) {
    for (o in objs) {
      if (v %in% names(o$observed)) {
        return(data.frame(`_vname_` = v, `_x_` = plot_x(o$observed[[v]], x_kind),
                          check.names = FALSE))
      }
    }
    NULL
  })
  do.call(rbind, out)
}

y_label <- function(types, center) {
  if (!is.null(center)) {
    anchor <- if (!is.character(center)) paste("the value at", format(center)) else
      switch(center, first = "the first grid point", middle = "the middle grid point",
             mean = "the curve's mean")
    return(paste("prediction, centred at", anchor))
  }
  if (length(types) > 1L) return("prediction")
  switch(types,
    partial = "average prediction (partial dependence)",
    conditional = "local dependence (local average prediction)",
    accumulated = "accumulated local effect + mean prediction"
  )
}

# Opacity of ICE curves: few curves are drawn nearly opaque, many faintly.
curve_alpha <- function(curves) {
  per_panel <- max(table(unique(curves[c("_vname_", "_label_", "_ids_")])[c("_vname_", "_label_")]))
  min(0.9, max(0.15, 12 / per_panel))
}

# Named arguments in a plot method's `...` are misspelt or unknown ones
# (`facet_ncol`, `color`): an error that names them and the method's own.
check_plot_dots <- function(dots, method, call = rlang::caller_env()) {
  nms <- names(dots)
  if (is.null(nms)) return(invisible())
  results <- vapply(dots, inherits, logical(1), c("mp_profile", "mp_profile_2d"))
  bad <- nms[nzchar(nms) & !results]
  if (!length(bad)) return(invisible())
  known <- setdiff(names(formals(get(method))), c("object", "..."))
  cli::cli_abort(c(
    "Unknown argument{?s} to {.fn plot}: {.arg {bad}}.",
    i = "{.fn plot} of this result takes {.arg {known}}."
  ), call = call)
}
