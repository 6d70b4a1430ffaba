# Threads, sampling and small checks.

#' Number of threads used by modelprofiles
#'
#' The number of threads of the C++ loops is taken, in this order, from the
#' `threads` argument, the option `modelprofiles.threads`, the environment
#' variable `MODELPROFILES_THREADS`, and otherwise 2 (CRAN's limit for
#' checks). Results do not depend on it: every worker owns its output cells
#' and sums in a fixed order.
#'
#' @param threads `NULL` or a positive whole number.
#' @returns An integer.
#' @examples
#' profile_threads()
#' profile_threads(1)
#' @export
profile_threads <- function(threads = NULL) {
  if (is.null(threads)) threads <- getOption("modelprofiles.threads", NULL)
  if (is.null(threads)) {
    env <- Sys.getenv("MODELPROFILES_THREADS", "")
    if (nzchar(env)) threads <- suppressWarnings(as.integer(env))
  }
  if (is.null(threads)) threads <- 2L
  if (!is.numeric(threads) || length(threads) != 1L || is.na(threads) ||
      threads < 1 || threads != round(threads)) {
    cli::cli_abort("{.arg threads} must be a positive whole number, not {.val {threads}}.")
  }
  as.integer(threads)
}

# Rows of the background sample: all rows, or N of them drawn without
# replacement (sorted). With `seed`, the draw is reproducible and the
# caller's random-number stream is left as it was.
sample_rows <- function(n, N, seed) {
  if (is.null(N) || N >= n) return(seq_len(n))
  if (is.null(seed)) return(sort(sample.int(n, N)))
  with_seed(seed, sort(sample.int(n, N)))
}

with_seed <- function(seed, expr) {
  env <- globalenv()
  had <- exists(".Random.seed", envir = env, inherits = FALSE)
  if (had) old <- get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(
    if (had) assign(".Random.seed", old, envir = env) else rm(".Random.seed", envir = env)
  )
  set.seed(seed)
  expr
}

is_whole <- function(x, min = 1) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && x >= min && x == round(x)
}

check_whole <- function(x, arg, min = 1, call) {
  if (!is_whole(x, min)) {
    cli::cli_abort(
      "{.arg {arg}} must be a whole number of at least {min}, not {.val {format(x)}}.",
      call = call
    )
  }
  invisible(as.integer(x))
}

# The background rows of `data` (no copy when they are all its rows).
background_rows <- function(data, rows) {
  if (length(rows) == nrow(data)) return(data)
  data[rows, , drop = FALSE]
}
