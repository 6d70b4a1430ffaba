# The executor's cost model (R/executor_cost.R): the round trip before and
# after a call's own futures, the workers worth using and the rows of a
# future, against the rules written out by hand.

cost_of <- function(busy = 0, busy_rows = 0, overheads = numeric(), forced = NULL, prior = 0.05, bytes = 0,
                    setups = numeric(length(overheads)), calls = 0, least = Inf, per_call = 0, once = 0) {
  list(forced = forced, busy = busy, busy_rows = busy_rows, overheads = overheads, setups = setups,
       prior = prior, bytes = bytes, calls = calls, least = least, per_call = per_call, once = once)
}

test_that("the round trip: the option's, the call's futures', or the prior", {
  # Before any future: the prior, plus its cost a byte carried.
  expect_equal(cost_trip(cost_of(prior = 0.2, bytes = 2e6)), 0.2 + 2e6 * future_trip_per_byte)
  # The call's own futures: their median.
  expect_equal(cost_trip(cost_of(overheads = c(0.3, 0.1, 0.2), prior = 5, bytes = 1e6)), 0.2)
  # The option over everything.
  expect_equal(cost_trip(cost_of(overheads = 0.3, forced = 0)), 0)
})

test_that("cost_learn() adds the seconds and rows timed, and a future's round trip", {
  cost <- cost_learn(cost_of(), 0.5, 1000)
  expect_equal(cost_rate(cost), 5e-4)
  expect_length(cost$overheads, 0L)
  cost <- cost_learn(cost, 1.5, 3000, trip = 0.07)
  expect_equal(cost_rate(cost), 5e-4)
  expect_equal(cost$overheads, 0.07)
  # A negative round trip (the clocks' rounding) counts as none.
  expect_equal(cost_learn(cost, 0, 0, trip = -0.01)$overheads, c(0.07, 0))
  # The worker's setup, within the round trip.
  expect_equal(cost$setups, 0)
  expect_equal(cost_learn(cost, 0, 0, trip = 0.3, setup = 0.2)$setups, c(0, 0.2))
  expect_equal(cost_learn(cost, 0, 0, trip = 0.3, setup = 0.5)$setups, c(0, 0.3))
  expect_equal(cost_learn(cost, 0, 0, trip = 0.3, setup = -1)$setups, c(0, 0))
  expect_equal(cost_rate(cost_of()), 0)
})

test_that("useful_workers() and future_rows() follow the rule of 4 round trips and a 5% share", {
  # 1 ms a row, round trip 0.1 s: a worker is worth 4 round trips (0.4 s,
  # 400 rows) of work.
  cost <- cost_of(busy = 1, busy_rows = 1000, overheads = 0.1)
  expect_identical(useful_workers(cost, 4L, 799), 1L)
  expect_identical(useful_workers(cost, 4L, 800), 2L)
  expect_identical(useful_workers(cost, 4L, 1e6), 4L)
  # A model of 2 MB that travels once to each worker (0.02 s at 1e-8 s a
  # byte): a worker is worth 4 round trips and its travel (0.42 s).
  once <- cost_of(busy = 1, busy_rows = 1000, overheads = 0.1, once = 2e6)
  expect_identical(useful_workers(once, 4L, 839), 1L)
  expect_identical(useful_workers(once, 4L, 841), 2L)
  # Free round trips or nothing timed: every worker.
  expect_identical(useful_workers(cost_of(busy = 1, busy_rows = 1000, forced = 0), 4L, 10), 4L)
  expect_identical(useful_workers(cost_of(), 3L, 10), 3L)
  # least: 0.1 / 0.05 / 1e-3 = 2,000 rows; target: half of each worker's share.
  expect_equal(future_rows(cost, 2L, 1e5), c(least = 2000, target = 1e5 / 4))
  # Towards the end, a worker's share of what is left.
  expect_equal(future_rows(cost, 2L, 3000), c(least = 1500, target = 1500))
})

