# The result of compare_profiles(), class "mp_comparison": constructor, methods.

new_mp_comparison <- function(x) {
  validate_result(x, "mp_comparison", c("distances", "profiles", "label"))
}

#' @rdname compare_profiles
#' @export
print.mp_comparison <- function(x, ...) {
  cli::cat_line("<mp_comparison> PD, LD and AL profiles of ", nrow(x$distances),
                " variable", if (nrow(x$distances) != 1L) "s", " for ",
                encodeString(x$label, quote = "\""))
  cli::cat_line("  root-mean-square distances between centred profiles at the rows' values,")
  cli::cat_line("  largest first (ld_al: correlation; pd_al: interaction with correlated variables)")
  if (!is.null(x$bands)) {
    cli::cat_line("  bootstrap bands: ", format(100 * x$bands$level), "% percentile intervals over B = ",
                  x$bands$B, " resamples of the background rows (<distance>_lower, _upper; $replicates)")
  }
  print(x$distances, row.names = FALSE, digits = 4)
  print_extrapolated_difference(x$distances)
  invisible(x)
}

# The variables whose PD-AL distance comes mostly (over half of it) from
# where the PD extrapolates, named.
print_extrapolated_difference <- function(d) {
  e <- d$pd_al_extrapolated
  if (is.null(e)) return(invisible())
  big <- !is.na(e) & e > 0.5 & d$pd_al > 0.05 * d$al_range
  if (!any(big)) return(invisible())
  vars <- unique(paste0(d$variable[big], " (", format(round(100 * e[big])), "%)"))
  cli::cat_line("  PD and AL differ mostly where the PD extrapolates (over half of the points it averages lie")
  cli::cat_line("  outside the data; share of the pd_al distance there): ", paste(vars, collapse = ", "),
                ". Read the AL profile there; see ?extrapolation.")
  invisible()
}

#' @rdname compare_profiles
#' @returns `summary()`: the distances as a data frame of class
#'   `summary_mp_comparison`, which prints each distance with its bootstrap
#'   band as "distance \[lower, upper\]" when there are bands.
#' @export
summary.mp_comparison <- function(object, ...) {
  structure(object$distances, class = c("summary_mp_comparison", "data.frame"), bands = object$bands)
}

#' @export
print.summary_mp_comparison <- function(x, digits = 4, ...) {
  b <- attr(x, "bands")
  cli::cat_line("Root-mean-square distances between the centred PD, LD and AL profiles (largest first)",
                if (!is.null(b)) paste0(", with ", format(100 * b$level), "% bootstrap percentile bands"), ":")
  tab <- structure(x, class = "data.frame", bands = NULL)
  print(with_intervals(tab, distance_names, digits), row.names = FALSE, digits = digits)
  invisible(x)
}

#' @rdname compare_profiles
#' @param row.names,optional Ignored.
#' @export
as.data.frame.mp_comparison <- function(x, row.names = NULL, optional = FALSE, ...) x$distances

#' @rdname compare_profiles
#' @param object An `mp_comparison` result.
#' @param n Number of variables to draw, the most different first.
#' @param geom `"profiles"` (the three profiles of the `n` variables, as
#'   `plot(pd, ld, al)`) or `"distances"` (a dot chart of the distances,
#'   with their bootstrap bands as error bars when there are bands).
#' @param bands Draw the bands (of the distances, or of the profiles)?
#' @exportS3Method ggplot2::autoplot
autoplot.mp_comparison <- function(object, ..., geom = c("profiles", "distances"), n = 4,
                                   bands = TRUE) {
  type <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_comparison")
  d <- object$distances
  vars <- utils::head(unique(d$variable), n)
  if (type == "profiles") {
    p <- object$profiles
    kinds <- vapply(vars, function(v) column_kind(p$pd$grids[[v]]) == "numeric", logical(1))
    if (any(kinds)) vars <- vars[kinds]
    return(autoplot.mp_profile(p$pd, p$ld, p$al, variables = vars, bands = bands, ...))
  }
  bands <- isTRUE(bands) && !is.null(object$bands)
  long <- do.call(rbind, lapply(distance_names, function(k) {
    data.frame(variable = d$variable, label = d$label, pair = sub("_", " vs ", toupper(k)),
               distance = d[[k]], lower = d[[paste0(k, "_lower")]] %||% NA_real_,
               upper = d[[paste0(k, "_upper")]] %||% NA_real_, stringsAsFactors = FALSE)
  }))
  long <- long[long$variable %in% vars, ]
  long$variable <- factor(long$variable, levels = rev(vars))
  dodge <- if (bands) ggplot2::position_dodge(width = 0.5) else "identity"
  p <- ggplot2::ggplot(long, ggplot2::aes(.data$distance, .data$variable, colour = .data$pair))
  if (bands) {
    p <- p + ggplot2::geom_errorbar(ggplot2::aes(xmin = .data$lower, xmax = .data$upper),
                                    data = long[!is.na(long$lower), , drop = FALSE],
                                    orientation = "y", width = 0.3, position = dodge)
  }
  p + ggplot2::geom_point(size = 2.5, position = dodge) +
    ggplot2::labs(x = "distance between centred profiles", y = NULL, colour = NULL,
                  subtitle = paste("PD, LD and AL profiles compared,", object$label)) +
    ggplot2::theme_bw() +
    ggplot2::theme(legend.position = "bottom")
}

#' @rdname compare_profiles
#' @export
plot.mp_comparison <- function(x, ...) autoplot.mp_comparison(x, ...)
