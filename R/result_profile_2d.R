# The result of model_profile_2d(), class "mp_profile_2d": constructor, methods.

new_mp_profile_2d <- function(x) {
  validate_result(x, "mp_profile_2d", c("agr_profiles", "type", "pairs", "grids", "label", "labels"))
}

#' @rdname model_profile_2d
#' @param n Number of rows to show.
#' @export
print.mp_profile_2d <- function(x, n = 6, ...) {
  pr <- vapply(x$pairs, paste, character(1), collapse = " x ")
  what <- if (identical(x$type, "accumulated")) "second-order accumulated local effects" else "partial dependence"
  cli::cat_line("<mp_profile_2d> two-variable ", what, " for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  pairs: ", paste(pr, collapse = ", "))
  print_rows(x, details = FALSE)
  half <- band_half_width(x$agr_profiles)
  if (!is.null(x$bands) && length(half)) {
    cli::cat_line("  bands: ", band_text(x$bands), "; half-width median ", format(stats::median(half), digits = 3),
                  ", largest ", format(max(half), digits = 3))
  }
  cli::cat_line("First rows of $agr_profiles:")
  print(utils::head(as.data.frame(x), n), row.names = FALSE)
  invisible(x)
}

#' @rdname model_profile_2d
#' @param row.names,optional Ignored.
#' @export
as.data.frame.mp_profile_2d <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$agr_profiles
}

#' @rdname model_profile_2d
#' @param object An `mp_profile_2d` result.
#' @param geom `"tiles"` (a cell per grid pair, coloured on a continuous scale
#'   with a colour bar) or `"contour"` (filled contours, numeric pairs only).
#' @param bins Number of contour levels for `geom = "contour"`.
#' @param bands Draw the bands of a result computed with `bands` (a panel
#'   of the band's half-width beside the surface)?
#' @param title,subtitle Title and subtitle.
#' @param extrapolation Grey the cells where a partial dependence
#'   extrapolates: where more than half of the points averaged in a cell lie
#'   outside the data (column `_extrapolation_`, see [extrapolation]), a
#'   nearly opaque light grey without outlines, named in the legend;
#'   `FALSE` leaves it out.
#' @details `plot()` draws each pair in its own panel: numeric pairs as
#'   tiles whose edges lie halfway between grid values (so uneven quantile
#'   grids are drawn faithfully; the outer tiles end at the grid's ends, not
#'   past the data's range) or as filled contours; pairs with a
#'   categorical variable as tiles on a discrete axis. The rug of background
#'   values shows where the surface is backed by data. Partial dependence
#'   is coloured on a sequential scale (viridis); second-order accumulated
#'   local effects, which are signed, on a diverging scale centred at 0
#'   (blue below, red above); when every effect is within 1e-9 of 0 (an
#'   additive model, to rounding) they are drawn as 0 and the subtitle
#'   says there is no interaction. A result with bands gets a second
#'   panel, the half-width of the band at each cell (half the distance
#'   between its upper and lower limits, in the units of the surface), in
#'   grey whose darkness grows with the half-width; its strip names the
#'   band's kind and level.
#' @exportS3Method ggplot2::autoplot
autoplot.mp_profile_2d <- function(object, ..., geom = c("tiles", "contour"), bins = 10, bands = TRUE,
                                   title = NULL, subtitle = NULL, extrapolation = TRUE) {
  geom <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_profile_2d")
  d <- as.data.frame(object)
  pairs <- object$pairs
  if (length(pairs) > 1L) {
    cli::cli_abort(c(
      "Draw one pair at a time: the axes differ between pairs.",
      i = "Compute each pair separately, or subset {.code $agr_profiles}."
    ))
  }
  v <- pairs[[1]]
  al <- identical(object$type, "accumulated")
  # Second-order effects that are 0 to rounding (an additive model): drawn
  # as 0, without a colour bar, and said in the subtitle; a diverging scale
  # would otherwise stretch the rounding errors over its colours.
  no_interaction <- al && max(abs(d$`_yhat_`), na.rm = TRUE) <= 1e-9
  if (no_interaction) d$`_yhat_`[!is.na(d$`_yhat_`)] <- 0
  fill_name <- if (al) "interaction\neffect" else "average\nprediction"
  num <- is.numeric(d$`_x_`) && is.numeric(d$`_x2_`)
  # A panel of the bands' half-width beside the surface's.
  half <- if (isTRUE(bands) && !is.null(object$bands)) band_half_width(d)
  panels <- if (length(half)) c(if (al) "interaction effect" else "partial dependence",
                                paste0(band_name(object$bands), ": half-width"))
  if (length(half)) d$`_panel_` <- factor(panels[1L], levels = panels)
  sx <- tile_span(d$`_x_`, object$grids[[v[1]]])
  sy <- tile_span(d$`_x2_`, object$grids[[v[2]]])
  d[c("xmin", "xmax", "ymin", "ymax")] <- list(sx$lo, sx$hi, sy$lo, sy$hi)
  p <- ggplot2::ggplot(d)
  if (geom == "contour" && no_interaction) geom <- "tiles"
  if (geom == "contour") {
    if (!num) cli::cli_abort("Filled contours need two numeric variables; use {.code geom = \"tiles\"}.")
    contour <- ggplot2::aes(.data[["_x_"]], .data[["_x2_"]], z = .data[["_yhat_"]])
    if (al) {
      # Signed effects: levels symmetric about 0, on a diverging palette.
      m <- max(abs(d$`_yhat_`), na.rm = TRUE)
      if (!is.finite(m) || m == 0) m <- 1
      p <- p + ggplot2::geom_contour_filled(contour, breaks = seq(-m, m, length.out = bins + 1L)) +
        ggplot2::scale_fill_manual(values = diverging_colours(bins), drop = FALSE, name = fill_name)
    } else {
      p <- p + ggplot2::geom_contour_filled(contour, bins = bins) + ggplot2::labs(fill = fill_name)
    }
  } else {
    p <- p + ggplot2::geom_rect(
      ggplot2::aes(xmin = .data$xmin, xmax = .data$xmax, ymin = .data$ymin,
                   ymax = .data$ymax, fill = .data[["_yhat_"]])
    ) + if (al) {
      # Signed effects on a diverging palette centred at 0.
      m <- max(abs(d$`_yhat_`), na.rm = TRUE)
      ggplot2::scale_fill_gradient2(name = fill_name, low = "#2166AC", mid = "#F7F7F7", high = "#B2182B",
                                    midpoint = 0, limits = if (is.finite(m) && m > 0) c(-m, m),
                                    guide = if (no_interaction) "none" else "colourbar")
    } else {
      ggplot2::scale_fill_viridis_c(name = fill_name)
    }
    if (!is.null(sx$levels)) {
      p <- p + ggplot2::scale_x_continuous(breaks = seq_along(sx$levels), labels = sx$levels)
    }
    if (!is.null(sy$levels)) {
      p <- p + ggplot2::scale_y_continuous(breaks = seq_along(sy$levels), labels = sy$levels)
    }
  }
  if (length(half)) p <- p + half_width_layers(d, half, panels)
  p <- p + surface_veil(d, object$grids[v], panels, extrapolation)
  if (num) p <- p + surface_rug(object, v)
  p <- p + surface_facets(length(unique(d$`_label_`)) > 1L, length(half) > 0L)
  what <- if (al) "Second-order accumulated local effect," else "Partial dependence,"
  auto <- paste(what, object$label)
  if (no_interaction) auto <- paste0(auto, ": no interaction (every effect is within 1e-9 of 0)")
  p + ggplot2::labs(x = v[1], y = v[2], title = title, subtitle = subtitle %||% auto) +
    ggplot2::theme_bw() +
    ggplot2::theme(panel.grid = ggplot2::element_blank())
}

