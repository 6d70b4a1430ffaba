# Where a profile extrapolates, drawn (see ?extrapolation): the first layer
# of autoplot.mp_profile(), a translucent veil behind the bands and curves
# over the grid cells where more than `extrapolation_level` of the points a
# PD averages lie outside the data, denser as the share grows, with a
# legend saying so. (Behind, so that it shades no curve: over them, it
# greyed the AL curves of a chart that mixes types as if they extrapolated.)

#' @name plot.mp_profile
#' @rdname plot.mp_profile
#' @param extrapolation Mark where a partial-dependence profile
#'   extrapolates? Over the grid cells where more than half of the points
#'   the profile averages lie outside the data (column `_extrapolation_`,
#'   see [extrapolation]) a translucent veil is drawn behind the curves,
#'   denser as that share grows to 1, with a legend saying so (also on the
#'   chart of a single profile, which has no legend otherwise; with several
#'   PD profiles, a cell's share is the largest of theirs); nothing is drawn
#'   when no share exceeds one half, or with `FALSE`.
#' @usage NULL
NULL

# The layer's data: per variable drawn and grid cell (halfway between grid
# points) the largest share over the results' PD labels, where it exceeds
# the level; NULL when nowhere (or for a categorical x axis).
extrapolation_plot_data <- function(objs, d, level = extrapolation_level) {
  if (!d$numeric_x || !d$x_kind %in% c("numeric", "Date")) return(NULL)
  vars <- if (is.factor(d$agr$`_vname_`)) levels(d$agr$`_vname_`) else unique(d$agr$`_vname_`)
  rows <- list()
  sources <- 0L
  for (o in objs) {
    a <- o$agr_profiles
    if (is.null(a$`_extrapolation_`)) next
    sources <- sources + 1L
    for (v in intersect(vars, unique(a$`_vname_`))) {
      s <- a[a$`_vname_` == v, c("_x_", "_extrapolation_")]
      x <- plot_x(s$`_x_`, d$x_kind)
      share <- tapply(s$`_extrapolation_`, as.double(x), max)
      g <- sort(unique(as.double(x)))
      e <- cell_edges(g)
      # (Within the grid: the shading does not widen the axis.)
      e$lo[1L] <- g[1L]
      e$hi[length(g)] <- g[length(g)]
      rows[[length(rows) + 1L]] <- data.frame(`_vname_` = v, lo = e$lo, hi = e$hi, share = as.vector(share),
                                              check.names = FALSE)
    }
  }
  if (!length(rows)) return(NULL)
  out <- do.call(rbind, rows)
  # (The largest share of a cell over the results.)
  out <- stats::aggregate(share ~ `_vname_` + lo + hi, data = out, FUN = max)
  out <- out[out$share > level, , drop = FALSE]
  if (!nrow(out)) return(NULL)
  attr(out, "sources") <- sources
  if (d$x_kind == "Date") {
    out$lo <- as.Date(out$lo, origin = "1970-01-01")
    out$hi <- as.Date(out$hi, origin = "1970-01-01")
  }
  out$`_vname_` <- factor(out$`_vname_`, levels = vars)
  out
}

# The layer on plot p (the empty plot that the bands and curves are then
# added to, so that it lies behind them), when `show` and a share exceeds
# the level somewhere.
add_extrapolation_layer <- function(p, d, objs, show = TRUE, call = rlang::caller_env()) {
  if (!is.logical(show) || length(show) != 1L || is.na(show)) {
    cli::cli_abort("{.arg extrapolation} must be {.code TRUE} or {.code FALSE}, not {.obj_type_friendly {show}}.",
                   call = call)
  }
  if (!show) return(p)
  ext <- extrapolation_plot_data(objs, d)
  if (is.null(ext)) return(p)
  level <- extrapolation_level
  name <- if (isTRUE(attr(ext, "sources") > 1L)) {
    "Shaded: a PD extrapolates; the largest\nshare, among the PD profiles, of the\npoints averaged there outside the data"
  } else {
    "Shaded: the PD extrapolates;\nshare of the points averaged\nthere that lie outside the data"
  }
  p <- p + ggplot2::geom_rect(
    data = ext, ggplot2::aes(xmin = .data$lo, xmax = .data$hi, alpha = .data$share),
    ymin = -Inf, ymax = Inf, fill = "#9b8fb0", colour = NA, inherit.aes = FALSE
  ) +
    ggplot2::scale_alpha_continuous(
      name = name,
      # (A steep ramp, so that the three keys' shades are told apart.)
      limits = c(level, 1), range = c(0.15, 0.7), breaks = c(level, (1 + level) / 2, 1),
      labels = function(b) paste0(ifelse(b == level, "over ", ""), trimws(format(100 * b)), "%"),
      guide = ggplot2::guide_legend(title.position = "top", order = 3,
                                    override.aes = list(fill = "#9b8fb0"))
    )
  p
}

# Has plot p the veil? (Its legend is then shown, also for one profile.)
has_veil <- function(p) p$scales$has_scale("alpha")

# The veil of a 2-D chart of partial dependence (rows `d` of its
# agr_profiles, `grids` of its pair; `panels`: with bands, the surface's
# panel first): the cells where the share exceeds the level, greyed by a
# nearly opaque light grey without outlines (a white veil read as paler
# colours of the scale; outlines and diagonals made a mesh of the cells);
# the legend's key is that grey. NULL when none or not `show`n.
surface_veil <- function(d, grids, panels = NULL, show = TRUE, call = rlang::caller_env()) {
  check_flag(show, "extrapolation", call)
  s <- d$`_extrapolation_`
  if (is.null(s) || !show) return(NULL)
  sx <- tile_span(d$`_x_`, grids[[1L]])
  sy <- tile_span(d$`_x2_`, grids[[2L]])
  over <- !is.na(s) & s > extrapolation_level
  if (!any(over)) return(NULL)
  cells <- data.frame(xmin = sx$lo, xmax = sx$hi, ymin = sy$lo, ymax = sy$hi, `_label_` = d$`_label_`,
                      check.names = FALSE)[over, , drop = FALSE]
  if (!is.null(panels)) cells$`_panel_` <- factor(panels[1L], levels = panels)
  key <- paste0("over ", format(100 * extrapolation_level), "% of the points\naveraged in the cell\nlie outside the data")
  cells$veil <- key
  list(
    ggplot2::geom_rect(data = cells, ggplot2::aes(xmin = .data$xmin, xmax = .data$xmax, ymin = .data$ymin,
                                                  ymax = .data$ymax, colour = .data$veil),
                       fill = "grey85", alpha = 0.85, linewidth = 0, key_glyph = "rect", inherit.aes = FALSE),
    ggplot2::scale_colour_manual(name = "PD extrapolates (greyed)", values = stats::setNames("transparent", key),
                                 guide = ggplot2::guide_legend(order = 2))
  )
}
