# The result of find_regions(): class "mp_regions", made by its
# constructor, new_mp_regions().

new_mp_regions <- function(x) {
  validate_result(x, "mp_regions", c("agr_profiles", "splits", "regions", "summary", "variables", "grids",
                                     "label", "level", "depth", "N"))
}
