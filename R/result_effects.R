# The result of effect_sizes(), class "mp_effects" (a data frame): constructor, print().

# An mp_effects table from the data frame `table` (one row per variable and
# profile label, with its statistics, and <statistic>_lower, _upper when
# there are bands), the profiles' `type`, and for bands their `level` and
# `band_type` (NULL without bands); `normalised`: whether NALED and NALER
# had a reference distribution.
new_mp_effects <- function(table, type, level = NULL, band_type = NULL, normalised = FALSE) {
  fail <- function(...) stop("internal error: an mp_effects", ..., call. = FALSE)
  if (!identical(class(table), "data.frame")) fail(" is made from a plain data frame")
  absent <- setdiff(c("variable", "label", "kind", "importance"), names(table))
  if (length(absent)) fail(" lacks ", paste(absent, collapse = ", "))
  if (!is.character(type) || length(type) != 1L) fail(" has one type")
  if (!is.null(level) && !(is.numeric(level) && length(level) == 1L && is.character(band_type))) {
    fail("' bands have one level and a band type")
  }
  if (!is.logical(normalised) || length(normalised) != 1L || is.na(normalised)) {
    fail(" says whether it is normalised")
  }
  structure(table, class = c("mp_effects", "data.frame"), type = type,
            level = level, band_type = band_type, normalised = normalised)
}

#' @rdname effect_sizes
#' @export
print.mp_effects <- function(x, digits = 4, ...) {
  type <- attr(x, "type")
  level <- attr(x, "level")
  bands <- if (!is.null(level)) {
    paste0(", with ", format(100 * level), "% ",
           if (identical(attr(x, "band_type"), "refit")) "refit" else "bootstrap", " bands")
  }
  cli::cat_line("Effect sizes of ", profile_title(type), " profiles (largest importance first)", bands, ":")
  print(effects_table(x, digits), row.names = FALSE, right = TRUE)
  if (identical(type, "accumulated") && !isTRUE(attr(x, "normalised"))) {
    cli::cat_line("NALED and NALER need a reference distribution: see ?effect_sizes.")
  }
  invisible(x)
}

# The statistics of an mp_effects table as text, each with its band
# "[lower, upper]" when it has one.
effects_table <- function(x, digits) {
  stats <- intersect(c("importance", "aled", "aler_min", "aler_max", "naled", "naler_min", "naler_max"),
                     names(x))
  out <- data.frame(variable = x$variable, label = x$label, stringsAsFactors = FALSE)
  if (length(unique(x$label)) == 1L) out$label <- NULL
  for (s in stats) {
    txt <- format(signif(x[[s]], digits))
    lo <- x[[paste0(s, "_lower")]]
    if (!is.null(lo)) {
      txt <- paste0(txt, " [", format(signif(lo, digits)), ", ",
                    format(signif(x[[paste0(s, "_upper")]], digits)), "]")
    }
    out[[s]] <- txt
  }
  out
}
