# The draws of a call with bootstrap bands, written out (R/setup.R,
# setup_rows(), and R/cpp.R, draw_resamples()), for tests that rebuild
# the resamples.

# The background rows and resampling counts a call with `seed` draws: N of
# the n_data rows (all when N >= n_data), those of positive weight, then
# the counts of B resamples of them.
ref_draw <- function(seed, n_data, N, B, w = NULL) {
  set.seed(seed)
  rows <- if (is.null(N) || N >= n_data) seq_len(n_data) else sort(sample.int(n_data, N))
  if (!is.null(w)) rows <- rows[w[rows] > 0]
  n <- length(rows)
  list(rows = rows, counts = vapply(seq_len(B), function(b) tabulate(sample.int(n, n, replace = TRUE), n), integer(n)))
}
