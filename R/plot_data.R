# Plot data of profiles: what autoplot.mp_profile() draws, built before any
# ggplot2 layer.

# The data of a plot of profiles (autoplot.mp_profile()): the aggregated
# profiles, ICE curves, observed points and rug of the variables drawn, on
# one kind of x axis, with the legend's entries; panels in the order of
# the variables, or by importance (sort = "importance").
profile_plot_data <- function(objs, geom, variables, center, max_curves, rug, bands = TRUE,
                              sort = "none", variable_type = NULL, call = rlang::caller_env()) {
  labels <- profile_labels(objs, call)
  warn_dalex_other_class(objs, call)
  vars <- plot_variables(objs, variables, variable_type, call = call)
  if (sort == "importance") vars <- importance_order(objs[[1L]], vars)
  if (geom %in% c("profiles", "points")) center <- resolve_center(center, objs, vars, call = call)
  # The kind of the x axis: "numeric", "Date", "POSIXct" (continuous) or
  # "categorical"; `_x_` is made of that kind (plot_x()).
  kinds <- variable_kinds(objs)
  x_kind <- structure(kinds[[vars[1L]]], tz = x_tz(objs, vars))
  numeric_x <- x_kind != "categorical"
  agr <- do.call(rbind, lapply(seq_along(objs), function(i) {
    d <- plot_bands(objs[[i]], if (geom %in% c("profiles", "points")) center, bands)
    d <- d[d$`_vname_` %in% vars, c("_vname_", "_label_", "_x_", "_yhat_", "_lower_", "_upper_"), drop = FALSE]
    d$`_label_` <- unname(shown_labels(objs[[i]], labels[i], length(objs))[d$`_label_`])
    d$`_x_` <- plot_x(d$`_x_`, x_kind)
    d
  }))
  agr <- order_vars(fix_x(agr, numeric_x, objs, vars), vars)
  curves <- points <- NULL
  if (geom %in% c("profiles", "points")) {
    curves <- ice_curves(objs, labels, vars, max_curves, x_kind)
    if (!is.null(curves)) curves <- order_vars(curves, vars)
    if (!is.null(center)) {
      if (!is.null(curves)) curves <- center_curves(curves, center)
      agr <- center_curves(agr, center)
    }
  }
  if (geom == "points" && !is.null(curves)) {
    points <- order_vars(observed_points(objs, labels, vars, curves, x_kind), vars)
  }
  entries <- unique(unlist(lapply(seq_along(objs), function(i) {
    shown_labels(objs[[i]], labels[i], length(objs))
  }), use.names = FALSE))
  agr$`_label_` <- factor(agr$`_label_`, levels = entries)
  # Exact profiles at a tree ensemble's splits are drawn as steps.
  stepped <- unlist(lapply(seq_along(objs), function(i) {
    if (!is.null(objs[[i]]$steps)) shown_labels(objs[[i]], labels[i], length(objs))
  }), use.names = FALSE)
  steps <- Filter(Negate(is.null), lapply(objs, `[[`, "steps"))
  channels <- class_channel(objs, labels)
  agr <- add_channels(agr, channels, entries)
  curves <- add_channels(curves, channels, entries)
  points <- add_channels(points, channels, entries)
  if (!is.null(channels)) entries <- levels(agr$`_colour_`)
  list(agr = agr, curves = curves, points = points, channels = channels,
       steps = if (length(stepped)) list(labels = stepped, direction = steps[[1L]]),
       rug = if (rug && numeric_x) order_vars(rug_data(objs, vars, x_kind), vars),
       numeric_x = numeric_x, x_kind = as.character(x_kind), entries = entries, labels = labels, center = center,
       subtitle = attr(labels, "subtitle"),
       note = if (geom %in% c("profiles", "points")) no_curves_note(objs),
       types = unique(vapply(objs, function(o) o$type, character(1))))
}

# The second channel of a chart of one result with subgroups and several
# classes: colour tells the subgroups apart, line type the classes (each
# legend entry's group and class), so that neither rests on telling
# colours apart alone. NULL for other charts.
class_channel <- function(objs, labels) {
  if (length(objs) != 1L) return(NULL)
  parts <- objs[[1L]]$label_parts
  if (is.null(parts) || anyNA(parts$group) || anyNA(parts$class) || length(unique(parts$class)) < 2L) return(NULL)
  shown <- shown_labels(objs[[1L]], labels[1L], 1L)[parts$label]
  list(colour = stats::setNames(parts$group, shown), linetype = stats::setNames(parts$class, shown),
       groups = unique(parts$group), classes = unique(parts$class))
}

# The columns of the aesthetics: `_colour_` (the legend entry, or the
# subgroup with a second channel) and `_linetype_` (the class).
add_channels <- function(d, channels, entries) {
  if (is.null(d)) return(NULL)
  label <- as.character(d$`_label_`)
  if (is.null(channels)) {
    d$`_colour_` <- factor(label, levels = entries)
    return(d)
  }
  d$`_colour_` <- factor(unname(channels$colour[label]), levels = channels$groups)
  d$`_linetype_` <- factor(unname(channels$linetype[label]), levels = channels$classes)
  d
}

