# Plot data of profiles: what autoplot.mp_profile() draws, built before any
# ggplot2 layer.

# The data of a plot of profiles (autoplot.mp_profile()): the aggregated
# profiles, ICE curves, observed points and rug of the variables drawn, on
# one kind of x axis, with the legend's entries; panels in the order of
# the variables, or by importance (sort = "importance").
profile_plot_data <- function(objs, geom, variables, center, max_curves, rug, bands = TRUE,
                              sort = "none", variable_type = NULL, call = rlang::caller_env()) {
  labels <- profile_labels(objs, call)
  shown <- entry_labels(objs, labels)
  vars <- plot_variables(objs, variables, variable_type, call = call)
  left_out <- attr(vars, "note")
  attributes(vars) <- NULL
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
    d$`_label_` <- unname(shown[[i]][d$`_label_`])
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
  entries <- unique(unlist(shown, use.names = FALSE))
  agr$`_label_` <- factor(agr$`_label_`, levels = entries)
  # Exact profiles at a tree ensemble's splits are drawn as steps.
  stepped <- unlist(shown[!vapply(objs, function(o) is.null(o$steps), logical(1))], use.names = FALSE)
  steps <- Filter(Negate(is.null), lapply(objs, `[[`, "steps"))
  channels <- class_channel(objs, labels)
  agr <- add_channels(agr, channels, entries)
  curves <- add_channels(curves, channels, entries)
  points <- add_channels(points, channels, entries)
  if (!is.null(channels)) entries <- levels(agr$`_colour_`)
  # The kind of each entry's band (its ribbon's style), and coinciding
  # profiles told apart by line type.
  agr$`_band_` <- unname(entry_bands(objs, labels, bands)[as.character(agr$`_label_`)])
  agr$`_band_`[is.na(agr$`_lower_`) | is.na(agr$`_upper_`)] <- NA_character_
  same <- if (numeric_x && is.null(channels)) coinciding(agr, entries)
  agr$`_dash_` <- if (is.null(same)) rep("solid", nrow(agr)) else
    unname(same$dash[paste(agr$`_vname_`, agr$`_label_`, sep = "\r")])
  ordered <- vars[vapply(vars, function(v) {
    any(vapply(objs, function(o) is.ordered(o$grids[[v]]) || is.ordered(o$observed[[v]]), logical(1)))
  }, logical(1))]
  list(agr = agr, curves = curves, points = points, channels = channels, ordered = ordered,
       steps = if (length(stepped)) list(labels = stepped, direction = steps[[1L]],
                                         mid = unique(unlist(lapply(objs, `[[`, "steps_mid")))),
       rug = if (rug && numeric_x) order_vars(rug_data(objs, vars, x_kind), vars),
       numeric_x = numeric_x, x_kind = as.character(x_kind), entries = entries, labels = labels, center = center,
       subtitle = attr(labels, "subtitle"),
       note = c(if (geom %in% c("profiles", "points")) no_curves_note(objs), band_caption(objs, labels, bands, agr),
                same$note, left_out),
       title = chart_title(objs, labels, geom),
       ice = geom %in% c("profiles", "points"),
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
  # Once per session: the chart's caption names the variables left out.
  cli::cli_inform(c(
    "Drawing the {shown} variables; a chart has one kind of x axis.",
    i = "Draw {.val {others}} with {.code {calls}}."
  ), .frequency = "once", .frequency_id = "modelprofiles_one_x_axis")
  structure(vars[kinds[vars] == drawn],
            note = paste0("Not drawn (another kind of x axis): ", paste(others, collapse = ", ")))
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
  other <- warn_dalex_other_class(objs, call)
  notes <- lapply(objs, class_note)
  cls <- vapply(notes, function(n) if (is.null(n)) NA_character_ else n$entry, character(1))
  subtitle <- NULL
  if (length(other)) {
    # (Named in the entries below.)
  } else if (length(unique(cls[!is.na(cls)])) > 1L) {
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
  if (length(other)) {
    # A DALEX result that looks like another class: the chart does not
    # claim one class for all; each entry says its own.
    labels[!is.na(cls)] <- paste0(labels[!is.na(cls)], ", ", cls[!is.na(cls)])
    labels[other] <- paste0(labels[other], ", likely another class")
  }
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
# Returns the positions of such DALEX results.
warn_dalex_other_class <- function(objs, call) {
  flagged <- integer()
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
        flagged <- c(flagged, i)
        cli::cli_warn(c(
          "DALEX's result {.val {b$label}} looks like the probability of another class than ours (class {.val {a$class}}): its profiles are nearer 1 minus ours than ours.",
          i = "DALEX's predict function takes a column of the model's probabilities by position (for ranger, the classes of a 0/1 response in the order they first appear); {.code model_profile(..., class = )} profiles another class here."
        ), call = call)
      }
    }
  }
  unique(flagged)
}

# Equal legend entries told apart by the first of their results' settings
# that differs among them (background rows, grid points, engine), or by
# their place among the results drawn.
tell_apart <- function(labels, objs) {
  settings <- list(
    bands = function(o) if (!is.null(o$bands)) band_name(o$bands) else "no band",
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

# Each result's legend entries (shown_labels()), a list by result.
entry_labels <- function(objs, labels) {
  lapply(seq_along(objs), function(i) shown_labels(objs[[i]], labels[i], length(objs)))
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
