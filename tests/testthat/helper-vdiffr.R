# vdiffr snapshots (tests/testthat/_snaps/). vdiffr compares them only where
# NOT_CRAN is "true" (it skips "On CRAN" otherwise); `make check` sets it, so
# R CMD check compares them there, and a changed plot fails the check.
#
# vdiffr draws text with its own font metrics, so the SVGs do not depend on
# the machine's fonts; they do depend on how ggplot2 draws (e.g. colourbar
# ticks). They were made with the versions below, which tools/setup.sh
# installs from Debian 12 (r-cran-ggplot2, r-cran-vdiffr); with other
# versions the comparison is skipped, naming them, rather than failed: a new
# ggplot2 is not a bug here, but the snapshots then need regenerating.
# (Regenerate: run the tests with NOT_CRAN=true in a copy of the source tree,
# never inside it, look at each new SVG, and copy _snaps/ back; then update
# these versions.)
snapshot_versions <- c(ggplot2 = "3.4.1", vdiffr = "1.0.5")

expect_doppelganger <- function(title, fig, ...) {
  testthat::skip_if_not_installed("vdiffr")
  found <- vapply(names(snapshot_versions), function(p) format(utils::packageVersion(p)), character(1))
  if (!identical(found, snapshot_versions)) {
    testthat::skip(paste0(
      "vdiffr snapshots were made with ", paste(names(snapshot_versions), snapshot_versions, collapse = ", "),
      "; found ", paste(names(found), found, collapse = ", ")
    ))
  }
  vdiffr::expect_doppelganger(title, fig, ...)
}
