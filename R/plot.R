# ggplot2 pictures of profiles.

#' Plot profiles
#'
#' `plot()` and `autoplot()` draw one or more [model_profile()] results in one
#' ggplot2 chart: one panel per variable (free x scales), a line per profile
#' for a numeric variable and points joined by lines for a categorical one,
#' coloured by profile. Profiles of different types or models are told apart
#' in the legend without relabelling: when labels repeat, the type of the
#' profile is added to them. A rug shows the background rows' values, so
#' the reader sees where a profile rests on few rows.
#'
#' @param object,x An `mp_profile` result.
#' @param ... More `mp_profile` results to draw in the same chart.
#' @param variables Variables to draw (default: all).
#' @param rug Draw a rug of the observed values? Needs `data`.
#' @param data The data the profiles were computed on, for the rug.
#' @returns A ggplot object.
#' @examples
#' fit <- lm(mpg ~ wt * hp, data = mtcars)
#' X <- mtcars[c("wt", "hp")]
#' pd <- model_profile(fit, X)
#' al <- model_profile(fit, X, type = "accumulated", intervals = 8)
#' plot(pd, al)
#' @name plot.mp_profile
NULL

#' @rdname plot.mp_profile
#' @importFrom ggplot2 autoplot
#' @export
autoplot.mp_profile <- function(object, ..., variables = NULL, rug = FALSE, data = NULL) {
  objs <- c(list(object), list(...))
  is_prof <- vapply(objs, inherits, logical(1), "mp_profile")
  if (!all(is_prof)) {
    cli::cli_abort("Every object to draw must be a {.fn model_profile} result.")
  }
  labels <- vapply(objs, function(o) o$label, character(1))
  types <- vapply(objs, function(o) o$type, character(1))
  relabel <- anyDuplicated(labels) > 0L
  df <- do.call(rbind, lapply(objs, function(o) {
    d <- o$agr_profiles
    d$`_x_` <- as.character(d$`_x_`)
    if (relabel) d$`_label_` <- paste0(d$`_label_`, " (", profile_title(o$type), ")")
    d$`_kind_` <- vapply(d$`_vname_`, function(v) {
      g <- o$grids[[v]]
      if (is.numeric(g)) "numeric" else "categorical"
    }, character(1))
    d
  }))
  # Legend in the order the profiles were given.
  df$`_label_` <- factor(df$`_label_`, levels = unique(df$`_label_`))
  if (!is.null(variables)) df <- df[df$`_vname_` %in% variables, , drop = FALSE]
  if (nrow(df) == 0L) cli::cli_abort("Nothing to draw: no profile of {.val {variables}}.")
  num <- df[df$`_kind_` == "numeric", , drop = FALSE]
  num$`_x_` <- as.numeric(num$`_x_`)
  cat <- df[df$`_kind_` == "categorical", , drop = FALSE]
  ylab <- if (length(unique(types)) == 1L) {
    switch(types[1],
      partial = "average prediction",
      conditional = "local dependence (average prediction)",
      accumulated = "accumulated local effect (prediction scale)"
    )
  } else {
    "prediction"
  }
  p <- ggplot2::ggplot() +
    ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = "free_x") +
    ggplot2::labs(x = NULL, y = ylab, colour = NULL) +
    ggplot2::theme_bw() +
    ggplot2::theme(legend.position = "bottom")
  if (nrow(num)) {
    p <- p + ggplot2::geom_line(
      data = num,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]]),
      linewidth = 0.8, na.rm = TRUE
    )
  }
  if (nrow(cat)) {
    p <- p + ggplot2::geom_point(
      data = cat,
      ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_label_"]]),
      size = 2.5, na.rm = TRUE
    )
  }
  if (rug && !is.null(data) && nrow(num)) {
    vs <- intersect(unique(num$`_vname_`), names(data))
    rd <- do.call(rbind, lapply(vs, function(v) {
      data.frame(`_vname_` = v, `_x_` = as.double(data[[v]]), check.names = FALSE)
    }))
    p <- p + ggplot2::geom_rug(
      data = rd, ggplot2::aes(x = .data[["_x_"]]), inherit.aes = FALSE,
      alpha = 0.3, sides = "b", na.rm = TRUE
    )
  }
  p
}

#' @rdname plot.mp_profile
#' @export
plot.mp_profile <- function(x, ...) {
  autoplot.mp_profile(x, ...)
}
