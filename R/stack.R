# Stacked rows: patterns of rows and values, and the rows a job of
# specifications needs, stacked once (see R/executor.R).

# A vector given by its pattern, rep(rep(x[index], each = each), times =
# times) (`index` optional). Stacked rows and their values are mostly
# patterns (each row over the grid; the grid over the rows), which travel to
# workers and wait in job lists at the size of the pattern, not of the
# stacked rows. expand() makes the vector (and leaves other vectors alone).
pattern <- function(x, each = 1L, times = 1L, index = NULL) {
  structure(list(x = x, index = index, each = as.integer(each), times = as.integer(times)),
            class = "modelprofiles_pattern")
}

is_pattern <- function(x) inherits(x, "modelprofiles_pattern")

expand <- function(p) {
  if (!is_pattern(p)) return(p)
  v <- if (is.null(p$index)) p$x else p$x[p$index]
  if (p$each != 1L) v <- rep(v, each = p$each)
  if (p$times != 1L) v <- rep(v, times = p$times)
  v
}

pattern_length <- function(p) {
  if (!is_pattern(p)) return(length(p))
  length(if (is.null(p$index)) p$x else p$index) * p$each * p$times
}

# The rows a job's stack specifications need, stacked once: `part`, the
# distinct background rows (the background itself when a specification
# takes all rows), and per specification its rows of `part` (a vector or a
# pattern; NULL for all of them in order, which then share part's columns),
# its columns and values, and `n`, its number of stacked rows. When the
# specifications share one source (a vector, or a pattern of it, of
# increasing rows), those rows are `part` and a pattern stays a pattern.
job_rows <- function(setup, specs) {
  srcs <- lapply(specs, `[[`, "rows")
  all_rows <- any(vapply(srcs, is.null, logical(1)))
  # The rows of each source: a vector, or those of a pattern without an
  # index (NULL otherwise).
  cores <- lapply(srcs, function(s) if (!is_pattern(s)) s else if (is.null(s$index)) s$x)
  # Runs of specifications with the same source; when their rows, run after
  # run, increase, they are `part` as they are.
  first <- !c(FALSE, vapply(seq_along(srcs)[-1L], function(i) identical(srcs[[i]], srcs[[i - 1L]]), logical(1)))
  rows <- if (!all_rows && !any(vapply(cores, is.null, logical(1)))) unlist(cores[first], use.names = FALSE)
  if (!is.null(rows) && !is.unsorted(rows, strictly = TRUE)) {
    off <- cumsum(c(0L, lengths(cores[first])))[cumsum(first)]
    all_rows <- length(rows) == setup$n && rows[length(rows)] == length(rows)
    srcs <- Map(function(s, core, o) {
      rel <- o + seq_along(core)
      if (is_pattern(s) && (s$each != 1L || s$times != 1L)) return(pattern(rel, s$each, s$times))
      if (length(core) < length(rows)) rel
    }, srcs, cores, off)
  } else {
    srcs <- lapply(srcs, expand)
    rows <- if (all_rows) seq_len(setup$n) else sort(unique(unlist(srcs)))
    srcs <- lapply(srcs, function(s) {
      i <- if (is.null(s)) NULL else match(s, rows)
      if (!is.null(i) && length(i) == length(rows) && all(i == seq_along(rows))) NULL else i
    })
  }
  jobs <- Map(function(s, i) list(rows = i, cols = s$cols, values = s$values), specs, srcs)
  part <- if (all_rows) setup$data else unclass_frame(stack_frame(setup$data, rows, threads = setup$threads))
  n <- vapply(jobs, function(jb) if (is.null(jb$rows)) length(rows) else pattern_length(jb$rows), numeric(1))
  list(part = part, jobs = jobs, n = n)
}

# The stacked rows of one job specification.
stack_job <- function(part, jb, threads) {
  stack_frame(part, expand(jb$rows), jb$cols, lapply(jb$values, expand), threads)
}

# A data frame as a plain list of columns, for the C++ side.
unclass_frame <- function(df) {
  out <- unclass(df)
  attr(out, "row.names") <- NULL
  out
}
