# The result of hidden_interactions(), class "mp_slopes": constructor, methods.

new_mp_slopes <- function(x) {
  validate_result(x, "mp_slopes", c("summary", "slopes", "profiles", "rule", "level", "grids", "label"))
}

#' @rdname hidden_interactions
#' @export
print.mp_slopes <- function(x, ...) {
  s <- x$summary
  rule <- x$rule %||% "thresholds"
  n_sub <- length(unique(x$slopes$subgroup)) - 1L
  fmt <- function(v) formatC(v, digits = 4, format = "f", flag = "+")
  level <- x$level %||% 0.95
  cli::cat_line("<mp_slopes> slopes of partial-dependence profiles for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  slope = profile at the last grid point minus at the first; ",
                n_sub, " subgroups read",
                if (nrow(x$left_out)) paste0("; ", nrow(x$left_out), " with fewer than ",
                                             x$min_group_size, " rows not read"))
  if (rule == "thresholds") {
    n_flat <- sum(s$flat)
    sc <- x$scale %||% 1
    unit <- if (identical(attr(sc, "source"), "given") && sc == 1) "" else {
      paste0(" x ", format(signif(sc, 4)), " (", attr(sc, "source") %||% "scale", ")")
    }
    thr <- function(f, a) {
      if (nzchar(unit)) paste0(f, unit, " = ", format(signif(a, 4))) else format(f)
    }
    cli::cat_line("  flat: |slope| < ", thr(x$flat, x$flat_abs %||% x$flat), " overall; sloped: |slope| > ",
                  thr(x$sloped, x$sloped_abs %||% x$sloped), " in a subgroup")
    cli::cat_line("  ", n_flat, " flat variable", if (n_flat != 1L) "s", ", ",
                  sum(s$hidden), " of them sloped in opposite directions in subgroups")
    shown <- s[c("variable", "slope", "flat", "highest", "max_slope", "lowest", "min_slope", "gap", "hidden")]
    num <- c("slope", "max_slope", "min_slope")
    shown[num] <- lapply(shown[num], fmt)
    shown$gap <- formatC(s$gap, digits = 4, format = "f")
    print(shown, row.names = FALSE)
    if (!is.null(s$se)) {
      cli::cat_line("  (standard errors and ", format(100 * level), "% intervals of every slope in $slopes)")
    }
    return(invisible(x))
  }
  cli::cat_line("  ", format(100 * level), "% intervals: slope +/- ", format(signif(stats::qnorm((1 + level) / 2), 3)),
                " standard errors of the rows' own slopes")
  cli::cat_line("  distinguishable from 0: Holm-adjusted p-value below ", format(1 - level), " over ",
                x$tests, " subgroup slopes (", length(s$variable), " variable", if (length(s$variable) != 1L) "s",
                " x ", n_sub, " subgroups)")
  cli::cat_line("  hidden: subgroup slopes distinguishable from 0 in both directions, and |overall slope| < ",
                format(x$ratio), " x the smaller of the largest of each")
  cli::cat_line("  ", sum(s$hidden), " of ", nrow(s), " variable", if (nrow(s) != 1L) "s", " hidden")
  interval <- function(lo, hi) paste0("[", fmt(lo), ", ", fmt(hi), "]")
  shown <- data.frame(variable = s$variable, slope = fmt(s$slope), interval = interval(s$lower, s$upper),
                      highest = s$highest, max_slope = fmt(s$max_slope), lowest = s$lowest,
                      min_slope = fmt(s$min_slope), rising = s$rising, falling = s$falling,
                      hidden = s$hidden, stringsAsFactors = FALSE)
  names(shown)[3L] <- paste0(format(100 * level), "% interval")
  print(shown, row.names = FALSE)
  for (v in s$variable[s$hidden]) {
    g <- x$slopes[x$slopes$variable == v & x$slopes$subgroup != "all", , drop = FALSE]
    g <- g[g$distinct %in% TRUE, , drop = FALSE]
    cli::cat_line("Subgroups of ", v, " distinguishable from 0:")
    out <- data.frame(subgroup = g$subgroup, rows = g$rows, slope = fmt(g$slope),
                      interval = interval(g$lower, g$upper),
                      p_holm = format.pval(g$p_holm, digits = 2), stringsAsFactors = FALSE)
    names(out)[4L] <- paste0(format(100 * level), "% interval")
    print(out, row.names = FALSE)
  }
  invisible(x)
}

#' @rdname hidden_interactions
#' @param row.names,optional Ignored.
#' @param what `"summary"` (a row per variable) or `"slopes"` (a row per
#'   subgroup and variable).
#' @export
as.data.frame.mp_slopes <- function(x, row.names = NULL, optional = FALSE, ...,
                                    what = c("summary", "slopes")) {
  x[[match.arg(what)]]
}

