# Plot data of profiles, continued (profile_plot_data() in R/plot_data.R):
# the centring, the ICE curves and observed points drawn, the rug, the
# axis labels and the bands.

check_center <- function(center, call = rlang::caller_env()) {
  if (is.null(center)) return(invisible())
  keyword <- is.character(center) && length(center) == 1L && is.null(names(center)) &&
    center %in% c("first", "middle", "mean")
  value <- function(v) (is.numeric(v) || inherits(v, c("Date", "POSIXct"))) && length(v) == 1L && is.finite(v)
  values <- if (is.list(center)) length(center) && all(vapply(center, value, logical(1))) else
    (is.numeric(center) || inherits(center, c("Date", "POSIXct"))) && length(center) >= 1L && all(is.finite(center))
  if (!keyword && !values) {
    cli::cli_abort(c(
      "{.arg center} must be {.val first}, {.val middle}, {.val mean}, {.code TRUE}/{.code FALSE} or values of the variables.",
      i = "Values are one per variable, named: e.g. {.code center = c(wt = 3, hp = 150)}."
    ), call = call)
  }
  invisible()
}

# A `center` of values as a named list, one value per variable drawn, each
# inside the range of the variable's grid (a curve is never extrapolated
# to its anchor); keywords are returned as they are.
resolve_center <- function(center, objs, vars, call = rlang::caller_env()) {
  if (is.null(center) || is.character(center)) return(center)
  if (is.null(names(center))) {
    if (length(vars) > 1L || length(center) > 1L) {
      cli::cli_abort(c(
        "{.arg center} must name the variable of each value when several variables are drawn.",
        i = "E.g. {.code center = c({paste0(vars, ' = ', '...', collapse = ', ')})}."
      ), call = call)
    }
    names(center) <- vars
  }
  center <- as.list(center)
  unknown <- setdiff(names(center), vars)
  if (length(unknown) || !all(nzchar(names(center)))) {
    cli::cli_abort("{.arg center} names {cli::qty(length(unknown))}{?a variable/variables} not drawn: {.val {unknown}}; the variables drawn are {.val {vars}}.",
                   call = call)
  }
  missing <- setdiff(vars, names(center))
  if (length(missing)) {
    cli::cli_abort(c(
      "{.arg center} has no value for {.val {missing}}.",
      i = "Give a value for each variable drawn, or draw only some with {.arg variables}."
    ), call = call)
  }
  kinds <- variable_kinds(objs)
  for (v in vars) {
    if (kinds[[v]] == "categorical") {
      cli::cli_abort("A value of {.arg center} needs a numeric variable; {.val {v}} is categorical.", call = call)
    }
    g <- unlist(lapply(objs, function(o) if (v %in% o$variables) as.double(o$grids[[v]])), use.names = FALSE)
    lim <- range(g, na.rm = TRUE)
    at <- as.double(center[[v]])
    if (at < lim[1L] || at > lim[2L]) {
      # The grid's range on the variable's scale (dates as dates).
      shown <- switch(kinds[[v]],
        Date = format(structure(lim, class = "Date")),
        POSIXct = format(structure(lim, class = c("POSIXct", "POSIXt"), tzone = x_tz(objs, v))),
        format(lim)
      )
      example <- if (kinds[[v]] == "Date") {
        paste0("as.Date(\"", format(structure(round(mean(lim)), class = "Date")), "\")")
      } else if (kinds[[v]] == "POSIXct") {
        paste0("as.POSIXct(\"", shown[1L], "\")")
      }
      cli::cli_abort(c(
        "{.arg center} for {.val {v}} is {format(center[[v]])}, outside the range of its grid ({shown[1L]} to {shown[2L]}).",
        i = if (!is.null(example) && !inherits(center[[v]], c("Date", "POSIXct"))) {
          "A value of a date variable is a date, e.g. {.code {example}}."
        } else {
          "A curve is not extrapolated to its anchor: choose a value in that range."
        }
      ), call = call)
    }
  }
  center[vars]
}

# The anchor of variable `v`: the keyword, or its value.
center_at <- function(center, v) {
  if (is.list(center)) center[[as.character(v)]] else center
}

