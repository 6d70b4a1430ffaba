# Derivative ICE curves (d-ICE, Goldstein et al. 2015): the slope of each
# ICE curve at each grid point, their weighted mean (the slope of the
# partial-dependence profile) and their weighted standard deviation, which
# is 0 where every curve has the same slope, i.e. where the variable does
# not interact with the others.
#
# A curve's slope at a grid point is that of the least-squares line through
# the curve's points in a window of neighbouring grid points (5% of the
# grid on either side, at least 1): on a fine grid the differences between
# neighbours of a tree model's step functions are mostly 0 or a jump, and
# the window smooths them as Goldstein et al. smooth each curve before
# differentiating. The slope is a linear map of the curve, exact for curves
# that are linear over the window, and the mean of the slopes is the slope
# of the mean curve.

# The G x G matrix that maps a curve's values at the grid x (sorted) to
# its slopes.
slope_operator <- function(x) {
  G <- length(x)
  h <- max(1L, round(0.05 * G))
  A <- matrix(0, G, G)
  for (j in seq_len(G)) {
    w <- max(1L, j - h):min(G, j + h)
    d <- x[w] - mean(x[w])
    A[j, w] <- d / sum(d^2)
  }
  A
}

# The slopes of the ICE curves of one result, for the variables `vars`: a
# long frame with `_x_` the grid point and `_yhat_` the slope there, plus
# the rows' weights (`_w_`).
ice_slopes <- function(o, label, n_objs, vars) {
  cp <- ice_frame_of(o, vars)
  shown <- shown_labels(o, label, n_objs)
  cp$`_label_` <- unname(shown[cp$`_label_`])
  cp$`_x_` <- as.double(cp$`_x_`)
  cp <- cp[!is.na(cp$`_x_`), , drop = FALSE]
  curve <- paste(cp$`_vname_`, cp$`_label_`, sep = "\r")
  ord <- order(curve, cp$`_ids_`, cp$`_x_`, method = "radix")
  cp <- cp[ord, , drop = FALSE]
  curve <- curve[ord]
  out <- lapply(split(seq_len(nrow(cp)), factor(curve, levels = unique(curve))), function(r) {
    ids <- unique(cp$`_ids_`[r])
    G <- length(r) / length(ids)
    x <- cp$`_x_`[r[seq_len(G)]]
    if (G < 2L) return(NULL)
    Y <- matrix(cp$`_yhat_`[r], nrow = G)
    S <- slope_operator(x) %*% Y
    w <- if (is.null(o$weights)) rep(1, length(ids)) else o$weights[match(ids, o$rows)]
    data.frame(
      `_vname_` = as.character(cp$`_vname_`[r[1L]]), `_label_` = cp$`_label_`[r[1L]],
      `_ids_` = rep(ids, each = G), `_x_` = rep(x, length(ids)), `_yhat_` = as.vector(S),
      `_w_` = rep(w, each = G), check.names = FALSE, stringsAsFactors = FALSE
    )
  })
  do.call(rbind, out)
}

# The weighted mean and standard deviation of the slopes at each midpoint.
dice_summary <- function(s) {
  key <- paste(s$`_vname_`, s$`_label_`, format(s$`_x_`, digits = 15), sep = "\r")
  f <- factor(key, levels = unique(key))
  first <- !duplicated(f)
  sw <- as.vector(rowsum(s$`_w_`, f, reorder = FALSE))
  m <- as.vector(rowsum(s$`_w_` * s$`_yhat_`, f, reorder = FALSE)) / sw
  dev <- s$`_yhat_` - m[as.integer(f)]
  sdv <- sqrt(pmax(as.vector(rowsum(s$`_w_` * dev^2, f, reorder = FALSE)) / sw, 0))
  data.frame(`_vname_` = s$`_vname_`[first], `_label_` = s$`_label_`[first], `_x_` = s$`_x_`[first],
             mean = m, sd = sdv, check.names = FALSE, stringsAsFactors = FALSE)
}