# The variables to draw: those asked for (all by default) of one kind of x
# axis, the numeric ones when the kinds are mixed (with a message saying
# how to draw the others).
plot_variables <- function(objs, variables, variable_type = NULL, call = rlang::caller_env()) {
  kinds <- variable_kinds(objs)
  vars <- names(kinds)
  if (!is.null(variables)) {
    unknown <- setdiff(variables, vars)
    if (length(unknown)) {
      cli::cli_abort("No profile of {.val {unknown}} to draw; the profiles have {.val {vars}}.", call = call)
    }
    vars <- intersect(variables, vars)
  }
  if (!is.null(variable_type)) {
    # DALEX's variable_type: the kind of variables drawn.
    of_type <- vars[(kinds[vars] == "categorical") == (variable_type == "categorical")]
    if (!length(of_type)) {
      cli::cli_abort("No {variable_type} variable to draw; the profiles have {.val {vars}}.", call = call)
    }
    vars <- of_type
  }
  if (length(unique(kinds[vars])) <= 1L) return(vars)
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
  vars[kinds[vars] == drawn]
}

# Panels in the order of the variables.
order_vars <- function(d, vars) {
  d$`_vname_` <- factor(as.character(d$`_vname_`), levels = vars)
  d
}

# Legend entries that tell the profiles apart, and the legend's title: the
# models' labels; or, when one model is shown through profiles of different
# types, the types (the model's label becomes the title); or both. The
# profiled class of a classifier (when the legend does not name it) is the
# chart's subtitle (attribute "subtitle") when all results share it, else
# part of each entry, with a warning when one model is drawn for different
# classes. Entries that would still be equal are told apart by what
# differs between their results (rows, grid, engine) or, failing that, by
# their place in the call.
profile_labels <- function(objs, call = rlang::caller_env()) {
  labels <- vapply(objs, function(o) o$label, character(1))
  models <- labels
  types <- vapply(objs, function(o) legend_type(o$type), character(1))
  # DALEX's results drawn with the package's own are told apart.
  dalex <- vapply(objs, function(o) identical(o$source, "DALEX"), logical(1))
  if (any(dalex) && !all(dalex)) types[dalex] <- paste0(types[dalex], ", DALEX")
  # Profiles of one type told apart by their method ("kernel", "interval").
  methods <- vapply(objs, function(o) if (is.character(o$method) && length(o$method) == 1L) o$method else NA_character_,
                    character(1))
  key <- paste(labels, types, sep = "\r")
  by_method <- key %in% key[duplicated(key)] & !is.na(methods)
  if (any(by_method) && anyDuplicated(paste(key, methods)[by_method]) == 0L) {
    types[by_method] <- paste0(types[by_method], ", ", methods[by_method])
  }
  warn_mixed_classes(models, objs, call)
  notes <- lapply(objs, class_note)
  cls <- vapply(notes, function(n) if (is.null(n)) NA_character_ else n$entry, character(1))
  subtitle <- NULL
  if (length(unique(cls[!is.na(cls)])) > 1L) {
    labels[!is.na(cls)] <- paste0(labels[!is.na(cls)], ", ", cls[!is.na(cls)])
  } else if (any(!is.na(cls))) {
    subtitle <- notes[[which(!is.na(cls))[1L]]]$subtitle
  }
  title <- NULL
  if (anyDuplicated(labels)) {
    if (length(unique(labels)) == 1L && !anyDuplicated(types)) {
      title <- labels[1L]
      labels <- types
    } else if (length(unique(types)) > 1L) {
      labels <- paste0(labels, " (", types, ")")
    }
  }
  if (anyDuplicated(labels)) labels <- tell_apart(labels, objs)
  attr(labels, "title") <- title
  attr(labels, "subtitle") <- subtitle
  labels
}

# The one profiled class (or output column) of a result that its legend
# entries do not name: list(entry = "class 1", subtitle = "Probability of
# class \"1\""), or NULL (no class, several, or named by the legend).
class_note <- function(o) {
  cls <- o$class
  if (is.null(cls) || length(cls) != 1L || is.na(cls)) return(NULL)
  if (any(!is.na(o$label_parts$class))) return(NULL)
  if (identical(o$task, "classification")) {
    list(entry = paste("class", cls), subtitle = paste0("Probability of class \"", cls, "\""), class = cls)
  } else {
    list(entry = paste("output", cls), subtitle = paste0("Output \"", cls, "\""), class = cls)
  }
}

# A model drawn for different classes (its results' labels are equal) is
# a warning: the curves of one class are not comparable with another's.
# Results of one class each, whether their legend entries name the class
# (a multiclass model's `class =`) or the subtitle does; a result of all
# classes of a multiclass model is one chart of its classes, not a mix.
warn_mixed_classes <- function(models, objs, call) {
  cls <- vapply(objs, function(o) {
    k <- o$class
    if (identical(o$task, "classification") && length(k) == 1L && !is.na(k)) as.character(k) else NA_character_
  }, character(1))
  for (m in unique(models)) {
    k <- unique(cls[models == m & !is.na(cls)])
    if (length(k) > 1L) {
      cli::cli_warn(c(
        "The chart mixes classes of one model: {.val {m}} is drawn for {cli::qty(length(k))}class{?es} {.val {k}}.",
        i = "Each profile is the probability of its class; give {.fn model_profile} the same {.arg class} to compare them."
      ), call = call)
    }
  }
  invisible()
}

