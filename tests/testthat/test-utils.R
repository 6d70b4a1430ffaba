# Seed hygiene: with `seed =`, a call leaves the session's random-number
# stream exactly as it found it, whatever the model's predict() draws.

# Run `expr` with no .Random.seed in the global environment (put back after).
without_random_seed <- function(expr) {
  env <- globalenv()
  old <- if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env)
  on.exit(if (is.null(old)) {
    if (exists(".Random.seed", envir = env, inherits = FALSE)) rm(".Random.seed", envir = env)
  } else {
    assign(".Random.seed", old, envir = env)
  })
  if (exists(".Random.seed", envir = env, inherits = FALSE)) rm(".Random.seed", envir = env)
  expr
}

seed_state <- function() get0(".Random.seed", envir = globalenv(), inherits = FALSE)

# The rows that a draw of N of n under `seed` gives (the stream put back).
with_seed_rows <- function(seed, n, N) {
  old <- seed_state()
  on.exit(assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed)
  sort(sample.int(n, N))
}

test_that("with seed =, ranger's predict path leaves the caller's stream as it was", {
  skip_if_not_installed("ranger")
  set.seed(71)
  d <- data.frame(x1 = runif(300), x2 = runif(300), x3 = runif(300))
  d$y <- d$x1 * d$x2 + rnorm(300, sd = 0.1)
  rf <- ranger::ranger(y ~ ., d, num.trees = 10, num.threads = 1, seed = 1)
  X <- d[c("x1", "x2", "x3")]
  # ranger's predict() draws from R's stream: without seed, the stream moves
  # even when no row is drawn (N = NULL).
  set.seed(5)
  before <- seed_state()
  p <- model_profile(rf, X, engine = "predict", N = NULL, grid_points = 4, variables = "x1")
  expect_false(identical(seed_state(), before))
  # With seed: exactly as it was, and runif() after the call is the same.
  set.seed(5)
  expected <- runif(3)
  set.seed(5)
  before <- seed_state()
  for (N in list(NULL, 100)) {
    p1 <- model_profile(rf, X, engine = "predict", N = N, seed = 3, grid_points = 4)
    expect_identical(seed_state(), before)
  }
  expect_identical(runif(3), expected)
  # The same rows as a seeded draw gives, and the same profile each time.
  expect_identical(p1$rows, with_seed_rows(3, nrow(X), 100))
  p2 <- model_profile(rf, X, engine = "predict", N = 100, seed = 3, grid_points = 4)
  expect_identical(p2$agr_profiles, p1$agr_profiles)
  # AL (the mean prediction and the local effects) and the other entry points.
  set.seed(6)
  before <- seed_state()
  model_profile(rf, X, engine = "predict", type = "accumulated", N = 150, seed = 2, grid = profile_grids(intervals = 5))
  model_profile(rf, X, engine = "predict", bands = profile_bands("bootstrap", B = 20), N = 80, seed = 2,
                grid_points = 3, variables = "x2")
  model_profile_2d(rf, X, variables = c("x1", "x2"), engine = "predict", N = 50, seed = 2, grid_points = 3)
  h_statistic(rf, X, engine = "predict", N = 40, seed = 2, pairs = 1)
  compare_profiles(rf, X, variables = "x1", engine = "predict", N = 60, seed = 2)
  hidden_interactions(rf, X, groups = profile_groups(list(g = rep(1:2, 150)), min_size = 5), engine = "predict", N = 100, seed = 2,
                      variables = "x1")
  expect_identical(seed_state(), before)
})

test_that("with seed =, no .Random.seed is left where there was none, also after an error", {
  X <- data.frame(x = runif(50), z = runif(50))
  draws <- function(m, nd) nd$x + 0 * runif(nrow(nd))
  without_random_seed({
    model_profile(NULL, X, draws, N = 20, seed = 1, grid_points = 3)
    expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
    model_profile(NULL, X, draws, N = NULL, seed = 1, type = "accumulated", grid = profile_grids(intervals = 4))
    expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
    fails <- function(m, nd) if (nrow(nd) > 2L) stop("no") else runif(nrow(nd))
    expect_error(model_profile(NULL, X, fails, N = 20, seed = 1, grid_points = 3), "no")
    expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
  })
  set.seed(9)
  before <- seed_state()
  expect_error(model_profile(NULL, X, function(m, nd) if (nrow(nd) > 2L) stop("no") else runif(nrow(nd)),
                             N = 20, seed = 1, grid_points = 3), "no")
  expect_identical(seed_state(), before)
  # The model's draws are reproducible under the seed: a predict function
  # that adds noise gives the same profile twice.
  noisy <- function(m, nd) nd$x + runif(nrow(nd))
  a <- model_profile(NULL, X, noisy, N = NULL, seed = 4, grid_points = 3)
  b <- model_profile(NULL, X, noisy, N = NULL, seed = 4, grid_points = 3)
  expect_identical(a$agr_profiles, b$agr_profiles)
  expect_error(model_profile(NULL, X, noisy, seed = "a"), "seed")
  expect_error(model_profile(NULL, X, noisy, seed = c(1, 2)), "seed")
})

test_that("with seed =, the generator's kind is put back too (as future's seed = TRUE can leave it)", {
  ref <- function(seed) {
    set.seed(seed, kind = "Mersenne-Twister")
    runif(2)
  }
  # What future 1.31 does: L'Ecuyer-CMRG for its streams, left as R's
  # generator.
  leak <- function() RNGkind("L'Ecuyer-CMRG")
  set.seed(1, kind = "Mersenne-Twister")
  before <- .Random.seed
  with_seed(5, leak())
  expect_identical(.Random.seed, before)
  set.seed(2)
  expect_identical(runif(2), ref(2))
  # Without a .Random.seed before: none after, and R's generator as it was
  # (set.seed() seeds the generator R is on when there is no .Random.seed).
  for (start in list(function(f) with_seed(5, f()), function(f) {
    restore <- seed_call(5, environment())
    f()
    restore()
  })) {
    rm(".Random.seed", envir = globalenv())
    start(leak)
    expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
    set.seed(4)
    expect_identical(runif(2), ref(4))
  }
  # (The leak itself: set.seed() then seeds L'Ecuyer-CMRG.)
  leak()
  rm(".Random.seed", envir = globalenv())
  set.seed(2)
  expect_false(identical(runif(2), ref(2)))
  RNGkind("Mersenne-Twister")
})

test_that("at_rows() and row_union() take no copy of all rows", {
  x <- runif(10)
  expect_identical(rlang::obj_address(at_rows(x, 1:10)), rlang::obj_address(x))
  expect_identical(at_rows(x, c(2L, 5L)), x[c(2, 5)])
  expect_identical(row_union(list(c(1L, 4L), 1:10), 10), 1:10)
  expect_identical(row_union(list(c(4L, 1L)), 10), c(1L, 4L))
  expect_identical(row_union(list(c(1L, 4L), c(2L, 4L, 9L)), 10), c(1L, 2L, 4L, 9L))
})

test_that("validate_result() classes a plain list that has the required fields", {
  x <- validate_result(list(a = 1, b = NULL, c = "z"), "mp_thing", c("a", "b"))
  expect_identical(class(x), "mp_thing")
  expect_identical(unclass(x), list(a = 1, b = NULL, c = "z"))
  expect_error(validate_result(list(a = 1), "mp_thing", c("a", "b", "d")), "an mp_thing lacks b, d")
  expect_error(validate_result(x, "mp_thing", "a"), "made from a plain list")
  expect_error(validate_result(1:3, "mp_thing", "a"), "made from a plain list")
})