# Evenly spaced selection of at most `max_curves` ICE curves per profile
# (NULL when none has curves). Profiles without curves (interval AL and LD,
# `keep_ice = FALSE`) are drawn alone, with a message that says why and how
# to get curves: DALEX's `plot(x, geom = "profiles")` draws for every type.
ice_curves <- function(objs, labels, vars, max_curves, x_kind) {
  has <- vapply(objs, function(o) !is.null(ice_of(o)), logical(1))
  if (!all(has)) inform_no_curves(objs[!has], labels[!has])
  out <- lapply(which(has), function(i) {
    cp <- ice_frame_of(objs[[i]], vars, max_curves)
    cp$`_label_` <- unname(shown_labels(objs[[i]], labels[i], length(objs))[cp$`_label_`])
    cp$`_x_` <- plot_x(cp$`_x_`, x_kind)
    # (The result each curve is of: its legend entry may be a subgroup's
    # or cluster's, not the result's label.)
    cp$`_obj_` <- rep(i, nrow(cp))
    cp[c("_vname_", "_label_", "_ids_", "_x_", "_yhat_", "_obj_")]
  })
  if (!length(out)) return(NULL)
  fix_x(do.call(rbind, out), x_kind != "categorical", objs, vars)
}

inform_no_curves <- function(objs, labels) {
  interval <- vapply(objs, function(o) identical(o$method, "interval"), logical(1))
  al <- vapply(objs, function(o) identical(o$type, "accumulated"), logical(1))
  why <- if (all(interval & al)) {
    "Interval AL profiles predict each row only at the two edges of its interval and keep no ICE curves"
  } else if (all(interval)) {
    "Interval profiles keep no ICE curves"
  } else {
    "No ICE curves were kept"
  }
  how <- if (all(interval & al)) {
    "{.code method = \"kernel\"} (DALEX's estimator) keeps them; or draw the partial-dependence curves with it: {.code plot(x, model_profile(..., type = \"partial\"), geom = \"profiles\")}."
  } else {
    "ICE curves are kept for partial dependence and the kernel methods (see {.arg keep_ice} of {.fn model_profile})."
  }
  cli::cli_inform(c(paste0(why, ": {.val {labels}} {?is/are} drawn without them."), i = how))
}

# The caption of a chart of curves where some profiles have none, so that
# the chart itself says why only their profile is drawn (the message of
# inform_no_curves() says how to get curves). DALEX's plot(geom =
# "profiles") draws ceteris-paribus curves under every type of profile;
# interval AL has no such curves, and drawing partial-dependence curves
# under it would mix two estimators in one picture.
no_curves_note <- function(objs) {
  none <- !vapply(objs, function(o) !is.null(ice_of(o)), logical(1))
  if (!any(none)) return(NULL)
  interval_al <- vapply(objs[none], function(o) {
    identical(o$method, "interval") && identical(o$type, "accumulated")
  }, logical(1))
  if (all(interval_al)) {
    "No ICE curves: interval AL predicts each row only at the edges of its interval (method = \"kernel\" keeps curves)"
  } else {
    "No ICE curves were kept for some profiles: they are drawn alone"
  }
}

# Subtract from each curve its value at the anchor (the band columns of
# aggregates are already those of the centred profile, plot_bands()).
center_curves <- function(d, center) {
  key <- paste(d$`_vname_`, d$`_label_`, if (is.null(d$`_ids_`)) 0 else d$`_ids_`, sep = "\r")
  for (r in split(seq_len(nrow(d)), key)) {
    at <- center_at(center, d$`_vname_`[r[1L]])
    d$`_yhat_`[r] <- d$`_yhat_`[r] - curve_anchors(matrix(d$`_yhat_`[r]), d$`_x_`[r], at)
  }
  d
}

# The anchor of each column of Y (grid x curves) at grid x, as
# center_curves() takes it.
curve_anchors <- function(Y, x, center) {
  if (identical(center, "mean")) return(colMeans(Y, na.rm = TRUE))
  if (identical(center, "first")) return(Y[1L, ])
  if (identical(center, "middle")) return(Y[ceiling(nrow(Y) / 2), ])
  apply(Y, 2L, function(y) stats::approx(as.double(x), y, xout = as.double(center), rule = 2)$y)
}