#' @rdname model_profile_2d
#' @export
plot.mp_profile_2d <- function(x, ...) autoplot.mp_profile_2d(x, ...)

# The panel of a 2-D chart's band half-widths (`half`, per row of `d`, which
# has the tiles' extent): tiles in grey, darker where the band is wider, in
# the panel `panels[2]`.
half_width_layers <- function(d, half, panels) {
  d$`_panel_` <- factor(panels[2L], levels = panels)
  d$`_half_` <- half
  list(
    ggplot2::geom_rect(data = d, ggplot2::aes(xmin = .data$xmin, xmax = .data$xmax, ymin = .data$ymin,
                                              ymax = .data$ymax, alpha = .data[["_half_"]]), fill = "grey10"),
    ggplot2::scale_alpha_continuous(name = "half-width", range = c(0.03, 1), limits = c(0, max(half, na.rm = TRUE)))
  )
}

# The rug of the background's values of the pair `v` (numeric).
surface_rug <- function(object, v) {
  obs <- data.frame(a = as.double(object$observed[[v[1]]]), b = as.double(object$observed[[v[2]]]))
  ggplot2::geom_rug(data = obs, ggplot2::aes(x = .data$a, y = .data$b),
                    alpha = 0.2, length = ggplot2::unit(0.015, "npc"), inherit.aes = FALSE)
}

# Panels of a 2-D chart: one per output (`several`) and, with bands, the
# surface's beside its band's.
surface_facets <- function(several, bands) {
  if (several && bands) {
    return(ggplot2::facet_grid(ggplot2::vars(.data[["_label_"]]), ggplot2::vars(.data[["_panel_"]])))
  }
  if (several || bands) ggplot2::facet_wrap(ggplot2::vars(.data[[if (several) "_label_" else "_panel_"]]))
}

# The half-width of the bands of a 2-D result's cells (half the distance
# between their limits; NULL without bands).
band_half_width <- function(d) {
  if (is.null(d$`_lower_`) || is.null(d$`_upper_`)) return(NULL)
  half <- (d$`_upper_` - d$`_lower_`) / 2
  if (all(is.na(half))) NULL else half
}

# `n` colours from blue through near-white to red (ColorBrewer's RdBu ends).
diverging_colours <- function(n) {
  grDevices::colorRampPalette(c("#2166AC", "#92C5DE", "#F7F7F7", "#F4A582", "#B2182B"))(n)
}

# The extent of each tile along one axis: between the cell edges of a
# numeric grid, the outer tiles ending at the grid's ends (a tile does not
# reach past the data's range); or one unit around a level's position
# (with its levels).
tile_span <- function(values, grid) {
  if (is.numeric(values)) {
    e <- cell_edges(grid)
    if (length(unique(grid)) > 1L) {
      e$lo <- pmax(e$lo, min(grid))
      e$hi <- pmin(e$hi, max(grid))
    }
    i <- match(values, grid)
    return(list(lo = e$lo[i], hi = e$hi[i], levels = NULL))
  }
  lev <- as.character(grid)
  pos <- match(values, lev)
  list(lo = pos - 0.5, hi = pos + 0.5, levels = lev)
}
