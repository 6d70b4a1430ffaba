# The result of find_regions(), class "mp_regions": constructor, methods.

new_mp_regions <- function(x) {
  validate_result(x, "mp_regions", c("agr_profiles", "splits", "regions", "summary", "membership", "variables",
                                     "grids", "label", "level", "depth", "N"))
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

# Which region each background row is in, for each variable profiled:
# variable, `_ids_` (the row in the data), `_region_`, region.
region_membership <- function(variables, found, rows) {
  bind_rows(Map(function(v, f) {
    n <- lengths(f$members)
    out <- data.frame(variable = v, `_ids_` = rows[unlist(f$members)], `_region_` = rep(seq_along(n), n),
                      region = rep(f$labels, n), check.names = FALSE, stringsAsFactors = FALSE)
    out[order(out$`_ids_`), , drop = FALSE]
  }, variables, found))
}

#' @exportS3Method ggplot2::autoplot
autoplot.mp_regions <- function(object, variables = NULL, ...) {
  x <- object
  note <- NULL
  if (!is.null(variables)) {
    unknown <- setdiff(variables, x$variables)
    if (length(unknown)) {
      cli::cli_abort("No regions of {.val {unknown}} to draw; the result has {.val {x$variables}}.")
    }
  } else {
    drawn <- regions_drawn(x)
    variables <- drawn$variables
    note <- drawn$note
  }
  d <- x$agr_profiles[x$agr_profiles$`_vname_` %in% variables, , drop = FALSE]
  vars <- unique(d$`_vname_`)
  # One kind of x axis a chart: the numeric variables, or the categorical
  # ones when they are all that is drawn.
  numeric_v <- vapply(x$grids[vars], function(g) is.numeric(g) && !is.factor(g), logical(1))
  if (any(numeric_v) && !all(numeric_v)) {
    note <- paste(c(note, paste0("Categorical (draw them on their own with variables =): ",
                                 paste(vars[!numeric_v], collapse = ", "))), collapse = "\n")
    vars <- vars[numeric_v]
    d <- d[d$`_vname_` %in% vars, , drop = FALSE]
  }
  discrete <- !any(numeric_v)
  d$`_x_` <- if (discrete) factor(d$`_x_`, unique(unlist(lapply(x$grids[vars], as.character)))) else as.numeric(d$`_x_`)
  cols <- if (length(vars) == 1L) 1L else 2L
  # Each panel's strip names its regions by number, with their rows; the
  # number is written at the right end of each region's profile.
  strips <- vapply(vars, function(v) region_strip(d[d$`_vname_` == v, , drop = FALSE], v, cols), character(1))
  d$`_vname_` <- factor(strips[d$`_vname_`], levels = strips)
  d$`_number_` <- factor(d$`_region_`)
  ends <- region_ends(d)
  # (Levels of a categorical variable as points with their bands, not
  # joined: they have no order.)
  dodge <- ggplot2::position_dodge(width = if (discrete) 0.4 else 0)
  band <- ggplot2::aes(ymin = .data[["_lower_"]], ymax = .data[["_upper_"]])
  layers <- if (discrete) {
    list(ggplot2::geom_errorbar(band, width = 0.15, position = dodge), ggplot2::geom_point(size = 2, position = dodge),
         ggplot2::scale_x_discrete(expand = ggplot2::expansion(add = c(0.5, 0.8))))
  } else {
    list(ggplot2::geom_ribbon(band, alpha = 0.15, colour = NA), ggplot2::geom_line(linewidth = 0.9),
         ggplot2::scale_x_continuous(expand = ggplot2::expansion(mult = c(0.04, 0.1))))
  }
  ggplot2::ggplot(d, ggplot2::aes(.data[["_x_"]], .data[["_yhat_"]], colour = .data[["_number_"]],
                                  fill = .data[["_number_"]], group = .data[["_number_"]])) +
    layers +
    ggplot2::geom_text(data = ends, ggplot2::aes(y = .data$label_y, label = .data[["_number_"]]),
                       hjust = if (discrete) -1 else -0.4, size = 3.2, fontface = "bold", position = dodge) +
    ggplot2::facet_wrap(ggplot2::vars(.data[["_vname_"]]), scales = "free_x", ncol = cols) +
    ggplot2::labs(x = NULL, y = "average prediction in the region",
                  title = paste("Regional partial dependence of", x$label),
                  subtitle = sprintf("Bands: %s%% analytic band of each region's profile (pointwise, given the regions)",
                                     format(100 * x$level)),
                  caption = note) +
    profile_theme(character()) +
    ggplot2::theme(strip.text = ggplot2::element_text(hjust = 0, size = 8),
                   plot.subtitle = ggplot2::element_text(size = 9))
}

# The variables drawn by default: those with regions (all when none has),
# at most `regions_max_panels` of them, by the share of their curves'
# heterogeneity the regions explain; list(variables, note (the caption
# naming the others, or NULL)).
regions_drawn <- function(x) {
  s <- x$summary
  split <- s$variable[s$regions > 1L]
  if (!length(split)) return(list(variables = x$variables, note = NULL))
  by_size <- split[order(-s$explained[match(split, s$variable)] * s$heterogeneity[match(split, s$variable)])]
  shown <- x$variables[x$variables %in% utils::head(by_size, regions_max_panels)]
  flat <- setdiff(x$variables, split)
  more <- setdiff(split, shown)
  note <- c(if (length(flat)) paste0("No split worth reporting: ", paste(flat, collapse = ", ")),
            if (length(more)) paste0("Not drawn (draw with variables =): ", paste(more, collapse = ", ")))
  note <- if (length(note)) paste(strwrap(paste(note, collapse = ". "), width = 120), collapse = "\n")
  list(variables = shown, note = note)
}

# A panel's strip: the variable, then each region's number, description
# and rows, wrapped to the panel's width (of a chart 7 inches wide).
region_strip <- function(d, v, cols) {
  r <- unique(d[c("_region_", "_label_", "_n_")])
  width <- if (cols == 1L) 100L else 48L
  lines <- unlist(Map(function(k, lab, n) {
    strwrap(paste0(k, ": ", lab, " (", n, " rows)"), width = width, exdent = 5)
  }, r$`_region_`, r$`_label_`, r$`_n_`))
  paste(c(v, lines), collapse = "\n")
}

# The places of the regions' numbers: at the right end of each profile,
# moved apart vertically (at least 6% of the panel's range of y) where
# ends are close.
region_ends <- function(d) {
  out <- lapply(split(d, d$`_vname_`, drop = TRUE), function(p) {
    e <- do.call(rbind, lapply(split(p, p$`_region_`), function(r) r[which.max(as.numeric(r$`_x_`)), , drop = FALSE]))
    e <- e[order(e$`_yhat_`), , drop = FALSE]
    gap <- 0.06 * diff(range(c(p$`_lower_`, p$`_upper_`, p$`_yhat_`), na.rm = TRUE))
    y <- e$`_yhat_`
    for (i in seq_along(y)[-1L]) y[i] <- max(y[i], y[i - 1L] + gap)
    # (Centred on the ends again after the moves.)
    e$label_y <- y - (mean(y) - mean(e$`_yhat_`))
    e
  })
  do.call(rbind, out)
}

#' @export
plot.mp_regions <- function(x, ...) autoplot.mp_regions(x, ...)
