# The result of effect_sizes(): class "mp_effects", a data frame made by
# its constructor, new_mp_effects(), and its print method.

# An mp_effects table from the data frame `table` (one row per variable and
# profile label, with its statistics, and <statistic>_lower, _upper when
# there are bands), the profiles' `type`, and for bands their `level` and
# `band_type` (NULL without bands); `normalised`: whether NALED and NALER
# had a reference distribution.
new_mp_effects <- function(table, type, level = NULL, band_type = NULL, normalised = FALSE) {
  if (!identical(class(table), "data.frame")) {
    stop("internal error: an mp_effects is made from a plain data frame", call. = FALSE)
  }
  absent <- setdiff(c("variable", "label", "kind", "importance"), names(table))
  if (length(absent)) stop("internal error: an mp_effects lacks ", paste(absent, collapse = ", "), call. = FALSE)
  if (!is.character(type) || length(type) != 1L) stop("internal error: an mp_effects has one type", call. = FALSE)
  if (!is.null(level) && !(is.numeric(level) && length(level) == 1L && is.character(band_type))) {
    stop("internal error: an mp_effects' bands have one level and a band type", call. = FALSE)
  }
  if (!is.logical(normalised) || length(normalised) != 1L || is.na(normalised)) {
    stop("internal error: an mp_effects says whether it is normalised", call. = FALSE)
  }
  structure(table, class = c("mp_effects", "data.frame"), type = type,
            level = level, band_type = band_type, normalised = normalised)
}
