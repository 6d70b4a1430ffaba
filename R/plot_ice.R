# plot() of ICE curves (an mp_ice, R/result_ice.R), as ingredients' plot of
# ceteris-paribus profiles draws them, and the layers added to it.

#' @rdname mp_ice
#' @param variables `NULL` (every variable of `variable_type`) or names of
#'   profiled variables to draw, in the panels' order.
#' @param variable_type `"numerical"` (the default, as ingredients': the
#'   numeric variables, or the categorical ones when there are none) or
#'   `"categorical"`.
#' @param max_curves Maximum number of rows whose curves are drawn (an
#'   evenly spaced selection).
#' @param observations Mark each row's own value and prediction with a
#'   point? By default, when at most 10 rows' curves are drawn.
#' @param color,alpha,size The curves' colour (one colour, or `"_label_"`
#'   to colour by label), opacity and width.
#' @param title,subtitle The chart's title and subtitle (`NULL`: the model's
#'   labels).
#' @param facet_ncol Number of columns of panels (`NULL`: ggplot2's choice).
#' @param categorical_type How categorical variables are drawn, as in
#'   ingredients: `"profiles"` (points, unjoined), `"lines"` (joined) or
#'   `"bars"`.
#' @export
plot.mp_ice <- function(x, ..., variables = NULL, variable_type = "numerical", max_curves = 100,
                        observations = NULL, color = "#46bac2", alpha = NULL, size = 0.5,
                        title = "Ceteris-paribus profiles", subtitle = NULL, facet_ncol = NULL,
                        categorical_type = c("profiles", "lines", "bars")) {
  call <- rlang::current_env()
  n_more <- ...length()
  if (n_more) {
    cli::cli_abort(c(
      "{.fn plot} of ICE curves draws one set of curves; {n_more} more {?was/were} given.",
      i = "Bind them first, {.code plot(rbind(cp1, cp2))}, or draw the results with {.code plot(result1, result2, geom = \"profiles\")}."
    ), call = call)
  }
  categorical_type <- arg_one(categorical_type, c("profiles", "lines", "bars"), "categorical_type", call)
  if (!is.null(facet_ncol)) facet_ncol <- check_whole(facet_ncol, "facet_ncol", 1, call)
  if (!is.data.frame(x)) cli::cli_abort("These ICE curves are more than a data frame can hold; plot the result of {.fn model_profile} instead.", call = call)
  variable_type <- check_variable_type(variable_type, call)
  max_curves <- check_whole(max_curves, "max_curves", 1, call)
  if (!is.null(observations)) check_flag(observations, "observations", call)
  store <- attr(x, "ice")
  blocks <- ice_blocks(store)
  chosen <- ice_plot_variables(store, variables, variable_type, call)
  vars <- chosen$vars
  want <- chosen$want
  keep <- which(vapply(blocks, function(b) b$v %in% vars, logical(1)))
  ids <- unique(unlist(lapply(blocks[keep], `[[`, "ids")))
  if (length(ids) > max_curves) ids <- ids[unique(round(seq(1, length(ids), length.out = max_curves)))]
  d <- ice_long(store, keep, ids)
  numeric_x <- want == "numeric"
  if (numeric_x && is.character(d$`_x_`)) d$`_x_` <- as.numeric(d$`_x_`)
  # (Panels in the variables' order.)
  d$`_vname_` <- factor(d$`_vname_`, levels = vars)
  labels <- unique(d$`_label_`)
  by_label <- identical(color, "_label_") || (identical(color, "#46bac2") && length(labels) > 1L)
  alpha <- alpha %||% if (length(ids) > 20) 0.3 else 1
  # (Grouped as ingredients groups, so that its layers, show_observations()
  # and show_aggregated_profiles(), add to the chart.)
  p <- ggplot2::ggplot(d, ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]],
                                       group = paste(.data[["_ids_"]], .data[["_label_"]])))
  # Categories unjoined (no order between levels), as DALEX draws them;
  # ingredients' "lines" joins them, "bars" draws bars.
  joined <- numeric_x || categorical_type == "lines"
  bars <- !numeric_x && categorical_type == "bars"
  # (Bars are filled, lines and points coloured: by label, or in `color`.)
  paint <- if (bars) "fill" else "colour"
  style <- if (by_label) list(ggplot2::aes(!!paint := .data[["_label_"]])) else stats::setNames(list(color), paint)
  style <- c(style, alpha = alpha, if (bars) list(position = "dodge") else if (joined) list(linewidth = size) else
    list(size = 3 * size))
  geom <- if (bars) ggplot2::geom_col else if (joined) ggplot2::geom_line else ggplot2::geom_point
  p <- p + do.call(geom, style)
  obs <- attr(x, "observations")
  if (is.null(observations)) observations <- length(ids) <= 10L
  if (observations && !is.null(obs)) p <- p + ice_points_layer(obs, ids, vars, numeric_x)
  # (Numeric panels' ticks and room between panels as the charts of
  # profiles', so that neighbouring panels' tick labels do not meet.)
  if (numeric_x && is.numeric(d$`_x_`)) p <- p + x_axis_scale(list(agr = d, x_kind = "numeric"), facet_ncol)
  p <- p + ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = "free_x", ncol = facet_ncol) +
    ggplot2::labs(x = NULL, y = "prediction", colour = NULL, title = title,
                  subtitle = subtitle %||% paste0("created for the ", paste(labels, collapse = ", "), " model")) +
    ggplot2::theme_bw() + panel_room()
  p$mp_ice <- list(vars = vars, numeric = numeric_x)
  class(p) <- c("mp_ice_plot", class(p))
  p
}

