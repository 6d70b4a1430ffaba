# Layers of a chart of profiles (autoplot.mp_profile()), from its plot data
# (profile_plot_data()): the lines, points, bands and rug of every profile
# and ICE curve.

# The bands, curves, profiles, observed points and rug of plot data `d`,
# added to plot `p` (which holds the veil where a PD extrapolates, behind
# them).
profile_layers <- function(d, geom, p = ggplot2::ggplot()) {
  p <- add_band_layer(p, d)
  xy <- function(...) ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_colour_"]], ...)
  # The classes of a multiclass chart of subgroups by line type.
  xyl <- function(...) if (is.null(d$channels)) xy(...) else xy(linetype = .data[["_linetype_"]], ...)
  # Over a categorical axis, the profiles of several entries side by side
  # (coinciding ones stay visible); lines join levels only of ordered
  # factors (unordered levels have no order to suggest).
  pos <- if (d$numeric_x) "identity" else ggplot2::position_dodge(width = category_dodge(d))
  joined <- function(data, mapping, ...) {
    data <- data[data$`_vname_` %in% d$ordered, , drop = FALSE]
    if (nrow(data)) ggplot2::geom_line(data = data, mapping, na.rm = TRUE, ...)
  }
  if (!is.null(d$curves)) {
    # Fewer curves, each more opaque.
    alpha <- curve_alpha(d$curves)
    if (d$numeric_x) {
      p <- p + line_layers(d, d$curves, xyl(group = interaction(.data[["_label_"]], .data[["_ids_"]])),
                           linewidth = 0.3, alpha = alpha, na.rm = TRUE)
    } else {
      p <- p + joined(d$curves, xyl(group = interaction(.data[["_label_"]], .data[["_ids_"]])),
                      linewidth = 0.3, alpha = alpha) +
        ggplot2::geom_point(data = d$curves, xy(group = .data[["_label_"]]), size = 1.2,
                            alpha = min(1, 2 * alpha), position = pos, na.rm = TRUE)
    }
  }
  if (d$numeric_x) {
    # Coinciding profiles dashed (`_dash_`).
    aes <- if (is.null(d$channels)) xy(linetype = .data[["_dash_"]]) else xyl()
    p <- p + line_layers(d, d$agr, aes, linewidth = if (geom == "aggregates") 0.9 else 1.2, na.rm = TRUE)
    if (is.null(d$channels)) p <- p + ggplot2::scale_linetype_identity()
  } else {
    p <- p + joined(d$agr, xyl(group = .data[["_label_"]]), linewidth = 0.4, alpha = 0.6) +
      ggplot2::geom_point(data = d$agr, if (is.null(d$channels)) xy(group = .data[["_label_"]]) else
        xy(shape = .data[["_linetype_"]], group = .data[["_label_"]]), size = 2.5, position = pos, na.rm = TRUE)
  }
  if (!is.null(d$points)) {
    p <- p + ggplot2::geom_point(data = d$points, xy(group = .data[["_label_"]]), size = 0.9, alpha = 0.7,
                                 position = pos, na.rm = TRUE)
  }
  if (!is.null(d$rug) && nrow(d$rug)) {
    p <- p + ggplot2::geom_rug(data = d$rug, ggplot2::aes(x = .data[["_x_"]]), inherit.aes = FALSE,
                               alpha = 0.25, sides = "b", length = ggplot2::unit(0.02, "npc"), na.rm = TRUE)
  }
  p
}

# Lines through the rows of `data`, as steps for the profiles that are
# exact at a tree ensemble's splits (d$steps).
line_layers <- function(d, data, mapping, ...) {
  stepped <- if (is.null(d$steps)) rep(FALSE, nrow(data)) else data$`_label_` %in% d$steps$labels
  # Whole-number variables step halfway between the whole numbers around a
  # split (where ranger's split of 0/1 at 0.5 is).
  mid <- stepped & data$`_vname_` %in% d$steps$mid
  stepped <- stepped & !mid
  c(if (!all(stepped | mid)) list(ggplot2::geom_line(data = data[!stepped & !mid, , drop = FALSE], mapping, ...)),
    if (any(stepped)) list(ggplot2::geom_step(data = data[stepped, , drop = FALSE], mapping,
                                              direction = d$steps$direction, ...)),
    if (any(mid)) list(ggplot2::geom_step(data = data[mid, , drop = FALSE], mapping, direction = "mid", ...)))
}

