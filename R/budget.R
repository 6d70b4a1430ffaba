# The memory budget's ledger: shares of `memory_budget` by name
# (budget_shares, R/constants.R), and one message for what does not fit.

# Bytes of the named share of a setup's budget (or of `budget` MiB; NULL
# share: all of it), and the named share of `bytes`. (Shares are fractions
# 1/k: dividing by k gives the same doubles as the divisions by k the
# shares replaced.)
budget_bytes <- function(setup, share = NULL, budget = setup$memory_budget) {
  if (is.null(share)) budget * 2^20 else budget_part(budget * 2^20, share)
}
budget_part <- function(bytes, share) bytes / (1 / budget_shares[[share]])

# A share in words ("a quarter of "), for messages.
share_words <- function(share) budget_share_words[[1 / budget_shares[[share]]]]

# The one refusal of what does not fit: `what` (cli markup, glued in the
# caller's frame, ending in its verb: "... need") takes `bytes`, more than
# the named share of `budget` MiB; `advice` says what to change.
budget_abort <- function(what, bytes, share, budget, advice, call, .envir = parent.frame()) {
  cli::cli_abort(c(
    paste0(what, " ", format(bytes / 2^20, digits = 3), " MiB, more than ", share_words(share),
           "{.arg memory_budget} (", format(budget), " MiB)."),
    i = advice
  ), call = call, .envir = .envir)
}
