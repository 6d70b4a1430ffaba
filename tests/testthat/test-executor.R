# The executor (R/executor.R) and its stream of futures (R/executor_future.R):
# identical numbers under a multisession plan, progress conditions, chunks
# bounded by the memory budget, and the order in which requests run.

# Every estimator, on the predict() path, with a small budget (many chunks);
# their ICE curves do not fit in it (the message is silenced), so these
# compare aggregated profiles only.
run_all <- function(fit, X) {
  b <- 0.05
  suppressMessages(list(
    pd = model_profile(fit, X, N = NULL, engine = "predict", memory_budget = b, keep_ice = FALSE),
    ld = model_profile(fit, X, N = NULL, type = "conditional", engine = "predict", memory_budget = b),
    ldk = model_profile(fit, X, N = NULL, type = "conditional", method = "kernel", engine = "predict",
                        memory_budget = b, keep_ice = FALSE),
    al = model_profile(fit, X, N = NULL, type = "accumulated", engine = "predict", memory_budget = b),
    grp = model_profile(fit, X, variables = "a", groups = "f", N = NULL, engine = "predict",
                        memory_budget = b, keep_ice = FALSE),
    p2 = model_profile_2d(fit, X, variables = list(c("a", "b"), c("f", "a")), engine = "predict",
                          memory_budget = b),
    a2 = model_profile_2d(fit, X, variables = list(c("a", "b"), c("f", "a")), type = "accumulated",
                          engine = "predict", memory_budget = b)
  ))
}

# Profiles whose ICE curves are kept: 20 grid points (4 levels for f) x 300
# rows fit in budgets that still split each into 7 to 25 predict() calls
# (several futures of 4 chunks each), in observation and in grid order.
run_ice <- function(fit, X) {
  list(
    pd = model_profile(fit, X, variables = c("a", "f"), N = NULL, grid_points = 20, engine = "predict",
                       memory_budget = 0.35),
    ld = model_profile(fit, X, variables = c("a", "b"), type = "conditional", method = "kernel",
                       N = NULL, grid_points = 20, engine = "predict", memory_budget = 0.6),
    grid = withr_options(list(modelprofiles.row_order = "grid"), model_profile(
      fit, X, variables = c("a", "f"), N = NULL, grid_points = 20, engine = "predict", memory_budget = 0.35
    ))
  )
}

# The ICE curve of every row over `grid`, by predict() itself: rows in
# observation order, each over the grid.
ice_reference <- function(fit, X, v, grid) {
  nd <- X[rep(seq_len(nrow(X)), each = length(grid)), ]
  nd[[v]] <- if (is.factor(X[[v]])) factor(rep(grid, nrow(X)), levels = levels(X[[v]])) else rep(grid, nrow(X))
  unname(predict(fit, nd))
}

withr_options <- function(opts, expr) {
  old <- options(opts)
  on.exit(options(old))
  expr
}

