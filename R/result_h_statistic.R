# The result of h_statistic(), class "mp_h_statistic": constructor, methods.

new_mp_h_statistic <- function(x) {
  validate_result(x, "mp_h_statistic", c("overall", "pairwise", "total", "variables", "label", "labels", "N"))
}

#' Print, convert and plot H-statistics
#'
#' @param x,object An `mp_h_statistic` result of [h_statistic()].
#' @param n Number of rows of each table to show; for `autoplot()` and
#'   `plot()`, at most this many variables (or pairs) per panel, those with
#'   the largest statistics (`NULL`, the default there, for all).
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param geom `"both"` (overall and pairwise statistics in two panels, or
#'   the overall ones alone when there are no pairs), `"overall"` or
#'   `"pairwise"`.
#' @param top Deprecated: the old name of `n` (a warning).
#' @param bands Draw the bootstrap bands (of a result computed with
#'   `bands = "bootstrap"`) as error bars?
#' @param title,subtitle Title and subtitle of the chart.
#' @param ... Ignored by `print()` and `as.data.frame()`; passed on by
#'   `plot()` to `autoplot()`.
#' @param what `"overall"`, `"pairwise"` or `"total"`: which statistics
#'   (`"total"`: a data frame with columns `label` and `h2`, and the band's
#'   `h2_lower` and `h2_upper` when there are bands).
#' @returns `print()` returns `x` invisibly; `as.data.frame()` the requested
#'   data frame; `autoplot()` and `plot()` a ggplot object, titled
#'   `"H-statistics of <label>"`: horizontal bars of \eqn{H^2}, largest on
#'   top, one panel per kind of statistic (its strip, or the x axis's title
#'   for one, says what the statistic is a share of), coloured
#'   by label when there are several (classes of a multiclass model), with
#'   the bootstrap bands as error bars.
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' h <- h_statistic(fit, mtcars[c("wt", "hp", "qsec")])
#' print(h, n = 2)
#' as.data.frame(h, what = "pairwise")
#' plot(h, geom = "overall")
#' @name mp_h_statistic-methods
NULL

#' @rdname mp_h_statistic-methods
#' @export
print.mp_h_statistic <- function(x, n = 10, ...) {
  cli::cat_line("<mp_h_statistic> Friedman's H-statistics (squared, normalised) of ",
                length(x$variables), " variables for ", encodeString(x$label, quote = "\""))
  print_rows(x)
  band <- ""
  if (!is.null(x$bands)) {
    cli::cat_line("  bootstrap bands: ", format(100 * x$bands$level), "% percentile intervals over B = ",
                  x$bands$B, " resamples of the background rows (h2_lower, h2_upper; $replicates)")
    tb <- x$total_bands
    band <- paste0(" [", format(tb$h2_lower, digits = 3), ", ", format(tb$h2_upper, digits = 3), "]")
  }
  cli::cat_line("  share of the prediction variance from interactions (total): ",
                paste0(if (length(x$total) > 1L) paste0(names(x$total), " "), format(x$total, digits = 4),
                       band, collapse = ", "))
  cli::cat_line("Overall H^2 ($overall):")
  print(utils::head(x$overall, n), row.names = FALSE)
  if (nrow(x$pairwise)) {
    cli::cat_line("Pairwise H^2 ($pairwise):")
    print(utils::head(x$pairwise, n), row.names = FALSE)
  } else {
    cli::cat_line("No pairwise statistics.")
  }
  invisible(x)
}

#' @rdname mp_h_statistic-methods
#' @returns `summary()`: a list of class `summary_mp_h_statistic` (the
#'   tables `total`, `overall` and `pairwise`), which prints each
#'   statistic with its bootstrap band as "H^2 \[lower, upper\]" when
#'   there are bands.
#' @export
summary.mp_h_statistic <- function(object, ...) {
  structure(list(total = as.data.frame(object, what = "total"), overall = object$overall,
                 pairwise = object$pairwise, bands = object$bands, label = object$label),
            class = "summary_mp_h_statistic")
}

#' @export
print.summary_mp_h_statistic <- function(x, n = 10, digits = 4, ...) {
  b <- x$bands
  cli::cat_line("Friedman's H^2 for ", encodeString(x$label, quote = "\""),
                if (!is.null(b)) paste0(", with ", format(100 * b$level), "% bootstrap percentile bands"), ":")
  show <- function(d) print(utils::head(with_intervals(d, "h2", digits), n), row.names = FALSE,
                            digits = digits)
  cli::cat_line("Share of the prediction variance from interactions (total):")
  show(x$total)
  cli::cat_line("Overall:")
  show(x$overall)
  if (nrow(x$pairwise)) {
    cli::cat_line("Pairwise:")
    show(x$pairwise)
  }
  invisible(x)
}

#' @rdname mp_h_statistic-methods
#' @export
as.data.frame.mp_h_statistic <- function(x, row.names = NULL, optional = FALSE, ...,
                                         what = c("overall", "pairwise", "total")) {
  what <- match.arg(what)
  if (what != "total") return(x[[what]])
  x$total_bands %||% data.frame(label = names(x$total), h2 = unname(x$total), stringsAsFactors = FALSE)
}

#' @rdname mp_h_statistic-methods
#' @exportS3Method ggplot2::autoplot
autoplot.mp_h_statistic <- function(object, ..., geom = c("both", "overall", "pairwise"),
                                    n = NULL, bands = TRUE, title = NULL, subtitle = NULL, top = NULL) {
  which <- match.arg(geom)
  check_plot_dots(list(...), "autoplot.mp_h_statistic")
  env <- rlang::current_env()
  if (!is.null(top)) n <- deprecated_arg("top", "n", top, !is.null(n), env)
  if (!is.null(n)) n <- check_whole(n, "n", 1, env)
  bands <- isTRUE(bands) && !is.null(object$bands)
  # The statistics of one table, with their bands (NA without).
  part <- function(statistic, term, d) {
    data.frame(statistic = statistic, term = term, label = d$label, h2 = d$h2,
               lower = d$h2_lower %||% NA_real_, upper = d$h2_upper %||% NA_real_,
               stringsAsFactors = FALSE)
  }
  parts <- list()
  if (which %in% c("both", "overall")) {
    d <- object$overall
    parts$overall <- part("overall", d$variable, d)
  }
  if (which %in% c("both", "pairwise")) {
    d <- object$pairwise
    if (nrow(d)) {
      parts$pairwise <- part("pairwise", paste(d$variable1, d$variable2, sep = ":"), d)
    } else if (which == "pairwise") {
      cli::cli_abort("The result has no pairwise statistics (computed with {.code pairs < 2}).")
    }
  }
  # Terms in their order (decreasing), the first on top; at most `n` per panel.
  parts <- lapply(parts, function(d) {
    terms <- unique(d$term)
    if (!is.null(n)) terms <- utils::head(terms, n)
    d <- d[d$term %in% terms, , drop = FALSE]
    d$term <- paste0(d$statistic, "\r", d$term)
    d
  })
  d <- do.call(rbind, unname(parts))
  d$term <- factor(d$term, levels = rev(unique(d$term)))
  d$statistic <- factor(d$statistic, levels = c("overall", "pairwise"))
  d$label <- factor(d$label, levels = object$labels)
  several <- length(object$labels) > 1L
  bars <- if (several) {
    ggplot2::geom_col(ggplot2::aes(fill = .data$label),
                      position = ggplot2::position_dodge(width = 0.9), width = 0.8)
  } else {
    ggplot2::geom_col(fill = "#4378bf", width = 0.8)
  }
  p <- ggplot2::ggplot(d, ggplot2::aes(x = .data$h2, y = .data$term)) +
    bars
  if (bands) {
    # (Pairs reported as 0 without being computed have no band.)
    p <- p + ggplot2::geom_errorbar(
      ggplot2::aes(xmin = .data$lower, xmax = .data$upper, group = .data$label),
      data = d[!is.na(d$lower), , drop = FALSE], orientation = "y",
      position = ggplot2::position_dodge(width = 0.9), width = if (several) 0.25 else 0.4,
      colour = "grey20"
    )
  }
  # What each statistic is a share of (see ?h_statistic): overall H^2_j of
  # the prediction's variance, pairwise H^2_jk of the variance of the
  # pair's joint effect. One panel says it in the x axis's title; two, in
  # their strips.
  shares <- c(overall = "overall H\u00b2: share of the prediction variance from the variable's interactions",
              pairwise = "pairwise H\u00b2: share of the variance of the pair's joint effect from their interaction")
  p <- p +
    ggplot2::scale_y_discrete(labels = function(z) sub("^[^\r]*\r", "", z)) +
    ggplot2::labs(x = if (length(parts) > 1L) "H\u00b2" else shares[[names(parts)]], y = NULL, fill = NULL,
                  title = title %||% paste("H-statistics of", object$label), subtitle = subtitle)
  if (length(parts) > 1L) {
    p <- p + ggplot2::facet_wrap(ggplot2::vars(.data$statistic), ncol = 1L, scales = "free_y",
                                 labeller = ggplot2::as_labeller(shares))
  }
  p + ggplot2::theme_bw() +
    ggplot2::theme(
      legend.position = if (several) "bottom" else "none",
      strip.background = ggplot2::element_rect(fill = "grey95"),
      panel.grid.minor = ggplot2::element_blank()
    )
}

#' @rdname mp_h_statistic-methods
#' @export
plot.mp_h_statistic <- function(x, ...) {
  autoplot.mp_h_statistic(x, ...)
}

# A statistics matrix (terms x labels) as a long data frame: terms in
# decreasing order of their statistics summed over the labels (as hstats
# sorts), each with its labels in order. With replicates `reps` (terms x B
# x labels), the percentile band at `level` (h2_lower, h2_upper) and
# attribute "replicates", a row of B replicates per row.
h_long <- function(M, labels, reps = NULL, level = 0.95) {
  o <- order(-rowSums(M))
  long <- function(X) as.vector(t(X[o, , drop = FALSE]))
  out <- data.frame(
    term = rep(rownames(M)[o], each = ncol(M)),
    label = rep(labels, times = nrow(M)),
    h2 = long(M),
    stringsAsFactors = FALSE
  )
  if (is.null(reps)) return(out)
  lim <- band_limits(M, level, reps = reps)
  out$h2_lower <- long(lim$lower)
  out$h2_upper <- long(lim$upper)
  R <- reps[o, , , drop = FALSE]
  attr(out, "replicates") <- matrix(aperm(R, c(3L, 1L, 2L)), ncol = dim(R)[2L])
  out
}

# A table without its "replicates" attribute (they go to $replicates).
h_drop_replicates <- function(d) {
  attr(d, "replicates") <- NULL
  d
}