# The chart of geom = "derivatives": a row of panels with the slopes of
# the ICE curves and their mean, and a row with their standard deviation.
derivative_plot <- function(objs, variables, max_curves, ncol, title, subtitle, call = rlang::caller_env()) {
  labels <- profile_labels(objs, call)
  vars <- plot_variables(objs, variables, "numerical", call = call)
  kinds <- variable_kinds(objs)
  if (any(kinds[vars] != "numeric")) {
    cli::cli_abort("Derivative ICE curves need numeric variables; {.val {vars[kinds[vars] != 'numeric']}} {?is/are} not.",
                   call = call)
  }
  for (i in seq_along(objs)) {
    if (is.null(ice_of(objs[[i]]))) {
      cli::cli_abort(c(
        "Profile {.val {labels[i]}} has no ICE curves to differentiate.",
        i = "ICE curves are kept for partial dependence and the kernel methods (see {.arg keep_ice})."
      ), call = call)
    }
  }
  slopes <- lapply(seq_along(objs), function(i) ice_slopes(objs[[i]], labels[i], length(objs), vars))
  summ <- do.call(rbind, lapply(slopes, dice_summary))
  # The curves drawn: an evenly spaced selection of each result's rows.
  shown <- do.call(rbind, lapply(slopes, function(s) {
    ids <- unique(s$`_ids_`)
    if (length(ids) > max_curves) ids <- ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
    s[s$`_ids_` %in% ids, , drop = FALSE]
  }))
  rows <- c("slope of the ICE curves", "sd of the slopes")
  entries <- unique(unlist(entry_labels(objs, labels), use.names = FALSE))
  # A panel per variable and row, each with its own y scale (slopes are in
  # units of the variable): the upper row's strips name the variable, the
  # lower row's the variable's sd.
  panels <- c(vars, paste0(vars, ": sd of the slopes"))
  # (`y`: the values drawn, the slopes' mean or sd for the summaries.)
  tidy <- function(d, row, y = d$`_yhat_`) {
    d$`_yhat_` <- y
    d$`_row_` <- factor(row, levels = rows)
    d$`_panel_` <- factor(if (row == rows[1L]) d$`_vname_` else paste0(d$`_vname_`, ": sd of the slopes"),
                          levels = panels)
    d$`_vname_` <- factor(d$`_vname_`, levels = vars)
    d$`_label_` <- factor(d$`_label_`, levels = entries)
    d
  }
  shown <- tidy(shown, rows[1L])
  mean_d <- tidy(summ, rows[1L], summ$mean)
  sd_d <- tidy(summ, rows[2L], summ$sd)
  xy <- function(...) ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]], ...)
  p <- ggplot2::ggplot() +
    ggplot2::geom_hline(yintercept = 0, colour = "grey60", linewidth = 0.3) +
    ggplot2::geom_line(data = shown, xy(group = interaction(.data[["_label_"]], .data[["_ids_"]])),
                       linewidth = 0.3, alpha = curve_alpha(shown), na.rm = TRUE) +
    ggplot2::geom_line(data = mean_d, xy(), linewidth = 1.1, na.rm = TRUE) +
    ggplot2::geom_line(data = sd_d, xy(), linewidth = 0.9, na.rm = TRUE) +
    ggplot2::facet_wrap(ggplot2::vars(.data[["_panel_"]]), ncol = length(vars), scales = "free", drop = FALSE) +
    ggplot2::scale_x_continuous(n.breaks = if (length(vars) >= 3L) 4L else 5L) +
    ggplot2::labs(x = NULL, y = "slope; sd of the slopes (lower row)",
                  colour = legend_title(objs, labels), title = title %||% derivative_title(objs),
                  subtitle = subtitle %||% paste0(
                    "d-ICE: slopes of the ICE curves, their mean (thick) and spread",
                    if (!is.null(attr(labels, "subtitle"))) paste0(" (", tolower_first(attr(labels, "subtitle")), ")")
                  )) +
    ggplot2::guides(colour = legend_guide(entries)) +
    profile_theme(entries)
  if (!is.null(ncol)) cli::cli_inform("{.arg ncol} does not apply to derivative ICE curves (one column per variable).")
  p
}

# The chart's title, as other charts' (chart_title()): of the model, when
# one model is drawn; wrapped as theirs.
derivative_title <- function(objs) {
  models <- unique(vapply(objs, function(o) o$label, character(1)))
  wrap_title(paste0("Derivative ICE curves", if (length(models) == 1L) paste(" of", models)))
}

tolower_first <- function(x) paste0(tolower(substr(x, 1L, 1L)), substring(x, 2L))