# Layers added to plot() of the curves (ingredients' show_aggregated_profiles()
# of a result's agr_profiles, whose `_x_` is text when its variables' scales
# differ) are drawn on its panels: their rows of other variables are left
# out and their `_x_` read as numbers on numeric panels.
#' @exportS3Method ggplot2::ggplot_build
ggplot_build.mp_ice_plot <- function(plot) {
  info <- plot$mp_ice
  # (A layer is an environment, shared with the plot: its data is given
  # back as it was once the plot is built.)
  kept <- list()
  on.exit(for (i in names(kept)) plot$layers[[as.integer(i)]]$data <- kept[[i]])
  for (i in seq_along(plot$layers)) {
    d <- plot$layers[[i]]$data
    if (!is.data.frame(d) || !"_vname_" %in% names(d)) next
    kept[[as.character(i)]] <- d
    d <- d[as.character(d$`_vname_`) %in% info$vars, , drop = FALSE]
    if (info$numeric && is.character(d$`_x_`)) d$`_x_` <- as.numeric(d$`_x_`)
    d$`_vname_` <- factor(as.character(d$`_vname_`), levels = info$vars)
    plot$layers[[i]]$data <- d
  }
  plot$mp_ice <- NULL
  class(plot) <- setdiff(class(plot), "mp_ice_plot")
  ggplot2::ggplot_build(plot)
}

# The rows `ids` at their own values of the variables `vars` and their
# predictions (ingredients' "observations" `obs`), as points.
ice_points_layer <- function(obs, ids, vars, numeric_x) {
  o <- obs[match(as.character(ids), rownames(obs)), , drop = FALSE]
  pts <- do.call(rbind, lapply(vars, function(v) {
    data.frame(`_vname_` = v, `_x_` = if (numeric_x) as.numeric(o[[v]]) else as.character(o[[v]]),
               `_yhat_` = o$`_yhat_`, `_ids_` = rownames(o), `_label_` = o$`_label_`, check.names = FALSE,
               stringsAsFactors = FALSE)
  }))
  pts$`_vname_` <- factor(pts$`_vname_`, levels = vars)
  ggplot2::geom_point(data = pts, colour = "#371ea3", size = 2)
}

# The variables plot() of ICE curves draws (`variables`, of `variable_type`,
# as ingredients chooses them) and their kind (`want`).
ice_plot_variables <- function(store, variables, variable_type, call) {
  vars <- unique(vapply(ice_blocks(store), `[[`, "", "v"))
  if (!is.null(variables)) {
    bad <- if (is.character(variables)) setdiff(variables, vars) else format_value(variables)
    if (length(bad)) {
      cli::cli_abort(c("{.arg variables} must name profiled variables, not {.val {bad}}.",
                       i = "The curves are of {.val {vars}}."), call = call)
    }
    # (In the user's order.)
    vars <- unique(variables)
  }
  kinds <- vapply(vars, function(v) column_kind(store$grids[[v]] %||% store$observed[[v]]), "")
  want <- if (variable_type == "numerical") "numeric" else "categorical"
  if (!any(kinds == want)) {
    if (!is.null(variables) || variable_type == "categorical") {
      cli::cli_abort("No {variable_type} variable to draw; use {.code variable_type = \"{if (want == 'numeric') 'categorical' else 'numerical'}\"}.", call = call)
    }
    want <- "categorical"
  }
  left <- vars[kinds != want]
  if (length(left)) {
    other <- if (want == "numeric") "categorical" else "numerical"
    cli::cli_inform(c(
      "Drawing the {if (want == 'numeric') 'numerical' else 'categorical'} variables; a chart has one kind of x axis.",
      i = "Draw {.val {left}} with {.code plot(x, variable_type = \"{other}\")}."
    ), .frequency = "once", .frequency_id = "modelprofiles_ice_one_x_axis")
  }
  list(vars = vars[kinds == want], want = want)
}