test_that("a multisession plan with 2 workers gives identical numbers", {
  skip_if_not_installed("future")
  skip_if_not_installed("randomForest")
  d <- parallel_data()
  set.seed(2)
  fit <- randomForest::randomForest(d$X, d$y, ntree = 20)
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- run_all(fit, d$X)
  si <- run_ice(fit, d$X)
  # The ICE curves are there, and are predict()'s own numbers.
  for (k in names(si)) {
    r <- si[[k]]
    expect_false(is.null(r$cp_profiles), label = k)
    for (v in r$variables) {
      cp <- r$cp_profiles[r$cp_profiles$`_vname_` == v, ]
      cp <- cp[order(cp$`_ids_`), ] # (stable: each row's curve stays in grid order)
      grid <- r$grids[[v]]
      expect_length(grid, if (v == "f") 4L else 20L)
      expect_identical(cp$`_ids_`, rep(seq_len(nrow(d$X)), each = length(grid)), label = paste(k, v))
      expect_equal(cp$`_yhat_`, ice_reference(fit, d$X, v, grid), tolerance = 1e-12,
                   label = paste(k, v, "ICE"))
      expect_gt(diff(range(cp$`_yhat_`)), 1)
    }
  }
  # Which the budget splits into more predict() calls than one future takes.
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    predict(m, nd)
  }
  model_profile(fit, d$X, variables = c("a", "f"), N = NULL, grid_points = 20, engine = "predict",
                predict_function = pf, memory_budget = 0.35)
  expect_gt(length(sizes), 8)
  future::plan("multisession", workers = 2)
  expect_equal(future::nbrOfWorkers(), 2L)
  m <- run_all(fit, d$X)
  for (k in names(s)) {
    expect_identical(m[[k]]$agr_profiles, s[[k]]$agr_profiles, label = k)
    expect_identical(m[[k]]$n_predictions, s[[k]]$n_predictions, label = k)
  }
  mi <- run_ice(fit, d$X)
  for (k in names(si)) {
    expect_identical(mi[[k]]$cp_profiles, si[[k]]$cp_profiles, label = paste(k, "ICE"))
    expect_identical(mi[[k]]$agr_profiles, si[[k]]$agr_profiles, label = k)
    expect_identical(mi[[k]]$n_predictions, si[[k]]$n_predictions, label = k)
  }
  # A custom predict function travels too; errors on a worker reach the caller.
  pf <- function(m, nd) predict(m, nd) * 2
  prof_a <- function(pf) {
    model_profile(fit, d$X, variables = "a", N = NULL, predict_function = pf, memory_budget = 0.05,
                  keep_ice = FALSE)$agr_profiles
  }
  expect_identical(prof_a(pf), { future::plan("sequential"); prof_a(pf) })
  future::plan("multisession", workers = 2)
  bad <- function(m, nd) if (nrow(nd) > 5) stop("model failed on the worker") else predict(m, nd)
  expect_error(prof_a(bad), "model failed on the worker")
  # The workers are free again afterwards.
  prof_b <- function() {
    model_profile(fit, d$X, variables = "b", N = NULL, memory_budget = 0.05, engine = "predict",
                  keep_ice = FALSE)$agr_profiles
  }
  expect_identical(prof_b(), { future::plan("sequential"); prof_b() })
})

test_that("progress is signalled per chunk, through progressr", {
  skip_if_not_installed("progressr")
  d <- parallel_data()
  fit <- lm(y ~ a * b + f + i, data = cbind(d$X, y = d$y))
  # (progressr reports in interactive sessions, or when enabled.)
  opts <- options(progressr.enable = TRUE)
  on.exit(options(opts), add = TRUE)
  count <- 0
  amount <- 0
  res <- withCallingHandlers(
    model_profile(fit, d$X, N = NULL, type = "accumulated", memory_budget = 0.005),
    progression = function(cond) {
      if (identical(cond$type, "update")) {
        count <<- count + 1
        amount <<- amount + cond$amount
      }
    }
  )
  # Several chunks per variable; the steps add up to one per variable.
  expect_gt(count, 8)
  expect_equal(amount, 4, tolerance = 1e-8)
  skip_if_not_installed("future")
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  count_w <- 0
  amount_w <- 0
  withCallingHandlers(
    model_profile(fit, d$X, N = NULL, type = "accumulated", memory_budget = 0.005),
    progression = function(cond) {
      if (identical(cond$type, "update")) {
        count_w <<- count_w + 1
        amount_w <<- amount_w + cond$amount
      }
    }
  )
  expect_equal(amount_w, amount, tolerance = 1e-8)
  expect_gt(count_w, 8)
})

