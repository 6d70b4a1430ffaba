# Bootstrap bands of Friedman's H-statistics (h_statistic()), from the
# tables of predictions the estimate is made of, without a new prediction.
#
# In resample b, background row i weighs c_ib w_i (c_ib: how often it is
# drawn). Of a table Y (u values x n rows), the resample's PD(value) is
# sum_i c_ib w_i Y[value, i] / sum_i c_ib w_i, and its PD_-j(row i) the
# mean of Y[, i] weighted by W_b(value), the summed c_ib w_i of the rows
# with that value: sums over the rows of each chunk's block, a u x B matrix
# of PD sums per table and an n x B matrix of PD_-j per variable. f(x_i) is
# the same in every resample. A replicate's statistics are h_overall_stats()
# and h_pair_stat() with the weights c_b w. Output c's resample b is column
# (c - 1) B + b of the accumulators.

# The resampled weights of the background rows: n x B.
h_resampled_weights <- function(setup) setup$resamples * setup$weights

# The columns of resample b in a matrix of B x outputs replicates.
h_rep_columns <- function(setup, b) (seq_len(setup$n_outputs) - 1L) * setup$bands$B + b

# A chunk's block y (G values x m rows, observation-major, a column per
# output) as resampled PD sums (G x (B outputs)).
h_boot_sums <- function(setup, y, G, cw_pos) {
  do.call(cbind, lapply(seq_len(setup$n_outputs), function(c) matrix(y[, c], G) %*% cw_pos))
}

# The same block as the rows' resampled PD_-j (m x (B outputs)): the means
# of each row's G predictions weighted by the value weights Wb (G x B).
h_boot_not <- function(setup, y, G, Wb) {
  total <- colSums(Wb)
  do.call(cbind, lapply(seq_len(setup$n_outputs), function(c) {
    out <- crossprod(matrix(y[, c], G), Wb)
    out / rep(total, each = nrow(out))
  }))
}

# A table's resampled PD (G x (B outputs)) from its sums.
h_boot_pd <- function(setup, sums, cw) {
  sums / rep(rep(colSums(cw), times = setup$n_outputs), each = nrow(sums))
}

# Resample b's PD at the rows' own values (n x outputs) of a table with
# resampled PD P (G x (B outputs)) and the rows' values `index`.
h_rep_at_rows <- function(setup, P, index, b) {
  P[index, h_rep_columns(setup, b), drop = FALSE]
}

# The bootstrap tables (per variable the n x B x outputs PD_-j and the
# u x B x outputs PD sums and value weights, then per pair its sums, with a
# few n x B x outputs matrices at work) within their share of the budget.
# `u`: the variables' numbers of distinct values; `n_pairs`: the most pairs.
check_h_bands_budget <- function(setup, u, n_pairs) {
  n <- as.double(setup$n)
  per <- 8 * setup$bands$B * setup$n_outputs / 2^20
  one_way <- per * (n * length(u) + 2 * sum(u) + 4 * n)
  pairs <- per * (n_pairs * n + 4 * n)
  bytes <- max(one_way, pairs) * 2^20
  if (bytes > budget_bytes(setup, "h_band_tables")) {
    budget_abort("The tables of bootstrap bands of H-statistics over {setup$n} background rows, {length(u)} variable{?s} and {.arg B} = {setup$bands$B} resamples need",
                 bytes, "h_band_tables", setup$memory_budget,
                 "Lower {.arg N}, {.arg B}, the number of {.arg variables} or {.arg pairs}, or raise {.arg memory_budget}.",
                 setup$error_call)
  }
  invisible()
}

# The replicates of statistics, a list over resamples of terms x outputs
# matrices, as one terms x B x outputs array.
h_stack_reps <- function(reps) {
  d <- dim(reps[[1L]])
  aperm(array(unlist(reps), c(d, length(reps))), c(1L, 3L, 2L))
}

# The replicates of the overall and total statistics from the one-way
# tables `one` (h_one_way_request()): list(h2, total), terms x B x outputs.
h_overall_reps <- function(setup, one) {
  cw <- h_resampled_weights(setup)
  reps <- lapply(seq_len(setup$bands$B), function(b) {
    pd <- Map(function(P, index) h_rep_at_rows(setup, P, index, b), one$pd_reps, one$index)
    not <- lapply(one$not_reps, function(M) M[, h_rep_columns(setup, b), drop = FALSE])
    s <- h_overall_stats(one$fitted, pd, not, cw[, b])
    list(h2 = s$h2, total = rbind(s$total))
  })
  list(h2 = h_stack_reps(lapply(reps, `[[`, "h2")), total = h_stack_reps(lapply(reps, `[[`, "total")))
}

# The replicates of the statistics of the pairs `pos` (positions of their
# variables among the one-way tables `one`), from the pairs' resampled PDs
# `pair_reps` (h_two_way_request()): pairs x B x outputs.
h_pair_reps <- function(setup, one, pos, pair_reps) {
  cw <- h_resampled_weights(setup)
  used <- sort(unique(unlist(pos)))
  reps <- lapply(seq_len(setup$bands$B), function(b) {
    Fj <- list()
    for (a in used) Fj[[a]] <- h_center(h_rep_at_rows(setup, one$pd_reps[[a]], one$index[[a]], b), cw[, b])
    out <- matrix(0, length(pos), setup$n_outputs)
    for (k in seq_along(pos)) {
      pd_jk <- h_rep_at_rows(setup, pair_reps[[k]]$pd_reps, pair_reps[[k]]$index, b)
      out[k, ] <- h_pair_stat(pd_jk, Fj[[pos[[k]][1L]]], Fj[[pos[[k]][2L]]], cw[, b])
    }
    out
  })
  h_stack_reps(reps)
}
