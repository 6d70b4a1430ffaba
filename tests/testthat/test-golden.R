# Golden snapshots: the calls of helper-golden.R give the numbers, messages,
# warnings and predict() call sizes saved in golden/ by tools/make-golden.R
# (run it again, from the package root, only for a change of output that is
# intended and explained).

# Numbers equal to `tolerance`, text identical, counts identical as
# numbers. (A case whose record is identical passes as one expectation:
# thousands of waldo comparisons would take most of the run time.)
golden_expect_case <- function(new, old, tolerance, info) {
  if (identical(new, old)) return(succeed())
  for (field in union(names(old$numbers), names(new$numbers))) {
    expect_equal(new$numbers[[field]], old$numbers[[field]], tolerance = tolerance,
                 info = paste(info, field))
  }
  for (field in union(names(old$text), names(new$text))) {
    expect_identical(new$text[[field]], old$text[[field]], info = paste(info, field))
  }
  as_numbers <- function(x) rapply(list(x), as.numeric, how = "list")
  for (field in union(names(old$counts), names(new$counts))) {
    expect_identical(as_numbers(new$counts[[field]]), as_numbers(old$counts[[field]]),
                     info = paste(info, field))
  }
}

families <- golden_families()
for (name in names(families)) {
  test_that(paste("golden snapshots:", name), {
    family <- families[[name]]
    for (p in family$needs) skip_if_not_installed(p)
    file <- test_path("golden", paste0(name, ".rds"))
    expect_true(file.exists(file), info = file)
    if (!file.exists(file)) return(invisible())
    old <- readRDS(file)
    # The numbers of a fitted model depend on its package's version.
    now <- golden_versions(family$needs)
    if (!identical(now, old$versions)) {
      skip(paste0("golden made with ", paste(names(old$versions), old$versions, collapse = ", "),
                  "; installed: ", paste(names(now), now, collapse = ", ")))
    }
    expect_setequal(names(family$cases), names(old$cases))
    tolerance <- if (is.null(family$tolerance)) 1e-12 else family$tolerance
    for (case in intersect(names(family$cases), names(old$cases))) {
      new <- golden_run(family$cases[[case]])
      golden_expect_case(new, old$cases[[case]], tolerance, paste0(name, "/", case, ":"))
    }
  })
}