test_that("the memory budget bounds the rows of every predict() call", {
  d <- parallel_data(500)
  fit <- lm(y ~ a * b + f + i, data = cbind(d$X, y = d$y))
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    predict(m, nd)
  }
  # Bytes per stacked row: three times the row (numeric 8, factor and
  # integer 4) plus 16; a chunk takes a third of the budget.
  per_row <- 3 * (8 + 8 + 4 + 4) + 16
  for (budget in c(0.03, 0.1, 1)) { # (0.03: 119 rows, above the 100 of a 2-D curve)
    sizes <- integer()
    limit <- floor(budget / 3 * 2^20 / per_row)
    model_profile(fit, d$X, N = NULL, predict_function = pf, memory_budget = budget, keep_ice = FALSE,
                  grid_points = 40)
    model_profile(fit, d$X, N = NULL, type = "accumulated", predict_function = pf, memory_budget = budget)
    model_profile_2d(fit, d$X, variables = c("a", "b"), predict_function = pf, memory_budget = budget,
                     grid_points = 10)
    expect_lte(max(sizes), limit)
    # And the calls are not needlessly small: the largest uses most of it.
    expect_gt(max(sizes), limit / 3)
  }
})

test_that("a predict() call holds at most 65,536 stacked rows; a future, the rows of 4 budget-sized chunks", {
  n <- 70000
  d <- parallel_data(n)
  fit <- lm(y ~ a * b + f + i, data = cbind(d$X, y = d$y))
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    predict(m, nd)
  }
  # PD predicts a block of rows at one grid value per call. 70,000 rows fit
  # in a budget of 256 MiB (about a million rows of 88 bytes), but not in
  # the cap: two blocks of 35,000 rows, at each of the 2 points (after the
  # 2 rows of the probe). Without the cap, one call per point, of 70,000.
  model_profile(fit, d$X, N = NULL, variables = "a", predict_function = pf, keep_ice = FALSE,
                grid_points = 2, memory_budget = 256, engine = "predict")
  expect_identical(sizes, c(2L, rep(35000L, 4L)))
  per_row <- 3 * (8 + 8 + 4 + 4) + 16
  budget_rows <- floor(256 / 3 * 2^20 / per_row)
  setup <- test_setup(fit, pf, d$X, 256)
  expect_identical(setup$chunk_rows_predict, 65536)
  expect_identical(setup$per_future, as.integer(min(64, 4 * budget_rows %/% 65536)))
  # Below the cap: chunks of the budget's size (less the rows' weights, a
  # double each), 4 per future.
  setup <- test_setup(fit, pf, d$X, 1)
  expect_identical(setup$chunk_rows_predict, floor((2^20 - 8 * nrow(d$X)) / 3 / per_row))
  expect_identical(setup$per_future, 4L)
})

test_that("the terminal nodes ranger keeps per tree count in the chunk size", {
  bytes <- c(8, 8, 4, 4)
  expect_equal(adapter_row_bytes(model_adapter(lm(dist ~ speed, cars)), bytes), 3 * 24 + 16)
  skip_if_not_installed("ranger")
  d <- parallel_data(200)
  fit <- ranger::ranger(y ~ ., data = cbind(d$X, y = d$y), num.trees = 25, seed = 1, num.threads = 1)
  per_row <- 3 * 24 + 16 + 8 * 25 + 4 * 4
  expect_equal(adapter_row_bytes(model_adapter(fit), bytes), per_row)
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    predict(m, nd, num.threads = 1)$predictions
  }
  model_profile(fit, d$X, N = NULL, predict_function = pf, memory_budget = 0.1, engine = "predict",
                keep_ice = FALSE, grid_points = 40)
  limit <- floor(0.1 / 3 * 2^20 / per_row)
  expect_lte(max(sizes), limit)
  expect_gt(max(sizes), limit / 3)
})

test_that("randomForest's four copies of its input count in the chunk size", {
  skip_if_not_installed("randomForest")
  d <- parallel_data(200)
  fit <- randomForest::randomForest(d$X, d$y, ntree = 3)
  per_row <- 5 * (8 + 8 + 4 + 4) + 16
  expect_equal(adapter_row_bytes(model_adapter(fit), vapply(d$X, column_bytes, numeric(1))), per_row)
  sizes <- integer()
  pf <- function(m, nd) {
    sizes <<- c(sizes, nrow(nd))
    predict(m, nd)
  }
  model_profile(fit, d$X, N = NULL, predict_function = pf, memory_budget = 0.1, engine = "predict",
                keep_ice = FALSE, grid_points = 40)
  # Counted as a typical model (2 copies, 88 bytes a row), chunks would be
  # half as large again as this limit.
  limit <- floor(0.1 / 3 * 2^20 / per_row)
  expect_lte(max(sizes), limit)
  expect_gt(max(sizes), limit / 3)
})