# The width over which several entries' points at a level are set side by
# side (0 for one entry).
category_dodge <- function(d) if (length(unique(as.character(d$agr$`_label_`))) > 1L) 0.5 else 0

# Aggregated profiles of categorical variables as dodged bars, as DALEX
# draws them, with the bands as error bars.
bar_plot <- function(d) {
  dodge <- ggplot2::position_dodge(width = 0.9)
  p <- ggplot2::ggplot() +
    ggplot2::geom_col(data = d$agr, ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], fill = .data[["_label_"]]),
                      position = dodge, width = 0.85, na.rm = TRUE)
  b <- d$agr[!is.na(d$agr$`_lower_`) & !is.na(d$agr$`_upper_`), , drop = FALSE]
  if (nrow(b)) {
    p <- p + ggplot2::geom_errorbar(
      data = b, ggplot2::aes(.data[["_x_"]], ymin = .data[["_lower_"]], ymax = .data[["_upper_"]],
                             group = .data[["_label_"]]),
      position = dodge, width = 0.3, colour = "grey30", show.legend = FALSE
    )
  }
  p
}

# The bands of profiles that have them: ribbons over numeric axes, error
# bars over categorical ones, in each profile's colour.
add_band_layer <- function(p, d) {
  has <- !is.na(d$agr$`_lower_`) & !is.na(d$agr$`_upper_`)
  if (!any(has)) return(p)
  # (Every layer gets every entry's rows, so that the colour and fill
  # scales keep the entries' order: bands NA where not drawn, or, for
  # ribbons, of no width, as ggplot2 cannot draw a ribbon of missing
  # values only.)
  masked <- function(keep, fill = NA_real_) {
    b <- d$agr
    b$`_lower_`[!keep] <- fill %||% b$`_yhat_`[!keep]
    b$`_upper_`[!keep] <- fill %||% b$`_yhat_`[!keep]
    b
  }
  if (d$numeric_x) {
    aes <- ggplot2::aes(x = .data[["_x_"]], ymin = .data[["_lower_"]], ymax = .data[["_upper_"]],
                        fill = .data[["_colour_"]], group = .data[["_label_"]])
    # A forest's per-tree spread is not a confidence band: fainter, with
    # dashed edges.
    spread <- has & grepl("spread", d$agr$`_band_`, fixed = TRUE)
    if (any(has & !spread)) {
      p <- p + ggplot2::geom_ribbon(data = masked(has & !spread, NULL), mapping = aes, alpha = 0.2, colour = NA,
                                    show.legend = FALSE, na.rm = TRUE)
    }
    if (any(spread)) {
      s <- masked(spread)
      r <- masked(spread, NULL)
      edges <- lapply(c("_lower_", "_upper_"), function(y) {
        ggplot2::geom_line(data = s, ggplot2::aes(.data[["_x_"]], .data[[y]], colour = .data[["_colour_"]],
                                                  group = .data[["_label_"]]),
                           linetype = "22", linewidth = 0.35, show.legend = FALSE, na.rm = TRUE)
      })
      p <- p + ggplot2::geom_ribbon(data = r, mapping = aes, alpha = 0.07, colour = NA, show.legend = FALSE,
                                    na.rm = TRUE) + edges
    }
    return(p)
  }
  aes <- ggplot2::aes(x = .data[["_x_"]], ymin = .data[["_lower_"]], ymax = .data[["_upper_"]],
                      colour = .data[["_colour_"]], group = .data[["_label_"]])
  p + ggplot2::geom_linerange(data = masked(has), mapping = aes, linewidth = 0.8, alpha = 0.5, show.legend = FALSE,
                              position = ggplot2::position_dodge(width = category_dodge(d)), na.rm = TRUE)
}