test_that("predict()'s cost per call is counted per call, not as its rows' (a cheap call stays here)", {
  # A predict() of randomForest's costs: 12.5 ms a call, 2.1e-6 s a row.
  # The probe (2 rows) and the first stack (a 32nd of 8,400 rows) timed.
  per_call <- 0.0125
  per_row <- 2.1e-6
  first <- 263
  cost <- cost_learn(cost_of(per_call = per_call + 2 * per_row), per_call + first * per_row, first)
  expect_equal(cost$calls, 1)
  expect_equal(cost$least, per_call + first * per_row)
  # The rows' own rate (the probe's 2 rows taken off with the call's cost).
  expect_equal(cost_rate(cost), (first - 2) * per_row / first)
  # What is left (8,137 rows, 17 ms of rows) keeps no second worker busy
  # for 4 round trips of 50 ms; the stack's rate of 4.96e-5 s a row (0.4 s
  # left) would have sent it to 2 workers.
  left <- 8400 - first
  expect_identical(useful_workers(cost, 2L, left), 1L)
  expect_identical(useful_workers(cost_of(busy = per_call + first * per_row, busy_rows = first), 2L, left), 2L)
  # The calls left are work too, at the cost per call: 3 (55 ms in all)
  # keep one worker, 40 (0.52 s) two.
  expect_equal(cost_call(cost), per_call + 2 * per_row)
  expect_identical(useful_workers(cost, 2L, left, calls = 3), 1L)
  expect_identical(useful_workers(cost, 2L, left, calls = 40), 2L)
  # A predict-bound call still turns to the workers: 1e-4 s a row.
  bound <- cost_learn(cost_of(per_call = per_call), per_call + first * 1e-4, first)
  expect_equal(cost_rate(bound), 1e-4)
  expect_identical(useful_workers(bound, 2L, 1e5), 2L)
  # On the workers: a future's calls learnt with its rows.
  bound <- cost_learn(bound, 4 * per_call + 4000 * 1e-4, 4000, trip = 0.05, calls = 4)
  expect_equal(cost_rate(bound), 1e-4)
  # A probe slower than a call (a first call's warm-up): the cost per call
  # is at most the fewest seconds a call took; rows timed but free keep
  # one worker, not every one.
  slow <- cost_learn(cost_of(per_call = 1), 0.2, 100)
  expect_equal(cost_rate(slow), 0)
  expect_identical(useful_workers(slow, 4L, 1e6), 1L)
  expect_equal(future_rows(slow, 4L, 1e6), c(least = 0, target = 1e6 / 2))
  # Its calls, at 0.2 s each, are what is worth the workers.
  expect_equal(cost_call(slow), 0.2)
  expect_identical(useful_workers(slow, 4L, 1e6, calls = 10), 4L)
})

test_that("a plan's round trip is learnt from a call's futures and kept for that plan", {
  skip_if_not_installed("future", "1.40.0")
  skip_on_cran()
  old <- future::plan("multisession", workers = 2)
  on.exit(future::plan(old), add = TRUE)
  old_entries <- plan_trips$entries
  on.exit(plan_trips$entries <- old_entries, add = TRUE)
  plan_trips$entries <- NULL
  expect_null(plan_trip())
  # The backend's prior until then.
  expect_equal(new_cost(list())$prior, future_trip_prior[["workers"]])
  set.seed(3)
  X <- data.frame(a = rnorm(600), b = rnorm(600))
  # 20 microseconds a row (slept): 2 x 600 x 41 rows take 1 s here.
  pf <- function(m, nd) {
    Sys.sleep(2e-5 * nrow(nd))
    nd$a * nd$b
  }
  # The first call under the plan: no round trip measured apart, it is
  # learnt from the call's own futures.
  m <- model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, grid_points = 41, keep_ice = FALSE)
  expect_length(plan_trips$entries, 1L)
  trip <- plan_trip()
  expect_gte(trip, 0)
  expect_lt(trip, 5)
  # Kept for the same plan set again (new workers of the same kind), not
  # for another.
  future::plan("sequential")
  future::plan("multisession", workers = 2)
  expect_identical(plan_trip(), trip)
  expect_identical(new_cost(list())$prior, trip)
  future::plan("multisession", workers = 1)
  expect_null(plan_trip())
  # The numbers of the sequential plan.
  future::plan("sequential")
  s <- model_profile(NULL, X, pf, variables = c("a", "b"), N = NULL, grid_points = 41, keep_ice = FALSE)
  expect_identical(m$agr_profiles, s$agr_profiles)
})

test_that("a plan keeps the shortest round trip of a call's futures, less the workers' setup and bytes", {
  skip_if_not_installed("future")
  old_entries <- plan_trips$entries
  on.exit(plan_trips$entries <- old_entries, add = TRUE)
  plan_trips$entries <- NULL
  # Futures of 0.5 s (0.4 s attaching packages on a worker's first) and
  # 0.3 s (0.05 s): 0.1 s, less 1e6 bytes at future_trip_per_byte.
  cost <- cost_of(overheads = c(0.5, 0.3), setups = c(0.4, 0.05), bytes = 1e6)
  keep_learnt(list(cost = cost, setup = list(error_call = NULL)))
  expect_equal(plan_trip(), 0.1 - 1e6 * future_trip_per_byte)
  # A round trip set by the option teaches the plan nothing.
  plan_trips$entries <- NULL
  keep_learnt(list(cost = cost_of(overheads = 0.2, forced = 0), setup = list(error_call = NULL)))
  expect_null(plan_trip())
})

test_that("in_flight_rows(): the rows the futures in flight have left, at the rate timed", {
  # 1 ms a row, round trip 0.1 s: a future of 500 rows sent 0.3 s ago has
  # had 0.2 s of work (200 rows) and 300 left; one sent just now, all 400.
  st <- list(cost = cost_of(busy = 1, busy_rows = 1000, overheads = 0.1))
  now <- proc.time()[[3L]]
  st$pending <- list(list(units = list(list(rows = 200), list(rows = 300)), sent = now - 0.3),
                     list(units = list(list(rows = 400)), sent = now))
  left <- in_flight_rows(st)
  expect_lte(left, 700 + 1e-9)
  expect_gt(left, 650)
  # Nothing in flight, or no rate timed: none.
  expect_identical(in_flight_rows(list(cost = st$cost, pending = list())), 0)
  expect_identical(in_flight_rows(list(cost = cost_of(), pending = st$pending)), 0)
})
