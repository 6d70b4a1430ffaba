# What a chart of profiles says in words (profile_plot_data()): the bands'
# kinds and levels, the title, and which profiles coincide.

# The band of each legend entry in words ("95% analytic band", "per-tree
# 2.5-97.5% spread"), NA for entries without one; named by entry.
entry_bands <- function(objs, labels, bands = TRUE) {
  out <- lapply(seq_along(objs), function(i) {
    shown <- shown_labels(objs[[i]], labels[i], length(objs))
    b <- objs[[i]]$bands
    has <- bands && !is.null(b) && !is.null(objs[[i]]$agr_profiles$`_lower_`)
    stats::setNames(rep(if (has) band_name(b) else NA_character_, length(shown)), unname(shown))
  })
  out <- unlist(out)
  out[!duplicated(names(out))]
}

# A band setting in a few words, its kind and level: "95% analytic band",
# "95% bootstrap band", "per-tree 2.5-97.5% spread" (the trees' spread is
# not a confidence band), "95% infinitesimal-jackknife band".
band_name <- function(b) {
  if (identical(b$type, "trees")) {
    a <- 100 * (1 - b$level) / 2
    return(paste0("per-tree ", format(a), "-", format(100 - a), "% spread"))
  }
  kind <- switch(b$type, analytic = "analytic", bootstrap = "bootstrap", infjack = "infinitesimal-jackknife",
                 refit = "refit", b$type)
  paste0(format(100 * b$level), "% ", kind, " band")
}

# The caption's line that names the bands drawn, their kinds and levels:
# one for all entries, or each entry's when they differ (unless the
# legend's entries name them already).
band_caption <- function(objs, labels, bands, agr) {
  drawn <- unique(agr[!is.na(agr$`_band_`), c("_label_", "_band_")])
  if (!nrow(drawn)) return(NULL)
  kinds <- unique(drawn$`_band_`)
  edges <- if (any(grepl("spread", kinds, fixed = TRUE))) ", the trees' spread with dashed edges"
  all_drawn <- nrow(drawn) == length(unique(as.character(agr$`_label_`)))
  named <- all(mapply(grepl, drawn$`_band_`, as.character(drawn$`_label_`), fixed = TRUE))
  if ((length(kinds) == 1L && all_drawn) || named) {
    return(paste0("Bands: ", paste(kinds, collapse = ", "), " (pointwise", edges, ")"))
  }
  paste0("Bands (pointwise", edges, "): ",
         paste0(as.character(drawn$`_label_`), ": ", drawn$`_band_`, collapse = "; "))
}

# The chart's title: the profiles' types (and ICE curves), and the model
# when there is one; NULL for several models of several types (the legend
# names both).
chart_title <- function(objs, labels, geom) {
  types <- unique(vapply(objs, function(o) o$type, character(1)))
  models <- unique(vapply(objs, function(o) o$label, character(1)))
  if (length(types) != 1L && length(models) != 1L) return(NULL)
  several <- length(objs) > 1L || length(unique(as.character(objs[[1L]]$agr_profiles$`_label_`))) > 1L
  kinds <- vapply(types, profile_title, "")
  kinds <- if (length(kinds) > 1L) paste(paste(kinds[-length(kinds)], collapse = ", "), "and", kinds[length(kinds)]) else kinds
  what <- paste0(kinds, if (several) " profiles" else " profile")
  what <- if (geom %in% c("profiles", "points")) paste("ICE curves and", what) else
    paste0(toupper(substring(what, 1L, 1L)), substring(what, 2L))
  wrap_title(if (length(models) == 1L) paste0(what, " of ", models) else what)
}

# A chart's title wrapped at a word boundary where longer than a chart 7
# inches wide holds (about 60 characters).
wrap_title <- function(x) paste(strwrap(x, width = 60), collapse = "\n")

# Profiles that coincide in a panel (equal to within 0.2% of the chart's
# range of y at every grid point of either) would hide one another: the
# later ones are dashed (dotted, ...) in that panel, and the caption says
# which. list(dash (line type by panel and entry), note), or NULL.
coinciding <- function(agr, entries) {
  if (length(entries) < 2L) return(NULL)
  y <- agr$`_yhat_`[is.finite(agr$`_yhat_`)]
  if (!length(y)) return(NULL)
  tol <- max(2e-3 * diff(range(y)), 1e-12 * max(abs(y)), 1e-300)
  key <- paste(agr$`_vname_`, agr$`_label_`, sep = "\r")
  dash <- stats::setNames(rep("solid", length(unique(key))), unique(key))
  styles <- c("dashed", "dotted", "dotdash", "longdash", "twodash")
  pairs <- character()
  for (v in unique(as.character(agr$`_vname_`))) {
    a <- agr[agr$`_vname_` == v, , drop = FALSE]
    labs <- intersect(entries, unique(as.character(a$`_label_`)))
    k <- 0L
    for (j in seq_along(labs)[-1L]) {
      bj <- a[a$`_label_` == labs[j], , drop = FALSE]
      for (i in seq_len(j - 1L)) {
        bi <- a[a$`_label_` == labs[i], , drop = FALSE]
        if (!same_curve(bi, bj, tol)) next
        k <- k + 1L
        dash[[paste(v, labs[j], sep = "\r")]] <- styles[(k - 1L) %% length(styles) + 1L]
        # (Names quoted, as messages quote them: a label may hold commas.)
        pairs <- c(pairs, paste0("\"", labs[j], "\" coincides with \"", labs[i], "\""))
        break
      }
    }
  }
  if (!length(pairs)) return(NULL)
  pairs <- unique(pairs)
  list(dash = dash, note = paste0("Dashed: ", paste(pairs, collapse = "; ")))
}

# Do two profiles (rows of one panel) take the same values, to within
# `tol`, at the grid points of each (linear interpolation of the other,
# within its range)?
same_curve <- function(a, b, tol) {
  xa <- as.double(a$`_x_`)
  xb <- as.double(b$`_x_`)
  ok <- is.finite(a$`_yhat_`)
  ob <- is.finite(b$`_yhat_`)
  if (sum(ok) < 1L || sum(ob) < 1L) return(FALSE)
  at <- function(x, y, xout) {
    if (length(unique(x)) < 2L) return(ifelse(xout == x[1L], y[1L], NA_real_))
    stats::approx(x, y, xout = xout, ties = mean)$y
  }
  d1 <- at(xb[ob], b$`_yhat_`[ob], xa[ok]) - a$`_yhat_`[ok]
  d2 <- at(xa[ok], a$`_yhat_`[ok], xb[ob]) - b$`_yhat_`[ob]
  d <- c(d1, d2)
  d <- d[!is.na(d)]
  length(d) > 0L && all(abs(d) <= tol)
}

# The legend's title: the model and its subgroups (and classes), or the
# model whose profiles of several types are the entries.
legend_title <- function(objs, labels, channels = NULL) {
  if (length(objs) == 1L && !is.null(objs[[1]]$groups)) {
    return(paste0(objs[[1]]$label, ", by ", objs[[1]]$groups$column,
                  if (is.null(channels) && any(!is.na(objs[[1]]$label_parts$class))) " and class"))
  }
  if (length(objs) == 1L && any(!is.na(objs[[1]]$label_parts$class))) {
    return(paste0(objs[[1]]$label, ", class"))
  }
  attr(labels, "title")
}

legend_type <- function(type) {
  switch(type, partial = "partial dependence", conditional = "local dependence",
         accumulated = "accumulated local")
}
