# The result of find_regions(): class "mp_regions", made by its
# constructor, new_mp_regions(), and its print, as.data.frame, autoplot and
# plot methods.

new_mp_regions <- function(x) {
  validate_result(x, "mp_regions", c("agr_profiles", "splits", "regions", "summary", "variables", "grids",
                                     "label", "level", "depth", "N"))
}

#' @export
print.mp_regions <- function(x, ...) {
  cli::cat_line(sprintf("<mp_regions> %s: regions of %d variable%s (%d background rows, splits %d deep at most)",
                        x$label, length(x$variables), if (length(x$variables) == 1L) "" else "s", x$N, x$depth))
  for (v in x$variables) {
    s <- x$summary[x$summary$variable == v, ]
    head <- sprintf("%s: heterogeneity %s (%s of the curves' variation)", v, format(signif(s$heterogeneity, 3)),
                    format_share(s$share_of_variation))
    cli::cat_line()
    if (s$regions == 1L) {
      cli::cat_line(head, ": no split worth reporting.")
      next
    }
    cli::cat_line(head, sprintf("; %d regions explain %s of it.", s$regions, format_share(s$explained)))
    sp <- x$splits[x$splits$variable == v, ]
    for (i in seq_len(nrow(sp))) {
      cli::cat_line(sprintf("  [%s] split on %s (%d | %d rows): %s explained", sp$region[i], sp$rule[i],
                            sp$n_left[i], sp$n_right[i], format_share(sp$explained[i])))
    }
  }
  invisible(x)
}

format_share <- function(p) paste0(format(round(100 * p, 1), nsmall = 1), "%")

#' @export
as.data.frame.mp_regions <- function(x, row.names = NULL, optional = FALSE, ...) {
  x$agr_profiles
}

#' @exportS3Method ggplot2::autoplot
autoplot.mp_regions <- function(object, variables = NULL, ...) {
  x <- object
  d <- x$agr_profiles
  if (!is.null(variables)) {
    unknown <- setdiff(variables, x$variables)
    if (length(unknown)) {
      cli::cli_abort("No regions of {.val {unknown}} to draw; the result has {.val {x$variables}}.")
    }
    d <- d[d$`_vname_` %in% variables, , drop = FALSE]
  }
  d$`_vname_` <- factor(d$`_vname_`, levels = unique(d$`_vname_`))
  d$region <- paste0(d$`_label_`, " (", d$`_n_`, " rows)")
  ggplot2::ggplot(d, ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data$region,
                                  fill = .data$region, group = interaction(.data[["_vname_"]], .data$region))) +
    ggplot2::geom_ribbon(ggplot2::aes(ymin = .data[["_lower_"]], ymax = .data[["_upper_"]]),
                         alpha = 0.15, colour = NA) +
    ggplot2::geom_line(linewidth = 0.9) +
    ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = "free_x") +
    ggplot2::labs(x = NULL, y = "average prediction in the region", colour = "region", fill = "region",
                  title = "Regional partial dependence",
                  subtitle = sprintf("%s; bands %s%%", x$label, format(100 * x$level))) +
    profile_theme(unique(d$region))
}

#' @export
plot.mp_regions <- function(x, ...) autoplot.mp_regions(x, ...)
