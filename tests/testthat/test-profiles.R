# One-variable profiles within parts (R/profiles.R): the engine rule of
# "auto", the ICE budget, and predictions requested once for all variables.

test_that("engine = \"auto\" keeps predict() for interval methods on small backgrounds", {
  expect_true(native_for("auto", "partial", "exact", 10))
  expect_true(native_for("auto", "conditional", "kernel", 10))
  expect_false(native_for("auto", "accumulated", "interval", native_auto_rows - 1))
  expect_true(native_for("auto", "accumulated", "interval", native_auto_rows))
  expect_true(native_for("native", "accumulated", "interval", 10))
  expect_false(native_for("predict", "partial", "exact", 1e6))
})

test_that("ICE curves are kept in order while they fit in the budget", {
  s <- list(memory_budget = 1)
  st <- profile_settings("partial", keep_ice = TRUE)
  parts <- list(list(level = NA, rows = seq_len(1000)))
  # 1000 rows x 10 points x 48 bytes = 480,000 bytes each: two fit in 1 MiB.
  keep <- ice_kept(s, st, list(1:10, 1:10, 1:10), parts, c("a", "b", "c"))
  expect_identical(keep[1, ], c(TRUE, TRUE, FALSE))
  expect_false(any(ice_kept(s, profile_settings("partial"), list(1:10), parts, "a")))
})

test_that("AL of several variables with missing values predicts the union of their rows once", {
  set.seed(2)
  X <- data.frame(a = rnorm(60), b = rnorm(60), c = rnorm(60))
  X$a[1:5] <- NA
  X$b[3:9] <- NA
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    x <- nd$a
    x[is.na(x)] <- 0
    x * nd$c
  }
  res <- suppressWarnings(model_profile(NULL, X, pf, variables = c("a", "b"), type = "accumulated",
                                        intervals = 4, N = NULL))
  # The probe, the rows where a or b is observed (all but rows 3, 4, 5),
  # then two predictions per observed row of each variable.
  expect_identical(sizes, c(2L, 57L, 2L * 55L, 2L * 53L))
  expect_identical(res$n_predictions, 57 + 110 + 106)
  expect_null(res$mean_prediction) # (not every row was predicted)
})