#' @rdname hidden_interactions
#' @param object An `mp_slopes` result.
#' @param geom `"slopes"`: a dot per subgroup and variable at its slope with
#'   its interval, the overall slope as a dashed vertical line; with
#'   `rule = "intervals"` the overall slope's interval is shaded and the
#'   dots are coloured by whether the slope is distinguishable from 0
#'   (rising, falling); with `"thresholds"` the band \eqn{\pm}`sloped` is
#'   shaded. `"profiles"`: the subgroups' profiles of the variables (by
#'   default the flagged ones, else all), the overall profile in black.
#' @details `plot()` draws the picture the numbers summarise: which
#'   subgroups pull a flat average up and which pull it down, and how sure
#'   each slope is.
#' @exportS3Method ggplot2::autoplot
autoplot.mp_slopes <- function(object, ..., geom = c("slopes", "profiles"), variables = NULL) {
  type <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_slopes")
  s <- object$summary
  if (is.null(variables)) variables <- if (any(s$hidden)) s$variable[s$hidden] else s$variable
  unknown <- setdiff(variables, s$variable)
  if (length(unknown)) cli::cli_abort("No slopes of {.val {unknown}}.")
  rule <- object$rule %||% "thresholds"
  level <- format(100 * (object$level %||% 0.95))
  if (type == "slopes") {
    d <- object$slopes[object$slopes$variable %in% variables & object$slopes$subgroup != "all", ]
    d$subgroup <- factor(d$subgroup, levels = rev(unique(d$subgroup)))
    d$variable <- factor(d$variable, levels = variables)
    all <- object$slopes[object$slopes$variable %in% variables & object$slopes$subgroup == "all", ]
    all$variable <- factor(all$variable, levels = variables)
    if (rule == "thresholds") {
      band <- object$sloped_abs %||% object$sloped
      shade <- ggplot2::annotate("rect", xmin = -band, xmax = band, ymin = -Inf, ymax = Inf, alpha = 0.12)
      d$status <- factor(ifelse(d$slope > band, "above the band", ifelse(d$slope < -band, "below the band", "within the band")),
                         levels = c("above the band", "within the band", "below the band"))
      caption <- paste0("dashed: all rows; shaded: |slope| <= ", format(signif(band, 4)),
                        "; bars: ", level, "% intervals")
    } else {
      shade <- ggplot2::geom_rect(data = all, ggplot2::aes(xmin = .data$lower, xmax = .data$upper),
                                  ymin = -Inf, ymax = Inf, alpha = 0.12, inherit.aes = FALSE)
      d$status <- factor(ifelse(d$distinct %in% TRUE & d$slope > 0, "rising",
                                ifelse(d$distinct %in% TRUE & d$slope < 0, "falling", "not distinguishable from 0")),
                         levels = c("rising", "not distinguishable from 0", "falling"))
      caption <- paste0("dashed: all rows (shaded: its ", level, "% interval); bars: ", level,
                        "% intervals\ncoloured: distinguishable from 0, with Holm's adjustment over ",
                        object$tests, " slopes")
    }
    colours <- stats::setNames(c("#B2182B", "grey55", "#2166AC"), levels(d$status))
    return(
      ggplot2::ggplot(d, ggplot2::aes(.data$slope, .data$subgroup)) +
        shade +
        ggplot2::geom_vline(xintercept = 0, colour = "grey50") +
        ggplot2::geom_vline(data = all, ggplot2::aes(xintercept = .data$slope),
                            linetype = "dashed") +
        ggplot2::geom_linerange(ggplot2::aes(xmin = .data$lower, xmax = .data$upper, colour = .data$status),
                                na.rm = TRUE) +
        ggplot2::geom_point(ggplot2::aes(colour = .data$status), size = 2.5) +
        ggplot2::scale_colour_manual(values = colours, drop = FALSE) +
        ggplot2::facet_wrap(ggplot2::vars(.data$variable)) +
        ggplot2::labs(x = "slope (last grid point minus first)", y = NULL, colour = NULL,
                      subtitle = paste0("Slopes of partial dependence by subgroup, ", object$label),
                      caption = caption) +
        ggplot2::theme_bw() +
        ggplot2::theme(legend.position = "bottom")
    )
  }
  curves <- do.call(rbind, lapply(names(object$profiles), function(name) {
    p <- object$profiles[[name]]
    a <- p$agr_profiles[p$agr_profiles$`_vname_` %in% variables, , drop = FALSE]
    data.frame(
      variable = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`,
      subgroup = if (is.null(p$groups)) "all" else paste(name, a$`_groups_`),
      stringsAsFactors = FALSE
    )
  }))
  curves$variable <- factor(curves$variable, levels = variables)
  all <- curves[curves$subgroup == "all", ]
  sub <- curves[curves$subgroup != "all", ]
  sub$subgroup <- factor(sub$subgroup, levels = unique(sub$subgroup))
  ggplot2::ggplot(sub, ggplot2::aes(.data$x, .data$yhat, group = .data$subgroup)) +
    ggplot2::geom_line(ggplot2::aes(colour = .data$subgroup)) +
    ggplot2::geom_line(data = all, colour = "black", linewidth = 1.2) +
    ggplot2::facet_wrap(ggplot2::vars(.data$variable), scales = "free_x") +
    ggplot2::labs(x = NULL, y = "average prediction", colour = "subgroup",
                  subtitle = paste0("Partial dependence by subgroup, ", object$label,
                                    "; black: all rows")) +
    ggplot2::theme_bw()
}

#' @rdname hidden_interactions
#' @export
plot.mp_slopes <- function(x, ...) autoplot.mp_slopes(x, ...)
