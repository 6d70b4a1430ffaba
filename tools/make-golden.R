# Golden snapshots of today's outputs, for test-golden.R.
#
# Run from the package root with the package installed:
#   Rscript -e 'source("tools/make-golden.R")'
# It runs every call of tests/testthat/helper-golden.R (the one list of
# calls, which test-golden.R runs again) and saves one file per family of
# calls to tests/testthat/golden/<family>.rds. Families whose model package
# is not installed are left as they are (with a message).

suppressPackageStartupMessages(library(modelprofiles))
source(file.path("tests", "testthat", "helper-golden.R"))

golden_dir <- file.path("tests", "testthat", "golden")
dir.create(golden_dir, showWarnings = FALSE, recursive = TRUE)

families <- golden_families()
total <- 0
start_all <- proc.time()[["elapsed"]]
for (name in names(families)) {
  family <- families[[name]]
  missing <- family$needs[!vapply(family$needs, requireNamespace, logical(1), quietly = TRUE)]
  if (length(missing)) {
    message(sprintf("%-24s skipped (not installed: %s)", name, paste(missing, collapse = ", ")))
    next
  }
  start <- proc.time()[["elapsed"]]
  record <- golden_run_family(family)
  file <- file.path(golden_dir, paste0(name, ".rds"))
  saveRDS(record, file, compress = "xz")
  errors <- names(Filter(function(r) !is.null(r$text$error), record$cases))
  size <- file.size(file)
  total <- total + size
  message(sprintf("%-24s %3d calls %6.1f s %7.1f kB%s", name, length(record$cases),
                  proc.time()[["elapsed"]] - start, size / 1024,
                  if (length(errors)) paste0("  errors in: ", paste(errors, collapse = ", ")) else ""))
}
message(sprintf("total %.1f kB in %.1f s", total / 1024, proc.time()[["elapsed"]] - start_all))