# A DALEX result of the same model and type as one of ours that profiles
# one class of a classifier, drawn nearer 1 minus our profile than our
# profile: DALEX's predict function took the other class's column (e.g.
# ranger orders the columns of a 0/1 response by first appearance).
warn_dalex_other_class <- function(objs, call) {
  dalex <- which(vapply(objs, function(o) identical(o$source, "DALEX"), logical(1)))
  ours <- which(vapply(objs, function(o) {
    !identical(o$source, "DALEX") && !is.null(class_note(o)) && identical(o$task, "classification") &&
      is.null(o$groups) && length(o$labels) == 1L
  }, logical(1)))
  for (i in dalex) {
    for (j in ours) {
      a <- objs[[j]]
      b <- objs[[i]]
      if (!identical(a$label, b$label) || !identical(a$type, b$type) || length(unique(b$labels)) != 1L) next
      same <- other <- 0
      for (v in intersect(a$variables, b$variables)) {
        xa <- a$agr_profiles$`_x_`[a$agr_profiles$`_vname_` == v]
        xb <- b$agr_profiles$`_x_`[b$agr_profiles$`_vname_` == v]
        if (!is.numeric(xa) || !is.numeric(xb) || length(unique(xa)) < 2L) next
        ya <- stats::approx(xa, a$agr_profiles$`_yhat_`[a$agr_profiles$`_vname_` == v], xout = xb,
                            rule = 2, ties = mean)$y
        yb <- b$agr_profiles$`_yhat_`[b$agr_profiles$`_vname_` == v]
        same <- same + sum(abs(yb - ya))
        other <- other + sum(abs(yb - (1 - ya)))
      }
      if (other < same / 2) {
        cli::cli_warn(c(
          "DALEX's result {.val {b$label}} looks like the probability of another class than ours (class {.val {a$class}}): its profiles are nearer 1 minus ours than ours.",
          i = "DALEX's predict function takes a column of the model's probabilities by position (for ranger, the classes of a 0/1 response in the order they first appear); {.code model_profile(..., class = )} profiles another class here."
        ), call = call)
      }
    }
  }
  invisible()
}

# Equal legend entries told apart by the first of their results' settings
# that differs among them (background rows, grid points, engine), or by
# their place among the results drawn.
tell_apart <- function(labels, objs) {
  settings <- list(
    rows = function(o) if (!is.null(o$N)) paste0(o$N, " rows"),
    points = function(o) {
      n <- vapply(o$grids, length, integer(1))
      if (length(n)) paste0(max(n), " grid points")
    },
    engine = function(o) if (!is.null(o$engine)) paste(o$engine[1L], "engine")
  )
  for (dup in unique(labels[duplicated(labels)])) {
    at <- which(labels == dup)
    done <- FALSE
    for (f in settings) {
      v <- vapply(objs[at], function(o) f(o) %||% NA_character_, character(1))
      if (!anyNA(v) && !anyDuplicated(v)) {
        labels[at] <- paste0(dup, ", ", v)
        done <- TRUE
        break
      }
    }
    if (!done) labels[at] <- paste0(dup, ", result ", at)
  }
  labels
}

# Legend entries of one result, named by the `_label_` values in its data:
# its label; for subgroups or classes, the group and class (prefixed by the
# label when several results are drawn). Labels the user wrote into
# `agr_profiles` (the book's `x$agr_profiles$`_label_` <- "partial"`) are
# shown as written, and a result's one label of ICE curves follows its one
# new label of profiles.
shown_labels <- function(o, label, n_objs) {
  parts <- o$label_parts
  agr <- unique(as.character(o$agr_profiles$`_label_`))
  internal <- unique(c(agr, ice_labels(o)))
  known <- if (is.null(parts)) o$labels %||% o$label else parts$label
  user <- setdiff(agr, known)
  if (length(user)) {
    shown <- stats::setNames(internal, internal)
    rest <- setdiff(internal, user)
    if (length(user) == 1L && length(rest) == 1L) shown[rest] <- user
    return(shown)
  }
  if (is.null(parts)) {
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

legend_title <- function(objs, labels, channels = NULL) {
  if (length(objs) == 1L && !is.null(objs[[1]]$groups)) {
    return(paste0(objs[[1]]$label, ", by ", objs[[1]]$groups$column,
                  if (is.null(channels) && any(!is.na(objs[[1]]$label_parts$class))) " and class"))
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

# The y axis's title, short enough for a chart of one row of panels.
y_label <- function(types, center) {
  if (!is.null(center)) return("centred prediction")
  if (length(types) > 1L) return("prediction")
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
