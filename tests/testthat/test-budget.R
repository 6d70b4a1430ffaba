# The memory budget's ledger (R/budget.R): named shares, one refusal.

test_that("the ledger's shares are fractions 1/k, and a share of a budget divides as the code did", {
  shares <- get("budget_shares", envir = asNamespace("modelprofiles"))
  budget_bytes <- get("budget_bytes", envir = asNamespace("modelprofiles"))
  expect_true(all(shares > 0 & shares <= 1))
  k <- 1 / shares
  expect_equal(k, round(k), tolerance = 0)
  setup <- list(memory_budget = 100)
  expect_identical(budget_bytes(setup), 100 * 2^20)
  # Division by k, as `x / 3` (x * (1/3) differs in the last bit for some x).
  set.seed(1)
  for (b in c(runif(200, 0.01, 1e5), 7, 256)) {
    for (s in names(shares)) {
      expect_identical(budget_bytes(list(memory_budget = b), s), b * 2^20 / round(k[[s]]))
    }
  }
})

test_that("every share has its words: 1/k is element k of budget_share_words", {
  shares <- get("budget_shares", envir = asNamespace("modelprofiles"))
  expect_true(all(1 / shares <= length(budget_share_words)))
  words <- vapply(names(shares), share_words, character(1))
  expect_identical(words[c("band_curves", "kept_ice", "chunk", "resamples")],
                   c(band_curves = "", kept_ice = "half of ", chunk = "a third of ", resamples = "a quarter of "))
})

test_that("what does not fit is refused with one message naming its share and the budget", {
  set.seed(2)
  d <- data.frame(x1 = runif(400), x2 = runif(400))
  d$y <- d$x1 + d$x2
  fit <- lm(y ~ x1 + x2, d)
  # Bootstrap resamples: 4 bytes per row and resample, within a quarter.
  e <- expect_error(
    model_profile(fit, d, variables = "x1", N = NULL, bands = profile_bands("bootstrap", B = 2000),
                  memory_budget = 12),
    class = "rlang_error"
  )
  msg <- cli::ansi_strip(conditionMessage(e))
  mib <- 4 * 400 * 2000 / 2^20
  expect_match(msg, paste0("need ", format(mib, digits = 3), " MiB, more than a quarter of `memory_budget` (12 MiB)"),
               fixed = TRUE)
  expect_match(msg, "Lower `N` or `B`", fixed = TRUE)
  # Kept ICE curves beyond half of the budget: dropped, with a message naming the share.
  big <- data.frame(x1 = runif(2e5), x2 = runif(2e5))
  m <- expect_message(
    model_profile(NULL, big, function(m, newdata) newdata$x1 * newdata$x2, variables = "x1", N = NULL,
                  grid_points = 51, memory_budget = 100),
    "more than half of"
  )
})
