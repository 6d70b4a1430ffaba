# The setup of a call (R/setup.R): validated once, immutable, the same for
# every entry point.

test_that("a setup holds the background rows and weights, and the engine and outputs", {
  set.seed(3)
  X <- data.frame(a = rnorm(50), b = runif(50), f = factor(sample(c("u", "v"), 50, TRUE)))
  fit <- lm(a ~ b + f, data = X)
  inputs <- setup_inputs(fit, X[c("b", "f")], NULL, NULL, rep(1:2, 25), 1L, 64, rlang::current_env())
  rows <- setup_rows(inputs, 20, seed = 9)
  expect_identical(rows, with_seed(9, sort(sample.int(50, 20))))
  s <- new_setup(inputs, rows, engine = "auto", linear = TRUE)
  expect_s3_class(s, "mp_setup")
  expect_identical(s$n, 20L)
  expect_identical(s$data$b, X$b[rows])
  expect_identical(s$weights, as.double(rep(1:2, 25)[rows]))
  expect_true(s$weighted)
  expect_identical(s$engine, "native")
  expect_identical(s$linear$variables, "b")
  expect_null(s$native)
  expect_identical(s$n_outputs, 1L)
  # The chunk of the predict() path is capped, the direct one is not.
  expect_lte(s$chunk_rows_predict, max_chunk_rows)
  expect_gte(s$chunk_rows_direct, s$chunk_rows_predict)
  expect_identical(request_chunk_rows(s, linear = TRUE), s$chunk_rows_direct)
  expect_identical(request_chunk_rows(s, native = FALSE), s$chunk_rows_predict)
  # The predict engine compiles nothing.
  p <- new_setup(inputs, rows, engine = "predict", linear = TRUE)
  expect_identical(p$engine, "predict")
  expect_null(p$linear)
})

test_that("the outputs of a classifier are its classes; a user's function keeps predict()", {
  fit <- glm(am ~ wt, data = mtcars, family = binomial)
  inputs <- setup_inputs(fit, mtcars["wt"], NULL, NULL, NULL, 1L, 64, rlang::current_env())
  s <- new_setup(inputs, seq_len(32), class = "0", engine = "auto")
  expect_identical(s$outputs$classes, "0")
  expect_identical(s$n_columns, 2L)
  expect_identical(output_labels(s), "glm")
  pf <- function(m, nd) stats::predict(m, nd, type = "response")
  inputs <- setup_inputs(fit, mtcars["wt"], pf, NULL, NULL, 1L, 64, rlang::current_env())
  expect_identical(new_setup(inputs, seq_len(32), engine = "auto", linear = TRUE)$engine, "predict")
  expect_error(new_setup(inputs, seq_len(32), engine = "native"), "own predict function only")
})

test_that("a budget below what a chunk of min_chunk_rows rows needs is raised to it, with one warning, and the numbers do not change", {
  # (The other tests run without the floor: helper-chunks.R.)
  withr::local_options(modelprofiles.min_chunk_rows = NULL)
  set.seed(4)
  n <- 20000
  X <- data.frame(a = rnorm(n), b = runif(n), c = rnorm(n))
  fit <- lm(a ~ poly(b, 2) + c, data = cbind(X[-1], a = X$a + X$b^2))
  sizes <- integer()
  pf <- function(m, nd) {
    sizes[length(sizes) + 1L] <<- nrow(nd)
    stats::predict(m, nd)
  }
  ref <- model_profile(fit, X, predict_function = pf, variables = c("b", "c"), N = NULL, grid_points = 11,
                       keep_ice = FALSE)
  sizes <- integer()
  warned <- list()
  small <- withCallingHandlers(
    model_profile(fit, X, predict_function = pf, variables = c("b", "c"), N = NULL, grid_points = 11,
                  keep_ice = FALSE, memory_budget = 0.01),
    warning = function(w) {
      warned[[length(warned) + 1L]] <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    })
  # One warning, that says what was used instead.
  expect_length(warned, 1L)
  expect_match(warned[[1L]], "memory_budget.* = 0.01 MiB is less than a chunk of 16,384 rows to predict needs; used [0-9.]+ MiB instead")
  used <- as.numeric(sub(".*used ([0-9.]+) MiB instead.*", "\\1", warned[[1L]]))
  # After the probe, a predict() call per grid value and block of rows
  # (grid order), the blocks of min_chunk_rows rows (row_chunks() makes
  # them even: at least half as many).
  calls <- sizes[-1L]
  expect_identical(length(calls), 2L * 11L * as.integer(ceiling(n / min_chunk_rows)))
  expect_gte(min(calls), min_chunk_rows / 2)
  expect_equal(sum(calls), 2 * 11 * n)
  # The numbers are the default budget's.
  expect_equal(small$agr_profiles, ref$agr_profiles, tolerance = 1e-14)
  # The budget used is the least that gives such chunks (to 3 digits).
  inputs <- setup_inputs(fit, X, pf, NULL, NULL, 1L, 0.01, rlang::current_env())
  s <- suppressWarnings(new_setup(inputs, seq_len(n)))
  expect_identical(s$memory_budget, used)
  expect_gte(s$chunk_rows_predict, min_chunk_rows)
  expect_lt(s$chunk_rows_predict, 1.01 * min_chunk_rows)
  mem <- chunk_memory(s)
  expect_gte(used * 2^20, min(mem$held + 3 * min_chunk_rows * mem$predict_row, 12 * min_chunk_rows * mem$predict_row))
  expect_lt(used * 2^20 / 1.01, min(mem$held + 3 * min_chunk_rows * mem$predict_row, 12 * min_chunk_rows * mem$predict_row))
  # A budget that gives such chunks is used as it is, silently.
  inputs$memory_budget <- 2 * used
  expect_silent(s2 <- new_setup(inputs, seq_len(n)))
  expect_identical(s2$memory_budget, 2 * used)
})

test_that("under the floor, a forest's predict() path and native engine give the default budget's numbers", {
  skip_if_not_installed("ranger")
  withr::local_options(modelprofiles.min_chunk_rows = NULL)
  set.seed(5)
  X <- data.frame(a = rnorm(3000), b = runif(3000))
  rf <- ranger::ranger(x = X, y = X$a * X$b + rnorm(3000), num.trees = 10, seed = 1, num.threads = 1)
  for (engine in c("predict", "native")) {
    ref <- model_profile(rf, X, variables = "a", N = 500, seed = 1, engine = engine, grid_points = 21)
    expect_warning(small <- model_profile(rf, X, variables = "a", N = 500, seed = 1, engine = engine,
                                          grid_points = 21, memory_budget = 0.001),
                   "used [0-9.]+ MiB instead")
    expect_equal(small$agr_profiles, ref$agr_profiles, tolerance = 1e-14)
    expect_equal(as.data.frame(small$cp_profiles), as.data.frame(ref$cp_profiles), tolerance = 1e-14)
  }
})