# Each background row's own value of the variable, on its (drawn) ICE curve.
observed_points <- function(objs, labels, vars, curves, x_kind) {
  numeric_x <- x_kind != "categorical"
  key <- paste(curves$`_vname_`, curves$`_label_`, curves$`_ids_`, curves$`_obj_`, sep = "\r")
  curves$`_vname_` <- as.character(curves$`_vname_`)
  idx <- split(seq_len(nrow(curves)), key)
  out <- lapply(names(idx), function(k) {
    r <- idx[[k]]
    c1 <- curves[r[1L], ]
    o <- objs[[c1$`_obj_`]]
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

# The y axis's title, short enough for a chart of one row of panels: ICE
# curves (`ice`) are predictions.
y_label <- function(types, center, ice = FALSE) {
  if (!is.null(center)) return("centred prediction")
  if (length(types) > 1L || ice) return("prediction")
  switch(types,
    partial = "average prediction",
    conditional = "local average prediction",
    accumulated = "accumulated effect + mean"
  )
}

# The caption of a chart of centred curves: where each curve is anchored.
center_caption <- function(center) {
  if (is.null(center)) return(NULL)
  anchor <- if (is.list(center)) {
    paste(names(center), vapply(center, format, ""), sep = " = ", collapse = ", ")
  } else {
    switch(center, first = "the first grid point", middle = "the middle grid point",
           mean = "its mean over the grid")
  }
  paste("Each curve minus its value at", anchor)
}

# Opacity of ICE curves: few curves are drawn nearly opaque, many faintly.
curve_alpha <- function(curves) {
  per_panel <- max(table(unique(curves[c("_vname_", "_label_", "_ids_")])[c("_vname_", "_label_")]))
  min(0.9, max(0.15, 12 / per_panel))
}


# The aggregated profiles of one result with their band columns (NA
# without bands, or with `bands = FALSE`). With a `center`, the bands are
# those of the centred profile: each bootstrap replicate centred like the
# profile, or the standard error of the mean of the centred ICE curves
# (partial dependence; other profiles are not means of their curves, and
# lose their bands with a message).
plot_bands <- function(obj, center, bands) {
  d <- obj$agr_profiles
  if (!bands || is.null(d$`_lower_`)) {
    d$`_lower_` <- d$`_upper_` <- NA_real_
    return(d)
  }
  if (is.null(center)) return(d)
  key <- paste(d$`_vname_`, d$`_label_`, d$`_groups_` %||% "", sep = "\r")
  idx <- split(seq_len(nrow(d)), factor(key, levels = unique(key)))
  if (!is.null(obj$replicates)) {
    for (r in idx) {
      R <- obj$replicates[r, , drop = FALSE]
      R <- R - rep(curve_anchors(R, d$`_x_`[r], center_at(center, d$`_vname_`[r[1L]])), each = length(r))
      lim <- band_limits(numeric(length(r)), obj$bands$level, reps = R)
      d$`_lower_`[r] <- lim$lower
      d$`_upper_`[r] <- lim$upper
    }
    return(d)
  }
  if (obj$type != "partial" || is.null(ice_of(obj))) {
    cli::cli_inform("Bands of centred {profile_title(obj$type)} profiles are drawn from bootstrap replicates or ICE curves of partial dependence; {.val {obj$label}} is drawn without them.")
    d$`_lower_` <- d$`_upper_` <- NA_real_
    return(d)
  }
  centred_pd_bands(obj, d, idx, center)
}

# Analytic bands of centred PD profiles from the ICE curves: the standard
# error of the weighted mean of the centred curves.
centred_pd_bands <- function(obj, d, idx, center) {
  z <- stats::qnorm((1 + obj$bands$level) / 2)
  for (r in idx) {
    cu <- ice_curves_of(obj, d$`_vname_`[r[1L]], d$`_label_`[r[1L]])
    ids <- cu$ids
    Y <- cu$Y
    at <- center_at(center, d$`_vname_`[r[1L]])
    Y <- Y - rep(curve_anchors(Y, d$`_x_`[r], at), each = length(r))
    w <- if (is.null(obj$weights)) rep(1, length(ids)) else obj$weights[match(ids, obj$rows)]
    m <- as.vector(Y %*% w) / sum(w)
    se <- table_se(Y, w, m)
    shift <- d$`_yhat_`[r] - curve_anchors(matrix(d$`_yhat_`[r]), d$`_x_`[r], at)
    d$`_lower_`[r] <- shift - z * se
    d$`_upper_`[r] <- shift + z * se
  }
  d
}