test_that("workers load the package that predicts the model", {
  d <- parallel_data(50)
  expect_identical(worker_packages(lm(y ~ a, data = cbind(d$X, y = d$y))), "modelprofiles")
  skip_if_not_installed("randomForest")
  fit <- randomForest::randomForest(d$X, d$y, ntree = 3)
  expect_identical(worker_packages(fit), c("modelprofiles", "randomForest"))
})

test_that("requests run as one stream: chunks used and requests finished in order, three at most under way", {
  skip_if_not_installed("future")
  d <- parallel_data(40)
  X <- d$X
  fit <- lm(y ~ a * b + f + i, data = cbind(X, y = d$y))
  # Requests of 3, 0, 1, 4, 0 and 2 chunks; chunk k of request i predicts
  # rows 1..(5 + i + k) with column a set to i + k / 10.
  sizes <- c(3L, 0L, 1L, 4L, 0L, 2L)
  run <- function() {
    setup <- test_setup(fit, NULL, X, 1)
    log <- character()
    makers <- lapply(seq_along(sizes), function(i) function() {
      log <<- c(log, paste0("start", i))
      if (sizes[i] == 0L) {
        return(new_request(0L, NULL, NULL, finish = function(acc) {
          log <<- c(log, paste0("done", i))
          list(i = i, sums = numeric())
        }))
      }
      new_request(sizes[i], function(k) {
        list(stack_spec(seq_len(5L + i + k), 1L, list(rep(i + k / 10, 5L + i + k))))
      }, function(k, ys) {
        log <<- c(log, paste0("use", i, ".", k))
        s <- numeric(sizes[i])
        s[k] <- sum(ys[[1L]])
        list(sums = matrix(s, ncol = 1L))
      }, init = function() list(sums = matrix(0, sizes[i], 1L)), finish = function(acc) {
        log <<- c(log, paste0("done", i))
        list(i = i, sums = acc$sums[, 1L])
      })
    })
    out <- execute(setup, makers)
    list(log = log, out = unclass(out)[seq_along(sizes)], n = attr(out, "n_predictions"))
  }
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- run()
  future::plan("multisession", workers = 2)
  expect_equal(plan_workers(), 2L)
  # (A round trip taken as free: the stream does not stay in this process.)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  m <- run()
  # The same results, computed independently too.
  expect_identical(lapply(m$out, unclass), lapply(s$out, unclass))
  for (i in which(sizes > 0L)) {
    ref <- vapply(seq_len(sizes[i]), function(k) {
      nd <- X[seq_len(5L + i + k), ]
      nd$a <- i + k / 10
      sum(predict(fit, nd))
    }, numeric(1))
    expect_equal(s$out[[i]]$sums, ref)
  }
  expect_identical(m$n, s$n)
  expect_identical(s$n, vapply(seq_along(sizes), function(i) sum(5 + i + seq_len(sizes[i])), numeric(1)))
  # Each request's chunks are used in order, and the requests are finished
  # in order, each after all its chunks.
  for (l in list(s$log, m$log)) {
    done_at <- match(paste0("done", seq_along(sizes)), l)
    expect_false(is.unsorted(done_at))
    for (i in which(sizes > 0L)) {
      use_at <- match(paste0("use", i, ".", seq_len(sizes[i])), l)
      expect_false(is.unsorted(use_at))
      expect_true(all(use_at < done_at[i]))
    }
  }
  # Sequentially one request after another; in the stream a request starts
  # before the one before it is done (the workers do not wait), but with 2
  # workers never before the one three back is done (one request per
  # future in flight, and the one whose batch is made ahead).
  start_s <- match(paste0("start", seq_along(sizes)), s$log)
  done_s <- match(paste0("done", seq_along(sizes)), s$log)
  expect_true(all(start_s[-1L] > done_s[-length(sizes)]))
  start_m <- match(paste0("start", seq_along(sizes)), m$log)
  done_m <- match(paste0("done", seq_along(sizes)), m$log)
  expect_true(start_m[2L] < done_m[1L])
  expect_true(all(start_m[-(1:3)] > done_m[seq_len(length(sizes) - 3L)]))
})

