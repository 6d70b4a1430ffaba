# Constructors of the result classes made by h_statistic(),
# hidden_interactions(), model_profile_2d() and compare_profiles(): each
# takes the result's fields as a list, checks that the fields its methods
# read are there (validate_result()) and sets the class. (mp_profile and
# mp_ice have theirs in R/result_profile.R and R/ice_blocks.R.)

new_mp_h_statistic <- function(x) {
  validate_result(x, "mp_h_statistic", c("overall", "pairwise", "total", "variables", "label", "labels", "N"))
}

new_mp_slopes <- function(x) {
  validate_result(x, "mp_slopes", c("summary", "slopes", "profiles", "rule", "level", "grids", "label"))
}

new_mp_profile_2d <- function(x) {
  validate_result(x, "mp_profile_2d", c("agr_profiles", "type", "pairs", "grids", "label", "labels"))
}

new_mp_comparison <- function(x) {
  validate_result(x, "mp_comparison", c("distances", "profiles", "label"))
}

# `x` of class `class` when it is a list with the fields `required` (an
# internal error otherwise: results are made by the package only).
validate_result <- function(x, class, required) {
  if (!is.list(x) || is.object(x)) {
    stop("internal error: an ", class, " is made from a plain list", call. = FALSE)
  }
  absent <- setdiff(required, names(x))
  if (length(absent)) {
    stop("internal error: an ", class, " lacks ", paste(absent, collapse = ", "), call. = FALSE)
  }
  structure(x, class = class)
}
