# The house rules of ARCHITECTURE.md, checked by tools/house-rules.R on the
# source tree. Skipped where the sources are not at hand (R CMD check of a
# tarball, which has no tools/: `make check` runs the script on the source
# tree before building).

house_root <- normalizePath(file.path(testthat::test_path(), "..", ".."), mustWork = FALSE)
house_script <- file.path(house_root, "tools", "house-rules.R")

house_rules_env <- function() {
  skip_if_not(file.exists(house_script) && dir.exists(file.path(house_root, "R")),
              "the package's source tree is not at hand")
  env <- new.env()
  sys.source(house_script, envir = env)
  env
}

test_that("the house rules hold on the source tree", {
  rules <- house_rules_env()
  results <- rules$house_rules(house_root)
  expect_length(results, 10L)
  for (r in results) {
    expect(length(r$violations) == 0L, paste(c(r$title, r$violations), collapse = "\n  "))
  }
})

test_that("each house rule finds what breaks it", {
  rules <- house_rules_env()
  root <- tempfile("house")
  dir.create(file.path(root, "R"), recursive = TRUE)
  dir.create(file.path(root, "tests", "testthat"), recursive = TRUE)
  writeLines("door <- function(x) cpp_door(x - 1L)", file.path(root, "R", "cpp.R"))
  writeLines(c(
    "limit <- 12",
    "estimate <- function(setup, m, d) {",
    "  y <- cpp_sum(d)",
    "  if (band_type(setup) == \"none\" && is.null(setup$native)) y <- predict(m, d)",
    "  y + 5000 + setup$memory_budget / 4 + 2 * memory_budget + (setup$memory_budget > 1)",
    "}",
    paste0("entry <- function(x, predict_function = NULL, ",
           paste0("a", 1:19, " = 1", collapse = ", "), ", ..., level = NULL) estimate(NULL, x, 1)"),
    # A function longer than 80 lines.
    "long <- function() {", rep("  NULL", 85), "}"
  ), file.path(root, "R", "estimate.R"))
  writeLines(c("new_mp_thing <- function(x) structure(x, class = \"mp_thing\")",
               "print.mp_thing <- function(x, ...) invisible(x)",
               "plot.mp_thing <- function(x, ...) graphics::plot(1)"), file.path(root, "R", "result_thing.R"))
  writeLines(c("export(entry)", "S3method(print,mp_thing)", "S3method(plot,mp_thing)"), file.path(root, "NAMESPACE"))
  writeLines("", file.path(root, "tests", "testthat", "test-estimate.R"))
  writeLines("", file.path(root, "tests", "testthat", "test-orphan.R"))
  # (An allowance for a file that the tree lacks, to be lowered.)
  rules$allow$band_kinds <- c("profiles.R" = 1)
  res <- rules$house_rules(root)
  v <- stats::setNames(lapply(res, `[[`, "violations"), vapply(res, `[[`, "", "title"))
  got <- function(pattern) any(grepl(pattern, unlist(v), fixed = TRUE))
  expect_true(got("R/cpp.R has no tests/testthat/test-cpp.R"))
  expect_true(got("test-orphan.R matches no R file"))
  expect_true(got("R/estimate.R: 1 use of cpp_*()"))
  expect_true(got("estimate.R: 1 band_type() calls, allowed 0"))
  expect_true(got("estimate.R: 1 engine flags, allowed 0"))
  expect_true(got("R/estimate.R: entry() does not call start_call()"))
  expect_true(got("mp_thing has no autoplot() method"))
  expect_false(got("mp_thing has no plot() method"))
  expect_true(got("plot.mp_thing() does not call autoplot.mp_thing()"))
  expect_true(got("R/estimate.R:limit: a numeric constant outside R/constants.R"))
  expect_true(got("estimate.R: 1 numbers >= 1000, allowed 0"))
  expect_true(got("estimate.R: 1 prediction calls, allowed 0"))
  # Two shares of the budget computed in place (a comparison is not one).
  expect_true(got("R/estimate.R: 2 products or quotients of memory_budget"))
  # 19 + x, predict_function and ... counted; the deprecated `level` not.
  expect_true(got("entry: 22 formals, allowed 0"))
  # An allowance above what a file has must be lowered.
  expect_true(got("profiles.R: 0 band_type() calls, allowed 1: lower the allowance"))
  expect_true(got("estimate.R:long: 87 lines"))
  expect_identical(capture.output(n <- rules$report_house_rules(res))[1L], "FAIL Sizes (files, functions, R/, <<-) ")
  expect_gt(n, 10)
  unlink(root, recursive = TRUE)
})
