# The executor under a future plan (R/executor_future.R): every entry point
# predicts on the workers, with the numbers of the sequential plan, and a
# predict function's globals travel with it.

future_data <- function(n = 120, seed = 7) {
  set.seed(seed)
  data.frame(a = rnorm(n), b = runif(n), f = factor(sample(c("u", "v", "w"), n, TRUE)),
             i = sample(1:6, n, TRUE))
}

# A predict function that logs the process and size of each call: one file
# per call in the folder `log` (processes appending to one file can
# interleave their lines).
logging_predict <- function(log) {
  force(log)
  function(m, nd) {
    dir.create(log, showWarnings = FALSE)
    cat(Sys.getpid(), nrow(nd), "\n", file = tempfile("call", tmpdir = log))
    nd$a * nd$b + (nd$f == "v") * nd$i + sin(nd$a)
  }
}

# Predictions a result counts (over its profiles, for those made of several).
n_made <- function(res) {
  if (!is.null(res$n_predictions)) return(res$n_predictions)
  sum(vapply(res$profiles, `[[`, numeric(1), "n_predictions"))
}

# The calls logged since the last read (and the log emptied).
read_log <- function(log) {
  files <- list.files(log, full.names = TRUE)
  d <- do.call(rbind, lapply(files, function(f) {
    v <- scan(f, quiet = TRUE)
    data.frame(pid = v[1L], n = v[2L])
  }))
  unlink(files)
  if (is.null(d)) data.frame(pid = integer(), n = numeric()) else d
}

test_that("every entry point predicts on the workers, with the sequential plan's numbers", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- future_data()
  log <- tempfile()
  pf <- logging_predict(log)
  calls <- list(
    h = function() h_statistic(NULL, X, pf, N = NULL, pairs = 4),
    p2 = function() model_profile_2d(NULL, X, pf, variables = list(c("a", "b"), c("f", "i")),
                                     grid_points = 8, memory_budget = 0.05),
    a2 = function() model_profile_2d(NULL, X, pf, variables = c("a", "b"), type = "accumulated",
                                     intervals = 5, memory_budget = 0.02),
    cmp = function() compare_profiles(NULL, X, pf, variables = c("a", "b", "f"), grid_points = 10,
                                      memory_budget = 0.05),
    hid = function() hidden_interactions(NULL, X, pf, variables = c("a", "b"), groups = "f",
                                         min_group_size = 5, memory_budget = 0.02),
    grp = function() model_profile(NULL, X, pf, variables = c("a", "i"), groups = "f",
                                   type = "accumulated", intervals = 6, memory_budget = 0.02)
  )
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  seq_res <- seq_log <- list()
  for (name in names(calls)) {
    seq_res[[name]] <- calls[[name]]()
    seq_log[[name]] <- read_log(log)
    expect_true(all(seq_log[[name]]$pid == Sys.getpid()))
  }
  future::plan("multisession", workers = 2)
  for (name in names(calls)) {
    res <- calls[[name]]()
    got <- read_log(log)
    # Apart from the two rows of the probe, every row is predicted on a
    # worker, and as many rows as sequentially.
    main <- got$pid == Sys.getpid()
    expect_equal(got$n[main], 2, info = name)
    expect_gte(length(unique(got$pid[!main])), 1L)
    expect_equal(sum(got$n), sum(seq_log[[name]]$n), info = name)
    expect_equal(sum(got$n[!main]), n_made(res), info = name)
    expect_identical(n_made(res), n_made(seq_res[[name]]), info = name)
    strip <- function(r) { r$call <- NULL; r }
    expect_identical(strip(unclass(res)), strip(unclass(seq_res[[name]])), info = name)
  }
})

test_that("h_statistic() predicts its tables on the workers (all of them, counted)", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- future_data(80)
  log <- tempfile()
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  h <- h_statistic(NULL, X, logging_predict(log), N = NULL, pairs = 3, memory_budget = 0.05)
  got <- read_log(log)
  on_workers <- got$pid != Sys.getpid()
  expect_equal(sum(got$n[on_workers]), h$n_predictions)
  expect_gt(sum(on_workers), 2)
  expect_equal(length(unique(got$pid[on_workers])), 2L)
})

test_that("a predict function's global variables and helpers travel to the workers", {
  skip_if_not_installed("future")
  skip_on_cran()
  X <- future_data(60)
  # Defined in the global environment, as a user's script defines them.
  assign("mp_test_k", 3, envir = globalenv())
  assign("mp_test_helper", function(x) x * mp_test_k, envir = globalenv())
  on.exit(rm(list = c("mp_test_k", "mp_test_helper", "mp_test_pf"), envir = globalenv()), add = TRUE)
  assign("mp_test_pf", eval(quote(function(m, nd) mp_test_helper(nd$a) + nd$b), globalenv()),
         envir = globalenv())
  pf <- get("mp_test_pf", envir = globalenv())
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, memory_budget = 0.01, keep_ice = FALSE)
  future::plan("multisession", workers = 2)
  m <- model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, memory_budget = 0.01, keep_ice = FALSE)
  expect_identical(m$agr_profiles, s$agr_profiles)
  # The PD of a is 3 a + mean(b), of b the mean of 3 a plus b.
  a <- m$agr_profiles[m$agr_profiles$`_vname_` == "a", ]
  expect_equal(a$`_yhat_`, 3 * a$`_x_` + mean(X$b), tolerance = 1e-12)
})