test_that("under a plan, the future that is in first is collected first; chunks are still used in order", {
  skip_if_not_installed("future")
  d <- parallel_data(40)
  X <- d$X
  fit <- lm(y ~ a * b + f + i, data = cbind(X, y = d$y))
  # Chunk k predicts rows 1..(5 + k) with column a set to k / 10; chunk 1
  # takes 2 s on its worker, the others 0.1 s.
  pf <- function(m, nd) {
    Sys.sleep(if (isTRUE(all(nd$a == 0.1))) 2 else 0.1)
    stats::predict(m, nd)
  }
  run <- function() {
    setup <- test_setup(fit, pf, X, 1)
    setup$per_future <- 1L
    used <- integer()
    req <- new_request(6L, function(k) {
      list(stack_spec(seq_len(5L + k), 1L, list(rep(k / 10, 5L + k))))
    }, function(k, ys) {
      used <<- c(used, k)
      s <- numeric(6)
      s[k] <- sum(ys[[1L]])
      list(sums = matrix(s, ncol = 1L))
    }, init = function() list(sums = matrix(0, 6, 1L)), finish = function(acc) acc$sums[, 1L])
    out <- execute(setup, list(req))
    list(res = out[[1L]], used = used, collected = attr(out, "collected"), n = attr(out, "n_predictions"))
  }
  old <- future::plan("sequential")
  on.exit(future::plan(old), add = TRUE)
  s <- run()
  future::plan("multisession", workers = 2)
  old_opt <- options(modelprofiles.future_overhead = 0)
  on.exit(options(old_opt), add = TRUE)
  m <- run()
  ref <- vapply(1:6, function(k) {
    nd <- X[seq_len(5L + k), ]
    nd$a <- k / 10
    sum(predict(fit, nd))
  }, numeric(1))
  expect_equal(s$res, ref)
  expect_identical(m$res, s$res)
  expect_identical(m$n, s$n)
  expect_identical(s$used, 1:6)
  expect_identical(m$used, 1:6)
  # One future per chunk; the second (and those after it, on the other
  # worker) came in before the slow first one.
  expect_setequal(m$collected, 1:6)
  expect_identical(m$collected[1L], 2L)
  expect_gt(match(1L, m$collected), 2L)
})

test_that("the sequential executor collects garbage once per 32 MiB of rows, not once per small chunk", {
  set.seed(1)
  d <- data.frame(a = runif(300), b = runif(300))
  f <- function(m, newdata) newdata$a * newdata$b
  # A budget of 0.02 MiB makes chunks of a few dozen rows.
  p <- model_profile(NULL, d, predict_function = f, memory_budget = 0.02, keep_ice = FALSE, grid_points = 11)
  n <- 0
  trace("gc", quote(n <<- n + 1), print = FALSE, where = baseenv())
  on.exit(untrace("gc", where = baseenv()), add = TRUE)
  p2 <- model_profile(NULL, d, predict_function = f, memory_budget = 0.02, keep_ice = FALSE, grid_points = 11)
  expect_equal(n, 0)
  expect_identical(p2$agr_profiles, p$agr_profiles)
  # 32 MiB of garbage at least, whatever the budget.
  expect_equal(chunk_policy(list(data = d, adapter = model_adapter(NULL), memory_budget = 0.02))$gc_bytes,
               gc_min_bytes)
})
