# Tests mirror R/ file by file: every R/<name>.R with code has
# tests/testthat/test-<name>.R. Suites that test across files carry a
# prefix: test-contract-*.R (behaviour across entry points) or
# test-equivalence-*.R (comparisons with reference implementations).
# Lists R files without a mirror test and test files that match neither an
# R file nor a prefix; exit status 1 if there are any.
# Run from the package root: Rscript tools/test-mirror.R

# R files without code of their own to test (documentation, constants,
# generated glue, data documentation, hooks).
untested <- c("bands_doc", "model_profile_doc", "constants", "zzz", "RcppExports",
              "modelprofiles-package")
untested_pattern <- "^data-"
# Test files kept under their own names: the golden regression suite.
standalone <- c("golden")
prefixes <- c("contract-", "equivalence-")

r <- sub("\\.R$", "", list.files("R", pattern = "\\.R$"))
tests <- sub("^test-(.*)\\.R$", "\\1", list.files("tests/testthat", pattern = "^test-.*\\.R$"))

no_test <- setdiff(r[!grepl(untested_pattern, r)], c(untested, tests))
prefixed <- Reduce(`|`, lapply(prefixes, function(p) startsWith(tests, p)))
orphans <- tests[!(tests %in% r | prefixed | tests %in% standalone)]

if (length(no_test)) cat("R files without tests/testthat/test-<name>.R:\n", paste0("  R/", no_test, ".R\n"), sep = "")
if (length(orphans)) {
  cat("Test files matching no R file and no prefix (", paste0(prefixes, "*", collapse = ", "), "):\n",
      paste0("  tests/testthat/test-", orphans, ".R\n"), sep = "")
}
if (length(no_test) || length(orphans)) quit(status = 1L)
cat("Tests mirror R/: ", length(r), " R files, ", length(tests), " test files (",
    sum(prefixed), " cross-cutting).\n", sep = "")
